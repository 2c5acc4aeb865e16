package capi

// The Go end of FromBlob's deleters (dlpack.go): the function that C calls. A file with an
// //export directive may only have declarations in its cgo preamble, so the C trampoline lives
// in dlpack.go's preamble.

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"os"
)

// ctorchGoBlobDeleter is called by ctorch_go_blob_trampoline (dlpack.go) when the storage of a
// FromBlob tensor dies; token names the Go deleter. A panic must not unwind through ctorch's
// C++ frames: it is recovered and reported on stderr.
//
//export ctorchGoBlobDeleter
func ctorchGoBlobDeleter(token C.uintptr_t) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "ctorch: a FromBlob deleter panicked: %v\n", r)
		}
	}()
	runBlobDeleter(uintptr(token))
}
