package ctorch

import "ctorch.dev/ctorch/internal/capi"

// FFT (capi/ctorch.h section 18): the functions of torch.fft, as functions of this package
// named after them (torch.fft.fft is FFT, torch.fft.rfftn is RFFTN, torch.fft.fftfreq is
// FFTFreq, ...). They run through FFTW 3 on the CPU and cuFFT on CUDA devices, both loaded by
// the library at first use; without them a transform fails with ErrNotSupported, whose message
// names the missing library. The cuFFT plan cache is cuda.CUFFTPlanCache.
//
// PyTorch's keyword arguments are options, and PyTorch's defaults apply when they are left
// out: FFTLength(n) and FFTDim(dim) for the one-dimensional transforms, FFTSizes(s...) and
// FFTDims(dims...) for the n-dimensional ones, and a FFTNorm value (NormBackward, NormForward,
// NormOrtho) for both:
//
//	torch.fft.fft(x, n=16, dim=0, norm="ortho")  ->  ctorch.FFT(x, ctorch.FFTLength(16), ctorch.FFTDim(0), ctorch.NormOrtho)
//	torch.fft.fftn(x, s=(4, 4), dim=(0, 2))      ->  ctorch.FFTN(x, ctorch.FFTSizes(4, 4), ctorch.FFTDims(0, 2))
//
// Real inputs of Float32 (and integer and bool inputs, promoted to Float32) give Complex64
// results, Float64 gives Complex128; Float16 and BFloat16 inputs are refused with ErrDType
// ("Unsupported dtype Half ..."). A length or size smaller than the input's cuts it, a larger
// one pads it with zeros, -1 keeps it; 0 or less is ErrArgument ("Invalid number of data points
// (0) specified"). Results are new tensors on the input's device; on CUDA the transform is
// queued on the current stream of the calling OS thread, like every op. Error.Op is the C
// function's name without "ct_" ("fft_fft", "fft_rfftn", ...).

// FFTNorm is the norm argument of torch.fft's transforms: which direction is scaled
// (NormBackward, the default, NormForward, NormOrtho; abi_gen.go, from capi/abi.toml).
// A FFTNorm is itself an FFTOption and an FFTNOption: ctorch.FFT(x, ctorch.NormOrtho).
type FFTNorm int32

// String returns PyTorch's name of the norm: "backward", "forward", "ortho"; "FFTNorm(N)" for
// another value (which the transforms refuse with ErrArgument).
func (n FFTNorm) String() string {
	return capi.EnumName(fftNormNames, int32(n), "FFTNorm")
}

func (n FFTNorm) applyFFT(o *fftOptions)   { o.norm = n }
func (n FFTNorm) applyFFTN(o *fftnOptions) { o.norm = n }

// FFTOption is an optional argument of the one-dimensional transforms FFT, IFFT, RFFT, IRFFT
// and HFFT: FFTLength, FFTDim or a FFTNorm. Later options override earlier ones.
type FFTOption interface {
	applyFFT(*fftOptions)
}

// FFTNOption is an optional argument of the n-dimensional transforms FFTN, IFFTN, RFFTN,
// IRFFTN, FFT2 and IFFT2: FFTSizes, FFTDims or a FFTNorm. Later options override earlier ones.
type FFTNOption interface {
	applyFFTN(*fftnOptions)
}

type fftOptions struct {
	n    int64
	dim  int
	norm FFTNorm
}

type fftnOptions struct {
	s    []int64
	dims []int
	norm FFTNorm
}

type fftOptionFunc func(*fftOptions)

func (f fftOptionFunc) applyFFT(o *fftOptions) { f(o) }

type fftnOptionFunc func(*fftnOptions)

func (f fftnOptionFunc) applyFFTN(o *fftnOptions) { f(o) }

// FFTLength is the n argument of the one-dimensional transforms: the signal length along the
// transformed dim (for IRFFT and HFFT: the length of the real output). The input is cut or
// zero-padded to it (IRFFT and HFFT: to n/2 + 1 values). -1, the default, keeps the input's
// size (IRFFT and HFFT: 2 * (m - 1) for m input values).
func FFTLength(n int64) FFTOption { return fftOptionFunc(func(o *fftOptions) { o.n = n }) }

