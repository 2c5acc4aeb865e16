package ctorch_test

// torch.fft (ctorch.FFT, IFFT, RFFT, IRFFT, HFFT, FFTN, IFFTN, RFFTN, IRFFTN, FFT2, IFFT2,
// FFTFreq, FFTShift, IFFTShift) and the cuFFT plan cache (cuda.CUFFTPlanCache). Expected values
// come from naive DFTs computed here in complex128, or are written out by hand; none come from
// ctorch. The transforms run on the suite's test device (CUDA where there is a GPU);
// TestGPUFFT compares CUDA with the CPU and exercises the plan cache.

import (
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// dft is the naive DFT of x: sum_j x[j] exp(-+2 pi i j k / n), unscaled (sign -1: forward).
func dft(x []complex128, inverse bool) []complex128 {
	n := len(x)
	sign := -1.0
	if inverse {
		sign = 1
	}
	out := make([]complex128, n)
	for k := 0; k < n; k++ {
		var s complex128
		for j := 0; j < n; j++ {
			// reduce j*k mod n first so the angle stays small and exact
			s += x[j] * cmplx.Exp(complex(0, sign*2*math.Pi*float64((j*k)%n)/float64(n)))
		}
		out[k] = s
	}
	return out
}

// resized is x cut or zero-padded to n values.
func resized(x []complex128, n int) []complex128 {
	out := make([]complex128, n)
	copy(out, x)
	return out
}

func scaled(x []complex128, f float64) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = v * complex(f, 0)
	}
	return out
}

// dftDims applies the naive DFT along each of dims of a row-major tensor of the given shape.
func dftDims(x []complex128, shape []int, dims []int, inverse bool) []complex128 {
	out := append([]complex128(nil), x...)
	for _, d := range dims {
		stride := 1
		for i := d + 1; i < len(shape); i++ {
			stride *= shape[i]
		}
		n := shape[d]
		outer := len(out) / (n * stride)
		for o := 0; o < outer; o++ {
			for in := 0; in < stride; in++ {
				base := o*n*stride + in
				line := make([]complex128, n)
				for j := 0; j < n; j++ {
					line[j] = out[base+j*stride]
				}
				line = dft(line, inverse)
				for j := 0; j < n; j++ {
					out[base+j*stride] = line[j]
				}
			}
		}
	}
	return out
}

// csig is n deterministic complex values that are not short binary fractions.
func csig(n int, salt float64) []complex128 {
	v := make([]complex128, n)
	for i := range v {
		v[i] = complex(math.Sin(float64(i)*1.3+salt), math.Cos(float64(i)*0.7+2*salt))
	}
	return v
}

func rsig(n int, salt float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(i)*1.9+salt) + 0.25
	}
	return v
}

func toComplex(x []float64) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = complex(v, 0)
	}
	return out
}

// nearC checks a complex tensor's values against want, entry by entry, within tol (absolute).
func nearC(t *testing.T, x *ctorch.Tensor, tol float64, want []complex128) {
	t.Helper()
	got, err := x.Complex128s()
	noErr(t, err)
	if len(got) != len(want) {
		t.Fatalf("%d values %v, want %d: %v", len(got), got, len(want), want)
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > tol {
			t.Fatalf("entry %d is %v, want %v (tolerance %g); all: %v", i, got[i], want[i], tol, got)
		}
	}
}

// nearR checks a real tensor's values against the real parts of want (whose imaginary parts
// must be ~0) within tol.
func nearR(t *testing.T, x *ctorch.Tensor, tol float64, want []complex128) {
	t.Helper()
	w := make([]float64, len(want))
	for i, v := range want {
		if math.Abs(imag(v)) > 1e-9 {
			t.Fatalf("reference value %d (%v) is not real", i, v)
		}
		w[i] = real(v)
	}
	nearF64(t, x, tol, w...)
}

func TestFFTAgainstDFT(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	for _, n := range []int{8, 7} {
		x := csig(n, 0.3)
		want := dft(x, false)
		// complex128: double precision
		xt := s.T(ctorch.FromSlice(x, nil, dev))
		y := s.T(ctorch.FFT(xt))
		eqShape(t, y, int64(n))
		eqDType(t, y, ctorch.Complex128)
		nearC(t, y, 1e-12, want)
		if y.Device() != xt.Device() {
			t.Errorf("result on %v, want the input's %v", y.Device(), xt.Device())
		}
		// the inverse: the naive inverse DFT / n, and the round trip
		nearC(t, s.T(ctorch.IFFT(xt)), 1e-13, scaled(dft(x, true), 1/float64(n)))
		nearC(t, s.T(ctorch.IFFT(y)), 1e-13, x)
		// complex64
		x32 := s.T(xt.To(ctorch.Complex64))
		y32 := s.T(ctorch.FFT(x32))
		eqDType(t, y32, ctorch.Complex64)
		nearC(t, y32, 1e-5, want)
		nearC(t, s.T(ctorch.IFFT(y32)), 1e-6, x)
	}
	// a real input is transformed as complex (imaginary parts 0)
	r := rsig(6, 0.1)
	rt := s.T(ctorch.FromSlice(r, nil, dev))
	y := s.T(ctorch.FFT(rt))
	eqDType(t, y, ctorch.Complex128)
	nearC(t, y, 1e-12, dft(toComplex(r), false))
}

