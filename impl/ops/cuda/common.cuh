// Device-side helpers shared by the CUDA kernels: the C++ type of each compute dtype, a
// dispatch macro, integer-safe arithmetic and the strided offset computation.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/complex.h>

#include <cstdint>
#include <type_traits>

#include "impl/abi/tables.h"
#include "impl/core/error.h"
#include "impl/ops/cuda/kernels.h"
#include "impl/ops/scalar_ops.h"

namespace ct::cuda_ops {

using cfloat = thrust::complex<float>;
using cdouble = thrust::complex<double>;

template <typename T> struct is_cplx : std::false_type {};
template <typename T> struct is_cplx<thrust::complex<T>> : std::true_type {};
template <typename T> constexpr bool is_cplx_v = is_cplx<T>::value;
#define CT_CU_CASE(D, T, ...) \
  case ::ct::DType::D: {      \
    using scalar_t = T;       \
    __VA_ARGS__();            \
    break;                    \
  }

// The cases of the compute dtypes (float16/bfloat16 compute in float32, Note [Compute dtype]).
#define CT_CU_COMPUTE_CASES(...)                 \
  CT_CU_CASE(Bool, bool, __VA_ARGS__)            \
  CT_CU_CASE(UInt8, uint8_t, __VA_ARGS__)        \
  CT_CU_CASE(Int8, int8_t, __VA_ARGS__)          \
  CT_CU_CASE(Int16, int16_t, __VA_ARGS__)        \
  CT_CU_CASE(Int32, int32_t, __VA_ARGS__)        \
  CT_CU_CASE(Int64, int64_t, __VA_ARGS__)        \
  CT_CU_CASE(Float32, float, __VA_ARGS__)        \
  CT_CU_CASE(Float64, double, __VA_ARGS__)       \
  CT_CU_CASE(Complex64, cfloat, __VA_ARGS__)     \
  CT_CU_CASE(Complex128, cdouble, __VA_ARGS__)

// Calls the lambda with scalar_t the device type of a compute dtype.
#define CT_CU_DISPATCH_COMPUTE(dtype, NAME, ...)                             \
  do {                                                                       \
    switch (dtype) {                                                         \
      CT_CU_COMPUTE_CASES(__VA_ARGS__)                                       \
      default:                                                               \
        ::ct::fail(::ct::Status::Internal, NAME, ": unhandled CUDA compute dtype"); \
    }                                                                        \
  } while (0)

// Byte offsets of element `i` for N operands of an Iter.
template <int N>
struct Offsets {
  int64_t off[N];
};

template <int N>
__device__ __forceinline__ Offsets<N> offsets_of(const Iter<N>& it, int64_t i) {
  Offsets<N> r;
#pragma unroll
  for (int k = 0; k < N; ++k) r.off[k] = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    int64_t sz = it.sizes[d];
    int64_t q = i / sz;
    int64_t idx = i - q * sz;
    i = q;
#pragma unroll
    for (int k = 0; k < N; ++k) r.off[k] += idx * it.strides[k][d];
  }
  return r;
}

// The base pointer of operand k: global memory, or the scalar inside the kernel parameters.
template <int N>
__device__ __forceinline__ char* base_of(const Iter<N>& it, int k) {
  return ((it.scalar_mask >> k) & 1u) ? const_cast<char*>(reinterpret_cast<const char*>(it.scalar[k])) : it.data[k];
}

inline int blocks_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < 65535 * 8 ? (b < 1 ? 1 : b) : 65535 * 8);
}

}  // namespace ct::cuda_ops
