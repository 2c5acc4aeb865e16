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

// The binary ops, each the functor of Note [Binary op functors] (impl/ops/scalar_ops.h) picked
// by the table's X-macro. BinaryOfGroup<T, G> runs the ops of group G: the "compare" and
// "logical" ones (bool result), or the cheap or the heavy "arith" ones (result T); an op a
// functor does not support for T is never launched (binary_plan rejects its dtypes), nor is an
// op of another group: live() says which are left, and with_ops compiles only those.
//
// Note [Heavy binary ops]: a kernel's registers are those of its hungriest case, and with_ops
// compiles every op of the functor into each kernel. Where a transcendental (pow, atan2) or a
// loop (integer pow, floor_divide) sits next to add, the cheap ops pay its registers: atan2
// took the bfloat16 kernel from 32 to 34 registers, and 128-thread blocks past 32 registers
// keep a quarter fewer warps resident on an SM, which cost add/bf16 with a scalar 8% at 64M
// elements. So ops whose functor says `heavy` get kernels of their own (twice the arith
// instantiations, one more group) and the cheap ops keep theirs lean, as PyTorch's kernel per
// op does.
enum class BinaryGroup { Bool, Light, Heavy };

template <BinaryOp OP>
__host__ __device__ constexpr BinaryGroup binary_group() {
  using Of = binary_fn::Of<OP>;
  if constexpr (Of::kind != BinaryKind::Arith) return BinaryGroup::Bool;
  else return Of::heavy ? BinaryGroup::Heavy : BinaryGroup::Light;
}

inline BinaryGroup binary_group(BinaryOp op) {
  switch (op) {
#define CT_BINARY_GROUP_CASE(NAME, VALUE, TORCH, KIND) \
  case BinaryOp::NAME: return binary_group<BinaryOp::NAME>();
    CT_ABI_BINARY_OPS(CT_BINARY_GROUP_CASE)
#undef CT_BINARY_GROUP_CASE
  }
  return BinaryGroup::Light;
}

template <typename T, BinaryGroup G>
struct BinaryOfGroup {
  using R = std::conditional_t<G == BinaryGroup::Bool, bool, T>;
  static constexpr int kOps = kBinaryOpCount;
  int op;
  // the ops of group G that have a kernel for T (with_ops' OpLive)
  template <int OP>
  __host__ __device__ static constexpr bool live() {
    if constexpr (OP >= kBinaryOpCount) return false;
    else return binary_group<static_cast<BinaryOp>(OP)>() == G && binary_fn::Of<static_cast<BinaryOp>(OP)>::type::template supports<T>;
  }
  template <int OP>
  __device__ R run(T a, T b) const {
    using F = typename binary_fn::Of<static_cast<BinaryOp>(OP)>::type;
    if constexpr (live<OP>()) return F{}(a, b);
    else return R(0);
  }
};

