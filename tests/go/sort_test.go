package ctorch_test

// Sorting and selection through the binding: every method once with its arguments reaching C
// (dim, flags, k, side, a nil and a given sorter), the multi-result forms (Unique's nil results)
// and error mapping. Values, dtypes and layouts are the C suite's (tests/capi/sort_test.c).

import (
	"testing"

	"ctorch.dev/ctorch"
)

func TestSorting(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{3, 1, 2, 1, 5, 4}, []int64{2, 3}, dev))
	v, i, err := x.Sort(-1, false, true)
	noErr(t, err)
	s.keep(v, i)
	eqF64(t, v, 1, 2, 3, 1, 4, 5)
	eqI64(t, i, 1, 2, 0, 0, 2, 1)
	v, i, err = x.Sort(0, true, false)
	noErr(t, err)
	s.keep(v, i)
	eqF64(t, v, 3, 5, 4, 1, 1, 2)
	eqI64(t, s.T(x.Argsort(1, true, true)), 0, 2, 1, 1, 2, 0)
	v, i, err = x.TopK(2, 1, true, true)
	noErr(t, err)
	s.keep(v, i)
	eqShape(t, v, 2, 2)
	eqF64(t, v, 3, 2, 5, 4)
	eqI64(t, i, 0, 2, 1, 2)
	v, i, err = x.TopK(1, 0, false, false)
	noErr(t, err)
	s.keep(v, i)
	eqF64(t, v, 1, 1, 2)
	v, i, err = x.KthValue(2, 1, true)
	noErr(t, err)
	s.keep(v, i)
	eqShape(t, v, 2, 1)
	eqF64(t, v, 2, 4)
	eqI64(t, i, 2, 2)

	u, inv, cnt, err := x.Unique(true, true)
	noErr(t, err)
	s.keep(u, inv, cnt)
	eqF64(t, u, 1, 2, 3, 4, 5)
	eqShape(t, inv, 2, 3)
	eqI64(t, inv, 2, 0, 1, 0, 4, 3)
	eqI64(t, cnt, 2, 1, 1, 1, 1)
	u, inv, cnt, err = x.Unique(false, false)
	noErr(t, err)
	s.keep(u)
	if inv != nil || cnt != nil {
		t.Errorf("Unique(false, false) returned inverse %v, counts %v", inv, cnt)
	}

	seq := s.T(ctorch.FromSlice([]float32{1, 3, 5, 7}, []int64{4}, dev))
	q := s.T(ctorch.FromSlice([]float32{3, 6, 0}, []int64{3}, dev))
	eqI64(t, s.T(seq.SearchSorted(q, false, false, "", nil)), 1, 3, 0)
	r := s.T(seq.SearchSorted(q, true, true, "", nil))
	eqDType(t, r, ctorch.Int32)
	eqI64(t, r, 2, 3, 0)
	eqI64(t, s.T(seq.SearchSorted(q, false, false, "right", nil)), 2, 3, 0)
	useq := s.T(ctorch.FromSlice([]float32{7, 1, 5, 3}, []int64{4}, dev))
	sorter := s.T(ctorch.FromSlice([]int64{1, 3, 2, 0}, []int64{4}, dev))
	eqI64(t, s.T(useq.SearchSorted(q, false, false, "", sorter)), 1, 3, 0)

	_, _, err = x.TopK(4, 1, true, true)
	wantErr(t, err, ctorch.ErrIndex)
	_, _, err = x.KthValue(0, 1, false)
	wantErr(t, err, ctorch.ErrIndex)
	_, _, err = x.Sort(2, false, false)
	wantErr(t, err, ctorch.ErrIndex)
	wantErr(t, s.E(seq.SearchSorted(q, false, true, "left", nil)), ctorch.ErrArgument)
	wantErr(t, s.E((*ctorch.Tensor)(nil).Argsort(0, false, false)), ctorch.ErrInvalidHandle)
	wantErr(t, s.E(seq.SearchSorted(nil, false, false, "", nil)), ctorch.ErrInvalidHandle)
	_, _, _, err = (*ctorch.Tensor)(nil).Unique(true, true)
	wantErr(t, err, ctorch.ErrInvalidHandle)
}
