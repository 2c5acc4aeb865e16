// ---- 32. row functions (impl/ops/rowfuncs.cc)
#include "capi/api.h"
#include "impl/ops/rowfuncs.h"

using namespace ct;
using namespace ct::capi;

static ct_status softmax_impl(ct_tensor t, int32_t dim, ct_dtype dtype, ct_tensor* out, bool log) {
  CT_API_BEGIN
  produce(out, [&] {
    Tensor x = get(t);
    bool has_dtype = dtype != CT_DTYPE_UNDEFINED;
    return ops::softmax(x, dim, has_dtype, dtype_or(dtype, x->dtype), log);
  });
  CT_API_END
}

CT_API ct_status ct_softmax(ct_tensor t, int32_t dim, ct_dtype dtype, ct_tensor* out) {
  CT_TRACE_CALL();
  return softmax_impl(t, dim, dtype, out, false);
}

CT_API ct_status ct_log_softmax(ct_tensor t, int32_t dim, ct_dtype dtype, ct_tensor* out) {
  CT_TRACE_CALL();
  return softmax_impl(t, dim, dtype, out, true);
}

CT_API ct_status ct_logsumexp(ct_tensor t, const int64_t* dims, int32_t ndims, int32_t keepdim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::logsumexp(get(t), dims_arg(dims, ndims), keepdim != 0); });
  CT_API_END
}

static ct_status var_impl(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                          ct_tensor* out, bool take_sqrt) {
  CT_API_BEGIN
  produce(out, [&] { return ops::var(get(t), dims_arg(dims, ndims), correction, keepdim != 0, take_sqrt); });
  CT_API_END
}

CT_API ct_status ct_var(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                        ct_tensor* out) {
  CT_TRACE_CALL();
  return var_impl(t, dims, ndims, correction, keepdim, out, false);
}

CT_API ct_status ct_std(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                        ct_tensor* out) {
  CT_TRACE_CALL();
  return var_impl(t, dims, ndims, correction, keepdim, out, true);
}

static ct_status var_mean_impl(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                               ct_tensor* var_out, ct_tensor* mean_out, bool take_sqrt) {
  CT_API_BEGIN
  produce_pair(var_out, take_sqrt ? "std_out" : "var_out", mean_out, "mean_out",
               [&] { return ops::var_mean(get(t), dims_arg(dims, ndims), correction, keepdim != 0, take_sqrt); });
  CT_API_END
}

CT_API ct_status ct_var_mean(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                             ct_tensor* var_out, ct_tensor* mean_out) {
  CT_TRACE_CALL();
  return var_mean_impl(t, dims, ndims, correction, keepdim, var_out, mean_out, false);
}

CT_API ct_status ct_std_mean(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                             ct_tensor* std_out, ct_tensor* mean_out) {
  CT_TRACE_CALL();
  return var_mean_impl(t, dims, ndims, correction, keepdim, std_out, mean_out, true);
}

CT_API ct_status ct_matrix_norm(ct_tensor t, double ord, int32_t dim0, int32_t dim1, int32_t keepdim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::matrix_norm(get(t), ord, dim0, dim1, keepdim != 0); });
  CT_API_END
}

CT_API ct_status ct_matrix_norm_str(ct_tensor t, const char* ord, int32_t dim0, int32_t dim1, int32_t keepdim,
                                    ct_tensor* out) {
  CT_API_BEGIN
  need(ord, "ord");
  produce(out, [&] { return ops::matrix_norm_str(get(t), ord, dim0, dim1, keepdim != 0); });
  CT_API_END
}

CT_API ct_status ct_layer_norm(ct_tensor t, const int64_t* normalized_shape, int32_t n, ct_tensor weight,
                               ct_tensor bias, double eps, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    Tensor x = get(t);
    Shape ns = shape_arg(normalized_shape, n, "normalized_shape");
    Tensor w = weight ? get(weight, "weight") : Tensor();
    Tensor b = bias ? get(bias, "bias") : Tensor();
    return ops::layer_norm(x, ns, w, b, eps);
  });
  CT_API_END
}
