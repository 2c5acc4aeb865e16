// ABI glue shared by the capi/*.cc files: the error state, the catch-all entry-point macros,
// argument helpers, and the handle table.
#pragma once
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "capi/abi_convert.h"
#include "capi/ctorch.h"
#include "impl/core/error.h"
#include "impl/core/tensor.h"

namespace ct::capi {

// Stores code + message as this thread's last error and returns code.
ct_status set_error(ct_status code, const std::string& msg);

// ---- tensor handles (capi/handles.cc; see Note [Handle table] in capi/handles.h)
ct_tensor new_handle(Tensor t);
Tensor get(ct_tensor h, const char* arg = "tensor");
void retain(ct_tensor h);
void release(ct_tensor h);
int64_t live_count();

// ---- arguments
inline void need(const void* p, const char* name) {
  CT_CHECK(p != nullptr, CT_ERR_NULL_POINTER, "argument '", name, "' is NULL (expected a valid pointer)");
}
Shape shape_arg(const int64_t* sizes, int32_t ndim, const char* name);
// n >= 0 tensors of the array ts (which may be NULL when n is 0), each looked up.
std::vector<Tensor> tensors_arg(const ct_tensor* ts, int32_t n, const char* name);
std::vector<int64_t> dims_arg(const int64_t* dims, int32_t ndims);
DType dtype_arg(ct_dtype d);
// dtype, or fallback when d == CT_DTYPE_UNDEFINED
DType dtype_or(ct_dtype d, DType fallback);
Device device_arg(ct_device_type type, int32_t index);  // parsed and resolved
// Checks both out pointers, then writes d into them.
void put_device(const Device& d, ct_device_type* type, int32_t* index);
// Writes s + NUL into buf when it fits; *needed (optional) gets s's length.
void write_string(const std::string& s, void* buf, int64_t cap, int64_t* needed);

// Checks the out pointer first (so a NULL out fails before any work), runs f, and stores the
// result as a new handle.
template <typename F>
void produce(ct_tensor* out, F f) {
  need(out, "out");
  Tensor t = f();
  *out = new_handle(std::move(t));
}

// The two-result form of produce (values and indices): checks both out pointers first, runs f
// (a std::pair of tensors) and stores both as new handles, or neither.
template <typename F>
void produce_pair(ct_tensor* first, const char* first_name, ct_tensor* second, const char* second_name, F f) {
  need(first, first_name);
  need(second, second_name);
  auto r = f();
  ct_tensor a = new_handle(std::move(r.first));
  try {
    *second = new_handle(std::move(r.second));
  } catch (...) {
    release(a);
    throw;
  }
  *first = a;
}

// Copies the dims v (sizes or strides) into dst[0..cap) and their number into *ndim, the
// convention of ct_tensor_sizes: *ndim is set first (so a small buffer tells the caller the
// size needed), then CT_ERR_BUFFER_SIZE when cap is too small; dst may be NULL for no dims.
inline void put_dims(const Shape& v, int64_t* dst, int32_t cap, int32_t* ndim, const char* whose) {
  need(ndim, "ndim");
  *ndim = static_cast<int32_t>(v.size());
  CT_CHECK(cap >= static_cast<int32_t>(v.size()), CT_ERR_BUFFER_SIZE, "buffer of ", cap, " values is too small: ", whose,
           " has ", v.size(), " dimensions");
  CT_CHECK(v.empty() || dst != nullptr, CT_ERR_NULL_POINTER, "argument 'dst' is NULL");
  for (size_t i = 0; i < v.size(); ++i) dst[i] = v[i];
}

// Stores r in *out: when r is the tensor behind handle h itself (to() / contiguous() with
// nothing to do), *out is h with one more reference, as PyTorch returns `self`.
inline void same_or_new(ct_tensor h, const Tensor& x, Tensor r, ct_tensor* out) {
  if (r.get() == x.get()) {
    retain(h);
    *out = h;
  } else {
    *out = new_handle(std::move(r));
  }
}

// ---- call trace (capi/trace.cc, Note [Call trace])
extern const bool g_trace_calls;
void trace_call(const char* fn);

}  // namespace ct::capi

// Records the calling entry point when CTORCH_TRACE_CALLS is set (Note [Call trace]). Every
// exported function starts with it: through CT_API_BEGIN, or written out in the few that
// cannot fail or hand their work to a shared helper.
#define CT_TRACE_CALL()                                                                     \
  do {                                                                                      \
    if (__builtin_expect(::ct::capi::g_trace_calls, 0)) ::ct::capi::trace_call(__func__);   \
  } while (0)

#define CT_API_BEGIN CT_TRACE_CALL(); try {
#define CT_API_END                                                                          \
  }                                                                                         \
  catch (const ::ct::Error& e) {                                                            \
    return ::ct::capi::set_error(::ct::capi::to_c(e.code()), e.what());                                  \
  }                                                                                         \
  catch (const std::bad_alloc&) {                                                           \
    return ::ct::capi::set_error(CT_ERR_OUT_OF_MEMORY, "out of memory (host allocation failed)"); \
  }                                                                                         \
  catch (const std::exception& e) {                                                         \
    return ::ct::capi::set_error(CT_ERR_INTERNAL, std::string("internal error: ") + e.what()); \
  }                                                                                         \
  catch (...) {                                                                             \
    return ::ct::capi::set_error(CT_ERR_INTERNAL, "internal error: unknown exception");     \
  }                                                                                         \
  return CT_OK;
