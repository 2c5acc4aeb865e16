// Matrix products (section 17 of capi/ctorch.h) as the binding adds them: each product method
// reaches its C function with its operands in order and the scalars beta and alpha in their
// places, complex results come back as System.Numerics.Complex, null and disposed operands are
// caught before the C call (with the parameter's name), the native messages come through, the
// torch.backends.cuda.matmul switches round-trip, and torch.cuda.current_blas_handle. The
// products' values, shape rules, dtypes and PyTorch's wording are the C suite's
// (tests/capi/linalg_test.c). The GPU cases skip visibly without a GPU.
using System;
using System.Numerics;
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

        [Test]
        public void EachProductReachesItsFunction()
        {
            AreEqual(AB, A().Mm(B()), 0.0);
            AreEqual(AB, A().Matmul(B()), 0.0);
            // B @ A is 3x3: the operands are not swapped on the way
            ShapeIs(B().Mm(A()), 3, 3);
            Tensor bm = A().Unsqueeze(0).Expand(2, 2, 3).Bmm(B().Unsqueeze(0).Expand(2, 3, 2));
            ShapeIs(bm, 2, 2, 2);
            AreEqual(new[] { 58.0, 64, 139, 154, 58, 64, 139, 154 }, bm, 0.0);
            Assert.AreEqual(32.0, D(1, 2, 3).Dot(D(4, 5, 6)).ItemDouble());      // 4 + 10 + 18
            AreEqual(new[] { 5.0, 11.0 }, A().Mv(D(1, -1, 2)), 0.0);          // [1 - 2 + 6, 4 - 5 + 12]
            // 0.5 input + 2 (A @ B) = [[0.5 + 116, 1 + 128], [1.5 + 278, 2 + 308]]: beta and alpha in place
            Tensor input = Tensor.FromArray(new double[,] { { 1, 2 }, { 3, 4 } });
            AreEqual(new[] { 116.5, 129, 279.5, 310 }, input.Addmm(A(), B(), beta: 0.5, alpha: 2.0), 0.0);
            AreEqual(new[] { 59.0, 66, 142, 158 }, input.Addmm(A(), B()), 0.0);
            // no conjugation (torch.dot): (1+2i)(3-i) + (2-i)(1+i) = (5+5i) + (3+i) = 8+6i
            Tensor z = Tensor.FromArray(new[] { new Complex(1, 2), new Complex(2, -1) })
                .Dot(Tensor.FromArray(new[] { new Complex(3, -1), new Complex(1, 1) }));
            Assert.AreEqual(DType.Complex128, z.DType);
            Assert.AreEqual(new Complex(8, 6), z.ItemComplex());
        }

        [Test]
        public void ErrorsComeThroughAndOperandsAreChecked()
        {
            CtorchException e = Fails(StatusCode.Shape, () => Tensor.Zeros(4, 3).Mm(Tensor.Zeros(4, 3)));
            Assert.AreEqual("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)", e.NativeMessage);
            e = Fails(StatusCode.DType, () => D(1, 2, 3).Dot(F(1, 2, 3)));
            StringAssert.Contains("expected both vectors to have same dtype", e.NativeMessage);
            Fails(StatusCode.Shape, () => A().Bmm(B()));
            Fails(StatusCode.Shape, () => A().Mv(B()));
            Fails(StatusCode.DType, () => Tensor.Zeros(2, 2).Addmm(A(), B()));

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

        [Test]
        public void SwitchesRoundTripAndAreProcessWide()
        {
            Assert.IsFalse(Torch.Backends.Cuda.Matmul.AllowTf32, "allow_tf32 default");
            Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction, "fp16 default");
            Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction, "bf16 default");
            try
            {
                Torch.Backends.Cuda.Matmul.AllowTf32 = true;
                Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction = false;
                Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction, "bf16 unchanged by fp16");
                Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction = false;
                bool tf32 = false, fp16 = true, bf16 = true;
                var t = new Thread(() =>
                {
                    tf32 = Torch.Backends.Cuda.Matmul.AllowTf32;
                    fp16 = Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction;
                    bf16 = Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction;
                });
                t.Start();
                t.Join();
                Assert.IsTrue(tf32);
                Assert.IsFalse(fp16);
                Assert.IsFalse(bf16);
            }
            finally
            {
                Torch.Backends.Cuda.Matmul.AllowTf32 = false;
                Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction = true;
                Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction = true;
            }
            Assert.IsFalse(Torch.Backends.Cuda.Matmul.AllowTf32);
            Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowFp16ReducedPrecisionReduction);
            Assert.IsTrue(Torch.Backends.Cuda.Matmul.AllowBf16ReducedPrecisionReduction);
        }

        [Test]
        public void CurrentBlasHandleWithoutGpu()
        {
            RequireNoGpu();
            Unavailable(() => Cuda.CurrentBlasHandle());
        }

        // The GPU cases run on a thread of their own (with a DisposeScope there): the cuBLAS
        // handle and its workspace (up to 32 MiB from the caching allocator) live as long as the
        // thread, so the memory tests of this process find no allocated memory left behind.
        private static void OnScopedThread(Action body) => OnOwnThread(() => { using (DisposeScope.Begin()) body(); });

        [Test]
        public void CudaProductsAndTheBlasHandle()
        {
            RequireGpu();
            OnScopedThread(() =>
            {
                long h1 = Cuda.CurrentBlasHandle();
                Assert.AreNotEqual(0L, h1);
                Tensor c = A(DType.Float32).To(Device.Cuda).Mm(B(DType.Float32).To(Device.Cuda));
                Assert.IsTrue(c.IsCuda);
                AreEqual(new[] { 58f, 64, 139, 154 }, c.Cpu(), 1e-5f);
                Assert.AreEqual(h1, Cuda.CurrentBlasHandle(), "the same thread and device get the same handle");
                long other = 0;
                OnOwnThread(() => other = Cuda.CurrentBlasHandle());
                Assert.AreNotEqual(h1, other, "threads have handles of their own");
                CtorchException e = Fails(StatusCode.Device, () => c.Mm(B(DType.Float32)));
                StringAssert.Contains("Expected all tensors to be on the same device", e.NativeMessage);
            });
        }
    }
}
