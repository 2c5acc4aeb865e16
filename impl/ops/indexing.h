// Indexing (torch.index_select, gather, take, masked_fill, masked_select, nonzero): PyTorch's
// argument rules, dtype rules and messages, on the CPU and CUDA (impl/ops/indexing.cc;
// docs/indexing.md). Out-of-range indices: Status::Index with torch's message on the CPU,
// checked before anything is written; a device-side assertion on CUDA (reported as
// Status::Cuda by the launch under CUDA_LAUNCH_BLOCKING=1, else by a later CUDA call).
#pragma once
#include <vector>

#include "impl/core/tensor.h"

namespace ct::ops {

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
Tensor take(const Tensor& t, const Tensor& index);
// value checked and converted as fill_'s (check_fill_value)
Tensor masked_fill(const Tensor& t, const Tensor& mask, double value);
void masked_fill_(const Tensor& t, const Tensor& mask, double value);
Tensor masked_select(const Tensor& t, const Tensor& mask);
// [n, t.dim()] int64 coordinates of the nonzero elements in row-major order; one host sync
Tensor nonzero(const Tensor& t);
// torch.where(cond) / nonzero(as_tuple=True): t.dim() int64 tensors of n elements (one for a
// 0-dim t), views of nonzero's columns
std::vector<Tensor> nonzero_tuple(const Tensor& t);

}  // namespace ct::ops
