// Section 30 of ctorch.h: indexing.
#include <vector>

#include "capi/api.h"
#include "impl/ops/indexing.h"

using namespace ct;
using namespace ct::capi;

namespace {

// n index tensors of the array, NULL entries (full slices) kept as null tensors.
std::vector<Tensor> indices_arg(const ct_tensor* ts, int32_t n) {
  CT_CHECK(n >= 0 && n <= 64, CT_ERR_ARGUMENT, "argument 'n_indices': ", n, " is out of range (expected 0..64)");
  CT_CHECK(n == 0 || ts != nullptr, CT_ERR_NULL_POINTER, "argument 'index_tensors' is NULL but has ", n, " values");
  std::vector<Tensor> r;
  for (int32_t i = 0; i < n; ++i) r.push_back(ts[i] ? get(ts[i], "index_tensors") : Tensor());
  return r;
}

}  // namespace

extern "C" {

CT_API ct_status ct_index(ct_tensor t, const ct_tensor* index_tensors, int32_t n_indices, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::index(get(t), indices_arg(index_tensors, n_indices)); });
  CT_API_END
}

CT_API ct_status ct_index_put_(ct_tensor t, const ct_tensor* index_tensors, int32_t n_indices, ct_tensor values,
                               int32_t accumulate) {
  CT_API_BEGIN
  ops::index_put_(get(t), indices_arg(index_tensors, n_indices), get(values, "values"), accumulate != 0);
  CT_API_END
}


CT_API ct_status ct_index_select(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::index_select(get(t), dim, get(index, "index")); });
  CT_API_END
}

CT_API ct_status ct_gather(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::gather(get(t), dim, get(index, "index")); });
  CT_API_END
}

CT_API ct_status ct_take(ct_tensor t, ct_tensor index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::take(get(t), get(index, "index")); });
  CT_API_END
}

CT_API ct_status ct_scatter(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor src, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::scatter(get(t), dim, get(index, "index"), get(src, "src"), false); });
  CT_API_END
}

CT_API ct_status ct_scatter_value(ct_tensor t, int64_t dim, ct_tensor index, double value, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::scatter_value(get(t), dim, get(index, "index"), value); });
  CT_API_END
}

CT_API ct_status ct_scatter_add(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor src, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::scatter(get(t), dim, get(index, "index"), get(src, "src"), true); });
  CT_API_END
}

CT_API ct_status ct_index_add_(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor source, double alpha) {
  CT_API_BEGIN
  ops::index_add_(get(t), dim, get(index, "index"), get(source, "source"), alpha);
  CT_API_END
}

CT_API ct_status ct_masked_fill(ct_tensor t, ct_tensor mask, double value, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::masked_fill(get(t), get(mask, "mask"), value); });
  CT_API_END
}

CT_API ct_status ct_masked_fill_(ct_tensor t, ct_tensor mask, double value) {
  CT_API_BEGIN
  ops::masked_fill_(get(t), get(mask, "mask"), value);
  CT_API_END
}

CT_API ct_status ct_masked_select(ct_tensor t, ct_tensor mask, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::masked_select(get(t), get(mask, "mask")); });
  CT_API_END
}

CT_API ct_status ct_nonzero(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::nonzero(get(t)); });
  CT_API_END
}

CT_API ct_status ct_where_cond(ct_tensor t, ct_tensor* outs, int32_t cap, int32_t* n_outs) {
  CT_API_BEGIN
  need(n_outs, "n_outs");
  Tensor x = get(t);
  const int32_t k = static_cast<int32_t>(x->dim() > 0 ? x->dim() : 1);
  *n_outs = k;
  CT_CHECK(cap >= k, CT_ERR_BUFFER_SIZE, "where: ", k, " outputs do not fit in ", cap);
  need(outs, "outs");
  std::vector<Tensor> cols = ops::nonzero_tuple(x);
  for (int32_t i = 0; i < k; ++i) outs[i] = new_handle(cols[static_cast<size_t>(i)]);
  CT_API_END
}

}  // extern "C"
