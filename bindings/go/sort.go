package ctorch

import "ctorch.dev/ctorch/internal/capi"

// Sorting and selection (ctorch.h section 29). NaN sorts after everything (ascending puts NaN
// last, descending first), -0.0 equals 0.0, and sorts are always stable, so CPU and CUDA give
// the same values and indices. Indices are int64 tensors.

// pair runs f, a native call that stores two new references, and wraps both.
func (t *Tensor) pair(op string, f func(h int64, a, b []int64) int, operands ...*Tensor) (*Tensor, *Tensor, error) {
	h, err := t.handle(op)
	if err != nil {
		return nil, nil, err
	}
	a, b := []int64{0}, []int64{0}
	if err := run(op, func() int { return f(h, a, b) }, append(operands, t)...); err != nil {
		return nil, nil, err
	}
	return wrap(a[0]), wrap(b[0]), nil
}

// Sort is torch.sort(t, dim, descending, stable): the sorted values and the int64 positions they
// came from, both shaped like t. Complex tensors fail with ErrDType.
func (t *Tensor) Sort(dim int, descending, stable bool) (values, indices *Tensor, err error) {
	return t.pair("sort", func(h int64, v, i []int64) int {
		return capi.Ct_sort(h, int64(dim), b2i(descending), b2i(stable), v, i)
	})
}

// Argsort is torch.argsort(t, dim, descending, stable): Sort's indices alone.
func (t *Tensor) Argsort(dim int, descending, stable bool) (*Tensor, error) {
	return t.method1("argsort", func(h int64, out []int64) int {
		return capi.Ct_argsort(h, int64(dim), b2i(descending), b2i(stable), out)
	})
}

// TopK is torch.topk(t, k, dim, largest, sorted): the k largest (smallest when !largest)
// elements along dim and their positions, in order. ErrIndex "selected index k out of range".
func (t *Tensor) TopK(k int64, dim int, largest, sorted bool) (values, indices *Tensor, err error) {
	return t.pair("topk", func(h int64, v, i []int64) int {
		return capi.Ct_topk(h, k, int64(dim), b2i(largest), b2i(sorted), v, i)
	})
}

// KthValue is torch.kthvalue(t, k, dim, keepdim): the k-th smallest element along dim (k from 1)
// and its position.
func (t *Tensor) KthValue(k int64, dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.pair("kthvalue", func(h int64, v, i []int64) int {
		return capi.Ct_kthvalue(h, k, int64(dim), b2i(keepdim), v, i)
	})
}

// Unique is torch.unique(t, sorted=True, return_inverse, return_counts) over the flattened
// tensor: the distinct elements in ascending order (each NaN distinct), the int64 position of
// each element of t among them (shaped like t; nil unless returnInverse) and the int64 count of
// each (nil unless returnCounts). Close every non-nil result.
func (t *Tensor) Unique(returnInverse, returnCounts bool) (values, inverse, counts *Tensor, err error) {
	h, err := t.handle("unique")
	if err != nil {
		return nil, nil, nil, err
	}
	v, i, c := []int64{0}, []int64{0}, []int64{0}
	if err := run("unique", func() int {
		return capi.Ct_unique(h, 1, b2i(returnInverse), b2i(returnCounts), v, i, c)
	}, t); err != nil {
		return nil, nil, nil, err
	}
	values = wrap(v[0])
	if returnInverse {
		inverse = wrap(i[0])
	}
	if returnCounts {
		counts = wrap(c[0])
	}
	return values, inverse, counts, nil
}

// SearchSorted is torch.searchsorted(t, values, out_int32, right, side, sorter) with t the
// sorted sequence (1-D, or the leading dims of values): where each element of values would be
// inserted into its row of t to keep it sorted (right or side "right": after equal elements).
// side "" is not given; sorter (nil: none) holds the int64 positions that sort t. The result is
// int64, or int32 with outInt32.
func (t *Tensor) SearchSorted(values *Tensor, outInt32, right bool, side string, sorter *Tensor) (*Tensor, error) {
	const op = "searchsorted"
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	hv, err := values.handle(op)
	if err != nil {
		return nil, err
	}
	var hs int64
	if sorter != nil {
		if hs, err = sorter.handle(op); err != nil {
			return nil, err
		}
	}
	return newTensor(op, func(out []int64) int {
		return capi.Ct_searchsorted(h, hv, b2i(outInt32), b2i(right), side, hs, out)
	}, t, values, sorter)
}
