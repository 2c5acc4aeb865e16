// Sections 1-3 of ctorch.h: version, errors, dtypes and devices; plus argument helpers.
#include <cstring>

#include "capi/api.h"
#include "impl/core/device.h"
#include "impl/core/dtype.h"
#include "impl/cuda/runtime.h"

namespace ct::capi {

namespace {
struct LastError {
  ct_status code = CT_OK;
  std::string message;
};
LastError& last_error() {
  thread_local LastError e;
  return e;
}
}  // namespace

ct_status set_error(ct_status code, const std::string& msg) {
  LastError& e = last_error();
  e.code = code;
  e.message = msg;
  return code;
}

Shape shape_arg(const int64_t* sizes, int32_t ndim, const char* name) {
  CT_CHECK(ndim >= 0 && ndim <= 64, CT_ERR_ARGUMENT, "argument '", name, "': number of dimensions ", ndim,
           " is out of range (expected 0..64)");
  CT_CHECK(ndim == 0 || sizes != nullptr, CT_ERR_NULL_POINTER, "argument '", name, "' is NULL but ndim is ", ndim);
  return Shape(sizes, sizes + ndim);
}

std::vector<int64_t> dims_arg(const int64_t* dims, int32_t ndims) { return shape_arg(dims, ndims, "dims").vec(); }

std::vector<Tensor> tensors_arg(const ct_tensor* ts, int32_t n, const char* name) {
  CT_CHECK(n >= 0, CT_ERR_ARGUMENT, "argument '", name, "': the count must be >= 0, got ", n);
  if (n > 0) need(ts, name);
  std::vector<Tensor> v;
  v.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v.push_back(get(ts[i], name));
  return v;
}

DType dtype_arg(ct_dtype d) { return dtype_from_c(d); }

DType dtype_or(ct_dtype d, DType fallback) { return d == CT_DTYPE_UNDEFINED ? fallback : dtype_from_c(d); }

Device device_arg(ct_device_type type, int32_t index) { return cuda::resolve_device(device_from_c(type, index)); }

void put_device(const Device& d, ct_device_type* type, int32_t* index) {
  need(type, "type");
  need(index, "index");
  *type = static_cast<ct_device_type>(d.type);
  *index = d.index;
}

void write_string(const std::string& s, void* buf, int64_t cap, int64_t* needed) {
  int64_t len = static_cast<int64_t>(s.size());
  if (needed) *needed = len;
  CT_CHECK(cap > len, CT_ERR_BUFFER_SIZE, "buffer of ", cap, " bytes is too small for ", len,
           " bytes plus the terminating NUL (call with cap 0 to get the length)");
  need(buf, "buf");
  std::memcpy(buf, s.data(), s.size());
  static_cast<char*>(buf)[len] = '\0';
}

}  // namespace ct::capi

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API int32_t ct_version(int32_t* major, int32_t* minor, int32_t* patch) {
  CT_TRACE_CALL();
  if (major) *major = CT_VERSION_MAJOR;
  if (minor) *minor = CT_VERSION_MINOR;
  if (patch) *patch = CT_VERSION_PATCH;
  return CT_OK;
}

CT_API const char* ct_last_error_message(void) {
  CT_TRACE_CALL();
  return last_error().message.c_str();
}
CT_API ct_status ct_last_error_code(void) {
  CT_TRACE_CALL();
  return last_error().code;
}

CT_API int64_t ct_last_error_copy(void* buf, int64_t cap) {
  CT_TRACE_CALL();
  const std::string& m = last_error().message;
  int64_t len = static_cast<int64_t>(m.size());
  if (buf && cap > 0) {
    int64_t n = std::min(len, cap - 1);
    std::memcpy(buf, m.data(), n);
    static_cast<char*>(buf)[n] = '\0';
  }
  return len;
}

CT_API void ct_clear_error(void) {
  CT_TRACE_CALL();
  last_error().code = CT_OK;
  last_error().message.clear();
}

CT_API const char* ct_status_name(ct_status code) {
  CT_TRACE_CALL();
  const char* name = abi::status_name(code);  // the names of capi/abi.toml
  return name ? name : "CT_UNKNOWN";
}

CT_API ct_status ct_dtype_itemsize(ct_dtype dtype, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = itemsize(dtype_arg(dtype));
  CT_API_END
}

CT_API ct_status ct_dtype_name(ct_dtype dtype, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(dtype_name(dtype_arg(dtype)), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<ct_dtype>(promote_types(dtype_arg(a), dtype_arg(b)));
  CT_API_END
}

CT_API ct_status ct_device_parse(const char* str, ct_device_type* type, int32_t* index) {
  CT_API_BEGIN
  need(str, "str");
  need(type, "type");
  need(index, "index");
  Device d = parse_device(str);
  *type = static_cast<ct_device_type>(d.type);
  *index = d.index;
  CT_API_END
}

CT_API ct_status ct_device_format(ct_device_type type, int32_t index, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(device_from_c(type, index).str(), buf, cap, needed);
  CT_API_END
}

}  // extern "C"
