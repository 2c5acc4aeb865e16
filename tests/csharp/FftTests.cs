// FFT (section 18 of capi/ctorch.h) as the binding adds them: each transform reaches its C
// function with n / s, dim and norm marshalled (nullable lengths, dim arrays, the FftNorm enum),
// results come back as System.Numerics.Complex, fftfreq's and fftshift's overloads, null and
// disposed inputs, the native messages, and the cuFFT plan cache object. The transforms' values,
// dtype rules and PyTorch's wording are the C suite's (tests/capi/fft_test.c); the expected values
// here are small sums worked out by hand. The GPU cases skip visibly without a GPU.
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
        private static Complex[] ReadC(Tensor t) => t.To(Device.Cpu, DType.Complex128).ToArray<Complex>();

        private static double[] ReadD(Tensor t) => t.To(Device.Cpu, DType.Float64).ToArray<double>();

        private static void Near(double[] expected, Complex[] got, string what, double[] imag = null)
        {
            Assert.AreEqual(expected.Length, got.Length, what + ": numel");
            for (int i = 0; i < expected.Length; i++)
            {
                Assert.AreEqual(expected[i], got[i].Real, 1e-9, what + ": real part of element " + i);
                Assert.AreEqual(imag == null ? 0 : imag[i], got[i].Imaginary, 1e-9, what + ": imaginary part of element " + i);
            }
        }

        private static void Near(double[] expected, double[] got, string what)
        {
            Assert.AreEqual(expected.Length, got.Length, what + ": numel");
            for (int i = 0; i < expected.Length; i++) Assert.AreEqual(expected[i], got[i], 1e-9, what + ": element " + i);
        }

        [Test]
        public void OneDimensionalTransformsAndTheirArguments()
        {
            // X[k] of [1, 2, 3, 4]: 10, 1 - 2i - 3 + 4i = -2 + 2i, 1 - 2 + 3 - 4 = -2, -2 - 2i
            double[] re = { 10, -2, -2, -2 }, im = { 0, 2, 0, -2 };
            Tensor x = Tensor.FromArray(new[] { new Complex(1, 0), new Complex(2, 0), new Complex(3, 0), new Complex(4, 0) });
            Tensor y = FFT.Fft(x);
            Assert.AreEqual(DType.Complex128, y.DType);
            Near(re, ReadC(y), "fft", im);
            Near(new[] { 1.0, 2, 3, 4 }, ReadC(FFT.Ifft(y)), "ifft");
            Near(new[] { 3.0, -1 }, ReadC(FFT.Fft(x, 2)), "n = 2 cuts");
            Near(re.Select(v => v / 4).ToArray(), ReadC(FFT.Fft(x, norm: FftNorm.Forward)), "forward norm",
                 im.Select(v => v / 4).ToArray());
            Near(re.Select(v => v / 2).ToArray(), ReadC(FFT.Fft(x, null, -1, FftNorm.Ortho)), "ortho norm",
                 im.Select(v => v / 2).ToArray());
            Near(new[] { 4.0, 6, -2, -2 }, ReadC(FFT.Fft(x.Reshape(2, 2), dim: 0)), "dim = 0 of [[1, 2], [3, 4]]");
            // the real transforms: float64 in, complex128 out, and back to n points
            Tensor r = FFT.Rfft(D(1, 2, 3, 4));
            Near(new[] { 10.0, -2, -2 }, ReadC(r), "rfft", new[] { 0.0, 2, 0 });
            Near(new[] { 1.0, 2, 3, 4 }, ReadD(FFT.Irfft(r, 4)), "irfft");
            // hfft of [1, 2, 3]: the FFT of the Hermitian signal [1, 2, 3, 2] = [8, -2, 0, -2]
            Near(new[] { 8.0, -2, 0, -2 }, ReadD(FFT.Hfft(D(1, 2, 3))), "hfft");
        }

        [Test]
        public void MultiDimensionalTransformsAndTheirArguments()
        {
            // [[1, 2], [3, 4]]: the 2-D DFT is [[10, -2], [-4, 0]]
            Tensor m = Tensor.FromArray(new double[,] { { 1, 2 }, { 3, 4 } });
            double[] m2 = { 10, -2, -4, 0 };
            Tensor f2 = FFT.Fft2(m);
            Near(m2, ReadC(f2), "fft2");
            Near(new[] { 1.0, 2, 3, 4 }, ReadC(FFT.Ifft2(f2)), "ifft2");
            Near(m2, ReadC(FFT.Fftn(m)), "fftn over all dims");
            Near(new[] { 3.0, -1, 7, -1 }, ReadC(FFT.Fftn(m, null, new long[] { 1 })), "fftn over dim 1");
            Near(new[] { 1.0, 2 }, ReadC(FFT.Fftn(m, new long[] { 1 }, new long[] { 0 })), "fftn with s = {1} over dim 0: the first row");
            Near(new[] { 1.0, 2, 3, 4 }, ReadC(FFT.Ifftn(FFT.Fftn(m))), "ifftn");
            Tensor rn = FFT.Rfftn(m);
            ShapeIs(rn, 2, 2);
            Near(m2, ReadC(rn), "rfftn");
            Near(new[] { 1.0, 2, 3, 4 }, ReadD(FFT.Irfftn(rn, new long[] { 2, 2 })), "irfftn");
        }

        [Test]
        public void FftfreqAndFftshift()
        {
            Tensor f = FFT.Fftfreq(5);
            Assert.AreEqual(Device.Cpu, f.Device);
            AreEqual(new[] { 0f, 0.2f, 0.4f, -0.4f, -0.2f }, f);
            // d = 0.5: [0, 1, 2, -2, -1] / (0.5 * 5)
            AreEqual(new[] { 0.0, 0.4, 0.8, -0.8, -0.4 }, FFT.Fftfreq(5, d: 0.5, dtype: DType.Float64, device: Device.Cpu));
            Tensor s = FFT.Fftshift(L(0, 1, 2, 3, 4));
            AreEqual(new long[] { 3, 4, 0, 1, 2 }, s);
            AreEqual(new long[] { 0, 1, 2, 3, 4 }, FFT.Ifftshift(s));
            Tensor m = Tensor.Arange(6L).Reshape(2, 3);
            AreEqual(new long[] { 2, 0, 1, 5, 3, 4 }, FFT.Fftshift(m, 1));
            AreEqual(new long[] { 3, 4, 5, 0, 1, 2 }, FFT.Fftshift(m, new long[] { 0 }));
            AreEqual(new long[] { 0, 1, 2, 3, 4, 5 }, FFT.Ifftshift(FFT.Fftshift(m, -1), -1));
            AreEqual(new long[] { 0, 1, 2, 3, 4, 5 }, FFT.Ifftshift(FFT.Fftshift(m), new long[] { 0, 1 }));
        }

        [Test]
        public void Errors()
        {
            Tensor c = FFT.Fft(D(1, 2, 3, 4));
            StringAssert.Contains("rfftn expects a real-valued input tensor",
                                  Fails(StatusCode.DType, () => FFT.Rfft(c)).NativeMessage);
            StringAssert.Contains("Invalid normalization mode",
                                  Fails(StatusCode.Argument, () => FFT.Fft(c, norm: (FftNorm)7)).NativeMessage);
            StringAssert.Contains("dim and shape arguments must have the same length",
                                  Fails(StatusCode.Argument, () => FFT.Fftn(c, new long[] { 4 }, new long[] { 0, 0 })).NativeMessage);
            StringAssert.Contains("n must be positive", Fails(StatusCode.Argument, () => FFT.Fftfreq(0)).NativeMessage);
            Fails(StatusCode.Index, () => FFT.Fft(c, dim: 3));
            Fails(StatusCode.Index, () => FFT.Fftshift(c, 2));
            Assert.AreEqual("input", Assert.Throws<ArgumentNullException>(() => FFT.Fft(null)).ParamName);
            Assert.Throws<ArgumentNullException>(() => FFT.Fftn(null));
            Assert.Throws<ArgumentNullException>(() => FFT.Fftshift(null));
            c.Dispose();
            Assert.Throws<ObjectDisposedException>(() => FFT.Fft(c));
            Assert.Throws<ObjectDisposedException>(() => FFT.Fft2(c));
            Assert.Throws<ObjectDisposedException>(() => FFT.Ifftshift(c));
        }

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
        public void CudaFftAndThePlanCache()
        {
            RequireGpu();
            Tensor x = FFT.Fft(D(1, 2, 3, 4));
            Near(new[] { 10.0, -2, -2, -2 }, ReadC(FFT.Fft(D(1, 2, 3, 4).To(Device.Cuda))), "fft on CUDA",
                 new[] { 0.0, 2, 0, -2 });
            CufftPlanCache cache = Cuda.CufftPlanCache;
            long maxSize = cache.MaxSize;
            Assert.AreEqual(4096L, maxSize, "the default max_size");
            try
            {
                cache.Clear();
                Assert.AreEqual(0L, cache.Size, "after Clear");
                long hits0 = cache.Hits, misses0 = cache.Misses;
                for (int rep = 0; rep < 2; rep++)
                    using (Tensor g = x.To(Device.Cuda))
                    using (Tensor y = FFT.Fft(g, 16)) { }
                Assert.AreEqual(1L, cache.Size);
                Assert.AreEqual(1L, cache.Hits - hits0, "the repeat is a hit");
                Assert.AreEqual(1L, cache.Misses - misses0, "the first is a miss");
                Assert.AreEqual(1L, Cuda.CufftPlanCache[Cuda.CurrentDevice].Size, "the same cache by index");
                cache.MaxSize = 2;
                Assert.AreEqual(2L, cache.MaxSize);
                StringAssert.Contains("non-negative", Fails(StatusCode.Argument, () => cache.MaxSize = -1).NativeMessage);
                Assert.GreaterOrEqual(cache.Bytes, 0L);
                cache.MaxBytes = 1;
                Assert.AreEqual(1L, cache.MaxBytes);
                Fails(StatusCode.Index, () => { long v = Cuda.CufftPlanCache[Cuda.DeviceCount].Size; });
            }
            finally
            {
                cache.MaxSize = maxSize;
                cache.MaxBytes = 0;
                cache.Clear();
            }
        }
    }
}
