// Exploration (issue 21): gather's element kernel and index_select's row kernel, variants beside
// the library's current ones (copied here as "cur"), for the rows gather_f16_4096x4096 and
// index_select_f32_{4096,8192}. nvcc -std=c++17 -O3 -arch=sm_90 -I../.. idx_gather.cu; torch's
// side: torch_idx.py.
//   gather: "cur" one element a thread per u (kEwUnroll elements kEwThreads apart, 12 blocks an
//   SM); "grpG" G consecutive elements of the innermost dim a thread (one OffsetCalc division a
//   group), "grpGv" the same with the index loaded and the output stored as vectors.
//   index_select: "cur" a block a row (256 threads x 4 units of 16 bytes, looping); "torch" a
//   block of 256 threads a 4 KiB piece of a row, one unit a thread (grid [rows, pieces]).
#include <cstdio>
#include <vector>
#include <algorithm>
#include "micro.cuh"
#include "impl/ops/cuda/ew.cuh"
using namespace ct::cuda_ops;

#define CT_KERNEL_ASSERT(cond)                                                                    \
  do {                                                                                            \
    if (!(cond)) __assert_fail(#cond, __FILE__, static_cast<unsigned int>(__LINE__), __func__); \
  } while (0)

template <typename I>
__device__ __forceinline__ int64_t checked_index(const char* p, int64_t bound, bool wrap) {
  const int64_t idx = static_cast<int64_t>(*reinterpret_cast<const I*>(p));
  CT_KERNEL_ASSERT(idx >= (wrap ? -bound : 0) && idx < bound && "index out of bounds");
  return idx < 0 ? idx + bound : idx;
}
template <typename I>
__device__ __forceinline__ int64_t checked_value(int64_t idx, int64_t bound, bool wrap) {
  CT_KERNEL_ASSERT(idx >= (wrap ? -bound : 0) && idx < bound && "index out of bounds");
  return idx < 0 ? idx + bound : idx;
}

#define FOR_U(u) _Pragma("unroll") for (int u = 0; u < kEwUnroll; ++u)

template <typename U, typename I, int MinB>
__global__ void __launch_bounds__(kEwThreads, MinB)
    cur_kernel(Iter<3> it, OffsetCalc<3> oc, int64_t stride_bytes, int64_t bound, bool wrap) {
  const char* src_base = base_of(it, 1);
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t first = blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x;
  uint32_t off[kEwUnroll][3];
  int64_t moved[kEwUnroll];
  U v[kEwUnroll];
  FOR_U(u) {
    const uint32_t i = first + u * kEwThreads;
    if (i < n) {
      oc.get(i, off[u]);
      moved[u] = checked_index<I>(it.data[2] + off[u][2], bound, wrap) * stride_bytes;
    }
  }
  FOR_U(u) {
    if (first + u * kEwThreads < n) v[u] = *reinterpret_cast<const U*>(src_base + off[u][1] + moved[u]);
  }
  FOR_U(u) {
    if (first + u * kEwThreads < n) *reinterpret_cast<U*>(it.data[0] + off[u][0]) = v[u];
  }
}

// G consecutive elements of the innermost dim a thread (its size a multiple of G).
template <typename U, typename I, int G, bool Vec, int MinB>
__global__ void __launch_bounds__(kEwThreads, MinB)
    grp_kernel(Iter<3> it, OffsetCalc<3> oc, int64_t stride_bytes, int64_t bound, bool wrap) {
  const char* src_base = base_of(it, 1);
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t i = (blockIdx.x * kEwThreads + threadIdx.x) * G;
  if (i >= n) return;
  uint32_t off[3];
  oc.get(i, off);
  const uint32_t s1 = oc.stride[0][1];
  I idx[G];
  if constexpr (Vec) {
    const auto iv = *reinterpret_cast<const VecOf<I, G>*>(it.data[2] + off[2]);
#pragma unroll
    for (int g = 0; g < G; ++g) idx[g] = iv.v[g];
  } else {
    const uint32_t s2 = oc.stride[0][2];
#pragma unroll
    for (int g = 0; g < G; ++g) idx[g] = *reinterpret_cast<const I*>(it.data[2] + off[2] + g * s2);
  }
  VecOf<U, G> v;
#pragma unroll
  for (int g = 0; g < G; ++g)
    v.v[g] = *reinterpret_cast<const U*>(src_base + off[1] + g * s1 +
                                         checked_value<I>(static_cast<int64_t>(idx[g]), bound, wrap) * stride_bytes);
  if constexpr (Vec) {
    *reinterpret_cast<VecOf<U, G>*>(it.data[0] + off[0]) = v;
  } else {
    const uint32_t s0 = oc.stride[0][0];
#pragma unroll
    for (int g = 0; g < G; ++g) *reinterpret_cast<U*>(it.data[0] + off[0] + g * s0) = v.v[g];
  }
}

// index_select rows: the library's block-a-row kernel and torch's shape.
template <typename V, typename I, int T>
__global__ void __launch_bounds__(T)
    rows_cur(char* out, const char* src, const char* index, uint32_t per_row, int64_t row_bytes, int64_t bound) {
  const uint32_t row = blockIdx.x;
  const int64_t idx = checked_index<I>(index + row * sizeof(I), bound, false);
  const V* from = reinterpret_cast<const V*>(src + idx * row_bytes);
  V* to = reinterpret_cast<V*>(out + static_cast<int64_t>(row) * row_bytes);
  for (uint32_t u0 = threadIdx.x; u0 < per_row; u0 += T * kEwUnroll) {
    V v[kEwUnroll];
    FOR_U(u) { if (u0 + u * T < per_row) v[u] = from[u0 + u * T]; }
    FOR_U(u) { if (u0 + u * T < per_row) to[u0 + u * T] = v[u]; }
  }
}
template <typename V, typename I, int T>
__global__ void __launch_bounds__(T)
    rows_torch(char* out, const char* src, const char* index, uint32_t per_row, int64_t row_bytes, int64_t bound) {
  const int64_t idx = checked_index<I>(index + blockIdx.x * sizeof(I), bound, false);
  const uint32_t u = blockIdx.y * T + threadIdx.x;
  if (u >= per_row) return;
  reinterpret_cast<V*>(out + static_cast<int64_t>(blockIdx.x) * row_bytes)[u] =
      reinterpret_cast<const V*>(src + idx * row_bytes)[u];
}
// torch's shape with K units a thread (grid_y / K)
template <typename V, typename I, int T, int K>
__global__ void __launch_bounds__(T)
    rows_torchk(char* out, const char* src, const char* index, uint32_t per_row, int64_t row_bytes, int64_t bound) {
  const int64_t idx = checked_index<I>(index + blockIdx.x * sizeof(I), bound, false);
  const uint32_t u0 = blockIdx.y * T * K + threadIdx.x;
  const V* from = reinterpret_cast<const V*>(src + idx * row_bytes);
  V* to = reinterpret_cast<V*>(out + static_cast<int64_t>(blockIdx.x) * row_bytes);
  V v[K];
#pragma unroll
  for (int k = 0; k < K; ++k) if (u0 + k * T < per_row) v[k] = from[u0 + k * T];
#pragma unroll
  for (int k = 0; k < K; ++k) if (u0 + k * T < per_row) to[u0 + k * T] = v[k];
}

__global__ void fill_index(int64_t* p, int64_t n, uint32_t mod, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    p[i] = h % mod;
  }
}

