package ctorch_test

// Indexing through the binding (capi/ctorch.h section 30): every method reaching C with its
// arguments (dim, value, alpha, the operands' handles), the results wrapped and owned, errors
// mapped with the op's name, closed and nil tensors refused before C. Values over dtypes and
// layouts, PyTorch's messages and the CUDA device assertion are the C suite's
// (tests/capi/indexing_test.c).

import (
	"testing"

	"ctorch.dev/ctorch"
)

func TestIndexingCalls(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{0, 1, 2, 3, 4, 5}, []int64{2, 3}, dev))
	i := s.T(ctorch.FromSlice([]int64{2, 0}, nil, dev))
	eqF64(t, s.T(x.IndexSelect(1, i)), 2, 0, 5, 3)
	eqF64(t, s.T(x.IndexSelect(1, s.T(ctorch.FromSlice([]int32{1}, nil, dev)))), 1, 4)
	g := s.T(ctorch.FromSlice([]int64{1, 1, 0, 2}, []int64{2, 2}, dev))
	eqF64(t, s.T(x.Gather(1, g)), 1, 1, 3, 5)
	eqF64(t, s.T(x.Take(s.T(ctorch.FromSlice([]int64{-1, 0}, nil, dev)))), 5, 0)

	src := s.T(ctorch.FromSlice([]float32{10, 20, 30, 40}, []int64{2, 2}, dev))
	g2 := s.T(ctorch.FromSlice([]int64{1, 0, 0, 2}, []int64{2, 2}, dev))
	eqF64(t, s.T(x.Scatter(1, g2, src)), 20, 10, 2, 30, 4, 40)
	eqF64(t, s.T(x.ScatterValue(1, g, -1)), 0, -1, 2, -1, 4, -1)
	eqF64(t, s.T(x.ScatterAdd(1, g, src)), 0, 31, 2, 33, 4, 45)
	eqF64(t, x, 0, 1, 2, 3, 4, 5) // the out-of-place forms leave x alone

	y := s.T(ctorch.Zeros([]int64{3, 2}, dev))
	noErr(t, y.IndexAddInPlace(0, i, s.T(ctorch.FromSlice([]float32{1, 2, 3, 4}, []int64{2, 2}, dev)), 0.5))
	eqF64(t, y, 1.5, 2, 0, 0, 0.5, 1)

	m := s.T(ctorch.FromSlice([]bool{true, false, true}, nil, dev))
	eqF64(t, s.T(x.MaskedFill(m, 9)), 9, 1, 9, 9, 4, 9)
	eqF64(t, s.T(x.MaskedSelect(m)), 0, 2, 3, 5)
	z := s.T(x.MaskedFill(m, 0))
	noErr(t, z.MaskedFillInPlace(s.T(ctorch.FromSlice([]bool{false, true, false}, nil, dev)), 7))
	eqF64(t, z, 0, 7, 0, 0, 7, 0)
	nz := s.T(z.Nonzero())
	eqShape(t, nz, 2, 2)
	eqI64(t, nz, 0, 1, 1, 1)
	cols, err := ctorch.WhereCond(z)
	noErr(t, err)
	if len(cols) != 2 {
		t.Fatalf("WhereCond gave %d tensors, want 2", len(cols))
	}
	s.keep(cols...)
	eqI64(t, cols[0], 0, 1)
	eqI64(t, cols[1], 1, 1)
	one, err := ctorch.WhereCond(s.T(ctorch.Full(nil, 3, dev)))
	noErr(t, err)
	s.keep(one...)
	if len(one) != 1 {
		t.Fatalf("WhereCond of a 0-dim tensor gave %d tensors, want 1", len(one))
	}
	eqI64(t, one[0], 0)

	// advanced indexing: x[:, [2, 0]] and x[[1, 0], [0, 2]]; x[mask] = -1, then += with repeats
	eqF64(t, s.T(x.Index(nil, i)), 2, 0, 5, 3)
	eqF64(t, s.T(x.Index(s.T(ctorch.FromSlice([]int64{1, 0}, nil, dev)), s.T(ctorch.FromSlice([]int64{0, 2}, nil, dev)))), 3, 2)
	w := s.T(x.Clone())
	noErr(t, w.IndexPutInPlace([]*ctorch.Tensor{s.T(ctorch.FromSlice([]bool{true, false}, nil, dev))}, s.T(ctorch.Full(nil, -1, dev)), false))
	eqF64(t, w, -1, -1, -1, 3, 4, 5)
	rep := s.T(ctorch.FromSlice([]int64{1, 1}, nil, dev))
	noErr(t, w.IndexPutInPlace([]*ctorch.Tensor{nil, rep}, s.T(ctorch.Full(nil, 2, dev)), true))
	eqF64(t, w, -1, 3, -1, 3, 8, 5)
}

