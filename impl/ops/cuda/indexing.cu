// CUDA kernels of the indexing ops (impl/ops/cuda/indexing.h): copies by element size over the
// elementwise engine's Iter (the index operand's iteration, the indexed dim restrided to 0, as
// PyTorch's gather/index kernels), the index checked in the kernel by a device-side assertion,
// and CUB for nonzero's count and positions.
//
// Note [Indexing kernels' offsets]: the element kernels take the engine's 32-bit offsets
// (OffsetCalc, multiply-shift division; for_each_32bit splits an iteration whose offsets do not
// fit) and kEwUnroll elements a thread, every offset and index first and the loads together, as
// the engine's offset_kernel and PyTorch's gather do. The first version divided in 64 bits, one
// element a thread: gather of [4096, 4096] ran 1.7x (float32) to 2.1x (float16) torch's time.
// Only the moved offset, index * stride, stays 64-bit (an index may reach far). index_select of
// a contiguous tensor copies whole rows instead (index_select_rows): Note [index_select rows].
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstring>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/common.cuh"
#include "impl/ops/cuda/ew.cuh"
#include "impl/ops/cuda/indexing.h"

// PyTorch's CUDA_KERNEL_ASSERT on Linux: glibc's __assert_fail, which nvcc maps to the device
// assertion (the kernel traps; cudaErrorAssert, "device-side assert triggered").
#define CT_KERNEL_ASSERT(cond)                                                                    \
  do {                                                                                            \
    if (!(cond)) __assert_fail(#cond, __FILE__, static_cast<unsigned int>(__LINE__), __func__); \
  } while (0)

namespace ct::cuda_ops {

namespace {

// The index at p, asserted to lie in [wrap ? -bound : 0, bound) (PyTorch's CUDA_KERNEL_ASSERT),
// a negative one counted from the end.
template <typename I>
__device__ __forceinline__ int64_t checked_index(const char* p, int64_t bound, bool wrap) {
  const int64_t idx = static_cast<int64_t>(*reinterpret_cast<const I*>(p));
  CT_KERNEL_ASSERT(idx >= (wrap ? -bound : 0) && idx < bound && "index out of bounds");
  return idx < 0 ? idx + bound : idx;
}

// The grid of an element kernel over n (< 2^31) elements.
inline unsigned int idx_blocks(int64_t n) {
  return static_cast<unsigned int>((n + kEwThreads * kEwUnroll - 1) / (kEwThreads * kEwUnroll));
}

// u over a thread's kEwUnroll elements: first + u * kEwThreads (Note [Indexing kernels' offsets]).
#define CT_IDX_FOR_EACH(u) _Pragma("unroll") for (int u = 0; u < kEwUnroll; ++u)

// The offsets of a thread's elements of an index iteration (operand 2 the index) and each
// index, asserted and times stride_bytes (moved); elements past the end are left unset.
template <typename I>
__device__ __forceinline__ void indexed_offsets(const Iter<3>& it, const OffsetCalc<3>& oc, uint32_t first,
                                                uint32_t (&off)[kEwUnroll][3], int64_t (&moved)[kEwUnroll],
                                                int64_t stride_bytes, int64_t bound, bool wrap) {
  const uint32_t n = static_cast<uint32_t>(it.numel);
  CT_IDX_FOR_EACH(u) {
    const uint32_t i = first + u * kEwThreads;
    if (i < n) {
      oc.get(i, off[u]);
      moved[u] = checked_index<I>(it.data[2] + off[u][2], bound, wrap) * stride_bytes;
    }
  }
}

// The copy of gather (Scatter false: out = src[index]) and scatter (Scatter true: self[index] =
// src); operand 1 may be a kernel-parameter scalar (base_of).
// (At most 40 registers, 12 blocks an SM: the copy is bound by the latency of its dependent
// loads, index then element, so occupancy counts; with 42 registers only 10 blocks fit, and
// gather of [4096, 4096] float16 ran 1.18x torch's time on an H100, 1.08x with 12; such a
// gather now takes gather_groups_kernel: Note [Gather in groups].)
template <typename U, typename I, bool Scatter>
__global__ void __launch_bounds__(kEwThreads, 12)
    index_copy_kernel(Iter<3> it, OffsetCalc<3> oc, int64_t stride_bytes, int64_t bound, bool wrap) {
  const char* src_base = base_of(it, 1);
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t first = blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x;
  uint32_t off[kEwUnroll][3];
  int64_t moved[kEwUnroll];
  U v[kEwUnroll];
  indexed_offsets<I>(it, oc, first, off, moved, stride_bytes, bound, wrap);
  CT_IDX_FOR_EACH(u) {
    if (first + u * kEwThreads < n)
      v[u] = *reinterpret_cast<const U*>(src_base + off[u][1] + (Scatter ? 0 : moved[u]));
  }
  CT_IDX_FOR_EACH(u) {
    if (first + u * kEwThreads < n)
      *reinterpret_cast<U*>(it.data[0] + off[u][0] + (Scatter ? moved[u] : 0)) = v[u];
  }
}

// Note [Gather in groups]: gather of 1- and 2-byte elements whose index and output run
// contiguously along the innermost dim (a multiple of kGatherGroup long; every other stride and
// both base addresses multiples of a group's bytes: gather_groups_fit) takes kGatherGroup
// consecutive elements a thread: one OffsetCalc division a group, the index loaded and the output
// stored as vectors, the group's loads of the source independent of each other. On an H100
// (bench/micro/idx_gather.cu), gather over dim 1 of [4096, 4096] float16 took 91 us through
// index_copy_kernel, 77 us so (torch: 84 us); uint8 78 -> 61 us (torch: 71 us). Wider elements
// gain nothing (float32: 113 -> 114 us, torch 115 us) and stay on index_copy_kernel.
constexpr int kGatherGroup = 8;
template <typename U, typename I>
__global__ void __launch_bounds__(kEwThreads)
    gather_groups_kernel(Iter<3> it, OffsetCalc<3> oc, int64_t stride_bytes, int64_t bound, bool wrap) {
  constexpr int G = kGatherGroup;
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t i = (blockIdx.x * kEwThreads + threadIdx.x) * G;
  if (i >= n) return;
  uint32_t off[3];
  oc.get(i, off);
  const char* src = base_of(it, 1) + off[1];
  const uint32_t src_step = oc.stride[0][1];
  const auto index = *reinterpret_cast<const VecOf<I, G>*>(it.data[2] + off[2]);
  VecOf<U, G> v;
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const int64_t idx = static_cast<int64_t>(index.v[g]);
    CT_KERNEL_ASSERT(idx >= (wrap ? -bound : 0) && idx < bound && "index out of bounds");
    v.v[g] = *reinterpret_cast<const U*>(src + g * src_step + (idx < 0 ? idx + bound : idx) * stride_bytes);
  }
  *reinterpret_cast<VecOf<U, G>*>(it.data[0] + off[0]) = v;
}

// Whether the piece p of a gather of esize-byte elements with isize-byte indices takes
// gather_groups_kernel (Note [Gather in groups]).
bool gather_groups_fit(const Iter<3>& p, int64_t esize, int64_t isize) {
  if (esize > 2 || p.ndim < 1 || p.sizes[p.ndim - 1] % kGatherGroup != 0) return false;
  const int inner = p.ndim - 1;
  if (p.strides[0][inner] != esize || p.strides[2][inner] != isize) return false;
  for (int k : {0, 2}) {
    const int64_t group = kGatherGroup * p.strides[k][inner];
    if (reinterpret_cast<uintptr_t>(p.data[k]) % static_cast<uintptr_t>(group) != 0) return false;
    for (int d = 0; d < inner; ++d)
      if (p.strides[k][d] % group != 0) return false;
  }
  return true;
}

// Note [index_select rows]: index_select of a contiguous tensor moves whole rows: viewed as
// [outer, size, inner] -> [outer, n, inner], out row r = (o, j) is src row (o, index[j]), row_bytes
// long, copied in units of V bytes (the widest of 16, 8, 4, 2, 1 that divides row_bytes and both
// base addresses). Two 32-bit divisions per unit instead of per element: index_select of [4096,
// 4096] over dim 0 ran 3.4x (float32) and 5.9x (float16) torch's time through the element kernel.
template <typename V, typename I>
__global__ void __launch_bounds__(kEwThreads)
    index_rows_kernel(char* out, const char* src, const char* index, int64_t index_stride_bytes, IntDiv units_per_row,
                      IntDiv n_rows, uint32_t units, int64_t row_bytes, int64_t src_outer_bytes, int64_t bound) {
  const uint32_t first = blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x;
  const char* from[kEwUnroll];
  V v[kEwUnroll];
  CT_IDX_FOR_EACH(u) {
    const uint32_t w = first + u * kEwThreads;
    if (w < units) {
      const uint32_t row = units_per_row.div(w), col = w - row * units_per_row.d;
      const uint32_t o = n_rows.div(row), j = row - o * n_rows.d;
      const int64_t idx = checked_index<I>(index + j * index_stride_bytes, bound, false);
      from[u] = src + o * src_outer_bytes + idx * row_bytes + static_cast<int64_t>(col) * sizeof(V);
    }
  }
  CT_IDX_FOR_EACH(u) {
    if (first + u * kEwThreads < units) v[u] = *reinterpret_cast<const V*>(from[u]);
  }
  CT_IDX_FOR_EACH(u) {
    const uint32_t w = first + u * kEwThreads;
    if (w < units) reinterpret_cast<V*>(out)[w] = v[u];
  }
}

// Rows of at least kBlockRowUnits units take blocks of their own instead (index_row_blocks_kernel),
// as PyTorch's vectorized_gather_kernel: grid [rows, pieces], a block of kRowBlockThreads threads
// copying one unit each of a piece of one row, the index read once a block, no division but one
// a block. On an H100 (bench/micro/idx_gather.cu), index_select of [8192, 8192] float32 over dim 0
// took 183 us with the flat kernel or with a block a whole row (256 threads x 4 units, looping),
// 167 us in this shape with 256 threads, 159 us with 128 (torch: 171 us); [4096, 4096]: 45, 42
// and 42 us (torch: 43 us).
constexpr uint32_t kBlockRowUnits = 128;
constexpr int kRowBlockThreads = 128;
constexpr uint32_t kMaxRowPieces = 65535;  // gridDim.y's limit; longer rows loop
template <typename V, typename I>
__global__ void __launch_bounds__(kRowBlockThreads)
    index_row_blocks_kernel(char* out, const char* src, const char* index, int64_t index_stride_bytes, uint32_t n,
                            uint32_t per_row, int64_t row_bytes, int64_t src_outer_bytes, int64_t bound) {
  const uint32_t row = blockIdx.x, o = row / n, j = row - o * n;
  const int64_t idx = checked_index<I>(index + j * index_stride_bytes, bound, false);
  const V* from = reinterpret_cast<const V*>(src + o * src_outer_bytes + idx * row_bytes);
  V* to = reinterpret_cast<V*>(out + static_cast<int64_t>(row) * row_bytes);
  for (uint32_t u = blockIdx.y * kRowBlockThreads + threadIdx.x; u < per_row; u += gridDim.y * kRowBlockThreads)
    to[u] = from[u];
}

template <typename U>
__global__ void __launch_bounds__(kEwThreads) masked_fill_kernel(Iter<2> it, OffsetCalc<2> oc, U value) {
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t first = blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x;
  uint32_t off[kEwUnroll][2];
  bool m[kEwUnroll];
  CT_IDX_FOR_EACH(u) {
    const uint32_t i = first + u * kEwThreads;
    m[u] = false;
    if (i < n) {
      oc.get(i, off[u]);
      m[u] = *reinterpret_cast<const bool*>(it.data[1] + off[u][1]);
    }
  }
  CT_IDX_FOR_EACH(u) {
    if (m[u]) *reinterpret_cast<U*>(it.data[0] + off[u][0]) = value;
  }
}

// Atomic adds of every device type: the hardware's where it has one (PyTorch's gpuAtomicAdd),
// a compare-and-swap on the enclosing 32-bit word for 1- and 2-byte integers and bool (or).
template <typename T>
__device__ void atomic_add_narrow(T* a, T v) {
  uintptr_t addr = reinterpret_cast<uintptr_t>(a);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  const unsigned int mask = ((1u << (sizeof(T) * 8)) - 1u) << shift;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    T cur = static_cast<T>((assumed & mask) >> shift);
    T sum;
    if constexpr (std::is_same_v<T, bool>) sum = cur || v;
    else sum = static_cast<T>(cur + v);
    unsigned int bits = (static_cast<unsigned int>(static_cast<std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>>(sum)) << shift) & mask;
    old = atomicCAS(word, assumed, (assumed & ~mask) | bits);
  } while (old != assumed);
}
__device__ void atomic_add(bool* a, bool v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(uint8_t* a, uint8_t v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(int8_t* a, int8_t v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(int16_t* a, int16_t v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(int32_t* a, int32_t v) { atomicAdd(a, v); }
__device__ void atomic_add(int64_t* a, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(a), static_cast<unsigned long long>(v));
}
__device__ void atomic_add(float* a, float v) { atomicAdd(a, v); }
__device__ void atomic_add(double* a, double v) { atomicAdd(a, v); }
__device__ void atomic_add(half* a, half v) { atomicAdd(a, v); }
__device__ void atomic_add(bf16* a, bf16 v) { atomicAdd(a, v); }
__device__ void atomic_add(cfloat* a, cfloat v) {
  atomicAdd(reinterpret_cast<float*>(a), v.real());
  atomicAdd(reinterpret_cast<float*>(a) + 1, v.imag());
}
__device__ void atomic_add(cdouble* a, cdouble v) {
  atomicAdd(reinterpret_cast<double*>(a), v.real());
  atomicAdd(reinterpret_cast<double*>(a) + 1, v.imag());
}

// Note [Paired half atomics]: the hardware adds float16 and bfloat16 atomically in pairs (a
// 4-byte __half2 / __nv_bfloat162); a lone 2-byte atomicAdd is a compare-and-swap loop on the
// enclosing word. So, as PyTorch's fastAtomicAdd, an element whose aligned pair lies inside the
// destination tensor [lo, hi) adds (v, -0.0) or (-0.0, v) to the pair: -0.0 is the additive
// identity of every value, -0.0 and NaN included (PyTorch adds +0.0, which turns a neighbour's
// -0.0 into +0.0). Only a destination whose elements fill its bytes (contiguous, transposed,
// permuted: non-overlapping and dense) pairs: every neighbour is then an element of it, never a
// gap of a strided view that other work may be writing. scatter_add and index_add_ of float16
// ran 1.6x to 1.8x torch's time on the lone atomics.
template <typename T> struct PairOf;
template <> struct PairOf<half> {
  using type = __half2;
  __device__ static half neg_zero() { return __ushort_as_half(0x8000); }
};
template <> struct PairOf<bf16> {
  using type = __nv_bfloat162;
  __device__ static bf16 neg_zero() { return __ushort_as_bfloat16(0x8000); }
};
template <typename T, typename T2>
__device__ __forceinline__ void atomic_add_paired(T* a, T v, const char* lo, const char* hi) {
  const char* p = reinterpret_cast<const char*>(a);
  const bool low = (reinterpret_cast<uintptr_t>(p) & 3) == 0;
  const char* pair = low ? p : p - 2;
  if (pair >= lo && pair + 4 <= hi) {
    const T nz = PairOf<T>::neg_zero();
    T2 w;
    w.x = low ? v : nz;
    w.y = low ? nz : v;
    atomicAdd(reinterpret_cast<T2*>(const_cast<char*>(pair)), w);
  } else {
    atomicAdd(a, v);
  }
}

// atomic_add, paired where T is float16/bfloat16 and [lo, hi) is set (Note [Paired half atomics]).
template <typename T>
__device__ __forceinline__ void atomic_add_to(T* a, T v, const char* lo, const char* hi) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bf16>) {
    if (lo != nullptr) return atomic_add_paired<T, typename PairOf<T>::type>(a, v, lo, hi);
  }
  atomic_add(a, v);
}

template <typename T, typename I>
__global__ void __launch_bounds__(kEwThreads)
    index_scatter_add_kernel(Iter<3> it, OffsetCalc<3> oc, int64_t stride_bytes, int64_t bound, bool wrap,
                             const char* pair_lo, const char* pair_hi) {
  const char* src = base_of(it, 1);
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t first = blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x;
  uint32_t off[kEwUnroll][3];
  int64_t moved[kEwUnroll];
  T v[kEwUnroll];
  indexed_offsets<I>(it, oc, first, off, moved, stride_bytes, bound, wrap);
  CT_IDX_FOR_EACH(u) {
    if (first + u * kEwThreads < n) v[u] = *reinterpret_cast<const T*>(src + off[u][1]);
  }
  CT_IDX_FOR_EACH(u) {
    if (first + u * kEwThreads < n)
      atomic_add_to(reinterpret_cast<T*>(it.data[0] + off[u][0] + moved[u]), v[u], pair_lo, pair_hi);
  }
}

template <typename I>
__global__ void __launch_bounds__(kEwThreads) index_check_kernel(Iter<1> it, OffsetCalc<1> oc, int64_t bound, bool wrap) {
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t first = blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x;
  CT_IDX_FOR_EACH(u) {
    const uint32_t i = first + u * kEwThreads;
    if (i < n) {
      uint32_t off[1];
      oc.get(i, off);
      checked_index<I>(it.data[0] + off[0], bound, wrap);
    }
  }
}

// The nonzero test on an element's bits (Note [nonzero on the device], indexing.h).
template <typename U>
struct NonzeroBits {
  U mask;
  __host__ __device__ __forceinline__ int64_t operator()(U v) const { return (v & mask) != 0 ? 1 : 0; }
};

// Positions to coordinates in place (positions_to_coords), in P: 32-bit where the positions are.
template <typename P>
struct Dims {
  P sizes[kMaxDims];
};
template <typename P>
__global__ void __launch_bounds__(kEwThreads) coords_kernel(int64_t* out, int64_t count, Dims<P> dims, int32_t nd) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(kEwThreads) + threadIdx.x;
  if (i >= count) return;
  P q = static_cast<P>(out[i]);
  for (int d = nd - 1; d > 0; --d) {
    const P next = q / dims.sizes[d];
    out[d * count + i] = static_cast<int64_t>(q - next * dims.sizes[d]);
    q = next;
  }
  out[i] = static_cast<int64_t>(q);
}

}  // namespace

