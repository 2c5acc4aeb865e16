package ctorch_test

// DLPack and FromBlob through the binding (capi/ctorch.h section 26): every function reached,
// capsules as unsafe.Pointer with their owner (Close, Consumed, Import, the finalizer), Go
// deleters of FromBlob run exactly once (when the last tensor using the memory closes, not
// before, never after a failure), zero copy checked by data pointer, errors mapped with the
// op's name. The struct's fields, dtypes, layouts and messages are the C suite's
// (tests/capi/dlpack_test.c).

import (
	"sync/atomic"
	"testing"
	"unsafe"

	"ctorch.dev/ctorch"
)

func dataPtr(t *testing.T, x *ctorch.Tensor) uintptr {
	t.Helper()
	p, err := x.DataPtr()
	noErr(t, err)
	return p
}

// export -> import in the same binding: the same memory, both forms, a transposed view.
func TestDLPackRoundTrip(t *testing.T) {
	s, dev := setup(t)
	a := s.T(ctorch.ArangeInt(0, 6, 1, dev))
	v := s.T(s.T(a.View(2, 3)).Transpose(0, 1))
	for _, versioned := range []bool{false, true} {
		var c *ctorch.DLPackCapsule
		var err error
		if versioned {
			c, err = v.ToDLPackVersioned()
		} else {
			c, err = v.ToDLPack()
		}
		noErr(t, err)
		if c.Versioned() != versioned || c.Pointer() == nil {
			t.Fatalf("capsule: versioned %v, pointer %v", c.Versioned(), c.Pointer())
		}
		b := s.T(c.Import())
		if dataPtr(t, b) != dataPtr(t, v) {
			t.Errorf("imported data pointer differs: a copy")
		}
		eqShape(t, b, 3, 2)
		eqI64(t, b, 0, 3, 1, 4, 2, 5)
		if c.Pointer() != nil {
			t.Errorf("an imported capsule still has a pointer")
		}
		if _, err := c.Import(); err == nil {
			t.Errorf("importing a consumed capsule twice succeeded")
		}
		noErr(t, c.Close()) // consumed: nothing to do
	}
	// the raw pointer route: what a consumer of another library does
	c, err := v.DLPack(-1, true)
	noErr(t, err)
	b := s.T(ctorch.FromDLPackVersioned(c.Consumed()))
	eqI64(t, b, 0, 3, 1, 4, 2, 5)
	c2, err := v.DLPack(-1, false)
	noErr(t, err)
	b2 := s.T(ctorch.FromDLPack(c2.Consumed()))
	if dataPtr(t, b2) != dataPtr(t, v) {
		t.Errorf("FromDLPack: a copy")
	}
	typ, id, err := v.DLPackDevice()
	noErr(t, err)
	wantType := int32(1)
	if dev.IsCUDA() {
		wantType = 2
	}
	if typ != wantType || id != 0 {
		t.Errorf("DLPackDevice = (%d, %d), want (%d, 0)", typ, id, wantType)
	}
}

// FromBlob's Go deleter, through a capsule: the memory of a ctorch tensor wrapped by FromBlob,
// exported, the FromBlob tensor closed, the capsule imported: the deleter runs once, when the
// last tensor closes.
func TestFromBlobDeleterOnce(t *testing.T) {
	s, dev := setup(t)
	src := s.T(ctorch.ArangeInt(10, 16, 1, dev))
	var calls atomic.Int32
	ptr := unsafe.Pointer(dataPtr(t, src)) //nolint:govet // C memory of src, alive while src is
	blob, err := ctorch.FromBlob(ptr, []int64{2, 3}, []int64{1, 2}, ctorch.Int64, resolved(dev), func() { calls.Add(1) })
	noErr(t, err)
	eqI64(t, blob, 10, 12, 14, 11, 13, 15)
	row, err := blob.Select(0, 1)
	noErr(t, err)
	c, err := row.ToDLPackVersioned()
	noErr(t, err)
	noErr(t, blob.Close())
	noErr(t, row.Close())
	if calls.Load() != 0 {
		t.Fatalf("the deleter ran while the capsule holds the memory")
	}
	back, err := c.Import()
	noErr(t, err)
	eqI64(t, back, 11, 13, 15)
	noErr(t, back.Close())
	if calls.Load() != 1 {
		t.Fatalf("deleter ran %d times, want 1", calls.Load())
	}
	// no deleter: the caller keeps the memory; a capsule closed unconsumed
	b2 := s.T(ctorch.FromBlob(ptr, []int64{6}, nil, ctorch.Int64, resolved(dev), nil))
	c2, err := b2.ToDLPack()
	noErr(t, err)
	noErr(t, c2.Close())
	noErr(t, c2.Close())
	eqI64(t, b2, 10, 11, 12, 13, 14, 15)
}

func TestDLPackErrors(t *testing.T) {
	s, dev := setup(t)
	var calls atomic.Int32
	x := s.T(ctorch.Zeros([]int64{2}, dev))
	ptr := unsafe.Pointer(dataPtr(t, x)) //nolint:govet // C memory of x
	wantMessage(t, s.E(ctorch.FromBlob(ptr, []int64{2}, []int64{-1}, ctorch.Float32, resolved(dev), func() { calls.Add(1) })),
		ctorch.ErrArgument, "from_blob", "as_strided: Negative strides are not supported")
	wantMessage(t, s.E(ctorch.FromBlob(ptr, []int64{2}, []int64{1, 1}, ctorch.Float32, resolved(dev), nil)),
		ctorch.ErrArgument, "from_blob", "strides has 2 values, shape 1")
	wantMessage(t, s.E(ctorch.FromBlob(nil, []int64{2}, nil, ctorch.Float32, resolved(dev), func() { calls.Add(1) })),
		ctorch.ErrNullPointer, "from_blob", "from_blob: the data pointer is NULL")
	if calls.Load() != 0 {
		t.Errorf("a failed FromBlob ran its deleter")
	}
	wantMessage(t, s.E(ctorch.FromDLPack(nil)), ctorch.ErrNullPointer, "from_dlpack", "argument 'capsule' is NULL")
	wantMessage(t, s.E(ctorch.FromDLPackVersioned(nil)), ctorch.ErrNullPointer, "from_dlpack_versioned", "argument 'capsule' is NULL")
	if !dev.IsCUDA() {
		_, err := x.DLPack(1, true)
		wantMessage(t, err, ctorch.ErrArgument, "tensor_dlpack", "stream should be None on cpu.")
	}
	noErr(t, x.Close())
	_, err := x.ToDLPack()
	wantErr(t, err, ctorch.ErrInvalidHandle)
	_, _, err = x.DLPackDevice()
	wantErr(t, err, ctorch.ErrInvalidHandle)
}
