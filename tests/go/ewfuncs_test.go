package ctorch_test

// Elementwise functions (section 31, and the generated Isnan/Isinf/Isfinite/Erf/Silu) through
// the binding: each method once with its arguments reaching C (approximate strings, optional
// bounds and replacements, scalar sides and kinds of where, the allclose bool), and error
// mapping (nil and closed tensors refused). Values, dtype rules and PyTorch's messages are the C
// suite's (tests/capi/ewfuncs_test.c).

import (
	"math"
	"testing"

	"ctorch.dev/ctorch"
)

func TestElementwiseFunctions(t *testing.T) {
	s, dev := setup(t)
	nan, inf := math.NaN(), math.Inf(1)
	x := s.T(ctorch.FromSlice([]float64{nan, inf, -inf, -1, 0.5}, []int64{5}, dev))
	eqDType(t, s.T(x.Isnan()), ctorch.Bool)
	eqF64(t, s.T(x.Isnan()), 1, 0, 0, 0, 0)
	eqF64(t, s.T(x.Isinf()), 0, 1, 1, 0, 0)
	eqF64(t, s.T(x.Isfinite()), 0, 0, 0, 1, 1)
	y := s.T(ctorch.FromSlice([]float64{-1, 0, 0.5}, []int64{3}, dev))
	nearF64(t, s.T(y.Erf()), 1e-12, math.Erf(-1), 0, math.Erf(0.5))
	silu := func(v float64) float64 { return v / (1 + math.Exp(-v)) }
	nearF64(t, s.T(y.Silu()), 1e-12, silu(-1), 0, silu(0.5))
	gelu := func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) }
	geluTanh := func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	}
	nearF64(t, s.T(y.Gelu("none")), 1e-12, gelu(-1), 0, gelu(0.5))
	nearF64(t, s.T(y.Gelu("tanh")), 1e-12, geluTanh(-1), 0, geluTanh(0.5))
	eqF64(t, s.T(x.NanToNum(ctorch.NoBound, ctorch.NoBound, ctorch.NoBound)), 0, math.MaxFloat64, -math.MaxFloat64, -1, 0.5)
	eqF64(t, s.T(x.NanToNum(7, 8, ctorch.NoBound)), 7, 8, -math.MaxFloat64, -1, 0.5)

	lo := s.T(ctorch.FromSlice([]float64{0, 0, 0}, []int64{3}, dev))
	hi := s.T(ctorch.FromSlice([]float64{0.25, 0.25, 0.25}, []int64{3}, dev))
	eqF64(t, s.T(y.ClampTensor(lo, hi)), 0, 0, 0.25)
	eqF64(t, s.T(y.ClampTensor(lo, nil)), 0, 0, 0.5)
	eqF64(t, s.T(y.ClampTensor(nil, hi)), -1, 0, 0.25)

	end := s.T(ctorch.FromSlice([]float64{1, 2, 3}, []int64{3}, dev))
	eqF64(t, s.T(y.Lerp(end, hi)), -0.5, 0.5, 1.125)
	eqF64(t, s.T(y.LerpScalar(end, 1)), 1, 2, 3)
	eqF64(t, s.T(y.Addcmul(end, end, 2)), 1, 8, 18.5)
	eqF64(t, s.T(y.Addcdiv(end, hi, 0.5)), 1, 4, 6.5)

	cond := s.T(ctorch.FromSlice([]bool{true, false, true}, []int64{3}, dev))
	xi := s.T(ctorch.FromSlice([]int32{5, 6, 7}, []int64{3}, dev))
	r := s.T(ctorch.WhereTensorInt(cond, xi, -1))
	eqDType(t, r, ctorch.Int32)
	eqI64(t, r, 5, -1, 7)
	eqI64(t, s.T(ctorch.WhereIntTensor(cond, -1, xi)), -1, 6, -1)
	r = s.T(ctorch.WhereTensorScalar(cond, xi, 2.5))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 5, 2.5, 7)
	eqF64(t, s.T(ctorch.WhereScalarTensor(cond, 2.5, xi)), 2.5, 6, 2.5)
	r = s.T(ctorch.WhereScalars(cond, 1, 0.5))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 1, 0.5, 1)
	r = s.T(ctorch.WhereInts(cond, 3, 4))
	eqDType(t, r, ctorch.Int64)
	eqI64(t, r, 3, 4, 3)

	other := s.T(ctorch.FromSlice([]float64{nan, inf, -inf, -1.001, 0.5}, []int64{5}, dev))
	eqF64(t, s.T(x.IsClose(other, 1e-5, 1e-8, false)), 0, 1, 1, 0, 1)
	eqF64(t, s.T(x.IsClose(other, 0.01, 0, true)), 1, 1, 1, 1, 1)
	all, err := x.AllClose(other, 0.01, 0, true)
	noErr(t, err)
	if !all {
		t.Errorf("AllClose(equal_nan) = false, want true")
	}
	all, err = x.AllClose(other, 0.01, 0, false)
	noErr(t, err)
	if all {
		t.Errorf("AllClose = true, want false")
	}

	// errors: the C library's codes and messages, nil and closed tensors
	i := s.T(ctorch.FromSlice([]int64{1, 2}, []int64{2}, dev))
	wantMessage(t, s.E(y.Gelu("erf")), ctorch.ErrArgument, "gelu", "approximate argument must be either none or tanh.")
	wantMessage(t, s.E(i.Silu()), ctorch.ErrDType, "silu", `"silu" not implemented for 'Long'`)
	wantMessage(t, s.E(y.ClampTensor(nil, nil)), ctorch.ErrArgument, "clamp", "torch.clamp: At least one of")
	wantMessage(t, s.E(y.Addcdiv(i, i, 1)), ctorch.ErrDType, "addcdiv", "Integer division with addcdiv")
	wantErr(t, s.E(ctorch.WhereTensorScalar(xi, xi, 1)), ctorch.ErrDType)
	wantMessage(t, s.E(y.IsClose(i, 0, 0, false)), ctorch.ErrDType, "isclose", "Double did not match Long")
	_, err = y.AllClose(y, -1, 0, false)
	wantErr(t, err, ctorch.ErrArgument)
	closed := s.T(ctorch.FromSlice([]float64{1, 2, 3}, []int64{3}, dev))
	noErr(t, closed.Close())
	var nilT *ctorch.Tensor
	for name, f := range map[string]func() (*ctorch.Tensor, error){
		"closed.Gelu":           func() (*ctorch.Tensor, error) { return closed.Gelu("none") },
		"nil.NanToNum":          func() (*ctorch.Tensor, error) { return nilT.NanToNum(0, 0, 0) },
		"ClampTensor(closed)":   func() (*ctorch.Tensor, error) { return y.ClampTensor(closed, nil) },
		"ClampTensor(, closed)": func() (*ctorch.Tensor, error) { return y.ClampTensor(nil, closed) },
		"closed.Lerp":           func() (*ctorch.Tensor, error) { return closed.Lerp(end, hi) },
		"Lerp(nil weight)":      func() (*ctorch.Tensor, error) { return y.Lerp(end, nilT) },
		"LerpScalar(closed)":    func() (*ctorch.Tensor, error) { return y.LerpScalar(closed, 0.5) },
		"Addcmul(closed)":       func() (*ctorch.Tensor, error) { return y.Addcmul(end, closed, 1) },
		"nil.Addcdiv":           func() (*ctorch.Tensor, error) { return nilT.Addcdiv(end, end, 1) },
		"Where(closed cond)":    func() (*ctorch.Tensor, error) { return ctorch.WhereTensorScalar(closed, y, 1) },
		"WhereIntTensor(nil)":   func() (*ctorch.Tensor, error) { return ctorch.WhereIntTensor(cond, 1, nilT) },
		"WhereScalars(closed)":  func() (*ctorch.Tensor, error) { return ctorch.WhereScalars(closed, 1, 2) },
		"WhereInts(nil)":        func() (*ctorch.Tensor, error) { return ctorch.WhereInts(nilT, 1, 2) },
		"IsClose(closed)":       func() (*ctorch.Tensor, error) { return y.IsClose(closed, 0, 0, false) },
	} {
		if err := s.E(f()); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			wantErr(t, err, ctorch.ErrInvalidHandle)
		}
	}
	_, err = closed.AllClose(y, 0, 0, false)
	wantErr(t, err, ctorch.ErrInvalidHandle)
}
