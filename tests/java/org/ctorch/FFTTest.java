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
 * FFT (section 18 of ctorch.h) through {@link FFT}: every transform against discrete Fourier
 * transforms computed here in double precision by the definition (no FFT), the norms, n/s cut
 * and zero-pad, round trips, dtypes, fftfreq and the shifts, PyTorch's errors; the cuFFT plan
 * cache ({@link Cuda#cufftPlanCache(int)}). The transforms run on the test device (CUDA when
 * available); the GPU cases compare CUDA with the CPU.
 */
public class FFTTest extends CtorchTestCase {

  // ---- helpers ---------------------------------------------------------------------------

  /** Deterministic test values in [-1, 1). */
  private static double[] vals(int n, int salt) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = (((long) i * 7919 + (long) salt * 104729) % 2001 - 1000) / 1000.0;
    }
    return v;
  }

  /** A complex tensor of the given dtype on dev from interleaved (re, im) pairs. */
  private static Tensor complex(DType dtype, Device dev, double[] reIm, long... shape) {
    ByteBuffer buf = ByteBuffer.allocate(reIm.length * 8).order(ByteOrder.nativeOrder());
    for (double d : reIm) {
      buf.putDouble(d);
    }
    try (Tensor t = Tensor.fromBytes(buf.array(), DType.COMPLEX128, shape);
        Tensor c = t.to(dtype)) {
      return c.to(dev);
    }
  }

  private static Tensor complex(double[] reIm, long... shape) {
    return complex(DType.COMPLEX128, device(), reIm, shape);
  }

  /** A real tensor of the given dtype on the test device. */
  private static Tensor real(DType dtype, double[] values, long... shape) {
    try (Tensor t = Tensor.fromArray(values, shape); Tensor c = t.to(dtype)) {
      return c.to(device());
    }
  }

  /** The interleaved (re, im) pairs of a complex tensor, as float64. */
  private static double[] reIm(Tensor t) {
    try (Tensor c = t.to(DType.COMPLEX128)) {
      byte[] raw = c.toByteArray();
      double[] d = new double[raw.length / 8];
      ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder()).asDoubleBuffer().get(d);
      return d;
    }
  }

  /** Interleaves real values with zero imaginary parts. */
  private static double[] asComplex(double[] re) {
    double[] c = new double[2 * re.length];
    for (int i = 0; i < re.length; i++) {
      c[2 * i] = re[i];
    }
    return c;
  }

  /** A row-major complex array with its shape. */
  private record Arr(double[] reIm, int[] shape) {
    int size(int d) {
      return shape[d];
    }
  }

  /**
   * The DFT by its definition along one dim of a row-major complex array, the input cut or
   * zero-padded to n points, times scale: X[k] = scale * sum_j x[j] exp(-+2 pi i j k / n).
   */
  private static Arr dft(Arr a, int dim, int n, boolean inverse, double scale) {
    int[] shape = a.shape().clone();
    int m = shape[dim];
    int outer = 1;
    int inner = 1;
    for (int d = 0; d < dim; d++) {
      outer *= shape[d];
    }
    for (int d = dim + 1; d < shape.length; d++) {
      inner *= shape[d];
    }
    shape[dim] = n;
    double[] out = new double[2 * outer * n * inner];
    double sign = inverse ? 1 : -1;
    for (int o = 0; o < outer; o++) {
      for (int i = 0; i < inner; i++) {
        for (int k = 0; k < n; k++) {
          double re = 0;
          double im = 0;
          for (int j = 0; j < Math.min(m, n); j++) {
            int src = 2 * ((o * m + j) * inner + i);
            double ang = sign * 2 * Math.PI * ((long) j * k % n) / n;
            double c = Math.cos(ang);
            double s = Math.sin(ang);
            re += a.reIm()[src] * c - a.reIm()[src + 1] * s;
            im += a.reIm()[src] * s + a.reIm()[src + 1] * c;
          }
          int dst = 2 * ((o * n + k) * inner + i);
          out[dst] = scale * re;
          out[dst + 1] = scale * im;
        }
      }
    }
    return new Arr(out, shape);
  }

  /** The 1-D DFT of n points of (re, im) pairs, unscaled. */
  private static double[] dft1(double[] reIm, int n, boolean inverse, double scale) {
    return dft(new Arr(reIm, new int[] {reIm.length / 2}), 0, n, inverse, scale).reIm();
  }

  /** The real parts of interleaved pairs. */
  private static double[] realParts(double[] reIm) {
    double[] r = new double[reIm.length / 2];
    for (int i = 0; i < r.length; i++) {
      r[i] = reIm[2 * i];
    }
    return r;
  }

  private static double[] prefix(double[] a, int n) {
    return java.util.Arrays.copyOf(a, n);
  }

  private static void assertComplex(double[] expected, Tensor t, double tol) {
    assertArrayEquals("values of " + t, expected, reIm(t), tol);
  }

  // ---- one-dim transforms ----------------------------------------------------------------

  @Test
  public void fftOfLength8And7AgainstDft() {
    for (int n : new int[] {8, 7}) {
      double[] x = vals(2 * n, n);
      try (Tensor t = complex(x, n); Tensor y = FFT.fft(t)) {
        assertSame(DType.COMPLEX128, y.dtype());
        assertEquals(device().type(), y.device().type());
        assertShape(y, n);
        assertComplex(dft1(x, n, false, 1), y, 1e-12);
      }
      try (Tensor t = complex(DType.COMPLEX64, device(), x, n); Tensor y = FFT.fft(t)) {
        assertSame(DType.COMPLEX64, y.dtype());
        assertComplex(dft1(x, n, false, 1), y, 1e-5);
      }
    }
  }

  @Test
  public void ifftAgainstDftAndRoundTrip() {
    double[] x = vals(16, 3);
    try (Tensor t = complex(x, 8);
        Tensor y = FFT.ifft(t);
        Tensor f = FFT.fft(t);
        Tensor back = FFT.ifft(f)) {
      assertComplex(dft1(x, 8, true, 1.0 / 8), y, 1e-12);
      assertComplex(x, back, 1e-12);
    }
  }

  @Test
  public void normsScale() {
    int n = 7;
    double[] x = vals(2 * n, 5);
    double s = Math.sqrt(n);
    try (Tensor t = complex(x, n);
        Tensor b = FFT.fft(t, FFT.Norm.BACKWARD);
        Tensor d = FFT.fft(t, (FFT.Norm) null);
        Tensor f = FFT.fft(t, FFT.Norm.FORWARD);
        Tensor o = FFT.fft(t, -1, 0, FFT.Norm.ORTHO);
        Tensor ib = FFT.ifft(t);
        Tensor iff = FFT.ifft(t, FFT.Norm.FORWARD);
        Tensor io = FFT.ifft(t, FFT.Norm.ORTHO);
        Tensor oo = FFT.ifft(o, FFT.Norm.ORTHO)) {
      assertComplex(dft1(x, n, false, 1), b, 1e-12);
      assertComplex(dft1(x, n, false, 1), d, 1e-12);
      assertComplex(dft1(x, n, false, 1.0 / n), f, 1e-12);
      assertComplex(dft1(x, n, false, 1 / s), o, 1e-12);
      assertComplex(dft1(x, n, true, 1.0 / n), ib, 1e-12);
      assertComplex(dft1(x, n, true, 1), iff, 1e-12);
      assertComplex(dft1(x, n, true, 1 / s), io, 1e-12);
      assertComplex(x, oo, 1e-12);  // ortho is unitary both ways
    }
    assertEquals(0, FFT.Norm.BACKWARD.code());
    assertEquals(1, FFT.Norm.FORWARD.code());
    assertEquals(2, FFT.Norm.ORTHO.code());
    assertEquals("ortho", FFT.Norm.ORTHO.toString());
  }

  @Test
  public void nCutsAndZeroPads() {
    double[] x = vals(16, 7);  // 8 complex points
    double[] padded = java.util.Arrays.copyOf(x, 24);
    try (Tensor t = complex(x, 8);
        Tensor cut = FFT.fft(t, 5);
        Tensor pad = FFT.fft(t, 12, 0);
        Tensor icut = FFT.ifft(t, 3, -1)) {
      assertShape(cut, 5);
      assertComplex(dft1(prefix(x, 10), 5, false, 1), cut, 1e-12);
      assertShape(pad, 12);
      assertComplex(dft1(padded, 12, false, 1), pad, 1e-12);
      assertComplex(dft1(prefix(x, 6), 3, true, 1.0 / 3), icut, 1e-12);
    }
  }

  @Test
  public void fftAlongDimOf2D() {
    double[] x = vals(2 * 3 * 4, 11);
    Arr a = new Arr(x, new int[] {3, 4});
    try (Tensor t = complex(x, 3, 4);
        Tensor rows = FFT.fft(t);
        Tensor cols = FFT.fft(t, -1, 0)) {
      assertShape(cols, 3, 4);
      assertComplex(dft(a, 1, 4, false, 1).reIm(), rows, 1e-12);
      assertComplex(dft(a, 0, 3, false, 1).reIm(), cols, 1e-12);
    }
  }

  @Test
  public void rfftOfLength10GivesSixValues() {
    double[] x = vals(10, 13);
    double[] full = dft1(asComplex(x), 10, false, 1);
    try (Tensor t = real(DType.FLOAT64, x, 10); Tensor y = FFT.rfft(t)) {
      assertSame(DType.COMPLEX128, y.dtype());
      assertShape(y, 6);
      assertComplex(prefix(full, 12), y, 1e-12);
    }
    try (Tensor t = real(DType.FLOAT64, x, 10); Tensor y = FFT.rfft(t, 7, 0, FFT.Norm.ORTHO)) {
      assertShape(y, 4);
      assertComplex(prefix(dft1(asComplex(prefix(x, 7)), 7, false, 1 / Math.sqrt(7)), 8), y,
          1e-12);
    }
  }

  @Test
  public void irfftRoundTripsEvenAndOdd() {
    double[] x10 = vals(10, 17);
    double[] x7 = vals(7, 19);
    try (Tensor t10 = real(DType.FLOAT64, x10, 10);
        Tensor y10 = FFT.rfft(t10);
        Tensor back10 = FFT.irfft(y10);
        Tensor t7 = real(DType.FLOAT64, x7, 7);
        Tensor y7 = FFT.rfft(t7);
        Tensor back7 = FFT.irfft(y7, 7);
        Tensor even7 = FFT.irfft(y7)) {
      assertSame(DType.FLOAT64, back10.dtype());
      assertShape(back10, 10);
      assertArrayEquals(x10, back10.toDoubleArray(), 1e-12);
      assertShape(y7, 4);
      assertShape(back7, 7);
      assertArrayEquals(x7, back7.toDoubleArray(), 1e-12);
      assertShape(even7, 6);  // default n = 2 (m - 1)
    }
    try (Tensor t = real(DType.FLOAT32, x7, 7);
        Tensor y = FFT.rfft(t, FFT.Norm.FORWARD);
        Tensor back = FFT.irfft(y, 7, -1, FFT.Norm.FORWARD)) {
      assertSame(DType.FLOAT32, back.dtype());
      assertArrayEquals(x7, back.toDoubleArray(), 1e-6);
    }
  }

  @Test
  public void hfftOfHermitianHalf() {
    // x: the first half (5 values) of a Hermitian signal of 8 points; x[0] and x[4] real.
    double[] x = vals(10, 23);
    x[1] = 0;
    x[9] = 0;
    int n = 8;
    double[] h = new double[2 * n];
    for (int j = 0; j <= n / 2; j++) {
      h[2 * j] = x[2 * j];
      h[2 * j + 1] = x[2 * j + 1];
      if (j > 0 && j < n / 2) {
        h[2 * (n - j)] = x[2 * j];
        h[2 * (n - j) + 1] = -x[2 * j + 1];
      }
    }
    try (Tensor t = complex(x, 5); Tensor y = FFT.hfft(t)) {
      assertSame(DType.FLOAT64, y.dtype());
      assertShape(y, 8);
      assertArrayEquals(realParts(dft1(h, n, false, 1)), y.toDoubleArray(), 1e-12);
    }
  }

  // ---- n-dim transforms ------------------------------------------------------------------

  @Test
  public void fft2AgainstRowAndColumnDfts() {
    double[] x = vals(2 * 3 * 4, 29);
    Arr a = new Arr(x, new int[] {3, 4});
    double[] expected = dft(dft(a, 1, 4, false, 1), 0, 3, false, 1).reIm();
    try (Tensor t = complex(x, 3, 4);
        Tensor y = FFT.fft2(t);
        Tensor n = FFT.fftn(t);
        Tensor back = FFT.ifft2(y)) {
      assertShape(y, 3, 4);
      assertComplex(expected, y, 1e-12);
      assertComplex(expected, n, 1e-12);
      assertComplex(x, back, 1e-12);
    }
    // real float32 input: complex64, as rows then columns; ortho scaling over 12 points
    double[] r = vals(12, 31);
    Arr ra = new Arr(asComplex(r), new int[] {3, 4});
    double[] rexp = dft(dft(ra, 1, 4, false, 1), 0, 3, false, 1 / Math.sqrt(12)).reIm();
    try (Tensor t = real(DType.FLOAT32, r, 3, 4); Tensor y = FFT.fft2(t, FFT.Norm.ORTHO)) {
      assertSame(DType.COMPLEX64, y.dtype());
      assertComplex(rexp, y, 1e-5);
    }
  }

  @Test
  public void fftnWithDimsAndSizesAndIfftnRoundTrip() {
    double[] x = vals(2 * 2 * 3 * 4, 37);
    Arr a = new Arr(x, new int[] {2, 3, 4});
    try (Tensor t = complex(x, 2, 3, 4);
        Tensor y = FFT.fftn(t, null, new int[] {0, 2});
        Tensor back = FFT.ifftn(y, null, new int[] {0, 2});
        Tensor sized = FFT.fftn(t, new long[] {5, 3}, new int[] {0, -1});
        Tensor last = FFT.fftn(t, new long[] {-1, 6}, null);
        Tensor all = FFT.ifftn(t, FFT.Norm.FORWARD)) {
      assertShape(y, 2, 3, 4);
      assertComplex(dft(dft(a, 2, 4, false, 1), 0, 2, false, 1).reIm(), y, 1e-12);
      assertComplex(x, back, 1e-12);
      // s: dim 0 zero-padded from 2 to 5, the last dim cut from 4 to 3
      assertShape(sized, 5, 3, 3);
      assertComplex(dft(dft(a, 2, 3, false, 1), 0, 5, false, 1).reIm(), sized, 1e-12);
      // s without dims: the last len(s) dims; -1 keeps a size
      assertShape(last, 2, 3, 6);
      assertComplex(dft(dft(a, 2, 6, false, 1), 1, 3, false, 1).reIm(), last, 1e-12);
      // ifftn over all dims, forward norm: unscaled
      Arr e = dft(dft(dft(a, 0, 2, true, 1), 1, 3, true, 1), 2, 4, true, 1);
      assertComplex(e.reIm(), all, 1e-12);
    }
  }

  @Test
  public void rfftnIrfftnRoundTrip() {
    double[] x = vals(4 * 6, 41);
    double[] odd = vals(3 * 5, 43);
    Arr a = new Arr(asComplex(x), new int[] {4, 6});
    Arr full = dft(dft(a, 1, 6, false, 1), 0, 4, false, 1);
    double[] half = new double[2 * 4 * 4];
    for (int i = 0; i < 4; i++) {
      System.arraycopy(full.reIm(), 2 * i * 6, half, 2 * i * 4, 8);
    }
    try (Tensor t = real(DType.FLOAT64, x, 4, 6);
        Tensor y = FFT.rfftn(t);
        Tensor back = FFT.irfftn(y);
        Tensor backS = FFT.irfftn(y, new long[] {4, 6}, null);
        Tensor to = real(DType.FLOAT64, odd, 3, 5);
        Tensor yo = FFT.rfftn(to, null, new int[] {0, 1});
        Tensor backO = FFT.irfftn(yo, new long[] {3, 5}, new int[] {0, 1})) {
      assertSame(DType.COMPLEX128, y.dtype());
      assertShape(y, 4, 4);
      assertComplex(half, y, 1e-12);
      assertShape(back, 4, 6);
      assertArrayEquals(x, back.toDoubleArray(), 1e-12);
      assertArrayEquals(x, backS.toDoubleArray(), 1e-12);
      assertShape(yo, 3, 3);
      assertShape(backO, 3, 5);
      assertArrayEquals(odd, backO.toDoubleArray(), 1e-12);
    }
  }

  // ---- dtypes ----------------------------------------------------------------------------

  @Test
  public void dtypesOfResults() {
    double[] x = vals(8, 47);
    try (Tensor f32 = real(DType.FLOAT32, x, 8);
        Tensor f64 = real(DType.FLOAT64, x, 8);
        Tensor i32 = real(DType.INT32, new double[] {1, 2, 3, 4}, 4);
        Tensor a = FFT.fft(f32);
        Tensor b = FFT.fft(f64);
        Tensor c = FFT.fft(i32);
        Tensor d = FFT.rfft(f32);
        Tensor e = FFT.irfft(d)) {
      assertSame(DType.COMPLEX64, a.dtype());
      assertSame(DType.COMPLEX128, b.dtype());
      assertSame(DType.COMPLEX64, c.dtype());
      assertComplex(new double[] {10, 0, -2, 2, -2, 0, -2, -2}, c, 1e-6);
      assertSame(DType.COMPLEX64, d.dtype());
      assertSame(DType.FLOAT32, e.dtype());
      assertComplex(dft1(asComplex(x), 8, false, 1), a, 1e-5);
    }
  }

  // ---- fftfreq and shifts ----------------------------------------------------------------

  @Test
  public void fftfreqValues() {
    try (Tensor f = FFT.fftfreq(5);
        Tensor g = FFT.fftfreq(4, 0.5, DType.FLOAT64, Device.CPU);
        Tensor h = FFT.fftfreq(6, 2.0)) {
      assertSame(DType.FLOAT32, f.dtype());
      assertClose(f, 1e-7f, 0, 0.2f, 0.4f, -0.4f, -0.2f);
      assertSame(DType.FLOAT64, g.dtype());
      assertArrayEquals(new double[] {0, 0.5, -1, -0.5}, g.toDoubleArray(), 0);
      assertClose(h, 1e-7f, 0, 1 / 12f, 2 / 12f, -3 / 12f, -2 / 12f, -1 / 12f);
    }
  }

  @Test
  public void fftshiftAndIfftshift() {
    try (Tensor t = Tensor.fromArray(new long[] {0, 1, 2, 3, 4});
        Tensor d = t.to(device());
        Tensor s = FFT.fftshift(d);
        Tensor back = FFT.ifftshift(s);
        Tensor twice = FFT.fftshift(s)) {
      assertLongs(s, 3, 4, 0, 1, 2);
      assertLongs(back, 0, 1, 2, 3, 4);
      assertLongs(twice, 1, 2, 3, 4, 0);  // odd size: fftshift twice is not the identity
    }
    try (Tensor t = Tensor.fromArray(new long[] {0, 1, 2, 3, 4, 5}, 2, 3);
        Tensor d = t.to(device());
        Tensor all = FFT.fftshift(d);
        Tensor cols = FFT.fftshift(d, 1);
        Tensor rows = FFT.ifftshift(d, 0)) {
      assertLongs(all, 5, 3, 4, 2, 0, 1);
      assertLongs(cols, 2, 0, 1, 5, 3, 4);
      assertLongs(rows, 3, 4, 5, 0, 1, 2);
    }
  }

  // ---- errors ----------------------------------------------------------------------------

  @Test
  public void errorsCarryPyTorchsMessages() {
    try (Tensor h = real(DType.FLOAT16, new double[] {1, 2, 3, 4}, 4);
        Tensor c = complex(vals(8, 53), 4);
        Tensor r = real(DType.FLOAT64, vals(4, 59), 4)) {
      CtorchException e = assertStatus(CtorchException.DTYPE, () -> FFT.fft(h));
      assertTrue(e.detail(), e.detail().contains("Unsupported dtype Half"));
      e = assertStatus(CtorchException.DTYPE, () -> FFT.rfft(c));
      assertTrue(e.detail(), e.detail().contains("rfftn expects a real-valued input tensor"));
      e = assertStatus(CtorchException.ARGUMENT, () -> FFT.fft(c, 0));
      assertTrue(e.detail(), e.detail().contains("Invalid number of data points (0) specified"));
      assertStatus(CtorchException.INDEX, () -> FFT.fft(c, -1, 3));
      e = assertStatus(CtorchException.ARGUMENT,
          () -> FFT.fftn(c, null, new int[] {0, 0}));
      assertTrue(e.detail(), e.detail().contains("FFT dims must be unique"));
      // s longer than the input's dims: the error path that passes s through an int64 tensor
      e = assertStatus(CtorchException.ARGUMENT, () -> FFT.fftn(c, new long[] {2, 2}, null));
      assertTrue(e.detail(), e.detail().contains("but input tensor only has 1 dimensions"));
      assertStatus(CtorchException.ARGUMENT, () -> FFT.irfftn(r, new long[] {2, 2, 2}, null));
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
  public void scopesTakeResults() {
    double[] x = vals(8, 61);
    long before = Torch.liveTensorCount();
    try (TensorScope scope = TensorScope.open()) {
      Tensor t = complex(x, 2, 2);
      FFT.fftn(t, new long[] {3, 3}, null);
      FFT.fft(t);
      FFT.fftshift(t);
      assertEquals(4, scope.size());  // the s holder of fftn is not a Tensor
    }
    assertEquals(before, Torch.liveTensorCount());
  }

  // ---- without a GPU ---------------------------------------------------------------------

  @Test
  public void planCacheWithoutGpuIsCode301() {
    assumeNoCuda();
    Cuda.CufftPlanCache pc = Cuda.cufftPlanCache();
    assertEquals(-1, pc.device());
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::size);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::maxSize);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, pc::clear);
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.cufftPlanCache(0).setMaxSize(2));
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.cufftPlanCache(0).maxBytes());
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.cufftPlanCache(0).bytes());
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.cufftPlanCache(0).hits());
    assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.cufftPlanCache(0).misses());
    assertStatus(CtorchException.CUDA_UNAVAILABLE,
        () -> Cuda.cufftPlanCache(0).setMaxBytes(1 << 20));
    assertStatus(CtorchException.CUDA_UNAVAILABLE,
        () -> FFT.fftfreq(4, 1.0, null, Device.cuda(0)));
  }

  // ---- GPU -------------------------------------------------------------------------------

  @Test
  public void cudaMatchesCpu() {
    assumeCuda();
    Device gpu = Device.cuda(0);
    for (int n : new int[] {8, 7}) {
      double[] x = vals(2 * n, n + 1);
      for (DType dt : new DType[] {DType.COMPLEX64, DType.COMPLEX128}) {
        double tol = dt == DType.COMPLEX64 ? 1e-4 : 1e-10;
        try (Tensor c = complex(dt, Device.CPU, x, n);
            Tensor g = complex(dt, gpu, x, n);
            Tensor yc = FFT.fft(c);
            Tensor yg = FFT.fft(g);
            Tensor ic = FFT.ifft(c, FFT.Norm.ORTHO);
            Tensor ig = FFT.ifft(g, FFT.Norm.ORTHO)) {
          assertTrue(yg.isCuda());
          assertSame(dt, yg.dtype());
          assertArrayEquals(reIm(yc), reIm(yg), tol);
          assertArrayEquals(reIm(ic), reIm(ig), tol);
        }
      }
    }
    double[] r = vals(10, 67);
    try (Tensor t = Tensor.fromArray(r);
        Tensor g = t.to(gpu);
        Tensor yg = FFT.rfft(g);
        Tensor back = FFT.irfft(yg, 10);
        Tensor f = FFT.fftfreq(5, 1.0, null, gpu)) {
      assertShape(yg, 6);
      assertComplex(prefix(dft1(asComplex(r), 10, false, 1), 12), yg, 1e-10);
      assertArrayEquals(r, back.toDoubleArray(), 1e-10);
      assertTrue(f.isCuda());
      assertClose(f, 1e-7f, 0, 0.2f, 0.4f, -0.4f, -0.2f);
    }
  }

  @Test
  public void planCacheOnCuda() {
    assumeCuda();
    Cuda.CufftPlanCache pc = Cuda.cufftPlanCache(0);
    long oldMax = pc.maxSize();
    try {
      assertEquals(4096, oldMax);
      assertEquals(0, pc.maxBytes());
      pc.clear();
      assertEquals(0, pc.size());
      assertEquals(0, pc.bytes());
      long hits0 = pc.hits(), misses0 = pc.misses();
      for (int round = 0; round < 2; round++) {
        for (int n : new int[] {16, 32, 64}) {
          try (Tensor t = Tensor.zeros(new long[] {n}, DType.COMPLEX64, Device.cuda(0));
              Tensor y = FFT.fft(t)) {
            assertShape(y, n);
          }
        }
        assertEquals("three sizes, round " + round, 3, pc.size());  // repeats keep 3
      }
      assertEquals("second round: hits", 3, pc.hits() - hits0);
      assertEquals("first round: misses", 3, pc.misses() - misses0);
      assertTrue(pc.bytes() >= 0);
      assertEquals(3, Cuda.cufftPlanCache().size());  // device 0 is current
      pc.setMaxSize(2);  // LRU order 64 32 16: 16 goes
      assertEquals(2, pc.maxSize());
      assertEquals(2, pc.size());
      for (int n : new int[] {64, 16}) {
        long h = pc.hits(), m = pc.misses();
        try (Tensor t = Tensor.zeros(new long[] {n}, DType.COMPLEX64, Device.cuda(0));
            Tensor y = FFT.fft(t)) {
          assertShape(y, n);
        }
        assertEquals("n=" + n + " (64 cached, 16 evicted): hits", n == 64 ? 1 : 0, pc.hits() - h);
        assertEquals("n=" + n + ": misses", n == 64 ? 0 : 1, pc.misses() - m);
      }
      assertStatus(CtorchException.ARGUMENT, () -> pc.setMaxSize(-1));
      assertStatus(CtorchException.ARGUMENT, () -> pc.setMaxBytes(-1));
      assertStatus(CtorchException.INDEX, () -> Cuda.cufftPlanCache(Cuda.deviceCount()).size());
    } finally {
      pc.setMaxSize(4096);
    }
    assertEquals(4096, pc.maxSize());
    pc.clear();
    assertEquals(0, pc.size());
  }
}
