// Device-side helpers shared by the CUDA kernels: the device type of each dtype, the dispatch
// macros, integer-safe arithmetic and the strided offset computation.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/complex.h>

#include <cstdint>
#include <type_traits>

#include "impl/abi/tables.h"
#include "impl/core/dtype.h"
#include "impl/core/error.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cuda/kernels.h"
#include "impl/ops/scalar_ops.h"

namespace ct::cuda_ops {

using half = __half;
using bf16 = __nv_bfloat16;
using cfloat = thrust::complex<float>;
using cdouble = thrust::complex<double>;

// The device type of each dtype: the host's (CppType) but for float16, bfloat16 and complex.
template <DType D> struct DeviceType : CppType<D> {};
template <> struct DeviceType<DType::Float16> { using type = half; };
template <> struct DeviceType<DType::BFloat16> { using type = bf16; };
template <> struct DeviceType<DType::Complex64> { using type = cfloat; };
template <> struct DeviceType<DType::Complex128> { using type = cdouble; };

// A type as a value, for generic lambdas: [](auto t) { using T = typename decltype(t)::type; }.
template <typename T> struct TypeTag { using type = T; };

// f(TypeTag<U>{}) with U the unsigned type of `bytes` (1, 2, 4, 8; 16: uint4), for the kernels
// that move elements, or units of several, by size (copies, indexing).
template <typename F>
void with_unit(int64_t bytes, const F& f) {
  switch (bytes) {
    case 1: f(TypeTag<uint8_t>{}); break;
    case 2: f(TypeTag<uint16_t>{}); break;
    case 4: f(TypeTag<uint32_t>{}); break;
    case 8: f(TypeTag<uint64_t>{}); break;
    case 16: f(TypeTag<uint4>{}); break;
    default: fail(Status::Internal, "no unit of ", bytes, " bytes");
  }
}

template <typename T> constexpr DType dtype_of_t() { return dtype_for<DeviceType, T>(); }
template <typename T> constexpr int32_t dtype_code() { return static_cast<int32_t>(dtype_of_t<T>()); }

}  // namespace ct::cuda_ops

// The device types in convert()'s traits (impl/ops/cpu/convert.h): one set of conversion rules
// for both devices.
namespace ct {
template <typename T> struct IsComplex<thrust::complex<T>> : std::true_type {};
template <> struct Reduced<__half> : std::true_type {
  static __host__ __device__ __forceinline__ __half from_float(float f) { return __float2half_rn(f); }
};
template <> struct Reduced<__nv_bfloat16> : std::true_type {
  static __host__ __device__ __forceinline__ __nv_bfloat16 from_float(float f) { return __float2bfloat16_rn(f); }
};
}  // namespace ct

namespace ct::cuda_ops {

// Calls the lambda with scalar_t the device type of any dtype (host-side dispatch).
#define CT_EW_DISPATCH(dtype, NAME, ...) \
  CT_DTYPE_SWITCH(dtype, CT_ALL_DTYPES, ::ct::cuda_ops::DeviceType, NAME, ": unhandled CUDA dtype", __VA_ARGS__)

// Calls the lambda with scalar_t the device type of a compute dtype (float16/bfloat16 compute
// in float32, Note [Compute dtype]).
#define CT_CU_DISPATCH_COMPUTE(dtype, NAME, ...) \
  CT_DTYPE_SWITCH(dtype, CT_COMPUTE_DTYPES, ::ct::cuda_ops::DeviceType, NAME, ": unhandled CUDA compute dtype", __VA_ARGS__)

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
