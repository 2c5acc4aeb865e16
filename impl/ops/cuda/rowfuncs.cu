// Note [Row kernels]: softmax, log_softmax and layer_norm over the last dim of a contiguous
// tensor, one block of 256 threads per row (a grid-stride loop over the rows), float16 and
// bfloat16 loaded as float, float32 computed in float, float64 in double. No library has these
// kernels; CUB's BlockReduce combines the threads' partial results.
//
// softmax makes one pass for the maximum and the sum together (the online form: a thread's
// (max, sum) rescales its sum when the max grows; two partials combine as max(m1, m2), s1 *
// exp(m1 - m) + s2 * exp(m2 - m)), then one pass that writes exp(x - max) / sum (log_softmax:
// x - max - log(sum)); any row length works, the row streamed through twice. -inf elements add
// nothing (a row of only -inf gives 0 / 0 = NaN, as PyTorch's x - max); a NaN makes the sum NaN;
// a +inf adds exp(inf - inf) = NaN: the whole row NaN, as PyTorch.
//
// var / std (and their _mean forms) keep Welford's (count, mean, M2) per thread, combined
// across the block (Chan et al.'s formula), then divide M2 by max(0, N - correction).
//
// Note [Softmax rows in shared memory]: a row of at most kSmemRowBytes (48 KiB, the default
// dynamic shared memory of a block) is read from global memory once, in 16-byte vectors where
// the row and its address allow, into shared memory; its max, then its sum of exp(x - max) are
// block reductions over the copy, and the output is written from it. The streaming form above
// reads the row twice from global memory, one element a load: float32 softmax / log_softmax of
// [8192, 8192] ran 1.27x / 1.36x torch's time that way (torch's cunn_SoftMaxForwardSmem does the
// same as this). Rows up to kSmemRowMaxBytes (96 KiB: float64 rows of 8192) take more than the
// default through cudaFuncAttributeMaxDynamicSharedMemorySize, where the device allows it
// (float64 softmax of [8192, 8192] streamed at 1.09x torch's time); longer rows stream.
//
// Note [Softmax of short rows]: rows of at most 256 elements, and rows of at most kWarpRowMax
// (1024) when there are 8192 rows or more (warp_rows), take one warp each, eight rows a block:
// online (max, sum) per lane in vectors, combined by shuffles, then the writes (the second read of a row of at most 8 KiB comes from L1). A block of 256 threads on a
// row of 128 left half of them idle and synchronised the block twice a row: softmax over the last
// dim of a [1024, 512, 128] tensor ran 1.8x (float32) to 3x (float16) torch's time, which has a
// warp-per-row kernel for rows of up to 1024 elements as well.
//
// Note [Softmax over an inner dim]: softmax over a dim that is not the last, of a contiguous
// [outer, len, inner] tensor: one thread per (outer, inner) column, online (max, sum) down the
// column then the writes, consecutive threads on consecutive columns (coalesced). One launch,
// where the composed form (amax, sub, exp, sum, div, and the casts of float16) took seven:
// float16 softmax over dim 0 of [64, 1000] ran 1.48x torch's time. Used for columns of at most
// 256 elements, 32 columns or more (softmax_cols_ok); long columns, one thread each, are slower
// than the composed form, which remains for them (over dim 0 of [8192, 8192] it took 10x the
// composed form's time, measured).
//
// Note [Welford by vectors]: var's threads load kVecBytes vectors; each vector's elements give
// a (count, mean, M2) of their own by the two-pass formula, merged into the thread's running
// triple with Chan et al.'s combination: one division per vector instead of one per element
// (float32 var over dim 1 of [8192, 8192] ran 1.29x torch's time with a division per element).
//
// Note [logsumexp rows]: logsumexp over the last dim(s) of a contiguous tensor, PyTorch's formula
// in one kernel: m = the row's max (NaN if any), m = 0 where it is +-inf, then log(sum(exp(x -
// m))) + m; a row a warp or a block as softmax (warp_rows), the row read twice (the second time
// from cache). The composed form took nine launches (amax, abs, eq, where, sub, exp, sum, log,
// add): float16 at 1.4x torch's time, rows of 128 at 2x.
//
// layer_norm is two-pass for its statistics (the mean, then the mean of squared deviations,
// each a block sum), then one pass that writes (x - mean) * rstd * weight + bias.
#include <cub/block/block_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/rowfuncs.h"
#include "impl/ops/cuda/welford.cuh"

