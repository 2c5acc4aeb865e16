// Section 29 of ctorch.h: sorting and selection.
#include "capi/api.h"
#include "impl/ops/sort.h"

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API ct_status ct_sort(ct_tensor t, int64_t dim, int32_t descending, int32_t stable, ct_tensor* values,
                         ct_tensor* indices) {
  CT_API_BEGIN
  produce_pair(values, "values", indices, "indices", [&] { return ops::sort(get(t), dim, descending != 0, stable != 0); });
  CT_API_END
}

CT_API ct_status ct_argsort(ct_tensor t, int64_t dim, int32_t descending, int32_t stable, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::argsort(get(t), dim, descending != 0, stable != 0); });
  CT_API_END
}

CT_API ct_status ct_topk(ct_tensor t, int64_t k, int64_t dim, int32_t largest, int32_t sorted, ct_tensor* values,
                         ct_tensor* indices) {
  CT_API_BEGIN
  produce_pair(values, "values", indices, "indices", [&] { return ops::topk(get(t), k, dim, largest != 0, sorted != 0); });
  CT_API_END
}

CT_API ct_status ct_kthvalue(ct_tensor t, int64_t k, int64_t dim, int32_t keepdim, ct_tensor* values,
                             ct_tensor* indices) {
  CT_API_BEGIN
  produce_pair(values, "values", indices, "indices", [&] { return ops::kthvalue(get(t), k, dim, keepdim != 0); });
  CT_API_END
}

CT_API ct_status ct_unique(ct_tensor t, int32_t sorted, int32_t return_inverse, int32_t return_counts,
                           ct_tensor* values, ct_tensor* inverse, ct_tensor* counts) {
  CT_API_BEGIN
  need(values, "values");
  if (return_inverse) need(inverse, "inverse");
  if (return_counts) need(counts, "counts");
  ops::UniqueResult r = ops::unique(get(t), sorted != 0, return_inverse != 0, return_counts != 0);
  ct_tensor hs[3] = {nullptr, nullptr, nullptr};
  try {
    hs[0] = new_handle(r.values);
    if (return_inverse) hs[1] = new_handle(r.inverse);
    if (return_counts) hs[2] = new_handle(r.counts);
  } catch (...) {
    for (ct_tensor h : hs)
      if (h) release(h);
    throw;
  }
  *values = hs[0];
  if (inverse) *inverse = hs[1];
  if (counts) *counts = hs[2];
  CT_API_END
}

CT_API ct_status ct_searchsorted(ct_tensor seq, ct_tensor values, int32_t out_int32, int32_t right, const char* side,
                                 ct_tensor sorter, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    return ops::searchsorted(get(seq, "sorted_sequence"), get(values, "values"), out_int32 != 0, right != 0,
                             side && *side ? side : nullptr,
                             sorter ? get(sorter, "sorter") : Tensor());
  });
  CT_API_END
}

}  // extern "C"