Iter<3> gather_iter(char* out, char* src, char* idx, int64_t R, int64_t C, int esize, int dim) {
  Iter<3> it; it.ndim = 2; it.numel = R * C; it.sizes[0] = R; it.sizes[1] = C;
  it.data[0] = out; it.data[1] = src; it.data[2] = idx;
  it.strides[0][0] = C * esize; it.strides[0][1] = esize;
  it.strides[1][0] = dim == 1 ? C * esize : 0; it.strides[1][1] = dim == 1 ? 0 : esize;
  it.strides[2][0] = C * 8; it.strides[2][1] = 8;
  return it;
}

template <typename U>
void gather_rows(const char* tag, int64_t R, int64_t C, int dim, char* out, char* src, char* idx) {
  Iter<3> it = gather_iter(out, src, idx, R, C, sizeof(U), dim);
  OffsetCalc<3> oc = offset_calc(it);
  const int64_t stride = dim == 1 ? sizeof(U) : C * sizeof(U), bound = dim == 1 ? C : R;
  const double bytes = R * C * (2.0 * sizeof(U) + 8);
  const int64_t n = R * C;
  auto rep = [&](const char* v, float ms) { printf("gather/%s/dim%d %-10s %8.2f us %6.0f GB/s\n", tag, dim, v, ms * 1e3, bytes / ms / 1e6); };
  const unsigned b4 = (n + kEwThreads * 4 - 1) / (kEwThreads * 4);
  rep("cur", time_ms([&] { cur_kernel<U, int64_t, 12><<<b4, kEwThreads>>>(it, oc, stride, bound, false); }));
  rep("cur16", time_ms([&] { cur_kernel<U, int64_t, 16><<<b4, kEwThreads>>>(it, oc, stride, bound, false); }));
  rep("grp4", time_ms([&] { grp_kernel<U, int64_t, 4, false, 1><<<b4, kEwThreads>>>(it, oc, stride, bound, false); }));
  rep("grp4v", time_ms([&] { grp_kernel<U, int64_t, 4, true, 1><<<b4, kEwThreads>>>(it, oc, stride, bound, false); }));
  rep("grp4v16", time_ms([&] { grp_kernel<U, int64_t, 4, true, 16><<<b4, kEwThreads>>>(it, oc, stride, bound, false); }));
  const unsigned b2 = (n + kEwThreads * 2 - 1) / (kEwThreads * 2);
  rep("grp2v", time_ms([&] { grp_kernel<U, int64_t, 2, true, 1><<<b2, kEwThreads>>>(it, oc, stride, bound, false); }));
  const unsigned b8 = (n + kEwThreads * 8 - 1) / (kEwThreads * 8);
  rep("grp8v", time_ms([&] { grp_kernel<U, int64_t, 8, true, 1><<<b8, kEwThreads>>>(it, oc, stride, bound, false); }));
}

