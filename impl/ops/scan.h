// Scans along one dim (torch.cumsum, cumprod, cummax, cummin, logcumsumexp): PyTorch's dtype
// rules, checks and messages, on the CPU and CUDA (impl/ops/scan.cc; kernels in
// impl/ops/cpu/scan.cc and impl/ops/cuda/scan.cu).
#pragma once
#include <utility>

#include "impl/core/tensor.h"

namespace ct::ops {

// torch.cumsum(t, dim, dtype=) / torch.cumprod: the result dtype is dtype when has_dtype, else
// int64 for integer and bool inputs, else t's; the input is cast to it first.
Tensor cumsum(const Tensor& t, int64_t dim, bool has_dtype, DType dtype);
Tensor cumprod(const Tensor& t, int64_t dim, bool has_dtype, DType dtype);
// torch.cummax(t, dim) / torch.cummin: values (t's dtype) and int64 indices.
std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim, bool is_max);
// torch.logcumsumexp(t, dim): floating and complex inputs.
Tensor logcumsumexp(const Tensor& t, int64_t dim);

}  // namespace ct::ops