func TestFFTNorms(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	n := 8
	x := csig(n, 0.9)
	xt := s.T(ctorch.FromSlice(x, nil, dev))
	fwd, inv := dft(x, false), dft(x, true)
	for _, c := range []struct {
		norm           ctorch.FFTNorm
		name           string
		fscale, iscale float64
	}{
		{ctorch.NormBackward, "backward", 1, 1 / float64(n)},
		{ctorch.NormForward, "forward", 1 / float64(n), 1},
		{ctorch.NormOrtho, "ortho", 1 / math.Sqrt(float64(n)), 1 / math.Sqrt(float64(n))},
	} {
		if c.norm.String() != c.name {
			t.Errorf("%d.String() = %q, want %q", int(c.norm), c.norm.String(), c.name)
		}
		y := s.T(ctorch.FFT(xt, c.norm))
		nearC(t, y, 1e-12, scaled(fwd, c.fscale))
		nearC(t, s.T(ctorch.IFFT(xt, c.norm)), 1e-12, scaled(inv, c.iscale))
		nearC(t, s.T(ctorch.IFFT(y, c.norm)), 1e-13, x) // the same norm both ways round-trips
		// n-dimensional forms scale by the product of the sizes
		x2 := s.T(xt.View(2, 4))
		want2 := dftDims(x, []int{2, 4}, []int{0, 1}, false)
		nearC(t, s.T(ctorch.FFT2(x2, c.norm)), 1e-12, scaled(want2, c.fscale))
		nearC(t, s.T(ctorch.FFTN(x2, c.norm)), 1e-12, scaled(want2, c.fscale))
	}
	// without a norm: backward, the same as NormBackward
	nearC(t, s.T(ctorch.FFT(xt)), 1e-12, fwd)
	// the last option wins
	nearC(t, s.T(ctorch.FFT(xt, ctorch.NormForward, ctorch.NormBackward)), 1e-12, fwd)
	if got := ctorch.FFTNorm(7).String(); got != "FFTNorm(7)" {
		t.Errorf("FFTNorm(7).String() = %q", got)
	}
	// a value that is not a norm
	wantMessage(t, s.E(ctorch.FFT(xt, ctorch.FFTNorm(3))), ctorch.ErrArgument, "fft_fft", "Invalid normalization mode: 3")
	wantMessage(t, s.E(ctorch.FFTN(xt, ctorch.FFTNorm(-1))), ctorch.ErrArgument, "fft_fftn", "Invalid normalization mode: -1")
}

func TestFFTLengthAndDim(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	x := csig(8, 1.1)
	xt := s.T(ctorch.FromSlice(x, nil, dev))
	// n smaller than the input cuts it, larger zero-pads it, -1 keeps it
	for _, n := range []int{5, 1, 12, 8} {
		y := s.T(ctorch.FFT(xt, ctorch.FFTLength(int64(n))))
		eqShape(t, y, int64(n))
		nearC(t, y, 1e-12, dft(resized(x, n), false))
		// ifft with n: scaled by 1/n of the new length
		nearC(t, s.T(ctorch.IFFT(xt, ctorch.FFTLength(int64(n)))), 1e-13, scaled(dft(resized(x, n), true), 1/float64(n)))
	}
	nearC(t, s.T(ctorch.FFT(xt, ctorch.FFTLength(-1))), 1e-12, dft(x, false))

	// dim: a 3x4 tensor along dim 0 (columns), dim 1 and -1 (rows), with n on dim 0
	m := csig(12, 0.2)
	mt := s.T(ctorch.FromSlice(m, []int64{3, 4}, dev))
	nearC(t, s.T(ctorch.FFT(mt, ctorch.FFTDim(0))), 1e-12, dftDims(m, []int{3, 4}, []int{0}, false))
	nearC(t, s.T(ctorch.FFT(mt, ctorch.FFTDim(1))), 1e-12, dftDims(m, []int{3, 4}, []int{1}, false))
	nearC(t, s.T(ctorch.FFT(mt)), 1e-12, dftDims(m, []int{3, 4}, []int{1}, false))
	// n = 5 along dim 0: rows padded with zeros to 5
	padded := append(append([]complex128(nil), m...), make([]complex128, 8)...)
	y := s.T(ctorch.FFT(mt, ctorch.FFTDim(0), ctorch.FFTLength(5), ctorch.NormOrtho))
	eqShape(t, y, 5, 4)
	nearC(t, y, 1e-12, scaled(dftDims(padded, []int{5, 4}, []int{0}, false), 1/math.Sqrt(5)))
	// a non-contiguous view (the transpose) transforms the same as its contiguous copy
	tr := s.T(mt.Transpose(0, 1)) // 4x3, rows of the transpose are the columns of m
	mT := make([]complex128, 12)
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			mT[j*3+i] = m[i*4+j]
		}
	}
	nearC(t, s.T(ctorch.FFT(tr)), 1e-12, dftDims(mT, []int{4, 3}, []int{1}, false))
}

