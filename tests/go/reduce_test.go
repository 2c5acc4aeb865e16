package ctorch_test

import (
	"math"
	"testing"

	"ctorch.dev/ctorch"
)

func TestReductions(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))

	sum := s.T(x.Sum())
	eqShape(t, sum)
	eqDType(t, sum, ctorch.Float32)
	eqF64(t, sum, 21)
	r := s.T(x.SumDims([]int{0}, false))
	eqShape(t, r, 3)
	eqF64(t, r, 5, 7, 9)
	r = s.T(x.SumDims([]int{1}, true))
	eqShape(t, r, 2, 1)
	eqF64(t, r, 6, 15)
	r = s.T(x.SumDims([]int{-1, 0}, true))
	eqShape(t, r, 1, 1)
	eqF64(t, r, 21)
	r = s.T(x.Sum(ctorch.Float64))
	eqDType(t, r, ctorch.Float64)
	eqF64(t, r, 21)

	eqF64(t, s.T(x.Mean()), 3.5)
	r = s.T(x.MeanDims([]int{0}, true))
	eqShape(t, r, 1, 3)
	eqF64(t, r, 2.5, 3.5, 4.5)
	eqF64(t, s.T(x.Prod()), 720)
	eqF64(t, s.T(x.ProdDims([]int{1}, false)), 6, 120)
	r = s.T(x.Amax([]int{1}, false))
	eqF64(t, r, 3, 6)
	r = s.T(x.Amin([]int{0}, true))
	eqShape(t, r, 1, 3)
	eqF64(t, r, 1, 2, 3)
	eqF64(t, s.T(x.Amax(nil, false)), 6)
	eqF64(t, s.T(x.Reduce(ctorch.ReduceAmin, nil, false, ctorch.Undefined)), 1)

	mx := s.T(x.Max())
	eqShape(t, mx)
	eqF64(t, mx, 6)
	eqF64(t, s.T(x.Min()), 1)
	vals, idx, err := x.MaxDim(1, false)
	noErr(t, err)
	s.keep(vals, idx)
	eqF64(t, vals, 3, 6)
	eqDType(t, idx, ctorch.Int64)
	eqI64(t, idx, 2, 2)
	vals, idx, err = x.MinDim(0, true)
	noErr(t, err)
	s.keep(vals, idx)
	eqShape(t, vals, 1, 3)
	eqF64(t, vals, 1, 2, 3)
	eqI64(t, idx, 0, 0, 0)

	am := s.T(x.ArgMax())
	eqShape(t, am)
	eqI64(t, am, 5)
	eqI64(t, s.T(x.ArgMin()), 0)
	eqI64(t, s.T(x.ArgMaxDim(0, false)), 1, 1, 1)
	r = s.T(x.ArgMinDim(1, true))
	eqShape(t, r, 2, 1)
	eqI64(t, r, 0, 0)
	// first occurrence
	ties := s.T(ctorch.FromSlice([]int32{3, 7, 7, 1, 1}, nil, dev))
	eqI64(t, s.T(ties.ArgMax()), 1)
	eqI64(t, s.T(ties.ArgMin()), 3)

	nearF64(t, s.T(x.Norm(2, nil, false)), 1e-5, math.Sqrt(91))
	eqF64(t, s.T(x.Norm(1, nil, false)), 21)
	eqF64(t, s.T(x.Norm(math.Inf(1), nil, false)), 6)
	eqF64(t, s.T(x.Norm(math.Inf(-1), nil, false)), 1)
	r = s.T(x.Norm(2, []int{1}, true))
	eqShape(t, r, 2, 1)
	nearF64(t, r, 1e-5, math.Sqrt(14), math.Sqrt(77))
	c := s.T(ctorch.FromSlice([]complex64{3 + 4i}, nil, dev))
	cn := s.T(c.Norm(2, nil, false))
	eqDType(t, cn, ctorch.Float32)
	eqF64(t, cn, 5)

	// Integer and bool inputs: sum and prod accumulate in int64.
	i := s.T(ctorch.FromSlice([]int32{1, 2, 3, 4}, []int64{2, 2}, dev))
	r = s.T(i.Sum())
	eqDType(t, r, ctorch.Int64)
	eqI64(t, r, 10)
	r = s.T(i.ProdDims([]int{0}, false))
	eqDType(t, r, ctorch.Int64)
	eqI64(t, r, 3, 8)
	r = s.T(i.Amax(nil, false))
	eqDType(t, r, ctorch.Int32)
	b := s.T(ctorch.FromSlice([]bool{true, false, true}, nil, dev))
	r = s.T(b.Sum())
	eqDType(t, r, ctorch.Int64)
	eqI64(t, r, 2)
	r = s.T(i.Mean(ctorch.Float32)) // mean with a floating dtype is allowed
	eqF64(t, r, 2.5)

	// Errors.
	_, err = x.SumDims([]int{2}, false)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = x.SumDims([]int{0, -2}, false)
	wantErr(t, err, ctorch.ErrArgument) // repeated dim
	_, err = i.Mean()
	wantErr(t, err, ctorch.ErrDType)
	_, err = i.Norm(2, nil, false)
	wantErr(t, err, ctorch.ErrDType)
	_, _, err = x.MaxDim(5, false)
	wantErr(t, err, ctorch.ErrIndex)
	empty := s.T(ctorch.Zeros([]int64{0}, dev))
	_, err = empty.Max()
	wantErr(t, err, ctorch.ErrShape)
}

