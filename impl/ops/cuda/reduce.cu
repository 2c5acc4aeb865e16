// Note [CUDA reductions]: inputs arrive laid out as contiguous [O, R] rows (Note [Reduction
// layout]), or as [R, O] when the reduced dims lead (Note [Reducing leading dims]). Rows: every
// row is split into C chunks (C chosen so the GPU has enough blocks), each chunk reduced by one
// block (16-byte vector loads, four in flight per thread, cub::BlockReduce) into a partial; the
// last block of a row to finish combines its C partials in order and finalizes (mean divides by
// R), so one kernel does it all, as PyTorch's (partials from the caching allocator, counters
// as Note [Reduction counters]). Columns: the same with a column tile per
// block. The chunking depends only on the shape and alignment, so results are deterministic run
// to run. Rows of at most 32 elements are reduced by one thread each instead. Accumulators are
// double for floats, int64 for integers and complex<double> for complex, as on the CPU.
#include <cub/block/block_reduce.cuh>
#include <cuda/std/limits>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/ew.cuh"
#include "impl/ops/cuda/welford.cuh"

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
// I: the element type read (float16/bfloat16 elements widen to T = float as they are loaded).
// O: the stored result type: T, or the float16/bfloat16 input type itself (the result is
// rounded to T, then to O, as the float result would be when cast afterwards: one kernel less).
template <typename T, typename I = T, typename O = T>
struct SumRed {
  using In = I;
  using Acc = typename AccOf<T>::type;
  using Out = O;
  // The column kernel's per-thread accumulator: float for float16/bfloat16 elements (a thread
  // adds at most a chunk's rows / 16 of them; PyTorch accumulates all of a half sum in float),
  // which keeps that kernel at memory speed; Acc everywhere else.
  using Lane = std::conditional_t<std::is_same_v<I, __half> || std::is_same_v<I, __nv_bfloat16>, float, Acc>;
  bool mean;
  __device__ Acc init() const { return Acc(0); }
  __device__ Acc step(Acc a, In x, int64_t) const { return a + static_cast<Acc>(static_cast<T>(x)); }
  __device__ Lane lane_init() const { return Lane(0); }
  __device__ Lane lane_step(Lane a, In x, int64_t) const { return a + static_cast<Lane>(static_cast<T>(x)); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ Out finish(Acc a, int64_t n) const {
    if constexpr (std::is_integral_v<T>) return static_cast<Out>(a);
    else return static_cast<Out>(static_cast<T>(mean ? a / static_cast<Acc>(static_cast<double>(n)) : a));
  }
};

template <typename T, typename I = T>
struct ProdRed {
  using In = I;
  using Acc = typename AccOf<T>::type;
  using Out = T;
  __device__ Acc init() const { return Acc(1); }
  __device__ Acc mul(Acc a, Acc b) const {
    if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else return a * b;
  }
  __device__ Acc step(Acc a, In x, int64_t) const { return mul(a, static_cast<Acc>(static_cast<T>(x))); }
  __device__ Acc combine(Acc a, Acc b) const { return mul(a, b); }
  __device__ Out finish(Acc a, int64_t) const { return static_cast<Out>(a); }
};

template <typename T, typename I = T>
struct ExtremeRed {  // amax / amin with NaN propagation (bool: any / all)
  using In = I;
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
    else if constexpr (std::is_floating_point_v<T>) {
      // branch-free: a NaN in a is kept; a NaN in x fails the comparison and is taken
      return (nan_(a) || (is_max ? a > x : a < x)) ? a : x;
    } else {
      return is_max ? (x > a ? x : a) : (x < a ? x : a);
    }
  }
  __device__ Acc step(Acc a, In x, int64_t) const { return combine(a, static_cast<T>(x)); }
  __device__ Out finish(Acc a, int64_t) const { return a; }
};

template <typename T>
struct ArgPair {
  T v;
  int64_t i;
};

template <typename T, typename I = T>
struct ArgRed {  // first index of the max (min); NaN wins
  using In = I;
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
  // Each accumulator sees its elements in increasing index order (every kernel here steps that
  // way), so a strictly better value, or the first NaN, replaces it: first occurrence kept.
  __device__ Acc step(Acc a, In x, int64_t idx) const {
    T v = static_cast<T>(x);
    bool take = a.i < 0 || (!nan_(a.v) && (nan_(v) || (is_max ? v > a.v : v < a.v)));
    return take ? Acc{v, idx} : a;
  }
  __device__ Out finish(Acc a, int64_t) const { return a; }
  // Note [Argmax outputs]: the kernels write the values and the indices to their own arrays
  // (values may be null: argmax wants only the indices), so an argmax is one launch, not a
  // reduction into (value, index) pairs and a second kernel splitting them (at 1M elements the
  // second launch made argmax 1.3-1.9x torch's time).
  T* values = nullptr;
  int64_t* indices = nullptr;
  __device__ void store(int64_t o, Out v) const {
    if (values) values[o] = v.v;
    indices[o] = v.i;
  }
};