func TestRFFTAndIRFFT(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// rfft of a real signal of length 10: the 6 non-negative frequencies of its DFT
	r := rsig(10, 0.4)
	rt := s.T(ctorch.FromSlice(r, nil, dev))
	full := dft(toComplex(r), false)
	y := s.T(ctorch.RFFT(rt))
	eqShape(t, y, 6)
	eqDType(t, y, ctorch.Complex128)
	nearC(t, y, 1e-12, full[:6])
	// float32 in, complex64 out
	r32 := s.T(rt.To(ctorch.Float32))
	y32 := s.T(ctorch.RFFT(r32))
	eqDType(t, y32, ctorch.Complex64)
	nearC(t, y32, 1e-5, full[:6])
	// irfft round trip: default n = 2 * (6 - 1) = 10
	back := s.T(ctorch.IRFFT(y))
	eqShape(t, back, 10)
	eqDType(t, back, ctorch.Float64)
	nearF64(t, back, 1e-13, r...)
	back32 := s.T(ctorch.IRFFT(y32))
	eqDType(t, back32, ctorch.Float32)
	nearF64(t, back32, 1e-6, r...)
	// norms round-trip too
	for _, nm := range []ctorch.FFTNorm{ctorch.NormForward, ctorch.NormOrtho} {
		nearF64(t, s.T(ctorch.IRFFT(s.T(ctorch.RFFT(rt, nm)), nm)), 1e-13, r...)
	}
	// odd length: rfft of 7 values gives 4; irfft needs n = 7 to come back
	o := rsig(7, 2.2)
	ot := s.T(ctorch.FromSlice(o, nil, dev))
	yo := s.T(ctorch.RFFT(ot))
	eqShape(t, yo, 4)
	nearC(t, yo, 1e-12, dft(toComplex(o), false)[:4])
	nearF64(t, s.T(ctorch.IRFFT(yo, ctorch.FFTLength(7))), 1e-13, o...)
	eqShape(t, s.T(ctorch.IRFFT(yo)), 6) // the default: 2 * (4 - 1)
	// rfft with n: cut to 6 (4 values) and padded to 13 (7 values)
	nearC(t, s.T(ctorch.RFFT(rt, ctorch.FFTLength(6))), 1e-12, dft(toComplex(r[:6]), false)[:4])
	nearC(t, s.T(ctorch.RFFT(rt, ctorch.FFTLength(13))), 1e-12, dft(resized(toComplex(r), 13), false)[:7])
	// an integer input is promoted to float32: complex64
	it := s.T(ctorch.FromSlice([]int64{1, 2, 3, 4}, nil, dev))
	yi := s.T(ctorch.RFFT(it))
	eqDType(t, yi, ctorch.Complex64)
	nearC(t, yi, 1e-6, []complex128{10, complex(-2, 2), -2})
}

func TestHFFT(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// a Hermitian signal of length 8 given by its first 5 values (0 and 4 real)
	h := []complex128{1.5, complex(0.25, -1), complex(-0.75, 0.5), complex(2, 0.125), -0.5}
	full := make([]complex128, 8)
	for j := 0; j <= 4; j++ {
		full[j] = h[j]
		if j > 0 && j < 4 {
			full[8-j] = cmplx.Conj(h[j])
		}
	}
	ht := s.T(ctorch.FromSlice(h, nil, dev))
	y := s.T(ctorch.HFFT(ht)) // default n = 2 * (5 - 1) = 8
	eqShape(t, y, 8)
	eqDType(t, y, ctorch.Float64)
	want := dft(full, false)
	nearR(t, y, 1e-12, want)
	// hfft is a forward transform: NormForward scales by 1/n
	nearR(t, s.T(ctorch.HFFT(ht, ctorch.NormForward)), 1e-13, scaled(want, 1.0/8))
	// n = 7: the first 4 values of h define a Hermitian signal of odd length
	full7 := make([]complex128, 7)
	for j := 0; j <= 3; j++ {
		full7[j] = h[j]
		if j > 0 {
			full7[7-j] = cmplx.Conj(h[j])
		}
	}
	full7[0] = complex(real(h[0]), 0)
	nearR(t, s.T(ctorch.HFFT(ht, ctorch.FFTLength(7))), 1e-12, dft(full7, false))
}