namespace ct::cuda_ops {

namespace {

constexpr int kRowThreads = 256;

template <typename T> struct Acc { using type = float; };
template <> struct Acc<double> { using type = double; };

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ double load(const double* p) { return *p; }
__device__ __forceinline__ float load(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(double* p, double v) { *p = v; }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

template <typename A>
struct MaxSum {
  A m, s;
};

// The combination of two partial (max, sum) pairs; a partial without elements (s == 0, m ==
// -inf) adds nothing.
template <typename A>
struct MaxSumOp {
  __device__ __forceinline__ MaxSum<A> operator()(const MaxSum<A>& a, const MaxSum<A>& b) const {
    A m = a.m > b.m ? a.m : b.m;
    A sa = a.s == A(0) ? A(0) : a.s * exp(a.m - m);
    A sb = b.s == A(0) ? A(0) : b.s * exp(b.m - m);
    return {m, sa + sb};
  }
};

template <typename T>
__global__ void __launch_bounds__(kRowThreads) softmax_kernel(const T* in, T* out, int64_t rows, int64_t len, bool take_log) {
  using A = typename Acc<T>::type;
  using Reduce = cub::BlockReduce<MaxSum<A>, kRowThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ A row_m, row_s;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * len;
    MaxSum<A> p{-INFINITY, A(0)};
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) {
      A v = load(x + i);
      if (v > p.m) {
        p.s = (p.s == A(0) ? A(0) : p.s * exp(p.m - v)) + exp(v - v);  // exp(inf - inf): NaN
        p.m = v;
      } else if (!(v == -INFINITY)) {
        p.s += exp(v - p.m);  // NaN for a NaN
      }
    }
    MaxSum<A> all = Reduce(tmp).Reduce(p, MaxSumOp<A>());
    if (threadIdx.x == 0) row_m = all.m, row_s = all.s;
    __syncthreads();
    const A m = row_m, s = row_s;
    const A ls = take_log ? log(s) : A(0);
    T* y = out + r * len;
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) {
      A z = load(x + i) - m;
      store(y + i, take_log ? z - ls : exp(z) / s);
    }
    __syncthreads();  // tmp, row_m and row_s are reused by the next row
  }
}

constexpr int64_t kSmemRowBytes = 48 * 1024;
constexpr int64_t kSmemRowMaxBytes = 96 * 1024;
constexpr int64_t kWarpRowMax = 1024;
constexpr int kWarpsPerBlock = kRowThreads / 32;
constexpr int kVecBytes = 16;

// VEC elements of T as one aligned load/store.
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T v[VEC];
};

// Note [Softmax rows in shared memory]. VEC: elements per vector (1 when the rows or the
// addresses are not aligned to whole vectors).
template <typename T, int VEC>
__global__ void __launch_bounds__(kRowThreads)
    softmax_smem_kernel(const T* in, T* out, int64_t rows, int64_t len, bool take_log) {
  using A = typename Acc<T>::type;
  using Reduce = cub::BlockReduce<A, kRowThreads>;
  using V = Vec<T, VEC>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* buf = reinterpret_cast<T*>(smem_raw);
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ A row_m, row_s;
  const int64_t nv = len / VEC;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const V* x = reinterpret_cast<const V*>(in + r * len);
    A m = -INFINITY;
    for (int64_t i = threadIdx.x; i < nv; i += kRowThreads) {
      const V v = x[i];
      reinterpret_cast<V*>(buf)[i] = v;
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const A a = load(&v.v[k]);
        m = a > m || a != a ? a : m;  // NaN propagates
      }
    }
    const A mall = Reduce(tmp).Reduce(m, [](A a, A b) { return a > b || a != a ? a : b; });
    if (threadIdx.x == 0) row_m = mall;
    __syncthreads();
    const A mx = row_m;
    A sum = 0;
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) sum += exp(load(buf + i) - mx);
    const A sall = Reduce(tmp).Sum(sum);
    if (threadIdx.x == 0) row_s = sall;
    __syncthreads();
    const A s = row_s;
    const A ls = take_log ? log(s) : A(0);
    V* y = reinterpret_cast<V*>(out + r * len);
    for (int64_t i = threadIdx.x; i < nv; i += kRowThreads) {
      const V v = reinterpret_cast<const V*>(buf)[i];
      V o;
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const A z = load(&v.v[k]) - mx;
        store(&o.v[k], take_log ? z - ls : exp(z) / s);
      }
      y[i] = o;
    }
    __syncthreads();  // buf, tmp, row_m and row_s are reused by the next row
  }
}