// Note [Norms in double]: vector_norm accumulates in double whatever the input (|x|^p summed in
// double, then the root), and stores a double that the caller casts to the result dtype. Real
// floating inputs are read in place, I their element type (rows, columns or strided, as sums
// are); complex inputs arrive as their magnitudes, I = double. (Casting every input to double and
// taking |x| first, two more passes over eight bytes an element, made matrix_norm "fro" 3x
// (float64) to 12x (float16) torch's time.)
template <typename I>
struct NormRed {
  using In = I;
  using Acc = double;
  using Out = double;
  using C = std::conditional_t<std::is_same_v<I, __half> || std::is_same_v<I, __nv_bfloat16>, float, I>;
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
  __device__ Acc step(Acc a, In in, int64_t) const {
    const double x = fabs(static_cast<double>(static_cast<C>(in)));
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

// Note [var in place]: var/std over dims that are not the trailing dims of a contiguous tensor
// (those have the row kernels of rowfuncs.cu), or of a transposed, sliced or permuted one, read
// their input where it lies through the engine's rows, columns or strided plans, as norms do:
// Welford's (count, mean, M2) per element, in float (double for float64) as PyTorch's
// WelfordOps, the partials combined by Chan et al.'s formula; var and mean stored in the input's
// dtype (Note [Argmax outputs]'s own store). A contiguous copy first and the row kernel made
// var over dim 1 of a transposed, sliced or permuted tensor 1.15x to 2.4x torch's time.
// A thread's run down a column (the column kernel's Lane): shifted sums instead of Welford's
// running mean, so no division an element: the shift k is the run's first element, then n,
// s = sum(x - k) and ss = sum((x - k)^2); the run becomes (n, k + s / n, ss - s^2 / n) once
// (rounding below 0 clamped to 0). Welford's division an element made var over dim 1 of a transposed
// [8192, 8192] float32 tensor 1.49x torch's time.
template <typename A>
struct ShiftedSums {
  int64_t n;
  A k, s, ss;
  __device__ operator Welford<A>() const {
    if (n == 0) return Welford<A>{0, A(0), A(0)};
    const A m = s / static_cast<A>(n), m2 = ss - s * m;
    return Welford<A>{n, k + m, m2 < A(0) ? A(0) : m2};  // NaN stays NaN
  }
};

template <typename I>
struct VarRed {
  using In = I;
  using A = std::conditional_t<std::is_same_v<I, double>, double, float>;
  using Acc = Welford<A>;
  using Out = Welford<A>;
  I* var_out;
  I* mean_out;  // may be null
  double correction;
  bool take_sqrt;
  __device__ Acc init() const { return Acc{0, A(0), A(0)}; }
  __device__ Acc combine(Acc a, Acc b) const { return WelfordOp<A>()(a, b); }
  __device__ Acc step(Acc a, In in, int64_t) const {
    const A x = static_cast<A>(in);
    const int64_t n = a.n + 1;
    const A d = x - a.mean, mean = merged_mean(a.mean, x, A(1) / static_cast<A>(n));
    return Acc{n, mean, a.m2 + d * (x - mean)};
  }
  using Lane = ShiftedSums<A>;
  __device__ Lane lane_init() const { return Lane{0, A(0), A(0), A(0)}; }
  __device__ Lane lane_step(Lane a, In in, int64_t) const {
    const A x = static_cast<A>(in);
    const A k = a.n == 0 ? x : a.k, d = x - k;
    return Lane{a.n + 1, k, a.s + d, a.ss + d * d};
  }
  __device__ Out finish(Acc a, int64_t) const { return a; }
  __device__ void store(int64_t o, Out w) const {
    var_out[o] = static_cast<I>(welford_var(w, correction, take_sqrt));
    if (mean_out) mean_out[o] = static_cast<I>(w.mean);
  }
};

// The column kernel's per-thread accumulation (Red::Lane where a reducer defines it, else Acc).
template <class Red, class = void> struct LaneOf {
  using type = typename Red::Acc;
  __device__ static type init(const Red& r) { return r.init(); }
  __device__ static type step(const Red& r, type a, typename Red::In x, int64_t i) { return r.step(a, x, i); }
};
template <class Red> struct LaneOf<Red, std::void_t<typename Red::Lane>> {
  using type = typename Red::Lane;
  __device__ static type init(const Red& r) { return r.lane_init(); }
  __device__ static type step(const Red& r, type a, typename Red::In x, int64_t i) { return r.lane_step(a, x, i); }
};

template <class Red>
struct CombineOp {
  Red red;
  __device__ typename Red::Acc operator()(const typename Red::Acc& a, const typename Red::Acc& b) const {
    return red.combine(a, b);
  }
};

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

// Elements per 16-byte vector load (1: loaded one by one).
template <typename T>
struct VecWidth {
  static constexpr int value = sizeof(T) < 16 && 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 1;
};

// Called by every thread of a block once the block's partials are written: whether this block is
// the last of the C blocks counted by *counter to finish. The last block resets the counter
// (Note [Reduction counters]) and then sees every other block's partials.
__device__ bool last_block(unsigned* counter, int64_t C) {
  __shared__ bool last;
  __threadfence();  // this thread's partials are visible before the count says so
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u) == static_cast<unsigned>(C - 1);
    if (last) *counter = 0;  // ready for the next reduction on this stream
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// A value written by another block of the running kernel: read from L2 (ld.cg), not L1, in
// 8- or 4-byte words where the size allows (independent loads, so they overlap), else bytewise.
template <typename T>
__device__ T load_l2(const T* p) {
  T v;
  if constexpr (sizeof(T) % 8 == 0) {
    const unsigned long long* src = reinterpret_cast<const unsigned long long*>(p);
    unsigned long long* dst = reinterpret_cast<unsigned long long*>(&v);
#pragma unroll
    for (size_t i = 0; i < sizeof(T) / 8; ++i) dst[i] = __ldcg(src + i);
  } else if constexpr (sizeof(T) % 4 == 0) {
    const unsigned* src = reinterpret_cast<const unsigned*>(p);
    unsigned* dst = reinterpret_cast<unsigned*>(&v);
#pragma unroll
    for (size_t i = 0; i < sizeof(T) / 4; ++i) dst[i] = __ldcg(src + i);
  } else {
    const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p);
    unsigned char* dst = reinterpret_cast<unsigned char*>(&v);
    for (size_t i = 0; i < sizeof(T); ++i) dst[i] = src[i];
  }
  return v;
}

// out[o] = v, or the reducer's own store when it has one (Note [Argmax outputs]).
template <class Red, class = void>
struct HasStore : std::false_type {};
template <class Red>
struct HasStore<Red, std::void_t<decltype(std::declval<const Red&>().store(int64_t{}, std::declval<typename Red::Out>()))>>
    : std::true_type {};
template <class Red>
__device__ __forceinline__ void store_out(const Red& red, typename Red::Out* out, int64_t o, typename Red::Out v) {
  if constexpr (HasStore<Red>::value) red.store(o, v);
  else out[o] = v;
}

// The end of a row block: the block's threads' accumulators combined (cub::BlockReduce); with
// one chunk per row the result is final, else it is partial[o, c] and the last block of row o to
// finish combines the row's C partials in index order and writes out[o].
template <class Red>
__device__ void row_epilogue(typename Red::Acc a, typename Red::Acc* partial, unsigned* done, typename Red::Out* out,
                             int64_t o, int64_t R, int64_t C, const Red& red) {
  using Acc = typename Red::Acc;
  using BlockReduce = cub::BlockReduce<Acc, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  Acc r = BlockReduce(tmp).Reduce(a, CombineOp<Red>{red});
  if (C == 1) {
    if (threadIdx.x == 0) store_out(red, out, o, red.finish(r, R));
    return;
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = r;
  if (!last_block(&done[o], C)) return;
  Acc t = red.init();
  for (int64_t k = threadIdx.x; k < C; k += kThreads) t = red.combine(t, load_l2(&partial[o * C + k]));
  __syncthreads();  // tmp is reused
  Acc total = BlockReduce(tmp).Reduce(t, CombineOp<Red>{red});
  if (threadIdx.x == 0) store_out(red, out, o, red.finish(total, R));
}

// Block (o, c) reduces elements [c * chunk, min(R, (c + 1) * chunk)) of row o into partial[o, c].
// Where the chunk starts 16-byte aligned, each thread loads 16-byte vectors, four in flight (64
// bytes; enough to keep HBM busy), then the rest one by one. The last block of row o to finish
// (a counter per row, zeroed before the launch) combines the row's C partials in index order and
// writes out[o]: one kernel, as PyTorch's. Which element goes to which accumulator and the
// combining order depend only on O, R and the alignment, so the result is the same run to run.
template <class Red>
__global__ void reduce_rows_kernel(const typename Red::In* in, typename Red::Acc* partial, unsigned* done,
                                   typename Red::Out* out, int64_t R, int64_t C, int64_t chunk, Red red) {
  using In = typename Red::In;
  using Acc = typename Red::Acc;
  int64_t o = blockIdx.x / C, c = blockIdx.x % C;
  int64_t lo = c * chunk, hi = lo + chunk < R ? lo + chunk : R;
  const In* row = in + o * R;
  Acc a0 = red.init(), a1 = red.init(), a2 = red.init(), a3 = red.init();
  int64_t i = lo + threadIdx.x;
  constexpr int kV = VecWidth<In>::value;
  if constexpr (kV > 1) {
    if (reinterpret_cast<uintptr_t>(row + lo) % 16 == 0) {
      using V = Vec<In, kV>;
      const V* vp = reinterpret_cast<const V*>(row + lo);
      int64_t nv = (hi - lo) / kV, j = threadIdx.x;
      for (; j + 3 * kThreads < nv; j += 4 * kThreads) {
        V v0 = vp[j], v1 = vp[j + kThreads], v2 = vp[j + 2 * kThreads], v3 = vp[j + 3 * kThreads];
        int64_t b = lo + j * kV;
#pragma unroll
        for (int k = 0; k < kV; ++k) {
          a0 = red.step(a0, v0.v[k], b + k);
          a1 = red.step(a1, v1.v[k], b + kThreads * kV + k);
          a2 = red.step(a2, v2.v[k], b + 2 * kThreads * kV + k);
          a3 = red.step(a3, v3.v[k], b + 3 * kThreads * kV + k);
        }
      }
      for (; j < nv; j += kThreads) {
        V v = vp[j];
#pragma unroll
        for (int k = 0; k < kV; ++k) a0 = red.step(a0, v.v[k], lo + j * kV + k);
      }
      i = lo + nv * kV + threadIdx.x;
    }
  }
  for (; i + 3 * kThreads < hi; i += 4 * kThreads) {
    a0 = red.step(a0, row[i], i);
    a1 = red.step(a1, row[i + kThreads], i + kThreads);
    a2 = red.step(a2, row[i + 2 * kThreads], i + 2 * kThreads);
    a3 = red.step(a3, row[i + 3 * kThreads], i + 3 * kThreads);
  }
  for (; i < hi; i += kThreads) a0 = red.step(a0, row[i], i);
  row_epilogue(red.combine(red.combine(a0, a1), red.combine(a2, a3)), partial, done, out, o, R, C, red);
}

// Reductions of any strided layout whose reduced dims are read along their smallest stride
// (a stride-2 slice, or every dim of a non-dense tensor): the rows kernel's chunking and
// epilogue, with each row's start from its kept index and each element's offset from its index
// in the row by multiply-shift division over the reduced dims (innermost first); kStridedUnroll
// loads in flight per thread.
struct StridedRows {
  int32_t kept_ndim = 0, red_ndim = 0;
  int64_t kept_sizes[kMaxDims] = {}, kept_strides[kMaxDims] = {};  // elements, outermost first
  IntDiv red_sizes[kMaxDims];                                      // innermost first
  int64_t red_strides[kMaxDims] = {};                              // elements, innermost first
  __device__ __forceinline__ int64_t row_start(int64_t o) const {
    int64_t off = 0;
    for (int d = kept_ndim - 1; d >= 0; --d) {
      off += (o % kept_sizes[d]) * kept_strides[d];
      o /= kept_sizes[d];
    }
    return off;
  }
  bool small = false;  // every offset below 2^31: 32-bit arithmetic
  bool pairs = false;  // one reduced dim of stride 2: Note [Stride-2 reductions]
  int64_t O = 1, R = 1;  // rows (kept elements) and their length (reduced elements)
  int64_t rows() const { return O; }
  int64_t len() const { return R; }
  __device__ __forceinline__ int64_t offset(uint32_t i) const {
    if (small) {
      uint32_t off = 0;
#pragma unroll
      for (int d = 0; d < kMaxDims; ++d) {
        if (d == red_ndim) break;
        uint32_t q = red_sizes[d].div(i);
        off += (i - q * red_sizes[d].d) * static_cast<uint32_t>(red_strides[d]);
        i = q;
      }
      return off;
    }
    int64_t off = 0;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == red_ndim) break;
      uint32_t q = red_sizes[d].div(i);
      off += static_cast<int64_t>(i - q * red_sizes[d].d) * red_strides[d];
      i = q;
    }
    return off;
  }
};