func TestFFT2(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// a 3x4 input: the 2-D DFT is the row DFTs then the column DFTs
	x := csig(12, 0.5)
	xt := s.T(ctorch.FromSlice(x, []int64{3, 4}, dev))
	want := dftDims(x, []int{3, 4}, []int{1, 0}, false)
	y := s.T(ctorch.FFT2(xt))
	eqShape(t, y, 3, 4)
	nearC(t, y, 1e-12, want)
	nearC(t, s.T(ctorch.IFFT2(y)), 1e-13, x)
	// one entry written out: y[0][0] is the sum of all values
	var sum complex128
	for _, v := range x {
		sum += v
	}
	nearC(t, s.T(y.Select(0, 0)), 1e-12, []complex128{sum, want[1], want[2], want[3]})
	// batched: a 2x3x4 input transforms its last two dims, each 3x4 slice on its own
	b := csig(24, 1.7)
	bt := s.T(ctorch.FromSlice(b, []int64{2, 3, 4}, dev))
	nearC(t, s.T(ctorch.FFT2(bt)), 1e-12, dftDims(b, []int{2, 3, 4}, []int{1, 2}, false))
	// other dims, and s: pad dim 0 of the 3x4 input to 4 and cut dim 1 to 2
	nearC(t, s.T(ctorch.FFT2(bt, ctorch.FFTDims(0, 2))), 1e-12, dftDims(b, []int{2, 3, 4}, []int{0, 2}, false))
	ps := make([]complex128, 8)
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			ps[i*2+j] = x[i*4+j]
		}
	}
	yp := s.T(ctorch.FFT2(xt, ctorch.FFTSizes(4, 2)))
	eqShape(t, yp, 4, 2)
	nearC(t, yp, 1e-12, dftDims(ps, []int{4, 2}, []int{0, 1}, false))
}

func TestFFTNAndIFFTN(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	shape := []int{2, 3, 4}
	x := csig(24, 2.5)
	xt := s.T(ctorch.FromSlice(x, []int64{2, 3, 4}, dev))
	// default: every dim
	y := s.T(ctorch.FFTN(xt))
	nearC(t, y, 1e-12, dftDims(x, shape, []int{0, 1, 2}, false))
	nearC(t, s.T(ctorch.IFFTN(y)), 1e-13, x)
	// dims 0 and 2 (and negative dims: 0, -1), with the round trip on the same dims
	want := dftDims(x, shape, []int{0, 2}, false)
	y02 := s.T(ctorch.FFTN(xt, ctorch.FFTDims(0, 2)))
	nearC(t, y02, 1e-12, want)
	nearC(t, s.T(ctorch.FFTN(xt, ctorch.FFTDims(0, -1))), 1e-12, want)
	nearC(t, s.T(ctorch.IFFTN(y02, ctorch.FFTDims(0, 2))), 1e-13, x)
	// the inverse alone: the naive inverse scaled by 1/(2*4)
	nearC(t, s.T(ctorch.IFFTN(xt, ctorch.FFTDims(0, 2))), 1e-13, scaled(dftDims(x, shape, []int{0, 2}, true), 1.0/8))
	// s alone: the last len(s) dims; -1 keeps a size; 2 cuts dim 2 from 4
	ys := s.T(ctorch.FFTN(xt, ctorch.FFTSizes(-1, 2)))
	eqShape(t, ys, 2, 3, 2)
	cut := make([]complex128, 12)
	for i := 0; i < 6; i++ {
		cut[i*2], cut[i*2+1] = x[i*4], x[i*4+1]
	}
	nearC(t, ys, 1e-12, dftDims(cut, []int{2, 3, 2}, []int{1, 2}, false))
	// s and dims together (padding dim 0 to 3)
	yp := s.T(ctorch.FFTN(xt, ctorch.FFTSizes(3), ctorch.FFTDims(0)))
	eqShape(t, yp, 3, 3, 4)
	pad := append(append([]complex128(nil), x...), make([]complex128, 12)...)
	nearC(t, yp, 1e-12, dftDims(pad, []int{3, 3, 4}, []int{0}, false))
	// an empty FFTSizes / FFTDims is the default
	nearC(t, s.T(ctorch.FFTN(xt, ctorch.FFTSizes(), ctorch.FFTDims())), 1e-12, dftDims(x, shape, []int{0, 1, 2}, false))
	// the caller's slices are copied: changing them afterwards changes nothing
	dims := []int{0, 2}
	opt := ctorch.FFTDims(dims...)
	dims[1] = 1
	nearC(t, s.T(ctorch.FFTN(xt, opt)), 1e-12, want)
}

