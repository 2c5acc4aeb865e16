package capi

// Out-of-memory hooks (capi/ctorch.h section 15: ct_cuda_add_oom_hook, which SWIG does not wrap
// because it takes a C function pointer).
//
// When a CUDA allocation finds no room even after the caching allocator gave its cache back
// to the device, ctorch calls every hook on the allocating thread, with no ctorch lock held,
// and retries once. This package registers, once per process (at init), the collector hook:
// it runs the Go garbage collector and waits until the finalizers of the Tensors that the
// program dropped without Close have released their handles, so that their memory comes
// back before the retry. AddOOMHook registers Go functions of the program's own (cuda.AddOOMHook).
//
// Every hook is registered with the same C function, ctorch_go_oom_trampoline below, and a
// token as its ctx: 0 for the collector, 1, 2, ... for AddOOMHook's functions. The trampoline
// calls the exported Go function ctorchGoOOMHook (oomhook_export.go), which dispatches on the
// token. Tokens are plain integers carried in the void* ctx (converted in C), never Go
// pointers, so cgo's pointer rules are not involved.
//
// A hook runs inside a cgo callback, on the OS thread of the goroutine whose allocation failed
// (that goroutine is locked to its thread by Call). A Go panic must not unwind through the
// C++ allocator's frames, so runOOMHook recovers it (and reports it on stderr).

