package ctorch_test

// Reductions and cat/stack through the binding: each called once with its dims slice, keepdim
// bool and dtype option reaching C, the two-result forms, and error mapping. Values, dtype
// rules and the reductions' edge cases are the C suite's (tests/capi/layout_test.c).

import (
	"math"
	"testing"

	"ctorch.dev/ctorch"
)

func TestReductions(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	sum := s.T(x.Sum())
	eqShape(t, sum)
	eqF64(t, sum, 21)
	eqDType(t, s.T(x.Sum(ctorch.Float64)), ctorch.Float64)
	r := s.T(x.SumDims([]int{-1, 0}, true))
	eqShape(t, r, 1, 1)
	eqF64(t, r, 21)
	eqF64(t, s.T(x.SumDims([]int{0}, false)), 5, 7, 9)
	eqF64(t, s.T(x.Mean()), 3.5)
	eqDType(t, s.T(x.Mean(ctorch.Float64)), ctorch.Float64)
	eqShape(t, s.T(x.MeanDims([]int{0}, true, ctorch.Float64)), 1, 3)
	eqF64(t, s.T(x.Prod()), 720)
	eqF64(t, s.T(x.ProdDims([]int{1}, false, ctorch.Float64)), 6, 120)
	eqF64(t, s.T(x.Amax([]int{1}, false)), 3, 6)
	eqShape(t, s.T(x.Amin([]int{0}, true)), 1, 3)
	eqF64(t, s.T(x.Amax(nil, false)), 6) // nil: all dims
	eqF64(t, s.T(x.Reduce(ctorch.ReduceAmin, nil, false, ctorch.Undefined)), 1)
	eqF64(t, s.T(x.Max()), 6)
	eqF64(t, s.T(x.Min()), 1)
	vals, idx, err := x.MaxDim(1, false)
	noErr(t, err)
	s.keep(vals, idx)
	eqF64(t, vals, 3, 6)
	eqI64(t, idx, 2, 2)
	vals, idx, err = x.MinDim(0, true)
	noErr(t, err)
	s.keep(vals, idx)
	eqShape(t, idx, 1, 3)
	eqI64(t, s.T(x.ArgMax()), 5)
	eqI64(t, s.T(x.ArgMin()), 0)
	eqI64(t, s.T(x.ArgMaxDim(0, false)), 1, 1, 1)
	eqShape(t, s.T(x.ArgMinDim(1, true)), 2, 1)
	eqF64(t, s.T(x.Norm(math.Inf(1), nil, false)), 6)
	nearF64(t, s.T(x.Norm(2, []int{1}, true)), 1e-5, math.Sqrt(14), math.Sqrt(77))
	if ctorch.ReduceAmin.String() == "" {
		t.Error("ReduceOp has no name")
	}

	wantErr(t, s.E(x.SumDims([]int{2}, false)), ctorch.ErrIndex)
	wantErr(t, s.E(x.SumDims([]int{1 << 40}, false)), ctorch.ErrIndex) // refused by the Go layer
	_, _, err = x.MaxDim(5, false)
	wantErr(t, err, ctorch.ErrIndex)
	_, _, err = (*ctorch.Tensor)(nil).MinDim(0, false)
	wantErr(t, err, ctorch.ErrInvalidHandle)
}

func TestCatStack(t *testing.T) {
	s, dev := setup(t)
	a := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4}, []int64{2, 2}, dev))
	b := s.T(ctorch.FromSlice([]float32{5, 6}, []int64{1, 2}, dev))
	c := s.T(ctorch.Cat([]*ctorch.Tensor{a, b}, 0))
	eqShape(t, c, 3, 2)
	eqF64(t, c, 1, 2, 3, 4, 5, 6)
	st := s.T(ctorch.Stack([]*ctorch.Tensor{a, a}, 2))
	eqShape(t, st, 2, 2, 2)
	eqF64(t, st, 1, 1, 2, 2, 3, 3, 4, 4)
	wantErr(t, s.E(ctorch.Cat([]*ctorch.Tensor{a, b}, 1)), ctorch.ErrShape)
	wantErr(t, s.E(ctorch.Cat(nil, 0)), ctorch.ErrArgument)
	wantErr(t, s.E(ctorch.Stack([]*ctorch.Tensor{a, nil}, 0)), ctorch.ErrInvalidHandle)
}