namespace {

template <bool Scatter>
void launch_copy(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                 void* stream, const char* what) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  with_unit(esize, [&](auto unit) {
    using U = typename decltype(unit)::type;
    for_each_32bit(it, [&](const Iter<3>& p) {
      if constexpr (!Scatter && sizeof(U) <= 2) {
        if (gather_groups_fit(p, esize, idx64 ? 8 : 4)) {
          const auto blocks = static_cast<unsigned int>((p.numel / kGatherGroup + kEwThreads - 1) / kEwThreads);
          if (idx64)
            gather_groups_kernel<U, int64_t><<<blocks, kEwThreads, 0, s>>>(p, offset_calc(p), stride_bytes, bound, wrap);
          else
            gather_groups_kernel<U, int32_t><<<blocks, kEwThreads, 0, s>>>(p, offset_calc(p), stride_bytes, bound, wrap);
          cuda::check_launch(what, s);
          return;
        }
      }
      if (idx64)
        index_copy_kernel<U, int64_t, Scatter><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), stride_bytes, bound, wrap);
      else
        index_copy_kernel<U, int32_t, Scatter><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), stride_bytes, bound, wrap);
      cuda::check_launch(what, s);
    });
  });
}

}  // namespace

void index_gather(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                  void* stream) {
  launch_copy<false>(it, esize, idx64, stride_bytes, bound, wrap, stream, "index kernel");
}