func TestIndexingErrors(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{0, 1, 2}, nil, dev))
	f := s.T(ctorch.FromSlice([]float32{0}, nil, dev))
	wantMessage(t, s.E(x.IndexSelect(0, f)), ctorch.ErrDType, "index_select", "index_select(): Expected dtype int32 or int64 for index")
	wantMessage(t, s.E(x.Gather(0, f)), ctorch.ErrDType, "gather", "gather(): Expected dtype int64 for index")
	wantMessage(t, s.E(x.MaskedFill(f, 1)), ctorch.ErrDType, "masked_fill", "masked_fill_ only supports boolean masks")
	wantMessage(t, s.E(x.MaskedSelect(f)), ctorch.ErrDType, "masked_select", "masked_select: expected BoolTensor for mask")
	wantMessage(t, s.E(x.Index(f)), ctorch.ErrIndex, "index", "tensors used as indices must be long, int, byte or bool tensors")
	wantMessage(t, s.E(x.ScatterAdd(0, f, x)), ctorch.ErrDType, "scatter_add", "scatter_add(): Expected dtype int64 for index")
	if !cudaTensors() { // the CPU's messages for an index out of range (CUDA asserts: the C suite)
		bad := s.T(ctorch.FromSlice([]int64{3}, nil, dev))
		wantMessage(t, s.E(x.IndexSelect(0, bad)), ctorch.ErrIndex, "index_select", "index out of range in self")
		wantMessage(t, s.E(x.Take(bad)), ctorch.ErrIndex, "take", "out of range: tried to access index 3 on a tensor of 3 elements.")
		wantMessage(t, x.IndexAddInPlace(0, bad, f, 1), ctorch.ErrIndex, "index_add_", "index out of range in self")
	}
	closed := s.T(ctorch.Zeros([]int64{3}, dev))
	noErr(t, closed.Close())
	i := s.T(ctorch.FromSlice([]int64{0}, nil, dev))
	m := s.T(ctorch.FromSlice([]bool{true, false, true}, nil, dev))
	for _, y := range []*ctorch.Tensor{closed, nil} {
		for _, err := range []error{
			s.E(y.IndexSelect(0, i)), s.E(x.IndexSelect(0, y)), s.E(y.Gather(0, i)), s.E(y.Take(i)),
			s.E(y.Scatter(0, i, x)), s.E(x.Scatter(0, i, y)), s.E(y.ScatterValue(0, i, 1)), s.E(y.ScatterAdd(0, i, x)),
			y.IndexAddInPlace(0, i, x, 1), s.E(y.MaskedFill(m, 1)), s.E(x.MaskedFill(y, 1)), y.MaskedFillInPlace(m, 1),
			s.E(y.MaskedSelect(m)), s.E(y.Nonzero()), s.E(y.Index(i)),
			y.IndexPutInPlace([]*ctorch.Tensor{i}, x, false), x.IndexPutInPlace([]*ctorch.Tensor{i}, y, true),
		} {
			wantErr(t, err, ctorch.ErrInvalidHandle)
		}
		_, err := ctorch.WhereCond(y)
		wantErr(t, err, ctorch.ErrInvalidHandle)
	}
	// a closed index tensor is refused; a nil one is a full slice (: alone is no index)
	wantErr(t, s.E(x.Index(closed)), ctorch.ErrInvalidHandle)
	wantErr(t, x.IndexPutInPlace([]*ctorch.Tensor{closed}, x, false), ctorch.ErrInvalidHandle)
	wantMessage(t, s.E(x.Index(nil)), ctorch.ErrArgument, "index", "index: at least one index tensor is needed")
}
