package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.Test;

/**
 * What the binding adds to FFT (section 18 of ctorch.h): every overload of {@link FFT}
 * reaches its C function with n, dim, s, dims and norm in their places (null as torch's None),
 * on inputs small enough to transform by hand; errors, closed and null inputs; scopes; the
 * cuFFT plan cache ({@link Cuda#cufftPlanCache(int)}). The transforms' values, sizes and
 * dtypes are the C suite's (tests/capi/fft_test.c).
 */
public class FFTTest extends CtorchTestCase {

  private static final FFT.Norm B = FFT.Norm.BACKWARD;
  private static final FFT.Norm F = FFT.Norm.FORWARD;
  private static final FFT.Norm O = FFT.Norm.ORTHO;

  /** The interleaved (re, im) pairs of a complex tensor, as float64; closes t. */
  private static double[] reIm(Tensor t) {
    try (t; Tensor c = t.to(DType.COMPLEX128)) {
      byte[] raw = c.toByteArray();
      double[] d = new double[raw.length / 8];
      ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder()).asDoubleBuffer().get(d);
      return d;
    }
  }

  private static void assertComplex(Tensor t, double... expected) {
    assertArrayEquals(expected, reIm(t), 1e-12);
  }

  private static void assertReal(Tensor t, double... expected) {
    try (t) {
      assertArrayEquals(expected, t.toDoubleArray(), 1e-12);
    }
  }

  /** One-dim transforms of [1, 2, 3, 4]: fft is [10, -2+2i, -2, -2-2i]. */
  @Test
  public void oneDimOverloads() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor x = moved(Tensor.fromArray(new double[] {1, 2, 3, 4}), device());
      Tensor m = moved(Tensor.fromArray(new double[] {1, 2, 3, 4}, 2, 2), device());
      double[] fx = {10, 0, -2, 2, -2, 0, -2, -2};
      Tensor fxT = FFT.fft(x);
      assertSame(DType.COMPLEX128, fxT.dtype());
      assertEquals(x.device(), fxT.device());
      assertArrayEquals(fx, reIm(fxT.newReference()), 1e-12);
      assertComplex(FFT.fft(x, F), 2.5, 0, -0.5, 0.5, -0.5, 0, -0.5, -0.5);
      assertComplex(FFT.fft(x, 2), 3, 0, -1, 0);
      assertComplex(FFT.fft(m, 2, 0), 4, 0, 6, 0, -2, 0, -2, 0);
      assertComplex(FFT.fft(x, 4, -1, O), 5, 0, -1, 1, -1, 0, -1, -1);
      assertComplex(FFT.ifft(fxT), 1, 0, 2, 0, 3, 0, 4, 0);
      assertComplex(FFT.ifft(fxT, F), 4, 0, 8, 0, 12, 0, 16, 0);
      assertComplex(FFT.ifft(fxT, 4), 1, 0, 2, 0, 3, 0, 4, 0);
      assertComplex(FFT.ifft(fxT, 4, 0), 1, 0, 2, 0, 3, 0, 4, 0);
      assertComplex(FFT.ifft(fxT, 4, -1, null), 1, 0, 2, 0, 3, 0, 4, 0);
      Tensor rx = FFT.rfft(x);
      assertArrayEquals(new double[] {10, 0, -2, 2, -2, 0}, reIm(rx.newReference()), 1e-12);
      assertComplex(FFT.rfft(x, O), 5, 0, -1, 1, -1, 0);
      assertComplex(FFT.rfft(x, 2), 3, 0, -1, 0);
      assertComplex(FFT.rfft(m, 2, 0), 4, 0, 6, 0, -2, 0, -2, 0);
      assertComplex(FFT.rfft(x, 4, -1, B), 10, 0, -2, 2, -2, 0);
      assertReal(FFT.irfft(rx), 1, 2, 3, 4);
      assertReal(FFT.irfft(rx, F), 4, 8, 12, 16);
      assertReal(FFT.irfft(rx, 4), 1, 2, 3, 4);
      assertReal(FFT.irfft(rx, 4, 0), 1, 2, 3, 4);
      assertReal(FFT.irfft(rx, 4, -1, null), 1, 2, 3, 4);
      // hfft of the half [1, 2, 3]: the DFT of the Hermitian [1, 2, 3, 2] is [8, -2, 0, -2].
      Tensor h = moved(Tensor.fromArray(new double[] {1, 2, 3}), device());
      assertReal(FFT.hfft(h), 8, -2, 0, -2);
      assertReal(FFT.hfft(h, F), 2, -0.5, 0, -0.5);
      assertReal(FFT.hfft(h, 2), 3, -1);
      assertReal(FFT.hfft(h, 4, 0), 8, -2, 0, -2);
      assertReal(FFT.hfft(h, 4, -1, B), 8, -2, 0, -2);
    }
  }

  /** n-dim transforms of [[1, 2], [3, 4]]: fft2 is [[10, -2], [-4, 0]]. */
  @Test
  public void nDimOverloads() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor m = moved(Tensor.fromArray(new double[] {1, 2, 3, 4}, 2, 2), device());
      long[] s = {2, 2};
      int[] dims = {0, 1};
      double[] f2 = {10, 0, -2, 0, -4, 0, 0, 0};
      double[] mc = {1, 0, 2, 0, 3, 0, 4, 0};
      Tensor f = FFT.fft2(m);
      assertArrayEquals(f2, reIm(f.newReference()), 1e-12);
      assertComplex(FFT.fft2(m, O), 5, 0, -1, 0, -2, 0, 0, 0);
      assertComplex(FFT.fft2(m, s, dims), f2);
      assertComplex(FFT.fft2(m, s, dims, F), 2.5, 0, -0.5, 0, -1, 0, 0, 0);
      assertComplex(FFT.fftn(m), f2);
      assertComplex(FFT.fftn(m, O), 5, 0, -1, 0, -2, 0, 0, 0);
      assertComplex(FFT.fftn(m, new long[] {1, -1}, null), 3, 0, -1, 0);
      assertComplex(FFT.fftn(m, null, new int[] {0}), 4, 0, 6, 0, -2, 0, -2, 0);
      assertComplex(FFT.fftn(m, s, dims, F), 2.5, 0, -0.5, 0, -1, 0, 0, 0);
      assertComplex(FFT.ifft2(f), mc);
      assertComplex(FFT.ifft2(f, F), 4, 0, 8, 0, 12, 0, 16, 0);
      assertComplex(FFT.ifft2(f, s, dims), mc);
      assertComplex(FFT.ifft2(f, s, dims, B), mc);
      assertComplex(FFT.ifftn(f), mc);
      assertComplex(FFT.ifftn(f, F), 4, 0, 8, 0, 12, 0, 16, 0);
      assertComplex(FFT.ifftn(f, s, null), mc);
      assertComplex(FFT.ifftn(f, s, dims, null), mc);
      Tensor r = FFT.rfftn(m);
      assertArrayEquals(f2, reIm(r.newReference()), 1e-12);
      assertComplex(FFT.rfftn(m, O), 5, 0, -1, 0, -2, 0, 0, 0);
      assertComplex(FFT.rfftn(m, null, new int[] {1}), 3, 0, -1, 0, 7, 0, -1, 0);
      assertComplex(FFT.rfftn(m, s, dims, B), f2);
      assertReal(FFT.irfftn(r), 1, 2, 3, 4);
      assertReal(FFT.irfftn(r, F), 4, 8, 12, 16);
      assertReal(FFT.irfftn(r, s, null), 1, 2, 3, 4);
      assertReal(FFT.irfftn(r, s, dims, null), 1, 2, 3, 4);
    }
  }

  @Test
  public void fftfreqAndShifts() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor f = FFT.fftfreq(5);
      assertSame(DType.FLOAT32, f.dtype());
      assertClose(f, 1e-7f, 0, 0.2f, 0.4f, -0.4f, -0.2f);
      assertClose(FFT.fftfreq(6, 2.0), 1e-7f, 0, 1 / 12f, 2 / 12f, -3 / 12f, -2 / 12f, -1 / 12f);
      Tensor g = FFT.fftfreq(4, 0.5, DType.FLOAT64, Device.CPU);
      assertArrayEquals(new double[] {0, 0.5, -1, -0.5}, g.toDoubleArray(), 0);
      Tensor t = moved(Tensor.fromArray(new long[] {0, 1, 2, 3, 4, 5}, 2, 3), device());
      assertLongs(FFT.fftshift(t), 5, 3, 4, 2, 0, 1);
      assertLongs(FFT.fftshift(t, 1), 2, 0, 1, 5, 3, 4);
      assertLongs(FFT.ifftshift(t, 1), 1, 2, 0, 4, 5, 3);
      assertLongs(FFT.ifftshift(t), 4, 5, 3, 1, 2, 0);
      assertEquals(2, FFT.Norm.ORTHO.code());
      assertEquals("ortho", FFT.Norm.ORTHO.toString());
    }
  }

  @Test
  public void errorsClosedAndNullInputs() {
    try (Tensor h = Tensor.ones(new long[] {4}, DType.FLOAT16);
        Tensor c = Tensor.ones(new long[] {4}, DType.COMPLEX64)) {
      CtorchException e = assertStatus(CtorchException.DTYPE, () -> FFT.fft(h));
      assertTrue(e.detail(), e.detail().contains("Unsupported dtype Half"));
      e = assertStatus(CtorchException.ARGUMENT, () -> FFT.fft(c, 0));
      assertTrue(e.detail(), e.detail().contains("Invalid number of data points (0) specified"));
      assertStatus(CtorchException.INDEX, () -> FFT.fft(c, -1, 3));
      // s longer than the input's dims: the error path that passes s through
      e = assertStatus(CtorchException.ARGUMENT, () -> FFT.fftn(c, new long[] {2, 2}, null));
      assertTrue(e.detail(), e.detail().contains("but input tensor only has 1 dimensions"));
      assertStatus(CtorchException.ARGUMENT, () -> FFT.fftfreq(-1));
    }
    Tensor closed = Tensor.zeros(4);
    closed.close();
    assertStatus(CtorchException.INVALID_HANDLE, () -> FFT.fft(closed));
    assertStatus(CtorchException.INVALID_HANDLE, () -> FFT.fftn(closed, new long[] {2}, null));
    assertStatus(CtorchException.INVALID_HANDLE, () -> FFT.fftshift(closed));
    assertThrows(NullPointerException.class, () -> FFT.fft(null));
    assertThrows(NullPointerException.class, () -> FFT.fft2(null, new long[] {2, 2}, null));
    assertThrows(NullPointerException.class, () -> FFT.ifftshift(null));
    assertThrows(NullPointerException.class, () -> FFT.fftfreq(4, 1.0, null, null));
  }

  @Test
  public void planCacheWithoutGpuIsCode301() {
    assumeNoCuda();
    Cuda.CufftPlanCache pc = Cuda.cufftPlanCache();
    assertEquals(-1, pc.device());
    assertEquals(0, Cuda.cufftPlanCache(0).device());
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::size);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::maxSize);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::clear);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> pc.setMaxSize(2));
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::maxBytes);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::bytes);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::hits);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::misses);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> pc.setMaxBytes(1 << 20));
    assertStatus(CtorchException.CUDA_UNAVAILABLE,
        () -> FFT.fftfreq(4, 1.0, null, Device.cuda(0)));
  }

  @Test
  public void planCacheOnCuda() {
    assumeCuda();
    Cuda.CufftPlanCache pc = Cuda.cufftPlanCache(0);
    try {
      pc.clear();
      long hits0 = pc.hits();
      long misses0 = pc.misses();
      for (int round = 0; round < 2; round++) {
        try (Tensor t = Tensor.zeros(new long[] {16}, DType.COMPLEX64, Device.cuda(0));
            Tensor y = FFT.fft(t)) {
          assertShape(y, 16);
        }
      }
      assertEquals(1, pc.size());
      assertEquals(1, pc.hits() - hits0);
      assertEquals(1, pc.misses() - misses0);
      assertTrue(pc.bytes() >= 0);
      pc.setMaxSize(2);
      assertEquals(2, pc.maxSize());
      assertStatus(CtorchException.ARGUMENT, () -> pc.setMaxSize(-1));
      assertStatus(CtorchException.INDEX, () -> Cuda.cufftPlanCache(Cuda.deviceCount()).size());
    } finally {
      pc.setMaxSize(4096);
    }
  }
}
