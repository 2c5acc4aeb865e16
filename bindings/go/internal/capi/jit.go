package capi

// The jiterator (capi/ctorch.h section 25), called through cgo rather than SWIG: its functions
// take arrays of C strings (the extra arguments' names), which SWIG's Go module has no typemap
// for, and a handle type of their own. Handles travel as int64 (intptr_t) values, as in SWIG's
// wrapper, so that the owner types of package cuda hold them like the other handles.
//
// The extra arguments cross as the four parallel C arrays of the header (names, types, ints,
// doubles) built by marshalJitArgs in C memory: no Go pointer is stored in memory C reads, and
// the names are NUL-terminated copies. None: n is 0 and every array pointer NULL.

/*
#include <stdint.h>
#include <stdlib.h>
#include "ctorch.h"

#define CTGO_JIT(h) ((ct_cuda_jit_fn)(intptr_t)(h))

static ct_status ctgo_jit_create(const char* code, int32_t multi, int32_t num_outputs, char** names, const ct_jit_arg_type* types,
                                 const int64_t* ints, const double* doubles, int32_t n, int64_t* out) {
	ct_cuda_jit_fn f = NULL;
	ct_status st = !multi
		? ct_cuda_jit_create(code, (const char* const*)names, types, ints, doubles, n, &f)
		: ct_cuda_jit_create_multi_output(code, num_outputs, (const char* const*)names, types, ints, doubles, n, &f);
	*out = (int64_t)(intptr_t)f;
	return st;
}

static ct_status ctgo_jit_retain(int64_t h) { return ct_cuda_jit_retain(CTGO_JIT(h)); }
static ct_status ctgo_jit_release(int64_t h) { return ct_cuda_jit_release(CTGO_JIT(h)); }
static ct_status ctgo_jit_name(int64_t h, void* buf, int64_t cap, int64_t* needed) {
	return ct_cuda_jit_name(CTGO_JIT(h), buf, cap, needed);
}
static ct_status ctgo_jit_num_outputs(int64_t h, int32_t* out) { return ct_cuda_jit_num_outputs(CTGO_JIT(h), out); }
static ct_status ctgo_jit_run(int64_t h, int32_t out_form, const int64_t* inputs, int32_t n_inputs, char** names,
                              const ct_jit_arg_type* types, const int64_t* ints, const double* doubles, int32_t n_over,
                              int64_t* outs, int32_t n_outs) {
	return !out_form
		? ct_cuda_jit_run(CTGO_JIT(h), (const ct_tensor*)inputs, n_inputs, (const char* const*)names, types, ints,
		                  doubles, n_over, (ct_tensor*)outs, n_outs)
		: ct_cuda_jit_run_out(CTGO_JIT(h), (const ct_tensor*)inputs, n_inputs, (const char* const*)names, types, ints,
		                      doubles, n_over, (const ct_tensor*)outs, n_outs);
}
*/
import "C"

import "unsafe"

// JitArgs are extra arguments of a jitted function as the header's parallel arrays: entry i is
// named Names[i], of type Types[i] (CT_JIT_ARG_*), its value Ints[i] (int64, bool) or
// Doubles[i] (double). The slices have one length.
type JitArgs struct {
	Names   []string
	Types   []int32
	Ints    []int64
	Doubles []float64
}

// cJitArgs are JitArgs in C memory (all nil for none); free releases them.
type cJitArgs struct {
	names   **C.char
	types   *C.ct_jit_arg_type
	ints    *C.int64_t
	doubles *C.double
	n       C.int32_t
}

// marshalJitArgs copies a into C memory. The names must not contain NUL bytes (the caller
// checks); a has fewer than 2^31 entries.
func marshalJitArgs(a JitArgs) *cJitArgs {
	c := &cJitArgs{n: C.int32_t(len(a.Names))}
	n := len(a.Names)
	if n == 0 {
		return c
	}
	c.names = (**C.char)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	c.types = (*C.ct_jit_arg_type)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.ct_jit_arg_type(0)))))
	c.ints = (*C.int64_t)(C.malloc(C.size_t(n) * 8))
	c.doubles = (*C.double)(C.malloc(C.size_t(n) * 8))
	names := unsafe.Slice(c.names, n)
	types := unsafe.Slice(c.types, n)
	ints := unsafe.Slice(c.ints, n)
	doubles := unsafe.Slice(c.doubles, n)
	for i := range a.Names {
		names[i] = C.CString(a.Names[i])
		types[i] = C.ct_jit_arg_type(a.Types[i])
		ints[i] = C.int64_t(a.Ints[i])
		doubles[i] = C.double(a.Doubles[i])
	}
	return c
}

func (c *cJitArgs) free() {
	if c.names == nil {
		return
	}
	for _, s := range unsafe.Slice(c.names, int(c.n)) {
		C.free(unsafe.Pointer(s))
	}
	C.free(unsafe.Pointer(c.names))
	C.free(unsafe.Pointer(c.types))
	C.free(unsafe.Pointer(c.ints))
	C.free(unsafe.Pointer(c.doubles))
}

