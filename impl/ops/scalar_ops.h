// Element functions shared by the CPU and CUDA kernels (compiled for both by gcc and nvcc), so
// the two devices compute the same values: two's-complement integer arithmetic, integer
// powers, PyTorch's floor division / remainder, and the functor of every binary op.
#pragma once
#include <cmath>
#include <type_traits>
#include <utility>

#include "impl/abi/tables.h"
#include "impl/core/error.h"
#include "impl/ops/complex_div.h"

#ifndef CT_HOST_DEVICE
#ifdef __CUDACC__
#define CT_HOST_DEVICE __host__ __device__
#else
#define CT_HOST_DEVICE
#endif
#endif

namespace ct {

template <typename T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Wrapping integer arithmetic (no signed-overflow UB); bool add / mul are or / and.
template <typename T>
CT_HOST_DEVICE inline T w_add(T a, T b) {
  if constexpr (is_int_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else if constexpr (std::is_same_v<T, bool>) return a || b;
  else return a + b;
}
template <typename T>
CT_HOST_DEVICE inline T w_sub(T a, T b) {
  if constexpr (is_int_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else if constexpr (std::is_same_v<T, bool>) return a != b;
  else return a - b;
}
template <typename T>
CT_HOST_DEVICE inline T w_mul(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}

// Integer power; negative exponents give 1 / base rounded toward zero (1, -1 or 0).
template <typename T>
CT_HOST_DEVICE inline T ipow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = w_mul(result, base);
    exp = static_cast<T>(exp >> 1);
    base = w_mul(base, base);
  }
  return result;
}

// torch.floor_divide for floating types (PyTorch's div_floor_floating).
template <typename T>
CT_HOST_DEVICE inline T floor_div_float(T a, T b) {
  if (b == 0) return a / b;
  T mod = static_cast<T>(::fmod(a, b));
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  T floordiv;
  if (div != 0) {
    floordiv = static_cast<T>(::floor(div));
    if (div - floordiv > T(0.5)) floordiv += 1;
  } else {
    floordiv = static_cast<T>(::copysign(T(0), a / b));
  }
  return floordiv;
}

// torch.remainder for floating types: the sign of the divisor.
template <typename T>
CT_HOST_DEVICE inline T remainder_float(T a, T b) {
  T m = static_cast<T>(::fmod(a, b));
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

// Python-style integer floor division and remainder; b must not be 0.
template <typename T>
CT_HOST_DEVICE inline T floor_div_int(T a, T b, bool want_quotient) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return want_quotient ? w_sub(T(0), a) : T(0);  // no INT_MIN / -1 overflow
  }
  T q = static_cast<T>(a / b), r = static_cast<T>(a % b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) {
      q = static_cast<T>(q - 1);
      r = static_cast<T>(r + b);
    }
  }
  return want_quotient ? q : r;
}

// Complex numbers of either device: std::complex (CPU) and thrust::complex (CUDA).
template <typename T, typename = void>
struct is_complex_num : std::false_type {};
template <typename T>
struct is_complex_num<T, std::void_t<typename T::value_type, decltype(std::declval<T>().imag())>> : std::true_type {};
template <typename T>
constexpr bool is_complex_num_v = is_complex_num<T>::value;

// pow and atan2 of the device compiling them: the C++ library's float and double overloads
// (std::complex's by ADL) on the CPU, CUDA's (thrust::complex's by ADL) on the GPU.
template <typename T>
CT_HOST_DEVICE inline T pow_(T a, T b) {
#ifdef __CUDA_ARCH__
  return pow(a, b);
#else
  using std::pow;
  return pow(a, b);
#endif
}
template <typename T>
CT_HOST_DEVICE inline T atan2_(T a, T b) {
#ifdef __CUDA_ARCH__
  return atan2(a, b);
#else
  return std::atan2(a, b);
#endif
}

// The unary ops of capi/abi.toml with a functor shared by the CPU (impl/ops/elementwise.cc) and
// CUDA (impl/ops/cuda/functors.cuh) kernels, on the op-math type T: erf and exp from the
// device's math library (std:: on the host, CUDA's on the device), the predicates by
// arithmetic alone (x - x is 0 exactly for finite x, NaN for NaN and the infinities).
namespace unary_fn {

template <typename T>
CT_HOST_DEVICE inline T exp_(T x) {
#ifdef __CUDA_ARCH__
  return exp(x);
#else
  using std::exp;
  return exp(x);
#endif
}
template <typename T>
CT_HOST_DEVICE inline T erf_(T x) {
#ifdef __CUDA_ARCH__
  return erf(x);
#else
  return std::erf(x);
#endif
}
template <typename T>
CT_HOST_DEVICE inline bool finite_(T x) {
  if constexpr (std::is_floating_point_v<T>) return x - x == T(0);
  else return true;
}
template <typename T>
CT_HOST_DEVICE inline bool nan_(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}

// torch.isnan / isinf / isfinite: bool results; complex numbers by their parts (isnan: either
// part NaN; isinf: either part infinite; isfinite: both finite); integers and bool are finite.
struct IsNan {
  template <typename T> CT_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_complex_num_v<T>) return nan_(x.real()) || nan_(x.imag());
    else return nan_(x);
  }
};
struct IsInf {
  template <typename T> CT_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_complex_num_v<T>) return (!finite_(x.real()) && !nan_(x.real())) || (!finite_(x.imag()) && !nan_(x.imag()));
    else return !finite_(x) && !nan_(x);
  }
};
struct IsFinite {
  template <typename T> CT_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_complex_num_v<T>) return finite_(x.real()) && finite_(x.imag());
    else return finite_(x);
  }
};
// torch.erf (real floating T: integers were promoted to float32 by the table's float = true)
struct Erf {
  template <typename T> CT_HOST_DEVICE T operator()(T x) const { return erf_(x); }
};
// torch.nn.functional.silu: x / (1 + exp(-x)), as PyTorch's CUDA kernel (floating, complex)
struct Silu {
  template <typename T> CT_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_complex_num_v<T>) return complex_div(x, T(1) + exp_(-x));
    else return x / (T(1) + exp_(-x));
  }
};

}  // namespace unary_fn

