package ctorch_test

import (
	"math"
	"testing"

	"ctorch.dev/ctorch"
)

func TestTypePromotion(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	i32 := s.T(ctorch.FromSlice([]int32{1, 2, 3}, nil, dev))

	// int32 tensor + 2.5 (Python float) -> float32
	r := s.T(i32.AddScalar(2.5))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 3.5, 4.5, 5.5)
	// int32 tensor + 2 (Python int) stays int32
	r = s.T(i32.AddInt(2))
	eqDType(t, r, ctorch.Int32)
	eqI64(t, r, 3, 4, 5)
	// int32 tensor + int64 tensor -> int64
	i64 := s.T(ctorch.FromSlice([]int64{10, 20, 30}, nil, dev))
	r = s.T(i32.Add(i64))
	eqDType(t, r, ctorch.Int64)
	eqI64(t, r, 11, 22, 33)
	// uint8 + int8 -> int16
	u8 := s.T(ctorch.FromSlice([]uint8{200, 1}, nil, dev))
	i8 := s.T(ctorch.FromSlice([]int8{100, -2}, nil, dev))
	r = s.T(u8.Add(i8))
	eqDType(t, r, ctorch.Int16)
	eqI64(t, r, 300, -1)
	// bool + bool -> bool (logical or)
	b1 := s.T(ctorch.FromSlice([]bool{true, true, false, false}, nil, dev))
	b2 := s.T(ctorch.FromSlice([]bool{true, false, true, false}, nil, dev))
	r = s.T(b1.Add(b2))
	eqDType(t, r, ctorch.Bool)
	eqBool(t, r, true, true, true, false)
	r = s.T(b1.Mul(b2))
	eqDType(t, r, ctorch.Bool)
	eqBool(t, r, true, false, false, false)
	// float16 tensor + 2.5 stays float16
	h := s.T(ctorch.FromSlice([]float32{1, 2}, nil, ctorch.Float16, dev))
	r = s.T(h.AddScalar(2.5))
	eqDType(t, r, ctorch.Float16)
	eqF64(t, r, 3.5, 4.5)
	// int tensor / int tensor -> float32 (true division)
	two := s.T(ctorch.FromSlice([]int32{2, 2, 2}, nil, dev))
	r = s.T(i32.Div(two))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 0.5, 1, 1.5)
	r = s.T(i32.DivInt(4))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 0.25, 0.5, 0.75)
	// 0-dim float64 tensor + float32 tensor -> float32 (dimensioned tensors win the category tie)
	z64 := s.T(ctorch.Scalar(0.5, dev))
	f32 := s.T(ctorch.FromSlice([]float32{1, 2}, nil, dev))
	r = s.T(z64.Add(f32))
	eqDType(t, r, ctorch.Float32)
	eqShape(t, r, 2)
	eqF64(t, r, 1.5, 2.5)
	// ...but a 0-dim tensor of a higher category (float64 vs int64) gives its own dtype
	r = s.T(z64.Add(i64))
	eqDType(t, r, ctorch.Float64)
	eqF64(t, r, 10.5, 20.5, 30.5)
	// int64 * float32 tensor -> float32
	r = s.T(i64.Mul(s.T(f32.Narrow(0, 0, 1))))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 10, 20, 30)
	// comparison -> bool
	r = s.T(i32.GtInt(1))
	eqDType(t, r, ctorch.Bool)
	eqBool(t, r, false, true, true)
}

func TestBroadcasting(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	a := s.T(ctorch.FromSlice([]float32{0, 10, 20}, []int64{3, 1}, dev))
	b := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4}, nil, dev))
	r := s.T(a.Add(b))
	eqShape(t, r, 3, 4)
	eqF64(t, r, 1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24)
	r = s.T(b.Sub(a)) // (4,) - (3,1)
	eqShape(t, r, 3, 4)
	eqF64(t, r, 1, 2, 3, 4, -9, -8, -7, -6, -19, -18, -17, -16)
	r = s.T(a.Add(s.T(ctorch.Ones([]int64{2}, dev)))) // (3,1) + (2,) -> (3,2)
	eqShape(t, r, 3, 2)
	eqF64(t, r, 1, 1, 11, 11, 21, 21)
}

