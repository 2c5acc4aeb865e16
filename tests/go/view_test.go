package ctorch_test

import (
	"reflect"
	"testing"

	"ctorch.dev/ctorch"
)

func shares(t *testing.T, a, b *ctorch.Tensor, want bool) {
	t.Helper()
	got, err := a.SharesStorage(b)
	noErr(t, err)
	if got != want {
		t.Errorf("SharesStorage = %v, want %v", got, want)
	}
}

func TestViewsShareStorage(t *testing.T) {
	s, dev := setup(t)
	base := s.T(ctorch.ArangeInt(0, 12, 1, dev)) // 0..11

	v := s.T(base.View(3, 4))
	eqShape(t, v, 3, 4)
	shares(t, v, base, true)
	if same, _ := v.IsSame(base); same {
		t.Error("a view is not the same tensor as its base")
	}
	inferred := s.T(base.View(2, -1))
	eqShape(t, inferred, 2, 6)

	// Write through a view, see it in the base.
	row := s.T(v.Select(0, 1)) // [4 5 6 7]
	eqShape(t, row, 4)
	eqI64(t, row, 4, 5, 6, 7)
	noErr(t, row.Fill(-1))
	eqI64(t, base, 0, 1, 2, 3, -1, -1, -1, -1, 8, 9, 10, 11)
	col := s.T(v.Narrow(1, 2, 1)) // column 2: [2, -1, 10]
	eqShape(t, col, 3, 1)
	eqI64(t, col, 2, -1, 10)
	noErr(t, col.MulIntInPlace(100))
	eqI64(t, base, 0, 1, 200, 3, -1, -1, -100, -1, 8, 9, 1000, 11)

	tr := s.T(v.Transpose(0, 1))
	eqShape(t, tr, 4, 3)
	if got := tr.Strides(); !reflect.DeepEqual(got, []int64{1, 4}) {
		t.Errorf("transposed strides %v, want [1 4]", got)
	}
	if tr.IsContiguous() {
		t.Error("a transpose is not contiguous")
	}
	shares(t, tr, base, true)
	eqI64(t, tr, 0, -1, 8, 1, -1, 9, 200, -100, 1000, 3, -1, 11)
	_, err := tr.View(12) // strides do not allow a view
	wantErr(t, err, ctorch.ErrShape)
	flat := s.T(tr.Reshape(12)) // reshape copies instead
	shares(t, flat, base, false)
	eqI64(t, flat, 0, -1, 8, 1, -1, 9, 200, -100, 1000, 3, -1, 11)
	c := s.T(tr.Contiguous())
	shares(t, c, base, false)
	if !c.IsContiguous() {
		t.Error("Contiguous() is not contiguous")
	}
	c2 := s.T(v.Contiguous()) // already contiguous: the same tensor
	if same, err := c2.IsSame(v); err != nil || !same {
		t.Errorf("Contiguous() of a contiguous tensor: IsSame = %v, %v", same, err)
	}
	rs := s.T(v.Reshape(6, 2)) // contiguous: reshape is a view
	shares(t, rs, base, true)

	p := s.T(s.T(base.View(2, 3, 2)).Permute(2, 0, 1))
	eqShape(t, p, 2, 2, 3)
	if got := p.Strides(); !reflect.DeepEqual(got, []int64{1, 6, 2}) {
		t.Errorf("permuted strides %v, want [1 6 2]", got)
	}
	eqI64(t, p, 0, 200, -1, -100, 8, 1000, 1, 3, -1, -1, 9, 11)

	sl := s.T(base.Slice(0, 1, 10, 3)) // elements 1, 4, 7
	eqI64(t, sl, 1, -1, -1)
	if sl.StorageOffset() != 1 {
		t.Errorf("storage offset %d, want 1", sl.StorageOffset())
	}
	// data_ptr of a view: the base's address plus offset * itemsize (int64: 8 bytes)
	bp, err := base.DataPtr()
	noErr(t, err)
	sp, err := sl.DataPtr()
	noErr(t, err)
	if bp == 0 || sp-bp != 8 {
		t.Errorf("DataPtr: base %#x, slice %#x, want the slice 8 bytes further", bp, sp)
	}
	noErr(t, sl.Zero())
	eqI64(t, base, 0, 0, 200, 3, 0, -1, -100, 0, 8, 9, 1000, 11)
	neg := s.T(base.Slice(0, -3, 100, 1)) // clamps like Python
	eqI64(t, neg, 9, 1000, 11)
	last := s.T(base.Select(0, -1))
	eqShape(t, last)
	if v, _ := last.ItemInt64(); v != 11 {
		t.Errorf("select(0, -1) = %d, want 11", v)
	}

	one := s.T(ctorch.FromSlice([]float32{1, 2, 3}, []int64{3, 1}, dev))
	ex := s.T(one.Expand(3, 4))
	eqShape(t, ex, 3, 4)
	if got := ex.Strides(); !reflect.DeepEqual(got, []int64{1, 0}) {
		t.Errorf("expanded strides %v, want [1 0]", got)
	}
	eqF64(t, ex, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3)
	ex2 := s.T(one.Expand(2, -1, 2))
	eqShape(t, ex2, 2, 3, 2)
	shares(t, ex2, one, true)
	_, err = one.Expand(4, 4)
	wantErr(t, err, ctorch.ErrShape)

	u := s.T(one.Unsqueeze(0))
	eqShape(t, u, 1, 3, 1)
	u2 := s.T(one.Unsqueeze(-1))
	eqShape(t, u2, 3, 1, 1)
	sq := s.T(u.Squeeze())
	eqShape(t, sq, 3)
	sq0 := s.T(u.SqueezeDim(0))
	eqShape(t, sq0, 3, 1)
	sq1 := s.T(u.SqueezeDim(1)) // size 3: unchanged
	eqShape(t, sq1, 1, 3, 1)
	shares(t, sq, one, true)
	fl := s.T(u.Flatten(0, -1))
	eqShape(t, fl, 3)
	fl2 := s.T(s.T(ctorch.Zeros([]int64{2, 3, 4, 5}, dev)).Flatten(1, 2))
	eqShape(t, fl2, 2, 12, 5)
	noErr(t, fl.AddScalarInPlace(10)) // flatten of a contiguous tensor is a view
	eqF64(t, one, 11, 12, 13)
}

