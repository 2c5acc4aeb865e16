// Element conversion between the 12 dtypes, with PyTorch's rules (static_cast semantics;
// complex -> real keeps the real part; anything -> bool is "!= 0"; half/bfloat16 via float).
// One set of rules for both devices: the CPU's types are described here, and the CUDA kernels
// (impl/ops/cuda/common.cuh) add theirs (thrust::complex, __half, __nv_bfloat16) to the same
// traits, so nvcc compiles convert() for the device too.
#pragma once
#include <complex>
#include <cstdint>
#include <type_traits>

#include "impl/core/half.h"

#ifdef __CUDACC__
#define CT_CONVERT_INLINE __host__ __device__ __forceinline__
#else
#define CT_CONVERT_INLINE inline
#endif

namespace ct {

// Complex types.
template <typename T> struct IsComplex : std::false_type {};
template <typename T> struct IsComplex<std::complex<T>> : std::true_type {};
template <typename T> constexpr bool is_complex_v = IsComplex<T>::value;

// float16 and bfloat16 types (computed in float: Note [Compute dtype]), with their rounding
// from float.
template <typename T> struct Reduced : std::false_type {};
template <> struct Reduced<Half> : std::true_type {
  static Half from_float(float f) { return Half(f); }
};
template <> struct Reduced<BFloat16> : std::true_type {
  static BFloat16 from_float(float f) { return BFloat16(f); }
};
template <typename T> constexpr bool is_reduced_float_v = Reduced<T>::value;

// float for float16/bfloat16, the type itself otherwise.
template <typename T> using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

// Note [Float to integer casts]: a floating value outside the integer type's range (NaN, the
// infinities, 3e9 -> int32) is undefined behaviour in C++, so the host spells out what x86-64
// does, which is what PyTorch's CPU kernels give there: the value truncated toward zero when it
// fits int32 (int64 for 8-byte types), the "integer indefinite" (INT_MIN, INT64_MIN) when it
// does not, and types narrower than int32 keep the low bytes of the int32 result (float ->
// uint8 goes through int64, below). Device code keeps the plain cast: PTX's cvt.rzi saturates
// (NaN -> 0), defined, and PyTorch's CUDA result. tests/capi/capi_test.c checks both.
template <typename I, typename F>
CT_CONVERT_INLINE I float_to_int(F v) {
#ifdef __CUDA_ARCH__
  return static_cast<I>(v);
#else
  if constexpr (sizeof(I) == 8) {
    if (v >= F(-0x1p63) && v < F(0x1p63)) return static_cast<I>(v);
    return static_cast<I>(INT64_MIN);
  } else {
    if (v >= F(-0x1p31) && v < F(0x1p31)) return static_cast<I>(static_cast<int32_t>(v));
    return static_cast<I>(INT32_MIN);
  }
#endif
}

template <typename To, typename From>
CT_CONVERT_INLINE To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_reduced_float_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_v<From>) return v.real() != 0 || v.imag() != 0;
    else return v != From(0);
  } else if constexpr (is_complex_v<To>) {
    using V = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    else return To(static_cast<V>(v), V(0));
  } else if constexpr (is_complex_v<From>) {
    return convert<To>(v.real());
  } else if constexpr (is_reduced_float_v<To>) {
    return Reduced<To>::from_float(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    // As c10's static_cast_with_inter_type: float -> uint8 goes through int64, so negative
    // values wrap the same way on every compiler and device.
    return static_cast<uint8_t>(float_to_int<int64_t>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return float_to_int<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

namespace cpu {
using ::ct::convert;
using ::ct::is_complex_v;
using ::ct::is_reduced_float_v;
using ::ct::opmath_t;
}  // namespace cpu

}  // namespace ct