constexpr int kStridedUnroll = 8;

template <class Red>
__global__ void reduce_strided_kernel(const typename Red::In* in, typename Red::Acc* partial, unsigned* done,
                                      typename Red::Out* out, int64_t R, int64_t C, int64_t chunk, StridedRows g, Red red) {
  using In = typename Red::In;
  using Acc = typename Red::Acc;
  int64_t o = blockIdx.x / C, c = blockIdx.x % C;
  int64_t lo = c * chunk, hi = lo + chunk < R ? lo + chunk : R;
  const In* row = in + g.row_start(o);
  // Note [Stride-2 reductions]: a row of stride 2 (x[:, ::2], the real parts of a complex view)
  // fills every sector it touches, so reading it element by element moves the bytes of a dense
  // row with twice the load instructions per byte: the strided loop reached 2.3 TB/s of traffic
  // for float16 against torch's 2.8 (sum of a stride-2 slice 1.25x torch's time). Here the
  // dense span is read as 16-byte vectors, four in flight (eight for 4- and 8-byte elements:
  // sum(dim=1) of a float32 slice 1.063x -> 1.012x torch's time), and every other element is used
  // (1.00x); a vector never reads past the row's last element, which is taken one by one with
  // the rest.
  constexpr int kH = VecWidth<In>::value / 2;  // useful elements per vector
  if constexpr (kH >= 1) {
    if (g.pairs && lo % kH == 0 && reinterpret_cast<uintptr_t>(row) % 16 == 0) {
      using V = Vec<In, 2 * kH>;
      const V* vp = reinterpret_cast<const V*>(row);
      const int64_t vhi = (hi - 1) / kH;  // vectors [lo / kH, vhi) end before element hi - 1
      // kU vectors in flight per thread: 8 for float32/float64 (two or one useful elements per
      // vector), else 4
      constexpr int kU = kH <= 2 ? 8 : 4;
      Acc a[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) a[u] = red.init();
      int64_t v = lo / kH + threadIdx.x;
      for (; v + (kU - 1) * kThreads < vhi; v += kU * kThreads) {
        V x[kU];
#pragma unroll
        for (int u = 0; u < kU; ++u) x[u] = vp[v + u * kThreads];
#pragma unroll
        for (int k = 0; k < kH; ++k)
#pragma unroll
          for (int u = 0; u < kU; ++u) a[u] = red.step(a[u], x[u].v[2 * k], (v + u * kThreads) * kH + k);
      }
      for (; v < vhi; v += kThreads) {
        V x = vp[v];
#pragma unroll
        for (int k = 0; k < kH; ++k) a[0] = red.step(a[0], x.v[2 * k], v * kH + k);
      }
      for (int64_t j = (vhi * kH > lo ? vhi * kH : lo) + threadIdx.x; j < hi; j += kThreads) a[0] = red.step(a[0], row[2 * j], j);
#pragma unroll
      for (int w = kU / 2; w >= 1; w /= 2)
#pragma unroll
        for (int u = 0; u < w; ++u) a[u] = red.combine(a[u], a[u + w]);
      row_epilogue(a[0], partial, done, out, o, R, C, red);
      return;
    }
  }
  Acc acc[kStridedUnroll];
#pragma unroll
  for (int u = 0; u < kStridedUnroll; ++u) acc[u] = red.init();
  for (int64_t i = lo + threadIdx.x; i < hi; i += kStridedUnroll * kThreads) {
    In v[kStridedUnroll];
#pragma unroll
    for (int u = 0; u < kStridedUnroll; ++u) {
      int64_t j = i + u * kThreads;
      if (j < hi) v[u] = row[g.offset(static_cast<uint32_t>(j))];
    }
#pragma unroll
    for (int u = 0; u < kStridedUnroll; ++u) {
      int64_t j = i + u * kThreads;
      if (j < hi) acc[u] = red.step(acc[u], v[u], j);
    }
  }
#pragma unroll
  for (int w = kStridedUnroll / 2; w >= 1; w /= 2)
#pragma unroll
    for (int u = 0; u < w; ++u) acc[u] = red.combine(acc[u], acc[u + w]);
  row_epilogue(acc[0], partial, done, out, o, R, C, red);
}

