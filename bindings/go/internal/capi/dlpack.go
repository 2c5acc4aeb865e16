package capi

// DLPack and from_blob (capi/ctorch.h section 26), called through cgo: SWIG does not wrap them
// for Go (bindings/swig/ctorch.i) because the capsules are raw addresses and ct_from_blob takes
// a C function pointer, its deleter.
//
// Capsule addresses travel as unsafe.Pointer: they point to C memory (a DLManagedTensor or
// DLManagedTensorVersioned that C code owns), never to Go memory, so cgo's pointer rules do not
// apply to them. from_blob's memory is given as unsafe.Pointer by the caller and must not be Go
// memory either (it outlives the call; cgo forbids keeping Go pointers in C).
//
// A Go deleter of FromBlob is registered under a token (blobDeleters); the C trampoline
// ctorch_go_blob_trampoline passes the token (carried in the void* ctx, an integer, not a Go
// pointer) to ctorchGoBlobDeleter (dlpack_export.go), which runs the function once and forgets
// it. ctorch calls it on the thread that drops the last tensor using the memory: any goroutine's
// thread, or a thread of C code.

/*
#include <stdint.h>
#include "ctorch.h"

extern void ctorchGoBlobDeleter(uintptr_t token);

static void ctorch_go_blob_trampoline(void* address, void* ctx) {
	(void)address;
	ctorchGoBlobDeleter((uintptr_t)ctx);
}

static ct_status ctorch_go_from_blob(void* address, const int64_t* sizes, int32_t ndim, const int64_t* strides,
                                     int32_t dtype, int32_t dev_type, int32_t dev_index, uintptr_t token,
                                     int64_t* out) {
	ct_tensor t = NULL;
	ct_status st = ct_from_blob(address, sizes, ndim, strides, dtype, dev_type, dev_index,
	                            token ? ctorch_go_blob_trampoline : NULL, (void*)token, &t);
	if (st == CT_OK) *out = (int64_t)(intptr_t)t;
	return st;
}

static ct_status ctorch_go_to_dlpack(int64_t t, int32_t form, int64_t stream, void** out) {
	void* p = NULL;
	ct_status st;
	if (form == 0) st = ct_to_dlpack((ct_tensor)(intptr_t)t, &p);
	else if (form == 1) st = ct_to_dlpack_versioned((ct_tensor)(intptr_t)t, &p);
	else st = ct_tensor_dlpack((ct_tensor)(intptr_t)t, stream, form == 3, &p);
	if (st == CT_OK) *out = p;
	return st;
}

static ct_status ctorch_go_from_dlpack(void* capsule, int32_t versioned, int64_t* out) {
	ct_tensor t = NULL;
	ct_status st = versioned ? ct_from_dlpack_versioned(capsule, &t) : ct_from_dlpack(capsule, &t);
	if (st == CT_OK) *out = (int64_t)(intptr_t)t;
	return st;
}

static ct_status ctorch_go_dlpack_delete(void* capsule, int32_t versioned) {
	return ct_dlpack_delete(capsule, versioned);
}

static ct_status ctorch_go_dlpack_device(int64_t t, int32_t* type, int32_t* id) {
	return ct_tensor_dlpack_device((ct_tensor)(intptr_t)t, type, id);
}
*/
import "C"

import (
	"sync"
	"unsafe"
)

// The forms of ToDLPack.
const (
	DLPackLegacy          = 0 // ct_to_dlpack
	DLPackVersioned       = 1 // ct_to_dlpack_versioned
	DLPackLegacyStream    = 2 // ct_tensor_dlpack(stream, versioned = 0)
	DLPackVersionedStream = 3 // ct_tensor_dlpack(stream, versioned = 1)
)

// ToDLPack exports tensor h in one of the forms above (stream: for the *Stream forms).
func ToDLPack(h int64, form int32, stream int64, out *unsafe.Pointer) int {
	var p unsafe.Pointer
	st := int(C.ctorch_go_to_dlpack(C.int64_t(h), C.int32_t(form), C.int64_t(stream), &p))
	if st == 0 {
		*out = p
	}
	return st
}

// FromDLPack is ct_from_dlpack (versioned false) or ct_from_dlpack_versioned.
func FromDLPack(capsule unsafe.Pointer, versioned bool, out *int64) int {
	var h C.int64_t
	st := int(C.ctorch_go_from_dlpack(capsule, boolInt(versioned), &h))
	if st == 0 {
		*out = int64(h)
	}
	return st
}

// DLPackDelete is ct_dlpack_delete.
func DLPackDelete(capsule unsafe.Pointer, versioned bool) int {
	return int(C.ctorch_go_dlpack_delete(capsule, boolInt(versioned)))
}

// DLPackDevice is ct_tensor_dlpack_device.
func DLPackDevice(h int64, typ, id *int32) int {
	var t, i C.int32_t
	st := int(C.ctorch_go_dlpack_device(C.int64_t(h), &t, &i))
	*typ, *id = int32(t), int32(i)
	return st
}

func boolInt(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

var blobDeleters = struct {
	sync.Mutex
	next uintptr
	fns  map[uintptr]func()
}{fns: map[uintptr]func(){}}

// FromBlob is ct_from_blob; deleter (may be nil) runs once when the storage dies, never when
// the call fails. strides may be nil (contiguous).
func FromBlob(address unsafe.Pointer, sizes, strides []int64, dtype, devType, devIndex int32, deleter func(),
	out *int64) int {
	var token uintptr
	if deleter != nil {
		blobDeleters.Lock()
		blobDeleters.next++
		token = blobDeleters.next
		blobDeleters.fns[token] = deleter
		blobDeleters.Unlock()
	}
	var ps, pst *C.int64_t
	if len(sizes) > 0 {
		ps = (*C.int64_t)(unsafe.Pointer(&sizes[0]))
	}
	if strides != nil { // as long as sizes (the caller checks)
		if len(strides) > 0 {
			pst = (*C.int64_t)(unsafe.Pointer(&strides[0]))
		} else {
			var none C.int64_t // a 0-dim tensor's strides: not NULL, none read
			pst = &none
		}
	}
	var h C.int64_t
	st := int(C.ctorch_go_from_blob(address, ps, C.int32_t(len(sizes)), pst, C.int32_t(dtype), C.int32_t(devType),
		C.int32_t(devIndex), C.uintptr_t(token), &h))
	if st == 0 {
		*out = int64(h)
	} else if token != 0 {
		blobDeleters.Lock()
		delete(blobDeleters.fns, token) // failed: ctorch never calls it
		blobDeleters.Unlock()
	}
	return st
}

// runBlobDeleter runs and forgets the deleter of token (dlpack_export.go).
func runBlobDeleter(token uintptr) {
	blobDeleters.Lock()
	fn := blobDeleters.fns[token]
	delete(blobDeleters.fns, token)
	blobDeleters.Unlock()
	if fn != nil {
		fn()
	}
}

// PendingBlobDeleters is the number of FromBlob deleters not run yet (for tests).
func PendingBlobDeleters() int {
	blobDeleters.Lock()
	defer blobDeleters.Unlock()
	return len(blobDeleters.fns)
}
