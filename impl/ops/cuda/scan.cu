// The CUDA scans (Note [Scan layout] in impl/ops/cpu/scan.h). Note [CUDA scans]: three paths,
// by the shape [O, L, I]:
// - lines: one thread per line (o, i), scanning its L elements in order with kLineUnroll loads
//   in flight; threads of one warp read neighbouring i, so a scan over an outer dim (I > 1)
//   reads whole sectors. Also used for short innermost rows (L <= kShortRow). (PyTorch's
//   scan_outer_dim is this without the unrolling.) impl/ops/scan.cc transposes few long lines
//   (fewer than 2048 lines of at least 2048) to rows first.
// - rows: I == 1, one block per row, tiles of kTile elements scanned by cub::BlockScan with the
//   running prefix carried from tile to tile.
// - device: I == 1 with few long rows: cub::DeviceScan::InclusiveScan per row (decoupled
//   look-back over the whole GPU); real sums, products and logcumsumexp only (cummax/cummin and
//   complex take the rows path), to keep nvcc's instantiations few.
// float16/bfloat16 are read and written in their dtype and combined in float32; cummax/cummin
// scan (value, index) pairs with torch's rule (scan_math::extreme). Some inputs are read in
// their own dtype on CUDA (cuda_ops::scan_takes; impl/ops/scan.cc asks), not widened to int64
// by a cast first: cummax/cummin of int32 scan int32 (the values keep their dtype: widening and
// narrowing back cost two more passes, 2.36x torch's time over [8192, 8192]), and sums and
// products of int32 and uint8 read their elements and accumulate and write int64 (the
// cast wrote and the scan read an int64 copy: 1.11x-1.22x torch's time).
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <algorithm>
#include <type_traits>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/common.cuh"
#include "impl/ops/cuda/scan.h"

namespace ct::cuda_ops {

namespace {

using scan_math::ValIdx;

constexpr int kThreads = 256;
constexpr int kItems = 4;
constexpr int64_t kTile = kThreads * kItems;
constexpr int64_t kShortRow = 32;      // innermost rows up to this long: the lines path
constexpr int64_t kLongRow = 1 << 16;  // rows at least this long, at most kFewRows of them: device path
constexpr int64_t kFewRows = 16;
constexpr int kLineUnroll = 8;

// The element types and rules of one scan: In read, S stored, C computed, Acc scanned.
template <typename S, bool kExt, typename In = S>
struct Scan {
  using C = std::conditional_t<std::is_same_v<S, half> || std::is_same_v<S, bf16>, float, S>;
  using Acc = std::conditional_t<kExt, ValIdx<C>, C>;
  struct Op {
    ScanKind kind;
    __host__ __device__ Acc operator()(const Acc& a, const Acc& b) const {
      if constexpr (kExt) return scan_math::extreme(kind == ScanKind::Max, a, b);
      else return scan_math::combine<C>(kind, a, b);
    }
  };
  static __host__ __device__ Acc identity(ScanKind k) {
    if constexpr (kExt) return Acc{C(0), -1};
    else return scan_math::identity<C>(k);
  }
  static __device__ Acc load(const In* x, int64_t off, int64_t l) {
    if constexpr (kExt) return Acc{convert<C>(x[off]), l};
    else return convert<C>(x[off]);
  }
  static __device__ void store(S* y, int64_t* idx, int64_t off, const Acc& r) {
    if constexpr (kExt) {
      y[off] = convert<S>(r.v);
      idx[off] = r.i;
    } else {
      y[off] = convert<S>(r);
    }
  }
};

template <typename S, bool kExt, typename In>
__global__ void scan_lines_kernel(const In* x, S* y, int64_t* idx, int64_t O, int64_t L, int64_t I, ScanKind kind) {
  using K = Scan<S, kExt, In>;
  const typename K::Op op{kind};
  const int64_t n = O * I;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / I, i = t - o * I;
    int64_t off = o * L * I + i;
    typename K::Acc r = K::identity(kind);
    // kLineUnroll loads in flight before they are combined in order: a line's steps do not wait
    // for one load each
    for (int64_t l0 = 0; l0 < L; l0 += kLineUnroll, off += kLineUnroll * I) {
      typename K::Acc v[kLineUnroll];
#pragma unroll
      for (int k = 0; k < kLineUnroll; ++k)
        if (l0 + k < L) v[k] = K::load(x, off + k * I, l0 + k);
#pragma unroll
      for (int k = 0; k < kLineUnroll; ++k) {
        if (l0 + k < L) {
          r = op(r, v[k]);
          K::store(y, idx, off + k * I, r);
        }
      }
    }
  }
}

// cub::BlockScan's prefix callback: the running value before each tile (called by warp 0).
template <typename Acc, typename Op>
struct RunningPrefix {
  Acc running;
  Op op;
  __device__ Acc operator()(const Acc& tile_total) {
    Acc before = running;
    running = op(running, tile_total);
    return before;
  }
};

template <typename S, bool kExt, typename In>
__global__ void __launch_bounds__(kThreads) scan_rows_kernel(const In* x, S* y, int64_t* idx, int64_t O, int64_t L,
                                                             ScanKind kind) {
  using K = Scan<S, kExt, In>;
  using Acc = typename K::Acc;
  using BlockScan = cub::BlockScan<Acc, kThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const typename K::Op op{kind};
  for (int64_t row = blockIdx.x; row < O; row += gridDim.x) {
    RunningPrefix<Acc, typename K::Op> prefix{K::identity(kind), op};
    const int64_t base = row * L;
    for (int64_t t0 = 0; t0 < L; t0 += kTile) {
      // blocked arrangement: thread t holds elements t0 + t * kItems + k (the tail padded with
      // the identity, which only the padding's own results see)
      Acc items[kItems];
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int64_t l = t0 + threadIdx.x * kItems + k;
        items[k] = l < L ? K::load(x, base + l, l) : K::identity(kind);
      }
      BlockScan(temp).InclusiveScan(items, items, op, prefix);
      __syncthreads();  // temp is reused by the next tile
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int64_t l = t0 + threadIdx.x * kItems + k;
        if (l < L) K::store(y, idx, base + l, items[k]);
      }
    }
  }
}

