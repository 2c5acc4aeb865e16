// Section 4 of ctorch.h: CUDA device enumeration and properties.
#include "capi/api.h"
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
  *out = cuda::device_property(device, prop);
  CT_API_END
}

CT_API ct_status ct_cuda_get_device_capability(int32_t device, int32_t* major, int32_t* minor) {
  CT_API_BEGIN
  need(major, "major");
  need(minor, "minor");
  int64_t mj = cuda::device_property(device, CT_PROP_MAJOR);
  int64_t mn = cuda::device_property(device, CT_PROP_MINOR);
  *major = static_cast<int32_t>(mj);
  *minor = static_cast<int32_t>(mn);
  CT_API_END
}

}  // extern "C"
