package ctorch_test

// torch.fft through the binding (capi/ctorch.h section 17): every transform called, its
// options (length, dim, sizes, dims, norm) reaching C, errors mapped with the op's name, the
// Go layer's own int32 checks, and the cuFFT plan cache. The transforms' values against a DFT,
// their dtype rules and error texts are the C suite's (tests/capi/fft_test.c).

import (
	"math"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// Each transform and its options: an impulse transforms to ones (so the values are known
// without a DFT), and the options show in the result's shape, dtype and scale.
func TestFFTCallsAndOptions(t *testing.T) {
	s, dev := setup(t)
	imp := s.T(ctorch.FromSlice([]complex64{1, 0, 0, 0}, nil, dev))
	ones := []complex128{1, 1, 1, 1}
	near(t, s.T(ctorch.FFT(imp)), 1e-6, ones...)
	near(t, s.T(ctorch.FFT(imp, ctorch.NormForward)), 1e-6, 0.25, 0.25, 0.25, 0.25)
	near(t, s.T(ctorch.IFFT(imp, ctorch.NormOrtho)), 1e-6, 0.5, 0.5, 0.5, 0.5)
	near(t, s.T(ctorch.FFT(imp, ctorch.FFTLength(2))), 1e-6, 1, 1)
	near(t, s.T(ctorch.FFT(imp, nil)), 1e-6, ones...) // a nil option is ignored
	r := s.T(ctorch.FromSlice([]float32{1, 0, 0, 0}, nil, dev))
	eqDType(t, s.T(ctorch.RFFT(r)), ctorch.Complex64)
	eqShape(t, s.T(ctorch.RFFT(r)), 3)
	eqShape(t, s.T(ctorch.IRFFT(s.T(ctorch.RFFT(r)), ctorch.FFTLength(4))), 4)
	nearF64(t, s.T(ctorch.HFFT(imp, ctorch.FFTLength(6))), 1e-6, 1, 1, 1, 1, 1, 1)

	m := s.T(ctorch.Zeros([]int64{2, 3}, ctorch.Complex128, dev))
	eqShape(t, s.T(ctorch.FFT(m, ctorch.FFTDim(0), ctorch.FFTLength(5))), 5, 3)
	eqShape(t, s.T(ctorch.FFTN(m, ctorch.FFTSizes(4), ctorch.FFTDims(0))), 4, 3)
	eqShape(t, s.T(ctorch.IFFTN(m, ctorch.FFTSizes(2, 2))), 2, 2)
	eqShape(t, s.T(ctorch.FFT2(m)), 2, 3)
	eqShape(t, s.T(ctorch.IFFT2(m, ctorch.NormOrtho)), 2, 3)
	rm := s.T(ctorch.Zeros([]int64{2, 4}, dev))
	eqShape(t, s.T(ctorch.RFFTN(rm)), 2, 3)
	eqShape(t, s.T(ctorch.IRFFTN(s.T(ctorch.RFFTN(rm)), ctorch.FFTSizes(2, 4))), 2, 4)
	eqShape(t, s.T(ctorch.FFTN(rm, nil)), 2, 4)

	nearF64(t, s.T(ctorch.FFTFreq(4, 0.5, ctorch.Float64)), 0, 0, 0.5, -1, -0.5)
	x := s.T(ctorch.ArangeInt(0, 6, 1, dev))
	eqI64(t, s.T(ctorch.FFTShift(x)), 3, 4, 5, 0, 1, 2)
	eqI64(t, s.T(ctorch.IFFTShift(s.T(x.View(2, 3)), 1)), 1, 2, 0, 4, 5, 3)
	if ctorch.NormOrtho.String() != "ortho" || ctorch.FFTNorm(7).String() != "FFTNorm(7)" {
		t.Errorf("FFTNorm names: %v %v", ctorch.NormOrtho, ctorch.FFTNorm(7))
	}
}

func TestFFTErrors(t *testing.T) {
	s, dev := setup(t)
	c := s.T(ctorch.Zeros([]int64{4}, ctorch.Complex64, dev))
	wantMessage(t, s.E(ctorch.RFFT(c)), ctorch.ErrDType, "fft_rfft", "rfftn expects a real-valued input tensor")
	wantMessage(t, s.E(ctorch.FFT(c, ctorch.FFTLength(0))), ctorch.ErrArgument, "fft_fft", "Invalid number of data points (0) specified")
	wantErr(t, s.E(ctorch.FFT(c, ctorch.FFTDim(2))), ctorch.ErrIndex)
	wantErr(t, s.E(ctorch.FFT(c, ctorch.FFTNorm(7))), ctorch.ErrArgument)
	m := s.T(ctorch.Zeros([]int64{2, 3}, ctorch.Complex64, dev))
	wantMessage(t, s.E(ctorch.FFTN(m, ctorch.FFTSizes(2, 3), ctorch.FFTDims(0))), ctorch.ErrArgument, "fft_fftn",
		"fftn: when given, dim and shape arguments must have the same length")
	// dims beyond int32 are refused by the Go layer, not truncated
	if math.MaxInt > math.MaxInt32 {
		big := int(int64(math.MaxInt32) + 1)
		wantMessage(t, s.E(ctorch.FFTN(m, ctorch.FFTDims(big))), ctorch.ErrIndex, "fft_fftn", "dimension 2147483648 out of range")
		wantMessage(t, s.E(ctorch.FFTShift(m, big)), ctorch.ErrIndex, "fft_fftshift", "dimension 2147483648 out of range")
	}
	closed := s.T(ctorch.Zeros([]int64{4}, dev))
	noErr(t, closed.Close())
	for _, x := range []*ctorch.Tensor{closed, nil} {
		for _, err := range []error{
			s.E(ctorch.FFT(x)), s.E(ctorch.IFFT(x)), s.E(ctorch.RFFT(x)), s.E(ctorch.IRFFT(x)), s.E(ctorch.HFFT(x)),
			s.E(ctorch.FFTN(x)), s.E(ctorch.IFFTN(x)), s.E(ctorch.RFFTN(x)), s.E(ctorch.IRFFTN(x)),
			s.E(ctorch.FFT2(x)), s.E(ctorch.IFFT2(x)), s.E(ctorch.FFTShift(x)), s.E(ctorch.IFFTShift(x)),
		} {
			wantErr(t, err, ctorch.ErrInvalidHandle)
		}
	}
}

// Without a GPU every plan cache call fails with ErrCUDAUnavailable; indices beyond int32 are
// refused first.
func TestCUFFTPlanCacheNoGPU(t *testing.T) {
	if math.MaxInt > math.MaxInt32 {
		big := cuda.CUFFTPlanCache(int(int64(math.MaxInt32) + 1))
		_, err := big.Size()
		wantErr(t, err, ctorch.ErrIndex)
		wantErr(t, big.SetMaxSize(1), ctorch.ErrIndex)
	}
	if got := cuda.CUFFTPlanCache(3).Device(); got != 3 {
		t.Errorf("Device() = %d, want 3", got)
	}
	skipWithGPU(t)
	c := cuda.CUFFTPlanCache(0)
	for _, f := range []func() (int64, error){c.MaxSize, c.Size, c.MaxBytes, c.Bytes, c.Hits, c.Misses} {
		v, err := f()
		wantUnavailable(t, err)
		if v != 0 {
			t.Errorf("value %d with an error, want 0", v)
		}
	}
	wantUnavailable(t, c.SetMaxSize(10))
	wantUnavailable(t, c.Clear())
	wantUnavailable(t, c.SetMaxBytes(1<<20))
}

// On a GPU: a transform on CUDA, and the plan cache's counters through the binding.
func TestGPUFFT(t *testing.T) {
	s := gpuTest(t, 1)
	gpu := ctorch.CUDADevice(0)
	y := s.T(ctorch.FFT(s.T(ctorch.FromSlice([]complex64{1, 0, 0, 0}, nil, gpu))))
	if y.Device() != gpu {
		t.Errorf("result on %v, want %v", y.Device(), gpu)
	}
	near(t, y, 1e-6, 1, 1, 1, 1)
	pc := cuda.CUFFTPlanCache(0)
	get := func(f func() (int64, error)) int64 {
		t.Helper()
		v, err := f()
		noErr(t, err)
		return v
	}
	noErr(t, pc.Clear())
	h0, m0 := get(pc.Hits), get(pc.Misses)
	for i := 0; i < 2; i++ {
		s.T(ctorch.FFT(s.T(ctorch.Ones([]int64{16}, ctorch.Complex64, gpu))))
	}
	if get(pc.Size) != 1 || get(pc.Hits)-h0 != 1 || get(pc.Misses)-m0 != 1 {
		t.Errorf("size %d, hits +%d, misses +%d; want 1, 1, 1", get(pc.Size), get(pc.Hits)-h0, get(pc.Misses)-m0)
	}
	noErr(t, pc.SetMaxSize(2))
	if get(pc.MaxSize) != 2 {
		t.Errorf("MaxSize() = %d after SetMaxSize(2)", get(pc.MaxSize))
	}
	noErr(t, pc.SetMaxBytes(1<<30))
	if get(pc.MaxBytes) != 1<<30 || get(pc.Bytes) < 0 {
		t.Errorf("MaxBytes() = %d, Bytes() = %d", get(pc.MaxBytes), get(pc.Bytes))
	}
	wantErr(t, pc.SetMaxSize(-1), ctorch.ErrArgument)
	noErr(t, pc.SetMaxSize(4096))
	noErr(t, pc.SetMaxBytes(0))
	noErr(t, pc.Clear())
	_, err := cuda.CUFFTPlanCache(cuda.DeviceCount()).Size()
	wantErr(t, err, ctorch.ErrIndex)
}
