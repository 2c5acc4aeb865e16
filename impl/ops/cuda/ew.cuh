// The CUDA side of the elementwise engine (Note [Elementwise engine] in impl/ops/cpu/loops.h).
//
// Note [CUDA elementwise kernels]: every elementwise op is one launch of one of two kernel
// shapes, templated on the kernel types of its inputs (C0, C1, C: usually all the op's common
// dtype; where's condition is bool, float32 + float16 has its own), the result's storage type R
// and the op's functor, which computes in opmath(C) (float for float16/bfloat16, Note [Compute
// dtype]):
//   vec_kernel     every operand contiguous, of its kernel type and aligned (or a CPU scalar):
//                  8 elements per thread in vectors of up to 16 bytes, then a scalar tail.
//   offset_kernel  anything else, offsets from the collapsed shape by 32-bit multiply-shift
//                  division (IntDiv): vectors along rows (Note [Vectorized rows]) where the
//                  inner dim allows, else 4 single elements per thread; with CAST, every operand
//                  is loaded from its own dtype (converted to C, then to opmath, as PyTorch's
//                  dynamic casting) and the result stored into the output's dtype, so mixed
//                  dtypes need no temporary tensors (Note [No promotion temporaries]).
// CPU scalars (0-dim CPU tensors, wrapped numbers) travel in the kernel parameters, converted
// straight to opmath(C) (Note [CPU scalars on CUDA], continued, below). Iterations whose byte
// offsets do not fit in 32 bits are split on the host (for_each_32bit) so that no kernel does
// 64-bit index arithmetic.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/complex.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/common.cuh"

