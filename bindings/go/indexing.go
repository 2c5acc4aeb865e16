package ctorch

import "ctorch.dev/ctorch/internal/capi"

// Indexing (capi/ctorch.h section 30, docs/indexing.md): index_select, gather, take, scatter,
// scatter_add, index_add_, masked_fill, masked_select, nonzero and where(cond), with PyTorch's
// rules and messages. Index tensors are Int64 (IndexSelect and IndexAddInPlace also take Int32)
// on the tensor's device; masks are Bool. An index out of range is ErrIndex with PyTorch's
// message on the CPU (nothing written); on CUDA it fails a device-side assertion, as in PyTorch,
// which the next CUDA call reports as ErrCUDA ("device-side assert triggered"; the op itself under
// CUDA_LAUNCH_BLOCKING=1) and which leaves the process's CUDA context unusable. Error.Op is the C
// function's name without "ct_".

// indexOp runs a C call that makes one tensor from t and the given operands.
func (t *Tensor) indexOp(op string, f func(hs []int64, out []int64) int, operands ...*Tensor) (*Tensor, error) {
	all := append([]*Tensor{t}, operands...)
	hs, err := handles(op, all...)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(hs, out) }, all...)
}

// IndexSelect is torch.index_select(t, dim, index): index 1-D (or 0-dim), Int64 or Int32.
func (t *Tensor) IndexSelect(dim int, index *Tensor) (*Tensor, error) {
	return t.indexOp("index_select", func(hs, out []int64) int { return capi.Ct_index_select(hs[0], int64(dim), hs[1], out) }, index)
}

// Gather is torch.gather(t, dim, index): the result has index's shape.
func (t *Tensor) Gather(dim int, index *Tensor) (*Tensor, error) {
	return t.indexOp("gather", func(hs, out []int64) int { return capi.Ct_gather(hs[0], int64(dim), hs[1], out) }, index)
}

// Take is torch.take(t, index): t read as 1-D; negative indices count from the end.
func (t *Tensor) Take(index *Tensor) (*Tensor, error) {
	return t.indexOp("take", func(hs, out []int64) int { return capi.Ct_take(hs[0], hs[1], out) }, index)
}

// Scatter is torch.scatter(t, dim, index, src): a copy of t with src's elements written where
// index says (which of repeated indices wins is unspecified on CUDA).
func (t *Tensor) Scatter(dim int, index, src *Tensor) (*Tensor, error) {
	return t.indexOp("scatter", func(hs, out []int64) int { return capi.Ct_scatter(hs[0], int64(dim), hs[1], hs[2], out) }, index, src)
}

// ScatterValue is torch.scatter(t, dim, index, value).
func (t *Tensor) ScatterValue(dim int, index *Tensor, value float64) (*Tensor, error) {
	return t.indexOp("scatter_value", func(hs, out []int64) int {
		return capi.Ct_scatter_value(hs[0], int64(dim), hs[1], value, out)
	}, index)
}

// ScatterAdd is torch.scatter_add(t, dim, index, src): repeated indices add up (atomically on
// CUDA, so float results may differ from the CPU's in the last bits).
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) (*Tensor, error) {
	return t.indexOp("scatter_add", func(hs, out []int64) int {
		return capi.Ct_scatter_add(hs[0], int64(dim), hs[1], hs[2], out)
	}, index, src)
}

// IndexAddInPlace is t.index_add_(dim, index, source, alpha=alpha).
func (t *Tensor) IndexAddInPlace(dim int, index, source *Tensor, alpha float64) error {
	const op = "index_add_"
	hs, err := handles(op, t, index, source)
	if err != nil {
		return err
	}
	return run(op, func() int { return capi.Ct_index_add_(hs[0], int64(dim), hs[1], hs[2], alpha) }, t, index, source)
}

// MaskedFill is torch.masked_fill(t, mask, value): mask Bool, broadcast with t.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) (*Tensor, error) {
	return t.indexOp("masked_fill", func(hs, out []int64) int { return capi.Ct_masked_fill(hs[0], hs[1], value, out) }, mask)
}

// MaskedFillInPlace is t.masked_fill_(mask, value): mask broadcasts to t's shape.
func (t *Tensor) MaskedFillInPlace(mask *Tensor, value float64) error {
	const op = "masked_fill_"
	hs, err := handles(op, t, mask)
	if err != nil {
		return err
	}
	return run(op, func() int { return capi.Ct_masked_fill_(hs[0], hs[1], value) }, t, mask)
}

// MaskedSelect is torch.masked_select(t, mask) (t[mask]): 1-D, in row-major order. It waits
// for the GPU (the result's size), as PyTorch's.
func (t *Tensor) MaskedSelect(mask *Tensor) (*Tensor, error) {
	return t.indexOp("masked_select", func(hs, out []int64) int { return capi.Ct_masked_select(hs[0], hs[1], out) }, mask)
}

// Nonzero is torch.nonzero(t): Int64 [n, t.Dim()] coordinates. It waits for the GPU.
func (t *Tensor) Nonzero() (*Tensor, error) {
	return t.indexOp("nonzero", func(hs, out []int64) int { return capi.Ct_nonzero(hs[0], out) })
}

// WhereCond is torch.where(cond) (torch.nonzero(cond, as_tuple=True)): one Int64 1-D tensor a
// dim of cond (one for a 0-dim cond), the coordinates of its nonzero elements.
func WhereCond(cond *Tensor) ([]*Tensor, error) {
	const op = "where_cond"
	h, err := cond.handle(op)
	if err != nil {
		return nil, err
	}
	k := cond.Dim()
	if k < 1 {
		k = 1
	}
	outs, n := make([]int64, k), []int32{0}
	err = run(op, func() int { return capi.Ct_where_cond(h, outs, k, n) }, cond)
	if err != nil {
		return nil, err
	}
	ts := make([]*Tensor, n[0])
	for i := range ts {
		ts[i] = wrap(outs[i])
	}
	return ts, nil
}

// indexHandles: the handles of an index list, 0 for a nil entry (a full slice).
func indexHandles(op string, indices []*Tensor) ([]int64, error) {
	if err := checkCount(op, len(indices)); err != nil {
		return nil, err
	}
	hs := make([]int64, len(indices))
	for i, x := range indices {
		if x == nil {
			continue
		}
		h, err := x.handle(op)
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

// Index is t[indices] (PyTorch's advanced indexing): one entry for each leading dim, nil for a
// full slice (:), an Int64 or Int32 tensor (negative entries count from the end) or a Bool mask.
// The index tensors broadcast together; see docs/indexing.md for where their dims go.
func (t *Tensor) Index(indices ...*Tensor) (*Tensor, error) {
	const op = "index"
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	hs, err := indexHandles(op, indices)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return capi.Ct_index(h, hs, len(hs), out) }, append([]*Tensor{t}, indices...)...)
}

// IndexPutInPlace is t.index_put_(indices, values, accumulate) (t[indices] = values, or += when
// accumulate): values of t's dtype, broadcast to the shape Index would give.
func (t *Tensor) IndexPutInPlace(indices []*Tensor, values *Tensor, accumulate bool) error {
	const op = "index_put_"
	h, err := t.handle(op)
	if err != nil {
		return err
	}
	hs, err := indexHandles(op, indices)
	if err != nil {
		return err
	}
	v, err := values.handle(op)
	if err != nil {
		return err
	}
	acc := 0
	if accumulate {
		acc = 1
	}
	return run(op, func() int { return capi.Ct_index_put_(h, hs, len(hs), v, acc) }, append([]*Tensor{t, values}, indices...)...)
}
