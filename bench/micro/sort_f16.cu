// Exploration (issue 21): where sort of 16M float16 (one row: the global passes of Note [CUDA
// sort]) spends its time, phase by phase, beside the same CUB sort as torch runs it (half keys,
// int64 positions from an arange). nvcc -std=c++17 -O3 -arch=sm_90 sort_f16.cu; torch's whole
// sort: torch_sort.py.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>

#include "timer.cuh"

template <typename L> float time_ms10(L launch) { return time_ms(launch, 10); }
template <typename T, int V> struct alignas(sizeof(T) * V) VecOf { T v[V]; };

__device__ __forceinline__ uint16_t key_of(uint16_t b) {
  if ((b & 0x7C00u) == 0x7C00u && (b & 0x03FFu)) return 0xFFFF;
  if ((b & 0x7FFFu) == 0) return 0x8000;
  return (b & 0x8000u) ? uint16_t(~b) : uint16_t(b | 0x8000u);
}
__device__ __forceinline__ bool value_of(uint16_t k, uint16_t& bits) {
  if (k == 0x8000u || k == 0xFFFFu) return false;
  bits = (k & 0x8000u) ? uint16_t(k & 0x7FFFu) : uint16_t(~k);
  return true;
}

__global__ void mk_scalar(const uint16_t* in, int64_t n, uint16_t* keys, uint32_t* pos) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    keys[i] = key_of(in[i]);
    pos[i] = static_cast<uint32_t>(i);
  }
}
template <int G>
__global__ void mk_vec(const uint16_t* in, int64_t n, uint16_t* keys, uint32_t* pos) {
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g * G < n; g += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i0 = g * G;
    const auto x = *reinterpret_cast<const VecOf<uint16_t, G>*>(in + i0);
    VecOf<uint16_t, G> k; VecOf<uint32_t, G> p;
#pragma unroll
    for (int j = 0; j < G; ++j) { k.v[j] = key_of(x.v[j]); p.v[j] = uint32_t(i0 + j); }
    *reinterpret_cast<VecOf<uint16_t, G>*>(keys + i0) = k;
    *reinterpret_cast<VecOf<uint32_t, G>*>(pos + i0) = p;
  }
}
__global__ void fin_scalar(const uint16_t* in, const uint16_t* keys, const uint32_t* pos, int64_t n, uint16_t* values, int64_t* indices) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = pos[i];
    indices[i] = p;
    uint16_t bits;
    values[i] = value_of(keys[i], bits) ? bits : in[p];
  }
}
template <int G>
__global__ void fin_vec(const uint16_t* in, const uint16_t* keys, const uint32_t* pos, int64_t n, uint16_t* values, int64_t* indices) {
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g * G < n; g += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i0 = g * G;
    const auto p = *reinterpret_cast<const VecOf<uint32_t, G>*>(pos + i0);
    VecOf<int64_t, G> ix;
#pragma unroll
    for (int j = 0; j < G; ++j) ix.v[j] = p.v[j];
    *reinterpret_cast<VecOf<int64_t, G>*>(indices + i0) = ix;
    const auto k = *reinterpret_cast<const VecOf<uint16_t, G>*>(keys + i0);
    VecOf<uint16_t, G> v;
#pragma unroll
    for (int j = 0; j < G; ++j) { uint16_t bits; v.v[j] = value_of(k.v[j], bits) ? bits : in[p.v[j]]; }
    *reinterpret_cast<VecOf<uint16_t, G>*>(values + i0) = v;
  }
}
__global__ void iota64(int64_t* p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) p[i] = i;
}
__global__ void fill(uint16_t* p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = __half_as_ushort(__float2half((h & 0xFFFFFF) / float(1 << 24)));  // rand in [0, 1)
  }
}

