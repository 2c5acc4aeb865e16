// The CUDA side of the elementwise engine (Note [Elementwise engine] in impl/ops/iter.h).
//
// Note [CUDA elementwise kernels]: every elementwise op is one launch of one of two kernel
// shapes, templated on the op's common dtype C (its storage type), the result's storage type R
// (C, or bool for comparisons) and the op's functor, which computes in opmath(C) (float for
// float16/bfloat16, Note [Compute dtype]):
//   vec_kernel      every operand contiguous, of its kernel type (inputs C, output R) and
//                   16-byte aligned (or a CPU scalar): each thread loads and stores 16 bytes
//                   per operand (8 halves, 4 floats, 16 bytes...), then a scalar tail.
//   strided_kernel  anything else: 4 elements per thread, 32-bit offsets from the collapsed
//                   shape by multiply-shift division (IntDiv); with CAST, every operand is
//                   loaded from its own dtype (converted to C, then to opmath, as PyTorch's
//                   dynamic casting) and the result stored into the output's dtype, so mixed
//                   dtypes need no temporary tensors (Note [No promotion temporaries]).
// CPU scalars (0-dim CPU tensors, wrapped numbers) travel in the kernel parameters in their own
// dtype and are converted straight to opmath(C) once per thread, as PyTorch's
// original_scalar_value<opmath_t>. Iterations whose byte offsets do not fit in 32 bits are split
// on the host (for_each_32bit) so that no kernel does 64-bit index arithmetic.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/complex.h>

#include <cstdint>
#include <type_traits>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/common.cuh"

namespace ct::cuda_ops {

using half = __half;
using bf16 = __nv_bfloat16;

template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<half> { using type = float; };
template <> struct OpMath<bf16> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

template <typename T> constexpr bool is_reduced_v = std::is_same_v<T, half> || std::is_same_v<T, bf16>;

// ---------------------------------------------------------------------------------------------
// Conversions between the device types with c10's rules (the CPU's are impl/ops/cpu/convert.h).

template <typename To, typename From>
__device__ __forceinline__ To cvt(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_reduced_v<From>) {
    return cvt<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_cplx_v<From>) return v.real() != 0 || v.imag() != 0;
    else return v != From(0);
  } else if constexpr (is_cplx_v<To>) {
    using V = typename To::value_type;
    if constexpr (is_cplx_v<From>) return To(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    else return To(static_cast<V>(v), V(0));
  } else if constexpr (is_cplx_v<From>) {
    return cvt<To>(v.real());
  } else if constexpr (std::is_same_v<To, half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bf16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(v));  // c10: via int64
  } else {
    return static_cast<To>(v);
  }
}

// Calls f.template operator()<X>() with X the device type of dtype dt.
#define CT_EW_SWITCH(dt, ...)                                            \
  switch (dt) {                                                          \
    case CT_BOOL: { using X = bool; __VA_ARGS__ }                        \
    case CT_UINT8: { using X = uint8_t; __VA_ARGS__ }                    \
    case CT_INT8: { using X = int8_t; __VA_ARGS__ }                      \
    case CT_INT16: { using X = int16_t; __VA_ARGS__ }                    \
    case CT_INT32: { using X = int32_t; __VA_ARGS__ }                    \
    case CT_INT64: { using X = int64_t; __VA_ARGS__ }                    \
    case CT_FLOAT16: { using X = half; __VA_ARGS__ }                     \
    case CT_BFLOAT16: { using X = bf16; __VA_ARGS__ }                    \
    case CT_FLOAT32: { using X = float; __VA_ARGS__ }                    \
    case CT_FLOAT64: { using X = double; __VA_ARGS__ }                   \
    case CT_COMPLEX64: { using X = cfloat; __VA_ARGS__ }                 \
    default: { using X = cdouble; __VA_ARGS__ }                          \
  }

// An operand of dtype dt loaded as C (c10::convert), then widened to opmath(C).
template <typename C>
__device__ __forceinline__ opmath_t<C> load_as(const char* p, int32_t dt) {
  CT_EW_SWITCH(dt, return static_cast<opmath_t<C>>(cvt<C>(*reinterpret_cast<const X*>(p)));)
}