// Reduction over the leading dim of a contiguous [R, O] tensor (sum(dim=0) of a matrix), without
// the transposing copy. Block (x, c) covers kColTile adjacent columns and rows [c * chunk, ...):
// its threads form TY row lanes of TX = kColTile / V column lanes (V columns per thread, loaded as
// one vector when V > 1, so a row of the tile is one 256-byte read), eight rows in flight per
// thread; the row lanes are combined in order through shared memory. The last block of column
// tile x to finish combines the C chunk partials of its columns in order (eight loads at a time),
// as the rows kernel does. Many small tiles keep enough blocks in flight without long combines.
// Columns per tile: 256 bytes of vectorized input per row (64 floats, 128 halves), else 64.
template <typename In, int V>
__host__ __device__ constexpr int col_tile() { return V > 1 ? static_cast<int>(256 / sizeof(In)) : 64; }

template <class Red, int V>
__global__ void reduce_cols_kernel(const typename Red::In* in, typename Red::Acc* partial, unsigned* done,
                                   typename Red::Out* out, int64_t R, int64_t O, int64_t C, int64_t chunk, Red red) {
  using In = typename Red::In;
  using Acc = typename Red::Acc;
  constexpr int kColTile = col_tile<In, V>();
  constexpr int TX = kColTile / V, TY = kThreads / TX;
  __shared__ Acc lanes[TY * kColTile];
  int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  int64_t o0 = static_cast<int64_t>(blockIdx.x) * kColTile + tx * V;
  int64_t c = blockIdx.y, lo = c * chunk, hi = lo + chunk < R ? lo + chunk : R;
  bool active = o0 < O;  // O % V == 0 when V > 1, so a vector is all in or all out
  using L = LaneOf<Red>;
  typename L::type acc[V];
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = L::init(red);
  if (active) {
    auto row = [&](int64_t r, In (&v)[V]) {
      if constexpr (V > 1) {
        Vec<In, V> w = *reinterpret_cast<const Vec<In, V>*>(in + r * O + o0);
#pragma unroll
        for (int k = 0; k < V; ++k) v[k] = w.v[k];
      } else {
        v[0] = in[r * O + o0];
      }
    };
    int64_t r = lo + ty;
    for (; r + 7 * TY < hi; r += 8 * TY) {
      In v[8][V];
#pragma unroll
      for (int j = 0; j < 8; ++j) row(r + j * TY, v[j]);
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k] = L::step(red, acc[k], v[j][k], r + j * TY);
    }
    for (; r < hi; r += TY) {
      In v[V];
      row(r, v);
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] = L::step(red, acc[k], v[k], r);
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) lanes[ty * kColTile + tx * V + k] = static_cast<Acc>(acc[k]);
  __syncthreads();
  // row lane 0 combines the TY lanes of its columns in order
  if (ty == 0 && active) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      Acc t = lanes[tx * V + k];
      for (int y = 1; y < TY; ++y) t = red.combine(t, lanes[y * kColTile + tx * V + k]);
      if (C == 1) store_out(red, out, o0 + k, red.finish(t, R));
      else partial[c * O + o0 + k] = t;
    }
  }
  if (C == 1 || !last_block(&done[blockIdx.x], C) || ty != 0 || !active) return;
  // combine in order, eight partials of each column loaded at a time (one round trip each)
  Acc t[V];
