package ctorch

import "ctorch.dev/ctorch/internal/capi"

// Views (capi/ctorch.h section 8). Each result shares storage with t (writes through one are
// seen through the other) and is a new Tensor to close. Dims may be negative (counted from the
// end), as in PyTorch.

func (t *Tensor) sizesView(op string, f func(h int64, sizes []int64, n int, out []int64) int, sizes []int64) (*Tensor, error) {
	if err := checkShape(op, sizes); err != nil {
		return nil, err
	}
	if sizes == nil {
		sizes = []int64{}
	}
	return t.method1(op, func(h int64, out []int64) int { return f(h, sizes, len(sizes), out) })
}

// View is tensor.view(*shape): one size may be -1 (inferred). ErrShape when the number of
// elements differs or the strides do not allow a view (use Reshape).
func (t *Tensor) View(shape ...int64) (*Tensor, error) {
	return t.sizesView("view", capi.Ct_view, shape)
}

// Reshape is tensor.reshape(*shape): a view when possible, else a contiguous copy.
func (t *Tensor) Reshape(shape ...int64) (*Tensor, error) {
	return t.sizesView("reshape", capi.Ct_reshape, shape)
}

// Expand is tensor.expand(*sizes): -1 keeps a size; only size-1 dims can grow (stride 0).
func (t *Tensor) Expand(sizes ...int64) (*Tensor, error) {
	return t.sizesView("expand", capi.Ct_expand, sizes)
}

// Permute is tensor.permute(*dims): dims must be a permutation of 0..Dim()-1.
func (t *Tensor) Permute(dims ...int) (*Tensor, error) {
	d, err := dims64("permute", dims)
	if err != nil {
		return nil, err
	}
	return t.sizesView("permute", capi.Ct_permute, d)
}

// Transpose is tensor.transpose(dim0, dim1).
func (t *Tensor) Transpose(dim0, dim1 int) (*Tensor, error) {
	if err := checkDim("transpose", dim0, dim1); err != nil {
		return nil, err
	}
	return t.method1("transpose", func(h int64, out []int64) int { return capi.Ct_transpose(h, dim0, dim1, out) })
}

// Narrow is tensor.narrow(dim, start, length).
func (t *Tensor) Narrow(dim int, start, length int64) (*Tensor, error) {
	if err := checkDim("narrow", dim); err != nil {
		return nil, err
	}
	return t.method1("narrow", func(h int64, out []int64) int { return capi.Ct_narrow(h, dim, start, length, out) })
}

// Slice is tensor[..., start:end:step, ...] along dim: start and end clamp like Python slices
// (negative values count from the end); step > 0.
func (t *Tensor) Slice(dim int, start, end, step int64) (*Tensor, error) {
	if err := checkDim("slice", dim); err != nil {
		return nil, err
	}
	return t.method1("slice", func(h int64, out []int64) int { return capi.Ct_slice(h, dim, start, end, step, out) })
}

// Select is tensor.select(dim, index) (tensor[..., index, ...]): removes dim. A negative index
// counts from the end.
func (t *Tensor) Select(dim int, index int64) (*Tensor, error) {
	if err := checkDim("select", dim); err != nil {
		return nil, err
	}
	return t.method1("select", func(h int64, out []int64) int { return capi.Ct_select(h, dim, index, out) })
}

// Squeeze is tensor.squeeze(): removes every size-1 dim.
func (t *Tensor) Squeeze() (*Tensor, error) { return t.method1("squeeze", capi.Ct_squeeze) }

// SqueezeDim is tensor.squeeze(dim): removes dim if its size is 1.
func (t *Tensor) SqueezeDim(dim int) (*Tensor, error) {
	if err := checkDim("squeeze", dim); err != nil {
		return nil, err
	}
	return t.method1("squeeze", func(h int64, out []int64) int { return capi.Ct_squeeze_dim(h, dim, out) })
}

// Unsqueeze is tensor.unsqueeze(dim), dim in [-Dim()-1, Dim()].
func (t *Tensor) Unsqueeze(dim int) (*Tensor, error) {
	if err := checkDim("unsqueeze", dim); err != nil {
		return nil, err
	}
	return t.method1("unsqueeze", func(h int64, out []int64) int { return capi.Ct_unsqueeze(h, dim, out) })
}

// Flatten is tensor.flatten(startDim, endDim) (a view when possible); Flatten(0, -1) flattens
// everything.
func (t *Tensor) Flatten(startDim, endDim int) (*Tensor, error) {
	if err := checkDim("flatten", startDim, endDim); err != nil {
		return nil, err
	}
	return t.method1("flatten", func(h int64, out []int64) int { return capi.Ct_flatten(h, startDim, endDim, out) })
}

// Contiguous is tensor.contiguous(): t itself (a new reference) when already contiguous, else
// a contiguous copy.
func (t *Tensor) Contiguous() (*Tensor, error) { return t.method1("contiguous", capi.Ct_contiguous) }