// Note [Softmax of short rows]. VEC as softmax_smem_kernel's.
template <typename T, int VEC>
__global__ void __launch_bounds__(kRowThreads)
    softmax_warp_kernel(const T* in, T* out, int64_t rows, int64_t len, bool take_log) {
  using A = typename Acc<T>::type;
  using V = Vec<T, VEC>;
  const int lane = threadIdx.x & 31;
  const int64_t nv = len / VEC;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + (threadIdx.x >> 5); r < rows;
       r += static_cast<int64_t>(gridDim.x) * kWarpsPerBlock) {
    const V* x = reinterpret_cast<const V*>(in + r * len);
    MaxSum<A> p{-INFINITY, A(0)};
    for (int64_t i = lane; i < nv; i += 32) {
      const V v = x[i];
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const A a = load(&v.v[k]);
        if (a > p.m) {
          p.s = (p.s == A(0) ? A(0) : p.s * exp(p.m - a)) + exp(a - a);  // exp(inf - inf): NaN
          p.m = a;
        } else if (!(a == -INFINITY)) {
          p.s += exp(a - p.m);  // NaN for a NaN
        }
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      MaxSum<A> q{__shfl_xor_sync(0xffffffffu, p.m, o), __shfl_xor_sync(0xffffffffu, p.s, o)};
      p = MaxSumOp<A>()(p, q);
    }
    const A ls = take_log ? log(p.s) : A(0);
    V* y = reinterpret_cast<V*>(out + r * len);
    for (int64_t i = lane; i < nv; i += 32) {
      const V v = x[i];
      V o;
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const A z = load(&v.v[k]) - p.m;
        store(&o.v[k], take_log ? z - ls : exp(z) / p.s);
      }
      y[i] = o;
    }
  }
}

// Note [logsumexp rows]. WARP: a row a warp (else a block); VEC as softmax_smem_kernel's.
template <typename T, int VEC, bool WARP>
__global__ void __launch_bounds__(kRowThreads) logsumexp_kernel(const T* in, T* out, int64_t rows, int64_t len) {
  using A = typename Acc<T>::type;
  using V = Vec<T, VEC>;
  using Reduce = cub::BlockReduce<A, kRowThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ A shared;
  constexpr int kRowsPerBlock = WARP ? kWarpsPerBlock : 1;
  const int lane = WARP ? (threadIdx.x & 31) : threadIdx.x;
  const int step = WARP ? 32 : kRowThreads;
  const auto nan_max = [](A a, A b) { return a > b || a != a ? a : b; };
  // the row's result of every lane's partial, in every lane
  const auto all = [&](A v, bool is_max) -> A {
    if constexpr (WARP) {
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        const A w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? nan_max(v, w) : v + w;
      }
      return v;
    } else {
      const A r = is_max ? Reduce(tmp).Reduce(v, nan_max) : Reduce(tmp).Sum(v);
      if (threadIdx.x == 0) shared = r;
      __syncthreads();
      const A b = shared;
      __syncthreads();  // shared and tmp are reused next
      return b;
    }
  };
  const int64_t nv = len / VEC;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(kRowsPerBlock) + (WARP ? threadIdx.x >> 5 : 0); r < rows;
       r += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const V* x = reinterpret_cast<const V*>(in + r * len);
    A m = -INFINITY;
    for (int64_t i = lane; i < nv; i += step) {
      const V v = x[i];
#pragma unroll
      for (int k = 0; k < VEC; ++k) m = nan_max(load(&v.v[k]), m);
    }
    m = all(m, true);
    if (isinf(m)) m = A(0);
    A sum = 0;
    for (int64_t i = lane; i < nv; i += step) {
      const V v = x[i];
#pragma unroll
      for (int k = 0; k < VEC; ++k) sum += exp(load(&v.v[k]) - m);
    }
    sum = all(sum, false);
    if (lane == 0) store(out + r, log(sum) + m);
  }
}