bool index_select_rows(void* out, const void* src, const void* index, int64_t index_stride_bytes, bool idx64,
                       int64_t outer, int64_t n, int64_t size, int64_t row_bytes, void* stream) {
  if (outer == 0 || n == 0 || row_bytes == 0) return true;
  const auto addr = reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(src);
  int64_t unit = 16;
  while (unit > 1 && (row_bytes % unit != 0 || addr % static_cast<uintptr_t>(unit) != 0)) unit /= 2;
  const int64_t per_row = row_bytes / unit;
  constexpr int64_t kUnits = (int64_t{1} << 31) - 1;  // IntDiv's range
  if (per_row > kUnits / n) return false;             // one outer slice alone is too many units
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (per_row >= kBlockRowUnits) {  // blocks of their own, pieces of at most 2^31 - 1 rows of whole outer slices
    with_unit(unit, [&](auto tag) {
      using V = typename decltype(tag)::type;
      const int64_t rows_per_piece = kUnits / n * n;
      for (int64_t r0 = 0; r0 < outer * n; r0 += rows_per_piece) {
        const dim3 grid(static_cast<unsigned int>(std::min(rows_per_piece, outer * n - r0)),
                        static_cast<unsigned int>(std::min<int64_t>((per_row + kRowBlockThreads - 1) / kRowBlockThreads,
                                                                    kMaxRowPieces)));
        char* o = static_cast<char*>(out) + r0 * row_bytes;
        const char* x = static_cast<const char*>(src) + (r0 / n) * size * row_bytes;
        const auto nn = static_cast<uint32_t>(n), pr = static_cast<uint32_t>(per_row);
        const char* ix = static_cast<const char*>(index);
        if (idx64)
          index_row_blocks_kernel<V, int64_t><<<grid, kRowBlockThreads, 0, s>>>(o, x, ix, index_stride_bytes, nn, pr,
                                                                                 row_bytes, size * row_bytes, size);
        else
          index_row_blocks_kernel<V, int32_t><<<grid, kRowBlockThreads, 0, s>>>(o, x, ix, index_stride_bytes, nn, pr,
                                                                                 row_bytes, size * row_bytes, size);
        cuda::check_launch("index_select kernel", s);
      }
    });
    return true;
  }
  with_unit(unit, [&](auto tag) {
    using V = typename decltype(tag)::type;
    // pieces of whole outer slices (n rows each) whose unit count stays within IntDiv's range
    const int64_t rows_per_piece = kUnits / per_row / n * n;
    for (int64_t r0 = 0; r0 < outer * n; r0 += rows_per_piece) {
      const int64_t rows = std::min(rows_per_piece, outer * n - r0);
      const uint32_t units = static_cast<uint32_t>(rows * per_row);
      char* o = static_cast<char*>(out) + r0 * row_bytes;
      const char* x = static_cast<const char*>(src) + (r0 / n) * size * row_bytes;
      if (idx64)
        index_rows_kernel<V, int64_t><<<idx_blocks(units), kEwThreads, 0, s>>>(
            o, x, static_cast<const char*>(index), index_stride_bytes, IntDiv(static_cast<uint32_t>(per_row)),
            IntDiv(static_cast<uint32_t>(n)), units, row_bytes, size * row_bytes, size);
      else
        index_rows_kernel<V, int32_t><<<idx_blocks(units), kEwThreads, 0, s>>>(
            o, x, static_cast<const char*>(index), index_stride_bytes, IntDiv(static_cast<uint32_t>(per_row)),
            IntDiv(static_cast<uint32_t>(n)), units, row_bytes, size * row_bytes, size);
      cuda::check_launch("index_select kernel", s);
    }
  });
  return true;
}

