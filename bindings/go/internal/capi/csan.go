package capi

// The stream sanitizer's callback (capi/ctorch.h section 24: ct_cuda_sanitizer_set_callback,
// which SWIG does not wrap because it takes a C function pointer).
//
// In warn mode ctorch calls the callback once per race, on the thread of the op that raced,
// with no ctorch lock held. The binding registers one C function, ctorch_go_csan_trampoline
// below (NULL user pointer), which calls the exported Go function ctorchGoCsanReport
// (csan_export.go); that calls the Go function of SetSanitizerCallback, which this package keeps
// (reachable) while it is registered. The racing thread is usually the OS thread of a goroutine
// inside a ctorch call (locked to it by Call), but may be one Go has never seen (C code sharing
// the process): cgo runs the callback there too. A Go panic must not unwind through ctorch's
// C++ frames, so runSanitizerReport recovers it (and reports it on stderr).

/*
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include "ctorch.h"

// Exported by csan_export.go.
extern void ctorchGoCsanReport(char* report);

// The ct_csan_callback of the Go binding.
static void ctorch_go_csan_trampoline(const char* report, void* user) {
	(void)user;
	ctorchGoCsanReport((char*)report);
}

// Registers the trampoline (on) or restores ctorch's default (stderr).
static ct_status ctorch_go_csan_set_callback(int on) {
	return ct_cuda_sanitizer_set_callback(on ? ctorch_go_csan_trampoline : NULL, NULL);
}

static void* ctorch_go_csan_thread(void* report) {
	ctorch_go_csan_trampoline((const char*)report, NULL);
	return NULL;
}

// Calls the trampoline as ctorch would (SanitizerReportForTest): on this thread, or on a new
// native thread that Go has never seen. 0, or -1 when the thread cannot be made.
static int ctorch_go_csan_call(const char* report, int on_new_thread) {
	if (!on_new_thread) {
		ctorch_go_csan_trampoline(report, NULL);
		return 0;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, ctorch_go_csan_thread, (void*)report) != 0) return -1;
	pthread_join(t, NULL);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

var (
	sanitizerMu sync.Mutex                   // orders SetSanitizerCallback's calls
	sanitizerFn atomic.Pointer[func(string)] // the registered function; nil: none
)

// SetSanitizerCallback registers fn as warn mode's callback (ct_cuda_sanitizer_set_callback,
// through the trampoline); nil restores ctorch's default, which prints each report to stderr.
// fn stays reachable here until it is replaced.
func SetSanitizerCallback(fn func(report string)) *Failure {
	sanitizerMu.Lock()
	defer sanitizerMu.Unlock()
	if fn != nil {
		sanitizerFn.Store(&fn) // before C can call it
		return Call(func() int { return int(C.ctorch_go_csan_set_callback(1)) })
	}
	f := Call(func() int { return int(C.ctorch_go_csan_set_callback(0)) })
	if f == nil {
		sanitizerFn.Store(nil) // after C stopped calling it
	}
	return f
}

// SanitizerReportForTest calls the binding's C callback function with report as ctorch would
// in warn mode (no GPU needed): on the calling goroutine's thread, or on a new native thread
// that Go has never seen. It reports whether the thread could be made.
func SanitizerReportForTest(report string, onNewThread bool) bool {
	cs := C.CString(report)
	defer C.free(unsafe.Pointer(cs))
	on := C.int(0)
	if onNewThread {
		on = 1
	}
	return C.ctorch_go_csan_call(cs, on) == 0
}

// runSanitizerReport runs the registered function on one report (ctorchGoCsanReport). A panic
// is recovered here: it must not unwind through the C++ frames of the op that raced.
func runSanitizerReport(report string) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "ctorch: the stream sanitizer callback panicked on this report (recovered; the op goes on): %v\n%s", r, report)
		}
	}()
	fn := sanitizerFn.Load()
	if fn == nil { // a report that crossed SetSanitizerCallback(nil): the default's place
		fmt.Fprint(os.Stderr, report)
		return
	}
	(*fn)(report)
}
