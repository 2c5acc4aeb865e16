package ctorch_test

// Scans through the binding: each method once with its dim and DType option reaching C, the
// two-result forms, and errors mapped to their sentinels with PyTorch's messages. Values, dtype
// rules, layouts and edge cases are the C suite's (tests/capi/scan_test.c).

import (
	"math"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
)

func TestScans(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	eqF64(t, s.T(x.Cumsum(1)), 1, 3, 6, 4, 9, 15)
	r := s.T(x.Cumsum(-2, ctorch.Float64)) // the DType option reaches C
	eqDType(t, r, ctorch.Float64)
	eqF64(t, r, 1, 2, 3, 5, 7, 9)
	eqF64(t, s.T(x.Cumprod(1)), 1, 2, 6, 4, 20, 120)
	eqDType(t, s.T(x.Cumprod(0, ctorch.Int32)), ctorch.Int32)
	i := s.T(ctorch.FromSlice([]int32{5, -2, 7}, []int64{3}, dev))
	eqDType(t, s.T(i.Cumsum(0)), ctorch.Int64) // integers give int64

	m := s.T(ctorch.FromSlice([]float64{1, 3, 3, math.NaN(), 0}, []int64{5}, dev))
	vals, idx, err := m.Cummax(0)
	noErr(t, err)
	s.keep(vals, idx)
	eqI64(t, idx, 0, 1, 2, 3, 3)
	eqDType(t, idx, ctorch.Int64)
	vals, idx, err = m.Cummin(-1)
	noErr(t, err)
	s.keep(vals, idx)
	eqI64(t, idx, 0, 0, 0, 3, 3)

	l := s.T(ctorch.FromSlice([]float64{0, 0}, []int64{2}, dev))
	nearF64(t, s.T(l.Logcumsumexp(0)), 1e-12, 0, math.Ln2)

	e := wantErr(t, s.E(x.Cumsum(5)), ctorch.ErrIndex)
	if !strings.Contains(e.Message, "Dimension out of range (expected to be in range of [-2, 1], but got 5)") {
		t.Errorf("message %q", e.Message)
	}
	e = wantErr(t, s.E(i.Logcumsumexp(0)), ctorch.ErrDType)
	if !strings.Contains(e.Message, "not implemented for 'Int'") {
		t.Errorf("message %q", e.Message)
	}
	wantErr(t, s.E(x.Cumprod(0, ctorch.Bool)), ctorch.ErrDType)
	c := s.T(x.To(dev, ctorch.Complex64))
	_, _, err = c.Cummin(0)
	wantErr(t, err, ctorch.ErrDType)
	_, _, err = x.Cummax(1 << 40) // refused by the Go layer (checkDim), with the same sentinel
	wantErr(t, err, ctorch.ErrIndex)
	_, _, err = (*ctorch.Tensor)(nil).Cummax(0)
	wantErr(t, err, ctorch.ErrInvalidHandle)
	wantErr(t, s.E((*ctorch.Tensor)(nil).Cumsum(0)), ctorch.ErrInvalidHandle)
}