// Note [Softmax over an inner dim]: x is [outer, len, inner], contiguous.
template <typename T>
__global__ void __launch_bounds__(kRowThreads)
    softmax_cols_kernel(const T* in, T* out, int64_t outer, int64_t len, int64_t inner, bool take_log) {
  using A = typename Acc<T>::type;
  const int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(kRowThreads) + threadIdx.x; c < cols;
       c += static_cast<int64_t>(gridDim.x) * kRowThreads) {
    const int64_t o = c / inner, i = c - o * inner;
    const T* x = in + o * len * inner + i;
    A m = -INFINITY, s = 0;
    for (int64_t j = 0; j < len; ++j) {
      const A v = load(x + j * inner);
      if (v > m) {
        s = (s == A(0) ? A(0) : s * exp(m - v)) + exp(v - v);  // exp(inf - inf): NaN
        m = v;
      } else if (!(v == -INFINITY)) {
        s += exp(v - m);  // NaN for a NaN
      }
    }
    const A ls = take_log ? log(s) : A(0);
    T* y = out + o * len * inner + i;
    for (int64_t j = 0; j < len; ++j) {
      const A z = load(x + j * inner) - m;
      store(y + j * inner, take_log ? z - ls : exp(z) / s);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kRowThreads)
    layer_norm_kernel(const T* in, const T* w, const T* b, T* out, int64_t rows, int64_t len, double eps) {
  using A = typename Acc<T>::type;
  using Reduce = cub::BlockReduce<A, kRowThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ A row_mean, row_rstd;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * len;
    A sum = 0;
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) sum += load(x + i);
    A total = Reduce(tmp).Sum(sum);
    if (threadIdx.x == 0) row_mean = total / static_cast<A>(len);
    __syncthreads();
    const A mean = row_mean;
    A sq = 0;
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) {
      A d = load(x + i) - mean;
      sq += d * d;
    }
    A sqt = Reduce(tmp).Sum(sq);
    if (threadIdx.x == 0) row_rstd = A(1) / sqrt(sqt / static_cast<A>(len) + static_cast<A>(eps));
    __syncthreads();
    const A rstd = row_rstd;
    T* y = out + r * len;
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) {
      A v = (load(x + i) - mean) * rstd;
      if (w) v *= load(w + i);
      if (b) v += load(b + i);
      store(y + i, v);
    }
    __syncthreads();
  }
}

