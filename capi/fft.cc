// Section 18 of ctorch.h: FFTs and the cuFFT plan cache.
#include <vector>

#include "capi/api.h"
#include "impl/cuda/runtime.h"
#include "impl/fft/fft.h"
#include "impl/ops/ops.h"

using namespace ct;
using namespace ct::capi;

namespace {

std::vector<int64_t> list_arg(const int64_t* p, int32_t n, const char* name) {
  CT_CHECK(n >= 0 && n <= 64, CT_ERR_ARGUMENT, "argument '", name, "': ", n, " values is out of range (expected 0..64)");
  CT_CHECK(n == 0 || p != nullptr, CT_ERR_NULL_POINTER, "argument '", name, "' is NULL but has ", n, " values");
  return std::vector<int64_t>(p, p + n);
}

std::vector<int64_t> one(int64_t n) { return n == -1 ? std::vector<int64_t>{-1} : std::vector<int64_t>{n}; }

// One figure of cufft_plan_cache[device] into *out.
ct_status cache_figure(int32_t device, int64_t* out, int64_t (*figure)(int)) {
  CT_API_BEGIN
  need(out, "out");
  *out = figure(cuda::resolve_device(device));
  CT_API_END
}

}  // namespace

extern "C" {

CT_API ct_status ct_fft_fft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::fftn_c2c(get(t), one(n), {dim}, norm, true); });
  CT_API_END
}

CT_API ct_status ct_fft_ifft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::fftn_c2c(get(t), one(n), {dim}, norm, false); });
  CT_API_END
}

CT_API ct_status ct_fft_rfft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::rfftn(get(t), one(n), {dim}, norm); });
  CT_API_END
}

CT_API ct_status ct_fft_irfft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::irfftn(get(t), one(n), {dim}, norm); });
  CT_API_END
}

CT_API ct_status ct_fft_hfft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::hfft(get(t), n, dim, norm); });
  CT_API_END
}

#define CT_FFTN(NAME, CALL)                                                                                      \
  CT_API ct_status NAME(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,         \
                        ct_fft_norm norm, ct_tensor* out) {                                                     \
    CT_API_BEGIN                                                                                                \
    produce(out, [&] {                                                                                          \
      auto sv = list_arg(s, ns, "s");                                                                           \
      auto dv = list_arg(dims, ndims, "dims");                                                                  \
      return CALL;                                                                                              \
    });                                                                                                         \
    CT_API_END                                                                                                  \
  }

CT_FFTN(ct_fft_fftn, ops::fftn_c2c(get(t), sv, dv, norm, true))
CT_FFTN(ct_fft_ifftn, ops::fftn_c2c(get(t), sv, dv, norm, false))
CT_FFTN(ct_fft_rfftn, ops::rfftn(get(t), sv, dv, norm))
CT_FFTN(ct_fft_irfftn, ops::irfftn(get(t), sv, dv, norm))
CT_FFTN(ct_fft_fft2, ops::fftn_c2c(get(t), sv, dv.empty() ? std::vector<int64_t>{-2, -1} : dv, norm, true))
CT_FFTN(ct_fft_ifft2, ops::fftn_c2c(get(t), sv, dv.empty() ? std::vector<int64_t>{-2, -1} : dv, norm, false))
#undef CT_FFTN

CT_API ct_status ct_fft_fftfreq(int64_t n, double d, ct_dtype dtype, ct_device_type dev_type, int32_t dev_index,
                                ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::fftfreq(n, d, dtype_or(dtype, DType::Float32), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_fft_fftshift(ct_tensor t, const int64_t* dims, int32_t ndims, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::fftshift(get(t), list_arg(dims, ndims, "dims"), false); });
  CT_API_END
}

CT_API ct_status ct_fft_ifftshift(ct_tensor t, const int64_t* dims, int32_t ndims, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::fftshift(get(t), list_arg(dims, ndims, "dims"), true); });
  CT_API_END
}

CT_API ct_status ct_cufft_plan_cache_max_size(int32_t device, int64_t* out) {
  CT_TRACE_CALL();
  return cache_figure(device, out, fft::plan_cache_max_size);
}

CT_API ct_status ct_cufft_plan_cache_set_max_size(int32_t device, int64_t max_size) {
  CT_API_BEGIN
  fft::set_plan_cache_max_size(cuda::resolve_device(device), max_size);
  CT_API_END
}

CT_API ct_status ct_cufft_plan_cache_size(int32_t device, int64_t* out) {
  CT_TRACE_CALL();
  return cache_figure(device, out, fft::plan_cache_size);
}

CT_API ct_status ct_cufft_plan_cache_clear(int32_t device) {
  CT_API_BEGIN
  fft::plan_cache_clear(cuda::resolve_device(device));
  CT_API_END
}

CT_API ct_status ct_cufft_plan_cache_max_bytes(int32_t device, int64_t* out) {
  CT_TRACE_CALL();
  return cache_figure(device, out, fft::plan_cache_max_bytes);
}

CT_API ct_status ct_cufft_plan_cache_set_max_bytes(int32_t device, int64_t max_bytes) {
  CT_API_BEGIN
  fft::set_plan_cache_max_bytes(cuda::resolve_device(device), max_bytes);
  CT_API_END
}

CT_API ct_status ct_cufft_plan_cache_bytes(int32_t device, int64_t* out) {
  CT_TRACE_CALL();
  return cache_figure(device, out, fft::plan_cache_bytes);
}

CT_API ct_status ct_cufft_plan_cache_hits(int32_t device, int64_t* out) {
  CT_TRACE_CALL();
  return cache_figure(device, out, fft::plan_cache_hits);
}

CT_API ct_status ct_cufft_plan_cache_misses(int32_t device, int64_t* out) {
  CT_TRACE_CALL();
  return cache_figure(device, out, fft::plan_cache_misses);
}

}  // extern "C"
