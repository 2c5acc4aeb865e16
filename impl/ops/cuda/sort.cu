// The CUDA kernels of the sorting ops (Note [CUDA sort] in sort.h, Note [Sort keys]).
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "impl/cuda/runtime.h"
#include "impl/ops/cpu/sort_keys.h"
#include "impl/ops/cuda/common.cuh"
#include "impl/ops/cuda/ew.cuh"  // VecOf
#include "impl/ops/cuda/sort.h"

namespace ct::cuda_ops {

namespace {

using sortkey::Format;
using sortkey::Kind;

constexpr int kThreads = 256;

template <typename U>
struct KeyArgs {
  Kind kind;
  U exp_mask, mant_mask;
  bool descending;
  __device__ __forceinline__ U operator()(U bits) const {
    U k = sortkey::key_of<U>(bits, kind, exp_mask, mant_mask);
    return descending ? static_cast<U>(~k) : k;
  }
};

// The element of a sorted key (ka's output), where the key alone determines it: every key but
// that of +-0 and NaN (Note [Sort keys] merges -0.0 into 0.0 and all NaNs); false for those.
template <typename U>
__device__ __forceinline__ bool value_of_key(U k, const KeyArgs<U>& ka, U& bits) {
  const U sign = static_cast<U>(U(1) << (8 * sizeof(U) - 1));
  if (ka.descending) k = static_cast<U>(~k);
  if (ka.kind == Kind::Unsigned) bits = k;
  else if (ka.kind == Kind::Signed) bits = static_cast<U>(k ^ sign);
  else if (k == sign || k == static_cast<U>(~U(0))) return false;
  else bits = (k & sign) ? static_cast<U>(k & static_cast<U>(~sign)) : static_cast<U>(~k);
  return true;
}

template <typename U>
KeyArgs<U> key_args(DType dtype, bool descending) {
  Format f = sortkey::format_of(dtype);
  return {f.kind, static_cast<U>(f.exp_mask), static_cast<U>(f.mant_mask), descending};
}

// Note [Sort's element kernels in groups]: make_keys and finish_one_row, the passes before and
// after the radix sort of long rows, take kSortGroup consecutive elements a thread, loaded and
// stored as vectors where every pointer is aligned to its group (`vec`, group_aligned on the
// host), else one at a time. Measured on an H100 for 16M float16 (bench/micro/sort_f16.cu):
// make_keys took 78 us one element a thread, 50 us four or eight; finish_one_row 119 us one, 95
// us four, 149 us eight (64-byte stores of int64 indices a thread). The whole sort went from
// 1.06x torch's time to about 1.0x.
constexpr int kSortGroup = 4;

template <typename T>
bool group_aligned(const T* p, int group) {
  return reinterpret_cast<uintptr_t>(p) % (sizeof(T) * static_cast<uintptr_t>(group)) == 0;
}

// The grid of a kernel of groups of kSortGroup elements over n.
int group_blocks(int64_t n) { return blocks_for((n + kSortGroup - 1) / kSortGroup, kThreads); }

// Calls fn(i0, full) for each group of kSortGroup elements a thread takes (full: all of them are
// below n).
template <typename Fn>
__device__ __forceinline__ void for_each_group(int64_t n, Fn&& fn) {
  constexpr int G = kSortGroup;
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g * G < n; g += int64_t(gridDim.x) * blockDim.x)
    fn(g * G, g * G + G <= n);
}

// keys[i] = key of in[i]; pos[i] = i (when pos is given). Note [Sort's element kernels in groups].
template <typename U, typename P>
__global__ void make_keys(const U* in, int64_t n, KeyArgs<U> ka, U* keys, P* pos, bool vec) {
  constexpr int G = kSortGroup;
  for_each_group(n, [&](int64_t i0, bool full) {
    if (vec && full) {
      const VecOf<U, G> x = *reinterpret_cast<const VecOf<U, G>*>(in + i0);
      VecOf<U, G> k;
#pragma unroll
      for (int j = 0; j < G; ++j) k.v[j] = ka(x.v[j]);
      *reinterpret_cast<VecOf<U, G>*>(keys + i0) = k;
      if (pos) {
        VecOf<P, G> p;
#pragma unroll
        for (int j = 0; j < G; ++j) p.v[j] = static_cast<P>(i0 + j);
        *reinterpret_cast<VecOf<P, G>*>(pos + i0) = p;
      }
      return;
    }
    for (int64_t i = i0; i < n && i < i0 + G; ++i) {
      keys[i] = ka(in[i]);
      if (pos) pos[i] = static_cast<P>(i);
    }
  });
}

template <typename U, typename P>
void launch_make_keys(const U* in, int64_t n, KeyArgs<U> ka, U* keys, P* pos, cudaStream_t s, const char* what) {
  constexpr int G = kSortGroup;
  const bool vec = group_aligned(in, G) && group_aligned(keys, G) && (pos == nullptr || group_aligned(pos, G));
  make_keys<U, P><<<group_blocks(n), kThreads, 0, s>>>(in, n, ka, keys, pos, vec);
  cuda::check_launch(what, s);
}

template <typename R, typename P>
__global__ void row_of(const P* pos, int64_t n, int64_t R_, R* rows) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    rows[i] = static_cast<R>(static_cast<int64_t>(pos[i]) / R_);
}