namespace ct::cuda_ops {

// Calls f.template operator()<X>() with X the device type of dtype dt.
#define CT_EW_SWITCH(dt, ...)                                            \
  switch (static_cast<::ct::DType>(dt)) {                                \
    case DType::Bool: { using X = bool; __VA_ARGS__ }                        \
    case DType::UInt8: { using X = uint8_t; __VA_ARGS__ }                    \
    case DType::Int8: { using X = int8_t; __VA_ARGS__ }                      \
    case DType::Int16: { using X = int16_t; __VA_ARGS__ }                    \
    case DType::Int32: { using X = int32_t; __VA_ARGS__ }                    \
    case DType::Int64: { using X = int64_t; __VA_ARGS__ }                    \
    case DType::Float16: { using X = half; __VA_ARGS__ }                     \
    case DType::BFloat16: { using X = bf16; __VA_ARGS__ }                    \
    case DType::Float32: { using X = float; __VA_ARGS__ }                    \
    case DType::Float64: { using X = double; __VA_ARGS__ }                   \
    case DType::Complex64: { using X = cfloat; __VA_ARGS__ }                 \
    default: { using X = cdouble; __VA_ARGS__ }                          \
  }

// Note [CPU scalars on CUDA], continued: a CPU scalar is converted straight to opmath(C), as
// PyTorch's original_scalar_value<opmath_t>. For kernels that compute in a floating or complex
// type (float16, bfloat16, float32, float64, complex) the launch converts it on the host
// (host_scalars_v, with_opmath_scalars below), as PyTorch does: every conversion into those types
// rounds to nearest on both the host and the device (int64 -> float, double -> float, complex ->
// real part, bool -> 0/1; float16/bfloat16 -> float is exact), so the bits are the same, and a
// thread reads the value from the parameters instead of taking a 12-way dtype switch. Integer
// and bool kernels keep the device conversion: a float scalar out of an integer type's range
// converts differently on the host (undefined in C++) and the device (saturating); they get float
// scalars only from fill_.
template <typename C>
inline constexpr bool host_scalars_v = std::is_floating_point_v<opmath_t<C>> || is_complex_v<opmath_t<C>>;

// A CPU scalar's bytes (its own dtype dt, already opmath(C) where host_scalars_v<C>) as opmath(C).
template <typename C>
__device__ __forceinline__ opmath_t<C> load_scalar(const unsigned char* p, int32_t dt) {
  if constexpr (host_scalars_v<C>) {
    return *reinterpret_cast<const opmath_t<C>*>(p);
  } else {
    CT_EW_SWITCH(dt, return convert<opmath_t<C>>(*reinterpret_cast<const X*>(p));)
  }
}

// The same conversion on the host: the value at p (dtype dt) converted to T.
template <typename T>
T host_scalar(const unsigned char* p, int32_t dt) {
  CT_EW_SWITCH(dt, X v; std::memcpy(&v, p, sizeof(X)); return convert<T>(v);)
}

// it with its CPU scalars converted to opmath(C) on the host where host_scalars_v<C> (their
// dtype codes then say opmath(C), so a second call changes nothing).
template <typename C, int N>
Iter<N> with_opmath_scalars(const Iter<N>& it) {
  Iter<N> r = it;
  if constexpr (host_scalars_v<C>) {
    using T = opmath_t<C>;
    for (int k = 1; k < N; ++k) {
      if (!((it.scalar_mask >> k) & 1u)) continue;
      const T v = host_scalar<T>(it.scalar[k], it.dtype[k]);
      std::memset(r.scalar[k], 0, sizeof(r.scalar[k]));
      std::memcpy(r.scalar[k], &v, sizeof(T));
      r.dtype[k] = dtype_code<T>();
    }
  }
  return r;
}

// A value of type R stored into an operand of dtype dt.
template <typename R>
__device__ __forceinline__ void store_as(char* p, int32_t dt, R v) {
  CT_EW_SWITCH(dt, *reinterpret_cast<X*>(p) = convert<X>(v); return;)
}

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
//
// Note [Op dispatch outside the element loop]: the functors take their op at run time (one
// instantiation per functor and dtype, not per op), but a switch per element costs issue slots
// that 1- and 2-byte kernels do not have to spare. So each functor exposes run<OP>() with the op
// as a compile-time constant and with_ops() switches once per thread, around a loop over all of
// the thread's elements: the loop body is branch-free. Functors without an op have kOps == 1.
// Likewise CPU scalars are placed into the thread's operand registers before the loop, so the
// loop never asks which operand is a scalar.

constexpr int kEwThreads = 128;  // PyTorch's num_threads()
constexpr int kEwUnroll = 4;     // elements per thread, strided kernels
constexpr int kVecEpt = 8;       // elements per thread, vectorized kernels (PyTorch's elems_per_thread)

template <typename T, int V>
struct alignas(sizeof(T) * V) VecOf {
  T v[V];
};

template <int K> using OpC = std::integral_constant<int, K>;

// Whether op K of functor F can be launched: K < F::kOps and, where F says which of its ops it
// has (a static constexpr live<K>()), one of those.
template <typename F, int K, typename = void>
struct OpLive : std::bool_constant<(K < F::kOps)> {};
template <typename F, int K>
struct OpLive<F, K, std::void_t<decltype(F::template live<K>())>> : std::bool_constant<(K < F::kOps) && F::template live<K>()> {};

// g(OpC<op>{}) with op = f.op as a compile-time constant (Note [Op dispatch outside the element
// loop]). Ops that are not live (OpLive) are never launched: their cases join the default,
// which computes nothing, so the switch only tells the live ops apart (fewer compares on the
// way to each op, and no zero results written for ops a kernel never runs).
#define CT_OP_CASE(K) \
  case K: if constexpr (OpLive<F, K>::value) g(OpC<K>{}); return;
template <typename F, typename G>
__device__ __forceinline__ void with_ops(const F& f, const G& g) {
  if constexpr (F::kOps <= 1) {
    g(OpC<0>{});
  } else {
    static_assert(F::kOps <= 24, "with_ops: add cases");
    switch (f.op) {
      CT_OP_CASE(0) CT_OP_CASE(1) CT_OP_CASE(2) CT_OP_CASE(3) CT_OP_CASE(4) CT_OP_CASE(5)
      CT_OP_CASE(6) CT_OP_CASE(7) CT_OP_CASE(8) CT_OP_CASE(9) CT_OP_CASE(10) CT_OP_CASE(11)
      CT_OP_CASE(12) CT_OP_CASE(13) CT_OP_CASE(14) CT_OP_CASE(15) CT_OP_CASE(16) CT_OP_CASE(17)
      CT_OP_CASE(18) CT_OP_CASE(19) CT_OP_CASE(20) CT_OP_CASE(21) CT_OP_CASE(22) CT_OP_CASE(23)
      default: return;
    }
  }
}
#undef CT_OP_CASE

// f.run<OP> applied to element e of NIN opmath operand arrays.
template <int OP, int NIN, typename F, typename T, int E>
__device__ __forceinline__ auto apply(const F& f, const T (&a)[NIN > 0 ? NIN : 1][E], int e) {
  if constexpr (NIN == 1) return f.template run<OP>(a[0][e]);
  else if constexpr (NIN == 2) return f.template run<OP>(a[0][e], a[1][e]);
  else return f.template run<OP>(a[0][e], a[1][e], a[2][e]);
}

template <int NIN, typename C>
struct Scalars {
  opmath_t<C> v[NIN > 0 ? NIN : 1];
};

template <typename C, int N>
__device__ __forceinline__ Scalars<N - 1, C> scalars_of(const Iter<N>& it) {
  Scalars<N - 1, C> s;
#pragma unroll
  for (int k = 1; k < N; ++k) s.v[k - 1] = ((it.scalar_mask >> k) & 1u) ? load_scalar<C>(it.scalar[k], it.dtype[k]) : opmath_t<C>();
  return s;
}

// The kernel type of input k: C0 for the first (where's bool condition, or a mixed-dtype binary
// op's float16 operand), C1 for the second, C for the others.
template <int K, typename C0, typename C1, typename C>
using InT = std::conditional_t<K == 0, C0, std::conditional_t<K == 1, C1, C>>;

// The pieces every kernel below is made of: a thread holds E elements of each input in opmath
// registers a[k][0..E), loaded in groups of V (one vector each), computes all E (the op resolved
// once, Note [Op dispatch outside the element loop]) into o[0..E), and stores them in groups.

template <int NIN, typename L>
__device__ __forceinline__ void for_inputs(const L& load) {
  if constexpr (NIN >= 1) load(OpC<0>{});
  if constexpr (NIN >= 2) load(OpC<1>{});
  if constexpr (NIN >= 3) load(OpC<2>{});
}

// dst[j0 .. j0 + V) = the V values of type I at p (one vector load), converted through C to T.
template <typename C, typename I, int V, typename T, int E>
__device__ __forceinline__ void load_vec(T (&dst)[E], int j0, const char* p) {
  const VecOf<I, V> x = *reinterpret_cast<const VecOf<I, V>*>(p);
#pragma unroll
  for (int j = 0; j < V; ++j) dst[j0 + j] = static_cast<T>(convert<C>(x.v[j]));
}

// dst[j0 .. j0 + V) = v.
template <int V, typename T, int E>
__device__ __forceinline__ void fill_regs(T (&dst)[E], int j0, T v) {
#pragma unroll
  for (int j = 0; j < V; ++j) dst[j0 + j] = v;
}

// o[e] = f.run<OP>(a[0][e], ...) for the thread's E elements.
template <int OP, typename R, int NIN, typename F, typename T, int E>
__device__ __forceinline__ void compute_op(const F& f, const T (&a)[NIN > 0 ? NIN : 1][E], R (&o)[E]) {
#pragma unroll
  for (int e = 0; e < E; ++e) o[e] = convert<R>(apply<OP, NIN>(f, a, e));
}

// o[e] = f(a[0][e], ...) for the thread's E elements (the op resolved here).
template <typename R, int NIN, typename F, typename T, int E>
__device__ __forceinline__ void compute_all(const F& f, const T (&a)[NIN > 0 ? NIN : 1][E], R (&o)[E]) {
  with_ops(f, [&](auto op) { compute_op<decltype(op)::value, R, NIN>(f, a, o); });
}

// The V values o[j0 .. j0 + V) stored at p (one vector store).
template <int V, typename R, int E>
__device__ __forceinline__ void store_vec(char* p, const R (&o)[E], int j0) {
  VecOf<R, V> x;
#pragma unroll
  for (int j = 0; j < V; ++j) x.v[j] = o[j0 + j];
  *reinterpret_cast<VecOf<R, V>*>(p) = x;
}

// Whether every operand of a kernel is one byte (uint8, int8, bool): Note [One-byte kernels].
template <typename C0, typename C1, typename C, typename R>
inline constexpr bool byte_io_v = sizeof(C0) == 1 && sizeof(C1) == 1 && sizeof(C) == 1 && sizeof(R) == 1;

// Note [One-byte kernels]: with every operand one byte, a thread's eight elements are so little
// work that the op switch between the loads and the stores (Note [Op dispatch outside the element
// loop]) cost 9-17% of the kernel's time (uint8 add 75 us, bool eq 83 us, torch 69 and 71 us on
// an H100): there the switch is taken once around the whole kernel body (each op gets its own
// copy of the loads and stores, as if the op were a template parameter) and a thread takes 16
// elements (PyTorch's elems_per_thread for 1-byte I/O), which together reach torch's 69 us. Only
// the one-byte kernels pay the larger code.
template <typename C0, typename C1, typename C, typename R>
constexpr int vec_ept() {
  return byte_io_v<C0, C1, C, R> ? 16 : kVecEpt;
}

// A thread's raw input vectors, one array per input (each of its own kernel type).
template <typename I0, typename I1, typename I2, int V, int G>
struct RawInputs {
  VecOf<I0, V> r0[G];
  VecOf<I1, V> r1[G];
  VecOf<I2, V> r2[G];
  template <int K>
  __device__ __forceinline__ auto& get() {
    if constexpr (K == 0) return r0;
    else if constexpr (K == 1) return r1;
    else return r2;
  }
};

// Every operand contiguous and of its kernel type (inputs C0, C1, C, output R), aligned to V
// elements; CPU scalars allowed. A block owns kEwThreads * EPT consecutive elements; in a full
// block thread t moves vectors t, t + 128, ... of them (16-byte loads and stores when
// V * size = 16), in the block holding the tail single elements t, t + 128, ... (PyTorch's
// vectorized policy). compute(a, o) applies the op.
//
// Note [One body for the vectorized kernel]: the body runs in three phases, each with its
// branches (full block or tail, which inputs are CPU scalars) uniform across the block:
//   1. every input's raw vectors loaded (inputs that are CPU scalars load nothing), so all of
//      the thread's loads are in flight before any of them is waited for;
//   2. the raw values converted to opmath registers, or the CPU scalar (already in opmath(C),
//      Note [CPU scalars on CUDA], continued) copied into them;
//   3. the compute, once (so with_ops' switch is compiled and taken once per thread), then the
//      stores.
// A full block without CPU scalars (all blocks but the last, in the common case) takes phases 1
// and 2 with no test per input: one branch, then straight-line loads and conversions; so does a
// full block whose only CPU scalar is the last input (x * 2, where(c, x, 0.)). Byte
// offsets are 32-bit (for_each_32bit) and computed once per operand: the vectors' distances are
// immediates of the loads and stores. PTX instructions on one thread's path through a full
// block (nvcc 13.0, compute_90; not counting parameter loads, address-space conversions and
// register packing, which SASS folds), before -> after: float32 neg 54 -> 39, mul by a float64
// CPU scalar 84 -> 46, add of two tensors 70 -> 35; float64 56 -> 48, 87 -> 50, 76 -> 41;
// float16 49 -> 52, 95 -> 60, 57 -> 56 (bfloat16 as float16); registers of the float32 binary
// kernel (ptxas, sm_90) 38 -> 34, the float32 unary one 32 -> 32. Measured (H200, a CUDA graph of
// 100 copies of one float32 op, bench/graphs/graph_ops.py, us per op, ctorch before -> after,
// torch in brackets): 4096 elements: mul by a Python scalar 1.218 -> 1.037 (0.943), add 1.117 ->
// 1.035 (0.968), neg 1.058 -> 1.012 (0.943), exp 1.110 -> 1.064 (0.985), sigmoid 1.549 -> 1.499
// (1.324); 2^20 elements: mul by a scalar 2.422 -> 2.210 (2.073), add 2.662 -> 2.457 (2.383). The
// 64M-element matrix rows it touches stay within target (bench/RESULTS.md, 2026-11-26).
//
// History, measured: a body that branched per input (CPU scalar, full block or tail) and
// unpacked each input's bytes inside its branch made the warp wait for one input's data before
// it issued the next input's loads (SASS). A second, dense body for full blocks without CPU
// scalars (every input's vectors loaded in one basic block, then converted) fixed that for
// one-byte kernels (64M elements on an H100, us, torch 2.11 in brackets: add/i8 73.4 -> 68.6
// (68.8), mul/bool 77.0 -> 69.2 (68.8), eq/bool 77.3 -> 69.3 (70.5), where/u8 98.8 -> 90.1
// (89.2), where/bool 102.4 -> 89.6 (89.5)) and for float16/bfloat16 (pow of two float16
// tensors 218 -> 204.7 us, torch 204.5). float32 and wider kept the branchy body, and with CPU
// scalars every dtype did, plus a 12-way dtype switch per scalar per thread: float32 threads
// executed 2.3-3.2x the instructions of torch's (Nsight Compute, 4096 elements on an H200: neg
// 1008 vs 448, mul by a Python scalar 1504 vs 464), 12-30% slower per op in a CUDA graph. The
// three phases keep what the dense body was for, every load before the first conversion, for
// every dtype and with CPU scalars, in one body (one copy of the compute per kernel); they narrow
// the gap by about half (the figures above), except for one-byte kernels (Note [One-byte
// kernels], continued, below).
template <typename C0, typename C1, typename C, typename R, int V, int EPT, int N, typename G>
__device__ __forceinline__ void vec_body(const Iter<N>& it, const G& compute) {
  constexpr int NIN = N - 1;
  constexpr int NV = EPT / V;
  using T = opmath_t<C>;
  static_assert(EPT % V == 0, "vec_kernel: EPT must be a multiple of V");
  const uint32_t mask = it.scalar_mask;
  const uint32_t base = blockIdx.x * (kEwThreads * EPT);
  const uint32_t rem = static_cast<uint32_t>(it.numel) - base;
  const bool full = rem >= static_cast<uint32_t>(kEwThreads * EPT);
  // the thread's first element: vector t of the block, or element t of the tail
  const uint32_t first = full ? base + threadIdx.x * V : base + threadIdx.x;
  RawInputs<InT<0, C0, C1, C>, InT<1, C0, C1, C>, InT<2, C0, C1, C>, V, NV> raw;
  // 1. loads
  auto load = [&](auto K, bool vectors) {
    constexpr int k = decltype(K)::value;
    using I = InT<k, C0, C1, C>;
    const char* p = it.data[k + 1] + first * static_cast<uint32_t>(sizeof(I));
    auto& r = raw.template get<k>();
    if (vectors) {
#pragma unroll
      for (int u = 0; u < NV; ++u) r[u] = *reinterpret_cast<const VecOf<I, V>*>(p + u * (kEwThreads * V * sizeof(I)));
    } else {
#pragma unroll
      for (int e = 0; e < EPT; ++e)
        r[e / V].v[e % V] = threadIdx.x + e * kEwThreads < rem ? *reinterpret_cast<const I*>(p + e * (kEwThreads * sizeof(I))) : I();
    }
  };
  T a[NIN > 0 ? NIN : 1][EPT];
  auto widen = [&](auto K) {
    constexpr int k = decltype(K)::value;
#pragma unroll
    for (int e = 0; e < EPT; ++e) a[k][e] = static_cast<T>(convert<C>(raw.template get<k>()[e / V].v[e % V]));
  };
  if (full && mask == 0) {
    for_inputs<NIN>([&](auto K) { load(K, true); });
    // 2. opmath registers
    for_inputs<NIN>(widen);
  } else if (NIN > 1 && full && mask == 1u << NIN) {
    // a full block whose last input is a CPU scalar (tensor op Python number)
    for_inputs<NIN>([&](auto K) {
      constexpr int k = decltype(K)::value;
      if constexpr (k < NIN - 1) load(K, true);
    });
    for_inputs<NIN>([&](auto K) {
      constexpr int k = decltype(K)::value;
      if constexpr (k < NIN - 1) widen(K);
      else fill_regs<EPT>(a[k], 0, load_scalar<C>(it.scalar[k + 1], it.dtype[k + 1]));
    });
  } else {
    for_inputs<NIN>([&](auto K) {
      if (!((mask >> (decltype(K)::value + 1)) & 1u)) load(K, full);
    });
    // 2. opmath registers
    for_inputs<NIN>([&](auto K) {
      constexpr int k = decltype(K)::value;
      if ((mask >> (k + 1)) & 1u) fill_regs<EPT>(a[k], 0, load_scalar<C>(it.scalar[k + 1], it.dtype[k + 1]));
      else widen(K);
    });
  }
  // 3. compute and stores
  R o[EPT];
  compute(a, o);
  char* out = it.data[0] + first * static_cast<uint32_t>(sizeof(R));
  if (full) {
#pragma unroll
    for (int u = 0; u < NV; ++u) store_vec<V>(out + u * (kEwThreads * V * sizeof(R)), o, u * V);
  } else {
#pragma unroll
    for (int e = 0; e < EPT; ++e)
      if (threadIdx.x + e * kEwThreads < rem) store_vec<1>(out + e * (kEwThreads * sizeof(R)), o, e);
  }
}

// Note [One-byte kernels], continued: their full blocks without CPU scalars keep a body of
// their own, a straight line from the loads to the stores with nothing of the tail in it. With
// the one body above, where of three bool tensors (64M elements, H200) took 1.116x torch's time
// (0.0692 vs 0.0620 ms); with this one it takes the time it took before.
template <typename C0, typename C1, typename C, typename R, int V, int EPT, int N, typename G>
__device__ __forceinline__ void vec_body_dense(const Iter<N>& it, const G& compute) {
  constexpr int NIN = N - 1;
  constexpr int NV = EPT / V;
  using T = opmath_t<C>;
  const uint32_t base = blockIdx.x * (kEwThreads * EPT);
  RawInputs<InT<0, C0, C1, C>, InT<1, C0, C1, C>, InT<2, C0, C1, C>, V, NV> raw;
  for_inputs<NIN>([&](auto K) {
    constexpr int k = decltype(K)::value;
    using I = InT<k, C0, C1, C>;
    const char* p = it.data[k + 1] + static_cast<size_t>(base) * sizeof(I);
#pragma unroll
    for (int u = 0; u < NV; ++u)
      raw.template get<k>()[u] = *reinterpret_cast<const VecOf<I, V>*>(p + (threadIdx.x + u * kEwThreads) * V * sizeof(I));
  });
  T a[NIN > 0 ? NIN : 1][EPT];
  for_inputs<NIN>([&](auto K) {
    constexpr int k = decltype(K)::value;
#pragma unroll
    for (int e = 0; e < EPT; ++e) a[k][e] = static_cast<T>(convert<C>(raw.template get<k>()[e / V].v[e % V]));
  });
  R o[EPT];
  compute(a, o);
  char* out = it.data[0] + static_cast<size_t>(base) * sizeof(R);
#pragma unroll
  for (int u = 0; u < NV; ++u) store_vec<V>(out + (threadIdx.x + u * kEwThreads) * V * sizeof(R), o, u * V);
}

template <typename C0, typename C1, typename C, typename R, int V, int EPT, int N, typename F>
__global__ void __launch_bounds__(kEwThreads) vec_kernel(Iter<N> it, F f) {
  constexpr int NIN = N - 1;
  if constexpr (byte_io_v<C0, C1, C, R>) {
    // Note [One-byte kernels]: the op switch around the whole body
    const bool dense = it.scalar_mask == 0 &&
                       static_cast<uint32_t>(it.numel) - blockIdx.x * (kEwThreads * EPT) >= static_cast<uint32_t>(kEwThreads * EPT);
    with_ops(f, [&](auto op) {
      auto comp = [&](const auto& a, R (&o)[EPT]) { compute_op<decltype(op)::value, R, NIN>(f, a, o); };
      if (dense) vec_body_dense<C0, C1, C, R, V, EPT>(it, comp);
      else vec_body<C0, C1, C, R, V, EPT>(it, comp);
    });
  } else {
    vec_body<C0, C1, C, R, V, EPT>(it, [&](const auto& a, R (&o)[EPT]) { compute_all<R, NIN>(f, a, o); });
  }
}

// Any layout, through the OffsetCalc: thread t of a block takes groups t, t + 128, ... of the
// block's kEwThreads * EPT / V groups of V elements; every offset and load first, then the
// compute, then the stores, so the loads are in flight together.
//   V == 1: the strided kernel (with CAST, operands in any dtype: loaded through C, stored from
//           R, as PyTorch's dynamic casting).
//   V > 1:  Note [Vectorized rows]: a typed operation whose operands are all contiguous along
//           the innermost dim, or broadcast along it (inner stride 0, bit k of inner_bcast: a
//           column of a matrix), with rows of a multiple of V elements and every row start
//           aligned to V elements. A group's first element gets its offsets, so its V elements
//           share a row: contiguous operands load them as one vector, broadcast ones one element,
//           repeated. Broadcast rows and columns, 3-D permutes that keep the inner dim and
//           narrowed rows then run at the contiguous kernel's speed.
template <typename C0, typename C1, typename C, typename R, int V, int EPT, bool CAST, int N, typename F>
__global__ void __launch_bounds__(kEwThreads) offset_kernel(Iter<N> it, OffsetCalc<N> oc, uint32_t inner_bcast, F f) {
  constexpr int NIN = N - 1;
  constexpr int G = EPT / V;
  static_assert(!CAST || V == 1, "offset_kernel: dynamic casts move single elements");
  using T = opmath_t<C>;
  const Scalars<NIN, C> sc = scalars_of<C>(it);
  const uint32_t ngroups = static_cast<uint32_t>(it.numel) / V;
  const uint32_t first = blockIdx.x * (kEwThreads * G) + threadIdx.x;
  T a[NIN > 0 ? NIN : 1][EPT];
  R o[EPT];
  if constexpr (CAST) {
    // Note [Dynamic casts once per operand]: the offsets first, then for each operand one dtype
    // switch around all of the thread's loads of it, so they are in flight together (a switch
    // per element waited for each load before the next one's conversion: exp and true division
    // of int32 ran 7% behind torch, 16-39% ahead with this); the stores likewise.
    uint32_t off[G][N];
    const auto valid = [&](int u) { return first + u * kEwThreads < ngroups; };
#pragma unroll
    for (int u = 0; u < G; ++u) {
      if (valid(u)) oc.get(first + u * kEwThreads, off[u]);
      else
#pragma unroll
        for (int k = 0; k < N; ++k) off[u][k] = 0;
    }
    for_inputs<NIN>([&](auto K) {
      constexpr int k = decltype(K)::value;
      const char* p = it.data[k + 1];
      if ((it.scalar_mask >> (k + 1)) & 1u) {
        fill_regs<EPT>(a[k], 0, sc.v[k]);
      } else {
        [&] {
          CT_EW_SWITCH(it.dtype[k + 1],
                       _Pragma("unroll") for (int u = 0; u < G; ++u) a[k][u] = valid(u) ? static_cast<T>(convert<C>(*reinterpret_cast<const X*>(p + off[u][k + 1]))) : T();
                       return;)
        }();
      }
    });
    compute_all<R, NIN>(f, a, o);
    [&] {
      CT_EW_SWITCH(it.dtype[0],
                   _Pragma("unroll") for (int u = 0; u < G; ++u) if (valid(u)) *reinterpret_cast<X*>(it.data[0] + off[u][0]) = convert<X>(o[u]);
                   return;)
    }();
  } else {
    // each group's offsets and loads together (measured faster for scattered operands than
    // every offset first)
    uint32_t out_off[G];
#pragma unroll
    for (int u = 0; u < G; ++u) {
      const uint32_t g = first + u * kEwThreads;
      const bool valid = g < ngroups;
      uint32_t off[N];
      if (valid) oc.get(g * V, off);
      out_off[u] = valid ? off[0] : 0;
      for_inputs<NIN>([&](auto K) {
        constexpr int k = decltype(K)::value;
        using I = InT<k, C0, C1, C>;
        const char* p = it.data[k + 1] + (valid ? off[k + 1] : 0);
        if ((it.scalar_mask >> (k + 1)) & 1u) fill_regs<V>(a[k], u * V, sc.v[k]);
        else if (!valid) fill_regs<V>(a[k], u * V, T());
        else if ((inner_bcast >> (k + 1)) & 1u) fill_regs<V>(a[k], u * V, static_cast<T>(convert<C>(*reinterpret_cast<const I*>(p))));
        else load_vec<C, I, V>(a[k], u * V, p);
      });
    }
    compute_all<R, NIN>(f, a, o);
#pragma unroll
    for (int u = 0; u < G; ++u) {
      if (first + u * kEwThreads >= ngroups) break;
      store_vec<V>(it.data[0] + out_off[u], o, u * V);
    }
  }
}

// Elements per vector of the vectorized kernel for inputs C0/C and output R: 16 bytes of the
// widest operand (at most 8 elements), and at most 4 one-byte results (PyTorch's
// launch_vectorized_kernel: vec_size from the result type, capped by every operand's size).
template <typename C0, typename C1, typename C, typename R>
constexpr int vec_width() {
  constexpr size_t big = std::max({sizeof(C0), sizeof(C1), sizeof(C), sizeof(R)});
  constexpr int v = big >= 16 ? 1 : static_cast<int>(16 / big);
  constexpr int v8 = v > 8 ? 8 : v;
  return sizeof(R) == 1 && v8 > 4 ? 4 : v8;
}

// Whether every operand but the CPU scalars is contiguous, of its kernel type (inputs C0/C,
// output R) and aligned to V elements: the vectorized kernel's precondition.
// The dtype code and size of operand k (0: the output) for kernel types C0, C1, C, R.
template <typename C0, typename C1, typename C, typename R>
std::pair<int32_t, int64_t> operand_type(int k) {
  if (k == 0) return {dtype_code<R>(), sizeof(R)};
  if (k == 1) return {dtype_code<C0>(), sizeof(C0)};
  if (k == 2) return {dtype_code<C1>(), sizeof(C1)};
  return {dtype_code<C>(), sizeof(C)};
}

template <typename C0, typename C1, typename C, typename R, int V, int N>
bool vectorizable(const Iter<N>& it) {
  if (it.ndim != 1 || it.dtype[0] != dtype_code<R>() || it.strides[0][0] != static_cast<int64_t>(sizeof(R)) ||
      reinterpret_cast<uintptr_t>(it.data[0]) % (sizeof(R) * V) != 0)
    return false;
  for (int k = 1; k < N; ++k) {
    if ((it.scalar_mask >> k) & 1u) continue;
    const auto [want, size] = operand_type<C0, C1, C, R>(k);
    if (it.dtype[k] != want || it.strides[k][0] != static_cast<int64_t>(size) ||
        reinterpret_cast<uintptr_t>(it.data[k]) % static_cast<uintptr_t>(size * V) != 0)
      return false;
  }
  return true;
}

// Note [Vectorized rows]'s precondition for a typed iteration of at least two dims: the bit
// mask of inputs broadcast along the inner dim (bit k for operand k), or -1 when it does not hold.
template <typename C0, typename C1, typename C, typename R, int V, int N>
int64_t vectorizable_rows(const Iter<N>& it) {
  const int in = it.ndim - 1;
  if (in < 1 || it.sizes[in] % V != 0) return -1;
  uint32_t bcast = 0;
  for (int k = 0; k < N; ++k) {
    if (k > 0 && ((it.scalar_mask >> k) & 1u)) continue;
    const int64_t size = operand_type<C0, C1, C, R>(k).second;
    const int64_t align = size * V;
    if (it.strides[k][in] == 0 && k > 0) {
      bcast |= 1u << k;
      continue;
    }
    if (it.strides[k][in] != size || reinterpret_cast<uintptr_t>(it.data[k]) % align != 0) return -1;
    for (int d = 0; d < in; ++d)
      if (it.strides[k][d] % align != 0) return -1;
  }
  return bcast;
}

template <typename C0, typename C1, typename C, typename R, int EPT, int N, typename F>
void launch_vec(const Iter<N>& it, const F& f, cudaStream_t s) {
  constexpr int V = vec_width<C0, C1, C, R>();
  const int64_t blocks = (it.numel + kEwThreads * EPT - 1) / (kEwThreads * EPT);
  vec_kernel<C0, C1, C, R, V, EPT><<<static_cast<unsigned>(blocks), kEwThreads, 0, s>>>(with_opmath_scalars<C>(it), f);
}

template <typename C0, typename C1, typename C, typename R, int V, int EPT, bool CAST, int N, typename F>
void launch_offset(const Iter<N>& it, uint32_t inner_bcast, const F& f, cudaStream_t s) {
  constexpr int64_t kGroupsPerBlock = kEwThreads * (EPT / V);
  const int64_t blocks = (it.numel / V + kGroupsPerBlock - 1) / kGroupsPerBlock;
  offset_kernel<C0, C1, C, R, V, EPT, CAST><<<static_cast<unsigned>(blocks), kEwThreads, 0, s>>>(with_opmath_scalars<C>(it), offset_calc(it), inner_bcast, f);
}

// Whether the operands (but CPU scalars) have the kernel types C0, C1, C, R.
template <typename C0, typename C1, typename C, typename R, int N>
bool typed_as(const Iter<N>& it) {
  for (int k = 0; k < N; ++k)
    if (k == 0 || !((it.scalar_mask >> k) & 1u))
      if (it.dtype[k] != operand_type<C0, C1, C, R>(k).first) return false;
  return true;
}

// Launches f over it: out (operand 0) of R, the first input read as C0, the second as C1 and the
// third as C (all computed in opmath(C)). Typed contiguous operands take the vectorized kernel,
// typed rows Note [Vectorized rows], other typed layouts the strided kernel; with DYN, operands
// of other dtypes take the strided kernel with dynamic casts (else the caller handles them:
// launch_typed returns false).
template <typename C0, typename C1, typename C, typename R, bool DYN, int N, typename F>
bool launch_typed(const Iter<N>& whole, const F& f, cudaStream_t s) {
  if constexpr (!DYN) {
    if (!typed_as<C0, C1, C, R>(whole)) return false;
  }
  for_each_32bit(whole, [&](const Iter<N>& it) {
    constexpr int V = vec_width<C0, C1, C, R>();
    if (vectorizable<C0, C1, C, R, V>(it)) {
      launch_vec<C0, C1, C, R, vec_ept<C0, C1, C, R>()>(it, f, s);
      return;
    }
    const bool typed = typed_as<C0, C1, C, R>(it);
    if (typed && V > 1) {
      const int64_t bcast = vectorizable_rows<C0, C1, C, R, V>(it);
      if (bcast >= 0) {
        launch_offset<C0, C1, C, R, V, kVecEpt, false>(it, static_cast<uint32_t>(bcast), f, s);
        return;
      }
    }
    if (typed) launch_offset<C0, C1, C, R, 1, kEwUnroll, false>(it, 0, f, s);
    else if constexpr (DYN) launch_offset<C, C, C, R, 1, kEwUnroll, true>(it, 0, f, s);
  });
  return true;
}

template <typename C0, typename C, typename R, int N, typename F>
void launch_ew2(const Iter<N>& whole, const F& f, cudaStream_t s) {
  launch_typed<C0, C, C, R, true>(whole, f, s);
}

// launch_ew2 with every input read as C.
template <typename C, typename R, int N, typename F>
void launch_ew(const Iter<N>& whole, const F& f, cudaStream_t s) {
  launch_typed<C, C, C, R, true>(whole, f, s);
}

// The body of an elementwise entry point: fn(TypeTag<C>{}, s) with C the device type of dtype
// and s the stream, then the launch check (what names the kernel in errors).
template <typename Fn>
void ew_entry(DType dtype, const char* what, void* stream, const Fn& fn) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_EW_DISPATCH(dtype, what, [&] { fn(TypeTag<scalar_t>{}, s); });
  cuda::check_launch(what, s);
}

}  // namespace ct::cuda_ops
