package capi

import (
	"runtime"
	"sync/atomic"
)

// Owned is one owned reference to a library handle: the whole state of ctorch.Generator,
// cuda.Stream, cuda.Event, cuda.Graph, cuda.Graphed, cuda.JitFunction and nccl.Comm, each a struct of one Owned. (ctorch.Tensor keeps the same two
// fields itself, on the hot path of every operation.) The owner sets a finalizer of its own (a
// method expression, so that no closure is allocated per object) that calls Finalize, gives
// the reference back with Release (its Close), and reads the handle with Get. Padded to 16
// bytes as ctorch.Tensor is (see there: out of reach of the tiny allocator).
type Owned struct {
	h atomic.Int64
	_ [8]byte
}

// Set stores a new reference.
func (o *Owned) Set(h int64) { o.h.Store(h) }

// Get is the handle, 0 once released.
func (o *Owned) Get() int64 { return o.h.Load() }

// Finalize releases the handle unless Release did; for the owner's finalizer.
func (o *Owned) Finalize(release func(int64) *Failure) {
	if h := o.h.Swap(0); h != 0 {
		release(h)
	}
}

// Release gives the reference back once: it drops owner's finalizer (owner is the pointer to
// the object holding o) and releases the handle. Later calls do nothing and return nil.
func (o *Owned) Release(owner any, release func(int64) *Failure) *Failure {
	h := o.h.Swap(0)
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(owner, nil)
	return release(h)
}

// Unusable is the failure of a call on a nil (isNil) or released owner of type typ
// (CT_ERR_INVALID_HANDLE, as the library reports a released handle).
func Unusable(isNil bool, typ string) *Failure {
	f := &Failure{Code: CT_ERR_INVALID_HANDLE, Name: Ct_status_name(CT_ERR_INVALID_HANDLE)}
	if isNil {
		f.Message = "nil *" + typ
	} else {
		f.Message = "use of a closed " + typ
	}
	return f
}

// NilFunc is the failure of a call given a nil Go function to run (CT_ERR_NULL_POINTER, as the
// library reports a NULL callback); nothing has been done when it is returned.
func NilFunc() *Failure {
	return &Failure{Code: CT_ERR_NULL_POINTER, Name: Ct_status_name(CT_ERR_NULL_POINTER), Message: "nil function"}
}

// The releases of the handle kinds without a direct call (TensorRelease is in direct.go).

func GeneratorRelease(h int64) *Failure { return Call(func() int { return Ct_generator_release(h) }) }
func StreamRelease(h int64) *Failure    { return Call(func() int { return Ct_stream_release(h) }) }
func EventRelease(h int64) *Failure     { return Call(func() int { return Ct_event_release(h) }) }
func GraphRelease(h int64) *Failure     { return Call(func() int { return Ct_cuda_graph_release(h) }) }
func GraphedRelease(h int64) *Failure   { return Call(func() int { return Ct_cuda_graphed_release(h) }) }
func CommRelease(h int64) *Failure      { return Call(func() int { return Ct_nccl_comm_release(h) }) }
