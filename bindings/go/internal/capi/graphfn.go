package capi

// Graphed callables (capi/ctorch.h section 19: ct_cuda_make_graphed_callable, which SWIG does
// not wrap because it takes a C function pointer, the ct_graph_fn).
//
// ct_cuda_make_graphed_callable calls its ct_graph_fn num_warmup_iters + 1 times, on the
// calling thread, before it returns. Every call of this package passes the same C function,
// ctorch_go_graph_trampoline below, and a token as its ctx: a plain integer naming the Go
// function in graphFns for the duration of that one call (never a Go pointer, so cgo's
// pointer rules are not involved). The trampoline calls the exported Go function
// ctorchGoGraphFn (graphfn_export.go), which runs the function of that token.
//
// The function runs inside a cgo callback, on the OS thread of the goroutine that called
// MakeGraphedCallable (locked to it by Call), so it sees that thread's current device and the
// capture's stream. A Go panic must not unwind through the library's C++ frames (they would
// skip its cleanup and leave the capture open): runGraphFn recovers it, the trampoline returns
// a failure status so that the library discards the capture and returns, and the panic is
// raised again, with the same value, once the C call is over.

/*
#include <stdint.h>
#include "ctorch.h"

// Exported by graphfn_export.go.
extern int32_t ctorchGoGraphFn(uintptr_t token);

// The ct_graph_fn of every graphed callable of the Go binding; ctx is the function's token.
static ct_status ctorch_go_graph_trampoline(void* ctx) {
	return ctorchGoGraphFn((uintptr_t)ctx);
}

// Handles travel as int64 (intptr_t) values, as in SWIG's wrapper; inputs is an array of n of
// them, read as the ct_tensor array it stands for.
static ct_status ctorch_go_make_graphed_callable(uintptr_t token, const int64_t* inputs, int32_t n,
                                                 int32_t warmup, int64_t pool, int64_t* out) {
	ct_cuda_graphed c = NULL;
	ct_status st = ct_cuda_make_graphed_callable(ctorch_go_graph_trampoline, (void*)token,
	                                             (const ct_tensor*)inputs, n, warmup, pool, &c);
	*out = (int64_t)(intptr_t)c;
	return st;
}

// Calls the trampoline as ct_cuda_make_graphed_callable would (RunGraphFnForTest).
static ct_status ctorch_go_call_graph_fn(uintptr_t token) {
	return ctorch_go_graph_trampoline((void*)token);
}
*/
import "C"

import (
	"sync"
	"unsafe"
)

// GraphFnFailed is the status the trampoline returns to the library when the Go function
// returned an error or panicked: the library then discards the capture and returns it. The Go
// caller gets the function's own error (or panic) instead, so the code is only what C sees.
var GraphFnFailed = CT_ERR_STATE

// graphFn is one Go function lent to the library for one call, with what became of it.
type graphFn struct {
	fn       func() error
	err      error // the first error fn returned
	panicked bool
	panicVal any
}

// graphFns are the functions of the calls under way, by token.
var graphFns = struct {
	sync.Mutex
	next uintptr
	fns  map[uintptr]*graphFn
}{fns: map[uintptr]*graphFn{}}

// lend registers fn under a new token; the returned function forgets it.
func lend(fn func() error) (uintptr, *graphFn, func()) {
	g := &graphFn{fn: fn}
	graphFns.Lock()
	graphFns.next++
	token := graphFns.next
	graphFns.fns[token] = g
	graphFns.Unlock()
	return token, g, func() {
		graphFns.Lock()
		delete(graphFns.fns, token)
		graphFns.Unlock()
	}
}

// LentGraphFns is the number of Go functions lent to the library right now (0 between calls:
// a leak check).
func LentGraphFns() int {
	graphFns.Lock()
	defer graphFns.Unlock()
	return len(graphFns.fns)
}

// runGraphFn runs the function of token (ctorchGoGraphFn) and returns its status for C. A
// panic is recovered and kept for the caller; after a failure the function is not run again.
func runGraphFn(token uintptr) (st int32) {
	graphFns.Lock()
	g := graphFns.fns[token]
	graphFns.Unlock()
	if g == nil {
		return int32(CT_ERR_INTERNAL) // cannot happen: the token outlives its call
	}
	if g.err != nil || g.panicked {
		return int32(GraphFnFailed)
	}
	returned := false
	defer func() {
		if !returned { // a panic, also panic(nil), whose recover() is nil before Go 1.21
			g.panicked, g.panicVal = true, recover()
			st = int32(GraphFnFailed)
		}
	}()
	err := g.fn()
	returned = true
	if err != nil {
		g.err = err
		return int32(GraphFnFailed)
	}
	return 0
}

// outcome is what the caller of a lent function returns: the panic raised again, or fn's
// error (nil when fn never failed).
func (g *graphFn) outcome() error {
	if g.panicked {
		panic(g.panicVal)
	}
	return g.err
}

// MakeGraphedCallable is ct_cuda_make_graphed_callable with a Go function: inputs are the
// static inputs' tensor handles. It returns the new callable's handle, or the library's
// failure, or fn's error (when fn failed; the library's failure is then dropped, as it only
// reports that). A panic in fn is raised again here, after the library has discarded the
// capture.
func MakeGraphedCallable(fn func() error, inputs []int64, warmup int32, pool int64) (int64, *Failure, error) {
	token, g, forget := lend(fn)
	defer forget()
	var out C.int64_t
	var in *C.int64_t
	if len(inputs) > 0 {
		in = (*C.int64_t)(unsafe.Pointer(&inputs[0]))
	}
	f := Call(func() int {
		return int(C.ctorch_go_make_graphed_callable(C.uintptr_t(token), in, C.int32_t(len(inputs)),
			C.int32_t(warmup), C.int64_t(pool), &out))
	})
	if err := g.outcome(); err != nil {
		if f == nil && out != 0 { // a library that ignored the status: drop what it made
			Ct_cuda_graphed_release(int64(out))
		}
		return 0, nil, err
	}
	if f != nil {
		return 0, f, nil
	}
	return int64(out), nil, nil
}

// RunGraphFnForTest calls fn through the C trampoline, as ct_cuda_make_graphed_callable calls
// its ct_graph_fn, calls times in a row, and returns the status of each call and fn's error; a
// panic in fn comes back as a panic, after the C frames. It is for tests on machines without a
// GPU, where the library never calls the function.
func RunGraphFnForTest(fn func() error, calls int) (statuses []int, err error) {
	token, g, forget := lend(fn)
	defer forget()
	for i := 0; i < calls; i++ {
		statuses = append(statuses, int(C.ctorch_go_call_graph_fn(C.uintptr_t(token))))
	}
	return statuses, g.outcome()
}