void select_rows(int64_t R, char* out, char* src, char* idx) {
  using V = VecOf<float, 4>;
  const int64_t C = R, row_bytes = C * 4;
  const uint32_t per_row = row_bytes / 16;
  const double bytes = 2.0 * R * C * 4;
  auto rep = [&](const char* v, float ms) { printf("index_select/f32/%ld %-10s %8.2f us %6.0f GB/s\n", (long)R, v, ms * 1e3, bytes / ms / 1e6); };
  rep("cur", time_ms([&] { rows_cur<V, int64_t, 256><<<R, 256>>>(out, src, idx, per_row, row_bytes, R); }));
  rep("cur128", time_ms([&] { rows_cur<V, int64_t, 128><<<R, 128>>>(out, src, idx, per_row, row_bytes, R); }));
  rep("cur512", time_ms([&] { rows_cur<V, int64_t, 512><<<R, 512>>>(out, src, idx, per_row, row_bytes, R); }));
  const dim3 g256(R, (per_row + 255) / 256);
  rep("torch", time_ms([&] { rows_torch<V, int64_t, 256><<<g256, 256>>>(out, src, idx, per_row, row_bytes, R); }));
  const dim3 g128(R, (per_row + 127) / 128);
  rep("torch128", time_ms([&] { rows_torch<V, int64_t, 128><<<g128, 128>>>(out, src, idx, per_row, row_bytes, R); }));
  const dim3 g2(R, (per_row + 511) / 512);
  rep("torchk2", time_ms([&] { rows_torchk<V, int64_t, 256, 2><<<g2, 256>>>(out, src, idx, per_row, row_bytes, R); }));
  const dim3 g4(R, (per_row + 1023) / 1024);
  rep("torchk4", time_ms([&] { rows_torchk<V, int64_t, 256, 4><<<g4, 256>>>(out, src, idx, per_row, row_bytes, R); }));
}

int main() {
  const int64_t R = 4096, C = 4096, n = R * C;
  char *src, *out, *idx1, *idx0;
  cudaMalloc(&src, n * 4); cudaMalloc(&out, n * 4); cudaMalloc(&idx1, n * 8); cudaMalloc(&idx0, n * 8);
  cudaMemset(src, 0, n * 4);
  fill_index<<<1024, 256>>>(reinterpret_cast<int64_t*>(idx1), n, C, 1);
  fill_index<<<1024, 256>>>(reinterpret_cast<int64_t*>(idx0), n, R, 2);
  gather_rows<half>("f16", R, C, 1, out, src, idx1);
  gather_rows<float>("f32", R, C, 1, out, src, idx1);
  gather_rows<uint8_t>("u8", R, C, 1, out, src, idx1);
  gather_rows<half>("f16", R, C, 0, out, src, idx0);
  gather_rows<float>("f32", R, C, 0, out, src, idx0);
  for (int64_t r : {4096, 8192}) {
    char *s, *o;
    cudaMalloc(&s, r * r * 4); cudaMalloc(&o, r * r * 4); cudaMemset(s, 0, r * r * 4);
    fill_index<<<1024, 256>>>(reinterpret_cast<int64_t*>(idx0), r, r, 3);
    select_rows(r, o, s, idx0);
    cudaFree(s); cudaFree(o);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
}
