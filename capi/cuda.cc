// Section 4 of ctorch.h: CUDA device enumeration and properties.
#include "capi/api.h"
#include "impl/cuda/exchange.h"
#include "impl/cuda/capture.h"
#include "impl/cuda/runtime.h"

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API ct_status ct_cuda_is_available(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::is_available() ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_cuda_device_count(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::device_count();
  CT_API_END
}

CT_API ct_status ct_cuda_check_available(void) {
  CT_API_BEGIN
  cuda::check_available();
  CT_API_END
}

CT_API ct_status ct_cuda_get_device_name(int32_t device, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(cuda::device_name(device), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_get_device_property(int32_t device, ct_device_property prop, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::device_property(device, device_property_arg(prop));
  CT_API_END
}

CT_API ct_status ct_cuda_get_device_capability(int32_t device, int32_t* major, int32_t* minor) {
  CT_API_BEGIN
  need(major, "major");
  need(minor, "minor");
  int64_t mj = cuda::device_property(device, DeviceProperty::Major);
  int64_t mn = cuda::device_property(device, DeviceProperty::Minor);
  *major = static_cast<int32_t>(mj);
  *minor = static_cast<int32_t>(mn);
  CT_API_END
}

}  // extern "C"

extern "C" {

CT_API ct_status ct_cuda_current_device(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::current_device();
  CT_API_END
}

CT_API ct_status ct_cuda_set_device(int32_t device) {
  CT_API_BEGIN
  if (device < 0) return CT_OK;  // as torch.cuda.set_device: a negative device changes nothing
  cuda::set_device(device);
  CT_API_END
}

CT_API ct_status ct_cuda_exchange_device(int32_t device, int32_t* prev) {
  CT_API_BEGIN
  need(prev, "prev");
  *prev = cuda::exchange_device(device);
  CT_API_END
}

CT_API ct_status ct_cuda_exchange_device_of(ct_tensor t, int32_t* prev) {
  CT_API_BEGIN
  need(prev, "prev");
  Device d = get(t)->device();
  *prev = d.is_cpu() ? -1 : cuda::exchange_device(d.index);
  CT_API_END
}

CT_API ct_status ct_cuda_synchronize(int32_t device) {
  CT_API_BEGIN
  cuda::check_capture_safe("torch.cuda.synchronize");
  cuda::synchronize(device);
  CT_API_END
}

CT_API ct_status ct_cuda_mem_get_info(int32_t device, int64_t* free_bytes, int64_t* total_bytes) {
  CT_API_BEGIN
  need(free_bytes, "free_bytes");
  need(total_bytes, "total_bytes");
  cuda::mem_get_info(device, free_bytes, total_bytes);
  CT_API_END
}

CT_API ct_status ct_cuda_can_device_access_peer(int32_t device, int32_t peer, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::can_access_peer(device, peer) ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_cuda_get_arch_list(void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(cuda::arch_list(), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_get_gencode_flags(void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(cuda::gencode_flags(), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_set_sync_debug_mode(int32_t mode) {
  CT_API_BEGIN
  cuda::set_sync_debug_mode(mode);
  CT_API_END
}

CT_API ct_status ct_cuda_get_sync_debug_mode(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::sync_debug_mode();
  CT_API_END
}

}  // extern "C"