// The device path's input: element l of one row (read as In), as the scan's type.
template <typename S, typename In>
struct LoadRow {
  const In* x;
  __host__ __device__ typename Scan<S, false>::Acc operator()(int64_t l) const {
#ifdef __CUDA_ARCH__
    return Scan<S, false, In>::load(x, l, l);
#else
    return Scan<S, false>::identity(ScanKind::Sum);  // never called on the host
#endif
  }
};

// The device path's output: the scan's value stored as S (float16/bfloat16 rounded from float).
template <typename S>
struct StoreAs {
  __host__ __device__ S operator()(const typename Scan<S, false>::Acc& v) const { return convert<S>(v); }
};

enum class Path { Lines, Rows, Device };

Path path_of(const ScanArgs& a) {
  if (a.I != 1 || a.L <= kShortRow) return Path::Lines;
  if (a.O <= kFewRows && a.L >= kLongRow) return Path::Device;
  return Path::Rows;
}

// The device path: cub::DeviceScan over each of the O rows (I == 1), for real sums, products and
// logcumsumexp only (nvcc time: cummax/cummin and complex scans of few long rows take the rows
// path), read and written in S through iterators (float16/bfloat16 widened and rounded on the
// fly; int32/uint8 read and widened as they are read: cuda_ops::scan_takes). query: the scratch
// bytes only.
template <typename S, typename X>
int64_t run_device(const ScanArgs& a, void* scratch, cudaStream_t stream, bool query) {
  using K = Scan<S, false>;
  using In = thrust::transform_iterator<LoadRow<S, X>, thrust::counting_iterator<int64_t>>;
  using Out = thrust::transform_output_iterator<StoreAs<S>, S*>;
  const X* x = static_cast<const X*>(a.in);
  S* y = static_cast<S*>(a.out);
  const typename K::Op op{a.kind};
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, In(thrust::counting_iterator<int64_t>(0), LoadRow<S, X>{x}),
                                             Out(y, StoreAs<S>{}), op, a.L, stream),
              "cub::DeviceScan::InclusiveScan");
  if (query) return static_cast<int64_t>(temp_bytes);
  for (int64_t row = 0; row < a.O; ++row) {
    const int64_t base = row * a.L;
    cuda::check(cub::DeviceScan::InclusiveScan(scratch, temp_bytes, In(thrust::counting_iterator<int64_t>(0), LoadRow<S, X>{x + base}),
                                               Out(y + base, StoreAs<S>{}), op, a.L, stream),
                "cub::DeviceScan::InclusiveScan");
  }
  return 0;
}

