// Note [Sort keys]: every sorting op (sort, argsort, topk, kthvalue, unique, searchsorted) orders
// elements by an unsigned "order key" of the element's own width (1, 2, 4 or 8 bytes), the same
// on the CPU and on CUDA, so both devices order alike and CUDA's radix sort is instantiated for
// four unsigned key types only:
// - bool and unsigned integers: their bits; signed integers: their bits with the sign bit flipped;
// - floating types (float16, bfloat16, float32, float64): positive numbers get the sign bit set,
//   negative numbers all bits flipped (IEEE order), -0.0 the key of +0.0 (they compare equal, so a
//   stable sort keeps their input order), and every NaN (any sign, any payload) the largest key:
//   NaN sorts after +inf, as in PyTorch (ascending puts NaN last, descending first);
// - descending order uses ~key (ties still keep their input order in a stable sort).
// The sorted values are the input elements themselves (gathered by index): -0.0 stays -0.0 and
// a NaN keeps its bits.
#pragma once
#include <cstdint>

#include "impl/core/dtype.h"
#include "impl/core/error.h"

#ifdef __CUDACC__
#define CT_SORT_HD __host__ __device__ __forceinline__
#else
#define CT_SORT_HD inline
#endif

namespace ct::sortkey {

enum class Kind : int32_t { Unsigned = 0, Signed = 1, Float = 2 };

// How the elements of a dtype become keys: their width and, for floating types, the exponent
// and mantissa masks (a NaN has all exponent bits and some mantissa bit set).
struct Format {
  int32_t bytes = 0;
  Kind kind = Kind::Unsigned;
  uint64_t exp_mask = 0, mant_mask = 0;
};

// The sortable dtypes: all but complex (the caller reports complex with the op's message).
inline Format format_of(DType d) {
  switch (d) {
    case DType::Bool: case DType::UInt8: return {1, Kind::Unsigned, 0, 0};
    case DType::Int8: return {1, Kind::Signed, 0, 0};
    case DType::Int16: return {2, Kind::Signed, 0, 0};
    case DType::Int32: return {4, Kind::Signed, 0, 0};
    case DType::Int64: return {8, Kind::Signed, 0, 0};
    case DType::Float16: return {2, Kind::Float, 0x7C00u, 0x03FFu};
    case DType::BFloat16: return {2, Kind::Float, 0x7F80u, 0x007Fu};
    case DType::Float32: return {4, Kind::Float, 0x7F800000u, 0x007FFFFFu};
    case DType::Float64: return {8, Kind::Float, 0x7FF0000000000000ull, 0x000FFFFFFFFFFFFFull};
    default: fail(Status::Internal, "no sort key for dtype ", dtype_short(d));
  }
}

// Calls fn(U{}) with U the unsigned key type of the dtype's width (host code).
template <typename Fn>
void by_width(DType dtype, Fn&& fn) {
  switch (format_of(dtype).bytes) {
    case 1: fn(uint8_t{}); break;
    case 2: fn(uint16_t{}); break;
    case 4: fn(uint32_t{}); break;
    default: fn(uint64_t{}); break;
  }
}

template <typename U>
CT_SORT_HD U key_of(U bits, Kind kind, U exp_mask, U mant_mask) {
  const U sign = static_cast<U>(U(1) << (8 * sizeof(U) - 1));
  if (kind == Kind::Unsigned) return bits;
  if (kind == Kind::Signed) return static_cast<U>(bits ^ sign);
  if ((bits & exp_mask) == exp_mask && (bits & mant_mask) != 0) return static_cast<U>(~U(0));  // NaN
  if ((bits & static_cast<U>(~sign)) == 0) return sign;                                      // +-0
  return (bits & sign) ? static_cast<U>(~bits) : static_cast<U>(bits | sign);
}

template <typename U>
CT_SORT_HD bool is_nan_key(U key, Kind kind) {
  return kind == Kind::Float && key == static_cast<U>(~U(0));
}

// torch.searchsorted's binary search over one sorted row of L keys (row[sorter[i]] when sorter
// is given): the first position whose element is >= v (right: > v), compared as PyTorch does, so
// a NaN compares false both ways: a NaN value, or NaNs among the boundaries, move the search right.
template <typename U>
CT_SORT_HD int64_t search_row(const U* row, const int64_t* sorter, int64_t L, U v, bool right, Kind kind) {
  const bool v_nan = is_nan_key(v, kind);
  int64_t lo = 0, hi = L;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const U m = sorter ? row[sorter[mid]] : row[mid];
    const bool ok = !v_nan && !is_nan_key(m, kind) && (right ? m > v : m >= v);
    if (!ok) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

}  // namespace ct::sortkey