// indices[i] = position of element i within its row (map[flat position] when map is given:
// Note [CUDA select]); values[i] = the element itself.
template <typename U, typename P>
__global__ void finish_sort(const U* in, const P* pos, int64_t n, int64_t R, U* values, int64_t* indices,
                            const int64_t* map) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = static_cast<int64_t>(pos[i]);
    indices[i] = map ? map[p] : p % R;
    if (values) values[i] = in[p];
  }
}

// finish_sort for one row (no row pass), from the sorted keys too: values come from the keys,
// read from the input only for +-0 and NaN, instead of a gather of every element. Note [Sort's
// element kernels in groups].
template <typename U, typename P>
__global__ void finish_one_row(const U* in, const U* keys, const P* pos, int64_t n, KeyArgs<U> ka, U* values,
                               int64_t* indices, const int64_t* map, bool vec) {
  constexpr int G = kSortGroup;
  for_each_group(n, [&](int64_t i0, bool full) {
    if (vec && full) {
      const VecOf<P, G> p = *reinterpret_cast<const VecOf<P, G>*>(pos + i0);
      VecOf<int64_t, G> ix;
#pragma unroll
      for (int j = 0; j < G; ++j) ix.v[j] = map ? map[p.v[j]] : static_cast<int64_t>(p.v[j]);
      *reinterpret_cast<VecOf<int64_t, G>*>(indices + i0) = ix;
      if (values) {
        const VecOf<U, G> k = *reinterpret_cast<const VecOf<U, G>*>(keys + i0);
        VecOf<U, G> v;
#pragma unroll
        for (int j = 0; j < G; ++j) {
          U bits;
          v.v[j] = value_of_key<U>(k.v[j], ka, bits) ? bits : in[p.v[j]];
        }
        *reinterpret_cast<VecOf<U, G>*>(values + i0) = v;
      }
      return;
    }
    for (int64_t i = i0; i < n && i < i0 + G; ++i) {
      const int64_t p = static_cast<int64_t>(pos[i]);
      indices[i] = map ? map[p] : p;
      if (values) {
        U bits;
        values[i] = value_of_key<U>(keys[i], ka, bits) ? bits : in[p];
      }
    }
  });
}

void check_cub(cudaError_t e, const char* what) { cuda::check(e, what); }

template <typename K, typename P>
void radix_pass(cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<P>& vals, int64_t n, int end_bit, ScratchFn& get,
                cudaStream_t s) {
  size_t bytes = 0;
  check_cub(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, n, 0, end_bit, s), "radix sort");
  void* tmp = get(static_cast<int64_t>(bytes > 0 ? bytes : 1));
  check_cub(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, vals, n, 0, end_bit, s), "radix sort");
}

int bits_for(int64_t v) {  // bits to hold 0 .. v
  int b = 1;
  while (b < 64 && (int64_t{1} << b) <= v) ++b;
  return b;
}

// The second pass of Note [CUDA sort]: the sorted positions stably by their row number (of
// end_bit bits, in RowT).
template <typename RowT, typename P>
void row_pass(cub::DoubleBuffer<P>& pos, int64_t n, int64_t R, int end_bit, ScratchFn& get, cudaStream_t s) {
  RowT* r0 = static_cast<RowT*>(get(n * static_cast<int64_t>(sizeof(RowT))));
  RowT* r1 = static_cast<RowT*>(get(n * static_cast<int64_t>(sizeof(RowT))));
  row_of<RowT, P><<<blocks_for(n, kThreads), kThreads, 0, s>>>(pos.Current(), n, R, r0);
  cuda::check_launch("sort rows", s);
  cub::DoubleBuffer<RowT> rows(r0, r1);
  radix_pass<RowT, P>(rows, pos, n, end_bit, get, s);
}

// Sorts the n = O * R keys of `in` stably by row, then key; returns the sorted flat positions
// as P (device memory from get) and leaves the sorted keys in *sorted_keys (when given). P is
// uint32_t whenever n < 2^32 (Note [CUDA sort]: a third less memory traffic a radix digit than
// int64 positions for 32-bit keys, two fifths for 16-bit ones), int64_t beyond.
template <typename U, typename P>
P* sort_positions(const U* in, DType dtype, int64_t O, int64_t R, bool descending, ScratchFn& get, cudaStream_t s,
                  const U** sorted_keys) {
  const int64_t n = O * R;
  U* k0 = static_cast<U*>(get(n * sizeof(U)));
  U* k1 = static_cast<U*>(get(n * sizeof(U)));
  P* p0 = static_cast<P*>(get(n * static_cast<int64_t>(sizeof(P))));
  P* p1 = static_cast<P*>(get(n * static_cast<int64_t>(sizeof(P))));
  launch_make_keys<U, P>(in, n, key_args<U>(dtype, descending), k0, p0, s, "sort keys");
  cub::DoubleBuffer<U> keys(k0, k1);
  cub::DoubleBuffer<P> pos(p0, p1);
  radix_pass<U, P>(keys, pos, n, 8 * sizeof(U), get, s);
  if (sorted_keys) *sorted_keys = keys.Current();
  if (O > 1) {  // stable by row number: rows grouped, each still in key order
    const int end_bit = bits_for(O - 1);
    if constexpr (sizeof(P) == 4) row_pass<uint32_t, P>(pos, n, R, end_bit, get, s);  // n < 2^32: O too
    else if (end_bit <= 32) row_pass<uint32_t, P>(pos, n, R, end_bit, get, s);
    else row_pass<uint64_t, P>(pos, n, R, end_bit, get, s);
  }
  return pos.Current();
}

