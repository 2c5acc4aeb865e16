package ctorch_test

// Elementwise operations through the binding: every named method of ops_gen.go dispatches to
// its own op (checked against the generic form, found by the op's torch name), Python float
// versus int scalars reach C as such, and the clamp bounds, Where and Fill marshal. Promotion,
// broadcasting and values are the C suite's (tests/capi/capi_test.c, layout_test.c).

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
)

// methodName is the Go name of the op with torch name n: "floor_divide" -> "FloorDivide".
func methodName(n string) string {
	parts := strings.Split(n, "_")
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return strings.Join(parts, "")
}

// outcome runs an op and returns its values (for an in-place op: x's afterwards) or its code.
func outcome(t *testing.T, s *scope, x *ctorch.Tensor, out []reflect.Value) any {
	t.Helper()
	errV := out[len(out)-1]
	if !errV.IsNil() {
		if len(out) == 2 {
			s.keep(out[0].Interface().(*ctorch.Tensor))
		}
		return errV.Interface().(*ctorch.Error).Code
	}
	if len(out) == 2 {
		x = s.T(out[0].Interface().(*ctorch.Tensor), nil)
	}
	v, err := x.Float64s()
	noErr(t, err)
	return v
}

// Every generated method, against the generic form with the same op: same values (or the same
// error code) for tensor, float and int operands, in place and reversed.
func TestNamedOpMethods(t *testing.T) {
	s, dev := setup(t)
	mk := func() *ctorch.Tensor { return s.T(ctorch.FromSlice([]float32{1.5, 2, 3}, nil, dev)) }
	o := s.T(ctorch.FromSlice([]float32{0.5, 4, 2}, nil, dev))
	fresh := func() (*ctorch.Tensor, reflect.Value) { x := mk(); return x, reflect.ValueOf(x) }
	check := func(name string, generic func(x *ctorch.Tensor) []reflect.Value, args ...any) {
		t.Helper()
		x, xv := fresh()
		m := xv.MethodByName(name)
		if !m.IsValid() {
			t.Errorf("no method %s", name)
			return
		}
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			in[i] = reflect.ValueOf(a)
		}
		got := outcome(t, s, x, m.Call(in))
		y, _ := fresh()
		if want := outcome(t, s, y, generic(y)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, the generic form gives %v", name, got, want)
		}
	}
	vals := func(vs ...any) []reflect.Value {
		r := make([]reflect.Value, len(vs))
		for i, v := range vs {
			if r[i] = reflect.ValueOf(v); v == nil { // a nil error
				r[i] = reflect.Zero(reflect.TypeOf((*error)(nil)).Elem())
			}
		}
		return r
	}
	nu := 0
	for op := ctorch.UnaryOp(0); !strings.HasPrefix(op.String(), "UnaryOp("); op++ {
		n := methodName(op.String())
		check(n, func(x *ctorch.Tensor) []reflect.Value { return vals(x.Unary(op)) })
		if _, ok := reflect.TypeOf(o).MethodByName(n + "InPlace"); ok {
			check(n+"InPlace", func(x *ctorch.Tensor) []reflect.Value { return vals(x.UnaryInPlace(op)) })
		} else {
			// no in-place method: the op has no in-place form (capi/abi.toml's inplace = false)
			wantErr(t, mk().UnaryInPlace(op), ctorch.ErrArgument)
		}
		nu++
	}
	nb, nr := 0, 0
	for op := ctorch.BinaryOp(0); !strings.HasPrefix(op.String(), "BinaryOp("); op++ {
		n := methodName(op.String())
		check(n, func(x *ctorch.Tensor) []reflect.Value { return vals(x.Binary(op, o)) }, o)
		check(n+"Scalar", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryScalar(op, 2.5, false)) }, 2.5)
		check(n+"Int", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryInt(op, 2, false)) }, int64(2))
		check(n+"InPlace", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryInPlace(op, o)) }, o)
		check(n+"ScalarInPlace", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryScalarInPlace(op, 2.5)) }, 2.5)
		check(n+"IntInPlace", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryIntInPlace(op, 2)) }, int64(2))
		if _, ok := reflect.TypeOf(o).MethodByName("R" + n + "Scalar"); ok {
			check("R"+n+"Scalar", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryScalar(op, 2.5, true)) }, 2.5)
			check("R"+n+"Int", func(x *ctorch.Tensor) []reflect.Value { return vals(x.BinaryInt(op, 2, true)) }, int64(2))
			nr++
		}
		nb++
	}
	if nu < 17 || nb < 18 || nr < 5 {
		t.Errorf("%d unary, %d binary ops, %d with reverse forms", nu, nb, nr)
	}
	// the generic forms really take the op: add and mul differ here
	eqF64(t, s.T(mk().Binary(ctorch.OpAdd, o)), 2, 6, 5)
	eqF64(t, s.T(mk().Binary(ctorch.OpMul, o)), 0.75, 8, 6)
	eqF64(t, s.T(mk().BinaryScalar(ctorch.OpSub, 1, true)), -0.5, -1, -2)
}

