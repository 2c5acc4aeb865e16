package capi

// Direct calls: hand-written cgo shims for the calls that programs make most often (metadata
// queries, item, elementwise operations, retain and release), each one cgo crossing that makes
// the native call and, on failure, reads the thread's error message in the same C function.
//
// Call (call.go) is general but costs more per call: the goroutine is locked to its thread so
// that the message can be read by further cgo calls, the SWIG wrapper passes out-parameters as
// one-element slices (heap-allocated: a Go pointer handed to C escapes), and the call runs
// through a closure. A shim needs none of that: a cgo call runs on one OS thread from start to
// end (the goroutine cannot move in the middle of it), so the message read inside it is always
// the failing call's own; and the result comes back by value (a C struct), so nothing is
// allocated on success.
//
// On failure the shim does what lastFailure does: it checks ct_last_error_code, copies the
// message into malloc'd memory (freed here once converted to a Go string) and clears the error.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ctorch.h"

// The outcome of one direct call. v: the integer out-parameter (a handle, or an int32 widened);
// d: a double out-parameter; on failure (st != CT_OK): last is ct_last_error_code() and, when
// it equals st, msg is a malloc'd copy of the message (NULL if empty).
typedef struct {
	int64_t v;
	double d;
	char* msg;
	int32_t st;
	int32_t last;
} ctgo_result;

static void ctgo_fail(ctgo_result* r) {
	r->last = ct_last_error_code();
	if (r->last != r->st) {
		return; // cannot happen with a conforming library; never report another message
	}
	int64_t n = ct_last_error_copy(NULL, 0);
	if (n > 0) {
		char* m = (char*)malloc((size_t)n + 1);
		if (m != NULL) {
			ct_last_error_copy(m, n + 1);
			m[n] = 0;
			r->msg = m;
		}
	}
	ct_clear_error();
}

#define CTGO_T(h) ((ct_tensor)(intptr_t)(h))
#define CTGO_BEGIN ctgo_result r; memset(&r, 0, sizeof r);
#define CTGO_END if (r.st != CT_OK) ctgo_fail(&r); return r;

enum {
	CTGO_NUMEL = 0,
	CTGO_STORAGE_OFFSET = 1,
	CTGO_DATA_PTR = 2,
	CTGO_SIZE = 3,
	CTGO_STRIDE = 4,
	CTGO_ITEM_INT64 = 5,
	CTGO_DIM = 6,
	CTGO_DTYPE = 7,
	CTGO_IS_CONTIGUOUS = 8,
	CTGO_IS_PINNED = 9,
};

// The integer queries of one tensor (dim: for size and stride only).
static ctgo_result ctgo_query(int32_t q, int64_t h, int32_t dim) {
	CTGO_BEGIN
	int32_t i = 0;
	switch (q) {
	case CTGO_NUMEL: r.st = ct_tensor_numel(CTGO_T(h), &r.v); break;
	case CTGO_STORAGE_OFFSET: r.st = ct_tensor_storage_offset(CTGO_T(h), &r.v); break;
	case CTGO_DATA_PTR: r.st = ct_tensor_data_ptr(CTGO_T(h), &r.v); break;
	case CTGO_SIZE: r.st = ct_tensor_size(CTGO_T(h), dim, &r.v); break;
	case CTGO_STRIDE: r.st = ct_tensor_stride(CTGO_T(h), dim, &r.v); break;
	case CTGO_ITEM_INT64: r.st = ct_tensor_item_int64(CTGO_T(h), &r.v); break;
	case CTGO_DIM: r.st = ct_tensor_dim(CTGO_T(h), &i); r.v = i; break;
	case CTGO_DTYPE: r.st = ct_tensor_dtype(CTGO_T(h), &i); r.v = i; break;
	case CTGO_IS_CONTIGUOUS: r.st = ct_tensor_is_contiguous(CTGO_T(h), &i); r.v = i; break;
	case CTGO_IS_PINNED: r.st = ct_tensor_is_pinned(CTGO_T(h), &i); r.v = i; break;
	default: r.st = CT_ERR_INTERNAL; r.last = CT_OK; return r; // a bug of this file
	}
	CTGO_END
}