#pragma unroll
  for (int k = 0; k < V; ++k) t[k] = red.init();
  for (int64_t j0 = 0; j0 < C; j0 += 8) {
    Acc p[8][V];
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) p[j][k] = j0 + j < C ? load_l2(&partial[(j0 + j) * O + o0 + k]) : red.init();
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (j0 + j < C) t[k] = red.combine(t[k], p[j][k]);
  }
#pragma unroll
  for (int k = 0; k < V; ++k) store_out(red, out, o0 + k, red.finish(t[k], R));
}

// Short rows: one thread per row.
template <class Red>
__global__ void reduce_small_rows(const typename Red::In* in, typename Red::Out* out, int64_t O, int64_t R, Red red) {
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < O;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    typename Red::Acc a = red.init();
    for (int64_t i = 0; i < R; ++i) a = red.step(a, in[o * R + i], i);
    store_out(red, out, o, red.finish(a, R));
  }
}

// Note [Reduction counters]: the last-block-finishes counters must be 0 when a reduction
// starts. Instead of a memset before every launch (one more operation on the stream, about 1%
// of a 256 MiB sum), each (device, stream) has one buffer of kMaxCounters counters, zeroed when
// it is made; the block that finishes a row (tile) sets its counter back to 0. Reductions on one
// stream run one after another, so they never share a counter at once. A reduction needs
// counters only when rows (tiles) are split into chunks, which happens only for fewer than 1024
// rows (tiles). The buffers (4 KiB per stream that ever ran a split reduction) are returned at exit.
constexpr int64_t kMaxCounters = 1024;

unsigned* stream_counters(cudaStream_t s) {
  static std::mutex mu;
  static auto* buffers = new std::map<std::pair<int, cudaStream_t>, unsigned*>();  // never destroyed
  int device = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> g(mu);
  unsigned*& b = (*buffers)[{device, s}];
  if (!b) {
    void* p = nullptr;
    cuda::check(cudaMalloc(&p, kMaxCounters * 4), "cudaMalloc (reduction counters)");
    cudaError_t e = cudaMemsetAsync(p, 0, kMaxCounters * 4, s);
    if (e != cudaSuccess) {
      (void)cudaFree(p);
      cuda::check(e, "cudaMemsetAsync (reduction counters)");
    }
    b = static_cast<unsigned*>(p);
    static std::once_flag once;
    std::call_once(once, [] {
      // Returned at exit (before the CUDA runtime's own teardown, registered earlier), so leak
      // checkers (compute-sanitizer --leak-check) see every allocation freed.
      std::atexit([] {
        std::lock_guard<std::mutex> g(mu);
        for (auto& kv : *buffers) (void)cudaFree(kv.second);
        buffers->clear();
      });
    });
  }
  return b;
}

// The partials of one reduction, from the caller's scratch (the caching allocator on the launch's
// stream, released when the op returns, which stream-ordered reuse makes safe), and its counters.
template <typename Acc>
struct Scratch {
  Acc* partial = nullptr;
  unsigned* done = nullptr;
  Scratch(int64_t n_partial, int64_t n_done, ScratchFn& get, cudaStream_t s) {
    if (n_partial == 0) return;
    CT_CHECK(n_done <= kMaxCounters, Status::Internal, "reduction needs ", n_done, " counters");
    partial = static_cast<Acc*>(get(n_partial * static_cast<int64_t>(sizeof(Acc))));
    done = stream_counters(s);
  }
};

// Note [Reduction block sizes]: a reduction block has fixed costs (its block reduce, its
// partial, the last block's combine), so blocks are made as large as the GPU's occupancy allows:
// at least kMinBlocks blocks in all (about four per SM), else at least 256 KiB of input each.
// (2048 blocks of a float16 column sum, 64 KiB each, ran at 1.4x torch's time; 576 blocks of
// 256 KiB at 1.0x.)
constexpr int64_t kMinBlocks = 512;
constexpr int64_t kBlockBytes = int64_t{256} << 10;

// Chunks per row (column tile) for `units` rows (tiles) of `bytes` bytes each: enough for
// kMinBlocks blocks, else 256 KiB per chunk, at most `most`.
int64_t chunks_for(int64_t units, int64_t bytes, int64_t most) {
  const int64_t for_blocks = (kMinBlocks + units - 1) / units;
  return std::max<int64_t>(1, std::min<int64_t>(most, std::max<int64_t>(for_blocks, bytes / kBlockBytes)));
}

