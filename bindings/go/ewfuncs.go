package ctorch

// Elementwise functions with extra arguments (ctorch.h section 31): gelu, nan_to_num, clamp by
// tensors, lerp, addcmul, addcdiv, where with scalars, isclose and allclose. Isnan, Isinf,
// Isfinite, Erf and Silu are table ops (abi_gen.go). Values, dtype rules and PyTorch's messages
// are the C library's (docs/ewfuncs.md).

import "ctorch.dev/ctorch/internal/capi"

// optHandle is the handle of t, 0 for nil (an absent optional tensor).
func optHandle(op string, t *Tensor) (int64, error) {
	if t == nil {
		return 0, nil
	}
	return t.handle(op)
}

// Gelu is torch.nn.functional.gelu(t, approximate=approximate): "none" (exact, with erf) or
// "tanh". ErrArgument for another string, ErrDType for non-floating tensors.
func (t *Tensor) Gelu(approximate string) (*Tensor, error) {
	return t.method1("gelu", func(h int64, out []int64) int { return capi.Ct_gelu(h, approximate, out) })
}

// NanToNum is torch.nan_to_num(t, nan, posinf, neginf); NoBound (NaN) for an argument means
// None: nan 0, posinf the dtype's largest finite value, neginf its lowest. Integer and bool
// tensors come back as a copy.
func (t *Tensor) NanToNum(nan, posinf, neginf float64) (*Tensor, error) {
	hn, n := bound(nan)
	hp, p := bound(posinf)
	hm, m := bound(neginf)
	return t.method1("nan_to_num", func(h int64, out []int64) int { return capi.Ct_nan_to_num(h, hn, n, hp, p, hm, m, out) })
}

// ClampTensor is torch.clamp(t, min, max) with tensor bounds (either may be nil, not both):
// NaN where any operand is NaN; the three promote and broadcast.
func (t *Tensor) ClampTensor(min, max *Tensor) (*Tensor, error) {
	const op = "clamp"
	hlo, err := optHandle(op, min)
	if err != nil {
		return nil, err
	}
	hhi, err := optHandle(op, max)
	if err != nil {
		return nil, err
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return capi.Ct_clamp_tensor(h, hlo, hhi, out) }, t, min, max)
}

// Lerp is torch.lerp(t, end, weight): t + weight * (end - t). end and weight must have t's
// dtype; floating and complex tensors only.
func (t *Tensor) Lerp(end, weight *Tensor) (*Tensor, error) {
	hs, err := handles("lerp", t, end, weight)
	if err != nil {
		return nil, err
	}
	return newTensor("lerp", func(out []int64) int { return capi.Ct_lerp(hs[0], hs[1], hs[2], out) }, t, end, weight)
}

// LerpScalar is torch.lerp(t, end, weight) with a Python float weight.
func (t *Tensor) LerpScalar(end *Tensor, weight float64) (*Tensor, error) {
	hs, err := handles("lerp", t, end)
	if err != nil {
		return nil, err
	}
	return newTensor("lerp", func(out []int64) int { return capi.Ct_lerp_scalar(hs[0], hs[1], weight, out) }, t, end)
}

type pointwiseFunc func(h, h1, h2 int64, value float64, out []int64) int

func (t *Tensor) pointwise(op string, f pointwiseFunc, t1, t2 *Tensor, value float64) (*Tensor, error) {
	hs, err := handles(op, t, t1, t2)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(hs[0], hs[1], hs[2], value, out) }, t, t1, t2)
}

// Addcmul is torch.addcmul(t, t1, t2, value=value): t + value * t1 * t2.
func (t *Tensor) Addcmul(t1, t2 *Tensor, value float64) (*Tensor, error) {
	return t.pointwise("addcmul", capi.Ct_addcmul, t1, t2, value)
}

// Addcdiv is torch.addcdiv(t, t1, t2, value=value): t + value * (t1 / t2); ErrDType when t1
// and t2 are both integer or bool.
func (t *Tensor) Addcdiv(t1, t2 *Tensor, value float64) (*Tensor, error) {
	return t.pointwise("addcdiv", capi.Ct_addcdiv, t1, t2, value)
}

func whereScalar(cond, x *Tensor, f func(hc, hx int64, out []int64) int) (*Tensor, error) {
	hs, err := handles("where", cond, x)
	if err != nil {
		return nil, err
	}
	return newTensor("where", func(out []int64) int { return f(hs[0], hs[1], out) }, cond, x)
}

// WhereTensorScalar is torch.where(cond, x, s) with a Python float s (a wrapped number: a
// float16 x stays float16, an integer x gives float32).
func WhereTensorScalar(cond, x *Tensor, s float64) (*Tensor, error) {
	return whereScalar(cond, x, func(hc, hx int64, out []int64) int { return capi.Ct_where_scalar_f(hc, hx, s, 0, out) })
}

// WhereScalarTensor is torch.where(cond, s, y) with a Python float s.
func WhereScalarTensor(cond *Tensor, s float64, y *Tensor) (*Tensor, error) {
	return whereScalar(cond, y, func(hc, hy int64, out []int64) int { return capi.Ct_where_scalar_f(hc, hy, s, 1, out) })
}

// WhereTensorInt is torch.where(cond, x, s) with a Python int s (an int32 x stays int32).
func WhereTensorInt(cond, x *Tensor, s int64) (*Tensor, error) {
	return whereScalar(cond, x, func(hc, hx int64, out []int64) int { return capi.Ct_where_scalar_i(hc, hx, s, 0, out) })
}

// WhereIntTensor is torch.where(cond, s, y) with a Python int s.
func WhereIntTensor(cond *Tensor, s int64, y *Tensor) (*Tensor, error) {
	return whereScalar(cond, y, func(hc, hy int64, out []int64) int { return capi.Ct_where_scalar_i(hc, hy, s, 1, out) })
}

// WhereScalars is torch.where(cond, a, b) with two Python floats: a float32 tensor of cond's
// shape on cond's device.
func WhereScalars(cond *Tensor, a, b float64) (*Tensor, error) {
	return cond.method1("where", func(h int64, out []int64) int { return capi.Ct_where_scalars_f(h, a, b, out) })
}

// WhereInts is torch.where(cond, a, b) with two Python ints: an int64 tensor.
func WhereInts(cond *Tensor, a, b int64) (*Tensor, error) {
	return cond.method1("where", func(h int64, out []int64) int { return capi.Ct_where_scalars_i(h, a, b, out) })
}

// IsClose is torch.isclose(t, other, rtol, atol, equalNaN): a bool tensor, true where
// |t - other| <= atol + |rtol * other| (or equal). t and other must have one dtype.
func (t *Tensor) IsClose(other *Tensor, rtol, atol float64, equalNaN bool) (*Tensor, error) {
	hs, err := handles("isclose", t, other)
	if err != nil {
		return nil, err
	}
	return newTensor("isclose", func(out []int64) int {
		return capi.Ct_isclose(hs[0], hs[1], rtol, atol, b2i(equalNaN), out)
	}, t, other)
}

// AllClose is torch.allclose(t, other, rtol, atol, equalNaN): IsClose everywhere (true for
// empty tensors). Synchronizes with a CUDA device.
func (t *Tensor) AllClose(other *Tensor, rtol, atol float64, equalNaN bool) (bool, error) {
	hs, err := handles("allclose", t, other)
	if err != nil {
		return false, err
	}
	res := []int32{0}
	if err := run("allclose", func() int { return capi.Ct_allclose(hs[0], hs[1], rtol, atol, b2i(equalNaN), res) }, t, other); err != nil {
		return false, err
	}
	return res[0] != 0, nil
}