template <typename T>
struct UnaryMath {
  static constexpr int kOps = kUnaryOpCount;
  int op;
  template <int OP>
  __device__ T run(T x) const {
    switch (static_cast<UnaryOp>(OP)) {
      case UnaryOp::Neg:
        // -x, not 0 - x: neg(+0.0) is -0.0; integers wrap (see the CPU twin in elementwise.cc)
        if constexpr (is_int_v<T>) return w_sub(T(0), x);
        else if constexpr (!std::is_same_v<T, bool>) return T(-x);
        break;
      case UnaryOp::Abs:
        if constexpr (is_int_v<T> && std::is_signed_v<T>) return x < 0 ? w_sub(T(0), x) : x;
        else if constexpr (std::is_floating_point_v<T>) return fabs(x);
        else if constexpr (!is_complex_v<T>) return x;
        break;
      case UnaryOp::Relu:
        if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) return isnan_(x) ? x : (x > T(0) ? x : T(0));
        break;
      case UnaryOp::Sign:
        if constexpr (std::is_same_v<T, bool>) return x;
        else if constexpr (!is_complex_v<T>) return static_cast<T>((T(0) < x) - (x < T(0)));
        break;
      case UnaryOp::Floor:
      case UnaryOp::Ceil:
      case UnaryOp::Round:  // the identity on integers
        if constexpr (std::is_floating_point_v<T>) {
          if constexpr (static_cast<UnaryOp>(OP) == UnaryOp::Floor) return floor(x);
          else if constexpr (static_cast<UnaryOp>(OP) == UnaryOp::Ceil) return ceil(x);
          else return nearbyint(x);
        } else if constexpr (!is_complex_v<T>) {
          return x;
        }
        break;
      case UnaryOp::Square:
        return w_mul(x, x);
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      switch (static_cast<UnaryOp>(OP)) {
        case UnaryOp::Exp: return exp(x);
        case UnaryOp::Log: return log(x);
        case UnaryOp::Sqrt: return sqrt(x);
        case UnaryOp::Sin: return sin(x);
        case UnaryOp::Cos: return cos(x);
        case UnaryOp::Tanh: return tanh(x);
        case UnaryOp::Sigmoid: return T(1) / (T(1) + exp(-x));
        case UnaryOp::Reciprocal: return T(1) / x;
        case UnaryOp::Erf: return unary_fn::Erf{}(x);
        case UnaryOp::Silu: return unary_fn::Silu{}(x);
        default: break;
      }
    } else if constexpr (is_complex_v<T>) {
      switch (static_cast<UnaryOp>(OP)) {
        case UnaryOp::Exp: return thrust::exp(x);
        case UnaryOp::Log: return thrust::log(x);
        case UnaryOp::Sqrt: return thrust::sqrt(x);
        case UnaryOp::Sin: return thrust::sin(x);
        case UnaryOp::Cos: return thrust::cos(x);
        case UnaryOp::Tanh: return thrust::tanh(x);
        case UnaryOp::Sigmoid: return complex_div(T(1), T(1) + thrust::exp(-x));
        case UnaryOp::Reciprocal: return complex_div(T(1), x);
        case UnaryOp::Silu: return unary_fn::Silu{}(x);
        default: break;
      }
    }
    return T(0);
  }
};

// The unary ops with a bool result (capi/abi.toml's result = "bool": isnan, isinf, isfinite),
// each the functor of impl/ops/scalar_ops.h's unary_fn that the CPU kernels run too.
template <typename T>
struct UnaryPredicate {
  static constexpr int kOps = kUnaryOpCount;
  int op;
  template <int OP>
  __host__ __device__ static constexpr bool live() {
    return OP == static_cast<int>(UnaryOp::Isnan) || OP == static_cast<int>(UnaryOp::Isinf) ||
           OP == static_cast<int>(UnaryOp::Isfinite);
  }
  template <int OP>
  __device__ bool run(T x) const {
    if constexpr (OP == static_cast<int>(UnaryOp::Isnan)) return unary_fn::IsNan{}(x);
    else if constexpr (OP == static_cast<int>(UnaryOp::Isinf)) return unary_fn::IsInf{}(x);
    else if constexpr (OP == static_cast<int>(UnaryOp::Isfinite)) return unary_fn::IsFinite{}(x);
    else return false;
  }
};

// A functor of one op (kOps 1): FN's call on the element.
template <typename T, typename FN>
struct OneOp {
  static constexpr int kOps = 1;
  template <int>
  __device__ auto run(T x) const { return FN{}(x); }
};
struct IsZero {
  template <typename T> __device__ bool operator()(T x) const { return x == T(0); }
};
struct ComplexAbs {
  template <typename T> __device__ typename T::value_type operator()(T x) const { return thrust::abs(x); }
};
struct Same {
  template <typename T> __device__ T operator()(T x) const { return x; }
};
template <typename T> using LogicalNot = OneOp<T, IsZero>;
template <typename T> using AbsComplex = OneOp<T, ComplexAbs>;
template <typename T> using Identity = OneOp<T, Same>;

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
