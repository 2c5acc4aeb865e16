// Matrix products (section 17 of capi/ctorch.h): mm, matmul's shape rules, bmm, dot, mv, addmm,
// the half and complex dtypes, PyTorch's errors, the torch.backends.cuda.matmul switches and
// torch.cuda.current_blas_handle. Expected values are worked out by hand (in the comments) or
// computed here in double precision from the values the operands hold. The GPU cases skip
// visibly without a GPU.
using System;
using System.Linq;
using System.Numerics;
using System.Runtime.ExceptionServices;
using System.Threading;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class LinalgTests : TestBase
    {
        // A = [[1, 2, 3],      B = [[ 7,  8],     A @ B = [[1*7 + 2*9 + 3*11, 1*8 + 2*10 + 3*12],
        //      [4, 5, 6]]           [ 9, 10],              [4*7 + 5*9 + 6*11, 4*8 + 5*10 + 6*12]]
        //                           [11, 12]]            = [[58, 64], [139, 154]]
        private static readonly double[] AB = { 58, 64, 139, 154 };

        private static Tensor A(DType dt = DType.Float64) =>
            Tensor.FromArray(new double[,] { { 1, 2, 3 }, { 4, 5, 6 } }).To(dt);

        private static Tensor B(DType dt = DType.Float64) =>
            Tensor.FromArray(new double[,] { { 7, 8 }, { 9, 10 }, { 11, 12 } }).To(dt);

        /// <summary>Deterministic values in [-1, 1) (as tests/capi/linalg_test.c's).</summary>
        private static double Val(long i, int salt) => ((i * 7919 + salt * 104729) % 2001 - 1000.0) / 1000.0;

        private static Tensor Values(DType dt, int salt, params long[] shape)
        {
            long n = 1;
            foreach (long s in shape) n *= s;
            var v = new double[n];
            for (long i = 0; i < n; i++) v[i] = Val(i, salt);
            return Tensor.FromArray(v, shape).To(dt);
        }

        /// <summary>The values a tensor holds, as doubles, read on the CPU.</summary>
        private static double[] Read(Tensor t) => t.To(Device.Cpu, DType.Float64).ToArray<double>();

        /// <summary>Row-major (n x k) times (k x m) in double precision, with the bound
        /// sum |a| |b| of each element (for relative tolerances).</summary>
        private static (double[] C, double[] Bound) RefMm(double[] a, double[] b, int n, int k, int m)
        {
            var c = new double[n * m];
            var bound = new double[n * m];
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++)
                {
                    double s = 0, abs = 0;
                    for (int p = 0; p < k; p++)
                    {
                        s += a[i * k + p] * b[p * m + j];
                        abs += Math.Abs(a[i * k + p] * b[p * m + j]);
                    }
                    c[i * m + j] = s;
                    bound[i * m + j] = abs;
                }
            return (c, bound);
        }

        private static void Near(double[] expected, double[] got, double tol, string what)
        {
            Assert.AreEqual(expected.Length, got.Length, what + ": numel");
            for (int i = 0; i < expected.Length; i++) Assert.AreEqual(expected[i], got[i], tol, what + ": element " + i);
        }

        private static void Exact(double[] expected, Tensor t, DType dtype)
        {
            Assert.AreEqual(dtype, t.DType, "dtype");
            CollectionAssert.AreEqual(expected, Read(t));
        }

        // ------------------------------------------------------------------------------ mm

        [Test]
        public void MmOfTwoByThreeAndThreeByTwo()
        {
            Tensor c = A(DType.Float32).Mm(B(DType.Float32));
            ShapeIs(c, 2, 2);
            AreEqual(new[] { 58f, 64f, 139f, 154f }, c, 0f);
            Tensor d = A().Mm(B());
            ShapeIs(d, 2, 2);
            AreEqual(AB, d, 0.0);
            // A @ A.T (a transposed, non-contiguous operand) = [[1+4+9, 4+10+18], [.., 16+25+36]]
            AreEqual(new[] { 14.0, 32.0, 32.0, 77.0 }, A().Mm(A().T), 0.0);
            // B.T @ A.T = (A @ B).T
            AreEqual(new[] { 58.0, 139.0, 64.0, 154.0 }, B().T.Mm(A().T), 0.0);
            // the operands are left alone
            AreEqual(new[] { 1.0, 2, 3, 4, 5, 6 }, A(), 0.0);
        }

        [Test]
        public void MmAgainstDoublePrecision()
        {
            foreach (var c0 in new[] { (Type: DType.Float32, Tol: 2e-6), (Type: DType.Float64, Tol: 1e-14) })
            {
                DType dt = c0.Type;
                double tol = c0.Tol;
                const int n = 9, k = 33, m = 7;
                Tensor a = Values(dt, 1, n, k), b = Values(dt, 2, k, m);
                var (want, bound) = RefMm(Read(a), Read(b), n, k, m);
                Tensor c = a.Mm(b);
                ShapeIs(c, n, m);
                Assert.AreEqual(dt, c.DType);
                double[] got = Read(c);
                for (int i = 0; i < got.Length; i++)
                    Assert.AreEqual(want[i], got[i], tol * bound[i], dt + " element " + i);
            }
        }

        [Test]
        public void EmptyProducts()
        {
            ShapeIs(Tensor.Zeros(0, 4).Mm(Tensor.Zeros(4, 5)), 0, 5);
            Tensor z = Tensor.Ones(3, 0).Mm(Tensor.Ones(0, 2));        // k = 0: zeros
            ShapeIs(z, 3, 2);
            AreEqual(new float[6], z, 0f);
            Assert.AreEqual(0.0, Tensor.Zeros(0).Dot(Tensor.Zeros(0)).ItemDouble());
        }

        // ------------------------------------------------------------------------------ matmul

        [Test]
        public void MatmulVectorAndMatrixRules()
        {
            // 1-D x 1-D: the dot product, a 0-dim tensor: 1*4 + 2*5 + 3*6 = 32
            Tensor dot = D(1, 2, 3).Matmul(D(4, 5, 6));
            Assert.AreEqual(0, dot.Dim);
            Assert.AreEqual(DType.Float64, dot.DType);
            Assert.AreEqual(32.0, dot.ItemDouble());
            // 1-D x 2-D: a row removed again: [1, 2, 3] @ B = [58, 64], shape (2)
            Tensor row = D(1, 2, 3).Matmul(B());
            ShapeIs(row, 2);
            AreEqual(new[] { 58.0, 64.0 }, row, 0.0);
            // 2-D x 1-D: A @ [1, 1, 1] = [6, 15], shape (2)
            Tensor col = A().Matmul(D(1, 1, 1));
            ShapeIs(col, 2);
            AreEqual(new[] { 6.0, 15.0 }, col, 0.0);
            // 2-D x 2-D is mm
            Tensor mm = A(DType.Float32).Matmul(B(DType.Float32));
            ShapeIs(mm, 2, 2);
            AreEqual(new[] { 58f, 64f, 139f, 154f }, mm, 0f);
        }

        [Test]
        public void MatmulBroadcastsBatches()
        {
            // a[b0, 0, i, p] = 12 b0 + 4 i + p, b[b1, p, j] = 8 b1 + 2 p + j
            Tensor a = Tensor.Arange(24.0, DType.Float64).Reshape(2, 1, 3, 4);
            Tensor b = Tensor.Arange(40.0, DType.Float64).Reshape(5, 4, 2);
            Tensor c = a.Matmul(b);
            ShapeIs(c, 2, 5, 3, 2);
            Assert.AreEqual(DType.Float64, c.DType);
            double[] got = c.ToArray<double>();
            // [0,0,0,0] = sum p * 2p = 2 (0 + 1 + 4 + 9) = 28
            Assert.AreEqual(28.0, got[0]);
            // [0,3,1,0] = sum (4 + p)(24 + 2p) = 96 + 130 + 168 + 210 = 604
            Assert.AreEqual(604.0, got[((0 * 5 + 3) * 3 + 1) * 2 + 0]);
            // [1,4,2,1] = sum (20 + p)(33 + 2p) = 660 + 735 + 814 + 897 = 3106
            Assert.AreEqual(3106.0, got[((1 * 5 + 4) * 3 + 2) * 2 + 1]);
            for (int b0 = 0; b0 < 2; b0++)
                for (int b1 = 0; b1 < 5; b1++)
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 2; j++)
                        {
                            double s = 0;
                            for (int p = 0; p < 4; p++) s += (12 * b0 + 4 * i + p) * (8 * b1 + 2 * p + j);
                            Assert.AreEqual(s, got[((b0 * 5 + b1) * 3 + i) * 2 + j], "[" + b0 + "," + b1 + "," + i + "," + j + "]");
                        }

            // (2, 3, 4) x (4, 3) -> (2, 3, 3) in float32 against double precision
            Tensor x = Values(DType.Float32, 3, 2, 3, 4), y = Values(DType.Float32, 4, 4, 3);
            Tensor xy = x.Matmul(y);
            ShapeIs(xy, 2, 3, 3);
            double[] xv = Read(x), yv = Read(y), xyv = Read(xy);
            for (int bb = 0; bb < 2; bb++)
            {
                double[] want = RefMm(xv.Skip(bb * 12).Take(12).ToArray(), yv, 3, 4, 3).C;
                Near(want, xyv.Skip(bb * 9).Take(9).ToArray(), 1e-6, "batch " + bb);
            }
        }

        [Test]
        public void MatmulWithOneVectorAndABatch()
        {
            Tensor v = D(1, 0, -1, 2);
            // (4) x (2, 4, 3) -> (2, 3): m[b, p, j] = 12 b + 3 p + j;
            // sum v[p] m[b, p, j] = m[b,0,j] - m[b,2,j] + 2 m[b,3,j] = 12 + 24 b + 2 j
            Tensor left = v.Matmul(Tensor.Arange(24.0, DType.Float64).Reshape(2, 4, 3));
            ShapeIs(left, 2, 3);
            AreEqual(new[] { 12.0, 14, 16, 36, 38, 40 }, left, 0.0);
            // (2, 3, 4) x (4) -> (2, 3): n[b, i, p] = 12 b + 4 i + p; sum v[p] n[b, i, p] = 4 + 24 b + 8 i
            Tensor right = Tensor.Arange(24.0, DType.Float64).Reshape(2, 3, 4).Matmul(v);
            ShapeIs(right, 2, 3);
            AreEqual(new[] { 4.0, 12, 20, 28, 36, 44 }, right, 0.0);
        }

        [Test]
        public void MatmulErrors()
        {
            CtorchException e = Fails(StatusCode.Shape, () => Tensor.Scalar(2.0).Matmul(F(1, 2)));
            StringAssert.Contains("both arguments to matmul need to be at least 1D, but they are 0D and 1D", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => Tensor.Zeros(4, 3).Matmul(Tensor.Zeros(4)));
            StringAssert.Contains("size mismatch, got input (4), mat (4x3), vec (4)", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => D(1, 2, 3).Matmul(D(1, 2)));
            StringAssert.Contains("inconsistent tensor size", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => Tensor.Zeros(2, 3, 4).Matmul(Tensor.Zeros(3, 2)));
            StringAssert.Contains("(matmul of 2x3x4 and 3x2)", e.NativeMessage);
            Fails(StatusCode.Shape, () => Tensor.Zeros(2, 3, 4).Matmul(Tensor.Zeros(3, 4, 2)));   // batches 2 and 3
            Fails(StatusCode.Shape, () => Tensor.Zeros(4).Matmul(Tensor.Zeros(2, 3, 4)));         // 4 against 3
            e = Fails(StatusCode.DType, () => Tensor.Zeros(2, 3, 4).Matmul(Tensor.Zeros(new long[] { 4, 2 }, DType.Float64)));
            StringAssert.Contains("expected m1 and m2 to have the same dtype, but got: float != double", e.NativeMessage);
            e = Fails(StatusCode.DType, () => Tensor.Ones(new long[] { 2, 2 }, DType.Int64).Matmul(Tensor.Ones(new long[] { 2, 2 }, DType.Int64)));
            StringAssert.Contains("not implemented for 'Long'", e.NativeMessage);
        }

        // ------------------------------------------------------------------------------ bmm, dot, mv

        [Test]
        public void Bmm()
        {
            Tensor a = Tensor.FromArray(new double[,,] { { { 1, 2, 3 }, { 4, 5, 6 } }, { { 1, 0, 0 }, { 0, 1, 0 } } });
            Tensor b = Tensor.FromArray(new double[,,] { { { 7, 8 }, { 9, 10 }, { 11, 12 } }, { { 7, 8 }, { 9, 10 }, { 11, 12 } } });
            Tensor c = a.Bmm(b);
            ShapeIs(c, 2, 2, 2);
            // batch 0: A @ B; batch 1: the first two rows of B
            AreEqual(new[] { 58.0, 64, 139, 154, 7, 8, 9, 10 }, c, 0.0);
            AreEqual(new[] { 58f, 64, 139, 154, 7, 8, 9, 10 }, a.To(DType.Float32).Bmm(b.To(DType.Float32)), 0f);

            // a transposed (non-contiguous) operand gives the bits of its contiguous copy
            Tensor x = Values(DType.Float32, 9, 2, 3, 4), yt = Values(DType.Float32, 10, 2, 5, 4);
            Tensor z = yt.Transpose(1, 2);
            Assert.IsFalse(z.IsContiguous);
            CollectionAssert.AreEqual(x.Bmm(z.Contiguous()).ToArray<float>(), x.Bmm(z).ToArray<float>());

            CtorchException e = Fails(StatusCode.Shape, () => A().Bmm(b));
            StringAssert.Contains("batch1 must be a 3D tensor", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => a.Bmm(B()));
            StringAssert.Contains("batch2 must be a 3D tensor", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => a.Bmm(Tensor.Zeros(new long[] { 3, 3, 2 }, DType.Float64)));
            StringAssert.Contains("Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].", e.NativeMessage);
            Fails(StatusCode.DType, () => a.Bmm(b.To(DType.Float32)));
        }

        [Test]
        public void Dot()
        {
            Tensor d = D(1, 2, 3).Dot(D(4, 5, 6));     // 4 + 10 + 18
            Assert.AreEqual(0, d.Dim);
            Assert.AreEqual(DType.Float64, d.DType);
            Assert.AreEqual(32.0, d.ItemDouble());
            Tensor f = F(0.5f, -2, 3).Dot(F(4, 0.25f, -1));   // 2 - 0.5 - 3
            Assert.AreEqual(DType.Float32, f.DType);
            Assert.AreEqual(-1.5, f.ItemDouble());
            // no conjugation (torch.dot, not vdot): (1+2i)(3-i) + (2-i)(1+i) = (5+5i) + (3+i) = 8+6i
            Tensor z = Tensor.FromArray(new[] { new Complex(1, 2), new Complex(2, -1) })
                .Dot(Tensor.FromArray(new[] { new Complex(3, -1), new Complex(1, 1) }));
            Assert.AreEqual(DType.Complex128, z.DType);
            Assert.AreEqual(new Complex(8, 6), z.ItemComplex());

            CtorchException e = Fails(StatusCode.Shape, () => D(1, 2, 3).Dot(A()));
            StringAssert.Contains("1D tensors expected, but got 1D and 2D tensors", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => D(1, 2, 3).Dot(D(1, 2)));
            StringAssert.Contains("inconsistent tensor size", e.NativeMessage);
            e = Fails(StatusCode.DType, () => D(1, 2, 3).Dot(F(1, 2, 3)));
            StringAssert.Contains("dot : expected both vectors to have same dtype, but found Double and Float", e.NativeMessage);
            e = Fails(StatusCode.DType, () => L(1, 2).Dot(L(3, 4)));
            StringAssert.Contains("\"dot\" not implemented for 'Long'", e.NativeMessage);
        }

        [Test]
        public void Mv()
        {
            // A @ [1, -1, 2] = [1 - 2 + 6, 4 - 5 + 12]
            Tensor r = A().Mv(D(1, -1, 2));
            ShapeIs(r, 2);
            AreEqual(new[] { 5.0, 11.0 }, r, 0.0);
            AreEqual(new[] { 5f, 11f }, A(DType.Float32).Mv(F(1, -1, 2)), 0f);
            // A.T @ [1, 1] = [5, 7, 9] (non-contiguous matrix)
            AreEqual(new[] { 5.0, 7, 9 }, A().T.Mv(D(1, 1)), 0.0);

            CtorchException e = Fails(StatusCode.Shape, () => A().Mv(D(1, 2)));
            StringAssert.Contains("size mismatch, got input (2), mat (2x3), vec (2)", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => A().Mv(B()));
            StringAssert.Contains("vector + matrix @ vector expected", e.NativeMessage);
            Fails(StatusCode.DType, () => A().Mv(F(1, 2, 3)));
        }

        // ------------------------------------------------------------------------------ addmm

        [Test]
        public void AddmmWithBetaAndAlpha()
        {
            Tensor input = Tensor.FromArray(new double[,] { { 1, 2 }, { 3, 4 } });
            // defaults beta = alpha = 1: input + A @ B
            AreEqual(new[] { 59.0, 66, 142, 158 }, input.Addmm(A(), B()), 0.0);
            // 0.5 input + 2 (A @ B) = [[0.5 + 116, 1 + 128], [1.5 + 278, 2 + 308]]
            Tensor r = input.Addmm(A(), B(), beta: 0.5, alpha: 2.0);
            ShapeIs(r, 2, 2);
            AreEqual(new[] { 116.5, 129, 279.5, 310 }, r, 0.0);
            AreEqual(new[] { 116.5f, 129, 279.5f, 310 }, input.To(DType.Float32).Addmm(A(DType.Float32), B(DType.Float32), 0.5, 2.0), 0f);
            // alpha only: input - (A @ B)
            AreEqual(new[] { -57.0, -62, -136, -150 }, input.Addmm(A(), B(), alpha: -1), 0.0);
            // input broadcast: a row [10, 20] ...
            Tensor rowIn = D(10, 20).Addmm(A(), B());
            ShapeIs(rowIn, 2, 2);
            AreEqual(new[] { 68.0, 84, 149, 174 }, rowIn, 0.0);
            // ... a column [[1], [2]] and a 0-dim tensor
            AreEqual(new[] { 59.0, 65, 141, 156 }, Tensor.FromArray(new double[,] { { 1 }, { 2 } }).Addmm(A(), B()), 0.0);
            AreEqual(new[] { 158.0, 164, 239, 254 }, Tensor.Scalar(100.0).To(DType.Float64).Addmm(A(), B()), 0.0);
        }

        [Test]
        public void AddmmWithBetaZeroIgnoresTheInput()
        {
            Tensor nan = Tensor.Full(new long[] { 2, 2 }, double.NaN, DType.Float64);
            AreEqual(AB, nan.Addmm(A(), B(), beta: 0.0), 0.0);
            AreEqual(new[] { 116.0, 128, 278, 308 }, nan.Addmm(A(), B(), beta: 0.0, alpha: 2.0), 0.0);
            Tensor inf = Tensor.Full(new long[] { 2 }, double.PositiveInfinity, DType.Float32);
            AreEqual(new[] { 58f, 64f, 139f, 154f }, inf.Addmm(A(DType.Float32), B(DType.Float32), 0.0), 0f);
            // with any other beta the NaN comes through, as in PyTorch
            Assert.IsTrue(Read(nan.Addmm(A(), B(), beta: 1e-300)).All(double.IsNaN));
        }

        [Test]
        public void AddmmErrors()
        {
            Tensor input = Tensor.Zeros(new long[] { 2, 2 }, DType.Float64);
            CtorchException e = Fails(StatusCode.Shape, () => input.Addmm(A(), A()));
            StringAssert.Contains("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)", e.NativeMessage);
            Fails(StatusCode.Shape, () => D(1, 2, 3).Addmm(A(), B()));       // (3) against (2, 2)
            e = Fails(StatusCode.DType, () => Tensor.Zeros(2, 2).Addmm(A(), B()));
            StringAssert.Contains("self and mat2 must have the same dtype, but got float and double", e.NativeMessage);
            e = Fails(StatusCode.DType, () => input.Addmm(A(), B(DType.Float32)));
            StringAssert.Contains("expected m1 and m2 to have the same dtype, but got: double != float", e.NativeMessage);
        }

        // ------------------------------------------------------------------------------ dtypes

        [Test]
        public void HalfTypes()
        {
            foreach (DType dt in new[] { DType.Float16, DType.BFloat16 })
            {
                // small integers and their sums are exact in both (<= 8 significant bits)
                Tensor c = A(dt).Mm(B(dt));
                Exact(AB, c, dt);
                Exact(new[] { 32.0 }, D(1, 2, 3).To(dt).Dot(D(4, 5, 6).To(dt)), dt);
                Exact(new[] { 5.0, 11.0 }, A(dt).Mv(D(1, -1, 2).To(dt)), dt);
                // 0.5 [[1, 2], [3, 4]] + 2 (A @ B) = [[116.5, 129], [279.5, 310]]; bfloat16 has steps of
                // 2 between 256 and 512, so its 279.5 rounds to 280
                Exact(new[] { 116.5, 129, dt == DType.BFloat16 ? 280 : 279.5, 310 },
                      Tensor.FromArray(new double[,] { { 1, 2 }, { 3, 4 } }).To(dt).Addmm(A(dt), B(dt), 0.5, 2.0), dt);

                // values with all mantissa bits: against double precision of the values the
                // operands hold, within the dtype's epsilon (2^-10, 2^-7) times sum |a| |b|
                const int n = 6, k = 40, m = 5;
                Tensor a = Values(dt, 1, n, k), b = Values(dt, 2, k, m);
                double eps = dt == DType.Float16 ? Math.Pow(2, -10) : Math.Pow(2, -7);
                var (want, bound) = RefMm(Read(a), Read(b), n, k, m);
                Tensor p = a.Mm(b);
                Assert.AreEqual(dt, p.DType);
                double[] got = Read(p);
                for (int i = 0; i < got.Length; i++)
                    Assert.AreEqual(want[i], got[i], eps * bound[i], dt + " element " + i);
                // batched matmul in the dtype
                Tensor bm = Values(dt, 5, 3, 2, 4).Matmul(Values(dt, 6, 4, 2));
                ShapeIs(bm, 3, 2, 2);
                Assert.AreEqual(dt, bm.DType);
            }
        }

        [Test]
        public void ComplexTypes()
        {
            // [[1+2i, 3-i], [2i, 2]] @ [[2, i], [1-i, 4]]:
            //   [0,0] = (1+2i) 2 + (3-i)(1-i) = (2+4i) + (2-4i) = 4
            //   [0,1] = (1+2i) i + (3-i) 4 = (-2+i) + (12-4i) = 10-3i
            //   [1,0] = 2i 2 + 2 (1-i) = 2+2i
            //   [1,1] = 2i i + 2 4 = 6
            var x = new[] { new Complex(1, 2), new Complex(3, -1), new Complex(0, 2), new Complex(2, 0) };
            var y = new[] { new Complex(2, 0), new Complex(0, 1), new Complex(1, -1), new Complex(4, 0) };
            var want = new[] { new Complex(4, 0), new Complex(10, -3), new Complex(2, 2), new Complex(6, 0) };
            foreach (DType dt in new[] { DType.Complex64, DType.Complex128 })
            {
                Tensor c = Tensor.FromArray(x, 2, 2).To(dt).Mm(Tensor.FromArray(y, 2, 2).To(dt));
                Assert.AreEqual(dt, c.DType);
                ShapeIs(c, 2, 2);
                CollectionAssert.AreEqual(want, c.To(DType.Complex128).ToArray<Complex>());
            }

            // complex64 with fractional values against System.Numerics.Complex in double precision
            const int n = 4, k = 10, m = 3;
            var av = new Complex[n * k];
            var bv = new Complex[k * m];
            for (int i = 0; i < av.Length; i++) av[i] = new Complex(Val(i, 1), Val(i, 2));
            for (int i = 0; i < bv.Length; i++) bv[i] = new Complex(Val(i, 3), Val(i, 4));
            Tensor a64 = Tensor.FromArray(av, n, k).To(DType.Complex64), b64 = Tensor.FromArray(bv, k, m).To(DType.Complex64);
            Complex[] ah = a64.To(DType.Complex128).ToArray<Complex>(), bh = b64.To(DType.Complex128).ToArray<Complex>();
            Tensor p = a64.Mm(b64);
            Assert.AreEqual(DType.Complex64, p.DType);
            Complex[] got = p.To(DType.Complex128).ToArray<Complex>();
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++)
                {
                    Complex s = Complex.Zero;
                    for (int q = 0; q < k; q++) s += ah[i * k + q] * bh[q * m + j];
                    Assert.AreEqual(s.Real, got[i * m + j].Real, 1e-5, "re " + i + "," + j);
                    Assert.AreEqual(s.Imaginary, got[i * m + j].Imaginary, 1e-5, "im " + i + "," + j);
                }
            // addmm with real beta and alpha on complex tensors: 2 (4) + 0.5 (4) = 10 at [0,0]
            Tensor am = Tensor.FromArray(want, 2, 2).To(DType.Complex64)
                .Addmm(Tensor.FromArray(x, 2, 2).To(DType.Complex64), Tensor.FromArray(y, 2, 2).To(DType.Complex64), 2.0, 0.5);
            Complex[] amv = am.To(DType.Complex128).ToArray<Complex>();
            for (int i = 0; i < 4; i++) Assert.AreEqual(want[i] * 2.5, amv[i]);
        }

        // ------------------------------------------------------------------------------ errors

        [Test]
        public void ErrorsAsPyTorchWordsThem()
        {
            CtorchException e = Fails(StatusCode.Shape, () => Tensor.Zeros(4, 3).Mm(Tensor.Zeros(4, 3)));
            Assert.AreEqual("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)", e.NativeMessage);
            e = Fails(StatusCode.DType, () => Tensor.Zeros(new long[] { 4, 3 }, DType.Float64).Mm(Tensor.Zeros(3, 2)));
            Assert.AreEqual("expected m1 and m2 to have the same dtype, but got: double != float", e.NativeMessage);
            e = Fails(StatusCode.DType, () => Tensor.Ones(new long[] { 2, 2 }, DType.Int32).Mm(Tensor.Ones(new long[] { 2, 2 }, DType.Int32)));
            StringAssert.StartsWith("\"mm\" not implemented for 'Int'", e.NativeMessage);
            e = Fails(StatusCode.DType, () => Tensor.Ones(new long[] { 2, 2 }, DType.Bool).Mm(Tensor.Ones(new long[] { 2, 2 }, DType.Bool)));
            StringAssert.StartsWith("\"mm\" not implemented for 'Bool'", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => D(1, 2).Mm(A()));
            StringAssert.Contains("self must be a matrix", e.NativeMessage);
            e = Fails(StatusCode.Shape, () => A().Mm(D(1, 2, 3)));
            StringAssert.Contains("mat2 must be a matrix", e.NativeMessage);
        }

        [Test]
        public void NullAndDisposedOperands()
        {
            Tensor a = A();
            Assert.AreEqual("other", Assert.Throws<ArgumentNullException>(() => a.Matmul(null)).ParamName);
            Assert.AreEqual("mat2", Assert.Throws<ArgumentNullException>(() => a.Mm(null)).ParamName);
            Assert.AreEqual("mat2", Assert.Throws<ArgumentNullException>(() => a.Bmm(null)).ParamName);
            Assert.AreEqual("other", Assert.Throws<ArgumentNullException>(() => a.Dot(null)).ParamName);
            Assert.AreEqual("vec", Assert.Throws<ArgumentNullException>(() => a.Mv(null)).ParamName);
            Assert.AreEqual("mat1", Assert.Throws<ArgumentNullException>(() => a.Addmm(null, B())).ParamName);
            Assert.AreEqual("mat2", Assert.Throws<ArgumentNullException>(() => a.Addmm(B(), null)).ParamName);
            Tensor gone = B();
            gone.Dispose();
            Assert.Throws<ObjectDisposedException>(() => a.Mm(gone));
            Assert.Throws<ObjectDisposedException>(() => gone.Mm(a));
            Assert.Throws<ObjectDisposedException>(() => a.Addmm(a, gone));
            Assert.Throws<ObjectDisposedException>(() => gone.Addmm(a, a));
        }

        // ------------------------------------------------------------------------------ switches

        [Test]
        public void SwitchDefaultsAndRoundTrips()
        {
            Assert.IsFalse(Torch.Backends.Cuda.Matmul.AllowTf32, "allow_tf32 default");
            Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction, "fp16 default");
            Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction, "bf16 default");
            try
            {
                Torch.Backends.Cuda.Matmul.AllowTf32 = true;
                Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowTf32);
                Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction = false;
                Assert.IsFalse(Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction);
                Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction, "bf16 unchanged by fp16");
                Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction = false;
                Assert.IsFalse(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction);
                Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowTf32, "tf32 unchanged by the others");

                // process-wide: another thread sees the same values
                bool tf32 = false, fp16 = true;
                var t = new Thread(() =>
                {
                    tf32 = Torch.Backends.Cuda.Matmul.AllowTf32;
                    fp16 = Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction;
                });
                t.Start();
                t.Join();
                Assert.IsTrue(tf32);
                Assert.IsFalse(fp16);

                Torch.Backends.Cuda.Matmul.AllowTf32 = false;
                Assert.IsFalse(Torch.Backends.Cuda.Matmul.AllowTf32);
                Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction = true;
                Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction);
                Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction = true;
                Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction);
            }
            finally
            {
                RestoreSwitches();
            }
        }

        [Test]
        public void SwitchesDoNotChangeCpuProducts()
        {
            Tensor a = Values(DType.Float32, 1, 8, 64), b = Values(DType.Float32, 2, 64, 8);
            Tensor h = Values(DType.Float16, 1, 8, 64), hb = Values(DType.Float16, 2, 64, 8);
            float[] full = a.Mm(b).ToArray<float>();
            byte[] half = h.Mm(hb).ToBytes();
            try
            {
                Torch.Backends.Cuda.Matmul.AllowTf32 = true;
                Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction = false;
                CollectionAssert.AreEqual(full, a.Mm(b).ToArray<float>());
                CollectionAssert.AreEqual(half, h.Mm(hb).ToBytes());
            }
            finally
            {
                RestoreSwitches();
            }
        }

        private static void RestoreSwitches()
        {
            Torch.Backends.Cuda.Matmul.AllowTf32 = false;
            Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction = true;
            Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction = true;
        }

        // ------------------------------------------------------------------------------ CUDA

        [Test]
        public void CurrentBlasHandleWithoutGpu()
        {
            RequireNoGpu();
            Unavailable(() => Cuda.CurrentBlasHandle());
        }

        // The GPU cases run on a thread of their own: the cuBLAS handle and its workspace (up to
        // 32 MiB from the caching allocator) live as long as the thread, and a thread that has
        // ended leaves no allocated memory behind for the memory tests of this process.
        private static void OnOwnThread(Action body)
        {
            Exception error = null;
            var t = new Thread(() =>
            {
                try
                {
                    using (DisposeScope.Begin()) body();
                }
                catch (Exception e) { error = e; }
            });
            t.Start();
            t.Join();
            if (error != null) ExceptionDispatchInfo.Capture(error).Throw();
        }

        [Test]
        public void CudaMmEqualsTheCpuResult()
        {
            RequireGpu();
            OnOwnThread(() =>
            {
                Tensor c = A(DType.Float32).To(Device.Cuda).Mm(B(DType.Float32).To(Device.Cuda));
                Assert.IsTrue(c.IsCuda);
                Assert.AreEqual(DType.Float32, c.DType);
                ShapeIs(c, 2, 2);
                Near(Read(A(DType.Float32).Mm(B(DType.Float32))), Read(c), 1e-5, "2x3 @ 3x2");
                Near(AB, Read(c), 1e-5, "2x3 @ 3x2 by hand");

                foreach (var c0 in new[] { (Type: DType.Float32, Tol: 1e-5), (Type: DType.Float64, Tol: 1e-12) })
                {
                    DType dt = c0.Type;
                    double tol = c0.Tol;
                    Tensor a = Values(dt, 1, 64, 33), b = Values(dt, 2, 33, 17);
                    Tensor cpu = a.Mm(b), gpu = a.To(Device.Cuda).Mm(b.To(Device.Cuda));
                    Assert.IsTrue(gpu.IsCuda);
                    Near(Read(cpu), Read(gpu), tol, dt + " 64x33 @ 33x17");
                    // batched matmul and addmm on the device
                    Tensor x = Values(dt, 3, 2, 1, 3, 4), y = Values(dt, 4, 5, 4, 2);
                    Near(Read(x.Matmul(y)), Read(x.To(Device.Cuda).Matmul(y.To(Device.Cuda))), tol, dt + " batched matmul");
                    Tensor input = Values(dt, 5, 64, 17);
                    Near(Read(input.Addmm(a, b, 0.5, 2.0)),
                         Read(input.To(Device.Cuda).Addmm(a.To(Device.Cuda), b.To(Device.Cuda), 0.5, 2.0)), 2 * tol, dt + " addmm");
                }
                foreach (DType dt in new[] { DType.Float16, DType.BFloat16 })
                    Exact(AB, A(dt).To(Device.Cuda).Mm(B(dt).To(Device.Cuda)), dt);
            });
        }

        [Test]
        public void CudaOperandsOnTwoDevices()
        {
            RequireGpu();
            using (Tensor g = A(DType.Float32).To(Device.Cuda))
            {
                CtorchException e = Fails(StatusCode.Device, () => g.Mm(B(DType.Float32)));
                StringAssert.Contains("Expected all tensors to be on the same device", e.NativeMessage);
                Fails(StatusCode.Device, () => A(DType.Float32).Matmul(g.T));
            }
        }

        [Test]
        public void CurrentBlasHandleIsNonZeroAndStable()
        {
            RequireGpu();
            OnOwnThread(() =>
            {
                long h1 = Cuda.CurrentBlasHandle(), h2 = Cuda.CurrentBlasHandle();
                Assert.AreNotEqual(0L, h1);
                Assert.AreEqual(h1, h2, "the same thread and device get the same handle");
                using (Tensor c = A(DType.Float32).To(Device.Cuda).Mm(B(DType.Float32).To(Device.Cuda))) { }
                Assert.AreEqual(h1, Cuda.CurrentBlasHandle(), "a product uses the thread's handle");
                // another thread, while this one holds its handle: a handle of its own
                long other = 0;
                OnOwnThread(() => other = Cuda.CurrentBlasHandle());
                Assert.AreNotEqual(0L, other);
                Assert.AreNotEqual(h1, other, "threads have handles of their own");
                Assert.AreEqual(h1, Cuda.CurrentBlasHandle());
            });
        }
    }
}