// Calls fn(P{}) with the narrowest position type of sort_positions for n elements.
template <typename Fn>
void by_positions(int64_t n, Fn&& fn) {
  if (n <= int64_t{0xFFFFFFFF}) fn(uint32_t{});
  else fn(int64_t{});
}

// head[i] = 1 where sorted element i starts a new unique value (each NaN does).
template <typename U>
__global__ void unique_heads(const U* keys, int64_t n, Kind kind, int64_t* head) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    head[i] = i == 0 || keys[i] != keys[i - 1] || sortkey::is_nan_key(keys[i], kind);
}

// From the running group numbers gid (1-based): each group's first sorted position and value,
// and the inverse of each input element.
template <typename U, typename P>
__global__ void unique_scatter(const U* in, const P* pos, const int64_t* head, const int64_t* gid, int64_t n,
                               int64_t* starts, U* values, int64_t* inverse) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t g = gid[i] - 1;
    if (head[i]) {
      starts[g] = i;
      values[g] = in[pos[i]];
    }
    if (inverse) inverse[pos[i]] = g;
  }
}

__global__ void unique_counts(const int64_t* starts, int64_t u, int64_t n, int64_t* counts) {
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g < u; g += int64_t(gridDim.x) * blockDim.x)
    counts[g] = (g + 1 < u ? starts[g + 1] : n) - starts[g];
}

template <typename U>
__global__ void search_kernel(const U* keys, const int64_t* sorter, int64_t S, int64_t L, const U* vals, int64_t n,
                              int64_t per_row, KeyArgs<U> ka, bool right, bool out_int32, void* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = S == 1 ? 0 : i / per_row;
    const int64_t p = sortkey::search_row<U>(keys + r * L, sorter ? sorter + r * L : nullptr, L, ka(vals[i]), right,
                                             ka.kind);
    if (out_int32) static_cast<int32_t*>(out)[i] = static_cast<int32_t>(p);
    else static_cast<int64_t*>(out)[i] = p;
  }
}

// Note [CUDA sort], short rows: rows of at most kBlockSortMax elements are sorted one block a
// row in shared memory instead of the two global passes (one launch). Each block holds the
// row's keys in a blocked arrangement (thread t holds elements t * kItems ...), padded with the
// largest key at positions >= R, sorted by cub::BlockRadixSort, which is stable: padding stays
// after the row's own largest keys, and ties keep their input order. The payload is the position
// in the row as 16 bits (rows are at most kBlockSortMax < 65536 long), widened to int64 only when
// written, not int64 positions (a quarter of their shared-memory exchange and registers). Keys of
// 1 and 2 bytes travel with their position in one 32-bit word, key << 16 | position, sorted on the
// key's bits only (the sort is stable, so the position bits need no pass): a keys-only sort, one
// exchange a digit instead of two. The row is read through cub::BlockLoad's transpose (coalesced
// reads) and the sort ends striped (SortBlockedToStriped), so a warp's stores of values and
// indices are consecutive: one 32-byte sector per 4 indices, not one per index.
template <typename U, int kBlock, int kItems>
__global__ void __launch_bounds__(kBlock) block_sort_rows(const U* in, int64_t R, KeyArgs<U> ka, U* values,
                                                          int64_t* indices, const int64_t* map) {
  static_assert(kBlock * kItems <= 65536, "row positions must fit 16 bits");
  using Load = cub::BlockLoad<U, kBlock, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  const int64_t row = blockIdx.x;
  const U* x = in + row * R;
  const int n = static_cast<int>(R);
  U raw[kItems];       // the row in the blocked arrangement, read coalesced (through shared memory)
  uint16_t pos[kItems];  // after the sort: striped, pos[j] the position of sorted element j * kBlock + t
  if constexpr (sizeof(U) <= 2) {
    using Sort = cub::BlockRadixSort<uint32_t, kBlock, kItems>;
    __shared__ union {
      typename Load::TempStorage load;
      typename Sort::TempStorage sort;
    } tmp;
    Load(tmp.load).Load(x, raw, n);
    __syncthreads();  // tmp is the sort's next
    uint32_t w[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int p = static_cast<int>(threadIdx.x) * kItems + j;
      const U key = p < n ? ka(raw[j]) : static_cast<U>(~U(0));
      w[j] = static_cast<uint32_t>(key) << 16 | static_cast<uint32_t>(p);
    }
    Sort(tmp.sort).SortBlockedToStriped(w, 16, 16 + 8 * static_cast<int>(sizeof(U)));
#pragma unroll
    for (int j = 0; j < kItems; ++j) pos[j] = static_cast<uint16_t>(w[j] & 0xFFFFu);
  } else {
    using Sort = cub::BlockRadixSort<U, kBlock, kItems, uint16_t>;
    __shared__ union {
      typename Load::TempStorage load;
      typename Sort::TempStorage sort;
    } tmp;
    Load(tmp.load).Load(x, raw, n);
    __syncthreads();  // tmp is the sort's next
    U keys[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int p = static_cast<int>(threadIdx.x) * kItems + j;
      keys[j] = p < n ? ka(raw[j]) : static_cast<U>(~U(0));
      pos[j] = static_cast<uint16_t>(p);
    }
    Sort(tmp.sort).SortBlockedToStriped(keys, pos);
  }
  // striped: consecutive threads write consecutive outputs (coalesced stores)
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int q = j * kBlock + static_cast<int>(threadIdx.x);
    if (q < n) {
      indices[row * R + q] = map ? map[row * R + pos[j]] : static_cast<int64_t>(pos[j]);
      if (values) values[row * R + q] = x[pos[j]];
    }
  }
}

