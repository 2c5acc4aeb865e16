package capi

// The Go end of graphed callables (graphfn.go): the function that C calls. A file with an
// //export directive may only have declarations in its cgo preamble (the preamble is copied
// into _cgo_export.h), so the C trampoline that calls it lives in graphfn.go's preamble.

/*
#include <stdint.h>
*/
import "C"

// ctorchGoGraphFn is called by ctorch_go_graph_trampoline (graphfn.go), the ct_graph_fn of
// every graphed callable of this package; token names the Go function.
//
//export ctorchGoGraphFn
func ctorchGoGraphFn(token C.uintptr_t) C.int32_t {
	return C.int32_t(runGraphFn(uintptr(token)))
}
