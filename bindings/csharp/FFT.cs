// torch.fft (section 18 of capi/ctorch.h): fft, ifft, rfft, irfft, hfft, fftn, ifftn, rfftn,
// irfftn, fft2, ifft2, fftfreq, fftshift and ifftshift as the static class FFT. FFTW computes
// them on the CPU and cuFFT on CUDA devices, both loaded at the first transform.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// torch.fft: discrete Fourier transforms with PyTorch's argument rules. Real inputs of
    /// float32 (and integer or bool inputs, promoted to float32) give complex64 results, float64
    /// gives complex128; complex64 and complex128 inputs keep their dtype. Float16 and BFloat16
    /// are not supported (CtorchException, DType: "Unsupported dtype Half" for Float16). A size argument
    /// (<c>n</c>, an entry of <c>s</c>) of null or -1 keeps the input's size along that dim, a
    /// smaller one cuts the input, a larger one pads it with zeros. Every result is a new tensor
    /// on the input's device, yours to dispose (it joins the current <see cref="DisposeScope"/>).
    /// Null inputs throw ArgumentNullException, disposed ones ObjectDisposedException.
    /// </summary>
    public static class FFT
    {
        private delegate int OneDimCall(IntPtr t, long n, long dim, int norm, out IntPtr r);

        private delegate int NDimCall(IntPtr t, long[] s, int ns, long[] dims, int ndims, int norm, out IntPtr r);

        private delegate int ShiftCall(IntPtr t, long[] dims, int ndims, out IntPtr r);

        private static Tensor OneDim(OneDimCall call, Tensor input, long? n, long dim, FftNorm norm)
        {
            using (var a = new Lease(input, nameof(input)))
            {
                IntPtr r;
                Native.Check(call(a.Ptr, n ?? -1, dim, (int)norm, out r));
                return Tensor.Own(r);
            }
        }

        private static Tensor NDim(NDimCall call, Tensor input, long[] s, long[] dim, FftNorm norm)
        {
            using (var a = new Lease(input, nameof(input)))
            {
                IntPtr r;
                Native.Check(call(a.Ptr, s, s == null ? 0 : s.Length, dim, dim == null ? 0 : dim.Length, (int)norm,
                                  out r));
                return Tensor.Own(r);
            }
        }

        private static Tensor Shift(ShiftCall call, Tensor input, long[] dim)
        {
            using (var a = new Lease(input, nameof(input)))
            {
                IntPtr r;
                Native.Check(call(a.Ptr, dim, dim == null ? 0 : dim.Length, out r));
                return Tensor.Own(r);
            }
        }

        // ------------------------------------------------------------------ one dimension

        /// <summary>torch.fft.fft(input, n, dim, norm): the discrete Fourier transform along dim,
        /// <c>X[k] = sum_j x[j] exp(-2 pi i j k / n)</c> (scaled as <paramref name="norm"/> says),
        /// of n points (null: the input's size along dim; fewer cut the input, more pad it with
        /// zeros). A complex result (see the class). CtorchException: (Argument) "Invalid number of
        /// data points (0) specified" for n less than 1, "Invalid normalization mode" for a norm
        /// outside the enum; (Index) for a dim out of range; (DType) "Unsupported dtype Half" for
        /// Float16 (BFloat16 likewise); (NotSupported) when FFTW (CPU) or cuFFT (CUDA) cannot be
        /// loaded.</summary>
        public static Tensor Fft(Tensor input, long? n = null, long dim = -1, FftNorm norm = FftNorm.Backward) =>
            OneDim(ctorch.ct_fft_fft, input, n, dim, norm);

        /// <summary>torch.fft.ifft(input, n, dim, norm): the inverse of <see cref="Fft"/>,
        /// <c>x[j] = (1/n) sum_k X[k] exp(+2 pi i j k / n)</c> with the default norm. Arguments and
        /// errors as for <see cref="Fft"/>.</summary>
        public static Tensor Ifft(Tensor input, long? n = null, long dim = -1, FftNorm norm = FftNorm.Backward) =>
            OneDim(ctorch.ct_fft_ifft, input, n, dim, norm);

        /// <summary>torch.fft.rfft(input, n, dim, norm): the FFT of a real input, keeping only the
        /// n / 2 + 1 non-negative frequencies along dim (the others are their complex conjugates):
        /// length 10 gives 6 values, 7 gives 4. CtorchException (DType): "rfftn expects a
        /// real-valued input tensor, but got ComplexDouble" for a complex input; otherwise as for
        /// <see cref="Fft"/>.</summary>
        public static Tensor Rfft(Tensor input, long? n = null, long dim = -1, FftNorm norm = FftNorm.Backward) =>
            OneDim(ctorch.ct_fft_rfft, input, n, dim, norm);

        /// <summary>torch.fft.irfft(input, n, dim, norm): the inverse of <see cref="Rfft"/>, a real
        /// result of n points along dim from the n / 2 + 1 non-negative frequencies of a Hermitian
        /// signal. n defaults to 2 * (m - 1) for m input values, which is always even: pass the
        /// original length to get an odd one back (<c>Irfft(Rfft(x7), 7)</c>). Float64 or
        /// complex128 inputs give Float64, the others Float32. Errors as for
        /// <see cref="Fft"/>.</summary>
        public static Tensor Irfft(Tensor input, long? n = null, long dim = -1, FftNorm norm = FftNorm.Backward) =>
            OneDim(ctorch.ct_fft_irfft, input, n, dim, norm);

        /// <summary>torch.fft.hfft(input, n, dim, norm): the FFT of a Hermitian signal given by its
        /// first half (the m values for frequencies 0 .. m - 1), a real result of n points
        /// (default 2 * (m - 1)). With the default norm it is unscaled, as a forward
        /// transform. Errors as for <see cref="Fft"/>.</summary>
        public static Tensor Hfft(Tensor input, long? n = null, long dim = -1, FftNorm norm = FftNorm.Backward) =>
            OneDim(ctorch.ct_fft_hfft, input, n, dim, norm);

        // ------------------------------------------------------------------ n dimensions

        /// <summary>torch.fft.fftn(input, s, dim, norm): the FFT over several dims. s gives the
        /// sizes of the transform (null: the input's sizes; -1 entries keep one), dim the dims
        /// (null: the last s.Length dims when s is given, else all dims). CtorchException
        /// (Argument): "FFT dims must be unique", "... but input tensor only has 1 dimensions"
        /// when s is longer than the input's rank, "... when given, dim and shape arguments must have
        /// the same length"; other errors as for <see cref="Fft"/>.</summary>
        public static Tensor Fftn(Tensor input, long[] s = null, long[] dim = null, FftNorm norm = FftNorm.Backward) =>
            NDim(ctorch.ct_fft_fftn, input, s, dim, norm);

        /// <summary>torch.fft.ifftn(input, s, dim, norm): the inverse of <see cref="Fftn"/>
        /// (scaled by 1 / the product of the sizes with the default norm). Arguments and errors
        /// as for <see cref="Fftn"/>.</summary>
        public static Tensor Ifftn(Tensor input, long[] s = null, long[] dim = null, FftNorm norm = FftNorm.Backward) =>
            NDim(ctorch.ct_fft_ifftn, input, s, dim, norm);

        /// <summary>torch.fft.rfftn(input, s, dim, norm): the FFT of a real input over several
        /// dims, keeping n / 2 + 1 values along the last transformed dim (the others keep their
        /// sizes). Arguments as for <see cref="Fftn"/>; a complex input is CtorchException (DType)
        /// "rfftn expects a real-valued input tensor, ...".</summary>
        public static Tensor Rfftn(Tensor input, long[] s = null, long[] dim = null, FftNorm norm = FftNorm.Backward) =>
            NDim(ctorch.ct_fft_rfftn, input, s, dim, norm);

        /// <summary>torch.fft.irfftn(input, s, dim, norm): the inverse of <see cref="Rfftn"/>, a
        /// real result. The last transformed dim gets s's last entry, by default 2 * (m - 1) for m
        /// values: pass the original sizes as s to get an odd last size back. Arguments and
        /// errors as for <see cref="Fftn"/>.</summary>
        public static Tensor Irfftn(Tensor input, long[] s = null, long[] dim = null, FftNorm norm = FftNorm.Backward) =>
            NDim(ctorch.ct_fft_irfftn, input, s, dim, norm);

        /// <summary>torch.fft.fft2(input, s, dim, norm): <see cref="Fftn"/> with dim defaulting to
        /// the last two dims {-2, -1} (an input of rank 2 at least).</summary>
        public static Tensor Fft2(Tensor input, long[] s = null, long[] dim = null, FftNorm norm = FftNorm.Backward) =>
            NDim(ctorch.ct_fft_fft2, input, s, dim, norm);

        /// <summary>torch.fft.ifft2(input, s, dim, norm): <see cref="Ifftn"/> with dim defaulting
        /// to the last two dims {-2, -1}.</summary>
        public static Tensor Ifft2(Tensor input, long[] s = null, long[] dim = null, FftNorm norm = FftNorm.Backward) =>
            NDim(ctorch.ct_fft_ifft2, input, s, dim, norm);

        // ------------------------------------------------------------------ helpers

        /// <summary>torch.fft.fftfreq(n, d, dtype, device): the sample frequencies of an n-point
        /// FFT with sample spacing d, <c>[0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d * n)</c>:
        /// <c>Fftfreq(5)</c> is [0, 0.2, 0.4, -0.4, -0.2]. dtype defaults to Float32, device to
        /// the CPU. CtorchException (Argument) "fftfreq: n must be positive, got 0" for n less
        /// than 1.</summary>
        public static Tensor Fftfreq(long n, double d = 1.0, DType? dtype = null, Device? device = null)
        {
            Device dev = device ?? Device.Cpu;
            IntPtr r;
            Native.Check(ctorch.ct_fft_fftfreq(n, d, DTypes.Code(dtype), (int)dev.Type, dev.Index, out r));
            return Tensor.Own(r);
        }

        /// <summary>torch.fft.fftshift(input, dim): rolls each dim in dim (null: all dims) by
        /// size / 2, moving the zero frequency to the middle: [0, 1, 2, 3, 4] becomes
        /// [3, 4, 0, 1, 2]. Any dtype. CtorchException (Index) for a dim out of range.</summary>
        public static Tensor Fftshift(Tensor input, long[] dim = null) => Shift(ctorch.ct_fft_fftshift, input, dim);

        /// <summary>torch.fft.fftshift(input, dim) over one dim.</summary>
        public static Tensor Fftshift(Tensor input, long dim) => Fftshift(input, new[] { dim });

        /// <summary>torch.fft.ifftshift(input, dim): the inverse of <see cref="Fftshift(Tensor, long[])"/>
        /// (rolls by -(size / 2)): [3, 4, 0, 1, 2] becomes [0, 1, 2, 3, 4].</summary>
        public static Tensor Ifftshift(Tensor input, long[] dim = null) => Shift(ctorch.ct_fft_ifftshift, input, dim);

        /// <summary>torch.fft.ifftshift(input, dim) over one dim.</summary>
        public static Tensor Ifftshift(Tensor input, long dim) => Ifftshift(input, new[] { dim });
    }
}
