package ctorch

import (
	"math"
	"runtime"

	"ctorch.dev/ctorch/internal/capi"
)

// Elementwise operations (capi/ctorch.h section 9): broadcasting and PyTorch's type promotion.
// Results are new Tensors on the inputs' device. Inputs on different devices fail with
// ErrDevice, except 0-dim CPU tensors, which act as scalars.
//
// Each operation has named methods (generated at build time from capi/abi.toml into abi_gen.go,
// with the op constants): for a binary op X
//
//	t.X(o)               torch.X(t, o)              tensor operand
//	t.XScalar(2.5)       t X 2.5                    Python float scalar ("wrapped number")
//	t.XInt(2)            t X 2                      Python int scalar
//	t.XInPlace(o)        t.X_(o)                    in place; likewise XScalarInPlace, XIntInPlace
//	t.RXScalar(2.5)      2.5 X t                    reverse forms of Sub, Div, Pow, FloorDivide,
//	t.RXInt(2)           2 X t                      Remainder
//
// and for a unary op X: t.X() and t.XInPlace(). The generic forms below take the op as a value.

// UnaryOp is a ct_unary_op (constants OpNeg ... in abi_gen.go).
type UnaryOp int32

func (op UnaryOp) String() string { return capi.EnumName(unaryNames[:], int32(op), "UnaryOp") }

// BinaryOp is a ct_binary_op (constants OpAdd ... in abi_gen.go).
type BinaryOp int32

func (op BinaryOp) String() string { return capi.EnumName(binaryNames[:], int32(op), "BinaryOp") }

// Unary is op(t).
func (t *Tensor) Unary(op UnaryOp) (*Tensor, error) {
	h, err := t.handle(op.String())
	if err != nil {
		return nil, err
	}
	r, f := capi.Unary(int32(op), h)
	runtime.KeepAlive(t)
	return result(op.String(), r, f)
}

// result wraps the new reference r of a direct call (internal/capi/direct.go), or returns its
// failure.
func result(op string, r int64, f *capi.Failure) (*Tensor, error) {
	if f != nil {
		return nil, failed(op, f)
	}
	return wrap(r), nil
}

// UnaryInPlace is t.op_(). ErrDType when the result cannot be stored in t's dtype (exp_ on an
// int64 tensor).
func (t *Tensor) UnaryInPlace(op UnaryOp) error {
	h := t.Handle()
	if h == 0 { // the name is built only here: the concatenation allocates
		_, err := t.handle(op.String() + "_")
		return err
	}
	f := capi.UnaryInPlace(int32(op), h)
	runtime.KeepAlive(t)
	if f != nil {
		return failed(op.String()+"_", f)
	}
	return nil
}

// Binary is op(t, o) with broadcasting and type promotion.
func (t *Tensor) Binary(op BinaryOp, o *Tensor) (*Tensor, error) {
	a, b, err := handles2(op, "", t, o)
	if err != nil {
		return nil, err
	}
	r, f := capi.Binary(int32(op), a, b)
	runtime.KeepAlive(t)
	runtime.KeepAlive(o)
	return result(op.String(), r, f)
}

// BinaryInPlace is t.op_(o): o must broadcast to t's shape and the promoted dtype must be
// castable to t's dtype. Comparisons store 0/1 in t's dtype.
func (t *Tensor) BinaryInPlace(op BinaryOp, o *Tensor) error {
	a, b, err := handles2(op, "_", t, o)
	if err != nil {
		return err
	}
	f := capi.BinaryInPlace(int32(op), a, b)
	runtime.KeepAlive(t)
	runtime.KeepAlive(o)
	if f != nil {
		return failed(op.String()+"_", f)
	}
	return nil
}

// BinaryScalar is op(t, s) with a Python float scalar (int32 tensor + 2.5 is float32, float16
// tensor + 2.5 stays float16); reverse computes op(s, t).
func (t *Tensor) BinaryScalar(op BinaryOp, s float64, reverse bool) (*Tensor, error) {
	h, err := t.handle(op.String())
	if err != nil {
		return nil, err
	}
	r, f := capi.BinaryScalarF(int32(op), h, s, int32(b2i(reverse)))
	runtime.KeepAlive(t)
	return result(op.String(), r, f)
}