static ctgo_result ctgo_item_double(int64_t h) {
	CTGO_BEGIN
	r.st = ct_tensor_item_double(CTGO_T(h), &r.d);
	CTGO_END
}

static ctgo_result ctgo_retain(int64_t h) { CTGO_BEGIN r.st = ct_tensor_retain(CTGO_T(h)); CTGO_END }
static ctgo_result ctgo_release(int64_t h) { CTGO_BEGIN r.st = ct_tensor_release(CTGO_T(h)); CTGO_END }

// The C baseline of the binding benchmark, run in the Go process (tests/go/bench_test.go): n
// iterations of c = a + b; release(c), the loop of bench/bindings/c, in one cgo call.
static ctgo_result ctgo_bench_small_add(int64_t a, int64_t b, int64_t n) {
	CTGO_BEGIN
	for (int64_t i = 0; i < n && r.st == CT_OK; ++i) {
		ct_tensor c = NULL;
		r.st = ct_binary(CT_ADD, CTGO_T(a), CTGO_T(b), &c);
		if (r.st == CT_OK) r.st = ct_tensor_release(c);
	}
	CTGO_END
}

static ctgo_result ctgo_unary(int32_t op, int64_t a) {
	CTGO_BEGIN
	ct_tensor out = NULL;
	r.st = ct_unary(op, CTGO_T(a), &out);
	r.v = (int64_t)(intptr_t)out;
	CTGO_END
}

static ctgo_result ctgo_unary_(int32_t op, int64_t a) { CTGO_BEGIN r.st = ct_unary_(op, CTGO_T(a)); CTGO_END }

static ctgo_result ctgo_binary(int32_t op, int64_t a, int64_t b) {
	CTGO_BEGIN
	ct_tensor out = NULL;
	r.st = ct_binary(op, CTGO_T(a), CTGO_T(b), &out);
	r.v = (int64_t)(intptr_t)out;
	CTGO_END
}

static ctgo_result ctgo_binary_(int32_t op, int64_t a, int64_t b) {
	CTGO_BEGIN
	r.st = ct_binary_(op, CTGO_T(a), CTGO_T(b));
	CTGO_END
}

static ctgo_result ctgo_binary_scalar_f(int32_t op, int64_t a, double s, int32_t reverse) {
	CTGO_BEGIN
	ct_tensor out = NULL;
	r.st = ct_binary_scalar_f(op, CTGO_T(a), s, reverse, &out);
	r.v = (int64_t)(intptr_t)out;
	CTGO_END
}

static ctgo_result ctgo_binary_scalar_i(int32_t op, int64_t a, int64_t s, int32_t reverse) {
	CTGO_BEGIN
	ct_tensor out = NULL;
	r.st = ct_binary_scalar_i(op, CTGO_T(a), s, reverse, &out);
	r.v = (int64_t)(intptr_t)out;
	CTGO_END
}

static ctgo_result ctgo_binary_scalar_f_(int32_t op, int64_t a, double s) {
	CTGO_BEGIN
	r.st = ct_binary_scalar_f_(op, CTGO_T(a), s);
	CTGO_END
}

