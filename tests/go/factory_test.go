package ctorch_test

import (
	"reflect"
	"testing"

	"ctorch.dev/ctorch"
)

func TestShapeFactories(t *testing.T) {
	s, dev := setup(t)

	z := s.T(ctorch.Zeros([]int64{2, 3}, dev))
	eqShape(t, z, 2, 3)
	eqDType(t, z, ctorch.Float32) // default dtype
	eqF64(t, z, 0, 0, 0, 0, 0, 0)
	if z.Numel() != 6 || z.Dim() != 2 || !z.IsContiguous() {
		t.Errorf("numel %d dim %d contiguous %v", z.Numel(), z.Dim(), z.IsContiguous())
	}
	if got := z.Strides(); len(got) != 2 || got[0] != 3 || got[1] != 1 {
		t.Errorf("strides %v, want [3 1]", got)
	}
	if d := z.Device(); d.Type != dev.Type {
		t.Errorf("device %v, want %v", d, dev)
	}

	o := s.T(ctorch.Ones([]int64{3}, ctorch.Int32, ctorch.WithDevice(dev)))
	eqDType(t, o, ctorch.Int32)
	eqI64(t, o, 1, 1, 1)

	f := s.T(ctorch.Full([]int64{2, 2}, 7.5, ctorch.WithDType(ctorch.Float64), dev))
	eqF64(t, f, 7.5, 7.5, 7.5, 7.5)
	fi := s.T(ctorch.Full([]int64{2}, 7, ctorch.Int64, dev))
	eqI64(t, fi, 7, 7)

	e := s.T(ctorch.Empty([]int64{4, 0, 2}, ctorch.Int16, dev))
	eqShape(t, e, 4, 0, 2)
	eqDType(t, e, ctorch.Int16)
	if e.Numel() != 0 {
		t.Errorf("numel %d, want 0", e.Numel())
	}

	sc := s.T(ctorch.Zeros([]int64{}, dev)) // 0-dim
	eqShape(t, sc)
	if sc.Dim() != 0 || sc.Numel() != 1 {
		t.Errorf("0-dim: dim %d numel %d", sc.Dim(), sc.Numel())
	}
	b := s.T(ctorch.Ones([]int64{2}, ctorch.Bool))
	eqBool(t, b, true, true)
}

func TestRangeFactories(t *testing.T) {
	s, dev := setup(t)
	a := s.T(ctorch.Arange(5, 0, -2, dev))
	eqDType(t, a, ctorch.Float32)
	eqF64(t, a, 5, 3, 1)
	ai := s.T(ctorch.ArangeInt(0, 7, 3, ctorch.Int32, dev))
	eqDType(t, ai, ctorch.Int32)
	eqI64(t, ai, 0, 3, 6)
	wantErr(t, s.E(ctorch.Arange(0, 1, 0)), ctorch.ErrArgument)
	eqF64(t, s.T(ctorch.Linspace(0, 1, 5, ctorch.Float64, dev)), 0, 0.25, 0.5, 0.75, 1)
	wantErr(t, s.E(ctorch.Linspace(0, 1, -1)), ctorch.ErrArgument)
	eqF64(t, s.T(ctorch.Eye(2, dev)), 1, 0, 0, 1)
	eye23 := s.T(ctorch.EyeNM(2, 3, ctorch.Int64))
	eqShape(t, eye23, 2, 3)
	eqI64(t, eye23, 1, 0, 0, 0, 1, 0)
}

// roundTrip puts data into a tensor and reads it back with get: the Go element type maps to
// want (DTypeOf too) and the values come back bit for bit.
func roundTrip[T ctorch.Element](t *testing.T, s *scope, data []T, want ctorch.DType, get func(*ctorch.Tensor) ([]T, error)) {
	t.Helper()
	x := s.T(ctorch.FromSlice(data, nil, testDevice()))
	eqDType(t, x, want)
	if d := ctorch.DTypeOf[T](); d != want {
		t.Errorf("DTypeOf[%T]() = %v, want %v", data, d, want)
	}
	got, err := get(x)
	noErr(t, err)
	if !reflect.DeepEqual(got, data) {
		t.Errorf("%v back as %v", data, got)
	}
}

func TestFromSliceEveryElementType(t *testing.T) {
	s, dev := setup(t)
	roundTrip(t, s, []float32{1.5, -2, 3}, ctorch.Float32, (*ctorch.Tensor).Float32s)
	roundTrip(t, s, []float64{0.1, 0.2, 0.3}, ctorch.Float64, (*ctorch.Tensor).Float64s)
	roundTrip(t, s, []int64{-1 << 40, 2, 1<<62 + 1}, ctorch.Int64, (*ctorch.Tensor).Int64s)
	roundTrip(t, s, []int32{-7, 1 << 30}, ctorch.Int32, (*ctorch.Tensor).Int32s)
	roundTrip(t, s, []int16{-300, 300}, ctorch.Int16, (*ctorch.Tensor).Int16s)
	roundTrip(t, s, []int8{-128, 127}, ctorch.Int8, (*ctorch.Tensor).Int8s)
	roundTrip(t, s, []uint8{0, 255, 7}, ctorch.Uint8, (*ctorch.Tensor).Uint8s)
	roundTrip(t, s, []bool{true, false, true}, ctorch.Bool, (*ctorch.Tensor).Bools)
	roundTrip(t, s, []complex64{1 + 2i, -3i}, ctorch.Complex64, (*ctorch.Tensor).Complex64s)
	roundTrip(t, s, []complex128{0.5 - 0.25i}, ctorch.Complex128, (*ctorch.Tensor).Complex128s)
	eqShape(t, s.T(ctorch.FromSlice([]float64{1, 2, 3, 4}, []int64{2, 2}, dev)), 2, 2)

	// A DType option converts, as torch.tensor(data, dtype=...) does.
	conv := s.T(ctorch.FromSlice([]float64{1.9, -1.9, 2.5}, nil, ctorch.Int32, dev))
	eqDType(t, conv, ctorch.Int32)
	eqI64(t, conv, 1, -1, 2) // truncation toward zero
	sc := s.T(ctorch.Scalar(2.5, dev))
	eqShape(t, sc)
	eqDType(t, sc, ctorch.Float64)
	eqShape(t, s.T(ctorch.FromSlice([]float32{}, nil)), 0)
	wantErr(t, s.E(ctorch.FromSlice([]float32{1, 2, 3}, []int64{2, 2})), ctorch.ErrBufferSize)
}