// The longest row block_sort_rows takes: 4096 elements, 8192 for keys of 1 and 2 bytes (their
// key << 16 | position words need 32 KiB of shared memory a block at 8192, and the device-wide
// path, which sorts such keys in few digit passes but spends two more on the row number, ran
// 1.28x (float16) and 1.87x (uint8) torch's time over rows of 8192). Wider keys keep 4096: an
// 8192 class of 8-byte keys would not fit 48 KiB of static shared memory, and the device-wide
// path already beats torch for 4-byte keys there (0.85x, float32).
template <typename U>
constexpr int64_t kBlockSortMax = sizeof(U) <= 2 ? 8192 : 4096;

template <typename U>
void launch_block_sort(const U* x, int64_t O, int64_t R, KeyArgs<U> ka, U* values, int64_t* indices,
                       const int64_t* map, cudaStream_t s) {
  const unsigned grid = static_cast<unsigned>(O);
  if (R <= 128) block_sort_rows<U, 32, 4><<<grid, 32, 0, s>>>(x, R, ka, values, indices, map);  // topk's few kept
  else if (R <= 512) block_sort_rows<U, 128, 4><<<grid, 128, 0, s>>>(x, R, ka, values, indices, map);
  else if (R <= 2048) block_sort_rows<U, 256, 8><<<grid, 256, 0, s>>>(x, R, ka, values, indices, map);
  else if (R <= 4096) block_sort_rows<U, 256, 16><<<grid, 256, 0, s>>>(x, R, ka, values, indices, map);
  else if constexpr (sizeof(U) <= 2) block_sort_rows<U, 512, 16><<<grid, 512, 0, s>>>(x, R, ka, values, indices, map);
  cuda::check_launch("sort", s);
}

// sort_rows for one key width; map: see finish_sort (null: indices are positions in the row).
template <typename U>
void sort_rows_u(const U* x, DType dtype, int64_t O, int64_t R, bool descending, U* values, int64_t* indices,
                 const int64_t* map, ScratchFn& get, cudaStream_t s) {
  if (R <= kBlockSortMax<U> && O <= 0x7FFFFFFF) {
    launch_block_sort<U>(x, O, R, key_args<U>(dtype, descending), values, indices, map, s);
    return;
  }
  const int64_t n = O * R;
  by_positions(n, [&](auto ptag) {
    using P = decltype(ptag);
    const U* keys = nullptr;
    P* pos = sort_positions<U, P>(x, dtype, O, R, descending, get, s, &keys);
    if (O == 1) {
      constexpr int G = kSortGroup;
      const bool vec = group_aligned(keys, G) && group_aligned(pos, G) && group_aligned(indices, G) &&
                       (values == nullptr || group_aligned(values, G));
      finish_one_row<U, P><<<group_blocks(n), kThreads, 0, s>>>(x, keys, pos, n, key_args<U>(dtype, descending),
                                                                   values, indices, map, vec);
    } else finish_sort<U, P><<<blocks_for(n, kThreads), kThreads, 0, s>>>(x, pos, n, R, values, indices, map);
    cuda::check_launch("sort", s);
  });
}

// Note [CUDA select]: topk and kthvalue of rows longer than kSelectMinRow find the k-th key of
// each row (in the op's order: ~key for largest) by a radix select, as PyTorch's
// SortingRadixSelect does, instead of sorting whole rows:
// 1. one pass per 8-bit digit of the key, most significant first: select_hist counts, over the
//    elements whose higher digits equal the prefix found so far, each value of the digit (each
//    row is split into chunks of kSelChunk elements, one block a chunk: a long single row uses
//    many blocks, many rows one or a few blocks each; shared-memory histograms added into one
//    global [O, 256] histogram); select_digit (one block a row) picks the digit holding the
//    wanted rank and clears the histogram for the next pass. After the last digit the prefix is
//    the k-th key and `rank` the number of elements equal to it that precede the k-th among them.
// 2. select_count counts, per chunk, the elements below the k-th key and those equal to it;
//    select_offsets scans those counts along each row.
// 3. select_write places, in input order, the elements below the k-th key at [0, less) and the
//    first rank + 1 elements equal to it after them (chunks with nothing to write return at
//    once), as values and row positions: exactly the first k of a stable sort, unordered.
//    kthvalue keeps only the last of them.
// 4. topk sorts those k per row (stably, so equal keys keep input order) with sort_rows_u, the
//    positions mapped back through the selected row positions.
// The result equals the stable sort's first k (values and indices), as on the CPU. Bytes read:
// (key bytes + 2) passes over the input, against a full sort's ~24 bytes an element a digit.
constexpr int kSelThreads = 256;
constexpr int64_t kSelChunk = 16384;
constexpr int64_t kSelectMinRow = 1024;

