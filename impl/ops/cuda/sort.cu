// The CUDA kernels of the sorting ops (Note [CUDA sort] in sort.h, Note [Sort keys]).
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "impl/cuda/runtime.h"
#include "impl/ops/cpu/sort_keys.h"
#include "impl/ops/cuda/common.cuh"
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

template <typename U>
KeyArgs<U> key_args(DType dtype, bool descending) {
  Format f = sortkey::format_of(dtype);
  return {f.kind, static_cast<U>(f.exp_mask), static_cast<U>(f.mant_mask), descending};
}

// keys[i] = key of in[i]; pos[i] = i (when pos is given).
template <typename U>
__global__ void make_keys(const U* in, int64_t n, KeyArgs<U> ka, U* keys, int64_t* pos) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    keys[i] = ka(in[i]);
    if (pos) pos[i] = i;
  }
}

template <typename R>
__global__ void row_of(const int64_t* pos, int64_t n, int64_t R_, R* rows) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    rows[i] = static_cast<R>(pos[i] / R_);
}

// indices[i] = position of element i within its row; values[i] = the element itself.
template <typename U>
__global__ void finish_sort(const U* in, const int64_t* pos, int64_t n, int64_t R, U* values, int64_t* indices) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = pos[i];
    indices[i] = p % R;
    if (values) values[i] = in[p];
  }
}

void check_cub(cudaError_t e, const char* what) { cuda::check(e, what); }

template <typename K>
void radix_pass(cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<int64_t>& vals, int64_t n, int end_bit, ScratchFn& get,
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
template <typename RowT>
void row_pass(cub::DoubleBuffer<int64_t>& pos, int64_t n, int64_t R, int end_bit, ScratchFn& get, cudaStream_t s) {
  RowT* r0 = static_cast<RowT*>(get(n * static_cast<int64_t>(sizeof(RowT))));
  RowT* r1 = static_cast<RowT*>(get(n * static_cast<int64_t>(sizeof(RowT))));
  row_of<RowT><<<blocks_for(n, kThreads), kThreads, 0, s>>>(pos.Current(), n, R, r0);
  cuda::check_launch("sort rows", s);
  cub::DoubleBuffer<RowT> rows(r0, r1);
  radix_pass<RowT>(rows, pos, n, end_bit, get, s);
}

// Sorts the n = O * R keys of `in` stably by row, then key; returns the sorted flat positions
// (device memory from get) and leaves the sorted keys in *sorted_keys (when given).
template <typename U>
int64_t* sort_positions(const U* in, DType dtype, int64_t O, int64_t R, bool descending, ScratchFn& get,
                        cudaStream_t s, const U** sorted_keys) {
  const int64_t n = O * R;
  U* k0 = static_cast<U*>(get(n * sizeof(U)));
  U* k1 = static_cast<U*>(get(n * sizeof(U)));
  int64_t* p0 = static_cast<int64_t*>(get(n * 8));
  int64_t* p1 = static_cast<int64_t*>(get(n * 8));
  make_keys<U><<<blocks_for(n, kThreads), kThreads, 0, s>>>(in, n, key_args<U>(dtype, descending), k0, p0);
  cuda::check_launch("sort keys", s);
  cub::DoubleBuffer<U> keys(k0, k1);
  cub::DoubleBuffer<int64_t> pos(p0, p1);
  radix_pass<U>(keys, pos, n, 8 * sizeof(U), get, s);
  if (sorted_keys) *sorted_keys = keys.Current();
  if (O > 1) {  // stable by row number: rows grouped, each still in key order
    const int end_bit = bits_for(O - 1);
    if (end_bit <= 32) row_pass<uint32_t>(pos, n, R, end_bit, get, s);
    else row_pass<uint64_t>(pos, n, R, end_bit, get, s);
  }
  return pos.Current();
}

// head[i] = 1 where sorted element i starts a new unique value (each NaN does).
template <typename U>
__global__ void unique_heads(const U* keys, int64_t n, Kind kind, int64_t* head) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    head[i] = i == 0 || keys[i] != keys[i - 1] || sortkey::is_nan_key(keys[i], kind);
}

