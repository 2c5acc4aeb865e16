// Row functions (ctorch.h section 32): softmax, log_softmax, logsumexp, var/std (and their
// _mean forms), linalg.matrix_norm and layer_norm, with PyTorch's dtype rules and messages.
// docs/rowfuncs.md describes how they are computed.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "impl/core/tensor.h"

namespace ct::ops {

// torch.softmax(t, dim, dtype) / torch.log_softmax: has_dtype false keeps the input's dtype.
Tensor softmax(const Tensor& t, int64_t dim, bool has_dtype, DType dtype, bool log);
// torch.logsumexp(t, dims, keepdim); dims empty = all dims.
Tensor logsumexp(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim);
// torch.var / torch.std (dims empty = all) with correction; var_mean / std_mean return
// (var or std, mean).
Tensor var(const Tensor& t, const std::vector<int64_t>& dims, double correction, bool keepdim, bool take_sqrt);
std::pair<Tensor, Tensor> var_mean(const Tensor& t, const std::vector<int64_t>& dims, double correction,
                                   bool keepdim, bool take_sqrt);
// torch.linalg.matrix_norm(t, ord, dim=(d0, d1), keepdim): ord 1, -1, inf, -inf; the string
// forms "fro" and "nuc". 2, -2 and "nuc" need singular values (CT_ERR_NOT_SUPPORTED).
Tensor matrix_norm(const Tensor& t, double ord, int64_t d0, int64_t d1, bool keepdim);
Tensor matrix_norm_str(const Tensor& t, const std::string& ord, int64_t d0, int64_t d1, bool keepdim);
// torch.nn.functional.layer_norm(t, normalized_shape, weight, bias, eps); weight and bias
// may be null.
Tensor layer_norm(const Tensor& t, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps);

}  // namespace ct::ops