struct SelRow {
  uint64_t prefix;  // the digits found so far, in place
  int64_t rank;     // the wanted rank among the elements that match the prefix
};

__device__ __forceinline__ void chunk_of(int64_t R, int64_t chunk, int B, int64_t& row, int64_t& lo, int64_t& hi) {
  row = blockIdx.x / B;
  lo = static_cast<int64_t>(blockIdx.x % B) * chunk;
  hi = lo + chunk < R ? lo + chunk : R;
}

__global__ void select_init(SelRow* st, int64_t O, int64_t rank, int* hist) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < O * 256; i += int64_t(gridDim.x) * blockDim.x) {
    hist[i] = 0;
    if (i < O) st[i] = {0, rank};
  }
}

template <typename U>
__global__ void __launch_bounds__(kSelThreads) select_hist(const U* in, int64_t R, int64_t chunk, int B, KeyArgs<U> ka,
                                                           const SelRow* st, int shift, int* hist) {
  __shared__ int h[256];
  for (int d = threadIdx.x; d < 256; d += blockDim.x) h[d] = 0;
  __syncthreads();
  int64_t row, lo, hi;
  chunk_of(R, chunk, B, row, lo, hi);
  const U* x = in + row * R;
  const uint64_t high = shift + 8 >= 64 ? 0 : ~uint64_t{0} << (shift + 8);
  const uint64_t prefix = st[row].prefix & high;
  for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    const uint64_t k = ka(x[i]);
    if ((k & high) == prefix) atomicAdd(&h[(k >> shift) & 255], 1);
  }
  __syncthreads();
  for (int d = threadIdx.x; d < 256; d += blockDim.x)
    if (h[d]) atomicAdd(&hist[row * 256 + d], h[d]);
}

__global__ void __launch_bounds__(256) select_digit(int* hist, SelRow* st, int shift) {
  using Scan = cub::BlockScan<int64_t, 256>;
  __shared__ typename Scan::TempStorage tmp;
  int* h = hist + blockIdx.x * int64_t{256};
  const int64_t c = h[threadIdx.x];
  const int64_t rank = st[blockIdx.x].rank;  // read by all before the scan's barriers, written after
  h[threadIdx.x] = 0;
  int64_t before = 0;
  Scan(tmp).ExclusiveSum(c, before);
  if (before <= rank && rank < before + c) {  // exactly one digit holds the rank
    st[blockIdx.x].prefix |= static_cast<uint64_t>(threadIdx.x) << shift;
    st[blockIdx.x].rank = rank - before;
  }
}

// counts[row * B + b]: (elements below the k-th key) << 32 | (elements equal to it), in chunk b.
template <typename U>
__global__ void __launch_bounds__(kSelThreads) select_count(const U* in, int64_t R, int64_t chunk, int B, KeyArgs<U> ka,
                                                            const SelRow* st, int64_t* counts) {
  using Reduce = cub::BlockReduce<int64_t, kSelThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  int64_t row, lo, hi;
  chunk_of(R, chunk, B, row, lo, hi);
  const U* x = in + row * R;
  const U kth = static_cast<U>(st[row].prefix);
  int64_t c = 0;
  for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    const U k = ka(x[i]);
    c += k < kth ? (int64_t{1} << 32) : k == kth ? 1 : 0;
  }
  c = Reduce(tmp).Sum(c);
  if (threadIdx.x == 0) counts[blockIdx.x] = c;
}

// offsets[row * B + b]: the sum of counts[row * B + j], j < b (one block a row).
__global__ void __launch_bounds__(256) select_offsets(const int64_t* counts, int B, int64_t* offsets) {
  using Scan = cub::BlockScan<int64_t, 256>;
  __shared__ typename Scan::TempStorage tmp;
  const int64_t base = blockIdx.x * int64_t(B);
  int64_t run = 0;
  for (int b0 = 0; b0 < B; b0 += 256) {
    const int b = b0 + threadIdx.x;
    int64_t ex = 0, total = 0;
    Scan(tmp).ExclusiveSum(b < B ? counts[base + b] : 0, ex, total);
    if (b < B) offsets[base + b] = run + ex;
    run += total;
    __syncthreads();
  }
}