// Note [Binary op functors]: one struct per binary op of capi/abi.toml, named as the table's
// CamelCase name, used by the CPU kernels (impl/ops/elementwise.cc) and the CUDA kernels
// (impl/ops/cuda/functors.cuh) through the table's X-macro CT_ABI_BINARY_OPS, so adding a
// binary op is a table entry plus its functor here (docs/abi.md, "Adding a binary op").
//   supports<T>       whether the op has a kernel for the op-math type T (the dtype rules that
//                     reject the others with a message live in the table: complex, bool, promote)
//   operator()(a, b)  the result: T for "arith" ops, bool for "compare" and "logical" ones
//   heavy             (optional, false when absent) true where the op's device code needs many
//                     registers (a transcendental, a loop): the CUDA kernels compile such ops
//                     apart from the cheap ones (Note [Heavy binary ops], impl/ops/cuda/functors.cuh)
namespace binary_fn {

template <typename T>
constexpr bool is_real_float_v = std::is_floating_point_v<T>;

struct Add {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const { return w_add(a, b); }
};
struct Sub {
  template <typename T> static constexpr bool supports = !std::is_same_v<T, bool>;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const { return w_sub(a, b); }
};
struct Mul {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const { return w_mul(a, b); }
};
// true division (integers were promoted to float32 by the table's promote = "int_to_float")
struct Div {
  template <typename T> static constexpr bool supports = is_real_float_v<T> || is_complex_num_v<T>;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_complex_num_v<T>) return complex_div(a, b);
    else return a / b;
  }
};
struct Pow {
  static constexpr bool heavy = true;
  template <typename T> static constexpr bool supports = !std::is_same_v<T, bool>;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) return ipow(a, b);
    else return pow_(a, b);
  }
};
struct Eq {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return a == b; }
};
struct Ne {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return a != b; }
};
struct Lt {
  template <typename T> static constexpr bool supports = !is_complex_num_v<T>;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return a < b; }
};
struct Le {
  template <typename T> static constexpr bool supports = !is_complex_num_v<T>;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return a <= b; }
};
struct Gt {
  template <typename T> static constexpr bool supports = !is_complex_num_v<T>;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return a > b; }
};
struct Ge {
  template <typename T> static constexpr bool supports = !is_complex_num_v<T>;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return a >= b; }
};
struct LogicalAnd {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return (a != T(0)) && (b != T(0)); }
};
struct LogicalOr {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return (a != T(0)) || (b != T(0)); }
};
struct LogicalXor {
  template <typename T> static constexpr bool supports = true;
  template <typename T> CT_HOST_DEVICE bool operator()(T a, T b) const { return (a != T(0)) != (b != T(0)); }
};
// torch.maximum / minimum: a NaN operand is the result
template <bool kMax>
struct Extreme {
  template <typename T> static constexpr bool supports = !is_complex_num_v<T>;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_real_float_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return (kMax ? a > b : a < b) ? a : b;
  }
};
using Maximum = Extreme<true>;
using Minimum = Extreme<false>;
// Integer division by zero: an error on the CPU (Python's ZeroDivisionError); on CUDA it is not
// checked (as in PyTorch) and the result is unspecified (0 here). See docs/differences.md.
template <typename T>
CT_HOST_DEVICE inline T int_division_by_zero() {
#ifndef __CUDA_ARCH__
  fail(Status::Argument, "ZeroDivisionError: integer division or modulo by zero");
#endif
  return T(0);
}
// torch.floor_divide / remainder: the quotient rounded toward -inf, and a - b * that quotient
// (the sign of b)
template <bool kQuotient>
struct FloorDivRem {
  static constexpr bool heavy = true;
  template <typename T> static constexpr bool supports = is_real_float_v<T> || is_int_v<T>;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) return b == 0 ? int_division_by_zero<T>() : floor_div_int(a, b, kQuotient);
    else if constexpr (kQuotient) return floor_div_float(a, b);
    else return remainder_float(a, b);
  }
};
using FloorDivide = FloorDivRem<true>;
using Remainder = FloorDivRem<false>;

// torch.atan2(a, b): the angle of the point (b, a), with the signs of zero and the infinities of
// C's atan2 (integer and bool inputs were promoted to float32 by promote = "int_to_float")
struct Atan2 {
  static constexpr bool heavy = true;
  template <typename T> static constexpr bool supports = is_real_float_v<T>;
  template <typename T> CT_HOST_DEVICE T operator()(T a, T b) const { return atan2_(a, b); }
};

template <typename F, typename = void>
struct heavy_of : std::false_type {};
template <typename F>
struct heavy_of<F, std::void_t<decltype(F::heavy)>> : std::bool_constant<F::heavy> {};

// The functor, kind and weight of each op, from the table: Of<BinaryOp::Add>::type is Add.
template <BinaryOp OP>
struct Of;
#define CT_BINARY_FN_OF(NAME, VALUE, TORCH, KIND)         \
  template <>                                            \
  struct Of<BinaryOp::NAME> {                            \
    using type = NAME;                                   \
    static constexpr BinaryKind kind = KIND;             \
    static constexpr bool heavy = heavy_of<NAME>::value; \
  };
CT_ABI_BINARY_OPS(CT_BINARY_FN_OF)
#undef CT_BINARY_FN_OF

}  // namespace binary_fn

}  // namespace ct