// How the rows kernels split O rows of R elements of esize bytes: C chunks of `chunk` elements
// per row (Note [Reduction block sizes]), chunks of at least 4K elements, at most 1024 blocks'
// worth per row when O is small.
std::pair<int64_t, int64_t> row_chunks(int64_t O, int64_t R, int64_t esize) {
  int64_t want = O >= 1024 ? 1 : (1024 + O - 1) / O;
  int64_t C = std::min<int64_t>(chunks_for(O, R * esize, want), std::max<int64_t>(1, (R + 4095) / 4096));
  int64_t chunk = (R + C - 1) / C;
  C = (R + chunk - 1) / chunk;
  CT_CHECK(O * C < (1LL << 31), Status::NotSupported, "reduction too large for one launch: ", O, " rows");
  return {C, chunk};
}

// Note [Whole waves]: Note [Reduction block sizes] asks for 1024 chunks of a single row (a full
// reduction), one wave where 8 blocks fit per SM (132 SMs: 1056). Kernels with more registers
// fit fewer -- argmax's (value, index) accumulators: 6 per SM, 792 -- and 1024 blocks then ran
// as one full wave and a second of 232 blocks, the GPU a quarter idle for the last quarter
// (argmax over 64M floats at 1.18x torch's time). So when the row chunks exceed what is resident
// at once they are cut to whole waves of the kernel's own occupancy, chunk sizes kept multiples
// of 64 elements so each chunk starts on a 16-byte vector.
template <class Red>
int64_t rows_resident() {
  static const int per_sm = [] {
    int n = 0;
    cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, reduce_rows_kernel<Red>, kThreads, 0),
                "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return n > 0 ? n : 1;
  }();
  return static_cast<int64_t>(per_sm) * cuda::multiprocessor_count();
}

void fit_waves(int64_t O, int64_t R, int64_t resident, int64_t& C, int64_t& chunk) {
  if (C <= 1 || O * C <= resident) return;
  const int64_t want = std::max<int64_t>(1, (O * C / resident) * resident / O);
  chunk = ((R + want - 1) / want + 63) / 64 * 64;
  C = (R + chunk - 1) / chunk;
}

template <class Red>
void run(const void* in_v, void* out_v, int64_t O, int64_t R, Red red, ScratchFn& get, cudaStream_t s) {
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
  auto [C, chunk] = row_chunks(O, R, static_cast<int64_t>(sizeof(typename Red::In)));
  fit_waves(O, R, rows_resident<Red>(), C, chunk);
  Scratch<Acc> sc(C > 1 ? O * C : 0, C > 1 ? O : 0, get, s);
  reduce_rows_kernel<Red><<<static_cast<unsigned>(O * C), kThreads, 0, s>>>(in, sc.partial, sc.done, out, R, C, chunk, red);
  cuda::check_launch("reduction kernel", s);
}

template <class Red>
void run_cols(const void* in_v, void* out_v, int64_t R, int64_t O, Red red, ScratchFn& get, cudaStream_t s) {
  using Acc = typename Red::Acc;
  const typename Red::In* in = static_cast<const typename Red::In*>(in_v);
  auto* out = static_cast<typename Red::Out*>(out_v);
  if (O == 0) return;
  // V columns per thread when every row starts 16-byte aligned; tiles of col_tile columns; then
  // chunks of rows as Note [Reduction block sizes] says, of at least 64 rows, at most 64 of them
  // (the last block of a tile combines them).
  // (at most 4 columns per thread for argmax: its (value, index) accumulators are large)
  constexpr int kW = VecWidth<typename Red::In>::value;
  constexpr int kV = sizeof(Acc) > 8 && kW > 4 ? 4 : kW;
  bool vec = kV > 1 && O % kV == 0 && reinterpret_cast<uintptr_t>(in) % (kV * sizeof(typename Red::In)) == 0;
  const int64_t tile = vec ? col_tile<typename Red::In, kV>() : col_tile<typename Red::In, 1>();
  int64_t tiles = (O + tile - 1) / tile;
  const int64_t tile_bytes = R * tile * static_cast<int64_t>(sizeof(typename Red::In));
  int64_t C = std::min<int64_t>(chunks_for(tiles, tile_bytes, 64), std::max<int64_t>(1, (R + 63) / 64));
  int64_t chunk = (R + C - 1) / C;
  C = std::max<int64_t>(1, (R + chunk - 1) / chunk);
  CT_CHECK(tiles < (1LL << 31) && C <= 65535, Status::NotSupported, "reduction too large for one launch: ", O, " columns");
  Scratch<Acc> sc(C > 1 ? O * C : 0, C > 1 ? tiles : 0, get, s);
  dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(C));
  if (vec) reduce_cols_kernel<Red, kV><<<grid, kThreads, 0, s>>>(in, sc.partial, sc.done, out, R, O, C, chunk, red);
  else reduce_cols_kernel<Red, 1><<<grid, kThreads, 0, s>>>(in, sc.partial, sc.done, out, R, O, C, chunk, red);
  cuda::check_launch("reduction kernel", s);
}

// Calls f with the reducer of `op` for elements of type T. bool arrives only for amax/amin (any /
// all): its sums and products arrive as int64.
template <typename T, typename I = T, class F>
void with_reducer(ReduceOp op, F f) {
  if constexpr (std::is_same_v<T, bool>) {
    f(ExtremeRed<T, I>{op == ReduceOp::Amax});
  } else {
    switch (op) {
      case ReduceOp::Sum: f(SumRed<T, I>{false}); return;
      case ReduceOp::Mean: f(SumRed<T, I>{true}); return;
      case ReduceOp::Prod: f(ProdRed<T, I>{}); return;
      case ReduceOp::Amax:
      case ReduceOp::Amin:
        if constexpr (!is_complex_v<T>) {
          f(ExtremeRed<T, I>{op == ReduceOp::Amax});
          return;
        }
        break;
      default:
        break;
    }
    fail(Status::Internal, "reduction op ", op, " has no CUDA kernel for this dtype");
  }
}