// Step 3 of Note [CUDA select]: into values/indices [O, k] (kth: [O], the last one only).
template <typename U>
__global__ void __launch_bounds__(kSelThreads) select_write(const U* in, int64_t R, int64_t chunk, int B, KeyArgs<U> ka,
                                                            const SelRow* st, const int64_t* counts,
                                                            const int64_t* offsets, int64_t k, bool kth, U* values,
                                                            int64_t* indices) {
  using Scan = cub::BlockScan<int64_t, kSelThreads>;
  __shared__ typename Scan::TempStorage tmp;
  constexpr int64_t kLow = (int64_t{1} << 32) - 1;
  int64_t row, lo, hi;
  chunk_of(R, chunk, B, row, lo, hi);
  const U* x = in + row * R;
  const U kth_key = static_cast<U>(st[row].prefix);
  const int64_t take = st[row].rank + 1, less = k - take;  // equal elements kept; elements below
  const int64_t mine = counts[blockIdx.x];
  int64_t less_at = offsets[blockIdx.x] >> 32, eq_at = offsets[blockIdx.x] & kLow;
  const int64_t less_end = less_at + (mine >> 32);
  if (less_at == less_end && (eq_at >= take || (mine & kLow) == 0)) return;  // nothing of this chunk is kept
  if (kth && !(eq_at < take && take - 1 < eq_at + (mine & kLow))) return;   // the k-th is in another chunk
  for (int64_t t0 = lo; t0 < hi; t0 += blockDim.x) {
    const int64_t i = t0 + threadIdx.x;
    const U key = i < hi ? ka(x[i]) : U(0);
    const bool lt = i < hi && key < kth_key, eq = i < hi && key == kth_key;
    int64_t ex = 0, total = 0;
    Scan(tmp).ExclusiveSum(lt ? (int64_t{1} << 32) : eq ? 1 : 0, ex, total);
    int64_t at = -1;
    if (lt && !kth) at = less_at + (ex >> 32);
    if (eq) {
      const int64_t r = eq_at + (ex & kLow);
      if (kth ? r == take - 1 : r < take) at = kth ? 0 : less + r;
    }
    if (at >= 0) {
      const int64_t o = (kth ? row : row * k + at);
      values[o] = x[i];
      indices[o] = i;
    }
    less_at += total >> 32;
    eq_at += total & kLow;
    if (less_at == less_end && eq_at >= take) break;  // the block's aggregate: every thread leaves together
    __syncthreads();
  }
}

// Note [CUDA select], medium rows (kSelectMinRow < R, the row's keys at most kRowSelectMaxBytes
// and R <= kRowSelectMax): steps 1 to 3 in ONE launch, one block a row (as PyTorch's gatherTopK,
// which takes one block a slice at any length), instead of the chunked kernels' 3 + 2 * key bytes
// launches that each read the row from global memory again: the block turns its row into keys in
// (dynamic) shared memory once, finds the k-th key digit by digit there (a 256-bin shared
// histogram per 8-bit digit; lanes of a warp holding the same digit add once, through
// __match_any_sync, so the few top digits of clustered floats cost no serialised atomics), then
// writes the selected elements in input order exactly as select_write does. One int scan carries
// both counts of a 256-element tile (below << 16 | equal: each at most 256). The bound was 4096
// elements in 16 KiB of static shared memory; rows of 8192 then took the chunked kernels and ran
// 1.1x-1.6x torch's time (topk10/topk1000 of [8192, 8192], every dtype). Keys of more than 48 KiB
// (float64/int64 rows of 8192, 4-byte rows over 12288) take the opt-in shared memory
// (cudaFuncAttributeMaxDynamicSharedMemorySize) where the device has it, else the chunked path.
// kthvalue takes this launch from kKthSelectMinRow on (a whole-row sort, then a narrow and copy,
// cost [64, 1000] 1.37x torch's time); topk keeps the whole-row sort up to kSelectMinRow.
constexpr int64_t kRowSelectMax = kSelChunk;         // longer rows: the chunked kernels, several blocks a row
constexpr int64_t kRowSelectMaxBytes = 64 * 1024;    // the row's keys in shared memory
constexpr int64_t kSmemDefaultBytes = 48 * 1024;     // a block's shared memory without opting in
constexpr int64_t kRowSelStaticBytes = 2048;         // above the static hist, scan storage and flags
constexpr int64_t kKthSelectMinRow = 128;
constexpr int kRowSelThreads = 256;

