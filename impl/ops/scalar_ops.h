// Element functions shared by the CPU and CUDA kernels (compiled for both by gcc and nvcc), so
// the two devices compute the same values: two's-complement integer arithmetic, integer
// powers, and PyTorch's floor division / remainder.
#pragma once
#include <cmath>
#include <type_traits>

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

}  // namespace ct