// Note [Short strided rows]: rows of a few elements (R <= 32) of a strided layout (sum(dim=-1)
// of x[..., ::2] with a short last dim, the real parts of a small complex view) get a thread per
// row, not a block of 256 threads of which all but R would idle. Threads walk the kept dims in
// the order of their input strides (the smallest fastest), so a warp's loads are adjacent where
// the input allows; the OffsetCalc gives each thread its row's start and its output index
// together. (Not measured against torch yet: the benchmark's short rows, sum over dim 1 of a
// permuted tensor, are dense and take the columns kernel.)
constexpr int kShortRow = 32;

// oc: the kept dims in thread order; off[0] is the output index, off[1] the row's first element.
template <class Red>
__global__ void reduce_short_strided(const typename Red::In* in, typename Red::Out* out, int64_t O, int64_t R,
                                     OffsetCalc<2> oc, StridedRows g, Red red) {
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < O;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t off[2];
    oc.get(static_cast<uint32_t>(t), off);
    const typename Red::In* row = in + off[1];
    typename Red::Acc a = red.init();
    for (int64_t j = 0; j < R; ++j) a = red.step(a, row[g.offset(static_cast<uint32_t>(j))], j);
    store_out(red, out, off[0], red.finish(a, R));
  }
}

template <class Red>
void run_strided(const void* in_v, void* out_v, int64_t O, int64_t R, const StridedRows& g, Red red, ScratchFn& get,
                 cudaStream_t s) {
  using Acc = typename Red::Acc;
  if (O == 0) return;
  int64_t kept_span = 0;  // elements
  for (int d = 0; d < g.kept_ndim; ++d) kept_span += (g.kept_sizes[d] - 1) * g.kept_strides[d];
  if (R <= kShortRow && O < (int64_t{1} << 31) && kept_span < (int64_t{1} << 31)) {  // Note [Short strided rows]
    int order[kMaxDims];
    for (int d = 0; d < g.kept_ndim; ++d) order[d] = d;
    // innermost first: by increasing input stride, ties by the logical order (later first)
    std::sort(order, order + g.kept_ndim, [&](int a, int b) {
      return g.kept_strides[a] != g.kept_strides[b] ? g.kept_strides[a] < g.kept_strides[b] : a > b;
    });
    int64_t out_stride[kMaxDims], acc = 1;
    for (int d = g.kept_ndim - 1; d >= 0; --d) out_stride[d] = acc, acc *= g.kept_sizes[d];
    OffsetCalc<2> oc;  // in elements: output index, input offset
    oc.ndim = g.kept_ndim;
    for (int j = 0; j < g.kept_ndim; ++j) {
      oc.size[j] = IntDiv(static_cast<uint32_t>(g.kept_sizes[order[j]]));
      oc.stride[j][0] = static_cast<uint32_t>(out_stride[order[j]]);
      oc.stride[j][1] = static_cast<uint32_t>(g.kept_strides[order[j]]);
    }
    reduce_short_strided<Red><<<blocks_for(O, kThreads), kThreads, 0, s>>>(
        static_cast<const typename Red::In*>(in_v), static_cast<typename Red::Out*>(out_v), O, R, oc, g, red);
    cuda::check_launch("reduction kernel", s);
    return;
  }
  auto [C, chunk] = row_chunks(O, R, static_cast<int64_t>(sizeof(typename Red::In)));
  StridedRows gp = g;
  gp.pairs = g.red_ndim == 1 && g.red_strides[0] == 2;
  if (gp.pairs && C > 1) {  // chunks start on whole vectors (Note [Stride-2 reductions])
    chunk = (chunk + 15) / 16 * 16;
    C = (R + chunk - 1) / chunk;
  }
  Scratch<Acc> sc(C > 1 ? O * C : 0, C > 1 ? O : 0, get, s);
  reduce_strided_kernel<Red><<<static_cast<unsigned>(O * C), kThreads, 0, s>>>(
      static_cast<const typename Red::In*>(in_v), sc.partial, sc.done, static_cast<typename Red::Out*>(out_v), R, C, chunk, gp, red);
  cuda::check_launch("reduction kernel", s);
}

template <typename T, typename I = T>
void arg_t(const void* in, void* values, int64_t* indices, int64_t O, int64_t R, bool is_max, bool cols, ScratchFn& get,
           cudaStream_t s) {
  if constexpr (is_complex_v<T>) {
    fail(Status::DType, "argmax/argmin do not support complex input");
  } else {
    ArgRed<T, I> red{is_max};
    red.values = static_cast<T*>(values);  // may be null (Note [Argmax outputs])
    red.indices = indices;
    if (!cols) {
      run(in, static_cast<ArgPair<T>*>(nullptr), O, R, red, get, s);
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {  // reduce_cols_supported
      run_cols(in, static_cast<ArgPair<T>*>(nullptr), R, O, red, get, s);
    } else {
      fail(Status::Internal, "arg_reduce_rows: no column kernel for this dtype");
    }
  }
}


// Calls f with the reducer of op for input in_dtype, compute dtype and stored dtype out_dtype
// (compute, or the float16/bfloat16 input dtype for sum and mean).
template <class F>
void with_input_reducer(ReduceOp op, DType compute, DType in_dtype, DType out_dtype, F f) {
  const bool direct = out_dtype == in_dtype && out_dtype != compute;
  CT_CHECK(!direct || op == ReduceOp::Sum || op == ReduceOp::Mean, Status::Internal, "reduction op ", op, " cannot store dtype ", static_cast<int>(out_dtype));
  if (in_dtype == DType::Float16) {
    if (direct) f(SumRed<float, __half, __half>{op == ReduceOp::Mean});
    else with_reducer<float, __half>(op, f);
  } else if (in_dtype == DType::BFloat16) {
    if (direct) f(SumRed<float, __nv_bfloat16, __nv_bfloat16>{op == ReduceOp::Mean});
    else with_reducer<float, __nv_bfloat16>(op, f);
  } else {
    CT_CU_DISPATCH_COMPUTE(compute, "reduce", [&] { with_reducer<scalar_t>(op, f); });
  }
}

}  // namespace

