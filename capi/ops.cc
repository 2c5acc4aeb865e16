// Sections 8-12 of ctorch.h: views, elementwise ops, reductions, joining, threads.
#include "capi/api.h"
#include "impl/ops/cpu/threads.h"
#include "impl/ops/ops.h"

using namespace ct;
using namespace ct::capi;

namespace {
Tensor scalar_f(double s) { return wrapped_scalar_double(s); }
Tensor scalar_i(int64_t s) { return wrapped_scalar_int(s); }
// x op s, or s op x when reverse
Tensor with_scalar(ct_binary_op op, const Tensor& x, const Tensor& s, int32_t reverse) {
  BinaryOp o = binary_op_arg(op);
  return reverse ? ops::binary(o, s, x) : ops::binary(o, x, s);
}
}  // namespace

extern "C" {

// ---- 8. views

CT_API ct_status ct_view(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::view(get(t), shape_arg(sizes, ndim, "sizes")); });
  CT_API_END
}

CT_API ct_status ct_reshape(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::reshape(get(t), shape_arg(sizes, ndim, "sizes")); });
  CT_API_END
}

CT_API ct_status ct_permute(ct_tensor t, const int64_t* dims, int32_t ndim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::permute(get(t), shape_arg(dims, ndim, "dims")); });
  CT_API_END
}

CT_API ct_status ct_transpose(ct_tensor t, int32_t dim0, int32_t dim1, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::transpose(get(t), dim0, dim1); });
  CT_API_END
}

CT_API ct_status ct_narrow(ct_tensor t, int32_t dim, int64_t start, int64_t length, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::narrow(get(t), dim, start, length); });
  CT_API_END
}

CT_API ct_status ct_slice(ct_tensor t, int32_t dim, int64_t start, int64_t end, int64_t step, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::slice(get(t), dim, start, end, step); });
  CT_API_END
}

CT_API ct_status ct_select(ct_tensor t, int32_t dim, int64_t index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::select(get(t), dim, index); });
  CT_API_END
}

CT_API ct_status ct_expand(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::expand(get(t), shape_arg(sizes, ndim, "sizes")); });
  CT_API_END
}

CT_API ct_status ct_squeeze(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::squeeze(get(t)); });
  CT_API_END
}

CT_API ct_status ct_squeeze_dim(ct_tensor t, int32_t dim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::squeeze_dim(get(t), dim); });
  CT_API_END
}

CT_API ct_status ct_unsqueeze(ct_tensor t, int32_t dim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::unsqueeze(get(t), dim); });
  CT_API_END
}

CT_API ct_status ct_flatten(ct_tensor t, int32_t start_dim, int32_t end_dim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::flatten(get(t), start_dim, end_dim); });
  CT_API_END
}

CT_API ct_status ct_contiguous(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  need(out, "out");
  Tensor x = get(t);
  same_or_new(t, x, ops::contiguous(x), out);
  CT_API_END
}

// ---- 9. elementwise

CT_API ct_status ct_unary(ct_unary_op op, ct_tensor a, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::unary(unary_op_arg(op), get(a, "a")); });
  CT_API_END
}

CT_API ct_status ct_unary_(ct_unary_op op, ct_tensor a) {
  CT_API_BEGIN
  ops::unary_(unary_op_arg(op), get(a, "a"));
  CT_API_END
}

CT_API ct_status ct_binary(ct_binary_op op, ct_tensor a, ct_tensor b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::binary(binary_op_arg(op), get(a, "a"), get(b, "b")); });
  CT_API_END
}

CT_API ct_status ct_binary_(ct_binary_op op, ct_tensor a, ct_tensor b) {
  CT_API_BEGIN
  ops::binary_(binary_op_arg(op), get(a, "a"), get(b, "b"));
  CT_API_END
}

CT_API ct_status ct_binary_scalar_f(ct_binary_op op, ct_tensor a, double s, int32_t reverse, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return with_scalar(op, get(a, "a"), scalar_f(s), reverse); });
  CT_API_END
}

CT_API ct_status ct_binary_scalar_i(ct_binary_op op, ct_tensor a, int64_t s, int32_t reverse, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return with_scalar(op, get(a, "a"), scalar_i(s), reverse); });
  CT_API_END
}

CT_API ct_status ct_binary_scalar_f_(ct_binary_op op, ct_tensor a, double s) {
  CT_API_BEGIN
  ops::binary_(binary_op_arg(op), get(a, "a"), scalar_f(s));
  CT_API_END
}

