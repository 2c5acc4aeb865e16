// Section 22 of ctorch.h: NVTX marks and ranges (Note [NVTX] in impl/nvtx/nvtx.h).
#include "capi/api.h"
#include "impl/nvtx/nvtx.h"

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API ct_status ct_nvtx_mark(const char* msg) {
  CT_API_BEGIN
  need(msg, "msg");
  nvtx::mark(msg);
  CT_API_END
}

CT_API ct_status ct_nvtx_range_push(const char* msg, int32_t* depth) {
  CT_API_BEGIN
  need(msg, "msg");
  int d = nvtx::range_push(msg);
  if (depth != nullptr) *depth = d;
  CT_API_END
}

CT_API ct_status ct_nvtx_range_pop(int32_t* depth) {
  CT_API_BEGIN
  int d = nvtx::range_pop();
  if (depth != nullptr) *depth = d;
  CT_API_END
}

CT_API ct_status ct_nvtx_range_start(const char* msg, uint64_t* id) {
  CT_API_BEGIN
  need(msg, "msg");
  need(id, "id");
  *id = nvtx::range_start(msg);
  CT_API_END
}

CT_API ct_status ct_nvtx_range_end(uint64_t id) {
  CT_API_BEGIN
  nvtx::range_end(id);
  CT_API_END
}

}  // extern "C"