template <typename U>
__global__ void __launch_bounds__(kRowSelThreads) row_select(const U* in, int64_t R, KeyArgs<U> ka, int64_t k, bool kth,
                                                             U* values, int64_t* indices) {
  using Scan = cub::BlockScan<int, kRowSelThreads>;
  extern __shared__ __align__(16) unsigned char row_select_smem[];
  U* key = reinterpret_cast<U*>(row_select_smem);  // R keys (the launch's dynamic shared memory)
  __shared__ int hist[256];
  __shared__ typename Scan::TempStorage tmp;
  __shared__ int found_digit, found_rank;
  const int64_t row = blockIdx.x;
  const U* x = in + row * R;
  const int n = static_cast<int>(R), lane = threadIdx.x & 31;
  for (int i = threadIdx.x; i < n; i += kRowSelThreads) key[i] = ka(x[i]);
  hist[threadIdx.x] = 0;  // blockDim.x == kRowSelThreads == 256 bins
  uint64_t prefix = 0;    // the digits found so far, in place (the same in every thread)
  int rank = static_cast<int>(k - 1);
  __syncthreads();
  for (int shift = 8 * static_cast<int>(sizeof(U)) - 8; shift >= 0; shift -= 8) {
    const uint64_t high = shift + 8 >= 64 ? 0 : ~uint64_t{0} << (shift + 8);
    for (int base = 0; base < n; base += kRowSelThreads) {  // the same trip count in every thread
      const int i = base + threadIdx.x;
      int d = 256;  // no digit: past the row, or another prefix
      if (i < n) {
        const uint64_t kk = key[i];
        if ((kk & high) == prefix) d = static_cast<int>((kk >> shift) & 255);
      }
      const unsigned peers = __match_any_sync(0xFFFFFFFFu, d);
      if (d < 256 && lane == __ffs(peers) - 1) atomicAdd(&hist[d], __popc(peers));
    }
    __syncthreads();
    const int c = hist[threadIdx.x];
    hist[threadIdx.x] = 0;  // only this thread reads or clears bin threadIdx.x until the next barrier
    int before = 0;
    Scan(tmp).ExclusiveSum(c, before);
    if (before <= rank && rank < before + c) {  // exactly one digit holds the rank
      found_digit = static_cast<int>(threadIdx.x);
      found_rank = rank - before;
    }
    __syncthreads();
    prefix |= static_cast<uint64_t>(found_digit) << shift;
    rank = found_rank;  // rewritten only after the next pass's barrier
  }
  // Step 3 over the keys in shared memory: the elements below the k-th key, then the first
  // rank + 1 equal to it, in input order; values are the input elements themselves.
  const U kth_key = static_cast<U>(prefix);
  const int take = rank + 1, less = static_cast<int>(k) - take;
  int less_at = 0, eq_at = 0;
  for (int base = 0; base < n; base += kRowSelThreads) {
    const int i = base + threadIdx.x;
    const U kk = i < n ? key[i] : U(0);
    const bool lt = i < n && kk < kth_key, eq = i < n && kk == kth_key;
    int ex = 0, total = 0;
    Scan(tmp).ExclusiveSum(lt ? (1 << 16) : eq ? 1 : 0, ex, total);
    int at = -1;
    if (lt && !kth) at = less_at + (ex >> 16);
    if (eq) {
      const int r = eq_at + (ex & 0xFFFF);
      if (kth ? r == take - 1 : r < take) at = kth ? 0 : less + r;
    }
    if (at >= 0) {
      const int64_t o = kth ? row : row * k + at;
      values[o] = x[i];
      indices[o] = i;
    }
    less_at += total >> 16;
    eq_at += total & 0xFFFF;
    if (less_at == less && eq_at >= take) break;  // the block's aggregate: every thread leaves together
    __syncthreads();
  }
}

// Whether row_select may hold `bytes` of keys on the current device: up to kRowSelectMaxBytes,
// beyond the default shared memory only where the opt-in limit allows (the kernel's dynamic
// limit then raised to kRowSelectMaxBytes).
template <typename U>
bool row_select_fits(int64_t bytes) {
  if (bytes > kRowSelectMaxBytes) return false;
  if (bytes + kRowSelStaticBytes <= kSmemDefaultBytes) return true;
  int dev = 0, optin = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) return false;
  if (kRowSelectMaxBytes + kRowSelStaticBytes > optin) return false;
  cuda::check(cudaFuncSetAttribute(row_select<U>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(kRowSelectMaxBytes)),
              "topk select attribute");
  return true;
}

// Steps 1 to 3 of Note [CUDA select] for the 0-based rank `rank` of each row; false when the
// rows do not fit its counters (then the caller sorts).
template <typename U>
bool select_rows(const U* x, DType dtype, int64_t O, int64_t R, int64_t k, bool descending, bool kth, U* values,
                 int64_t* indices, ScratchFn& get, cudaStream_t s) {
  const KeyArgs<U> ka = key_args<U>(dtype, descending);
  const int64_t bytes = R * static_cast<int64_t>(sizeof(U));
  if (R <= kRowSelectMax && O <= 0x7FFFFFFF && row_select_fits<U>(bytes)) {
    row_select<U><<<static_cast<unsigned>(O), kRowSelThreads, static_cast<size_t>(bytes), s>>>(x, R, ka, k, kth, values,
                                                                                             indices);
    cuda::check_launch("topk select", s);
    return true;
  }
  if (R <= kSelectMinRow) return false;  // kthvalue's short rows that did not fit: sorted whole
  const int64_t chunk = kSelChunk;
  const int64_t B = (R + chunk - 1) / chunk;
  if (R >= 0x7FFFFFFF || O * B >= 0x7FFFFFFF) return false;
  const unsigned grid = static_cast<unsigned>(O * B);
  SelRow* st = static_cast<SelRow*>(get(O * static_cast<int64_t>(sizeof(SelRow))));
  int* hist = static_cast<int*>(get(O * 256 * 4));
  int64_t* counts = static_cast<int64_t*>(get(O * B * 8));
  int64_t* offsets = static_cast<int64_t*>(get(O * B * 8));
  select_init<<<blocks_for(O * 256, kThreads), kThreads, 0, s>>>(st, O, k - 1, hist);
  cuda::check_launch("topk select", s);
  for (int shift = 8 * static_cast<int>(sizeof(U)) - 8; shift >= 0; shift -= 8) {
    select_hist<U><<<grid, kSelThreads, 0, s>>>(x, R, chunk, static_cast<int>(B), ka, st, shift, hist);
    cuda::check_launch("topk select", s);
    select_digit<<<static_cast<unsigned>(O), 256, 0, s>>>(hist, st, shift);
    cuda::check_launch("topk select", s);
  }
  select_count<U><<<grid, kSelThreads, 0, s>>>(x, R, chunk, static_cast<int>(B), ka, st, counts);
  cuda::check_launch("topk select", s);
  select_offsets<<<static_cast<unsigned>(O), 256, 0, s>>>(counts, static_cast<int>(B), offsets);
  cuda::check_launch("topk select", s);
  select_write<U><<<grid, kSelThreads, 0, s>>>(x, R, chunk, static_cast<int>(B), ka, st, counts, offsets, k, kth,
                                               values, indices);
  cuda::check_launch("topk select", s);
  return true;
}

}  // namespace