// From the running group numbers gid (1-based): each group's first sorted position and value,
// and the inverse of each input element.
template <typename U>
__global__ void unique_scatter(const U* in, const int64_t* pos, const int64_t* head, const int64_t* gid, int64_t n,
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
// after the row's own largest keys, and ties keep their input order.
template <typename U, int kBlock, int kItems>
__global__ void __launch_bounds__(kBlock) block_sort_rows(const U* in, int64_t R, KeyArgs<U> ka, U* values,
                                                          int64_t* indices) {
  using Sort = cub::BlockRadixSort<U, kBlock, kItems, int64_t>;
  __shared__ typename Sort::TempStorage tmp;
  const int64_t row = blockIdx.x;
  const U* x = in + row * R;
  U keys[kItems];
  int64_t pos[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int64_t p = int64_t(threadIdx.x) * kItems + j;
    keys[j] = p < R ? ka(x[p]) : static_cast<U>(~U(0));
    pos[j] = p;
  }
  Sort(tmp).Sort(keys, pos);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int64_t q = int64_t(threadIdx.x) * kItems + j;
    if (q < R) {
      indices[row * R + q] = pos[j];
      if (values) values[row * R + q] = x[pos[j]];
    }
  }
}

// The longest row block_sort_rows takes.
constexpr int64_t kBlockSortMax = 4096;

template <typename U>
void launch_block_sort(const U* x, int64_t O, int64_t R, KeyArgs<U> ka, U* values, int64_t* indices, cudaStream_t s) {
  const unsigned grid = static_cast<unsigned>(O);
  if (R <= 512) block_sort_rows<U, 128, 4><<<grid, 128, 0, s>>>(x, R, ka, values, indices);
  else if (R <= 2048) block_sort_rows<U, 256, 8><<<grid, 256, 0, s>>>(x, R, ka, values, indices);
  else block_sort_rows<U, 256, 16><<<grid, 256, 0, s>>>(x, R, ka, values, indices);
  cuda::check_launch("sort", s);
}

}  // namespace

void sort_rows(const void* in, DType dtype, int64_t O, int64_t R, bool descending, void* values, int64_t* indices,
               ScratchFn& get, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(in);
    const int64_t n = O * R;
    if (R <= kBlockSortMax && O <= 0x7FFFFFFF) {
      launch_block_sort<U>(x, O, R, key_args<U>(dtype, descending), static_cast<U*>(values), indices, s);
      return;
    }
    int64_t* pos = sort_positions<U>(x, dtype, O, R, descending, get, s, nullptr);
    finish_sort<U><<<blocks_for(n, kThreads), kThreads, 0, s>>>(x, pos, n, R, static_cast<U*>(values), indices);
    cuda::check_launch("sort", s);
  });
}

int64_t unique_flat(const void* in, DType dtype, int64_t n, void* values, int64_t* inverse, int64_t* counts,
                    ScratchFn& get, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  int64_t u = 0;
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(in);
    const U* keys = nullptr;
    int64_t* pos = sort_positions<U>(x, dtype, 1, n, false, get, s, &keys);
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
    unique_scatter<U><<<blocks, kThreads, 0, s>>>(x, pos, head, gid, n, starts, static_cast<U*>(values), inverse);
    cuda::check_launch("unique", s);
    cuda::on_host_sync("unique");
    cuda::check(cudaMemcpyAsync(&u, gid + n - 1, 8, cudaMemcpyDeviceToHost, s), "unique: copy the count");
    cuda::check(cudaStreamSynchronize(s), "unique: synchronize");
    if (counts) {
      unique_counts<<<blocks_for(u, kThreads), kThreads, 0, s>>>(starts, u, n, counts);
      cuda::check_launch("unique counts", s);
    }
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
      make_keys<U><<<blocks_for(S * L, kThreads), kThreads, 0, s>>>(static_cast<const U*>(seq), S * L, ka, keys, nullptr);
      cuda::check_launch("searchsorted keys", s);
    }
    search_kernel<U><<<blocks_for(n, kThreads), kThreads, 0, s>>>(keys, sorter, S, L, static_cast<const U*>(vals), n,
                                                                  per_row, ka, right, out_int32, out);
    cuda::check_launch("searchsorted", s);
  });
}

}  // namespace ct::cuda_ops
