package capi

// The safetensors format (capi/ctorch.h section 27), called through cgo rather than SWIG: the
// save functions take arrays of C strings (names, metadata keys and values), which SWIG's Go
// module has no typemap for, and the file handle is a kind of its own. Handles travel as int64
// (intptr_t) values, as in SWIG's wrapper. Strings cross as NUL-terminated copies in C memory
// (cStrings), so no Go pointer is stored in memory C reads.

/*
#include <stdint.h>
#include <stdlib.h>
#include "ctorch.h"

#define CTGO_ST(h) ((ct_safetensors)(intptr_t)(h))

static ct_status ctgo_st_save(const char* path, char** names, const int64_t* tensors, int32_t n, char** keys,
                              char** values, int32_t n_meta, void* buf, int64_t cap, int64_t* needed) {
	if (path)
		return ct_safetensors_save_file(path, (const char* const*)names, (const ct_tensor*)tensors, n,
		                                (const char* const*)keys, (const char* const*)values, n_meta);
	return ct_safetensors_save_buffer((const char* const*)names, (const ct_tensor*)tensors, n, (const char* const*)keys,
	                                  (const char* const*)values, n_meta, buf, cap, needed);
}
static ct_status ctgo_st_open(const char* path, const void* data, int64_t nbytes, int64_t* out) {
	ct_safetensors f = NULL;
	ct_status st = path ? ct_safetensors_open(path, &f) : ct_safetensors_open_buffer(data, nbytes, &f);
	*out = (int64_t)(intptr_t)f;
	return st;
}
static ct_status ctgo_st_retain(int64_t h) { return ct_safetensors_retain(CTGO_ST(h)); }
static ct_status ctgo_st_release(int64_t h) { return ct_safetensors_release(CTGO_ST(h)); }
static ct_status ctgo_st_live(int64_t* out) { return ct_live_safetensors_count(out); }
static ct_status ctgo_st_count(int64_t h, int32_t meta, int64_t* out) {
	return meta ? ct_safetensors_metadata_count(CTGO_ST(h), out) : ct_safetensors_count(CTGO_ST(h), out);
}
// which: 0 the i-th name, 1 the i-th metadata key, 2 the metadata value of key
static ct_status ctgo_st_string(int64_t h, int32_t which, int64_t i, const char* key, void* buf, int64_t cap,
                                int64_t* needed) {
	switch (which) {
		case 0: return ct_safetensors_name(CTGO_ST(h), i, buf, cap, needed);
		case 1: return ct_safetensors_metadata_key(CTGO_ST(h), i, buf, cap, needed);
		default: return ct_safetensors_metadata_get(CTGO_ST(h), key, buf, cap, needed);
	}
}
static ct_status ctgo_st_dtype(int64_t h, const char* name, int32_t* out) {
	return ct_safetensors_tensor_dtype(CTGO_ST(h), name, out);
}
static ct_status ctgo_st_shape(int64_t h, const char* name, int64_t* dst, int32_t cap, int32_t* ndim) {
	return ct_safetensors_tensor_shape(CTGO_ST(h), name, dst, cap, ndim);
}
static ct_status ctgo_st_get(int64_t h, const char* name, int32_t type, int32_t index, int64_t* out) {
	ct_tensor t = NULL;
	ct_status st = ct_safetensors_get_tensor(CTGO_ST(h), name, type, index, &t);
	*out = (int64_t)(intptr_t)t;
	return st;
}
*/
import "C"

import "unsafe"

// cStrings copies ss into C memory (nil for none); free releases it. The strings must not
// contain NUL bytes (the caller checks).
type cStrings struct {
	p **C.char
	n int
}

