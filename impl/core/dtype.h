// DType: the 12 element types, their sizes and names, and PyTorch's type promotion.
#pragma once
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "impl/abi/tables.h"
#include "impl/core/half.h"

namespace ct {

// enum class DType (the values of capi/abi.toml) is in impl/abi/tables.h.

constexpr DType kDefaultFloat = DType::Float32;
constexpr DType kDefaultComplex = DType::Complex64;

bool dtype_valid(int32_t v);
DType dtype_from_c(int32_t v);  // throws Status::DType for unknown values
// bytes per element (inline: the CUDA kernel library uses it without calling into the host one)
inline int64_t itemsize(DType d) {
  switch (d) {
    case DType::UInt8: case DType::Int8: case DType::Bool: return 1;
    case DType::Int16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Int32: case DType::Float32: return 4;
    case DType::Int64: case DType::Float64: case DType::Complex64: return 8;
    case DType::Complex128: return 16;
  }
  return 0;
}
const char* dtype_name(DType d);   // "torch.float32"
const char* dtype_short(DType d);  // "Float" (as PyTorch's error messages name it)

inline bool is_floating(DType d) {
  return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64;
}
inline bool is_complex(DType d) { return d == DType::Complex64 || d == DType::Complex128; }
inline bool is_integral(DType d, bool include_bool) {
  switch (d) {
    case DType::UInt8: case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
      return true;
    case DType::Bool:
      return include_bool;
    default:
      return false;
  }
}
DType to_real(DType d);     // complex64 -> float32, complex128 -> float64, others unchanged
DType to_complex(DType d);  // float64 -> complex128, other real -> complex64

// torch.promote_types
DType promote_types(DType a, DType b);
// Note [Compute dtype]: kernels compute float16/bfloat16 in float32, every other dtype as is.
inline DType compute_dtype(DType d) {
  return (d == DType::Float16 || d == DType::BFloat16) ? DType::Float32 : d;
}
// torch.can_cast(from, to)
bool can_cast(DType from, DType to);

// The C++ type behind each dtype, and the dispatch macros used by kernels.
template <DType D> struct CppType;
template <> struct CppType<DType::UInt8> { using type = uint8_t; };
template <> struct CppType<DType::Int8> { using type = int8_t; };
template <> struct CppType<DType::Int16> { using type = int16_t; };
template <> struct CppType<DType::Int32> { using type = int32_t; };
template <> struct CppType<DType::Int64> { using type = int64_t; };
template <> struct CppType<DType::Float16> { using type = Half; };
template <> struct CppType<DType::BFloat16> { using type = BFloat16; };
template <> struct CppType<DType::Float32> { using type = float; };
template <> struct CppType<DType::Float64> { using type = double; };
template <> struct CppType<DType::Complex64> { using type = std::complex<float>; };
template <> struct CppType<DType::Complex128> { using type = std::complex<double>; };
template <> struct CppType<DType::Bool> { using type = bool; };

template <typename T> inline constexpr bool kNoDTypeFor = false;

// The dtype whose type is T in the map TypeOf (CppType here, the device types on CUDA):
// the inverse of the map, over the ABI's dtypes (CT_ABI_DTYPES).
template <template <DType> class TypeOf, typename T>
constexpr DType dtype_for() {
#define CT_DTYPE_FOR(D, ...) if constexpr (std::is_same_v<T, typename TypeOf<DType::D>::type>) return DType::D; else
  CT_ABI_DTYPES(CT_DTYPE_FOR) { static_assert(kNoDTypeFor<T>, "dtype_for: not the type of a dtype"); }
#undef CT_DTYPE_FOR
}

}  // namespace ct

// The dtype lists of the dispatch macros: CASE(Camel, ...) for each compute dtype (everything
// but float16/bfloat16, which compute in float32: Note [Compute dtype]), and for all 12.
#define CT_COMPUTE_DTYPES(CASE, ...) \
  CASE(Bool, __VA_ARGS__)            \
  CASE(UInt8, __VA_ARGS__)           \
  CASE(Int8, __VA_ARGS__)            \
  CASE(Int16, __VA_ARGS__)           \
  CASE(Int32, __VA_ARGS__)           \
  CASE(Int64, __VA_ARGS__)           \
  CASE(Float32, __VA_ARGS__)         \
  CASE(Float64, __VA_ARGS__)         \
  CASE(Complex64, __VA_ARGS__)       \
  CASE(Complex128, __VA_ARGS__)
#define CT_ALL_DTYPES(CASE, ...)          \
  CT_COMPUTE_DTYPES(CASE, __VA_ARGS__)    \
  CASE(Float16, __VA_ARGS__)              \
  CASE(BFloat16, __VA_ARGS__)

namespace ct::detail {
#define CT_COUNT_DTYPE(...) +1
static_assert(0 CT_ALL_DTYPES(CT_COUNT_DTYPE, ) == 0 CT_ABI_DTYPES(CT_COUNT_DTYPE), "CT_ALL_DTYPES: a dtype is missing");
#undef CT_COUNT_DTYPE
}  // namespace ct::detail

// switch (dtype) over the dtypes of LIST, each a `case` that defines scalar_t as
// TYPE_OF<dtype>::type (CppType here, the device types on CUDA) and calls the lambda; other
// values fail with Status::Internal and NAME MSG.
#define CT_DTYPE_SWITCH(dtype, LIST, TYPE_OF, NAME, MSG, ...) \
  do {                                                        \
    switch (dtype) {                                          \
      LIST(CT_DTYPE_CASE, TYPE_OF, __VA_ARGS__)               \
      default:                                                \
        ::ct::fail(::ct::Status::Internal, NAME, MSG);        \
    }                                                         \
  } while (0)

#define CT_DTYPE_CASE(D, TYPE_OF, ...)              \
  case ::ct::DType::D: {                            \
    using scalar_t = TYPE_OF<::ct::DType::D>::type; \
    __VA_ARGS__();                                  \
    break;                                          \
  }

// All 12 dtypes.
#define CT_DISPATCH_ALL(dtype, NAME, ...) \
  CT_DTYPE_SWITCH(dtype, CT_ALL_DTYPES, ::ct::CppType, NAME, ": unhandled dtype", __VA_ARGS__)

// The compute dtypes of kernels: everything but float16/bfloat16 (computed in float32).
#define CT_DISPATCH_COMPUTE(dtype, NAME, ...) \
  CT_DTYPE_SWITCH(dtype, CT_COMPUTE_DTYPES, ::ct::CppType, NAME, ": unhandled compute dtype", __VA_ARGS__)