void reduce_rows(ReduceOp op, const void* in, void* out, int64_t O, int64_t R, DType compute, DType in_dtype,
                 ScratchFn& get, void* stream, DType out_dtype) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  with_input_reducer(op, compute, in_dtype, out_dtype, [&](auto red) { run(in, out, O, R, red, get, s); });
}

void reduce_cols(ReduceOp op, const void* in, void* out, int64_t R, int64_t O, DType compute, DType in_dtype,
                 ScratchFn& get, void* stream, DType out_dtype) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  // floating dtypes only (reduce_cols_supported): the others take the copying path, which keeps
  // the template instantiations (and nvcc's time) in check
  CT_CHECK(reduce_cols_supported(compute), Status::Internal, "reduce_cols: unsupported compute dtype");
  auto cols = [&](auto red) { run_cols(in, out, R, O, red, get, s); };
  if (in_dtype == DType::Float16 || in_dtype == DType::BFloat16) with_input_reducer(op, compute, in_dtype, out_dtype, cols);
  else if (compute == DType::Float32) with_reducer<float>(op, cols);
  else with_reducer<double>(op, cols);
}

// The kernels' view of a strided reduction (its kept and reduced dims).
StridedRows strided_rows(const StridedReduction& r) {
  StridedRows g;
  g.kept_ndim = r.kept_ndim;
  g.red_ndim = r.red_ndim;
  int64_t O = 1, R = 1;
  for (int d = 0; d < r.kept_ndim; ++d) {
    g.kept_sizes[d] = r.kept_sizes[d];
    g.kept_strides[d] = r.kept_strides[d];
    O *= r.kept_sizes[d];
  }
  for (int d = 0; d < r.red_ndim; ++d) {
    g.red_sizes[d] = IntDiv(static_cast<uint32_t>(r.red_sizes[d]));
    g.red_strides[d] = r.red_strides[d];
    R *= r.red_sizes[d];
  }
  CT_CHECK(R < (int64_t{1} << 31), Status::Internal, "reduce_strided: rows of ", R, " elements");
  int64_t span = 0;
  for (int d = 0; d < r.red_ndim; ++d) span += (r.red_sizes[d] - 1) * r.red_strides[d];
  g.small = span < (int64_t{1} << 31);
  g.O = O;
  g.R = R;
  return g;
}

void reduce_strided(ReduceOp op, const void* in, void* out, const StridedReduction& r, DType compute, DType in_dtype,
                    ScratchFn& get, void* stream, DType out_dtype) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  StridedRows g = strided_rows(r);
  with_input_reducer(op, compute, in_dtype, out_dtype,
                     [&](auto red) { run_strided(in, out, g.rows(), g.len(), g, red, get, s); });
}

void arg_reduce_rows(const void* in, void* values, int64_t* indices, int64_t O, int64_t R, DType compute,
                     DType in_dtype, bool is_max, ScratchFn& get, void* stream, bool cols) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (in_dtype == DType::Float16) arg_t<float, __half>(in, values, indices, O, R, is_max, cols, get, s);
  else if (in_dtype == DType::BFloat16) arg_t<float, __nv_bfloat16>(in, values, indices, O, R, is_max, cols, get, s);
  else CT_CU_DISPATCH_COMPUTE(compute, "argmax", [&] { arg_t<scalar_t>(in, values, indices, O, R, is_max, cols, get, s); });
}


void norm_rows(const double* in, double* out, int64_t O, int64_t R, double p, ScratchFn& get, void* stream) {
  run(in, out, O, R, NormRed<double>{p}, get, static_cast<cudaStream_t>(stream));
}

void norm_in_place(InPlacePlan plan, const void* in, DType in_dtype, double* out, int64_t O, int64_t R,
                   const StridedReduction* strided, double p, ScratchFn& get, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  auto go = [&](auto red) {
    switch (plan) {
      case InPlacePlan::Rows: run(in, out, O, R, red, get, s); return;
      case InPlacePlan::Cols: run_cols(in, out, R, O, red, get, s); return;
      case InPlacePlan::Strided: {
        StridedRows g = strided_rows(*strided);
        run_strided(in, out, g.rows(), g.len(), g, red, get, s);
        return;
      }
    }
  };
  switch (in_dtype) {
    case DType::Float32: go(NormRed<float>{p}); return;
    case DType::Float64: go(NormRed<double>{p}); return;
    case DType::Float16: go(NormRed<__half>{p}); return;
    case DType::BFloat16: go(NormRed<__nv_bfloat16>{p}); return;
    default: fail(Status::Internal, "norm_in_place: not a real floating dtype");
  }
}

void var_in_place(InPlacePlan plan, const void* in, DType in_dtype, void* var_out, void* mean_out, int64_t O, int64_t R,
                  const StridedReduction* strided, double correction, bool take_sqrt, ScratchFn& get, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  auto go = [&](auto tag) {
    using I = decltype(tag);
    VarRed<I> red{static_cast<I*>(var_out), static_cast<I*>(mean_out), correction, take_sqrt};
    using Out = typename VarRed<I>::Out;
    switch (plan) {
      case InPlacePlan::Rows: run(in, static_cast<Out*>(nullptr), O, R, red, get, s); return;
      case InPlacePlan::Cols: run_cols(in, static_cast<Out*>(nullptr), R, O, red, get, s); return;
      case InPlacePlan::Strided: {
        StridedRows g = strided_rows(*strided);
        run_strided(in, static_cast<Out*>(nullptr), g.rows(), g.len(), g, red, get, s);
        return;
      }
    }
  };
  switch (in_dtype) {
    case DType::Float32: go(float{}); return;
    case DType::Float64: go(double{}); return;
    case DType::Float16: go(__half{}); return;
    case DType::BFloat16: go(__nv_bfloat16{}); return;
    default: fail(Status::Internal, "var_in_place: not a real floating dtype");
  }
}

}  // namespace ct::cuda_ops