void index_scatter(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                   void* stream) {
  launch_copy<true>(it, esize, idx64, stride_bytes, bound, wrap, stream, "scatter kernel");
}

void index_scatter_add(const Iter<3>& it, DType dtype, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                       const void* pair_lo, int64_t pair_bytes, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const char* lo = static_cast<const char*>(pair_lo);
  const char* hi = lo ? lo + pair_bytes : nullptr;
  CT_EW_DISPATCH(dtype, "scatter_add", [&] {
    for_each_32bit(it, [&](const Iter<3>& p) {
      if (idx64)
        index_scatter_add_kernel<scalar_t, int64_t><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(
            p, offset_calc(p), stride_bytes, bound, wrap, lo, hi);
      else
        index_scatter_add_kernel<scalar_t, int32_t><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(
            p, offset_calc(p), stride_bytes, bound, wrap, lo, hi);
      cuda::check_launch("scatter_add kernel", s);
    });
  });
}

void index_check(const Iter<1>& it, bool idx64, int64_t bound, bool wrap, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  for_each_32bit(it, [&](const Iter<1>& p) {
    if (idx64) index_check_kernel<int64_t><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), bound, wrap);
    else index_check_kernel<int32_t><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), bound, wrap);
    cuda::check_launch("index check kernel", s);
  });
}