func TestHalfTypesThroughBytes(t *testing.T) {
	s := newScope(t)
	// float16: 1.0 = 0x3C00, -2.0 = 0xC000 (little endian)
	h := s.T(ctorch.FromBytes([]byte{0x00, 0x3C, 0x00, 0xC0}, []int64{2}, ctorch.Float16))
	eqDType(t, h, ctorch.Float16)
	eqF64(t, h, 1, -2)
	raw, err := h.Bytes()
	noErr(t, err)
	if string(raw) != string([]byte{0x00, 0x3C, 0x00, 0xC0}) {
		t.Errorf("Bytes % x", raw)
	}
	// bfloat16: 1.0 = 0x3F80, 0.5 = 0x3F00
	bf := s.T(ctorch.FromBytes([]byte{0x80, 0x3F, 0x00, 0x3F}, nil, ctorch.BFloat16))
	eqShape(t, bf, 2) // nil shape: 1-D of len(data)/itemsize elements
	eqF64(t, bf, 1, 0.5)
	// Converting on the way in, and float16 arithmetic stays float16.
	h32 := s.T(ctorch.FromBytes([]byte{0x00, 0x3C, 0x00, 0xC0}, []int64{2, 1}, ctorch.Float16, ctorch.Float32))
	eqDType(t, h32, ctorch.Float32)
	eqShape(t, h32, 2, 1)
	eqF64(t, h32, 1, -2)
	_, err = ctorch.FromBytes([]byte{1, 2, 3}, nil, ctorch.Float16)
	wantErr(t, err, ctorch.ErrBufferSize)
	_, err = ctorch.FromBytes([]byte{1, 2, 3}, []int64{2}, ctorch.Float16)
	wantErr(t, err, ctorch.ErrBufferSize)
}

func TestLikeAndNewFactories(t *testing.T) {
	s, dev := setup(t)
	src := s.T(ctorch.FromSlice([]int32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))

	el := s.T(ctorch.EmptyLike(src))
	eqShape(t, el, 2, 3)
	eqDType(t, el, ctorch.Int32)
	zl := s.T(ctorch.ZerosLike(src))
	eqShape(t, zl, 2, 3)
	eqDType(t, zl, ctorch.Int32)
	eqI64(t, zl, 0, 0, 0, 0, 0, 0)
	ol := s.T(ctorch.OnesLike(src, ctorch.Float64)) // dtype override
	eqDType(t, ol, ctorch.Float64)
	eqF64(t, ol, 1, 1, 1, 1, 1, 1)
	fl := s.T(ctorch.FullLike(src, 9))
	eqI64(t, fl, 9, 9, 9, 9, 9, 9)
	olc := s.T(ctorch.OnesLike(src, ctorch.CPU)) // device override
	if olc.Device() != ctorch.CPU {
		t.Errorf("OnesLike(..., CPU) on %v", olc.Device())
	}
	for _, x := range []*ctorch.Tensor{el, zl, ol, fl} {
		if x.Device() != src.Device() {
			t.Errorf("*_like on %v, source on %v", x.Device(), src.Device())
		}
	}

	nz := s.T(src.NewZeros([]int64{4}))
	eqShape(t, nz, 4)
	eqDType(t, nz, ctorch.Int32)
	eqI64(t, nz, 0, 0, 0, 0)
	no := s.T(src.NewOnes([]int64{1, 2}, ctorch.Float32))
	eqShape(t, no, 1, 2)
	eqDType(t, no, ctorch.Float32)
	eqF64(t, no, 1, 1)
	ne := s.T(src.NewEmpty([]int64{3, 3}))
	eqShape(t, ne, 3, 3)
	eqDType(t, ne, ctorch.Int32)
	nf := s.T(src.NewFull([]int64{2}, -4))
	eqI64(t, nf, -4, -4)
	nt := s.T(ctorch.NewTensorFrom(src, []float64{1.5, 2.5, -3.5}, nil)) // converted to int32
	eqDType(t, nt, ctorch.Int32)
	eqI64(t, nt, 1, 2, -3)
	nt2 := s.T(ctorch.NewTensorFrom(src, []int8{1, 2, 3, 4}, []int64{2, 2}, ctorch.Float64))
	eqDType(t, nt2, ctorch.Float64)
	eqShape(t, nt2, 2, 2)
	eqF64(t, nt2, 1, 2, 3, 4)
	for _, x := range []*ctorch.Tensor{nz, no, ne, nf, nt, nt2} {
		if x.Device() != src.Device() {
			t.Errorf("new_* on %v, source on %v", x.Device(), src.Device())
		}
	}
}