// MarshalJitArgsForTest marshals a as JitCreate and JitRun do and reads back what C receives:
// n, whether the four array pointers are NULL, and the arrays' entries.
func MarshalJitArgsForTest(a JitArgs) (n int32, null [4]bool, back JitArgs) {
	c := marshalJitArgs(a)
	defer c.free()
	n = int32(c.n)
	null = [4]bool{c.names == nil, c.types == nil, c.ints == nil, c.doubles == nil}
	if c.names == nil {
		return
	}
	for i := 0; i < int(c.n); i++ {
		back.Names = append(back.Names, C.GoString(unsafe.Slice(c.names, n)[i]))
		back.Types = append(back.Types, int32(unsafe.Slice(c.types, n)[i]))
		back.Ints = append(back.Ints, int64(unsafe.Slice(c.ints, n)[i]))
		back.Doubles = append(back.Doubles, float64(unsafe.Slice(c.doubles, n)[i]))
	}
	return
}

// JitCreate is ct_cuda_jit_create (multi false; numOutputs unused) or
// ct_cuda_jit_create_multi_output: the new reference, or the failure. The code must not contain NUL bytes (the caller checks).
func JitCreate(code string, multi bool, numOutputs int32, a JitArgs) (int64, *Failure) {
	cs := C.CString(code)
	defer C.free(unsafe.Pointer(cs))
	c := marshalJitArgs(a)
	defer c.free()
	var out C.int64_t
	m := C.int32_t(0)
	if multi {
		m = 1
	}
	f := Call(func() int {
		return int(C.ctgo_jit_create(cs, m, C.int32_t(numOutputs), c.names, c.types, c.ints, c.doubles, c.n, &out))
	})
	return int64(out), f
}

// JitRetain and JitRelease are ct_cuda_jit_retain and ct_cuda_jit_release.
func JitRetain(h int64) *Failure {
	return Call(func() int { return int(C.ctgo_jit_retain(C.int64_t(h))) })
}

func JitRelease(h int64) *Failure {
	return Call(func() int { return int(C.ctgo_jit_release(C.int64_t(h))) })
}

// JitName is ct_cuda_jit_name: asks for the length, then copies.
func JitName(h int64) (string, *Failure) {
	var s string
	f := Call(func() int {
		var needed C.int64_t
		// cap 0: CT_ERR_BUFFER_SIZE with the length (the string convention of ct_tensor_repr)
		if st := C.ctgo_jit_name(C.int64_t(h), nil, 0, &needed); st != C.CT_ERR_BUFFER_SIZE {
			return int(st) // an invalid handle (never CT_OK: cap 0 holds no NUL)
		}
		C.ct_clear_error()
		buf := make([]byte, int(needed)+1)
		st := C.ctgo_jit_name(C.int64_t(h), unsafe.Pointer(&buf[0]), C.int64_t(len(buf)), &needed)
		if n := int(needed); st == 0 && n < len(buf) {
			s = string(buf[:n])
		}
		return int(st)
	})
	return s, f
}

// JitNumOutputs is ct_cuda_jit_num_outputs.
func JitNumOutputs(h int64) (int32, *Failure) {
	var out C.int32_t
	f := Call(func() int { return int(C.ctgo_jit_num_outputs(C.int64_t(h), &out)) })
	return int32(out), f
}

// JitRun is ct_cuda_jit_run: inputs are tensor handles, outs receives len(outs) new
// references. Fewer than 2^31 inputs, outs and overrides (the caller checks).
func JitRun(h int64, inputs []int64, over JitArgs, outs []int64) *Failure {
	return jitRun(h, false, inputs, over, outs)
}

// JitRunOut is ct_cuda_jit_run_out: inputs and outs are tensor handles (outs borrowed: the
// values are written into them). Limits as JitRun. No outs: NULL with n_outs 0.
func JitRunOut(h int64, inputs []int64, over JitArgs, outs []int64) *Failure {
	return jitRun(h, true, inputs, over, outs)
}

// jitRun calls ct_cuda_jit_run, or ct_cuda_jit_run_out when outForm: the handle arrays are Go
// memory holding no Go pointers, passed for the call only.
func jitRun(h int64, outForm bool, inputs []int64, over JitArgs, outs []int64) *Failure {
	c := marshalJitArgs(over)
	defer c.free()
	var in, out *C.int64_t
	if len(inputs) > 0 {
		in = (*C.int64_t)(unsafe.Pointer(&inputs[0]))
	}
	if len(outs) > 0 {
		out = (*C.int64_t)(unsafe.Pointer(&outs[0]))
	}
	form := C.int32_t(0)
	if outForm {
		form = 1
	}
	return Call(func() int {
		return int(C.ctgo_jit_run(C.int64_t(h), form, in, C.int32_t(len(inputs)), c.names, c.types, c.ints, c.doubles, c.n,
			out, C.int32_t(len(outs))))
	})
}
