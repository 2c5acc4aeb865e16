// Exploration (issue 12): one-byte kernels. nvcc -std=c++17 -O3 -arch=sm_90 -I../.. ew_byte.cu
#include <cstdio>
#include <vector>
#include <algorithm>
#include "micro.cuh"
using namespace ct::cuda_ops;
template <typename T> struct WhereF { static constexpr int kOps = 1; template <int> __device__ T run(T c, T a, T b) const { return c != T(0) ? a : b; } };
template <typename C0, typename C, typename R, int V, int EPT, int N, typename F>
void run(const char* name, Iter<N> it, F f, double bytes) {
  const int64_t blocks = (it.numel + kEwThreads * EPT - 1) / (kEwThreads * EPT);
  cudaFuncAttributes at; cudaFuncGetAttributes(&at, vec_kernel<C0, C, C, R, V, EPT, N, F>);
  float ms = time_ms([&] { vec_kernel<C0, C, C, R, V, EPT><<<blocks, kEwThreads>>>(it, f); });
  printf("%-10s V=%2d EPT=%2d regs=%3d %8.2f us %6.0f GB/s\n", name, V, EPT, at.numRegs, ms * 1e3, bytes / ms / 1e6);
}
#define ALL(C0, C, R, name, it, f, bytes) \
  run<C0, C, R, 4, 8>(name, it, f, bytes); run<C0, C, R, 4, 16>(name, it, f, bytes); run<C0, C, R, 16, 16>(name, it, f, bytes);
__global__ void __launch_bounds__(128) where_min(int n, const uchar4* c, const uchar4* a, const uchar4* b, uchar4* o) {
  const int base = blockIdx.x * 1024;
  if (n - base < 1024) return;  // (no tail in this test)
  uchar4 cv[2], av[2], bv[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int idx = base / 4 + threadIdx.x + i * 128;
    cv[i] = c[idx]; av[i] = a[idx]; bv[i] = b[idx];
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    uchar4 r;
    r.x = cv[i].x ? av[i].x : bv[i].x; r.y = cv[i].y ? av[i].y : bv[i].y;
    r.z = cv[i].z ? av[i].z : bv[i].z; r.w = cv[i].w ? av[i].w : bv[i].w;
    o[base / 4 + threadIdx.x + i * 128] = r;
  }
}
__global__ void __launch_bounds__(128) add_min(int n, const uchar4* a, const uchar4* b, uchar4* o) {
  const int base = blockIdx.x * 1024;
  if (n - base < 1024) return;
  uchar4 av[2], bv[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int idx = base / 4 + threadIdx.x + i * 128;
    av[i] = a[idx]; bv[i] = b[idx];
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    uchar4 r;
    r.x = av[i].x + bv[i].x; r.y = av[i].y + bv[i].y; r.z = av[i].z + bv[i].z; r.w = av[i].w + bv[i].w;
    o[base / 4 + threadIdx.x + i * 128] = r;
  }
}
int main(int argc, char** argv) {
  const int64_t n = 8192LL * 8192;
  const int64_t skew = argc > 1 ? atoll(argv[1]) : 0;
  char* big; cudaMalloc(&big, 4 * n + 4 * skew + 4096);
  char *a = big, *b = a + n + skew, *c = b + n + skew, *o = c + n + skew;
  printf("skew %lld\n", (long long)skew);
  cudaMemset(a, 1, n); cudaMemset(b, 1, n); cudaMemset(c, 1, n);
  ALL(uint8_t, uint8_t, uint8_t, "add/u8", (contig<3>(n, {o, a, b}, {CT_UINT8, CT_UINT8, CT_UINT8}, {1, 1, 1})), BinaryOfGroup<uint8_t, BinaryGroup::Light>{CT_ADD}, 3.0 * n)
  ALL(int8_t, int8_t, int8_t, "add/i8", (contig<3>(n, {o, a, b}, {CT_INT8, CT_INT8, CT_INT8}, {1, 1, 1})), BinaryOfGroup<int8_t, BinaryGroup::Light>{CT_ADD}, 3.0 * n)
  ALL(bool, bool, bool, "mul/bool", (contig<3>(n, {o, a, b}, {CT_BOOL, CT_BOOL, CT_BOOL}, {1, 1, 1})), BinaryOfGroup<bool, BinaryGroup::Light>{CT_MUL}, 3.0 * n)
  ALL(bool, bool, bool, "eq/bool", (contig<3>(n, {o, a, b}, {CT_BOOL, CT_BOOL, CT_BOOL}, {1, 1, 1})), BinaryOfGroup<bool, BinaryGroup::Bool>{CT_EQ}, 3.0 * n)
  ALL(uint8_t, uint8_t, bool, "eq/u8", (contig<3>(n, {o, a, b}, {CT_BOOL, CT_UINT8, CT_UINT8}, {1, 1, 1})), BinaryOfGroup<uint8_t, BinaryGroup::Bool>{CT_EQ}, 3.0 * n)
  ALL(bool, uint8_t, uint8_t, "where/u8", (contig<4>(n, {o, c, a, b}, {CT_UINT8, CT_BOOL, CT_UINT8, CT_UINT8}, {1, 1, 1, 1})), WhereF<uint8_t>{}, 4.0 * n)
  ALL(bool, bool, bool, "where/bool", (contig<4>(n, {o, c, a, b}, {CT_BOOL, CT_BOOL, CT_BOOL, CT_BOOL}, {1, 1, 1, 1})), WhereF<bool>{}, 4.0 * n)
  {
    float ms = time_ms([&] { where_min<<<n / 1024, 128>>>(n, (const uchar4*)c, (const uchar4*)a, (const uchar4*)b, (uchar4*)o); });
    printf("where_min %8.2f us\n", ms * 1e3);
    ms = time_ms([&] { add_min<<<n / 1024, 128>>>(n, (const uchar4*)a, (const uchar4*)b, (uchar4*)o); });
    printf("add_min %8.2f us\n", ms * 1e3);
  }
  printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
