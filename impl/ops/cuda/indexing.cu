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
#include <thrust/iterator/tabulate_output_iterator.h>
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

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <typename F>
void with_size(int64_t esize, const F& f) {
  switch (esize) {
    case 1: f(TypeTag<uint8_t>{}); break;
    case 2: f(TypeTag<uint16_t>{}); break;
    case 4: f(TypeTag<uint32_t>{}); break;
    case 8: f(TypeTag<uint64_t>{}); break;
    case 16: f(TypeTag<Bytes16>{}); break;
    default: fail(Status::Internal, "indexing: unhandled element size ", esize);
  }
}

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
template <typename U, typename I, bool Scatter>
__global__ void __launch_bounds__(kEwThreads)
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

template <typename T, typename I>
__global__ void __launch_bounds__(kEwThreads)
    index_scatter_add_kernel(Iter<3> it, OffsetCalc<3> oc, int64_t stride_bytes, int64_t bound, bool wrap) {
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
    if (first + u * kEwThreads < n) atomic_add(reinterpret_cast<T*>(it.data[0] + off[u][0] + moved[u]), v[u]);
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

// Note [nonzero's coordinates]: cub::DeviceSelect::Flagged writes each selected position
// straight as its coordinates (a tabulate output iterator: out[i] = the position's index along
// every dim, in P, 32-bit where the tensor has fewer than 2^32 elements). The positions were
// written first and turned into coordinates by two elementwise ops a dim and a strided copy:
// nonzero of [8192, 8192] ran 2.2x torch's time.
template <typename P>
struct NonzeroCoords {
  int64_t* out;
  int32_t nd;
  int64_t sizes[kMaxDims];
  __device__ void operator()(ptrdiff_t i, int64_t pos) const {
    int64_t* o = out + static_cast<int64_t>(i) * nd;
    P q = static_cast<P>(pos);
    for (int d = nd - 1; d > 0; --d) {
      const P sz = static_cast<P>(sizes[d]);
      const P next = q / sz;
      o[d] = static_cast<int64_t>(q - next * sz);
      q = next;
    }
    o[0] = static_cast<int64_t>(q);
  }
};

struct BoolToInt64 {
  __host__ __device__ int64_t operator()(bool b) const { return b ? 1 : 0; }
};

}  // namespace

namespace {

template <bool Scatter>
void launch_copy(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                 void* stream, const char* what) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  with_size(esize, [&](auto unit) {
    using U = typename decltype(unit)::type;
    for_each_32bit(it, [&](const Iter<3>& p) {
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
  with_size(unit, [&](auto tag) {
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
                       void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_EW_DISPATCH(dtype, "scatter_add", [&] {
    for_each_32bit(it, [&](const Iter<3>& p) {
      if (idx64)
        index_scatter_add_kernel<scalar_t, int64_t><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), stride_bytes, bound, wrap);
      else
        index_scatter_add_kernel<scalar_t, int32_t><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), stride_bytes, bound, wrap);
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
  with_size(esize, [&](auto unit) {
    using U = typename decltype(unit)::type;
    U v;
    std::memcpy(&v, value, sizeof v);
    for_each_32bit(it, [&](const Iter<2>& p) {
      masked_fill_kernel<U><<<idx_blocks(p.numel), kEwThreads, 0, s>>>(p, offset_calc(p), v);
      cuda::check_launch("masked_fill kernel", s);
    });
  });
}

int64_t count_true(const bool* flags, int64_t n, ScratchFn& get, void* stream) {
  if (n == 0) return 0;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  thrust::transform_iterator<BoolToInt64, const bool*> in(flags, BoolToInt64{});
  int64_t* sum = static_cast<int64_t*>(get(sizeof(int64_t)));
  size_t bytes = 0;
  cuda::check(cub::DeviceReduce::Sum(nullptr, bytes, in, sum, n, s), "nonzero count");
  void* tmp = get(static_cast<int64_t>(bytes));
  cuda::check(cub::DeviceReduce::Sum(tmp, bytes, in, sum, n, s), "nonzero count");
  int64_t host = 0;
  cuda::on_host_sync("nonzero");
  cuda::check(cudaMemcpyAsync(&host, sum, sizeof host, cudaMemcpyDeviceToHost, s), "nonzero count copy");
  cuda::check(cudaStreamSynchronize(s), "nonzero count copy");
  return host;
}

void true_positions(const bool* flags, int64_t n, int64_t* out, ScratchFn& get, void* stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  thrust::counting_iterator<int64_t> in(0);
  int64_t* count = static_cast<int64_t*>(get(sizeof(int64_t)));
  size_t bytes = 0;
  cuda::check(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count, n, s), "nonzero positions");
  void* tmp = get(static_cast<int64_t>(bytes));
  cuda::check(cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, count, n, s), "nonzero positions");
  cuda::check_launch("nonzero positions", s);
}

void nonzero_coords(const bool* flags, int64_t n, const int64_t* sizes, int32_t nd, int64_t* out, ScratchFn& get,
                    void* stream) {
  if (n == 0) return;
  CT_CHECK(nd >= 1 && nd <= kMaxDims, Status::Internal, "nonzero_coords: ", nd, " dims");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  thrust::counting_iterator<int64_t> in(0);
  int64_t* count = static_cast<int64_t*>(get(sizeof(int64_t)));
  auto select = [&](auto tag) {
    NonzeroCoords<decltype(tag)> f{out, nd, {}};
    for (int d = 0; d < nd; ++d) f.sizes[d] = sizes[d];
    auto it = thrust::make_tabulate_output_iterator(f);
    size_t bytes = 0;
    cuda::check(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, it, count, n, s), "nonzero");
    void* tmp = get(static_cast<int64_t>(bytes));
    cuda::check(cub::DeviceSelect::Flagged(tmp, bytes, in, flags, it, count, n, s), "nonzero");
  };
  if (n <= int64_t{UINT32_MAX}) select(uint32_t{});
  else select(uint64_t{});
  cuda::check_launch("nonzero", s);
}

}  // namespace ct::cuda_ops
