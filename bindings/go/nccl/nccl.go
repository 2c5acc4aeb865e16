// Package nccl is a communicator for processes and hosts on NCCL, NVIDIA's library for GPU
// collectives: torch.distributed's NCCL backend for ctorch (capi/ctorch.h section 21;
// docs/comm.md). torch.cuda.comm, between the GPUs of one process, is in package cuda
// (cuda.Broadcast, cuda.ReduceAdd, cuda.Scatter, cuda.Gather, ...).
//
// A communicator joins nranks members (processes, or goroutines of one process), each with one
// GPU, into a group that runs collectives: every member calls the same collectives in the same
// order. One member makes a unique id (UniqueID, UniqueIDBytes bytes), the program moves those
// bytes to every other member with a transport of its own (a file, a socket, an environment
// variable), and each member joins with its rank:
//
//	id, err := nccl.UniqueID()        // on rank 0; then send id to the others
//	c, err := nccl.Init(nranks, id, rank, device, time.Minute)
//	defer c.Close()
//	err = c.AllReduce(t, nccl.Sum, nil) // queued on the current stream of c's device
//
// This works the same within one host and across hosts (examples/go/allreduce.go).
//
// Collectives are asynchronous like any op: each is queued on a stream (a nil *cuda.Stream:
// the current stream of the communicator's device for the calling OS thread) and returns.
// Tensors must be dense, contiguous CUDA tensors on the communicator's device.
//
// Dead peers and failures: every communicator has a timeout (Init's; DefaultTimeout for 0).
// When a collective does not finish within it, or NCCL reports an asynchronous error (a peer
// died, the network failed), the library aborts the communicator, so no stream waits forever,
// and every later call on it fails with an error matching ctorch.ErrTimeout (ctorch.IsTimeout)
// or ctorch.ErrComm whose message says what happened; Check asks without waiting, Wait waits
// for the queued work. Init, and GroupEnd, which wait for peers, give up after the timeout the
// same way.
//
// NCCL (libnccl.so.2) is loaded at first use: without it every call fails with
// ctorch.ErrNotSupported naming the library, and without CUDA with ctorch.ErrCUDAUnavailable
// (IsAvailable is false in both cases).
package nccl

import (
	"fmt"
	"runtime"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// ReduceOp is torch.distributed.ReduceOp: Sum, Avg, Product, Min and Max (abi_gen.go, from
// capi/abi.toml, with torch's numbers).
type ReduceOp int32

// String is the op's name in torch.distributed.ReduceOp: "SUM", "AVG", ...
func (op ReduceOp) String() string { return capi.EnumName(reduceOpNames, int32(op), "ReduceOp") }

const (
	// UniqueIDBytes is the length of a unique id.
	UniqueIDBytes = capi.CT_NCCL_UNIQUE_ID_BYTES
	// DefaultTimeout is a communicator's timeout when Init is given 0 (torch.distributed's
	// default for NCCL, 10 minutes).
	DefaultTimeout = time.Duration(capi.CT_NCCL_DEFAULT_TIMEOUT_MS) * time.Millisecond
	// NoColor is Split's color for "join no new communicator" (CT_NCCL_SPLIT_NOCOLOR).
	NoColor = -1
)

func call(op string, f func() int) error { return failed(op, capi.Call(f)) }

// failed is the error of a failure (nil for none).
func failed(op string, fl *capi.Failure) error {
	if fl == nil {
		return nil
	}
	return &ctorch.Error{Code: fl.Code, Name: fl.Name, Message: fl.Message, Op: op}
}

func goError(op string, code int, format string, args ...any) error {
	return &ctorch.Error{Code: code, Name: capi.Ct_status_name(code), Message: fmt.Sprintf(format, args...), Op: op}
}

// checkInt32 is ErrArgument for an argument (what) outside the C type int32.
func checkInt32(op, what string, v int) error {
	if int(int32(v)) != v {
		return goError(op, ctorch.CodeArgument, "%s %d out of range", what, v)
	}
	return nil
}

// millis is d in whole milliseconds, rounded up (so that a positive d never becomes 0, which
// means "the default"); 0 for d <= 0.
func millis(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	ms := d / time.Millisecond
	if d%time.Millisecond != 0 {
		ms++
	}
	return int64(ms)
}

// IsAvailable reports whether communicators can be used: CUDA is available and NCCL can be
// loaded.
func IsAvailable() bool {
	out := []int32{0}
	if err := call("nccl_is_available", func() int { return capi.Ct_nccl_is_available(out) }); err != nil {
		return false
	}
	return out[0] != 0
}

// Version is the loaded NCCL's version (ncclGetVersion), e.g. 2, 28, 9.
func Version() (major, minor, patch int, err error) {
	ma, mi, pa := []int32{0}, []int32{0}, []int32{0}
	err = call("nccl_version", func() int { return capi.Ct_nccl_version(ma, mi, pa) })
	return int(ma[0]), int(mi[0]), int(pa[0]), err
}

// UniqueID is a new unique id (ncclGetUniqueId), UniqueIDBytes bytes that name a new
// communicator: one member makes it and every member passes it to Init.
func UniqueID() ([]byte, error) {
	id := make([]byte, UniqueIDBytes)
	if err := call("nccl_get_unique_id", func() int { return capi.Ct_nccl_get_unique_id(id, int64(len(id))) }); err != nil {
		return nil, err
	}
	return id, nil
}

// GroupStart is ncclGroupStart: the collectives, sends and receives called after it on the
// calling OS thread are queued together at GroupEnd (needed for sends and receives that pair
// up within one member, and for several communicators at once). Groups nest. The group
// belongs to the OS thread: lock the goroutine (runtime.LockOSThread) from GroupStart to
// GroupEnd, or use Group, which does that.
func GroupStart() error { return call("nccl_group_start", capi.Ct_nccl_group_start) }

// GroupEnd is ncclGroupEnd: it queues the group's work. It waits for the group's peers at most
// the timeout of its communicators (then ctorch.ErrTimeout). ctorch.ErrState without a
// GroupStart on this thread.
func GroupEnd() error { return call("nccl_group_end", capi.Ct_nccl_group_end) }

// Group runs fn between GroupStart and GroupEnd, with the calling goroutine locked to its OS
// thread, and ends the group also when fn fails or panics. It returns fn's error, or else
// GroupEnd's. fn must do its collectives on its own goroutine. A nil fn is
// ctorch.ErrNullPointer (no group starts).
func Group(fn func() error) (err error) {
	if fn == nil {
		return failed("nccl_group_start", capi.NilFunc())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := GroupStart(); err != nil {
		return err
	}
	defer func() {
		if eerr := GroupEnd(); err == nil {
			err = eerr
		}
	}()
	return fn()
}

// LiveCommCount is the number of live communicator handles in the process (leak checks). It
// works without CUDA.
func LiveCommCount() (int64, error) {
	out := []int64{0}
	err := call("live_nccl_comm_count", func() int { return capi.Ct_live_nccl_comm_count(out) })
	return out[0], err
}
