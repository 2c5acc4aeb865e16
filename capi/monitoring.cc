// Section 23 of ctorch.h: device monitoring through NVML and CUDA initialization.
#include "capi/api.h"
#include "impl/cuda/init.h"
#include "impl/cuda/nvml.h"

using namespace ct;
using namespace ct::capi;

namespace {

// The int32 queries: out checked first, then f(device).
template <typename F>
ct_status int_query(int32_t device, int32_t* out, F f) {
  need(out, "out");
  *out = f(device);
  return CT_OK;
}

}  // namespace

extern "C" {

CT_API ct_status ct_cuda_init(void) {
  CT_API_BEGIN
  cuda::init();
  CT_API_END
}

CT_API ct_status ct_cuda_is_initialized(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::initialized() ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_cuda_device_count_nvml(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::nvml::device_count();
  CT_API_END
}

CT_API ct_status ct_cuda_utilization(int32_t device, int32_t* out) {
  CT_API_BEGIN
  return int_query(device, out, cuda::nvml::utilization);
  CT_API_END
}

CT_API ct_status ct_cuda_memory_usage(int32_t device, int32_t* out) {
  CT_API_BEGIN
  return int_query(device, out, cuda::nvml::memory_usage);
  CT_API_END
}

CT_API ct_status ct_cuda_temperature(int32_t device, int32_t* out) {
  CT_API_BEGIN
  return int_query(device, out, cuda::nvml::temperature);
  CT_API_END
}

CT_API ct_status ct_cuda_power_draw(int32_t device, int32_t* out) {
  CT_API_BEGIN
  return int_query(device, out, cuda::nvml::power_draw);
  CT_API_END
}

CT_API ct_status ct_cuda_clock_rate(int32_t device, int32_t* out) {
  CT_API_BEGIN
  return int_query(device, out, cuda::nvml::clock_rate);
  CT_API_END
}

CT_API ct_status ct_cuda_device_memory_used(int32_t device, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::nvml::device_memory_used(device);
  CT_API_END
}

CT_API ct_status ct_cuda_list_gpu_processes(int32_t device, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(cuda::nvml::list_gpu_processes(device), buf, cap, needed);
  CT_API_END
}

}  // extern "C"