func TestBinaryOps(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	a := s.T(ctorch.FromSlice([]float64{-3, -1.5, 2, 7}, nil, dev))
	b := s.T(ctorch.FromSlice([]float64{2, 2, 4, -2}, nil, dev))

	eqF64(t, s.T(a.Add(b)), -1, 0.5, 6, 5)
	eqF64(t, s.T(a.Sub(b)), -5, -3.5, -2, 9)
	eqF64(t, s.T(a.Mul(b)), -6, -3, 8, -14)
	eqF64(t, s.T(a.Div(b)), -1.5, -0.75, 0.5, -3.5)
	nearF64(t, s.T(a.Pow(b)), 1e-15, 9, 2.25, 16, 1.0/49)
	eqF64(t, s.T(a.Maximum(b)), 2, 2, 4, 7)
	eqF64(t, s.T(a.Minimum(b)), -3, -1.5, 2, -2)
	eqF64(t, s.T(a.FloorDivide(b)), -2, -1, 0, -4)
	eqF64(t, s.T(a.Remainder(b)), 1, 0.5, 2, -1) // sign of the divisor
	eqBool(t, s.T(a.Eq(b)), false, false, false, false)
	eqBool(t, s.T(a.Ne(b)), true, true, true, true)
	eqBool(t, s.T(a.Lt(b)), true, true, true, false)
	eqBool(t, s.T(a.Le(b)), true, true, true, false)
	eqBool(t, s.T(a.Gt(b)), false, false, false, true)
	eqBool(t, s.T(a.Ge(b)), false, false, false, true)

	p := s.T(ctorch.FromSlice([]bool{true, true, false, false}, nil, dev))
	q := s.T(ctorch.FromSlice([]bool{true, false, true, false}, nil, dev))
	eqBool(t, s.T(p.LogicalAnd(q)), true, false, false, false)
	eqBool(t, s.T(p.LogicalOr(q)), true, true, true, false)
	eqBool(t, s.T(p.LogicalXor(q)), false, true, true, false)
	eqBool(t, s.T(a.LogicalAnd(b)), true, true, true, true) // non-zero is true

	// Scalars, both kinds, and the reverse forms (2 - t, 1 / t, ...).
	eqF64(t, s.T(a.SubScalar(0.5)), -3.5, -2, 1.5, 6.5)
	eqF64(t, s.T(a.RSubScalar(0.5)), 3.5, 2, -1.5, -6.5)
	eqF64(t, s.T(a.MulInt(3)), -9, -4.5, 6, 21)
	eqF64(t, s.T(b.RDivScalar(1)), 0.5, 0.5, 0.25, -0.5)
	eqF64(t, s.T(b.RPowScalar(2)), 4, 4, 16, 0.25)
	eqF64(t, s.T(b.PowInt(2)), 4, 4, 16, 4)
	eqF64(t, s.T(a.MaximumScalar(0)), 0, 0, 2, 7)
	eqF64(t, s.T(a.MinimumInt(0)), -3, -1.5, 0, 0)
	eqBool(t, s.T(a.EqScalar(2)), false, false, true, false)
	eqBool(t, s.T(a.LeInt(-1)), true, true, false, false)

	i := s.T(ctorch.FromSlice([]int64{7, -7, 9}, nil, dev))
	eqI64(t, s.T(i.RSubInt(2)), -5, 9, -7)
	eqI64(t, s.T(i.FloorDivideInt(2)), 3, -4, 4)
	eqI64(t, s.T(i.RemainderInt(4)), 3, 1, 1)
	eqI64(t, s.T(i.RFloorDivideInt(20)), 2, -3, 2)
	eqI64(t, s.T(i.RRemainderInt(20)), 6, -1, 2)
	eqI64(t, s.T(i.PowInt(2)), 49, 49, 81)
	r := s.T(i.RDivInt(14))
	eqDType(t, r, ctorch.Float32)
	nearF64(t, r, 1e-6, 2, -2, 14.0/9.0)
	nearF64(t, s.T(i.RRemainderScalar(2.5)), 1e-6, 2.5, -4.5, 2.5)
	nearF64(t, s.T(i.RFloorDivideScalar(2.5)), 0, 0, -1, 0)
	i2 := s.T(ctorch.FromSlice([]int64{7, 0, 9}, nil, dev))
	eqI64(t, s.T(i2.RPowInt(2)), 128, 1, 512)
	eqI64(t, s.T(s.T(i.MaximumInt(0)).MinimumInt(8)), 7, 0, 8)

	// Generic forms.
	eqF64(t, s.T(a.Binary(ctorch.OpAdd, b)), -1, 0.5, 6, 5)
	eqF64(t, s.T(a.BinaryScalar(ctorch.OpSub, 1, true)), 4, 2.5, -1, -6)
	eqF64(t, s.T(a.BinaryInt(ctorch.OpMul, 2, false)), -6, -3, 4, 14)
	if ctorch.OpRemainder.String() != "remainder" || ctorch.OpSquare.String() != "square" {
		t.Error("op names")
	}
}