// Note [Welford by vectors]. VEC: elements per vector (1 when the rows or the addresses are not
// aligned to whole vectors).
template <typename T, int VEC, bool WARP>
__global__ void __launch_bounds__(kRowThreads)
    var_kernel(const T* in, T* var_out, T* mean_out, int64_t rows, int64_t len, double correction, bool take_sqrt) {
  using A = typename Acc<T>::type;
  using Reduce = cub::BlockReduce<Welford<A>, kRowThreads>;
  using V = Vec<T, VEC>;
  __shared__ typename Reduce::TempStorage tmp;
  constexpr int kRowsPerBlock = WARP ? kWarpsPerBlock : 1;
  const int lane = WARP ? (threadIdx.x & 31) : threadIdx.x;
  const int step = WARP ? 32 : kRowThreads;
  const int64_t nv = len / VEC;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(kRowsPerBlock) + (WARP ? threadIdx.x >> 5 : 0); r < rows;
       r += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const V* x = reinterpret_cast<const V*>(in + r * len);
    Welford<A> p{0, A(0), A(0)};
    for (int64_t i = lane; i < nv; i += step) {
      const V v = x[i];
      A a[VEC], sum = 0;
#pragma unroll
      for (int k = 0; k < VEC; ++k) sum += (a[k] = load(&v.v[k]));
      const A mb = sum / static_cast<A>(VEC);
      A m2b = 0;
#pragma unroll
      for (int k = 0; k < VEC; ++k) m2b += (a[k] - mb) * (a[k] - mb);
      const int64_t n = p.n + VEC;
      const A d = mb - p.mean, fb = static_cast<A>(VEC) / static_cast<A>(n);
      p.m2 += m2b + d * d * static_cast<A>(p.n) * fb;
      p.mean = merged_mean(p.mean, mb, fb);  // Note [Infinite means]
      p.n = n;
    }
    Welford<A> all;
    if constexpr (WARP) {
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        const Welford<A> q{__shfl_xor_sync(0xffffffffu, p.n, o), __shfl_xor_sync(0xffffffffu, p.mean, o),
                           __shfl_xor_sync(0xffffffffu, p.m2, o)};
        p = WelfordOp<A>()(p, q);
      }
      all = p;
    } else {
      all = Reduce(tmp).Reduce(p, WelfordOp<A>());
    }
    if (lane == 0) {
      store(var_out + r, welford_var(all, correction, take_sqrt));
      if (mean_out) store(mean_out + r, all.mean);
    }
    if constexpr (!WARP) __syncthreads();  // tmp is reused by the next row
  }
}

// The widest vector (kVecBytes / sizeof(T) elements, or 1) that divides len and aligns every
// row of base.
template <typename T>
bool whole_vectors(const void* a, const void* b, int64_t len) {
  constexpr int64_t vec = kVecBytes / sizeof(T);
  const auto addr = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b);
  return len % vec == 0 && addr % kVecBytes == 0;
}

// Note [Softmax of short rows]: a warp a row where rows are short, or many: 64 rows of 1000 took
// 1.3x to 1.5x torch's time one warp each (64 warps on the whole GPU), 0.7x a block each.
bool warp_rows(int64_t rows, int64_t len) { return len <= 256 || (len <= kWarpRowMax && rows >= 8192); }

// Whether a block may have `bytes` of dynamic shared memory on the current device (beyond the
// default 48 KiB only through the opt-in limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, less
// the row kernels' static shared memory).
bool smem_fits(int64_t bytes) {
  if (bytes <= kSmemRowBytes) return true;
  int dev = 0, optin = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) return false;
  return bytes + 1024 <= optin;
}

unsigned grid_for(int64_t rows) {
  return static_cast<unsigned>(rows < (1LL << 20) ? rows : (1LL << 20));
}

// The launch of a row kernel templated on <T, VEC, WARP> (logsumexp, var): launch(vec, warp,
// grid) with vec an integral_constant of the elements a load (a kVecBytes vector where `vec`, else
// 1) and warp a bool_constant, a warp a row where warp_rows says (Note [Softmax of short rows]
// holds for these too), else a block a row.
template <typename T, typename F>
void launch_rows(int64_t rows, int64_t len, bool vec, const F& launch) {
  using Vec = std::integral_constant<int, kVecBytes / sizeof(T)>;
  using One = std::integral_constant<int, 1>;
  if (warp_rows(rows, len)) {
    const unsigned grid = grid_for((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    if (vec) launch(Vec{}, std::true_type{}, grid);
    else launch(One{}, std::true_type{}, grid);
  } else {
    if (vec) launch(Vec{}, std::false_type{}, grid_for(rows));
    else launch(One{}, std::false_type{}, grid_for(rows));
  }
}

template <typename F>
void dispatch(DType dtype, const char* op, F f) {
  switch (dtype) {
    case DType::Float32: return f(static_cast<float*>(nullptr));
    case DType::Float64: return f(static_cast<double*>(nullptr));
    case DType::Float16: return f(static_cast<__half*>(nullptr));
    case DType::BFloat16: return f(static_cast<__nv_bfloat16*>(nullptr));
    default: fail(Status::Internal, op, ": no row kernel for ", dtype_short(dtype));
  }
}

}  // namespace

void softmax_rows(const void* in, void* out, int64_t rows, int64_t len, DType dtype, bool log, void* stream) {
  if (rows == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  dispatch(dtype, "softmax", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    constexpr int kVec = kVecBytes / sizeof(T);
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    const bool vec = whole_vectors<T>(in, out, len);
    const int64_t bytes = len * static_cast<int64_t>(sizeof(T));
    if (warp_rows(rows, len)) {
      const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
      const unsigned grid = grid_for(blocks);
      if (vec) softmax_warp_kernel<T, kVec><<<grid, kRowThreads, 0, s>>>(x, y, rows, len, log);
      else softmax_warp_kernel<T, 1><<<grid, kRowThreads, 0, s>>>(x, y, rows, len, log);
    } else if (bytes <= kSmemRowMaxBytes && smem_fits(bytes)) {
      auto kernel = vec ? softmax_smem_kernel<T, kVec> : softmax_smem_kernel<T, 1>;
      if (bytes > kSmemRowBytes)
        cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
                    "softmax kernel attribute");
      kernel<<<grid_for(rows), kRowThreads, bytes, s>>>(x, y, rows, len, log);
    } else {
      softmax_kernel<T><<<grid_for(rows), kRowThreads, 0, s>>>(x, y, rows, len, log);
    }
  });
  cuda::check_launch("softmax kernel", s);
}

