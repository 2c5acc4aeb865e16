// The elementwise op functors of the CUDA kernels, on the op-math type T (Note [CUDA
// elementwise kernels]). The op is a run-time value (one instantiation per functor and dtype,
// not per op and dtype); the kernels turn it into the compile-time OP of run<OP>() once per
// thread (with_ops, Note [Op dispatch outside the element loop]). kOps bounds the op codes.
#pragma once
#include "impl/ops/complex_div.h"
#include "impl/ops/cuda/ew.cuh"

namespace ct::cuda_ops {

// ---------------------------------------------------------------------------------------------
// Op functors (the op is a runtime value; the switch is uniform across threads)

template <typename T>
__device__ __forceinline__ bool isnan_(T v) {
  if constexpr (std::is_floating_point_v<T>) return isnan(v);
  else return false;
}

template <typename T>
struct BinaryArith {
  static constexpr int kOps = CT_REMAINDER + 1;
  int op;
  template <int OP>
  __device__ T run(T a, T b) const {
    switch (OP) {
      case CT_ADD: return w_add(a, b);
      case CT_SUB: return w_sub(a, b);
      case CT_MUL: return w_mul(a, b);
      case CT_DIV:
        if constexpr (is_cplx_v<T>) return complex_div(a, b);
        else if constexpr (std::is_floating_point_v<T>) return a / b;
        break;
      case CT_POW:
        if constexpr (std::is_floating_point_v<T>) return pow(a, b);
        else if constexpr (is_cplx_v<T>) return thrust::pow(a, b);
        else if constexpr (is_int_v<T>) return ipow(a, b);
        break;
      case CT_MAXIMUM:
      case CT_MINIMUM:
        if constexpr (!is_cplx_v<T>) {
          if (isnan_(a)) return a;
          if (isnan_(b)) return b;
          return OP == CT_MAXIMUM ? (a > b ? a : b) : (a < b ? a : b);
        }
        break;
      case CT_FLOOR_DIVIDE:
      case CT_REMAINDER:
        if constexpr (std::is_floating_point_v<T>) {
          return OP == CT_FLOOR_DIVIDE ? floor_div_float(a, b) : remainder_float(a, b);
        } else if constexpr (is_int_v<T>) {
          // Note: integer division by zero is not checked on CUDA (as in PyTorch): the result
          // is unspecified (0 here). See docs/differences.md.
          if (b == 0) return T(0);
          return floor_div_int(a, b, OP == CT_FLOOR_DIVIDE);
        }
        break;
      default:
        break;
    }
    return T(0);
  }
};

template <typename T>
struct BinaryBool {
  static constexpr int kOps = CT_LOGICAL_XOR + 1;
  int op;
  template <int OP>
  __device__ bool run(T a, T b) const {
    switch (OP) {
      case CT_EQ: return a == b;
      case CT_NE: return a != b;
      case CT_LOGICAL_AND: return (a != T(0)) && (b != T(0));
      case CT_LOGICAL_OR: return (a != T(0)) || (b != T(0));
      case CT_LOGICAL_XOR: return (a != T(0)) != (b != T(0));
      default: break;
    }
    if constexpr (!is_cplx_v<T>) {
      switch (OP) {
        case CT_LT: return a < b;
        case CT_LE: return a <= b;
        case CT_GT: return a > b;
        case CT_GE: return a >= b;
        default: break;
      }
    }
    return false;
  }
};

template <typename T>
struct UnaryOp {
  static constexpr int kOps = CT_SQUARE + 1;
  int op;
  template <int OP>
  __device__ T run(T x) const {
    switch (OP) {
      case CT_NEG:
        // -x, not 0 - x: neg(+0.0) is -0.0; integers wrap (see the CPU twin in elementwise.cc)
        if constexpr (is_int_v<T>) return w_sub(T(0), x);
        else if constexpr (!std::is_same_v<T, bool>) return T(-x);
        break;
      case CT_ABS:
        if constexpr (is_int_v<T> && std::is_signed_v<T>) return x < 0 ? w_sub(T(0), x) : x;
        else if constexpr (std::is_floating_point_v<T>) return fabs(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_RELU:
        if constexpr (!is_cplx_v<T> && !std::is_same_v<T, bool>) return isnan_(x) ? x : (x > T(0) ? x : T(0));
        break;
      case CT_SIGN:
        if constexpr (std::is_same_v<T, bool>) return x;
        else if constexpr (!is_cplx_v<T>) return static_cast<T>((T(0) < x) - (x < T(0)));
        break;
      case CT_FLOOR:
        if constexpr (std::is_floating_point_v<T>) return floor(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_CEIL:
        if constexpr (std::is_floating_point_v<T>) return ceil(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_ROUND:
        if constexpr (std::is_floating_point_v<T>) return nearbyint(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_SQUARE:
        return w_mul(x, x);
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      switch (OP) {
        case CT_EXP: return exp(x);
        case CT_LOG: return log(x);
        case CT_SQRT: return sqrt(x);
        case CT_SIN: return sin(x);
        case CT_COS: return cos(x);
        case CT_TANH: return tanh(x);
        case CT_SIGMOID: return T(1) / (T(1) + exp(-x));
        case CT_RECIPROCAL: return T(1) / x;
        default: break;
      }
    } else if constexpr (is_cplx_v<T>) {
      switch (OP) {
        case CT_EXP: return thrust::exp(x);
        case CT_LOG: return thrust::log(x);
        case CT_SQRT: return thrust::sqrt(x);
        case CT_SIN: return thrust::sin(x);
        case CT_COS: return thrust::cos(x);
        case CT_TANH: return thrust::tanh(x);
        case CT_SIGMOID: return complex_div(T(1), T(1) + thrust::exp(-x));
        case CT_RECIPROCAL: return complex_div(T(1), x);
        default: break;
      }
    }
    return T(0);
  }
};

template <typename T>
struct LogicalNot {
  static constexpr int kOps = 1;
  template <int>
  __device__ bool run(T x) const { return x == T(0); }
};

template <typename T>
struct AbsComplex {
  static constexpr int kOps = 1;
  template <int>
  __device__ typename T::value_type run(T x) const { return thrust::abs(x); }
};

template <typename T>
struct Identity {
  static constexpr int kOps = 1;
  template <int>
  __device__ T run(T x) const { return x; }
};

// clamp(x, lo, hi) = min(max(x, lo), hi); NaN stays NaN (PyTorch's clamp_scalar_kernel).
template <typename T>
struct Clamp {
  static constexpr int kOps = 1;
  T lo, hi;
  bool has_lo, has_hi;
  template <int>
  __device__ T run(T x) const {
    if (isnan_(x)) return x;
    if (has_lo) x = x < lo ? lo : x;
    if (has_hi) x = x > hi ? hi : x;
    return x;
  }
};

}  // namespace ct::cuda_ops
