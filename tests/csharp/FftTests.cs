// FFT (section 18 of capi/ctorch.h): FFT's transforms against DFTs computed here in double
// precision from the definition, the norms' scaling, cutting and zero-padding, the real and
// Hermitian transforms, fftn over chosen dims, fftfreq, fftshift, the dtype rules, PyTorch's
// errors and the cuFFT plan cache. The GPU cases skip visibly without a GPU.
using System;
using System.Linq;
using System.Numerics;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class FftTests : TestBase
    {
        /// <summary>Deterministic complex values with both parts in [-1, 1).</summary>
        private static Complex[] Signal(int n, int salt) =>
            Enumerable.Range(0, n).Select(i => new Complex(Val(i, salt), Val(i, salt + 17))).ToArray();

        private static double Val(long i, int salt) => ((i * 7919 + salt * 104729) % 2001 - 1000.0) / 1000.0;

        private static double[] RealSignal(int n, int salt) => Enumerable.Range(0, n).Select(i => Val(i, salt)).ToArray();

        /// <summary>The naive DFT of x taken to n points (cut, or padded with zeros), unscaled:
        /// X[k] = sum_j x[j] exp(-+2 pi i j k / n).</summary>
        private static Complex[] Dft(Complex[] x, int n, bool inverse = false)
        {
            var r = new Complex[n];
            double sign = inverse ? 1 : -1;
            for (int k = 0; k < n; k++)
            {
                Complex s = Complex.Zero;
                for (int j = 0; j < Math.Min(n, x.Length); j++)
                    s += x[j] * Complex.FromPolarCoordinates(1, sign * 2 * Math.PI * ((long)j * k % n) / n);
                r[k] = s;
            }
            return r;
        }

        private static Complex[] Dft(Complex[] x) => Dft(x, x.Length);

        private static Complex[] Scale(Complex[] x, double f) => x.Select(v => v * f).ToArray();

        private static Complex[] ToComplex(double[] x) => x.Select(v => new Complex(v, 0)).ToArray();

        /// <summary>The unscaled DFT along one axis of a row-major array of the given shape.</summary>
        private static Complex[] DftAlong(Complex[] x, long[] shape, int axis, bool inverse = false)
        {
            long inner = 1;
            for (int d = axis + 1; d < shape.Length; d++) inner *= shape[d];
            long n = shape[axis], outer = x.Length / (n * inner);
            var r = new Complex[x.Length];
            for (long o = 0; o < outer; o++)
                for (long i = 0; i < inner; i++)
                {
                    var line = new Complex[n];
                    for (long j = 0; j < n; j++) line[j] = x[(o * n + j) * inner + i];
                    Complex[] t = Dft(line, (int)n, inverse);
                    for (long j = 0; j < n; j++) r[(o * n + j) * inner + i] = t[j];
                }
            return r;
        }

        /// <summary>The values of a complex (or real) tensor, read on the CPU as complex128.</summary>
        private static Complex[] ReadC(Tensor t) => t.To(Device.Cpu, DType.Complex128).ToArray<Complex>();

        private static double[] ReadD(Tensor t) => t.To(Device.Cpu, DType.Float64).ToArray<double>();

        private static Tensor C(Complex[] x, params long[] shape) => Tensor.FromArray(x, shape);

        private static void Near(Complex[] expected, Complex[] got, double tol, string what)
        {
            Assert.AreEqual(expected.Length, got.Length, what + ": numel");
            for (int i = 0; i < expected.Length; i++)
            {
                Assert.AreEqual(expected[i].Real, got[i].Real, tol, what + ": real part of element " + i);
                Assert.AreEqual(expected[i].Imaginary, got[i].Imaginary, tol, what + ": imaginary part of element " + i);
            }
        }

        private static void Near(double[] expected, double[] got, double tol, string what)
        {
            Assert.AreEqual(expected.Length, got.Length, what + ": numel");
            for (int i = 0; i < expected.Length; i++) Assert.AreEqual(expected[i], got[i], tol, what + ": element " + i);
        }

        // ------------------------------------------------------------------- 1-D complex

        [Test]
        public void FftOfLength8And7MatchesTheNaiveDft()
        {
            foreach (int n in new[] { 8, 7 })
            {
                Complex[] x = Signal(n, n);
                Tensor y = FFT.Fft(C(x));
                Assert.AreEqual(DType.Complex128, y.DType);
                ShapeIs(y, n);
                Near(Dft(x), ReadC(y), 1e-12, "fft of length " + n);
                // complex64 in, complex64 out, float32 precision
                Tensor y32 = FFT.Fft(C(x).To(DType.Complex64));
                Assert.AreEqual(DType.Complex64, y32.DType);
                Near(Dft(x), ReadC(y32), 1e-5, "complex64 fft of length " + n);
            }
            // a hand-checkable case: the DFT of an impulse at 1 is exp(-2 pi i k / 4) = 1, -i, -1, i
            Near(new[] { new Complex(1, 0), new Complex(0, -1), new Complex(-1, 0), new Complex(0, 1) },
                 ReadC(FFT.Fft(C(new Complex[] { 0, 1, 0, 0 }))), 1e-15, "impulse");
        }

        [Test]
        public void IfftInvertsFft()
        {
            foreach (int n in new[] { 8, 7 })
            {
                Complex[] x = Signal(n, 3);
                Tensor y = FFT.Fft(C(x));
                Near(x, ReadC(FFT.Ifft(y)), 1e-12, "ifft(fft(x)), n = " + n);
                // ifft alone: (1/n) sum X[k] exp(+2 pi i j k / n)
                Near(Scale(Dft(x, n, inverse: true), 1.0 / n), ReadC(FFT.Ifft(C(x))), 1e-12, "ifft, n = " + n);
            }
        }

        [Test]
        public void TheThreeNormsScale()
        {
            const int n = 8;
            Complex[] x = Signal(n, 5);
            Complex[] fwd = Dft(x), inv = Dft(x, n, inverse: true);
            Near(fwd, ReadC(FFT.Fft(C(x), norm: FftNorm.Backward)), 1e-12, "fft backward");
            Near(Scale(fwd, 1.0 / n), ReadC(FFT.Fft(C(x), norm: FftNorm.Forward)), 1e-12, "fft forward");
            Near(Scale(fwd, 1 / Math.Sqrt(n)), ReadC(FFT.Fft(C(x), norm: FftNorm.Ortho)), 1e-12, "fft ortho");
            Near(Scale(inv, 1.0 / n), ReadC(FFT.Ifft(C(x), norm: FftNorm.Backward)), 1e-12, "ifft backward");
            Near(inv, ReadC(FFT.Ifft(C(x), norm: FftNorm.Forward)), 1e-12, "ifft forward");
            Near(Scale(inv, 1 / Math.Sqrt(n)), ReadC(FFT.Ifft(C(x), norm: FftNorm.Ortho)), 1e-12, "ifft ortho");
            // every norm round-trips with itself
            foreach (FftNorm norm in new[] { FftNorm.Backward, FftNorm.Forward, FftNorm.Ortho })
                Near(x, ReadC(FFT.Ifft(FFT.Fft(C(x), norm: norm), norm: norm)), 1e-12, "round trip " + norm);
            Assert.AreEqual(0, (int)FftNorm.Backward);
            Assert.AreEqual(1, (int)FftNorm.Forward);
            Assert.AreEqual(2, (int)FftNorm.Ortho);
        }

        [Test]
        public void NCutsAndZeroPads()
        {
            Complex[] x = Signal(8, 9);
            Tensor cut = FFT.Fft(C(x), 5);
            ShapeIs(cut, 5);
            Near(Dft(x.Take(5).ToArray()), ReadC(cut), 1e-12, "n = 5 cuts");
            Tensor padded = FFT.Fft(C(x), n: 12);
            ShapeIs(padded, 12);
            Near(Dft(x.Concat(new Complex[4]).ToArray()), ReadC(padded), 1e-12, "n = 12 pads with zeros");
            Near(Dft(x), ReadC(FFT.Fft(C(x), -1)), 1e-12, "n = -1 keeps the size");
            Near(Dft(x), ReadC(FFT.Fft(C(x), null)), 1e-12, "n = null keeps the size");
        }

        [Test]
        public void FftAlongAChosenDim()
        {
            // a 3x4 input: dim 0 transforms the columns, dim -1 (the default) the rows
            long[] shape = { 3, 4 };
            Complex[] x = Signal(12, 11);
            Near(DftAlong(x, shape, 0), ReadC(FFT.Fft(C(x, shape), dim: 0)), 1e-12, "dim 0");
            Near(DftAlong(x, shape, 1), ReadC(FFT.Fft(C(x, shape))), 1e-12, "dim -1");
        }

        // ------------------------------------------------------------------- real and Hermitian

        [Test]
        public void RfftOfLength10GivesSixValues()
        {
            double[] x = RealSignal(10, 2);
            Tensor y = FFT.Rfft(D(x));
            Assert.AreEqual(DType.Complex128, y.DType);
            ShapeIs(y, 6);
            Near(Dft(ToComplex(x)).Take(6).ToArray(), ReadC(y), 1e-12, "rfft of 10");
            ShapeIs(FFT.Rfft(D(RealSignal(7, 2))), 4);
            Near(Dft(ToComplex(x), 7).Take(4).ToArray(), ReadC(FFT.Rfft(D(x), 7)), 1e-12, "rfft with n = 7 cuts");
        }

        [Test]
        public void IrfftInvertsRfft()
        {
            double[] x = RealSignal(10, 4);
            Tensor back = FFT.Irfft(FFT.Rfft(D(x)));
            Assert.AreEqual(DType.Float64, back.DType);
            ShapeIs(back, 10);
            Near(x, ReadD(back), 1e-12, "irfft(rfft(x)), n = 10 by default");
            // odd lengths need n: the default 2 * (4 - 1) = 6 is even
            double[] x7 = RealSignal(7, 6);
            Tensor half = FFT.Rfft(D(x7));
            ShapeIs(FFT.Irfft(half), 6);
            Tensor back7 = FFT.Irfft(half, 7);
            ShapeIs(back7, 7);
            Near(x7, ReadD(back7), 1e-12, "irfft(rfft(x7), 7)");
            // float32 in, float32 back
            Tensor back32 = FFT.Irfft(FFT.Rfft(D(x).To(DType.Float32)));
            Assert.AreEqual(DType.Float32, back32.DType);
            Near(x, ReadD(back32), 1e-5, "float32 round trip");
        }

        [Test]
        public void HfftIsTheFftOfTheHermitianSignal()
        {
            // the first half h[0..3] of a Hermitian signal of 6 points: X[k] = h[k], X[6 - k] = conj(h[k])
            Complex[] h = Signal(4, 8);
            h[0] = new Complex(h[0].Real, 0);
            h[3] = new Complex(h[3].Real, 0);
            var full = new Complex[6];
            for (int k = 0; k < 4; k++) full[k] = h[k];
            for (int k = 1; k < 3; k++) full[6 - k] = Complex.Conjugate(h[k]);
            double[] expected = Dft(full).Select(v => v.Real).ToArray();
            Tensor y = FFT.Hfft(C(h));
            Assert.AreEqual(DType.Float64, y.DType);
            ShapeIs(y, 6);
            Near(expected, ReadD(y), 1e-12, "hfft");
            Near(expected.Select(v => v / 6).ToArray(), ReadD(FFT.Hfft(C(h), 6, norm: FftNorm.Forward)), 1e-12, "hfft forward");
        }

        // ------------------------------------------------------------------- n dimensions

        [Test]
        public void Fft2MatchesRowAndColumnDfts()
        {
            long[] shape = { 3, 4 };
            Complex[] x = Signal(12, 12);
            Complex[] expected = DftAlong(DftAlong(x, shape, 1), shape, 0);
            Tensor y = FFT.Fft2(C(x, shape));
            ShapeIs(y, 3, 4);
            Near(expected, ReadC(y), 1e-12, "fft2");
            Near(expected, ReadC(FFT.Fftn(C(x, shape))), 1e-12, "fftn over all dims");
            Near(x, ReadC(FFT.Ifft2(y)), 1e-12, "ifft2(fft2(x))");
            // s pads both dims: 4x5
            long[] padded = { 4, 5 };
            var xp = new Complex[20];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) xp[i * 5 + j] = x[i * 4 + j];
            Near(DftAlong(DftAlong(xp, padded, 1), padded, 0), ReadC(FFT.Fft2(C(x, shape), new long[] { 4, 5 })), 1e-12,
                 "fft2 with s = {4, 5}");
        }

        [Test]
        public void FftnOverChosenDimsAndIfftnRoundTrip()
        {
            long[] shape = { 2, 3, 4 };
            Complex[] x = Signal(24, 13);
            Complex[] expected = DftAlong(DftAlong(x, shape, 0), shape, 2);
            Tensor y = FFT.Fftn(C(x, shape), dim: new long[] { 0, 2 });
            ShapeIs(y, 2, 3, 4);
            Near(expected, ReadC(y), 1e-12, "fftn over dims {0, 2}");
            Near(expected, ReadC(FFT.Fftn(C(x, shape), dim: new long[] { -1, 0 })), 1e-12, "dims {-1, 0}");
            Near(x, ReadC(FFT.Ifftn(y, dim: new long[] { 0, 2 })), 1e-12, "ifftn(fftn(x))");
            Near(x, ReadC(FFT.Ifftn(FFT.Fftn(C(x, shape)))), 1e-12, "over all dims");
            // s without dims: the last len(s) dims
            Tensor last2 = FFT.Fftn(C(x, shape), new long[] { 3, 4 });
            Near(DftAlong(DftAlong(x, shape, 2), shape, 1), ReadC(last2), 1e-12, "s = {3, 4}: the last two dims");
            Near(x, ReadC(FFT.Ifftn(FFT.Fftn(C(x, shape), norm: FftNorm.Ortho), norm: FftNorm.Ortho)), 1e-12, "ortho");
        }

        [Test]
        public void RfftnAndIrfftnRoundTrip()
        {
            long[] shape = { 4, 6 };
            double[] x = RealSignal(24, 14);
            Tensor y = FFT.Rfftn(Tensor.FromArray(x, shape));
            Assert.AreEqual(DType.Complex128, y.DType);
            ShapeIs(y, 4, 4);
            Complex[] full = DftAlong(DftAlong(ToComplex(x), shape, 1), shape, 0);
            var expected = new Complex[16];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) expected[i * 4 + j] = full[i * 6 + j];
            Near(expected, ReadC(y), 1e-12, "rfftn: the first 6 / 2 + 1 columns of fftn");
            Tensor back = FFT.Irfftn(y);
            Assert.AreEqual(DType.Float64, back.DType);
            ShapeIs(back, 4, 6);
            Near(x, ReadD(back), 1e-12, "irfftn(rfftn(x))");
            // an odd last size needs s
            long[] odd = { 3, 5 };
            double[] x2 = RealSignal(15, 15);
            Tensor y2 = FFT.Rfftn(Tensor.FromArray(x2, odd));
            ShapeIs(y2, 3, 3);
            Near(x2, ReadD(FFT.Irfftn(y2, odd)), 1e-12, "irfftn(rfftn(x), s = {3, 5})");
        }

        // ------------------------------------------------------------------- dtypes

        [Test]
        public void RealAndIntegerInputsGiveComplex()
        {
            double[] x = RealSignal(8, 16);
            Tensor y = FFT.Fft(D(x).To(DType.Float32));
            Assert.AreEqual(DType.Complex64, y.DType, "float32 -> complex64");
            Near(Dft(ToComplex(x)), ReadC(y), 1e-5, "fft of float32");
            Assert.AreEqual(DType.Complex128, FFT.Fft(D(x)).DType, "float64 -> complex128");
            Assert.AreEqual(DType.Complex64, FFT.Rfft(D(x).To(DType.Float32)).DType, "rfft of float32");
            Tensor yi = FFT.Fft(L(1, 2, 3, 4));
            Assert.AreEqual(DType.Complex64, yi.DType, "int64 -> complex64");
            // 1 + 2 + 3 + 4 = 10; 1 - 2i... : X[1] = 1 + 2(-i) + 3(-1) + 4(i) = -2 + 2i
            Near(new[] { new Complex(10, 0), new Complex(-2, 2), new Complex(-2, 0), new Complex(-2, -2) }, ReadC(yi), 1e-6,
                 "fft of [1, 2, 3, 4]");
        }

        // ------------------------------------------------------------------- helpers

        [Test]
        public void Fftfreq()
        {
            Tensor f = FFT.Fftfreq(5);
            Assert.AreEqual(DType.Float32, f.DType);
            Assert.AreEqual(Device.Cpu, f.Device);
            AreEqual(new[] { 0f, 0.2f, 0.4f, -0.4f, -0.2f }, f);
            AreEqual(new[] { 0.0, 0.25, -0.5, -0.25 }, FFT.Fftfreq(4, 1.0, DType.Float64));
            // d = 0.5: [0, 1, 2, -2, -1] / (0.5 * 5)
            AreEqual(new[] { 0.0, 0.4, 0.8, -0.8, -0.4 }, FFT.Fftfreq(5, d: 0.5, dtype: DType.Float64, device: Device.Cpu));
            CtorchException e = Fails(StatusCode.Argument, () => FFT.Fftfreq(0));
            StringAssert.Contains("n must be positive", e.NativeMessage);
        }

        [Test]
        public void FftshiftAndIfftshift()
        {
            Tensor s = FFT.Fftshift(L(0, 1, 2, 3, 4));
            AreEqual(new long[] { 3, 4, 0, 1, 2 }, s);
            AreEqual(new long[] { 0, 1, 2, 3, 4 }, FFT.Ifftshift(s));
            AreEqual(new long[] { 2, 3, 0, 1 }, FFT.Fftshift(L(0, 1, 2, 3)));
            // the frequencies in increasing order
            AreEqual(new[] { -0.4f, -0.2f, 0f, 0.2f, 0.4f }, FFT.Fftshift(FFT.Fftfreq(5)));
            // 2-D: all dims, or one
            Tensor m = Tensor.Arange(6L).Reshape(2, 3);
            AreEqual(new long[] { 5, 3, 4, 2, 0, 1 }, FFT.Fftshift(m));
            AreEqual(new long[] { 2, 0, 1, 5, 3, 4 }, FFT.Fftshift(m, 1));
            AreEqual(new long[] { 3, 4, 5, 0, 1, 2 }, FFT.Fftshift(m, new long[] { 0 }));
            AreEqual(new long[] { 0, 1, 2, 3, 4, 5 }, FFT.Ifftshift(FFT.Fftshift(m, -1), -1));
            AreEqual(new long[] { 0, 1, 2, 3, 4, 5 }, FFT.Ifftshift(FFT.Fftshift(m)));
        }

        // ------------------------------------------------------------------- errors

        [Test]
        public void Errors()
        {
            Tensor c = C(Signal(8, 1));
            CtorchException e = Fails(StatusCode.DType, () => FFT.Fft(F(1, 2, 3, 4).To(DType.Float16)));
            StringAssert.Contains("Unsupported dtype Half", e.NativeMessage);
            e = Fails(StatusCode.DType, () => FFT.Rfft(c));
            StringAssert.Contains("rfftn expects a real-valued input tensor, but got ComplexDouble", e.NativeMessage);
            e = Fails(StatusCode.DType, () => FFT.Rfftn(c));
            StringAssert.Contains("rfftn expects a real-valued input tensor", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => FFT.Fft(c, 0));
            StringAssert.Contains("Invalid number of data points (0) specified", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => FFT.Fft(c, norm: (FftNorm)7));
            StringAssert.Contains("Invalid normalization mode", e.NativeMessage);
            Fails(StatusCode.Index, () => FFT.Fft(c, dim: 3));
            e = Fails(StatusCode.Argument, () => FFT.Fftn(c, dim: new long[] { 0, 0 }));
            StringAssert.Contains("FFT dims must be unique", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => FFT.Fftn(c, new long[] { 2, 2 }));
            StringAssert.Contains("but input tensor only has 1 dimensions", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => FFT.Fftn(c, new long[] { 8 }, new long[] { 0, 0 }));
            StringAssert.Contains("dim and shape arguments must have the same length", e.NativeMessage);
            Fails(StatusCode.Index, () => FFT.Fftshift(c, 2));

            var n = Assert.Throws<ArgumentNullException>(() => FFT.Fft(null));
            Assert.AreEqual("input", n.ParamName);
            Assert.Throws<ArgumentNullException>(() => FFT.Fftn(null));
            Assert.Throws<ArgumentNullException>(() => FFT.Fftshift(null));
            Tensor gone = C(Signal(4, 2));
            gone.Dispose();
            Assert.Throws<ObjectDisposedException>(() => FFT.Fft(gone));
            Assert.Throws<ObjectDisposedException>(() => FFT.Fft2(gone));
            Assert.Throws<ObjectDisposedException>(() => FFT.Ifftshift(gone));
        }

        // ------------------------------------------------------------------- CUDA

        [Test]
        public void PlanCacheWithoutGpu()
        {
            RequireNoGpu();
            Unavailable(() => { long v = Cuda.CufftPlanCache.Size; });
            Unavailable(() => { long v = Cuda.CufftPlanCache.MaxSize; });
            Unavailable(() => Cuda.CufftPlanCache.MaxSize = 8);
            Unavailable(() => Cuda.CufftPlanCache.Clear());
            Unavailable(() => { long v = Cuda.CufftPlanCache[0].MaxBytes; });
            Unavailable(() => Cuda.CufftPlanCache[0].MaxBytes = 0);
            Unavailable(() => { long v = Cuda.CufftPlanCache[0].Bytes; });
            Unavailable(() => { long v = Cuda.CufftPlanCache[0].Hits; });
            Unavailable(() => { long v = Cuda.CufftPlanCache.Misses; });
            Assert.AreEqual(-1, Cuda.CufftPlanCache.Device);
            Assert.AreEqual(1, Cuda.CufftPlanCache[1].Device);
            Assert.AreEqual(-1, Cuda.CufftPlanCache[Device.Cuda].Device);
            Assert.AreEqual("CufftPlanCache(cuda:1)", Cuda.CufftPlanCache[1].ToString());
            Assert.Throws<ArgumentException>(() => { var p = Cuda.CufftPlanCache[Device.Cpu]; });
        }

        [Test]
        public void CudaFftEqualsTheCpuResult()
        {
            RequireGpu();
            foreach (var c in new[] { (Type: DType.Complex64, Tol: 1e-4), (Type: DType.Complex128, Tol: 1e-10) })
                foreach (int n in new[] { 8, 7 })
                {
                    Tensor x = C(Signal(n, n)).To(c.Type);
                    Tensor cpu = FFT.Fft(x), gpu = FFT.Fft(x.To(Device.Cuda));
                    Assert.IsTrue(gpu.IsCuda);
                    Assert.AreEqual(c.Type, gpu.DType);
                    Near(ReadC(cpu), ReadC(gpu), c.Tol, c.Type + " fft of " + n);
                    Near(Dft(Signal(n, n)), ReadC(gpu), c.Tol, c.Type + " fft of " + n + " against the DFT");
                    Near(ReadC(x), ReadC(FFT.Ifft(gpu)), c.Tol, c.Type + " ifft on CUDA");
                }
            double[] r = RealSignal(10, 3);
            Tensor rg = FFT.Rfft(D(r).To(Device.Cuda));
            Near(ReadC(FFT.Rfft(D(r))), ReadC(rg), 1e-10, "rfft on CUDA");
            Near(r, ReadD(FFT.Irfft(rg)), 1e-10, "irfft on CUDA");
            long[] shape = { 3, 4 };
            Tensor m = C(Signal(12, 4), shape);
            Near(ReadC(FFT.Fft2(m)), ReadC(FFT.Fft2(m.To(Device.Cuda))), 1e-10, "fft2 on CUDA");
        }

        [Test]
        public void PlanCacheCountsPlans()
        {
            RequireGpu();
            CufftPlanCache cache = Cuda.CufftPlanCache;
            long maxSize = cache.MaxSize;
            Assert.AreEqual(4096L, maxSize, "the default max_size");
            try
            {
                cache.Clear();
                Assert.AreEqual(0L, cache.Size, "after Clear");
                long hits0 = cache.Hits, misses0 = cache.Misses;
                for (int n = 16; n <= 48; n += 16)          // three different plans
                    for (int rep = 0; rep < 3; rep++)       // the repeats hit the cache
                        using (Tensor x = C(Signal(n, 1)).To(Device.Cuda))
                        using (Tensor y = FFT.Fft(x)) { }
                Assert.AreEqual(3L, cache.Size, "three sizes, three plans");
                Assert.AreEqual(6L, cache.Hits - hits0, "the repeats are hits");
                Assert.AreEqual(3L, cache.Misses - misses0, "the first of each size is a miss");
                Assert.AreEqual(3L, Cuda.CufftPlanCache[Cuda.CurrentDevice].Size, "the same cache by index");
                cache.MaxSize = 2;                          // the least recently used plan goes
                Assert.AreEqual(2L, cache.MaxSize);
                Assert.AreEqual(2L, cache.Size, "after MaxSize = 2");
                foreach (int n in new[] { 48, 16 })         // LRU order was 48 32 16: 16 went
                {
                    long h = cache.Hits, m = cache.Misses;
                    using (Tensor x = C(Signal(n, 1)).To(Device.Cuda))
                    using (Tensor y = FFT.Fft(x)) { }
                    Assert.AreEqual(n == 48 ? 1L : 0L, cache.Hits - h, "hits for n=" + n);
                    Assert.AreEqual(n == 48 ? 0L : 1L, cache.Misses - m, "misses for n=" + n);
                }
                CtorchException e = Fails(StatusCode.Argument, () => cache.MaxSize = -1);
                StringAssert.Contains("non-negative", e.NativeMessage);
                Assert.GreaterOrEqual(cache.Bytes, 0L);
                Assert.AreEqual(0L, cache.MaxBytes, "no byte budget by default");
                cache.MaxBytes = 1;
                Assert.AreEqual(1L, cache.MaxBytes);
                Assert.LessOrEqual(cache.Bytes, 1L);
                cache.MaxBytes = 0;
                Fails(StatusCode.Index, () => { long v = Cuda.CufftPlanCache[Cuda.DeviceCount].Size; });
            }
            finally
            {
                cache.MaxSize = maxSize;
                cache.MaxBytes = 0;
                cache.Clear();
            }
            Assert.AreEqual(4096L, cache.MaxSize, "restored");
            Assert.AreEqual(0L, cache.Size);
        }
    }
}
