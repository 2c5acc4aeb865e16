package capi

// The Go end of the out-of-memory hooks (oomhook.go): the function that C calls. A file with
// an //export directive may only have declarations in its cgo preamble (the preamble is copied
// into _cgo_export.h), so the C trampoline that calls it lives in oomhook.go's preamble.

/*
#include <stdint.h>
*/
import "C"

// ctorchGoOOMHook is called by ctorch_go_oom_trampoline (oomhook.go), the ct_oom_hook_fn that
// every hook of this package is registered with; token is the hook's ctx.
//
//export ctorchGoOOMHook
func ctorchGoOOMHook(device C.int32_t, requested C.int64_t, token C.uintptr_t) {
	runOOMHook(uintptr(token), int32(device), int64(requested))
}
