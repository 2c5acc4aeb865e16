// Element conversion between the 12 dtypes, with PyTorch's rules (static_cast semantics;
// complex -> real keeps the real part; anything -> bool is "!= 0"; half/bfloat16 via float).
#pragma once
#include <complex>
#include <type_traits>

#include "impl/core/half.h"

namespace ct::cpu {

template <typename T> struct is_complex_t : std::false_type {};
template <typename T> struct is_complex_t<std::complex<T>> : std::true_type {};
template <typename T> constexpr bool is_complex_v = is_complex_t<T>::value;
template <typename T> constexpr bool is_reduced_float_v =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// float for Half/BFloat16, the type itself otherwise.
template <typename T> struct opmath { using type = T; };
template <> struct opmath<Half> { using type = float; };
template <> struct opmath<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename opmath<T>::type;

template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_reduced_float_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_complex_v<To>) {
    using V = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    else return To(static_cast<V>(v), V(0));
  } else if constexpr (is_complex_v<From>) {
    return convert<To>(v.real());
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    // As c10's static_cast_with_inter_type: float -> uint8 goes through int64, so negative
    // values wrap the same way on every compiler and device.
    return static_cast<uint8_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ct::cpu