CT_API ct_status ct_binary_scalar_i_(ct_binary_op op, ct_tensor a, int64_t s) {
  CT_API_BEGIN
  ops::binary_(binary_op_arg(op), get(a, "a"), scalar_i(s));
  CT_API_END
}

CT_API ct_status ct_clamp(ct_tensor a, int32_t has_min, double min, int32_t has_max, double max, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::clamp(get(a, "a"), has_min != 0, min, has_max != 0, max); });
  CT_API_END
}

CT_API ct_status ct_clamp_(ct_tensor a, int32_t has_min, double min, int32_t has_max, double max) {
  CT_API_BEGIN
  ops::clamp_(get(a, "a"), has_min != 0, min, has_max != 0, max);
  CT_API_END
}

CT_API ct_status ct_where(ct_tensor cond, ct_tensor a, ct_tensor b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::where(get(cond, "cond"), get(a, "a"), get(b, "b")); });
  CT_API_END
}

CT_API ct_status ct_fill_(ct_tensor t, double value) {
  CT_API_BEGIN
  ops::fill_(get(t), value);
  CT_API_END
}

CT_API ct_status ct_zero_(ct_tensor t) {
  CT_API_BEGIN
  ops::fill_(get(t), 0.0);
  CT_API_END
}

// ---- 10. reductions

CT_API ct_status ct_reduce(ct_reduce_op op, ct_tensor t, const int64_t* dims, int32_t ndims, int32_t keepdim,
                           ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    Tensor x = get(t);
    std::vector<int64_t> d = dims_arg(dims, ndims);
    bool has_dtype = dtype != CT_DTYPE_UNDEFINED;
    return ops::reduce(reduce_op_arg(op), x, d, keepdim != 0, has_dtype, has_dtype ? dtype_arg(dtype) : x->dtype);
  });
  CT_API_END
}

CT_API ct_status ct_max(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::max_all(get(t), true); });
  CT_API_END
}

CT_API ct_status ct_min(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::max_all(get(t), false); });
  CT_API_END
}

static ct_status minmax_dim(ct_tensor t, int32_t dim, int32_t keepdim, ct_tensor* values, ct_tensor* indices, bool is_max) {
  CT_API_BEGIN
  need(values, "values");
  need(indices, "indices");
  put_pair(ops::max_dim(get(t), dim, keepdim != 0, is_max), values, indices);
  CT_API_END
}

CT_API ct_status ct_max_dim(ct_tensor t, int32_t dim, int32_t keepdim, ct_tensor* values, ct_tensor* indices) {
  CT_TRACE_CALL();
  return minmax_dim(t, dim, keepdim, values, indices, true);
}

CT_API ct_status ct_min_dim(ct_tensor t, int32_t dim, int32_t keepdim, ct_tensor* values, ct_tensor* indices) {
  CT_TRACE_CALL();
  return minmax_dim(t, dim, keepdim, values, indices, false);
}

CT_API ct_status ct_argmax(ct_tensor t, int32_t has_dim, int32_t dim, int32_t keepdim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::argmax(get(t), has_dim != 0, dim, keepdim != 0, true); });
  CT_API_END
}

CT_API ct_status ct_argmin(ct_tensor t, int32_t has_dim, int32_t dim, int32_t keepdim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::argmax(get(t), has_dim != 0, dim, keepdim != 0, false); });
  CT_API_END
}

CT_API ct_status ct_norm(ct_tensor t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::norm(get(t), p, dims_arg(dims, ndims), keepdim != 0); });
  CT_API_END
}

// ---- 11. joining

static std::vector<Tensor> tensor_list(const ct_tensor* tensors, int32_t n) {
  CT_CHECK(n >= 1, CT_ERR_ARGUMENT, "expected a non-empty list of tensors, got n = ", n);
  need(tensors, "tensors");
  std::vector<Tensor> v;
  for (int32_t i = 0; i < n; ++i) v.push_back(get(tensors[i], "tensors[i]"));
  return v;
}

CT_API ct_status ct_cat(const ct_tensor* tensors, int32_t n, int32_t dim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::cat(tensor_list(tensors, n), dim); });
  CT_API_END
}

CT_API ct_status ct_stack(const ct_tensor* tensors, int32_t n, int32_t dim, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::stack(tensor_list(tensors, n), dim); });
  CT_API_END
}

// ---- 12. threads

CT_API ct_status ct_get_num_threads(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cpu::num_threads();
  CT_API_END
}

CT_API ct_status ct_set_num_threads(int32_t n) {
  CT_API_BEGIN
  cpu::set_num_threads(n);
  CT_API_END
}

}  // extern "C"
