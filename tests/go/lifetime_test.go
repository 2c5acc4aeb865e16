package ctorch_test

import (
	"runtime"
	"testing"

	"ctorch.dev/ctorch"
)

// errOf is the error of a call's (value, error) result.
func errOf(_ any, err error) error { return err }

func TestCloseAndClosedTensors(t *testing.T) {
	start := liveCount(t)
	x, err := ctorch.Ones([]int64{2})
	noErr(t, err)
	y, err := ctorch.Ones([]int64{2})
	noErr(t, err)
	if n := liveCount(t); n != start+2 {
		t.Errorf("live count %d after two factories, want %d", n, start+2)
	}
	noErr(t, x.Close())
	if n := liveCount(t); n != start+1 {
		t.Errorf("live count %d after Close, want %d", n, start+1)
	}
	noErr(t, x.Close()) // double close is harmless
	noErr(t, x.Close())
	if !x.Closed() || y.Closed() {
		t.Error("Closed()")
	}
	if x.Handle() != 0 {
		t.Error("Handle() of a closed tensor is not 0")
	}

	// Every use of a closed tensor is an error, never a crash.
	for i, err := range []error{
		errOf(x.Add(y)), errOf(y.Add(x)), errOf(x.Neg()), errOf(x.Item()), errOf(x.Float32s()),
		errOf(x.To(ctorch.Float64)), errOf(x.View(2)), errOf(x.Sum()), x.Fill(1), x.AddInPlace(y),
		y.CopyFrom(x), errOf(ctorch.Cat([]*ctorch.Tensor{y, x}, 0)), errOf(ctorch.ZerosLike(x)),
		errOf(x.Repr()), errOf(x.ShapeErr()), errOf(x.Ref()), errOf(x.SharesStorage(y)),
	} {
		if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Code != 102 {
			t.Errorf("call %d: code %d", i, e.Code)
		}
	}
	if x.String() != "tensor(<closed>)" || x.Shape() != nil || x.Numel() != 0 || x.Dim() != 0 ||
		x.DType() != ctorch.Undefined || x.Device() != (ctorch.Device{}) {
		t.Error("accessors of a closed tensor")
	}

	// A nil *Tensor behaves like a closed one.
	var n *ctorch.Tensor
	noErr(t, n.Close())
	_, err = n.Abs()
	wantErr(t, err, ctorch.ErrInvalidHandle)
	_, err = y.Mul(n)
	wantErr(t, err, ctorch.ErrInvalidHandle)
	_, err = ctorch.Where(n, y, y)
	wantErr(t, err, ctorch.ErrInvalidHandle)

	noErr(t, y.Close())
	if got := liveCount(t); got != start {
		t.Errorf("live count %d at the end, want %d", got, start)
	}
}

func TestRefAndToSameTensor(t *testing.T) {
	s := newScope(t)
	x := s.T(ctorch.FromSlice([]float32{1, 2}, nil))
	start := liveCount(t)

	r := s.T(x.Ref()) // a second reference to the same tensor (the same handle)
	if same, err := r.IsSame(x); err != nil || !same {
		t.Errorf("Ref: IsSame = %v, %v", same, err)
	}
	if r.Handle() != x.Handle() || liveCount(t) != start {
		t.Errorf("Ref changed the handle or the number of handles")
	}
	// to() with nothing to change is the same tensor (a new reference), as in PyTorch.
	same := s.T(x.To(ctorch.CPU, ctorch.Float32))
	if ok, _ := same.IsSame(x); !ok {
		t.Error("To(cpu, float32) of a cpu float32 tensor is not the same tensor")
	}
	noDev := s.T(x.To())
	if ok, _ := noDev.IsSame(x); !ok {
		t.Error("To() is not the same tensor")
	}
	cpu := s.T(x.CPU())
	if ok, _ := cpu.IsSame(x); !ok {
		t.Error("CPU() of a cpu tensor is not the same tensor")
	}
	cp := s.T(x.To(ctorch.ForceCopy()))
	if ok, _ := cp.IsSame(x); ok {
		t.Error("To(ForceCopy()) returned the same tensor")
	}
	shares(t, cp, x, false)
	d := s.T(x.To(ctorch.Float64))
	if ok, _ := d.IsSame(x); ok {
		t.Error("To(float64) returned the same tensor")
	}
	eqDType(t, d, ctorch.Float64)
	eqF64(t, d, 1, 2)
	nb := s.T(x.To(ctorch.Int32, ctorch.NonBlocking()))
	eqI64(t, nb, 1, 2)

	// Closing one reference leaves the other usable.
	noErr(t, same.Close())
	noErr(t, r.Close())
	eqF64(t, x, 1, 2)
	noErr(t, x.AddIntInPlace(1))
	eqF64(t, noDev, 2, 3) // noDev is x
	eqF64(t, cp, 1, 2)    // the copy is not
	cl := s.T(x.Clone())
	shares(t, cl, x, false)
	dst := s.T(ctorch.Zeros([]int64{2, 2}, ctorch.Int64))
	noErr(t, dst.CopyFrom(x)) // broadcast + convert
	eqI64(t, dst, 2, 3, 2, 3)
	noErr(t, dst.CopyFromNonBlocking(s.T(ctorch.Scalar(int64(5)))))
	eqI64(t, dst, 5, 5, 5, 5)
}

func TestViewOutlivesItsBase(t *testing.T) {
	s := newScope(t)
	base, err := ctorch.ArangeInt(0, 6, 1)
	noErr(t, err)
	v := s.T(base.View(2, 3))
	row := s.T(v.Select(0, 1))
	noErr(t, base.Close()) // the storage stays alive while views use it
	eqI64(t, v, 0, 1, 2, 3, 4, 5)
	noErr(t, row.Fill(9))
	eqI64(t, v, 0, 1, 2, 9, 9, 9)
}

// TestGarbageCollectorReleasesTensors creates and drops ~10k tensors, closing only some of
// them explicitly: the finalizers must release the others once the collector runs.
func TestGarbageCollectorReleasesTensors(t *testing.T) {
	start := settle(t) // let the finalizers of earlier garbage run first
	const n = 10000
	kept := 0
	for i := 0; i < n; i++ {
		x, err := ctorch.Full([]int64{4}, float64(i))
		noErr(t, err)
		if i%3 == 0 {
			y, err := x.AddInt(1)
			noErr(t, err)
			noErr(t, y.Close())
			noErr(t, x.Close())
		} else {
			kept++ // dropped without Close
		}
	}
	after := liveCount(t)
	t.Logf("live tensors: %d at start, %d after creating %d and closing %d", start, after, n, n-kept)
	if after <= start {
		t.Logf("the collector already ran during the loop")
	}
	collectUntil(t, "tensors", liveCount, start)
	runtime.GC()
}

// settle runs the collector until the live count stops changing, and returns it.
func settle(t *testing.T) int64 {
	t.Helper()
	n, stable := liveCount(t), 0
	for i := 0; i < 200 && stable < 3; i++ {
		collect()
		m := liveCount(t)
		if m == n {
			stable++
		} else {
			n, stable = m, 0
		}
	}
	return n
}
