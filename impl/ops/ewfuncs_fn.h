// Element functions of the elementwise functions with extra arguments (impl/ops/ewfuncs.cc:
// gelu, nan_to_num, clamp by tensors, lerp, addcmul, addcdiv, isclose), compiled for both
// devices (gcc for the CPU engine, nvcc for impl/ops/cuda/ewfuncs.cu), so that the CPU and CUDA
// compute the very same function, in the op-math type T (float for float16/bfloat16). The
// formulas and their order of operations are PyTorch's CUDA kernels'.
#pragma once
#include <cmath>
#include <complex>
#include <type_traits>

#include "impl/ops/complex_div.h"
#include "impl/ops/scalar_ops.h"

namespace ct::ewfn {

template <typename T>
CT_HOST_DEVICE inline T tanh_(T x) {
#ifdef __CUDA_ARCH__
  return tanh(x);
#else
  return std::tanh(x);
#endif
}
// |x|: the magnitude of a complex number, of its real type
template <typename T>
CT_HOST_DEVICE inline auto abs_(T x) {
  if constexpr (is_complex_num_v<T>) {
    using std::abs;  // std::complex's on the CPU, thrust::complex's (by ADL) on CUDA
    return abs(x);
  } else if constexpr (std::is_floating_point_v<T>) {
    return x < T(0) ? -x : (x == T(0) ? T(0) : x);  // fabs without the library: -0.0 -> 0.0
  } else if constexpr (std::is_signed_v<T>) {
    return x < T(0) ? w_sub(T(0), x) : x;  // wraps as PyTorch's integer abs
  } else {
    return x;
  }
}
template <typename T>
CT_HOST_DEVICE inline T div_(T a, T b) {
  if constexpr (is_complex_num_v<T>) return complex_div(a, b);
  else return a / b;
}

// torch.nn.functional.gelu(x, approximate="none"): x/2 * (1 + erf(x / sqrt(2)));
// approximate="tanh": x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
struct Gelu {
  bool tanh_approx;
  template <typename T>
  CT_HOST_DEVICE T operator()(T x) const {
    if (tanh_approx) {
      const T kBeta = T(1.4142135623730951 * 1.1283791670955126 * 0.5);  // M_SQRT2 * M_2_SQRTPI / 2
      const T kKappa = T(0.044715);
      const T cube = x * x * x;
      return T(0.5) * x * (T(1) + tanh_(kBeta * (x + kKappa * cube)));
    }
    const T kAlpha = T(0.70710678118654752440);  // M_SQRT1_2
    return x * T(0.5) * (T(1) + unary_fn::erf_(x * kAlpha));
  }
};

// torch.nan_to_num: NaN, +inf and -inf replaced (each part of a complex number); the
// replacements V (the real op-math type) are already rounded to the tensor's dtype.
template <typename V>
struct NanToNum {
  V nan, pos, neg;
  CT_HOST_DEVICE V fix(V v) const {
    if (v != v) return nan;
    if (v - v == V(0)) return v;
    return v > V(0) ? pos : neg;
  }
  template <typename T>
  CT_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_complex_num_v<T>) return T(fix(x.real()), fix(x.imag()));
    else return fix(x);
  }
};

// torch.clamp(x, min, max) with both bounds tensors: NaN if any of the three is NaN (PyTorch's
// clamp_kernel_cuda), else min(max(x, min), max) (so max wins where min > max).
struct ClampBoth {
  template <typename T>
  CT_HOST_DEVICE T operator()(T x, T lo, T hi) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (x != x) return x;
      if (lo != lo) return lo;
      if (hi != hi) return hi;
    }
    x = x < lo ? lo : x;
    return hi < x ? hi : x;
  }
};

// torch.lerp(start, end, weight): start + weight * (end - start) for |weight| < 0.5, else
// end - (end - start) * (1 - weight) (PyTorch's lerp, exact at both ends).
template <typename T>
CT_HOST_DEVICE inline T lerp(T s, T e, T w) {
  const bool small = abs_(w) < decltype(abs_(w))(0.5);
  return small ? s + w * (e - s) : e - (e - s) * (T(1) - w);
}
struct LerpTensor {
  template <typename T>
  CT_HOST_DEVICE T operator()(T s, T e, T w) const { return lerp(s, e, w); }
};
template <typename T>
struct LerpScalar {
  T w;
  CT_HOST_DEVICE T operator()(T s, T e) const { return lerp(s, e, w); }
};

// torch.addcmul(a, b, c, value=v): a + v * b * c (integers wrap); torch.addcdiv: a + v * (b / c).
template <typename T>
struct Addcmul {
  T v;
  CT_HOST_DEVICE T operator()(T a, T b, T c) const { return w_add(a, w_mul(w_mul(v, b), c)); }
};
template <typename T>
struct Addcdiv {
  T v;
  CT_HOST_DEVICE T operator()(T a, T b, T c) const { return a + v * div_(b, c); }
};

// torch.isclose(a, b, rtol, atol, equal_nan): a == b (NaN == NaN with equal_nan), or
// |a - b| finite and <= atol + |rtol * b|, each step rounded to the dtype C as PyTorch's
// tensor expression is (C float16: every intermediate a float16 tensor). Integer C: |a - b| in C
// (wrapping), the bound in float32 (an integer tensor times a Python float). Bool inputs arrive
// as float32 (PyTorch converts them to the default dtype).
template <typename C, typename T>
struct IsClose {
  using V = std::conditional_t<std::is_integral_v<T>, float, std::remove_cv_t<decltype(abs_(T()))>>;
  V rtol, atol;
  bool equal_nan;
  CT_HOST_DEVICE static V rnd(V x) {
    if constexpr (!std::is_same_v<C, T> && std::is_floating_point_v<T>) return static_cast<V>(static_cast<C>(x));
    else return x;
  }
  CT_HOST_DEVICE bool operator()(T a, T b) const {
    if (a == b) return true;
    if constexpr (std::is_integral_v<T>) {
      const V allowed = atol + abs_(rtol * static_cast<V>(b));
      return static_cast<V>(abs_(w_sub(a, b))) <= allowed;
    } else if constexpr (is_complex_num_v<T>) {
      const V allowed = atol + abs_(T(rtol) * b);
      const V actual = abs_(a - b);
      return unary_fn::finite_(actual) && actual <= allowed;
    } else {
      if (equal_nan && a != a && b != b) return true;
      const V allowed = rnd(atol + abs_(rnd(rtol * b)));
      const V actual = rnd(abs_(rnd(a - b)));
      return unary_fn::finite_(actual) && actual <= allowed;
    }
  }
};

}  // namespace ct::ewfn