// A Python float and a Python int scalar cross as such: int32 + 2 stays int32, + 2.5 is float32.
func TestScalarKinds(t *testing.T) {
	s := newScope(t)
	i32 := s.T(ctorch.FromSlice([]int32{1, 2, 3}, nil, testDevice()))
	r := s.T(i32.AddInt(2))
	eqDType(t, r, ctorch.Int32)
	eqI64(t, r, 3, 4, 5)
	r = s.T(i32.AddScalar(2.5))
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 3.5, 4.5, 5.5)
	i64 := s.T(ctorch.FromSlice([]int64{1, 2, 3}, nil, testDevice()))
	eqI64(t, s.T(i64.RSubInt(1<<40)), 1<<40-1, 1<<40-2, 1<<40-3) // int64 scalars are not narrowed
	wantErr(t, i32.AddScalarInPlace(0.5), ctorch.ErrDType)
	wantErr(t, s.E(i32.Unary(ctorch.UnaryOp(99))), ctorch.ErrArgument)
	wantErr(t, s.E(i32.Binary(ctorch.BinaryOp(-1), i32)), ctorch.ErrArgument)
	if ctorch.UnaryOp(99).String() != "UnaryOp(99)" || ctorch.OpFloorDivide.String() != "floor_divide" {
		t.Errorf("op names %v %v", ctorch.UnaryOp(99), ctorch.OpFloorDivide)
	}
}

func TestClampWhereFill(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{-2, -0.5, 0.5, 3}, nil, dev))
	eqF64(t, s.T(x.Clamp(-1, 1)), -1, -0.5, 0.5, 1)
	eqF64(t, s.T(x.ClampMin(0)), 0, 0, 0.5, 3)
	eqF64(t, s.T(x.ClampMax(0)), -2, -0.5, 0, 0)
	eqF64(t, s.T(x.Clamp(ctorch.NoBound, 2)), -2, -0.5, 0.5, 2)
	wantErr(t, s.E(x.Clamp(ctorch.NoBound, ctorch.NoBound)), ctorch.ErrArgument)
	if !math.IsNaN(ctorch.NoBound) {
		t.Errorf("NoBound = %v", ctorch.NoBound)
	}
	y := s.T(x.Clone())
	noErr(t, y.ClampInPlace(-1, 1))
	eqF64(t, y, -1, -0.5, 0.5, 1)
	noErr(t, y.ClampMinInPlace(0))
	eqF64(t, y, 0, 0, 0.5, 1)
	noErr(t, y.ClampMaxInPlace(0.25))
	eqF64(t, y, 0, 0, 0.25, 0.25)

	cond := s.T(x.GtInt(0))
	eqF64(t, s.T(ctorch.Where(cond, x, s.T(ctorch.Zeros([]int64{1}, dev)))), 0, 0, 0.5, 3)
	wantErr(t, s.E(ctorch.Where(x, x, x)), ctorch.ErrDType) // cond must be bool
	wantErr(t, s.E(ctorch.Where(cond, nil, x)), ctorch.ErrInvalidHandle)

	f := s.T(ctorch.Empty([]int64{2, 2}, ctorch.Int16, dev))
	noErr(t, f.Fill(7))
	eqI64(t, f, 7, 7, 7, 7)
	noErr(t, f.Zero())
	eqI64(t, f, 0, 0, 0, 0)
}
