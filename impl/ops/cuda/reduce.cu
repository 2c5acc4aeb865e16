// Note [CUDA reductions]: inputs arrive laid out as contiguous [O, R] rows (Note [Reduction
// layout]). Pass 1 splits every row into C chunks (C chosen so the GPU has enough blocks) and
// reduces each chunk with cub::BlockReduce into a partial; pass 2 combines the C partials of
// each row in order and finalizes (mean divides by R). The chunking depends only on O and R,
// so results are deterministic run to run. Rows of at most 32 elements are reduced by one
// thread each instead. Accumulators are double for floats, int64 for integers and
// complex<double> for complex, as on the CPU.
#include <cub/block/block_reduce.cuh>
#include <cuda/std/limits>

#include <cmath>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/common.cuh"

namespace ct::cuda_ops {

namespace {

constexpr int kThreads = 256;

template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<float> { using type = double; };
template <> struct AccOf<cfloat> { using type = cdouble; };
template <> struct AccOf<uint8_t> { using type = int64_t; };
template <> struct AccOf<int8_t> { using type = int64_t; };
template <> struct AccOf<int16_t> { using type = int64_t; };
template <> struct AccOf<int32_t> { using type = int64_t; };

template <typename T> __device__ __forceinline__ bool nan_(T v) {
  if constexpr (std::is_floating_point_v<T>) return isnan(v);
  else return false;
}

// Reducer policies: In (element), Acc (partial), Out; init, step, combine, finish.
template <typename T>
struct SumRed {
  using In = T;
  using Acc = typename AccOf<T>::type;
  using Out = T;
  bool mean;
  __device__ Acc init() const { return Acc(0); }
  __device__ Acc step(Acc a, In x, int64_t) const { return a + static_cast<Acc>(x); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ Out finish(Acc a, int64_t n) const {
    if constexpr (std::is_integral_v<T>) return static_cast<Out>(a);
    else return static_cast<Out>(mean ? a / static_cast<Acc>(static_cast<double>(n)) : a);
  }
};

template <typename T>
struct ProdRed {
  using In = T;
  using Acc = typename AccOf<T>::type;
  using Out = T;
  __device__ Acc init() const { return Acc(1); }
  __device__ Acc mul(Acc a, Acc b) const {
    if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else return a * b;
  }
  __device__ Acc step(Acc a, In x, int64_t) const { return mul(a, static_cast<Acc>(x)); }
  __device__ Acc combine(Acc a, Acc b) const { return mul(a, b); }
  __device__ Out finish(Acc a, int64_t) const { return static_cast<Out>(a); }
};

template <typename T>
struct ExtremeRed {  // amax / amin with NaN propagation (bool: any / all)
  using In = T;
  using Acc = T;
  using Out = T;
  bool is_max;
  __device__ Acc init() const {
    if constexpr (std::is_same_v<T, bool>) return !is_max;
    else if constexpr (std::is_floating_point_v<T>) return is_max ? -INFINITY : INFINITY;
    else return is_max ? ::cuda::std::numeric_limits<T>::lowest() : ::cuda::std::numeric_limits<T>::max();
  }
  __device__ Acc combine(Acc a, Acc x) const {
    if constexpr (std::is_same_v<T, bool>) return is_max ? (a || x) : (a && x);
    else {
      if (nan_(a)) return a;
      if (nan_(x)) return x;
      return is_max ? (x > a ? x : a) : (x < a ? x : a);
    }
  }
  __device__ Acc step(Acc a, In x, int64_t) const { return combine(a, x); }
  __device__ Out finish(Acc a, int64_t) const { return a; }
};

template <typename T>
struct ArgPair {
  T v;
  int64_t i;
};

template <typename T>
struct ArgRed {  // first index of the max (min); NaN wins
  using In = T;
  using Acc = ArgPair<T>;
  using Out = ArgPair<T>;
  bool is_max;
  __device__ Acc init() const { return Acc{T(0), -1}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    bool an = nan_(a.v), bn = nan_(b.v);
    if (an || bn) {
      if (an && bn) return a.i <= b.i ? a : b;
      return an ? a : b;
    }
    if (a.v == b.v) return a.i <= b.i ? a : b;
    bool a_better = is_max ? (a.v > b.v) : (a.v < b.v);
    return a_better ? a : b;
  }
  __device__ Acc step(Acc a, In x, int64_t idx) const { return combine(a, Acc{x, idx}); }
  __device__ Out finish(Acc a, int64_t) const { return a; }
};

struct NormRed {  // inputs are |x| as double
  using In = double;
  using Acc = double;
  using Out = double;
  double p;
  __device__ Acc init() const { return isinf(p) ? (p > 0 ? 0.0 : INFINITY) : 0.0; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (isinf(p)) {
      if (isnan(a)) return a;
      if (isnan(b)) return b;
      return p > 0 ? fmax(a, b) : fmin(a, b);
    }
    return a + b;
  }
  __device__ Acc step(Acc a, In x, int64_t) const {
    if (isinf(p)) return combine(a, x);
    if (p == 0) return a + (x != 0 ? 1.0 : 0.0);
    if (p == 1) return a + x;
    if (p == 2) return a + x * x;
    return a + pow(x, p);
  }
  __device__ Out finish(Acc a, int64_t) const {
    if (isinf(p) || p == 0 || p == 1) return a;
    if (p == 2) return sqrt(a);
    return pow(a, 1.0 / p);
  }
};

template <class Red>
struct CombineOp {
  Red red;
  __device__ typename Red::Acc operator()(const typename Red::Acc& a, const typename Red::Acc& b) const {
    return red.combine(a, b);
  }
};

// Pass 1: block (o, c) reduces elements [c * chunk, min(R, (c + 1) * chunk)) of row o.
template <class Red>
__global__ void reduce_pass1(const typename Red::In* in, typename Red::Acc* partial, int64_t R, int64_t C,
                             int64_t chunk, Red red) {
  using Acc = typename Red::Acc;
  using BlockReduce = cub::BlockReduce<Acc, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  int64_t o = blockIdx.x / C, c = blockIdx.x % C;
  int64_t lo = c * chunk, hi = lo + chunk < R ? lo + chunk : R;
  const typename Red::In* row = in + o * R;
  // four independent accumulators keep four loads in flight per thread
  Acc a0 = red.init(), a1 = red.init(), a2 = red.init(), a3 = red.init();
  int64_t i = lo + threadIdx.x;
  for (; i + 3 * kThreads < hi; i += 4 * kThreads) {
    a0 = red.step(a0, row[i], i);
    a1 = red.step(a1, row[i + kThreads], i + kThreads);
    a2 = red.step(a2, row[i + 2 * kThreads], i + 2 * kThreads);
    a3 = red.step(a3, row[i + 3 * kThreads], i + 3 * kThreads);
  }
  for (; i < hi; i += kThreads) a0 = red.step(a0, row[i], i);
  Acc a = red.combine(red.combine(a0, a1), red.combine(a2, a3));
  Acc r = BlockReduce(tmp).Reduce(a, CombineOp<Red>{red});
  if (threadIdx.x == 0) partial[blockIdx.x] = r;
}

// Pass 2: one thread per row combines its C partials in order.
template <class Red>
__global__ void reduce_pass2(const typename Red::Acc* partial, typename Red::Out* out, int64_t O, int64_t C, int64_t R,
                             Red red) {
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < O;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    typename Red::Acc a = red.init();
    for (int64_t c = 0; c < C; ++c) a = red.combine(a, partial[o * C + c]);
    out[o] = red.finish(a, R);
  }
}

// Short rows: one thread per row.
template <class Red>
__global__ void reduce_small_rows(const typename Red::In* in, typename Red::Out* out, int64_t O, int64_t R, Red red) {
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < O;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    typename Red::Acc a = red.init();
    for (int64_t i = 0; i < R; ++i) a = red.step(a, in[o * R + i], i);
    out[o] = red.finish(a, R);
  }
}

template <class Red>
void run(const void* in_v, void* out_v, int64_t O, int64_t R, Red red, cudaStream_t s) {
  using In = typename Red::In;
  using Acc = typename Red::Acc;
  using Out = typename Red::Out;
  const In* in = static_cast<const In*>(in_v);
  Out* out = static_cast<Out*>(out_v);
  if (O == 0) return;
  if (R <= 32) {
    reduce_small_rows<Red><<<blocks_for(O, kThreads), kThreads, 0, s>>>(in, out, O, R, red);
    cuda::check_launch("reduction kernel", s);
    return;
  }
  // Aim for >= ~1024 blocks in total, chunks of at least 4K elements.
  int64_t want = O >= 1024 ? 1 : (1024 + O - 1) / O;
  int64_t C = std::max<int64_t>(1, std::min<int64_t>(want, (R + 4095) / 4096));
  int64_t chunk = (R + C - 1) / C;
  C = (R + chunk - 1) / chunk;
  CT_CHECK(O * C < (1LL << 31), CT_ERR_NOT_SUPPORTED, "reduction too large for one launch: ", O, " rows");
  Acc* partial = nullptr;
  cuda::check(cudaMallocAsync(reinterpret_cast<void**>(&partial), sizeof(Acc) * O * C, s), "cudaMallocAsync (reduction)");
  reduce_pass1<Red><<<static_cast<unsigned>(O * C), kThreads, 0, s>>>(in, partial, R, C, chunk, red);
  cudaError_t launch = cudaGetLastError();
  if (launch == cudaSuccess) reduce_pass2<Red><<<blocks_for(O, kThreads), kThreads, 0, s>>>(partial, out, O, C, R, red);
  (void)cudaFreeAsync(partial, s);
  cuda::check(launch, "reduction kernel");
  cuda::check_launch("reduction kernel", s);
}

template <typename T>
void reduce_t(ct_reduce_op op, const void* in, void* out, int64_t O, int64_t R, cudaStream_t s) {
  if constexpr (std::is_same_v<T, bool>) {
    run(in, out, O, R, ExtremeRed<T>{op == CT_AMAX}, s);  // sum/prod of bool arrive as int64
  } else {
    switch (op) {
      case CT_SUM: run(in, out, O, R, SumRed<T>{false}, s); return;
      case CT_MEAN: run(in, out, O, R, SumRed<T>{true}, s); return;
      case CT_PROD: run(in, out, O, R, ProdRed<T>{}, s); return;
      case CT_AMAX:
      case CT_AMIN:
        if constexpr (!is_cplx_v<T>) {
          run(in, out, O, R, ExtremeRed<T>{op == CT_AMAX}, s);
          return;
        }
        break;
      default:
        break;
    }
    fail(CT_ERR_INTERNAL, "reduction op ", op, " has no CUDA kernel for this dtype");
  }
}

template <typename T>
__global__ void split_pairs(const ArgPair<T>* p, T* v, int64_t* idx, int64_t O) {
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < O;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    v[o] = p[o].v;
    idx[o] = p[o].i;
  }
}

