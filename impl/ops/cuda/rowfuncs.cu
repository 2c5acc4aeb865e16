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

// Welford's running (count, mean, sum of squared deviations) and the combination of two
// (Chan et al.); a partial without elements adds nothing.
template <typename A>
struct Welford {
  int64_t n;
  A mean, m2;
};

template <typename A>
struct WelfordOp {
  __device__ __forceinline__ Welford<A> operator()(const Welford<A>& a, const Welford<A>& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const A d = b.mean - a.mean, fb = static_cast<A>(b.n) / static_cast<A>(n);
    return {n, a.mean + d * fb, a.m2 + b.m2 + d * d * static_cast<A>(a.n) * fb};
  }
};

template <typename T>
__global__ void __launch_bounds__(kRowThreads)
    var_kernel(const T* in, T* var_out, T* mean_out, int64_t rows, int64_t len, double correction, bool take_sqrt) {
  using A = typename Acc<T>::type;
  using Reduce = cub::BlockReduce<Welford<A>, kRowThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * len;
    Welford<A> p{0, A(0), A(0)};
    for (int64_t i = threadIdx.x; i < len; i += kRowThreads) {
      const A v = load(x + i);
      p.n += 1;
      const A d = v - p.mean;
      p.mean += d / static_cast<A>(p.n);
      p.m2 += d * (v - p.mean);
    }
    Welford<A> all = Reduce(tmp).Reduce(p, WelfordOp<A>());
    if (threadIdx.x == 0) {
      const double dof = static_cast<double>(len) - correction;
      A v = all.m2 / static_cast<A>(dof > 0 ? dof : 0.0);  // x / 0: inf, 0 / 0: NaN
      store(var_out + r, take_sqrt ? sqrt(v) : v);
      if (mean_out) store(mean_out + r, all.mean);
    }
    __syncthreads();  // tmp is reused by the next row
  }
}

unsigned grid_for(int64_t rows) {
  return static_cast<unsigned>(rows < (1LL << 20) ? rows : (1LL << 20));
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
  dispatch(dtype, "softmax", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    softmax_kernel<T><<<grid_for(rows), kRowThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(in), static_cast<T*>(out), rows, len, log);
  });
  cuda::check_launch("softmax kernel", static_cast<cudaStream_t>(stream));
}

void layer_norm_rows(const void* in, const void* weight, const void* bias, void* out, int64_t rows, int64_t len,
                     DType dtype, double eps, void* stream) {
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
  dispatch(dtype, "var", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    var_kernel<T><<<grid_for(rows), kRowThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(in), static_cast<T*>(var_out), static_cast<T*>(mean_out), rows, len, correction,
        take_sqrt);
  });
  cuda::check_launch("var kernel", static_cast<cudaStream_t>(stream));
}

}  // namespace ct::cuda_ops
