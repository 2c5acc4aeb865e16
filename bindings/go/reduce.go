package ctorch

import "ctorch.dev/ctorch/internal/capi"

// ReduceOp is a ct_reduce_op (constants ReduceSum ... in abi_gen.go).
type ReduceOp int32

func (op ReduceOp) String() string { return capi.EnumName(reduceNames[:], int32(op), "ReduceOp") }

// Reduce is op over dims (nil or empty: all dims), keeping the reduced dims with size 1 when
// keepdim. dtype (Undefined for the default) is the dtype to accumulate and return in
// (torch.sum(..., dtype=)). Errors: ErrIndex (dim), ErrArgument (repeated dim), ErrDType (mean
// of an integer tensor).
func (t *Tensor) Reduce(op ReduceOp, dims []int, keepdim bool, dtype DType) (*Tensor, error) {
	d, err := dims64(op.String(), dims)
	if err != nil {
		return nil, err
	}
	if err := checkCount(op.String(), len(d)); err != nil {
		return nil, err
	}
	return t.method1(op.String(), func(h int64, out []int64) int {
		return capi.Ct_reduce(int(op), h, d, len(d), b2i(keepdim), int(dtype), out)
	})
}

func dtypeOpt(opts []Option) DType { return applyOptions(Undefined, opts).dtype }

// Sum is torch.sum(t): a 0-dim tensor. A DType option sets the accumulation/result dtype.
func (t *Tensor) Sum(opts ...Option) (*Tensor, error) {
	return t.Reduce(ReduceSum, nil, false, dtypeOpt(opts))
}

// SumDims is torch.sum(t, dims, keepdim).
func (t *Tensor) SumDims(dims []int, keepdim bool, opts ...Option) (*Tensor, error) {
	return t.Reduce(ReduceSum, dims, keepdim, dtypeOpt(opts))
}

// Mean is torch.mean(t) (floating or complex tensors; ErrDType otherwise, as in PyTorch).
func (t *Tensor) Mean(opts ...Option) (*Tensor, error) {
	return t.Reduce(ReduceMean, nil, false, dtypeOpt(opts))
}

// MeanDims is torch.mean(t, dims, keepdim).
func (t *Tensor) MeanDims(dims []int, keepdim bool, opts ...Option) (*Tensor, error) {
	return t.Reduce(ReduceMean, dims, keepdim, dtypeOpt(opts))
}

// Prod is torch.prod(t).
func (t *Tensor) Prod(opts ...Option) (*Tensor, error) {
	return t.Reduce(ReduceProd, nil, false, dtypeOpt(opts))
}

// ProdDims is torch.prod over dims.
func (t *Tensor) ProdDims(dims []int, keepdim bool, opts ...Option) (*Tensor, error) {
	return t.Reduce(ReduceProd, dims, keepdim, dtypeOpt(opts))
}

// Amax is torch.amax(t, dims, keepdim) (nil dims: all).
func (t *Tensor) Amax(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceAmax, dims, keepdim, Undefined)
}

// Amin is torch.amin(t, dims, keepdim) (nil dims: all).
func (t *Tensor) Amin(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceAmin, dims, keepdim, Undefined)
}

// Max is torch.max(t): the largest element as a 0-dim tensor. ErrShape for an empty tensor.
func (t *Tensor) Max() (*Tensor, error) { return t.method1("max", capi.Ct_max) }

// Min is torch.min(t).
func (t *Tensor) Min() (*Tensor, error) { return t.method1("min", capi.Ct_min) }

type valuesIndices func(h int64, dim int, keepdim int, values []int64, indices []int64) int

func (t *Tensor) withIndices(op string, f valuesIndices, dim int, keepdim bool) (values, indices *Tensor, err error) {
	if err := checkDim(op, dim); err != nil {
		return nil, nil, err
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, nil, err
	}
	v, i := []int64{0}, []int64{0}
	if err := run(op, func() int { return f(h, dim, b2i(keepdim), v, i) }, t); err != nil {
		return nil, nil, err
	}
	return wrap(v[0]), wrap(i[0]), nil
}

// MaxDim is torch.max(t, dim, keepdim): the values and their int64 indices (first occurrence).
func (t *Tensor) MaxDim(dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.withIndices("max", capi.Ct_max_dim, dim, keepdim)
}

// MinDim is torch.min(t, dim, keepdim).
func (t *Tensor) MinDim(dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.withIndices("min", capi.Ct_min_dim, dim, keepdim)
}

type argFunc func(h int64, hasDim, dim, keepdim int, out []int64) int

func (t *Tensor) arg(op string, f argFunc, hasDim bool, dim int, keepdim bool) (*Tensor, error) {
	if err := checkDim(op, dim); err != nil {
		return nil, err
	}
	return t.method1(op, func(h int64, out []int64) int { return f(h, b2i(hasDim), dim, b2i(keepdim), out) })
}

// ArgMax is torch.argmax(t): the flat index of the first maximum, a 0-dim int64 tensor (NaN
// counts as the maximum).
func (t *Tensor) ArgMax() (*Tensor, error) { return t.arg("argmax", capi.Ct_argmax, false, 0, false) }

// ArgMaxDim is torch.argmax(t, dim, keepdim).
func (t *Tensor) ArgMaxDim(dim int, keepdim bool) (*Tensor, error) {
	return t.arg("argmax", capi.Ct_argmax, true, dim, keepdim)
}

// ArgMin is torch.argmin(t).
func (t *Tensor) ArgMin() (*Tensor, error) { return t.arg("argmin", capi.Ct_argmin, false, 0, false) }

// ArgMinDim is torch.argmin(t, dim, keepdim).
func (t *Tensor) ArgMinDim(dim int, keepdim bool) (*Tensor, error) {
	return t.arg("argmin", capi.Ct_argmin, true, dim, keepdim)
}

// Norm is torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim): p may be any real,
// math.Inf(1) or math.Inf(-1); nil dims: all. Floating or complex tensors only (complex gives a
// real result).
func (t *Tensor) Norm(p float64, dims []int, keepdim bool) (*Tensor, error) {
	d, err := dims64("norm", dims)
	if err != nil {
		return nil, err
	}
	return t.method1("norm", func(h int64, out []int64) int {
		return capi.Ct_norm(h, p, d, len(d), b2i(keepdim), out)
	})
}

// ---- joining ----------------------------------------------------------------------------

func join(op string, f func(hs []int64, n int, dim int, out []int64) int, tensors []*Tensor, dim int) (*Tensor, error) {
	if err := checkDim(op, dim); err != nil {
		return nil, err
	}
	if err := checkCount(op, len(tensors)); err != nil {
		return nil, err
	}
	hs, err := handles(op, tensors...)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(hs, len(hs), dim, out) }, tensors...)
}

// Cat is torch.cat(tensors, dim): at least one tensor; same shape except in dim; dtypes
// promote; one device. 1-D empty tensors of shape (0,) are skipped, as in PyTorch.
func Cat(tensors []*Tensor, dim int) (*Tensor, error) { return join("cat", capi.Ct_cat, tensors, dim) }

// Stack is torch.stack(tensors, dim): tensors of one shape, joined along a new dim.
func Stack(tensors []*Tensor, dim int) (*Tensor, error) {
	return join("stack", capi.Ct_stack, tensors, dim)
}