func TestMetadata(t *testing.T) {
	s := newScope(t)
	x := s.T(ctorch.Zeros([]int64{2, 3, 4}))
	for i, want := range []int64{2, 3, 4} {
		got, err := x.Size(i)
		noErr(t, err)
		if got != want {
			t.Errorf("Size(%d) = %d, want %d", i, got, want)
		}
	}
	if n, _ := x.Size(-1); n != 4 {
		t.Errorf("Size(-1) = %d, want 4", n)
	}
	if st, _ := x.Stride(0); st != 12 {
		t.Errorf("Stride(0) = %d, want 12", st)
	}
	if st, _ := x.Stride(-2); st != 4 {
		t.Errorf("Stride(-2) = %d, want 4", st)
	}
	_, err := x.Size(3)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = x.Stride(-4)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = x.Size(1 << 33) // does not fit the C int32
	wantErr(t, err, ctorch.ErrIndex)
	// More than 8 dims (the first buffer of Shape).
	big := s.T(ctorch.Zeros([]int64{1, 2, 1, 2, 1, 2, 1, 2, 1, 2}))
	eqShape(t, big, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2)
	if got := big.Strides(); !reflect.DeepEqual(got, []int64{32, 16, 16, 8, 8, 4, 4, 2, 2, 1}) {
		t.Errorf("strides %v", got)
	}
	if x.StorageOffset() != 0 {
		t.Error("storage offset")
	}
	if h := x.Handle(); h == 0 {
		t.Error("Handle() = 0 for an open tensor")
	}
}
