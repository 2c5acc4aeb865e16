package capi

// The Go end of the stream sanitizer's callback (csan.go): the function that C calls. A file
// with an //export directive may only have declarations in its cgo preamble, so the C
// trampoline that calls it lives in csan.go's preamble.

/*
#include <stdint.h>
*/
import "C"

// ctorchGoCsanReport is called by ctorch_go_csan_trampoline (csan.go), the ct_csan_callback
// this package registers; report is valid during the call only (C.GoString copies it).
//
//export ctorchGoCsanReport
func ctorchGoCsanReport(report *C.char) {
	runSanitizerReport(C.GoString(report))
}