func newCStrings(ss []string) *cStrings {
	c := &cStrings{n: len(ss)}
	if len(ss) == 0 {
		return c
	}
	c.p = (**C.char)(C.malloc(C.size_t(len(ss)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	arr := unsafe.Slice(c.p, len(ss))
	for i, s := range ss {
		arr[i] = C.CString(s)
	}
	return c
}

func (c *cStrings) free() {
	if c.p == nil {
		return
	}
	for _, s := range unsafe.Slice(c.p, c.n) {
		C.free(unsafe.Pointer(s))
	}
	C.free(unsafe.Pointer(c.p))
}

// SafeTensorsSave is ct_safetensors_save_file (path != "") or ct_safetensors_save_buffer (path
// ""; the bytes of the file returned): names[i] -> tensors[i] (handles), keys[i] -> values[i].
// Fewer than 2^31 entries; no NUL bytes in the strings (the caller checks).
func SafeTensorsSave(path string, names []string, tensors []int64, keys, values []string) ([]byte, *Failure) {
	cn, ck, cv := newCStrings(names), newCStrings(keys), newCStrings(values)
	defer cn.free()
	defer ck.free()
	defer cv.free()
	var ts *C.int64_t
	if len(tensors) > 0 {
		ts = (*C.int64_t)(unsafe.Pointer(&tensors[0]))
	}
	var out []byte
	f := Call(func() int {
		var needed C.int64_t
		if path != "" {
			cp := C.CString(path)
			defer C.free(unsafe.Pointer(cp))
			return int(C.ctgo_st_save(cp, cn.p, ts, C.int32_t(len(names)), ck.p, cv.p, C.int32_t(len(keys)), nil, 0, &needed))
		}
		// cap 0: CT_ERR_BUFFER_SIZE with the file's size, nothing copied from any device
		st := C.ctgo_st_save(nil, cn.p, ts, C.int32_t(len(names)), ck.p, cv.p, C.int32_t(len(keys)), nil, 0, &needed)
		if st != C.CT_ERR_BUFFER_SIZE {
			return int(st) // a bad argument (never CT_OK: a file has at least 16 bytes)
		}
		C.ct_clear_error()
		buf := C.malloc(C.size_t(needed))
		defer C.free(buf)
		st = C.ctgo_st_save(nil, cn.p, ts, C.int32_t(len(names)), ck.p, cv.p, C.int32_t(len(keys)), buf, needed, &needed)
		if st == 0 {
			out = C.GoBytes(buf, C.int(needed))
		}
		return int(st)
	})
	return out, f
}

// SafeTensorsOpen is ct_safetensors_open (path != "") or ct_safetensors_open_buffer (data):
// the new reference. No NUL bytes in path (the caller checks).
func SafeTensorsOpen(path string, data []byte) (int64, *Failure) {
	var out C.int64_t
	f := Call(func() int {
		if path != "" {
			cp := C.CString(path)
			defer C.free(unsafe.Pointer(cp))
			return int(C.ctgo_st_open(cp, nil, 0, &out))
		}
		// Go memory holding no Go pointers, passed for the call only (the library copies it)
		var p unsafe.Pointer
		if len(data) > 0 {
			p = unsafe.Pointer(&data[0])
		}
		return int(C.ctgo_st_open(nil, p, C.int64_t(len(data)), &out))
	})
	return int64(out), f
}

// SafeTensorsRetain and SafeTensorsRelease are ct_safetensors_retain and ct_safetensors_release.
func SafeTensorsRetain(h int64) *Failure {
	return Call(func() int { return int(C.ctgo_st_retain(C.int64_t(h))) })
}

func SafeTensorsRelease(h int64) *Failure {
	return Call(func() int { return int(C.ctgo_st_release(C.int64_t(h))) })
}

// SafeTensorsLive is ct_live_safetensors_count.
func SafeTensorsLive() (int64, *Failure) {
	var out C.int64_t
	f := Call(func() int { return int(C.ctgo_st_live(&out)) })
	return int64(out), f
}

// SafeTensorsCount is ct_safetensors_count, or ct_safetensors_metadata_count when meta.
func SafeTensorsCount(h int64, meta bool) (int64, *Failure) {
	var out C.int64_t
	m := C.int32_t(0)
	if meta {
		m = 1
	}
	f := Call(func() int { return int(C.ctgo_st_count(C.int64_t(h), m, &out)) })
	return int64(out), f
}

// SafeTensorsString is ct_safetensors_name (which 0: the i-th name), ct_safetensors_metadata_key
// (1: the i-th key) or ct_safetensors_metadata_get (2: key's value): asks for the length, then
// copies.
func SafeTensorsString(h int64, which int32, i int64, key string) (string, *Failure) {
	var ckey *C.char
	if which == 2 {
		ckey = C.CString(key)
		defer C.free(unsafe.Pointer(ckey))
	}
	var s string
	f := Call(func() int {
		var needed C.int64_t
		if st := C.ctgo_st_string(C.int64_t(h), C.int32_t(which), C.int64_t(i), ckey, nil, 0, &needed); st != C.CT_ERR_BUFFER_SIZE {
			return int(st) // never CT_OK: cap 0 holds no NUL
		}
		C.ct_clear_error()
		buf := make([]byte, int(needed)+1)
		st := C.ctgo_st_string(C.int64_t(h), C.int32_t(which), C.int64_t(i), ckey, unsafe.Pointer(&buf[0]),
			C.int64_t(len(buf)), &needed)
		if n := int(needed); st == 0 && n < len(buf) {
			s = string(buf[:n])
		}
		return int(st)
	})
	return s, f
}

// SafeTensorsDType is ct_safetensors_tensor_dtype. No NUL bytes in name (the caller checks).
func SafeTensorsDType(h int64, name string) (int32, *Failure) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var out C.int32_t
	f := Call(func() int { return int(C.ctgo_st_dtype(C.int64_t(h), cn, &out)) })
	return int32(out), f
}

// SafeTensorsShape is ct_safetensors_tensor_shape: asks for the number of dims, then copies.
func SafeTensorsShape(h int64, name string) ([]int64, *Failure) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var shape []int64
	f := Call(func() int {
		var nd C.int32_t
		if st := C.ctgo_st_shape(C.int64_t(h), cn, nil, 0, &nd); st != 0 && st != C.CT_ERR_BUFFER_SIZE {
			return int(st)
		}
		C.ct_clear_error()
		shape = make([]int64, int(nd))
		if nd == 0 {
			return 0
		}
		return int(C.ctgo_st_shape(C.int64_t(h), cn, (*C.int64_t)(unsafe.Pointer(&shape[0])), nd, &nd))
	})
	return shape, f
}

// SafeTensorsGet is ct_safetensors_get_tensor: the new tensor reference.
func SafeTensorsGet(h int64, name string, devType, devIndex int32) (int64, *Failure) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var out C.int64_t
	f := Call(func() int {
		return int(C.ctgo_st_get(C.int64_t(h), cn, C.int32_t(devType), C.int32_t(devIndex), &out))
	})
	return int64(out), f
}