// FFTDim is the dim argument of the one-dimensional transforms (default -1, the last dim;
// negative dims count from the end).
func FFTDim(dim int) FFTOption { return fftOptionFunc(func(o *fftOptions) { o.dim = dim }) }

// FFTSizes is the s argument of the n-dimensional transforms: the signal size in each
// transformed dim (for IRFFTN: the real output's size; the last one gives s/2 + 1 input values).
// Entries of -1 keep the input's size. Without FFTDims, the dims are the last len(s). Left out
// (or empty), the input's sizes are used (IRFFTN: 2 * (m - 1) in the last dim).
func FFTSizes(s ...int64) FFTNOption {
	s = append([]int64(nil), s...)
	return fftnOptionFunc(func(o *fftnOptions) { o.s = s })
}

// FFTDims is the dim argument of the n-dimensional transforms: the dims to transform (negative
// dims count from the end). Left out (or empty): the last len(s) dims when FFTSizes is given,
// else every dim; for FFT2 and IFFT2 the last two. With both options, they must have the same
// length (ErrArgument).
func FFTDims(dims ...int) FFTNOption {
	dims = append([]int(nil), dims...)
	return fftnOptionFunc(func(o *fftnOptions) { o.dims = dims })
}

type fft1Func func(h int64, n int64, dim int64, norm int, out []int64) int

func fft1(op string, f fft1Func, t *Tensor, opts []FFTOption) (*Tensor, error) {
	o := fftOptions{n: -1, dim: -1}
	for _, opt := range opts {
		if opt != nil {
			opt.applyFFT(&o)
		}
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(h, o.n, int64(o.dim), int(o.norm), out) }, t)
}

type fftnFunc func(h int64, s []int64, ns int, dims []int64, ndims int, norm int, out []int64) int

func fftn(op string, f fftnFunc, t *Tensor, opts []FFTNOption) (*Tensor, error) {
	var o fftnOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyFFTN(&o)
		}
	}
	if err := checkCount(op, len(o.s)); err != nil {
		return nil, err
	}
	if err := checkCount(op, len(o.dims)); err != nil {
		return nil, err
	}
	dims, err := dims64(op, o.dims)
	if err != nil {
		return nil, err
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int {
		return f(h, o.s, len(o.s), dims, len(dims), int(o.norm), out)
	}, t)
}

// FFT is torch.fft.fft(t, n, dim, norm): the discrete Fourier transform of t along one dim,
// out[k] = sum_j t[j] exp(-2 pi i j k / n). A real t is converted to complex first. Options:
// FFTLength (default -1, t's size), FFTDim (default -1) and a FFTNorm (default NormBackward).
func FFT(t *Tensor, opts ...FFTOption) (*Tensor, error) {
	return fft1("fft_fft", capi.Ct_fft_fft, t, opts)
}

// IFFT is torch.fft.ifft(t, n, dim, norm): the inverse of FFT (exp(+2 pi i j k / n), scaled by
// 1/n with the default NormBackward). Options as FFT.
func IFFT(t *Tensor, opts ...FFTOption) (*Tensor, error) {
	return fft1("fft_ifft", capi.Ct_fft_ifft, t, opts)
}

// RFFT is torch.fft.rfft(t, n, dim, norm): the FFT of a real t, keeping the n/2 + 1
// non-negative frequencies (the others are their complex conjugates). A complex t is
// ErrDType ("rfftn expects a real-valued input tensor, but got ComplexFloat" for Complex64).
// Options as FFT.
func RFFT(t *Tensor, opts ...FFTOption) (*Tensor, error) {
	return fft1("fft_rfft", capi.Ct_fft_rfft, t, opts)
}

// IRFFT is torch.fft.irfft(t, n, dim, norm): the inverse of RFFT, a real tensor of n values
// along dim from the n/2 + 1 non-negative frequencies in t. FFTLength defaults to 2 * (m - 1)
// for m values in t, which gives back even lengths only: pass FFTLength for odd ones. Other
// options as FFT.
func IRFFT(t *Tensor, opts ...FFTOption) (*Tensor, error) {
	return fft1("fft_irfft", capi.Ct_fft_irfft, t, opts)
}

