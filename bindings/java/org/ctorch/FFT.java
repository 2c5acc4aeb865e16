package org.ctorch;

import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@code torch.fft}: discrete Fourier transforms (section 18 of {@code ctorch.h},
 * docs/fft.md). FFTW 3 computes them on the CPU and cuFFT on CUDA devices; {@code libctorch.so}
 * loads each with {@code dlopen} the first time a transform needs it, so without them only the
 * transforms fail (code 500, CT_ERR_NOT_SUPPORTED, naming the missing library). The cuFFT plan
 * cache is {@link Cuda#cufftPlanCache(int)}.
 *
 * <p>Each method returns a new tensor you own, on the input's device. Real float32 inputs (and
 * integer or bool inputs, promoted to float32) give complex64 results, float64 gives
 * complex128; float16 and bfloat16 inputs are code 104 (CT_ERR_DTYPE, "Unsupported dtype
 * Half"). The optional arguments of torch.fft are overloads here:
 * <ul>
 *   <li>{@code n} (one-dim transforms): the number of points, -1 ({@code None}) for the
 *       input's size; fewer points cut the input, more pad it with zeros. 0 or less than -1 is
 *       code 100 ("Invalid number of data points (0) specified").
 *   <li>{@code dim}: the dim to transform (negative counts from the end), -1 by default.
 *   <li>{@code s} and {@code dims} (n-dim transforms): {@code null} or empty for torch's
 *       {@code None}. {@code s} entries of -1 keep that dim's size; {@code dims} defaults to the
 *       last {@code s.length} dims, or to all dims ({@link #fft2}/{@link #ifft2}: the last two).
 *   <li>{@code norm}: {@link Norm#BACKWARD} by default; {@code null} is the default too
 *       ({@code norm=None}).
 * </ul>
 * Errors carry PyTorch's messages ({@link CtorchException#detail()}); a closed input is code
 * 102 and a {@code null} input {@link NullPointerException}. A failed transform leaves nothing
 * behind.
 */
public final class FFT {
  static {
    Native.ensureLoaded();
  }

  private FFT() {}

  /** {@code norm=}: which direction of a transform pair is scaled, and by how much. */
  public enum Norm {
    /** {@code "backward"} (torch's default): forward transforms unscaled, inverse by 1/n. */
    BACKWARD(0, "backward"),
    /** {@code "forward"}: forward transforms scaled by 1/n, inverse unscaled. */
    FORWARD(1, "forward"),
    /** {@code "ortho"}: both directions scaled by 1/sqrt(n) (the transform is unitary). */
    ORTHO(2, "ortho");

    private final int code;
    private final String torchName;

    Norm(int code, String torchName) {
      this.code = code;
      this.torchName = torchName;
    }

    /** The C ABI's number (CT_FFT_NORM_BACKWARD = 0, FORWARD = 1, ORTHO = 2). */
    public int code() {
      return code;
    }

    /** PyTorch's spelling: {@code "backward"}, {@code "forward"} or {@code "ortho"}. */
    @Override
    public String toString() {
      return torchName;
    }
  }

  /* ============================================================================================
   * Plumbing
   * ========================================================================================== */

  @FunctionalInterface
  private interface OneDimCall {
    int call(long t, long n, long dim, int norm, long[] out);
  }

  @FunctionalInterface
  private interface NDimCall {
    int call(long t, long[] s, int ns, long[] dims, int ndims, int norm, long[] out);
  }

  private static int normCode(Norm norm) {
    return norm == null ? Norm.BACKWARD.code : norm.code;
  }

  private static Tensor oneDim(Tensor t, long n, int dim, Norm norm, OneDimCall c) {
    Objects.requireNonNull(t, "t");
    return t.make(out -> c.call(t.handle(), n, dim, normCode(norm), out));
  }

  private static Tensor nDim(Tensor t, long[] s, int[] dims, Norm norm, NDimCall c) {
    Objects.requireNonNull(t, "t");
    long[] d = Tensor.toLongs(dims);
    int nd = d == null ? 0 : d.length;
    int ns = s == null ? 0 : s.length;
    return t.make(out -> c.call(t.handle(), ns == 0 ? null : s, ns, d, nd, normCode(norm), out));
  }

  /* ============================================================================================
   * One-dim transforms: fft, ifft, rfft, irfft, hfft
   * ========================================================================================== */

  /** {@code torch.fft.fft(t)}: the FFT over the last dim, with {@link Norm#BACKWARD}. */
  public static Tensor fft(Tensor t) {
    return fft(t, -1, -1, null);
  }

  /** {@code torch.fft.fft(t, norm=norm)}: over the last dim. */
  public static Tensor fft(Tensor t, Norm norm) {
    return fft(t, -1, -1, norm);
  }

  /** {@code torch.fft.fft(t, n)}: over the last dim, cut or zero-padded to n points. */
  public static Tensor fft(Tensor t, long n) {
    return fft(t, n, -1, null);
  }

  /** {@code torch.fft.fft(t, n, dim)} (n = -1: the input's size). */
  public static Tensor fft(Tensor t, long n, int dim) {
    return fft(t, n, dim, null);
  }

  /**
   * {@code torch.fft.fft(t, n, dim, norm)}: the discrete Fourier transform over {@code dim},
   * {@code X[k] = sum_j x[j] exp(-2 pi i j k / n)} (times the norm's forward factor), of a real
   * or complex input; the result is complex with n points along dim.
   */
  public static Tensor fft(Tensor t, long n, int dim, Norm norm) {
    return oneDim(t, n, dim, norm, ctorch::ct_fft_fft);
  }

  /** {@code torch.fft.ifft(t)}: the inverse FFT over the last dim, scaled by 1/n. */
  public static Tensor ifft(Tensor t) {
    return ifft(t, -1, -1, null);
  }

  /** {@code torch.fft.ifft(t, norm=norm)}: over the last dim. */
  public static Tensor ifft(Tensor t, Norm norm) {
    return ifft(t, -1, -1, norm);
  }

  /** {@code torch.fft.ifft(t, n)}: over the last dim, cut or zero-padded to n points. */
  public static Tensor ifft(Tensor t, long n) {
    return ifft(t, n, -1, null);
  }

  /** {@code torch.fft.ifft(t, n, dim)} (n = -1: the input's size). */
  public static Tensor ifft(Tensor t, long n, int dim) {
    return ifft(t, n, dim, null);
  }

  /**
   * {@code torch.fft.ifft(t, n, dim, norm)}: the inverse transform,
   * {@code x[j] = sum_k X[k] exp(2 pi i j k / n)} times the norm's inverse factor (1/n for
   * {@link Norm#BACKWARD}), so {@code ifft(fft(x))} is x.
   */
  public static Tensor ifft(Tensor t, long n, int dim, Norm norm) {
    return oneDim(t, n, dim, norm, ctorch::ct_fft_ifft);
  }

  /** {@code torch.fft.rfft(t)}: the FFT of a real input over the last dim, n/2 + 1 values. */
  public static Tensor rfft(Tensor t) {
    return rfft(t, -1, -1, null);
  }

  /** {@code torch.fft.rfft(t, norm=norm)}: over the last dim. */
  public static Tensor rfft(Tensor t, Norm norm) {
    return rfft(t, -1, -1, norm);
  }

  /** {@code torch.fft.rfft(t, n)}: over the last dim, cut or zero-padded to n points. */
  public static Tensor rfft(Tensor t, long n) {
    return rfft(t, n, -1, null);
  }

  /** {@code torch.fft.rfft(t, n, dim)} (n = -1: the input's size). */
  public static Tensor rfft(Tensor t, long n, int dim) {
    return rfft(t, n, dim, null);
  }

  /**
   * {@code torch.fft.rfft(t, n, dim, norm)}: the first {@code n / 2 + 1} values of the FFT of a
   * real input (the rest follow by Hermitian symmetry). A complex input is code 104 ("rfftn
   * expects a real-valued input tensor").
   */
  public static Tensor rfft(Tensor t, long n, int dim, Norm norm) {
    return oneDim(t, n, dim, norm, ctorch::ct_fft_rfft);
  }

  /** {@code torch.fft.irfft(t)}: the inverse of rfft over the last dim, 2 (m - 1) values. */
  public static Tensor irfft(Tensor t) {
    return irfft(t, -1, -1, null);
  }

  /** {@code torch.fft.irfft(t, norm=norm)}: over the last dim. */
  public static Tensor irfft(Tensor t, Norm norm) {
    return irfft(t, -1, -1, norm);
  }

  /** {@code torch.fft.irfft(t, n)}: over the last dim, n real outputs. */
  public static Tensor irfft(Tensor t, long n) {
    return irfft(t, n, -1, null);
  }

  /** {@code torch.fft.irfft(t, n, dim)} (n = -1: 2 (m - 1) for m input values). */
  public static Tensor irfft(Tensor t, long n, int dim) {
    return irfft(t, n, dim, null);
  }

  /**
   * {@code torch.fft.irfft(t, n, dim, norm)}: the inverse of {@link #rfft}: the m complex values
   * along dim are the first half of a Hermitian signal, the result is its n real points
   * (default {@code 2 * (m - 1)}, so pass n to get an odd length back: {@code irfft(rfft(x),
   * 7)} is x for 7 points). Real float32 (float64) results from complex64 (complex128) inputs.
   */
  public static Tensor irfft(Tensor t, long n, int dim, Norm norm) {
    return oneDim(t, n, dim, norm, ctorch::ct_fft_irfft);
  }

  /** {@code torch.fft.hfft(t)}: over the last dim, 2 (m - 1) real outputs. */
  public static Tensor hfft(Tensor t) {
    return hfft(t, -1, -1, null);
  }

  /** {@code torch.fft.hfft(t, norm=norm)}: over the last dim. */
  public static Tensor hfft(Tensor t, Norm norm) {
    return hfft(t, -1, -1, norm);
  }

  /** {@code torch.fft.hfft(t, n)}: over the last dim, n real outputs. */
  public static Tensor hfft(Tensor t, long n) {
    return hfft(t, n, -1, null);
  }

  /** {@code torch.fft.hfft(t, n, dim)} (n = -1: 2 (m - 1) for m input values). */
  public static Tensor hfft(Tensor t, long n, int dim) {
    return hfft(t, n, dim, null);
  }

  /**
   * {@code torch.fft.hfft(t, n, dim, norm)}: the FFT of a Hermitian signal given by its first
   * half (m values along dim): n real outputs (default {@code 2 * (m - 1)}), scaled as a
   * forward transform.
   */
  public static Tensor hfft(Tensor t, long n, int dim, Norm norm) {
    return oneDim(t, n, dim, norm, ctorch::ct_fft_hfft);
  }

  /* ============================================================================================
   * n-dim transforms: fftn, ifftn, rfftn, irfftn, fft2, ifft2
   * ========================================================================================== */

  /** {@code torch.fft.fftn(t)}: the FFT over all dims. */
  public static Tensor fftn(Tensor t) {
    return fftn(t, null, null, null);
  }

  /** {@code torch.fft.fftn(t, norm=norm)}: over all dims. */
  public static Tensor fftn(Tensor t, Norm norm) {
    return fftn(t, null, null, norm);
  }

  /** {@code torch.fft.fftn(t, s, dim)} ({@code null}: {@code None}). */
  public static Tensor fftn(Tensor t, long[] s, int[] dims) {
    return fftn(t, s, dims, null);
  }

  /**
   * {@code torch.fft.fftn(t, s, dim, norm)}: the FFT over {@code dims} (default: the last
   * {@code s.length} dims, or all), each cut or zero-padded to its {@code s} entry (-1 or
   * {@code s == null}: the input's size). Repeated dims are code 100 ("FFT dims must be
   * unique"); more sizes than the input has dims is code 100 too.
   */
  public static Tensor fftn(Tensor t, long[] s, int[] dims, Norm norm) {
    return nDim(t, s, dims, norm, ctorch::ct_fft_fftn);
  }

  /** {@code torch.fft.ifftn(t)}: the inverse FFT over all dims. */
  public static Tensor ifftn(Tensor t) {
    return ifftn(t, null, null, null);
  }

  /** {@code torch.fft.ifftn(t, norm=norm)}: over all dims. */
  public static Tensor ifftn(Tensor t, Norm norm) {
    return ifftn(t, null, null, norm);
  }

  /** {@code torch.fft.ifftn(t, s, dim)} ({@code null}: {@code None}). */
  public static Tensor ifftn(Tensor t, long[] s, int[] dims) {
    return ifftn(t, s, dims, null);
  }

  /**
   * {@code torch.fft.ifftn(t, s, dim, norm)}: the inverse of {@link #fftn(Tensor, long[], int[],
   * Norm)}, with the same rules for s and dims.
   */
  public static Tensor ifftn(Tensor t, long[] s, int[] dims, Norm norm) {
    return nDim(t, s, dims, norm, ctorch::ct_fft_ifftn);
  }

  /** {@code torch.fft.rfftn(t)}: the FFT of a real input over all dims. */
  public static Tensor rfftn(Tensor t) {
    return rfftn(t, null, null, null);
  }

  /** {@code torch.fft.rfftn(t, norm=norm)}: over all dims. */
  public static Tensor rfftn(Tensor t, Norm norm) {
    return rfftn(t, null, null, norm);
  }

  /** {@code torch.fft.rfftn(t, s, dim)} ({@code null}: {@code None}). */
  public static Tensor rfftn(Tensor t, long[] s, int[] dims) {
    return rfftn(t, s, dims, null);
  }

  /**
   * {@code torch.fft.rfftn(t, s, dim, norm)}: the n-dim FFT of a real input; the last
   * transformed dim keeps {@code n / 2 + 1} values, the others all of theirs. A complex input
   * is code 104.
   */
  public static Tensor rfftn(Tensor t, long[] s, int[] dims, Norm norm) {
    return nDim(t, s, dims, norm, ctorch::ct_fft_rfftn);
  }

  /** {@code torch.fft.irfftn(t)}: the inverse of rfftn over all dims. */
  public static Tensor irfftn(Tensor t) {
    return irfftn(t, null, null, null);
  }

  /** {@code torch.fft.irfftn(t, norm=norm)}: over all dims. */
  public static Tensor irfftn(Tensor t, Norm norm) {
    return irfftn(t, null, null, norm);
  }

  /** {@code torch.fft.irfftn(t, s, dim)} ({@code null}: {@code None}). */
  public static Tensor irfftn(Tensor t, long[] s, int[] dims) {
    return irfftn(t, s, dims, null);
  }

  /**
   * {@code torch.fft.irfftn(t, s, dim, norm)}: the inverse of {@link #rfftn(Tensor, long[],
   * int[], Norm)}, a real result; the last transformed dim has {@code s}'s last entry points
   * (default {@code 2 * (m - 1)}): pass s to get odd sizes back.
   */
  public static Tensor irfftn(Tensor t, long[] s, int[] dims, Norm norm) {
    return nDim(t, s, dims, norm, ctorch::ct_fft_irfftn);
  }

  /** {@code torch.fft.fft2(t)}: the FFT over the last two dims. */
  public static Tensor fft2(Tensor t) {
    return fft2(t, null, null, null);
  }

  /** {@code torch.fft.fft2(t, norm=norm)}: over the last two dims. */
  public static Tensor fft2(Tensor t, Norm norm) {
    return fft2(t, null, null, norm);
  }

  /** {@code torch.fft.fft2(t, s, dim)} ({@code null}: {@code None}). */
  public static Tensor fft2(Tensor t, long[] s, int[] dims) {
    return fft2(t, s, dims, null);
  }

  /**
   * {@code torch.fft.fft2(t, s, dim, norm)}: {@link #fftn(Tensor, long[], int[], Norm)} with dims
   * defaulting to the last two ({@code (-2, -1)}).
   */
  public static Tensor fft2(Tensor t, long[] s, int[] dims, Norm norm) {
    return nDim(t, s, dims, norm, ctorch::ct_fft_fft2);
  }

  /** {@code torch.fft.ifft2(t)}: the inverse FFT over the last two dims. */
  public static Tensor ifft2(Tensor t) {
    return ifft2(t, null, null, null);
  }

  /** {@code torch.fft.ifft2(t, norm=norm)}: over the last two dims. */
  public static Tensor ifft2(Tensor t, Norm norm) {
    return ifft2(t, null, null, norm);
  }

  /** {@code torch.fft.ifft2(t, s, dim)} ({@code null}: {@code None}). */
  public static Tensor ifft2(Tensor t, long[] s, int[] dims) {
    return ifft2(t, s, dims, null);
  }

  /**
   * {@code torch.fft.ifft2(t, s, dim, norm)}: {@link #ifftn(Tensor, long[], int[], Norm)} with
   * dims defaulting to the last two.
   */
  public static Tensor ifft2(Tensor t, long[] s, int[] dims, Norm norm) {
    return nDim(t, s, dims, norm, ctorch::ct_fft_ifft2);
  }

  /* ============================================================================================
   * Helpers: fftfreq, fftshift, ifftshift
   * ========================================================================================== */

  /**
   * {@code torch.fft.fftfreq(n)}: the sample frequencies of an n-point FFT with spacing 1,
   * {@code [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / n}, float32 on the CPU.
   */
  public static Tensor fftfreq(long n) {
    return fftfreq(n, 1.0, null, Device.CPU);
  }

  /** {@code torch.fft.fftfreq(n, d)}: the frequencies divided by the sample spacing d. */
  public static Tensor fftfreq(long n, double d) {
    return fftfreq(n, d, null, Device.CPU);
  }

  /**
   * {@code torch.fft.fftfreq(n, d, dtype=dtype, device=device)}: {@code [0, 1, ..., -1] / (d *
   * n)} in {@code dtype} ({@code null}: float32) on {@code device}. n &lt; 0 is code 100; a
   * CUDA device without a GPU is code 301.
   */
  public static Tensor fftfreq(long n, double d, DType dtype, Device device) {
    Objects.requireNonNull(device, "device");
    return Tensor.create(out -> ctorch.ct_fft_fftfreq(n, d, Tensor.dtypeCode(dtype),
        device.type().code(), device.index(), out));
  }

  /**
   * {@code torch.fft.fftshift(t, dim=dims)}: rolls each of {@code dims} (none given: all dims)
   * by half its size so that the zero frequency is in the middle: {@code [0, 1, 2, 3, 4]} gives
   * {@code [3, 4, 0, 1, 2]}. Any dtype.
   */
  public static Tensor fftshift(Tensor t, int... dims) {
    return shift(t, dims, ctorch::ct_fft_fftshift);
  }

  /**
   * {@code torch.fft.ifftshift(t, dim=dims)}: the inverse of {@link #fftshift} (they differ for
   * odd sizes): {@code [3, 4, 0, 1, 2]} gives {@code [0, 1, 2, 3, 4]}.
   */
  public static Tensor ifftshift(Tensor t, int... dims) {
    return shift(t, dims, ctorch::ct_fft_ifftshift);
  }

  @FunctionalInterface
  private interface ShiftCall {
    int call(long t, long[] dims, int ndims, long[] out);
  }

  private static Tensor shift(Tensor t, int[] dims, ShiftCall c) {
    Objects.requireNonNull(t, "t");
    long[] d = Tensor.toLongs(dims);
    return t.make(out -> c.call(t.handle(), d, d == null ? 0 : d.length, out));
  }
}
