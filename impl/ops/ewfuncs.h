// The elementwise functions with extra arguments (ctorch.h section 31): gelu, nan_to_num, clamp
// by tensors, lerp, addcmul, addcdiv, where with scalars, isclose, allclose. PyTorch's dtype
// rules and messages; one pass of the elementwise engine on either device, running the element
// functions of impl/ops/ewfuncs_fn.h. The table ops (erf, silu, isnan, ...) are ops::unary.
#pragma once
#include <optional>
#include <string>

#include "impl/core/tensor.h"

namespace ct::ops {

// torch.nn.functional.gelu(t, approximate): "none" or "tanh"
Tensor gelu(const Tensor& t, const std::string& approximate);
// torch.nan_to_num(t, nan, posinf, neginf): absent values are 0, the dtype's max and lowest
Tensor nan_to_num(const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf);
// torch.clamp(t, min, max) with tensor bounds; either may be null (not both)
Tensor clamp_tensor(const Tensor& t, const Tensor& min, const Tensor& max);
// torch.lerp(start, end, weight) with a tensor or a Python float weight
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight);
// torch.addcmul / addcdiv(t, t1, t2, value=value)
Tensor addcmul(const Tensor& t, const Tensor& t1, const Tensor& t2, double value);
Tensor addcdiv(const Tensor& t, const Tensor& t1, const Tensor& t2, double value);
// torch.isclose / allclose(a, b, rtol, atol, equal_nan)
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);

}  // namespace ct::ops
