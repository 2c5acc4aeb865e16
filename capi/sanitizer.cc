// Section 24 of ctorch.h: the CUDA stream sanitizer (Note [Stream sanitizer] in impl/core/csan.cc).
#include "capi/api.h"
#include "impl/core/csan.h"

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API ct_status ct_cuda_sanitizer_set_mode(ct_csan_mode mode) {
  CT_API_BEGIN
  csan::set_mode(csan_mode_arg(mode));
  CT_API_END
}

CT_API ct_status ct_cuda_sanitizer_mode(ct_csan_mode* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<ct_csan_mode>(csan::mode());
  CT_API_END
}

CT_API ct_status ct_cuda_sanitizer_set_callback(ct_csan_callback cb, void* user) {
  CT_API_BEGIN
  csan::set_callback(cb, user);
  CT_API_END
}

CT_API ct_status ct_cuda_sanitizer_report_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = csan::report_count();
  CT_API_END
}

}  // extern "C"
