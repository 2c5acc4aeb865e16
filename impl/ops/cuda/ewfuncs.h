// The CUDA kernels of the elementwise functions with extra arguments (impl/ops/ewfuncs.cc), as
// seen from host code (no CUDA types here). Each runs the element function of
// impl/ops/ewfuncs_fn.h that the CPU runs too, over an iteration of the elementwise engine
// (output first; inputs read as `common`, computed in its op-math type), on `stream` of the
// current device, and checks the launch. The caller has checked the dtypes.
#pragma once
#include "impl/core/dtype.h"
#include "impl/ops/cuda/kernels.h"

namespace ct::cuda_ops {

// gelu (float16, bfloat16, float32, float64)
void gelu(const Iter<2>& it, DType common, bool tanh_approx, void* stream);
// nan_to_num (floating, complex): replacements already rounded to the dtype
void nan_to_num(const Iter<2>& it, DType common, double nan, double posinf, double neginf, void* stream);
// clamp(x, min, max) with tensor bounds (every dtype but bool and complex)
void clamp_tensor(const Iter<4>& it, DType common, void* stream);
// lerp with a tensor weight (Iter<4>) or a scalar one (Iter<3>) (floating, complex)
void lerp_tensor(const Iter<4>& it, DType common, void* stream);
void lerp_scalar(const Iter<3>& it, DType common, double weight, void* stream);
// addcmul (every dtype but bool) and addcdiv (floating, complex)
void addcmul(const Iter<4>& it, DType common, double value, void* stream);
void addcdiv(const Iter<4>& it, DType common, double value, void* stream);
// isclose into a bool output (every dtype but bool, which the caller reads as float32)
void isclose(const Iter<3>& it, DType common, double rtol, double atol, bool equal_nan, void* stream);

}  // namespace ct::cuda_ops
