// Sorting and selection (torch.sort, argsort, topk, kthvalue, unique, searchsorted) on both
// devices. Every op orders elements by the order keys of Note [Sort keys]
// (impl/ops/cpu/sort_keys.h): NaN after everything, -0.0 equal to 0.0. Sorts are always stable
// (stable=False is a permission, not a promise, in PyTorch too), so the CPU and CUDA agree on
// values and indices.
#pragma once
#include <string>
#include <utility>

#include "impl/core/tensor.h"

namespace ct::ops {

// torch.sort(t, dim, descending, stable): (values, int64 indices), shaped like t.
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable);
Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool stable);
// torch.topk(t, k, dim, largest, sorted): the k largest (smallest) along dim, in order (also
// when sorted is false); ties in input order.
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted);
// torch.kthvalue(t, k, dim, keepdim): the k-th smallest (k from 1) along dim.
std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim);
// torch.unique(t, sorted, return_inverse, return_counts) over the flattened tensor: sorted
// values, inverse (int64, t's shape) and counts (int64) when asked for (else null).
struct UniqueResult {
  Tensor values, inverse, counts;
};
UniqueResult unique(const Tensor& t, bool sorted, bool return_inverse, bool return_counts);
// torch.searchsorted(sorted_sequence, values, out_int32, right, side, sorter): side is null
// (not given), "left" or "right"; sorter may be null.
Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right, const char* side,
                    const Tensor& sorter);

}  // namespace ct::ops