func TestItemAndCopyOut(t *testing.T) {
	s, dev := setup(t)
	f := s.T(ctorch.Scalar(float32(-2.75), dev))
	if v, err := f.Item(); err != nil || v != -2.75 {
		t.Errorf("Item = %v, %v", v, err)
	}
	if v, err := f.ItemInt64(); err != nil || v != -2 {
		t.Errorf("ItemInt64 = %v, %v (want truncation toward zero)", v, err)
	}
	if v, err := f.ItemComplex(); err != nil || v != complex(-2.75, 0) {
		t.Errorf("ItemComplex = %v, %v", v, err)
	}
	c := s.T(ctorch.FromSlice([]complex128{1.5 - 2i}, []int64{1, 1}, dev))
	if v, err := c.ItemComplex(); err != nil || v != 1.5-2i {
		t.Errorf("ItemComplex = %v, %v", v, err)
	}
	if v, err := c.Item(); err != nil || v != 1.5 {
		t.Errorf("Item of complex = %v, %v (want the real part)", v, err)
	}
	b := s.T(ctorch.Scalar(true, dev))
	if v, err := b.Item(); err != nil || v != 1 {
		t.Errorf("Item of bool = %v, %v", v, err)
	}
	if v, err := b.ItemBool(); err != nil || !v {
		t.Errorf("ItemBool = %v, %v", v, err)
	}
	big := s.T(ctorch.FromSlice([]int64{1 << 60}, nil, dev))
	if v, err := big.ItemInt64(); err != nil || v != 1<<60 {
		t.Errorf("ItemInt64 = %v, %v", v, err)
	}
	two := s.T(ctorch.Zeros([]int64{2}, dev))
	_, err := two.Item()
	wantErr(t, err, ctorch.ErrShape)

	// CopyTo into caller slices, converting like ToSlice.
	x := s.T(ctorch.FromSlice([]float64{1.5, -2.5, 3}, nil, dev))
	f32 := make([]float32, 3)
	noErr(t, x.CopyTo(f32))
	if f32[0] != 1.5 || f32[1] != -2.5 || f32[2] != 3 {
		t.Errorf("CopyTo []float32 = %v", f32)
	}
	i16 := make([]int16, 3)
	noErr(t, x.CopyTo(i16))
	if i16[0] != 1 || i16[1] != -2 || i16[2] != 3 {
		t.Errorf("CopyTo []int16 = %v", i16)
	}
	bs := make([]bool, 3)
	noErr(t, x.CopyTo(bs))
	if !bs[0] || !bs[1] || !bs[2] {
		t.Errorf("CopyTo []bool = %v", bs)
	}
	wantErr(t, x.CopyTo(make([]float64, 2)), ctorch.ErrBufferSize)
	wantErr(t, x.CopyTo(make([]float64, 4)), ctorch.ErrBufferSize)
	wantErr(t, x.CopyTo(make([]string, 3)), ctorch.ErrArgument)
	generic, err := ctorch.ToSlice[int64](x)
	noErr(t, err)
	if len(generic) != 3 || generic[0] != 1 || generic[1] != -2 {
		t.Errorf("ToSlice[int64] = %v", generic)
	}
	raw, err := x.Bytes()
	noErr(t, err)
	if len(raw) != 24 {
		t.Errorf("Bytes() has %d bytes, want 24", len(raw))
	}
	// A non-contiguous view copies out in logical (row-major) order.
	m := s.T(ctorch.FromSlice([]int32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	eqI64(t, s.T(m.Transpose(0, 1)), 1, 4, 2, 5, 3, 6)
}
