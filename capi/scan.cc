// Section 28 of ctorch.h: scans.
#include "capi/api.h"
#include "impl/ops/scan.h"

using namespace ct;
using namespace ct::capi;

namespace {

ct_status cum(ct_tensor t, int64_t dim, ct_dtype dtype, ct_tensor* out, bool sum) {
  CT_API_BEGIN
  produce(out, [&] {
    Tensor x = get(t);
    const bool has_dtype = dtype != CT_DTYPE_UNDEFINED;
    const DType d = has_dtype ? dtype_arg(dtype) : x->dtype;
    return sum ? ops::cumsum(x, dim, has_dtype, d) : ops::cumprod(x, dim, has_dtype, d);
  });
  CT_API_END
}

ct_status cum_extreme(ct_tensor t, int64_t dim, ct_tensor* values, ct_tensor* indices, bool is_max) {
  CT_API_BEGIN
  produce_pair(values, "values", indices, "indices", [&] { return ops::cummax(get(t), dim, is_max); });
  CT_API_END
}

}  // namespace

extern "C" {

CT_API ct_status ct_cumsum(ct_tensor t, int64_t dim, ct_dtype dtype, ct_tensor* out) {
  CT_TRACE_CALL();
  return cum(t, dim, dtype, out, true);
}

CT_API ct_status ct_cumprod(ct_tensor t, int64_t dim, ct_dtype dtype, ct_tensor* out) {
  CT_TRACE_CALL();
  return cum(t, dim, dtype, out, false);
}

CT_API ct_status ct_cummax(ct_tensor t, int64_t dim, ct_tensor* values, ct_tensor* indices) {
  CT_TRACE_CALL();
  return cum_extreme(t, dim, values, indices, true);
}

CT_API ct_status ct_cummin(ct_tensor t, int64_t dim, ct_tensor* values, ct_tensor* indices) {
  CT_TRACE_CALL();
  return cum_extreme(t, dim, values, indices, false);
}

CT_API ct_status ct_logcumsumexp(ct_tensor t, int64_t dim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::logcumsumexp(get(t), dim); });
  CT_API_END
}

}  // extern "C"