func TestUnaryOps(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	x := s.T(ctorch.FromSlice([]float32{-2.5, -0.5, 0, 0.5, 1.5, 2.5}, nil, dev))
	eqF64(t, s.T(x.Neg()), 2.5, 0.5, 0, -0.5, -1.5, -2.5)
	eqF64(t, s.T(x.Abs()), 2.5, 0.5, 0, 0.5, 1.5, 2.5)
	eqF64(t, s.T(x.Relu()), 0, 0, 0, 0.5, 1.5, 2.5)
	eqF64(t, s.T(x.Sign()), -1, -1, 0, 1, 1, 1)
	eqF64(t, s.T(x.Floor()), -3, -1, 0, 0, 1, 2)
	eqF64(t, s.T(x.Ceil()), -2, 0, 0, 1, 2, 3)
	eqF64(t, s.T(x.Round()), -2, 0, 0, 0, 2, 2) // half to even
	eqF64(t, s.T(x.Square()), 6.25, 0.25, 0, 0.25, 2.25, 6.25)
	eqBool(t, s.T(x.LogicalNot()), false, false, true, false, false, false)

	p := s.T(ctorch.FromSlice([]float64{0.25, 1, 4}, nil, dev))
	eqF64(t, s.T(p.Sqrt()), 0.5, 1, 2)
	eqF64(t, s.T(p.Reciprocal()), 4, 1, 0.25)
	nearF64(t, s.T(p.Log()), 1e-12, math.Log(0.25), 0, math.Log(4))
	nearF64(t, s.T(p.Exp()), 1e-12, math.Exp(0.25), math.E, math.Exp(4))
	nearF64(t, s.T(p.Sin()), 1e-12, math.Sin(0.25), math.Sin(1), math.Sin(4))
	nearF64(t, s.T(p.Cos()), 1e-12, math.Cos(0.25), math.Cos(1), math.Cos(4))
	nearF64(t, s.T(p.Tanh()), 1e-12, math.Tanh(0.25), math.Tanh(1), math.Tanh(4))
	nearF64(t, s.T(p.Sigmoid()), 1e-12, 1/(1+math.Exp(-0.25)), 1/(1+math.Exp(-1)), 1/(1+math.Exp(-4)))

	// Integer inputs of the float ops promote to float32; others keep the dtype.
	i := s.T(ctorch.FromSlice([]int64{1, 4, 9}, nil, dev))
	r := s.T(i.Sqrt())
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 1, 2, 3)
	r = s.T(i.Neg())
	eqDType(t, r, ctorch.Int64)
	eqI64(t, r, -1, -4, -9)
	bsq := s.T(s.T(ctorch.FromSlice([]bool{true, false}, nil, dev)).Square())
	eqDType(t, bsq, ctorch.Int64)
	eqI64(t, bsq, 1, 0)
	eqF64(t, s.T(p.Unary(ctorch.OpSqrt)), 0.5, 1, 2)
}

