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
// t.scatter(dim, index, src) / t.scatter(dim, index, value) / t.scatter_add(dim, index, src):
// a copy of t with the elements written; the _ forms write t itself.
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool add);
void scatter_(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool add);
Tensor scatter_value(const Tensor& t, int64_t dim, const Tensor& index, double value);
void scatter_value_(const Tensor& t, int64_t dim, const Tensor& index, double value);
// t.index_add_(dim, index, source, alpha=alpha)
void index_add_(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, double alpha);
// t[indices] (PyTorch's advanced indexing): indices has at most t.dim() entries, each null (a
// full slice), an int64/int32 tensor (negative entries count from the end) or a bool mask
// (its nonzero coordinates, one index a dim it covers).
Tensor index(const Tensor& t, const std::vector<Tensor>& indices);
// t[indices] = values (accumulate: +=, repeated indices adding up); values broadcast.
void index_put_(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate);
// value checked and converted as fill_'s (check_fill_value)
Tensor masked_fill(const Tensor& t, const Tensor& mask, double value);
void masked_fill_(const Tensor& t, const Tensor& mask, double value);
Tensor masked_select(const Tensor& t, const Tensor& mask);
// [n, t.dim()] int64 coordinates of the nonzero elements in row-major order; one host sync
Tensor nonzero(const Tensor& t);
// torch.where(cond) / nonzero(as_tuple=True): t.dim() int64 tensors of n elements (one for a
// 0-dim t), views of nonzero's columns
std::vector<Tensor> nonzero_tuple(const Tensor& t);

// The C++ type name PyTorch's TypeMeta prints for a dtype ("unsigned char", "c10::Half"), as
// its messages name dtypes ("... but got mask with dtype unsigned char")
const char* cpp_type_name(DType d);

}  // namespace ct::ops