void masked_fill(const Iter<2>& it, int64_t esize, const void* value, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  with_unit(esize, [&](auto unit) {
    using U = typename decltype(unit)::type;
    U v;
    std::memcpy(&v, value, sizeof v);
    for_each_32bit(it, [&](const Iter<2>& p) {
      masked_fill_kernel<U><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), v);
      cuda::check_launch("masked_fill kernel", s);
    });
  });
}

bool nonzero_mask(DType dtype, int64_t* bytes, uint64_t* mask) {
  const int64_t n = itemsize(dtype);
  if (n > 8) return false;
  uint64_t m = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  if (is_floating(dtype)) m &= ~(uint64_t{1} << (8 * n - 1));             // the sign bit
  if (dtype == DType::Complex64) m &= ~((uint64_t{1} << 31) | (uint64_t{1} << 63));  // both parts'
  *bytes = n;
  *mask = m;
  return true;
}

namespace {

// f(it) with it the 0/1 test of every element (NonzeroBits over the unsigned type of `bytes`).
template <typename F>
void with_test(const void* data, int64_t bytes, uint64_t mask, const F& f) {
  with_unit(bytes, [&](auto tag) {
    using U = typename decltype(tag)::type;
    if constexpr (sizeof(U) <= 8) {
      f(thrust::make_transform_iterator(static_cast<const U*>(data), NonzeroBits<U>{static_cast<U>(mask)}));
    } else {
      fail(Status::Internal, "nonzero: no test of ", bytes, "-byte elements");
    }
  });
}

}  // namespace