func TestCatStack(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	a := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4}, []int64{2, 2}, dev))
	b := s.T(ctorch.FromSlice([]float32{5, 6}, []int64{1, 2}, dev))
	c := s.T(ctorch.Cat([]*ctorch.Tensor{a, b}, 0))
	eqShape(t, c, 3, 2)
	eqF64(t, c, 1, 2, 3, 4, 5, 6)
	bt := s.T(b.Transpose(0, 1)) // (2,1)
	c = s.T(ctorch.Cat([]*ctorch.Tensor{a, bt}, -1))
	eqShape(t, c, 2, 3)
	eqF64(t, c, 1, 2, 5, 3, 4, 6)
	// dtypes promote; (0,) empties are skipped
	i := s.T(ctorch.FromSlice([]int64{7, 8}, []int64{1, 2}, dev))
	e := s.T(ctorch.Zeros([]int64{0}, dev))
	c = s.T(ctorch.Cat([]*ctorch.Tensor{i, e, b}, 0))
	eqDType(t, c, ctorch.Float32)
	eqF64(t, c, 7, 8, 5, 6)
	c = s.T(ctorch.Cat([]*ctorch.Tensor{a}, 1))
	eqF64(t, c, 1, 2, 3, 4)
	shares(t, c, a, false)

	st := s.T(ctorch.Stack([]*ctorch.Tensor{a, a}, 0))
	eqShape(t, st, 2, 2, 2)
	eqF64(t, st, 1, 2, 3, 4, 1, 2, 3, 4)
	st = s.T(ctorch.Stack([]*ctorch.Tensor{a, a}, 2))
	eqShape(t, st, 2, 2, 2)
	eqF64(t, st, 1, 1, 2, 2, 3, 3, 4, 4)
	v1 := s.T(ctorch.FromSlice([]int32{1, 2}, nil, dev))
	v2 := s.T(ctorch.FromSlice([]int32{3, 4}, nil, dev))
	st = s.T(ctorch.Stack([]*ctorch.Tensor{v1, v2}, 1))
	eqShape(t, st, 2, 2)
	eqDType(t, st, ctorch.Int32)
	eqI64(t, st, 1, 3, 2, 4)

	_, err := ctorch.Cat([]*ctorch.Tensor{a, b}, 1) // sizes differ in dim 0
	wantErr(t, err, ctorch.ErrShape)
	_, err = ctorch.Stack([]*ctorch.Tensor{a, b}, 0)
	wantErr(t, err, ctorch.ErrShape)
	_, err = ctorch.Cat(nil, 0)
	wantErr(t, err, ctorch.ErrArgument)
	_, err = ctorch.Stack([]*ctorch.Tensor{a, a}, 4)
	wantErr(t, err, ctorch.ErrIndex)
}

func TestItemAndCopyOut(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
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
