// Section 17 of ctorch.h: matrix products and their switches.
#include "capi/api.h"
#include "impl/blas/blas.h"
#include "impl/cuda/runtime.h"
#include "impl/ops/ops.h"

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API ct_status ct_matmul(ct_tensor a, ct_tensor b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::matmul(get(a, "a"), get(b, "b")); });
  CT_API_END
}

CT_API ct_status ct_mm(ct_tensor a, ct_tensor b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::mm(get(a, "a"), get(b, "b")); });
  CT_API_END
}

CT_API ct_status ct_bmm(ct_tensor a, ct_tensor b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::bmm(get(a, "a"), get(b, "b")); });
  CT_API_END
}

CT_API ct_status ct_dot(ct_tensor a, ct_tensor b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::dot(get(a, "a"), get(b, "b")); });
  CT_API_END
}

CT_API ct_status ct_mv(ct_tensor a, ct_tensor v, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::mv(get(a, "a"), get(v, "v")); });
  CT_API_END
}

CT_API ct_status ct_addmm(ct_tensor input, ct_tensor m1, ct_tensor m2, double beta, double alpha, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::addmm(get(input, "input"), get(m1, "m1"), get(m2, "m2"), beta, alpha); });
  CT_API_END
}

CT_API ct_status ct_set_allow_tf32(int32_t on) {
  CT_API_BEGIN
  blas::set_allow_tf32(on != 0);
  CT_API_END
}

CT_API ct_status ct_get_allow_tf32(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = blas::allow_tf32();
  CT_API_END
}

CT_API ct_status ct_set_allow_fp16_reduced_precision_reduction(int32_t on) {
  CT_API_BEGIN
  blas::set_allow_fp16_reduced_precision(on != 0);
  CT_API_END
}

CT_API ct_status ct_get_allow_fp16_reduced_precision_reduction(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = blas::allow_fp16_reduced_precision();
  CT_API_END
}

CT_API ct_status ct_set_allow_bf16_reduced_precision_reduction(int32_t on) {
  CT_API_BEGIN
  blas::set_allow_bf16_reduced_precision(on != 0);
  CT_API_END
}

CT_API ct_status ct_get_allow_bf16_reduced_precision_reduction(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = blas::allow_bf16_reduced_precision();
  CT_API_END
}

CT_API ct_status ct_cuda_current_blas_handle(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = blas::current_blas_handle(cuda::current_device());
  CT_API_END
}

}  // extern "C"