static ctgo_result ctgo_binary_scalar_i_(int32_t op, int64_t a, int64_t s) {
	CTGO_BEGIN
	r.st = ct_binary_scalar_i_(op, CTGO_T(a), s);
	CTGO_END
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Query is an integer query of one tensor (TensorQuery).
type Query int32

// The queries of TensorQuery. Size and Stride take a dim; the others ignore it.
const (
	QueryNumel         Query = C.CTGO_NUMEL
	QueryStorageOffset Query = C.CTGO_STORAGE_OFFSET
	QueryDataPtr       Query = C.CTGO_DATA_PTR
	QuerySize          Query = C.CTGO_SIZE
	QueryStride        Query = C.CTGO_STRIDE
	QueryItemInt64     Query = C.CTGO_ITEM_INT64
	QueryDim           Query = C.CTGO_DIM
	QueryDType         Query = C.CTGO_DTYPE
	QueryIsContiguous  Query = C.CTGO_IS_CONTIGUOUS
	QueryIsPinned      Query = C.CTGO_IS_PINNED
)

// result turns a shim's outcome into (v, nil) or (0, failure).
func result(r C.ctgo_result) (int64, *Failure) {
	if r.st == 0 {
		return int64(r.v), nil
	}
	return 0, directFailure(&r)
}

// directFailure builds the Failure of a failed shim call and frees its message copy.
//
//go:noinline
func directFailure(r *C.ctgo_result) *Failure {
	st := int(r.st)
	f := &Failure{Code: st, Name: Ct_status_name(st)}
	if r.last != r.st {
		f.Message = fmt.Sprintf("(no message: the thread's last error code is %d)", int(r.last))
	} else if r.msg != nil {
		f.Message = C.GoString(r.msg)
	}
	if r.msg != nil {
		C.free(unsafe.Pointer(r.msg))
		r.msg = nil
	}
	return f
}

// TensorQuery is one of the integer queries of tensor h (ct_tensor_numel, ..._dim, ...): its
// value (int32 results widened), or the failure with its message.
func TensorQuery(q Query, h int64, dim int32) (int64, *Failure) {
	return result(C.ctgo_query(C.int32_t(q), C.int64_t(h), C.int32_t(dim)))
}

// TensorItemDouble is ct_tensor_item_double.
func TensorItemDouble(h int64) (float64, *Failure) {
	r := C.ctgo_item_double(C.int64_t(h))
	if r.st == 0 {
		return float64(r.d), nil
	}
	return 0, directFailure(&r)
}

// TensorRetain is ct_tensor_retain.
func TensorRetain(h int64) *Failure {
	_, f := result(C.ctgo_retain(C.int64_t(h)))
	return f
}

// TensorRelease is ct_tensor_release.
func TensorRelease(h int64) *Failure {
	_, f := result(C.ctgo_release(C.int64_t(h)))
	return f
}

// BenchSmallAdd runs n iterations of ct_binary(CT_ADD, a, b) + ct_tensor_release of the result
// in C, in one cgo call: the same-process C baseline of the Go binding's benchmark.
func BenchSmallAdd(a, b int64, n int) *Failure {
	_, f := result(C.ctgo_bench_small_add(C.int64_t(a), C.int64_t(b), C.int64_t(n)))
	return f
}

// Unary is ct_unary: the new reference, or the failure.
func Unary(op int32, a int64) (int64, *Failure) {
	return result(C.ctgo_unary(C.int32_t(op), C.int64_t(a)))
}

// UnaryInPlace is ct_unary_.
func UnaryInPlace(op int32, a int64) *Failure {
	_, f := result(C.ctgo_unary_(C.int32_t(op), C.int64_t(a)))
	return f
}

// Binary is ct_binary: the new reference, or the failure.
func Binary(op int32, a, b int64) (int64, *Failure) {
	return result(C.ctgo_binary(C.int32_t(op), C.int64_t(a), C.int64_t(b)))
}

// BinaryInPlace is ct_binary_.
func BinaryInPlace(op int32, a, b int64) *Failure {
	_, f := result(C.ctgo_binary_(C.int32_t(op), C.int64_t(a), C.int64_t(b)))
	return f
}

// BinaryScalarF is ct_binary_scalar_f: the new reference, or the failure.
func BinaryScalarF(op int32, a int64, s float64, reverse int32) (int64, *Failure) {
	return result(C.ctgo_binary_scalar_f(C.int32_t(op), C.int64_t(a), C.double(s), C.int32_t(reverse)))
}

// BinaryScalarI is ct_binary_scalar_i: the new reference, or the failure.
func BinaryScalarI(op int32, a int64, s int64, reverse int32) (int64, *Failure) {
	return result(C.ctgo_binary_scalar_i(C.int32_t(op), C.int64_t(a), C.int64_t(s), C.int32_t(reverse)))
}

// BinaryScalarFInPlace is ct_binary_scalar_f_.
func BinaryScalarFInPlace(op int32, a int64, s float64) *Failure {
	_, f := result(C.ctgo_binary_scalar_f_(C.int32_t(op), C.int64_t(a), C.double(s)))
	return f
}

// BinaryScalarIInPlace is ct_binary_scalar_i_.
func BinaryScalarIInPlace(op int32, a int64, s int64) *Failure {
	_, f := result(C.ctgo_binary_scalar_i_(C.int32_t(op), C.int64_t(a), C.int64_t(s)))
	return f
}