int64_t count_nonzero(const void* data, int64_t bytes, uint64_t mask, int64_t n, ScratchFn& get, void* stream) {
  if (n == 0) return 0;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int64_t* sum = static_cast<int64_t*>(get(sizeof(int64_t)));
  with_test(data, bytes, mask, [&](auto in) {
    size_t tmp_bytes = 0;
    cuda::check(cub::DeviceReduce::Sum(nullptr, tmp_bytes, in, sum, n, s), "nonzero count");
    void* tmp = get(static_cast<int64_t>(tmp_bytes));
    cuda::check(cub::DeviceReduce::Sum(tmp, tmp_bytes, in, sum, n, s), "nonzero count");
  });
  int64_t host = 0;
  cuda::on_host_sync("nonzero");
  cuda::check(cudaMemcpyAsync(&host, sum, sizeof host, cudaMemcpyDeviceToHost, s), "nonzero count copy");
  cuda::check(cudaStreamSynchronize(s), "nonzero count copy");
  return host;
}

void nonzero_positions(const void* data, int64_t bytes, uint64_t mask, int64_t n, int64_t* out, ScratchFn& get,
                       void* stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  thrust::counting_iterator<int64_t> in(0);
  int64_t* count = static_cast<int64_t*>(get(sizeof(int64_t)));
  with_test(data, bytes, mask, [&](auto flags) {
    size_t tmp_bytes = 0;
    cuda::check(cub::DeviceSelect::Flagged(nullptr, tmp_bytes, in, flags, out, count, n, s), "nonzero positions");
    void* tmp = get(static_cast<int64_t>(tmp_bytes));
    cuda::check(cub::DeviceSelect::Flagged(tmp, tmp_bytes, in, flags, out, count, n, s), "nonzero positions");
  });
  cuda::check_launch("nonzero positions", s);
}

void positions_to_coords(int64_t* out, int64_t count, const int64_t* sizes, int32_t nd, void* stream) {
  if (count == 0 || nd <= 1) return;
  CT_CHECK(nd <= kMaxDims, Status::Internal, "positions_to_coords: ", nd, " dims");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int64_t numel = 1;
  for (int d = 0; d < nd; ++d) numel *= sizes[d];
  const auto blocks = static_cast<unsigned int>((count + kEwThreads - 1) / kEwThreads);
  auto go = [&](auto tag) {
    using P = decltype(tag);
    Dims<P> dims{};
    for (int d = 0; d < nd; ++d) dims.sizes[d] = static_cast<P>(sizes[d]);
    coords_kernel<P><<<blocks, kEwThreads, 0, s>>>(out, count, dims, nd);
  };
  if (numel <= int64_t{UINT32_MAX}) go(uint32_t{});
  else go(uint64_t{});
  cuda::check_launch("nonzero", s);
}

}  // namespace ct::cuda_ops