void logsumexp_rows(const void* in, void* out, int64_t rows, int64_t len, DType dtype, void* stream) {
  if (rows == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  dispatch(dtype, "logsumexp", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    launch_rows<T>(rows, len, whole_vectors<T>(in, in, len), [&](auto vec, auto warp, unsigned grid) {
      logsumexp_kernel<T, decltype(vec)::value, decltype(warp)::value><<<grid, kRowThreads, 0, s>>>(x, y, rows, len);
    });
  });
  cuda::check_launch("logsumexp kernel", s);
}

bool softmax_cols_ok(int64_t outer, int64_t len, int64_t inner) {
  return len <= 256 && outer * inner >= 32;
}

void softmax_cols(const void* in, void* out, int64_t outer, int64_t len, int64_t inner, DType dtype, bool log,
                  void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const int64_t cols = outer * inner;
  const int64_t blocks = (cols + kRowThreads - 1) / kRowThreads;
  dispatch(dtype, "softmax", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    softmax_cols_kernel<T><<<static_cast<unsigned>(blocks < (1LL << 20) ? blocks : (1LL << 20)), kRowThreads, 0, s>>>(
        static_cast<const T*>(in), static_cast<T*>(out), outer, len, inner, log);
  });
  cuda::check_launch("softmax kernel", s);
}

void layer_norm_rows(const void* in, const void* weight, const void* bias, void* out, int64_t rows, int64_t len,
                     DType dtype, double eps, void* stream) {
  if (rows == 0) return;
  dispatch(dtype, "layer_norm", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    layer_norm_kernel<T><<<grid_for(rows), kRowThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(in), static_cast<const T*>(weight), static_cast<const T*>(bias), static_cast<T*>(out),
        rows, len, eps);
  });
  cuda::check_launch("layer_norm kernel", static_cast<cudaStream_t>(stream));
}

}  // namespace ct::cuda_ops

namespace ct::cuda_ops {

void var_rows(const void* in, void* var_out, void* mean_out, int64_t rows, int64_t len, DType dtype,
              double correction, bool take_sqrt, void* stream) {
  if (rows == 0) return;
  dispatch(dtype, "var", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const auto s = static_cast<cudaStream_t>(stream);
    const T* x = static_cast<const T*>(in);
    T* v = static_cast<T*>(var_out);
    T* m = static_cast<T*>(mean_out);
    launch_rows<T>(rows, len, whole_vectors<T>(in, in, len), [&](auto vec, auto warp, unsigned grid) {
      var_kernel<T, decltype(vec)::value, decltype(warp)::value><<<grid, kRowThreads, 0, s>>>(x, v, m, rows, len,
                                                                                            correction, take_sqrt);
    });
  });
  cuda::check_launch("var kernel", static_cast<cudaStream_t>(stream));
}

}  // namespace ct::cuda_ops