// One scan of kernel type S, read as In (Note [CUDA scans]); query: the scratch bytes only.
template <typename S, bool kExt, typename In = S>
int64_t run(const ScanArgs& a, void* scratch, cudaStream_t stream, bool query) {
  constexpr bool device_path = !kExt && !is_complex_v<S>;
  Path p = path_of(a);
  if constexpr (device_path) {
    if (p == Path::Device) return run_device<S, In>(a, scratch, stream, query);
  }
  if (query) return 0;
  const In* x = static_cast<const In*>(a.in);
  S* y = static_cast<S*>(a.out);
  if (p == Path::Lines) {
    scan_lines_kernel<S, kExt, In><<<blocks_for(a.O * a.I, kThreads), kThreads, 0, stream>>>(x, y, a.indices, a.O,
                                                                                              a.L, a.I, a.kind);
  } else {
    const int grid = static_cast<int>(std::min<int64_t>(a.O, int64_t{1} << 20));
    scan_rows_kernel<S, kExt, In><<<grid, kThreads, 0, stream>>>(x, y, a.indices, a.O, a.L, a.kind);
  }
  cuda::check_launch("scan kernel", stream);
  return 0;
}

// The kernel dtypes of Note [Scan layout]; complex has no cummax/cummin (the op refuses it).
int64_t dispatch(const ScanArgs& a, void* scratch, cudaStream_t stream, bool query) {
  const bool ext = a.kind == ScanKind::Max || a.kind == ScanKind::Min;
  switch (a.dtype) {
    case DType::Int64: return ext ? run<int64_t, true>(a, scratch, stream, query) : run<int64_t, false>(a, scratch, stream, query);
    case DType::Int32:  // read as int32 (scan_takes): cummax/cummin into int32, sums and products into int64
      if (ext) return run<int32_t, true>(a, scratch, stream, query);
      if (a.kind == ScanKind::Sum || a.kind == ScanKind::Prod) return run<int64_t, false, int32_t>(a, scratch, stream, query);
      break;
    case DType::UInt8:  // sums and products into int64
      if (a.kind == ScanKind::Sum || a.kind == ScanKind::Prod) return run<int64_t, false, uint8_t>(a, scratch, stream, query);
      break;
    case DType::Float16: return ext ? run<half, true>(a, scratch, stream, query) : run<half, false>(a, scratch, stream, query);
    case DType::BFloat16: return ext ? run<bf16, true>(a, scratch, stream, query) : run<bf16, false>(a, scratch, stream, query);
    case DType::Float32: return ext ? run<float, true>(a, scratch, stream, query) : run<float, false>(a, scratch, stream, query);
    case DType::Float64: return ext ? run<double, true>(a, scratch, stream, query) : run<double, false>(a, scratch, stream, query);
    case DType::Complex64:
      if (!ext) return run<cfloat, false>(a, scratch, stream, query);
      break;
    case DType::Complex128:
      if (!ext) return run<cdouble, false>(a, scratch, stream, query);
      break;
    default:
      break;
  }
  fail(Status::Internal, "cuda_ops::scan: no kernel for ", dtype_name(a.dtype));
}

}  // namespace

int64_t scan_scratch_bytes(const ScanArgs& a) {
  if (a.O * a.L * a.I == 0) return 0;
  return dispatch(a, nullptr, nullptr, true);
}

void scan(const ScanArgs& a, void* scratch, void* stream) {
  if (a.O * a.L * a.I == 0) return;
  dispatch(a, scratch, static_cast<cudaStream_t>(stream), false);
}

}  // namespace ct::cuda_ops