// A CPU scalar's bytes (its own dtype dt) converted straight to opmath(C).
template <typename C>
__device__ __forceinline__ opmath_t<C> load_scalar(const unsigned char* p, int32_t dt) {
  CT_EW_SWITCH(dt, return cvt<opmath_t<C>>(*reinterpret_cast<const X*>(p));)
}

// A value of type R stored into an operand of dtype dt.
template <typename R>
__device__ __forceinline__ void store_as(char* p, int32_t dt, R v) {
  CT_EW_SWITCH(dt, *reinterpret_cast<X*>(p) = cvt<X>(v); return;)
}

// The device type of each dtype, for host-side dispatch.
#define CT_EW_DISPATCH(dtype, NAME, ...)                                         \
  do {                                                                           \
    switch (dtype) {                                                             \
      CT_CU_CASE(Bool, bool, __VA_ARGS__)                                        \
      CT_CU_CASE(UInt8, uint8_t, __VA_ARGS__)                                    \
      CT_CU_CASE(Int8, int8_t, __VA_ARGS__)                                      \
      CT_CU_CASE(Int16, int16_t, __VA_ARGS__)                                    \
      CT_CU_CASE(Int32, int32_t, __VA_ARGS__)                                    \
      CT_CU_CASE(Int64, int64_t, __VA_ARGS__)                                    \
      CT_CU_CASE(Float16, half, __VA_ARGS__)                                     \
      CT_CU_CASE(BFloat16, bf16, __VA_ARGS__)                                    \
      CT_CU_CASE(Float32, float, __VA_ARGS__)                                    \
      CT_CU_CASE(Float64, double, __VA_ARGS__)                                   \
      CT_CU_CASE(Complex64, cfloat, __VA_ARGS__)                                 \
      CT_CU_CASE(Complex128, cdouble, __VA_ARGS__)                               \
      default:                                                                   \
        ::ct::fail(CT_ERR_INTERNAL, NAME, ": unhandled CUDA dtype");             \
    }                                                                            \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Offsets: 32-bit division by a run-time constant as a multiply-high and a shift (Granlund and
// Montgomery), valid for dividends below 2^31 (for_each_32bit guarantees it).

struct IntDiv {
  uint32_t d = 1, m = 1, s = 0;
  IntDiv() = default;
  explicit IntDiv(uint32_t div) : d(div) {
    while ((1ull << s) < d) ++s;
    m = static_cast<uint32_t>(((1ull << 32) * ((1ull << s) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const { return (__umulhi(n, m) + n) >> s; }
};

template <int N>
struct OffsetCalc {
  int32_t ndim = 0;
  IntDiv size[kMaxDims];        // innermost first
  uint32_t stride[kMaxDims][N];  // bytes, innermost first
  // Byte offsets of element i of every operand.
  __device__ __forceinline__ void get(uint32_t i, uint32_t (&off)[N]) const {
    if (ndim == 1) {
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] = i * stride[0][k];
      return;
    }
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim) break;
      uint32_t q = size[d].div(i);
      uint32_t idx = i - q * size[d].d;
      i = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += idx * stride[d][k];
    }
  }
};

template <int N>
OffsetCalc<N> offset_calc(const Iter<N>& it) {
  OffsetCalc<N> oc;
  oc.ndim = it.ndim;
  for (int d = 0; d < it.ndim; ++d) {
    int src = it.ndim - 1 - d;
    oc.size[d] = IntDiv(static_cast<uint32_t>(it.sizes[src]));
    for (int k = 0; k < N; ++k) oc.stride[d][k] = static_cast<uint32_t>(it.strides[k][src]);
  }
  return oc;
}

// Calls fn(piece) for pieces of it whose element count and byte offsets fit in 31 bits, split
// along the dim that spans the most bytes (as PyTorch's TensorIterator::with_32bit_indexing).
template <int N, typename Fn>
void for_each_32bit(const Iter<N>& it, const Fn& fn) {
  if (it.numel == 0) return;
  constexpr int64_t kLimit = int64_t{1} << 31;
  int64_t worst = 0;
  int wd = -1;
  bool fits = it.numel < kLimit;
  for (int k = 0; k < N; ++k) {
    int64_t span = 0;
    for (int d = 0; d < it.ndim; ++d) {
      int64_t sd = (it.sizes[d] - 1) * it.strides[k][d];
      span += sd;
    }
    if (span + 16 >= kLimit) fits = false;
  }
  if (fits) {
    fn(it);
    return;
  }
  for (int d = 0; d < it.ndim; ++d) {
    if (it.sizes[d] < 2) continue;
    int64_t m = 0;
    for (int k = 0; k < N; ++k) m = std::max(m, it.sizes[d] * it.strides[k][d]);
    if (wd < 0 || m > worst || (m == worst && it.sizes[d] > it.sizes[wd])) worst = m, wd = d;
  }
  Iter<N> a = it, b = it;
  int64_t h = it.sizes[wd] / 2;
  a.sizes[wd] = h;
  b.sizes[wd] = it.sizes[wd] - h;
  a.numel = it.numel / it.sizes[wd] * h;
  b.numel = it.numel - a.numel;
  for (int k = 0; k < N; ++k)
    if (b.data[k]) b.data[k] += h * it.strides[k][wd];
  for_each_32bit(a, fn);
  for_each_32bit(b, fn);
}

// ---------------------------------------------------------------------------------------------
// Kernels

constexpr int kEwThreads = 128;
constexpr int kEwUnroll = 4;
constexpr int kVecThreads = 256;

template <typename T, int V>
struct alignas(sizeof(T) * V) VecOf {
  T v[V];
};

// f applied to NIN opmath values.
template <int NIN, typename F, typename T>
__device__ __forceinline__ auto apply(const F& f, const T (&a)[NIN]) {
  if constexpr (NIN == 1) return f(a[0]);
  else if constexpr (NIN == 2) return f(a[0], a[1]);
  else return f(a[0], a[1], a[2]);
}

template <int NIN, typename C>
struct Scalars {
  opmath_t<C> v[NIN];
};

template <typename C, int N>
__device__ __forceinline__ Scalars<N - 1, C> scalars_of(const Iter<N>& it) {
  Scalars<N - 1, C> s;
#pragma unroll
  for (int k = 1; k < N; ++k) s.v[k - 1] = ((it.scalar_mask >> k) & 1u) ? load_scalar<C>(it.scalar[k], it.dtype[k]) : opmath_t<C>();
  return s;
}

// Every operand contiguous and of its kernel type (inputs C, output R), 16-byte aligned.
template <typename C, typename R, int V, int N, typename F>
__global__ void vec_kernel(Iter<N> it, F f) {
  constexpr int NIN = N - 1;
  using T = opmath_t<C>;
  const Scalars<NIN, C> sc = scalars_of<C>(it);
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t nvec = n / V;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t v = tid; v < nvec; v += step) {
    VecOf<C, V> in[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k)
      if (!((it.scalar_mask >> (k + 1)) & 1u)) in[k] = reinterpret_cast<const VecOf<C, V>*>(it.data[k + 1])[v];
    VecOf<R, V> out;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      T a[NIN];
#pragma unroll
      for (int k = 0; k < NIN; ++k) a[k] = ((it.scalar_mask >> (k + 1)) & 1u) ? sc.v[k] : static_cast<T>(in[k].v[j]);
      out.v[j] = cvt<R>(apply<NIN>(f, a));
    }
    reinterpret_cast<VecOf<R, V>*>(it.data[0])[v] = out;
  }
  const uint32_t i = nvec * V + tid;
  if (tid < n - nvec * V) {
    T a[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k)
      a[k] = ((it.scalar_mask >> (k + 1)) & 1u) ? sc.v[k] : static_cast<T>(reinterpret_cast<const C*>(it.data[k + 1])[i]);
    reinterpret_cast<R*>(it.data[0])[i] = cvt<R>(apply<NIN>(f, a));
  }
}

// Any layout; CAST: operands in any dtype (loaded through C, stored from R).
template <typename C, typename R, bool CAST, int N, typename F>
__global__ void strided_kernel(Iter<N> it, OffsetCalc<N> oc, F f) {
  constexpr int NIN = N - 1;
  using T = opmath_t<C>;
  const Scalars<NIN, C> sc = scalars_of<C>(it);
  const uint32_t n = static_cast<uint32_t>(it.numel);
  uint32_t i = blockIdx.x * (blockDim.x * kEwUnroll) + threadIdx.x;
#pragma unroll
  for (int u = 0; u < kEwUnroll; ++u, i += blockDim.x) {
    if (i >= n) break;
    uint32_t off[N];
    oc.get(i, off);
    T a[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      if ((it.scalar_mask >> (k + 1)) & 1u) a[k] = sc.v[k];
      else if constexpr (CAST) a[k] = load_as<C>(it.data[k + 1] + off[k + 1], it.dtype[k + 1]);
      else a[k] = static_cast<T>(*reinterpret_cast<const C*>(it.data[k + 1] + off[k + 1]));
    }
    R r = cvt<R>(apply<NIN>(f, a));
    if constexpr (CAST) store_as<R>(it.data[0] + off[0], it.dtype[0], r);
    else *reinterpret_cast<R*>(it.data[0] + off[0]) = r;
  }
}

template <typename T> constexpr int32_t dtype_code() {
  if constexpr (std::is_same_v<T, bool>) return CT_BOOL;
  else if constexpr (std::is_same_v<T, uint8_t>) return CT_UINT8;
  else if constexpr (std::is_same_v<T, int8_t>) return CT_INT8;
  else if constexpr (std::is_same_v<T, int16_t>) return CT_INT16;
  else if constexpr (std::is_same_v<T, int32_t>) return CT_INT32;
  else if constexpr (std::is_same_v<T, int64_t>) return CT_INT64;
  else if constexpr (std::is_same_v<T, half>) return CT_FLOAT16;
  else if constexpr (std::is_same_v<T, bf16>) return CT_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>) return CT_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return CT_FLOAT64;
  else if constexpr (std::is_same_v<T, cfloat>) return CT_COMPLEX64;
  else return CT_COMPLEX128;
}