func TestInPlaceOps(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3}, nil, dev))
	y := s.T(ctorch.FromSlice([]float32{10, 20, 30}, nil, dev))

	noErr(t, x.AddInPlace(y))
	eqF64(t, x, 11, 22, 33)
	noErr(t, x.SubScalarInPlace(1))
	eqF64(t, x, 10, 21, 32)
	noErr(t, x.MulIntInPlace(2))
	eqF64(t, x, 20, 42, 64)
	noErr(t, x.DivInPlace(s.T(ctorch.FromSlice([]float32{4}, nil, dev)))) // broadcast (1,)
	eqF64(t, x, 5, 10.5, 16)
	noErr(t, x.NegInPlace())
	eqF64(t, x, -5, -10.5, -16)
	noErr(t, x.AbsInPlace())
	eqF64(t, x, 5, 10.5, 16)
	noErr(t, x.SqrtInPlace())
	nearF64(t, x, 1e-6, math.Sqrt(5), math.Sqrt(10.5), 4)
	noErr(t, x.GtScalarInPlace(3)) // comparisons store 0/1 in x's dtype
	eqDType(t, x, ctorch.Float32)
	eqF64(t, x, 0, 1, 1)
	noErr(t, x.UnaryInPlace(ctorch.OpExp))
	nearF64(t, x, 1e-6, 1, math.E, math.E)
	noErr(t, x.BinaryIntInPlace(ctorch.OpPow, 0))
	eqF64(t, x, 1, 1, 1)

	i := s.T(ctorch.FromSlice([]int32{1, 2, 3}, nil, dev))
	noErr(t, i.AddIntInPlace(5))
	eqI64(t, i, 6, 7, 8)
	noErr(t, i.RemainderIntInPlace(4))
	eqI64(t, i, 2, 3, 0)
	noErr(t, i.SquareInPlace())
	eqI64(t, i, 4, 9, 0)
	// float results cannot be stored in an int tensor
	wantErr(t, i.ExpInPlace(), ctorch.ErrDType)
	wantErr(t, i.AddScalarInPlace(0.5), ctorch.ErrDType)
	wantErr(t, i.DivInPlace(i), ctorch.ErrDType)
	eqI64(t, i, 4, 9, 0) // unchanged by the failed calls
	// the other operand must broadcast to x's shape
	wantErr(t, y.AddInPlace(s.T(ctorch.Zeros([]int64{2, 3}, dev))), ctorch.ErrShape)
}

func TestClampWhereFill(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	x := s.T(ctorch.FromSlice([]float32{-2, -0.5, 0.5, 3}, nil, dev))
	eqF64(t, s.T(x.Clamp(-1, 1)), -1, -0.5, 0.5, 1)
	eqF64(t, s.T(x.ClampMin(0)), 0, 0, 0.5, 3)
	eqF64(t, s.T(x.ClampMax(0)), -2, -0.5, 0, 0)
	eqF64(t, s.T(x.Clamp(ctorch.NoBound, 2)), -2, -0.5, 0.5, 2)
	_, err := x.Clamp(ctorch.NoBound, ctorch.NoBound)
	wantErr(t, err, ctorch.ErrArgument)

	y := s.T(x.Clone())
	noErr(t, y.ClampInPlace(-1, 1))
	eqF64(t, y, -1, -0.5, 0.5, 1)
	noErr(t, y.ClampMinInPlace(0))
	eqF64(t, y, 0, 0, 0.5, 1)
	noErr(t, y.ClampMaxInPlace(0.25))
	eqF64(t, y, 0, 0, 0.25, 0.25)
	iv := s.T(ctorch.FromSlice([]int64{-5, 5, 50}, nil, dev))
	eqI64(t, s.T(iv.Clamp(0, 10)), 0, 5, 10)

	cond := s.T(x.GtInt(0))
	w := s.T(ctorch.Where(cond, x, s.T(ctorch.Zeros([]int64{1}, ctorch.Float64, dev))))
	eqDType(t, w, ctorch.Float64) // float32 and float64 promote
	eqF64(t, w, 0, 0, 0.5, 3)
	// broadcasting: cond (2,1), x (1,2) from scalars
	c2 := s.T(ctorch.FromSlice([]bool{true, false}, []int64{2, 1}, dev))
	a2 := s.T(ctorch.FromSlice([]int64{1, 2}, []int64{1, 2}, dev))
	b2 := s.T(ctorch.FromSlice([]int64{-1}, nil, dev))
	w2 := s.T(ctorch.Where(c2, a2, b2))
	eqShape(t, w2, 2, 2)
	eqI64(t, w2, 1, 2, -1, -1)
	_, err = ctorch.Where(x, x, x) // cond must be bool
	wantErr(t, err, ctorch.ErrDType)

	f := s.T(ctorch.Empty([]int64{2, 2}, ctorch.Int16, dev))
	noErr(t, f.Fill(7))
	eqI64(t, f, 7, 7, 7, 7)
	noErr(t, f.Zero())
	eqI64(t, f, 0, 0, 0, 0)
}