/*
#include <stdint.h>
#include "ctorch.h"

// Exported by oomhook_export.go.
extern void ctorchGoOOMHook(int32_t device, int64_t requested, uintptr_t token);

// The ct_oom_hook_fn of every hook of the Go binding; ctx is the hook's token.
static void ctorch_go_oom_trampoline(int32_t device, int64_t requested, void* ctx) {
	ctorchGoOOMHook(device, requested, (uintptr_t)ctx);
}

static ct_status ctorch_go_add_oom_hook(uintptr_t token, int64_t* id) {
	return ct_cuda_add_oom_hook(ctorch_go_oom_trampoline, (void*)token, id);
}

// Calls the trampoline as ctorch's allocator would (RunOOMHooksForTest).
static void ctorch_go_call_oom_hook(uintptr_t token, int32_t device, int64_t requested) {
	ctorch_go_oom_trampoline(device, requested, (void*)token);
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// collectorToken is the ctx of the collector hook.
const collectorToken uintptr = 0

// Bounds of the collector hook's wait (see Note [Waiting for finalizers]).
const (
	collectorBudget = time.Second          // the whole wait, at most
	collectorSettle = 3 * time.Millisecond // the live tensor count must stay put this long
)

var (
	collectorOnce sync.Once
	collectorID   int64
	collectorFail *Failure
	collectorRuns atomic.Int64
)

func init() { InstallCollectorHook() }

// InstallCollectorHook registers the collector hook (ct_cuda_add_oom_hook) if it is not
// registered yet, and returns its id, or the failure of that one registration. It runs once per
// process (sync.Once): the package's init calls it, and later calls return the same id without
// registering anything.
func InstallCollectorHook() (int64, *Failure) {
	collectorOnce.Do(func() {
		var id C.int64_t
		collectorFail = Call(func() int { return int(C.ctorch_go_add_oom_hook(C.uintptr_t(collectorToken), &id)) })
		if collectorFail == nil {
			collectorID = int64(id)
		}
	})
	return collectorID, collectorFail
}

// CollectorHookRuns is the number of times the collector hook has run in this process.
func CollectorHookRuns() int64 { return collectorRuns.Load() }

// userHooks are the functions of AddOOMHook, by token, and the tokens by hook id.
var userHooks = struct {
	sync.Mutex
	next   uintptr
	fns    map[uintptr]func(device int32, requested int64)
	tokens map[int64]uintptr
}{fns: map[uintptr]func(int32, int64){}, tokens: map[int64]uintptr{}}

// AddOOMHook registers fn as an out-of-memory hook (ct_cuda_add_oom_hook) and returns its id.
// fn must not be nil.
func AddOOMHook(fn func(device int32, requested int64)) (int64, *Failure) {
	userHooks.Lock()
	userHooks.next++
	token := userHooks.next
	userHooks.fns[token] = fn // before the registration: the hook may run at once
	userHooks.Unlock()
	var id C.int64_t
	if f := Call(func() int { return int(C.ctorch_go_add_oom_hook(C.uintptr_t(token), &id)) }); f != nil {
		userHooks.Lock()
		delete(userHooks.fns, token)
		userHooks.Unlock()
		return 0, f
	}
	userHooks.Lock()
	userHooks.tokens[int64(id)] = token
	userHooks.Unlock()
	return int64(id), nil
}

// RemoveOOMHook removes a hook (ct_cuda_remove_oom_hook) and forgets its Go function. The
// collector hook cannot be removed: its id gives a CT_ERR_ARGUMENT failure, as do ids that were
// never added or are removed already (the library's message).
func RemoveOOMHook(id int64) *Failure {
	if cid, f := InstallCollectorHook(); f == nil && id == cid {
		return &Failure{Code: CT_ERR_ARGUMENT, Name: Ct_status_name(CT_ERR_ARGUMENT),
			Message: fmt.Sprintf("out-of-memory hook %d is the Go binding's collector hook, which cannot be removed", id)}
	}
	if f := Call(func() int { return Ct_cuda_remove_oom_hook(id) }); f != nil {
		return f
	}
	userHooks.Lock()
	if token, ok := userHooks.tokens[id]; ok {
		delete(userHooks.fns, token)
		delete(userHooks.tokens, id)
	}
	userHooks.Unlock()
	return nil
}

// RunOOMHooksForTest calls the hooks of this package as an allocation that runs out of memory
// on device would: through the C trampoline, the collector hook first, then the functions of
// AddOOMHook in the order they were added. It is for tests on machines without a GPU, where no
// allocation can run out of device memory.
func RunOOMHooksForTest(device int32, requested int64) {
	var tokens []uintptr
	if _, f := InstallCollectorHook(); f == nil {
		tokens = append(tokens, collectorToken)
	}
	userHooks.Lock()
	ids := make([]int64, 0, len(userHooks.tokens))
	for id := range userHooks.tokens {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		tokens = append(tokens, userHooks.tokens[id])
	}
	userHooks.Unlock()
	for _, token := range tokens {
		C.ctorch_go_call_oom_hook(C.uintptr_t(token), C.int32_t(device), C.int64_t(requested))
	}
}

// runOOMHook runs the hook with this token (ctorchGoOOMHook). A panic is recovered here: it
// must not unwind through the C++ frames of the allocator that called the hook.
func runOOMHook(token uintptr, device int32, requested int64) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "ctorch: an out-of-memory hook panicked (recovered; the allocation goes on): %v\n", r)
		}
	}()
	if token == collectorToken {
		collect()
		return
	}
	userHooks.Lock()
	fn := userHooks.fns[token]
	userHooks.Unlock()
	if fn != nil { // nil: removed meanwhile
		fn(device, requested)
	}
}

// Note [Waiting for finalizers]
//
// runtime.GC() returns once the cycle is complete, including its sweep, which is when the
// finalizers of unreachable objects are queued. They run later, one after the other, on the
// runtime's single finalizer goroutine; Go has no call that waits for them. The runtime takes
// the whole queue as one batch and runs it to the end before it takes the next one, but inside
// a batch it runs the most recently queued finalizers first. So:
//
//  1. a sentinel object with a finalizer that closes a channel is dropped and runtime.GC() runs:
//     it queues the finalizers of the dropped Tensors and the sentinel's. Waiting for the
//     channel is not enough: the sentinel may run first in its batch;
//  2. once it ran, the batch holding it (and everything queued before it) is being run. A
//     second sentinel, queued by a second runtime.GC(), lands in a later batch: when it has run,
//     every finalizer queued in step 1 has run, so every dropped Tensor's ct_tensor_release is
//     done (they run on the finalizer goroutine's thread, which can take the allocator's lock:
//     hooks run without it);
//  3. but the finalizer goroutine can take a batch while a collection is still queuing
//     finalizers, so one collection's finalizers may be split across batches (a generator
//     option in a shared struct was enough to make that happen in the tests). So the hook
//     makes at least three rounds, and more while a round still released tensors;
//  4. as a safety net against a runtime that orders finalizers otherwise, the hook then waits
//     until ct_live_tensor_count has stopped changing for collectorSettle.
//
// The whole wait is bounded by collectorBudget: if the finalizer goroutine is blocked (or the
// failing allocation was made by a finalizer itself, which then waits for its own goroutine),
// the hook gives up and the allocation is retried with whatever came back.

// collect is the collector hook.
func collect() {
	collectorRuns.Add(1)
	deadline := time.Now().Add(collectorBudget)
	// At least three rounds, then more while a round still released tensors: the finalizer
	// goroutine may take a batch while a collection is still queuing finalizers, so the
	// finalizers of one collection can be split across batches and run after the next
	// round's sentinel.
	prev := liveTensors()
	for i := 0; time.Now().Before(deadline); i++ {
		if !gcAndWaitForSentinel(deadline) {
			return
		}
		cur := liveTensors()
		if i >= 2 && cur == prev {
			break
		}
		prev = cur
	}
	waitLiveTensorCountSettles(deadline)
}

// liveTensors is ct_live_tensor_count (-1 if it fails).
func liveTensors() int64 {
	out := []int64{0}
	if Ct_live_tensor_count(out) != 0 {
		return -1
	}
	return out[0]
}

// sentinel is big enough, and has a pointer, so that it is not batched by the tiny allocator
// (whose objects may never be finalized).
type sentinel struct {
	next *sentinel
	_    [32]byte
}

// dropSentinel allocates a sentinel whose finalizer closes done, and drops it.
//
//go:noinline
func dropSentinel(done chan struct{}) {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { close(done) })
}

// gcAndWaitForSentinel drops a sentinel, runs a garbage collection and waits (until deadline)
// for the sentinel's finalizer. It reports whether that finalizer ran.
func gcAndWaitForSentinel(deadline time.Time) bool {
	done := make(chan struct{})
	dropSentinel(done)
	runtime.GC()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

// waitLiveTensorCountSettles waits until ct_live_tensor_count has not changed for
// collectorSettle, or until deadline.
func waitLiveTensorCountSettles(deadline time.Time) {
	out := []int64{0}
	if Ct_live_tensor_count(out) != 0 {
		return
	}
	last, since := out[0], time.Now()
	for time.Since(since) < collectorSettle && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond / 2)
		if Ct_live_tensor_count(out) != 0 {
			return
		}
		if out[0] != last {
			last, since = out[0], time.Now()
		}
	}
}