void sort_rows(const void* in, DType dtype, int64_t O, int64_t R, bool descending, void* values, int64_t* indices,
               ScratchFn& get, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    sort_rows_u<U>(static_cast<const U*>(in), dtype, O, R, descending, static_cast<U*>(values), indices, nullptr, get,
                   s);
  });
}

bool topk_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, bool largest, void* values,
               int64_t* indices, ScratchFn& get, void* stream) {
  if (R <= kSelectMinRow || k >= R) return false;
  auto s = static_cast<cudaStream_t>(stream);
  bool done = false;
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    U* sel_v = static_cast<U*>(get(O * k * static_cast<int64_t>(sizeof(U))));
    int64_t* sel_i = static_cast<int64_t*>(get(O * k * 8));
    done = select_rows<U>(static_cast<const U*>(in), dtype, O, R, k, largest, false, sel_v, sel_i, get, s);
    if (done) sort_rows_u<U>(sel_v, dtype, O, k, largest, static_cast<U*>(values), indices, sel_i, get, s);
  });
  return done;
}

bool kth_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, void* values, int64_t* indices,
              ScratchFn& get, void* stream) {
  if (R <= kKthSelectMinRow) return false;
  auto s = static_cast<cudaStream_t>(stream);
  bool done = false;
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    done = select_rows<U>(static_cast<const U*>(in), dtype, O, R, k + 1, false, true, static_cast<U*>(values), indices,
                          get, s);
  });
  return done;
}

int64_t unique_flat(const void* in, DType dtype, int64_t n, void* values, int64_t* inverse, int64_t* counts,
                    ScratchFn& get, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  int64_t u = 0;
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(in);
    by_positions(n, [&](auto ptag) {
      using P = decltype(ptag);
      const U* keys = nullptr;
      P* pos = sort_positions<U, P>(x, dtype, 1, n, false, get, s, &keys);
      int64_t* head = static_cast<int64_t*>(get(n * 8));
      int64_t* gid = static_cast<int64_t*>(get(n * 8));
      int64_t* starts = static_cast<int64_t*>(get(n * 8));
      const int blocks = blocks_for(n, kThreads);
      unique_heads<U><<<blocks, kThreads, 0, s>>>(keys, n, sortkey::format_of(dtype).kind, head);
      cuda::check_launch("unique", s);
      size_t bytes = 0;
      check_cub(cub::DeviceScan::InclusiveSum(nullptr, bytes, head, gid, n, s), "unique scan");
      void* tmp = get(static_cast<int64_t>(bytes > 0 ? bytes : 1));
      check_cub(cub::DeviceScan::InclusiveSum(tmp, bytes, head, gid, n, s), "unique scan");
      unique_scatter<U, P><<<blocks, kThreads, 0, s>>>(x, pos, head, gid, n, starts, static_cast<U*>(values), inverse);
      cuda::check_launch("unique", s);
      cuda::on_host_sync("unique");
      cuda::check(cudaMemcpyAsync(&u, gid + n - 1, 8, cudaMemcpyDeviceToHost, s), "unique: copy the count");
      cuda::check(cudaStreamSynchronize(s), "unique: synchronize");
      if (counts) {
        unique_counts<<<blocks_for(u, kThreads), kThreads, 0, s>>>(starts, u, n, counts);
        cuda::check_launch("unique counts", s);
      }
    });
  });
  return u;
}

void searchsorted(const void* seq, const int64_t* sorter, int64_t S, int64_t L, const void* vals, int64_t n,
                  int64_t per_row, DType dtype, bool right, bool out_int32, void* out, ScratchFn& get, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    const KeyArgs<U> ka = key_args<U>(dtype, false);
    U* keys = static_cast<U*>(get((S * L > 0 ? S * L : 1) * static_cast<int64_t>(sizeof(U))));
    if (S * L > 0) {
      launch_make_keys<U, uint32_t>(static_cast<const U*>(seq), S * L, ka, keys, nullptr, s, "searchsorted keys");
    }
    search_kernel<U><<<blocks_for(n, kThreads), kThreads, 0, s>>>(keys, sorter, S, L, static_cast<const U*>(vals), n,
                                                                  per_row, ka, right, out_int32, out);
    cuda::check_launch("searchsorted", s);
  });
}

}  // namespace ct::cuda_ops