template <typename T>
void arg_t(const void* in, void* values, int64_t* indices, int64_t O, int64_t R, bool is_max, cudaStream_t s) {
  if constexpr (is_cplx_v<T>) {
    fail(CT_ERR_DTYPE, "argmax/argmin do not support complex input");
  } else {
    ArgPair<T>* pairs = nullptr;
    cuda::check(cudaMallocAsync(reinterpret_cast<void**>(&pairs), sizeof(ArgPair<T>) * O, s), "cudaMallocAsync (argmax)");
    run(in, pairs, O, R, ArgRed<T>{is_max}, s);
    split_pairs<T><<<blocks_for(O, kThreads), kThreads, 0, s>>>(pairs, static_cast<T*>(values), indices, O);
    (void)cudaFreeAsync(pairs, s);
    cuda::check_launch("argmax kernel", s);
  }
}

}  // namespace

void reduce_rows(ct_reduce_op op, const void* in, void* out, int64_t O, int64_t R, DType compute, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_CU_DISPATCH_COMPUTE(compute, "reduce", [&] { reduce_t<scalar_t>(op, in, out, O, R, s); });
}

void arg_reduce_rows(const void* in, void* values, int64_t* indices, int64_t O, int64_t R, DType compute, bool is_max,
                     void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_CU_DISPATCH_COMPUTE(compute, "argmax", [&] { arg_t<scalar_t>(in, values, indices, O, R, is_max, s); });
}

void norm_rows(const double* in, double* out, int64_t O, int64_t R, double p, void* stream) {
  run(in, out, O, R, NormRed{p}, static_cast<cudaStream_t>(stream));
}

}  // namespace ct::cuda_ops