int main() {
  const int64_t n = 1 << 24;
  uint16_t *x, *k0, *k1, *vals; uint32_t *p0, *p1; int64_t *idx, *q0, *q1;
  cudaMalloc(&x, n * 2); cudaMalloc(&k0, n * 2); cudaMalloc(&k1, n * 2); cudaMalloc(&vals, n * 2);
  cudaMalloc(&p0, n * 4); cudaMalloc(&p1, n * 4); cudaMalloc(&idx, n * 8); cudaMalloc(&q0, n * 8); cudaMalloc(&q1, n * 8);
  fill<<<4096, 256>>>(x, n);
  size_t tb = 0;
  cub::DoubleBuffer<uint16_t> kb(k0, k1); cub::DoubleBuffer<uint32_t> pb(p0, p1);
  cub::DeviceRadixSort::SortPairs(nullptr, tb, kb, pb, n, 0, 16);
  size_t tb2 = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, tb2, reinterpret_cast<const __half*>(x), reinterpret_cast<__half*>(vals), q0, idx, n, 0, 16);
  size_t tb3 = 0;
  cub::DoubleBuffer<int64_t> qb(q0, q1);
  cub::DeviceRadixSort::SortPairs(nullptr, tb3, kb, qb, n, 0, 16);
  void* tmp; cudaMalloc(&tmp, std::max(tb, std::max(tb2, tb3)));
  auto rep = [&](const char* s, float ms, double mb) { printf("%-28s %8.1f us %6.0f GB/s\n", s, ms * 1e3, mb > 0 ? mb / ms / 1e6 : 0.0); };
  const int bs = int(std::min<int64_t>((n + 255) / 256, 65535 * 8));
  rep("make_keys scalar", time_ms10([&] { mk_scalar<<<bs, 256>>>(x, n, k0, p0); }), 128e6);
  rep("make_keys G8", time_ms10([&] { mk_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, n, k0, p0); }), 128e6);
  rep("make_keys G4", time_ms10([&] { mk_vec<4><<<(n / 4 + 255) / 256, 256>>>(x, n, k0, p0); }), 128e6);
  rep("make_keys G8 t128", time_ms10([&] { mk_vec<8><<<(n / 8 + 127) / 128, 128>>>(x, n, k0, p0); }), 128e6);
  rep("cub u16/u32 (2 passes)", time_ms10([&] {
        mk_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, n, k0, p0);
        cub::DoubleBuffer<uint16_t> kb(k0, k1); cub::DoubleBuffer<uint32_t> pb(p0, p1);
        cub::DeviceRadixSort::SortPairs(tmp, tb, kb, pb, n, 0, 16); }), 0);
  rep("cub u16/i64", time_ms10([&] {
        mk_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, n, k0, p0);
        cub::DoubleBuffer<uint16_t> kb(k0, k1); cub::DoubleBuffer<int64_t> qb(q0, q1);
        cub::DeviceRadixSort::SortPairs(tmp, tb3, kb, qb, n, 0, 16); }), 0);
  rep("torch-like iota+cub half/i64", time_ms10([&] {
        iota64<<<bs, 256>>>(q0, n);
        cub::DeviceRadixSort::SortPairs(tmp, tb2, reinterpret_cast<const __half*>(x), reinterpret_cast<__half*>(vals), q0, idx, n, 0, 16); }), 0);
  rep("iota64", time_ms10([&] { iota64<<<bs, 256>>>(q0, n); }), 128e6);
  mk_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, n, k0, p0);
  { cub::DoubleBuffer<uint16_t> kb(k0, k1); cub::DoubleBuffer<uint32_t> pb(p0, p1);
    cub::DeviceRadixSort::SortPairs(tmp, tb, kb, pb, n, 0, 16);
    printf("sorted in buffer %d/%d\n", kb.selector, pb.selector); }
  rep("finish scalar", time_ms10([&] { fin_scalar<<<bs, 256>>>(x, k0, p0, n, vals, idx); }), 256e6);
  rep("finish G8", time_ms10([&] { fin_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, k0, p0, n, vals, idx); }), 256e6);
  rep("finish G4", time_ms10([&] { fin_vec<4><<<(n / 4 + 255) / 256, 256>>>(x, k0, p0, n, vals, idx); }), 256e6);
  rep("finish G4 t128", time_ms10([&] { fin_vec<4><<<(n / 4 + 127) / 128, 128>>>(x, k0, p0, n, vals, idx); }), 256e6);
  rep("finish G2", time_ms10([&] { fin_vec<2><<<(n / 2 + 255) / 256, 256>>>(x, k0, p0, n, vals, idx); }), 256e6);
  rep("whole (G8, G8)", time_ms10([&] {
        mk_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, n, k0, p0);
        cub::DoubleBuffer<uint16_t> kb(k0, k1); cub::DoubleBuffer<uint32_t> pb(p0, p1);
        cub::DeviceRadixSort::SortPairs(tmp, tb, kb, pb, n, 0, 16);
        fin_vec<8><<<(n / 8 + 255) / 256, 256>>>(x, kb.Current(), pb.Current(), n, vals, idx); }), 0);
  printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
