package cuda

// Out-of-memory hooks (capi/ctorch.h section 15: ct_cuda_add_oom_hook, ct_cuda_remove_oom_hook;
// docs/memory.md, "Out of memory").
//
// When a CUDA allocation finds no room even after the caching allocator returned its cached
// blocks to the device, ctorch calls every out-of-memory hook, in the order added, on the
// allocating goroutine's OS thread and with no ctorch lock held; then it returns the cache
// again and retries once before failing with ctorch.ErrOutOfMemory.
//
// The binding registers one hook of its own when it is loaded (once per process, whichever
// packages are imported): the collector hook runs runtime.GC() and waits until the finalizers
// of Tensors that the program dropped without Close have released them (at most about a
// second), so their memory is back for the retry. Dropped tensors are still a bug (close them):
// this only keeps a program that forgot some from failing. OOMHookRuns counts its runs.

import (
	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

func failure(op string, f *capi.Failure) error {
	if f == nil {
		return nil
	}
	return &ctorch.Error{Code: f.Code, Name: f.Name, Message: f.Message, Op: op}
}

// AddOOMHook registers fn as an out-of-memory hook and returns its id for RemoveOOMHook. fn is
// called with the device and the size in bytes of the request that failed, after the
// binding's collector hook (and the hooks added before it); then the allocation is retried.
// It needs no GPU. ctorch.ErrNullPointer for a nil fn.
//
// fn runs inside the failing call, on its goroutine and OS thread (so it sees that thread's
// current device and stream), with no ctorch lock held: it may call ctorch, e.g. close tensors
// that it knows can go, or EmptyCache. An allocation made inside fn that runs out of memory
// fails without calling the hooks again. fn may run on several goroutines at once (each
// allocating goroutine runs the hooks itself). A panic in fn is recovered (it must not unwind
// through the allocator) and reported on standard error; fn must not call runtime.Goexit
// (testing's t.FailNow, t.Fatal), for the same reason.
func AddOOMHook(fn func(device int, requestedBytes int64)) (id int64, err error) {
	const op = "cuda_add_oom_hook"
	if fn == nil {
		return 0, goError(op, ctorch.CodeNullPointer, "nil out-of-memory hook function")
	}
	id, f := capi.AddOOMHook(func(device int32, requested int64) { fn(int(device), requested) })
	return id, failure(op, f)
}

// RemoveOOMHook removes a hook that AddOOMHook added: later failures no longer call it (a call
// already under way on another goroutine may still be running). ctorch.ErrArgument for an id
// that was not added, or was removed already, and for the binding's own collector hook, which
// stays for the life of the process. Needs no GPU.
func RemoveOOMHook(id int64) error {
	return failure("cuda_remove_oom_hook", capi.RemoveOOMHook(id))
}

// OOMHookRuns is a diagnostic: how many times the binding's collector hook (runtime.GC() and
// the wait for the finalizers of dropped Tensors, run when a CUDA allocation runs out of
// memory) has run in this process. It only grows.
func OOMHookRuns() int64 { return capi.CollectorHookRuns() }