// Launches f over it: out (operand 0) of R, inputs read as C.
template <typename C, typename R, int N, typename F>
void launch_ew(const Iter<N>& whole, const F& f, cudaStream_t s) {
  for_each_32bit(whole, [&](const Iter<N>& it) {
    bool typed = it.dtype[0] == dtype_code<R>();
    bool contig = it.ndim == 1 && it.strides[0][0] == static_cast<int64_t>(sizeof(R));
    uintptr_t align = reinterpret_cast<uintptr_t>(it.data[0]);
    for (int k = 1; k < N; ++k) {
      if ((it.scalar_mask >> k) & 1u) continue;
      typed = typed && it.dtype[k] == dtype_code<C>();
      contig = contig && it.strides[k][0] == static_cast<int64_t>(sizeof(C));
      align |= reinterpret_cast<uintptr_t>(it.data[k]);
    }
    constexpr int kBig = sizeof(C) > sizeof(R) ? sizeof(C) : sizeof(R);
    constexpr int V = 16 / kBig > 0 ? 16 / kBig : 1;
    const int64_t n = it.numel;
    if (typed && contig && align % (sizeof(C) * V) == 0 && align % (sizeof(R) * V) == 0) {
      int64_t blocks = (n / V + kVecThreads - 1) / kVecThreads;
      blocks = std::max<int64_t>(1, std::min<int64_t>(blocks, 1 << 20));
      vec_kernel<C, R, V><<<static_cast<unsigned>(blocks), kVecThreads, 0, s>>>(it, f);
      return;
    }
    unsigned blocks = static_cast<unsigned>((n + kEwThreads * kEwUnroll - 1) / (kEwThreads * kEwUnroll));
    if (typed) strided_kernel<C, R, false><<<blocks, kEwThreads, 0, s>>>(it, offset_calc(it), f);
    else strided_kernel<C, R, true><<<blocks, kEwThreads, 0, s>>>(it, offset_calc(it), f);
  });
}

}  // namespace ct::cuda_ops