func TestRFFTNAndIRFFTN(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// a real 4x6 input: rfftn keeps 6/2 + 1 = 4 columns of the 2-D DFT
	r := rsig(24, 0.7)
	rt := s.T(ctorch.FromSlice(r, []int64{4, 6}, dev))
	full := dftDims(toComplex(r), []int{4, 6}, []int{0, 1}, false)
	y := s.T(ctorch.RFFTN(rt))
	eqShape(t, y, 4, 4)
	eqDType(t, y, ctorch.Complex128)
	want := make([]complex128, 16)
	for i := 0; i < 4; i++ {
		copy(want[i*4:i*4+4], full[i*6:i*6+4])
	}
	nearC(t, y, 1e-12, want)
	// round trip (default s: 2 * (4 - 1) = 6 in the last dim)
	back := s.T(ctorch.IRFFTN(y))
	eqShape(t, back, 4, 6)
	eqDType(t, back, ctorch.Float64)
	nearF64(t, back, 1e-13, r...)
	// an odd last size needs s: 4x5
	o := rsig(20, 1.3)
	ot := s.T(ctorch.FromSlice(o, []int64{4, 5}, dev))
	yo := s.T(ctorch.RFFTN(ot, ctorch.NormOrtho))
	eqShape(t, yo, 4, 3)
	nearF64(t, s.T(ctorch.IRFFTN(yo, ctorch.FFTSizes(4, 5), ctorch.NormOrtho)), 1e-13, o...)
	// one dim of a 3-D float32 input: complex64 out, back to float32
	b := rsig(24, 0.2)
	bt := s.T(ctorch.FromSlice(b, []int64{2, 3, 4}, dev, ctorch.Float32))
	yb := s.T(ctorch.RFFTN(bt, ctorch.FFTDims(1)))
	eqShape(t, yb, 2, 2, 4)
	eqDType(t, yb, ctorch.Complex64)
	bb := s.T(ctorch.IRFFTN(yb, ctorch.FFTSizes(3), ctorch.FFTDims(1)))
	eqDType(t, bb, ctorch.Float32)
	nearF64(t, bb, 1e-6, b...)
}

func TestFFTDTypes(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	for _, c := range []struct {
		in, out ctorch.DType
	}{
		{ctorch.Float32, ctorch.Complex64},
		{ctorch.Float64, ctorch.Complex128},
		{ctorch.Complex64, ctorch.Complex64},
		{ctorch.Complex128, ctorch.Complex128},
		{ctorch.Int64, ctorch.Complex64},
		{ctorch.Int32, ctorch.Complex64},
		{ctorch.Uint8, ctorch.Complex64},
		{ctorch.Bool, ctorch.Complex64},
	} {
		x := s.T(ctorch.Ones([]int64{4}, c.in, dev))
		y := s.T(ctorch.FFT(x))
		eqDType(t, y, c.out)
		nearC(t, y, 1e-6, []complex128{4, 0, 0, 0})
		eqDType(t, s.T(ctorch.FFTN(x)), c.out)
		eqDType(t, s.T(ctorch.FFTShift(x)), c.in) // a roll keeps the dtype
	}
	// float32 input -> complex64 values against the double-precision DFT
	x := rsig(8, 0.6)
	xt := s.T(ctorch.FromSlice(x, nil, ctorch.Float32, dev))
	y := s.T(ctorch.FFT(xt))
	eqDType(t, y, ctorch.Complex64)
	x32 := make([]float64, len(x)) // the values the float32 tensor holds
	for i, v := range x {
		x32[i] = float64(float32(v))
	}
	nearC(t, y, 1e-5, dft(toComplex(x32), false))
	eqDType(t, s.T(ctorch.HFFT(y)), ctorch.Float32)
}

func TestFFTFreq(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	f := s.T(ctorch.FFTFreq(5, 1, dev))
	eqDType(t, f, ctorch.Float32)
	eqShape(t, f, 5)
	if want := resolved(dev); f.Device() != want {
		t.Errorf("fftfreq on %v, want %v", f.Device(), want)
	}
	want := []float64{0, 0.2, 0.4, -0.4, -0.2}
	w32 := make([]float64, len(want))
	for i, v := range want {
		w32[i] = float64(float32(v))
	}
	eqF64(t, f, w32...)
	// float64, even n, d = 0.5: [0, 1, -2, -1] / (0.5 * 4)
	eqF64(t, s.T(ctorch.FFTFreq(4, 0.5, ctorch.Float64, dev)), 0, 0.5, -1, -0.5)
	eqF64(t, s.T(ctorch.FFTFreq(1, 1, ctorch.Float64)), 0)
	// fftshift of fftfreq is sorted: [-0.4, -0.2, 0, 0.2, 0.4]
	nearF64(t, s.T(ctorch.FFTShift(f)), 1e-7, -0.4, -0.2, 0, 0.2, 0.4)
	wantMessage(t, s.E(ctorch.FFTFreq(0, 1)), ctorch.ErrArgument, "fft_fftfreq", "fftfreq: n must be positive, got 0")
}