// HFFT is torch.fft.hfft(t, n, dim, norm): the FFT of a Hermitian-symmetric signal given by its
// first half (t), a real tensor of n values along dim (default 2 * (m - 1) for m values in t),
// scaled as a forward transform. Options as FFT.
func HFFT(t *Tensor, opts ...FFTOption) (*Tensor, error) {
	return fft1("fft_hfft", capi.Ct_fft_hfft, t, opts)
}

// FFTN is torch.fft.fftn(t, s, dim, norm): the FFT over several dims (every dim by default).
// Options: FFTSizes, FFTDims and a FFTNorm (default NormBackward).
func FFTN(t *Tensor, opts ...FFTNOption) (*Tensor, error) {
	return fftn("fft_fftn", capi.Ct_fft_fftn, t, opts)
}

// IFFTN is torch.fft.ifftn(t, s, dim, norm): the inverse of FFTN. Options as FFTN.
func IFFTN(t *Tensor, opts ...FFTNOption) (*Tensor, error) {
	return fftn("fft_ifftn", capi.Ct_fft_ifftn, t, opts)
}

// RFFTN is torch.fft.rfftn(t, s, dim, norm): the FFTN of a real t, keeping s/2 + 1 values in
// the last transformed dim. A complex t is ErrDType. Options as FFTN.
func RFFTN(t *Tensor, opts ...FFTNOption) (*Tensor, error) {
	return fftn("fft_rfftn", capi.Ct_fft_rfftn, t, opts)
}

// IRFFTN is torch.fft.irfftn(t, s, dim, norm): the inverse of RFFTN, a real tensor. The last
// transformed dim's output size defaults to 2 * (m - 1): give FFTSizes for odd sizes. Options
// as FFTN.
func IRFFTN(t *Tensor, opts ...FFTNOption) (*Tensor, error) {
	return fftn("fft_irfftn", capi.Ct_fft_irfftn, t, opts)
}

// FFT2 is torch.fft.fft2(t, s, dim, norm): FFTN over the last two dims unless FFTDims says
// otherwise. Options as FFTN.
func FFT2(t *Tensor, opts ...FFTNOption) (*Tensor, error) {
	return fftn("fft_fft2", capi.Ct_fft_fft2, t, opts)
}

// IFFT2 is torch.fft.ifft2(t, s, dim, norm): the inverse of FFT2 (IFFTN over the last two dims
// unless FFTDims says otherwise). Options as FFTN.
func IFFT2(t *Tensor, opts ...FFTNOption) (*Tensor, error) {
	return fftn("fft_ifft2", capi.Ct_fft_ifft2, t, opts)
}

// FFTFreq is torch.fft.fftfreq(n, d): the n sample frequencies of an FFT of n points with
// sample spacing d, [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d * n). PyTorch's
// default d is 1: FFTFreq(5, 1) is [0, 0.2, 0.4, -0.4, -0.2]. Options: DType (default
// Float32) and Device (default CPU), as the factories.
func FFTFreq(n int64, d float64, opts ...Option) (*Tensor, error) {
	o, err := makeOptions("fft_fftfreq", Float32, opts)
	if err != nil {
		return nil, err
	}
	return newTensor("fft_fftfreq", func(out []int64) int {
		return capi.Ct_fft_fftfreq(n, d, int(o.dtype), int(o.device.Type), o.device.Index, out)
	})
}

type shiftFunc func(h int64, dims []int64, ndims int, out []int64) int

func shift(op string, f shiftFunc, t *Tensor, dims []int) (*Tensor, error) {
	if err := checkCount(op, len(dims)); err != nil {
		return nil, err
	}
	d, err := dims64(op, dims)
	if err != nil {
		return nil, err
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(h, d, len(d), out) }, t)
}

// FFTShift is torch.fft.fftshift(t, dims): rolls each of dims (every dim when none are given)
// by half its size, moving the zero frequency to the centre: [0 1 2 3 4] becomes [3 4 0 1 2].
func FFTShift(t *Tensor, dims ...int) (*Tensor, error) {
	return shift("fft_fftshift", capi.Ct_fft_fftshift, t, dims)
}

// IFFTShift is torch.fft.ifftshift(t, dims): the inverse of FFTShift (they differ for odd
// sizes): [3 4 0 1 2] becomes [0 1 2 3 4].
func IFFTShift(t *Tensor, dims ...int) (*Tensor, error) {
	return shift("fft_ifftshift", capi.Ct_fft_ifftshift, t, dims)
}