// BinaryInt is op(t, s) with a Python int scalar (int32 tensor + 2 stays int32); reverse
// computes op(s, t).
func (t *Tensor) BinaryInt(op BinaryOp, s int64, reverse bool) (*Tensor, error) {
	h, err := t.handle(op.String())
	if err != nil {
		return nil, err
	}
	r, f := capi.BinaryScalarI(int32(op), h, s, int32(b2i(reverse)))
	runtime.KeepAlive(t)
	return result(op.String(), r, f)
}

// BinaryScalarInPlace is t.op_(s) with a Python float scalar.
func (t *Tensor) BinaryScalarInPlace(op BinaryOp, s float64) error {
	h := t.Handle()
	if h == 0 { // the name is built only here: the concatenation allocates
		_, err := t.handle(op.String() + "_")
		return err
	}
	f := capi.BinaryScalarFInPlace(int32(op), h, s)
	runtime.KeepAlive(t)
	if f != nil {
		return failed(op.String()+"_", f)
	}
	return nil
}

// BinaryIntInPlace is t.op_(s) with a Python int scalar.
func (t *Tensor) BinaryIntInPlace(op BinaryOp, s int64) error {
	h := t.Handle()
	if h == 0 { // the name is built only here: the concatenation allocates
		_, err := t.handle(op.String() + "_")
		return err
	}
	f := capi.BinaryScalarIInPlace(int32(op), h, s)
	runtime.KeepAlive(t)
	if f != nil {
		return failed(op.String()+"_", f)
	}
	return nil
}

// ---- clamp, where, fill -----------------------------------------------------------------

// NoBound, given as min or max to Clamp or ClampInPlace, leaves that side unbounded.
var NoBound = math.NaN()

func bound(v float64) (int, float64) {
	if math.IsNaN(v) {
		return 0, 0
	}
	return 1, v
}

// Clamp is torch.clamp(t, min, max). Pass NoBound for a missing side (at least one bound is
// required). Bounds must be integral values for integer tensors.
func (t *Tensor) Clamp(min, max float64) (*Tensor, error) {
	hasMin, lo := bound(min)
	hasMax, hi := bound(max)
	return t.method1("clamp", func(h int64, out []int64) int { return capi.Ct_clamp(h, hasMin, lo, hasMax, hi, out) })
}

// ClampMin is torch.clamp(t, min=min).
func (t *Tensor) ClampMin(min float64) (*Tensor, error) { return t.Clamp(min, NoBound) }

// ClampMax is torch.clamp(t, max=max).
func (t *Tensor) ClampMax(max float64) (*Tensor, error) { return t.Clamp(NoBound, max) }

// ClampInPlace is t.clamp_(min, max) (NoBound for a missing side).
func (t *Tensor) ClampInPlace(min, max float64) error {
	hasMin, lo := bound(min)
	hasMax, hi := bound(max)
	h, err := t.handle("clamp_")
	if err != nil {
		return err
	}
	return run("clamp_", func() int { return capi.Ct_clamp_(h, hasMin, lo, hasMax, hi) }, t)
}

// Where is torch.where(cond, x, y): cond must be bool; x and y promote; all three broadcast.
func Where(cond, x, y *Tensor) (*Tensor, error) {
	hs, err := handles("where", cond, x, y)
	if err != nil {
		return nil, err
	}
	return newTensor("where", func(out []int64) int { return capi.Ct_where(hs[0], hs[1], hs[2], out) }, cond, x, y)
}

// Fill is t.fill_(value): sets every element, in place.
func (t *Tensor) Fill(value float64) error {
	h, err := t.handle("fill_")
	if err != nil {
		return err
	}
	return run("fill_", func() int { return capi.Ct_fill_(h, value) }, t)
}

// Zero is t.zero_(): sets every element to 0, in place.
func (t *Tensor) Zero() error {
	h, err := t.handle("zero_")
	if err != nil {
		return err
	}
	return run("zero_", func() int { return capi.Ct_zero_(h) }, t)
}

// ClampMinInPlace is t.clamp_(min=min).
func (t *Tensor) ClampMinInPlace(min float64) error { return t.ClampInPlace(min, NoBound) }

// ClampMaxInPlace is t.clamp_(max=max).
func (t *Tensor) ClampMaxInPlace(max float64) error { return t.ClampInPlace(NoBound, max) }