func TestFFTShift(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	x := s.T(ctorch.FromSlice([]int64{0, 1, 2, 3, 4}, nil, dev))
	y := s.T(ctorch.FFTShift(x))
	eqI64(t, y, 3, 4, 0, 1, 2)
	eqI64(t, s.T(ctorch.IFFTShift(y)), 0, 1, 2, 3, 4)
	eqI64(t, s.T(ctorch.IFFTShift(x)), 2, 3, 4, 0, 1)
	// even length: both are the same roll by 3
	e := s.T(ctorch.FromSlice([]int64{0, 1, 2, 3, 4, 5}, nil, dev))
	eqI64(t, s.T(ctorch.FFTShift(e)), 3, 4, 5, 0, 1, 2)
	eqI64(t, s.T(ctorch.IFFTShift(e)), 3, 4, 5, 0, 1, 2)
	// the result is a new tensor, not the input
	same, err := y.IsSame(x)
	noErr(t, err)
	if same {
		t.Errorf("FFTShift returned its input")
	}
	// 2-D: every dim, one dim, a negative dim
	m := s.T(ctorch.FromSlice([]int64{0, 1, 2, 3, 4, 5}, []int64{2, 3}, dev))
	eqI64(t, s.T(ctorch.FFTShift(m)), 5, 3, 4, 2, 0, 1)
	eqI64(t, s.T(ctorch.FFTShift(m, 1)), 2, 0, 1, 5, 3, 4)
	eqI64(t, s.T(ctorch.FFTShift(m, -2)), 3, 4, 5, 0, 1, 2)
	eqI64(t, s.T(ctorch.IFFTShift(s.T(ctorch.FFTShift(m, 0, 1)), 0, 1)), 0, 1, 2, 3, 4, 5)
	wantErr(t, s.E(ctorch.FFTShift(m, 2)), ctorch.ErrIndex)
}

func TestFFTErrors(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// float16 / bfloat16 inputs
	for _, dt := range []ctorch.DType{ctorch.Float16, ctorch.BFloat16} {
		h := s.T(ctorch.Ones([]int64{4}, dt, dev))
		name := map[ctorch.DType]string{ctorch.Float16: "Half", ctorch.BFloat16: "BFloat16"}[dt]
		for op, err := range map[string]error{
			"fft_fft":   s.E(ctorch.FFT(h)),
			"fft_rfft":  s.E(ctorch.RFFT(h)),
			"fft_fftn":  s.E(ctorch.FFTN(h)),
			"fft_ifft2": s.E(ctorch.IFFT2(s.T(h.View(2, 2)))),
		} {
			e := wantErr(t, err, ctorch.ErrDType)
			if e.Op != op || !strings.Contains(e.Message, "Unsupported dtype "+name) {
				t.Errorf("%v: want op %q and \"Unsupported dtype %s\" in the message", err, op, name)
			}
		}
	}
	// rfft of a complex input
	c := s.T(ctorch.FromSlice(csig(4, 0), nil, dev))
	wantMessage(t, s.E(ctorch.RFFT(c)), ctorch.ErrDType, "fft_rfft", "rfftn expects a real-valued input tensor")
	wantMessage(t, s.E(ctorch.RFFTN(c)), ctorch.ErrDType, "fft_rfftn", "rfftn expects a real-valued input tensor")
	// n = 0 (and other sizes below 1)
	r := s.T(ctorch.FromSlice(rsig(4, 0), nil, dev))
	wantMessage(t, s.E(ctorch.FFT(c, ctorch.FFTLength(0))), ctorch.ErrArgument, "fft_fft", "Invalid number of data points (0) specified")
	wantMessage(t, s.E(ctorch.IFFT(c, ctorch.FFTLength(-3))), ctorch.ErrArgument, "fft_ifft", "Invalid number of data points (-3) specified")
	wantMessage(t, s.E(ctorch.RFFT(r, ctorch.FFTLength(0))), ctorch.ErrArgument, "fft_rfft", "Invalid number of data points (0) specified")
	wantMessage(t, s.E(ctorch.IRFFT(c, ctorch.FFTLength(0))), ctorch.ErrArgument, "fft_irfft", "Invalid number of data points (0) specified")
	wantMessage(t, s.E(ctorch.HFFT(c, ctorch.FFTLength(0))), ctorch.ErrArgument, "fft_hfft", "Invalid number of data points (0) specified")
	wantMessage(t, s.E(ctorch.FFTN(c, ctorch.FFTSizes(0))), ctorch.ErrArgument, "fft_fftn", "Invalid number of data points (0) specified")
	// irfft of a single value: the default length 2 * (1 - 1) = 0
	one := s.T(ctorch.FromSlice([]complex128{1}, nil, dev))
	wantMessage(t, s.E(ctorch.IRFFT(one)), ctorch.ErrArgument, "fft_irfft", "Invalid number of data points (0) specified")
	// dims out of range, repeated, s and dims of different lengths, s longer than the dims
	m := s.T(ctorch.FromSlice(csig(6, 0), []int64{2, 3}, dev))
	wantErr(t, s.E(ctorch.FFT(m, ctorch.FFTDim(2))), ctorch.ErrIndex)
	wantErr(t, s.E(ctorch.FFTN(m, ctorch.FFTDims(0, 5))), ctorch.ErrIndex)
	wantMessage(t, s.E(ctorch.FFTN(m, ctorch.FFTDims(1, -1))), ctorch.ErrArgument, "fft_fftn", "fftn: FFT dims must be unique")
	wantMessage(t, s.E(ctorch.FFTN(m, ctorch.FFTSizes(2, 3), ctorch.FFTDims(0))), ctorch.ErrArgument, "fft_fftn",
		"fftn: when given, dim and shape arguments must have the same length")
	wantMessage(t, s.E(ctorch.FFT2(m, ctorch.FFTSizes(2))), ctorch.ErrArgument, "fft_fft2",
		"fftn: when given, dim and shape arguments must have the same length")
	wantMessage(t, s.E(ctorch.IFFTN(m, ctorch.FFTSizes(1, 2, 3))), ctorch.ErrArgument, "fft_ifftn",
		"ifftn: got shape with 3 values but input tensor only has 2 dimensions.")
	// 1-D: there are no last two dims
	wantMessage(t, s.E(ctorch.FFT2(c)), ctorch.ErrIndex, "fft_fft2", "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
	// dims beyond int32 are refused by the Go layer, not truncated
	if math.MaxInt > math.MaxInt32 {
		big := int(int64(math.MaxInt32) + 1)
		wantMessage(t, s.E(ctorch.FFTN(m, ctorch.FFTDims(big))), ctorch.ErrIndex, "fft_fftn", "dimension 2147483648 out of range")
		wantMessage(t, s.E(ctorch.FFTShift(m, big)), ctorch.ErrIndex, "fft_fftshift", "dimension 2147483648 out of range")
	}
	// closed and nil tensors, in every function
	closed := s.T(ctorch.FromSlice(csig(4, 0), nil, dev))
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
	// nil options are ignored
	nearC(t, s.T(ctorch.FFT(c, nil)), 1e-12, dft(csig(4, 0), false))
	nearC(t, s.T(ctorch.FFTN(c, nil)), 1e-12, dft(csig(4, 0), false))
}

// Without a GPU every plan cache call fails with 301; indices beyond int32 are refused first.
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
	if cuda.IsAvailable() {
		t.Skip("a GPU is available: TestGPUFFT covers the plan cache")
	}
	for _, d := range []int{-1, 0, 1} {
		c := cuda.CUFFTPlanCache(d)
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
}

// On a GPU: the transforms on CUDA against the CPU, and the plan cache of device 0.
func TestGPUFFT(t *testing.T) {
	needGPUs(t, 1)
	s := newScope(t)
	lockThread(t)
	gpu := ctorch.CUDADevice(0)
	for _, c := range []struct {
		dt  ctorch.DType
		tol float64
	}{{ctorch.Complex64, 1e-4}, {ctorch.Complex128, 1e-10}} {
		for _, n := range []int{8, 7, 1000, 4096} {
			x := s.T(ctorch.FromSlice(csig(n, 0.3), nil, c.dt))
			cpu, err := s.T(ctorch.FFT(x)).Complex128s()
			noErr(t, err)
			gy := s.T(ctorch.FFT(s.T(x.To(gpu))))
			if gy.Device() != gpu {
				t.Errorf("result on %v, want %v", gy.Device(), gpu)
			}
			eqDType(t, gy, c.dt)
			// the brief's tolerance for the short signals; for the long ones relative to the
			// scale of the values (sqrt(n) for these signals)
			tol := c.tol
			if n > 8 {
				tol *= math.Sqrt(float64(n))
			}
			nearC(t, gy, tol, cpu)
		}
		// the hand-checked DFT on CUDA, fft2 and an rfft/irfft round trip
		x := csig(8, 0.3)
		xt := s.T(ctorch.FromSlice(x, nil, c.dt, gpu))
		nearC(t, s.T(ctorch.FFT(xt)), c.tol, dft(x, false))
		m := csig(12, 0.5)
		mt := s.T(ctorch.FromSlice(m, []int64{3, 4}, c.dt, gpu))
		nearC(t, s.T(ctorch.FFT2(mt)), c.tol, dftDims(m, []int{3, 4}, []int{1, 0}, false))
		rdt := ctorch.Float32
		if c.dt == ctorch.Complex128 {
			rdt = ctorch.Float64
		}
		r := rsig(10, 0.4)
		rt := s.T(ctorch.FromSlice(r, nil, rdt, gpu))
		nearF64(t, s.T(ctorch.IRFFT(s.T(ctorch.RFFT(rt)))), c.tol, r...)
	}

	// the plan cache of device 0
	pc := cuda.CUFFTPlanCache(0)
	size := func() int64 {
		t.Helper()
		n, err := pc.Size()
		noErr(t, err)
		return n
	}
	maxSize, err := pc.MaxSize()
	noErr(t, err)
	if maxSize != 4096 {
		t.Errorf("MaxSize() = %d, want PyTorch's default 4096", maxSize)
	}
	noErr(t, pc.Clear())
	if n := size(); n != 0 {
		t.Fatalf("Size() after Clear() = %d, want 0", n)
	}
	counts := func() (int64, int64) {
		t.Helper()
		h, err := pc.Hits()
		noErr(t, err)
		m, err := pc.Misses()
		noErr(t, err)
		return h, m
	}
	fftOf := func(n int64) {
		x := s.T(ctorch.Ones([]int64{n}, ctorch.Complex64, gpu))
		s.T(ctorch.FFT(x))
	}
	run := func() {
		for _, n := range []int64{16, 32, 64} {
			fftOf(n)
		}
	}
	h0, m0 := counts()
	run()
	if n := size(); n != 3 {
		t.Errorf("Size() after transforms of 3 sizes = %d, want 3", n)
	}
	run() // the same sizes again reuse the cached plans
	if n := size(); n != 3 {
		t.Errorf("Size() after repeating them = %d, want 3", n)
	}
	if h, m := counts(); h-h0 != 3 || m-m0 != 3 {
		t.Errorf("hits, misses over two rounds = %d, %d, want 3, 3", h-h0, m-m0)
	}
	// the current device's cache is the same one
	cur, err := cuda.CUFFTPlanCache(-1).Size()
	noErr(t, err)
	if currentDevice(t) == 0 && cur != 3 {
		t.Errorf("CUFFTPlanCache(-1).Size() = %d, want 3", cur)
	}
	noErr(t, pc.SetMaxSize(2))
	if n := size(); n != 2 {
		t.Errorf("Size() after SetMaxSize(2) = %d, want 2", n)
	}
	if m, err := pc.MaxSize(); err != nil || m != 2 {
		t.Errorf("MaxSize() = %d, %v, want 2", m, err)
	}
	// LRU order was 64 32 16, so 16 was evicted and 64 kept
	for _, n := range []int64{64, 16} {
		h0, m0 := counts()
		fftOf(n)
		h, m := counts()
		wantHit := n == 64
		if (h-h0 == 1) != wantHit || (m-m0 == 1) == wantHit {
			t.Errorf("FFT of %d after SetMaxSize(2): hits +%d, misses +%d, want a hit: %v", n, h-h0, m-m0, wantHit)
		}
	}
	wantErr(t, pc.SetMaxSize(-1), ctorch.ErrArgument)
	wantErr(t, pc.SetMaxBytes(-1), ctorch.ErrArgument)
	noErr(t, pc.SetMaxSize(4096))
	if m, err := pc.MaxSize(); err != nil || m != 4096 {
		t.Errorf("MaxSize() after restoring = %d, %v, want 4096", m, err)
	}
	mb, err := pc.MaxBytes()
	noErr(t, err)
	if mb != 0 {
		t.Errorf("MaxBytes() = %d, want the default 0 (no bound)", mb)
	}
	b, err := pc.Bytes()
	noErr(t, err)
	if b < 0 {
		t.Errorf("Bytes() = %d", b)
	}
	noErr(t, pc.Clear())
	if b, err := pc.Bytes(); err != nil || b != 0 {
		t.Errorf("Bytes() after Clear() = %d, %v, want 0", b, err)
	}
	// a device index that is not a device
	_, err = cuda.CUFFTPlanCache(cuda.DeviceCount()).Size()
	wantErr(t, err, ctorch.ErrIndex)
}
