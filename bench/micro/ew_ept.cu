// Exploration (issue 12): elements per thread and vector width of the contiguous kernel for
// 1- and 2-byte operands. nvcc -std=c++17 -O3 -arch=sm_90 -I../.. ew_ept.cu
#include <cstdio>
#include <vector>
#include <algorithm>
#include "micro.cuh"
using namespace ct::cuda_ops;

template <typename C, typename R, int V, int EPT, typename F>
void run(const char* name, Iter<3> it, F f, double bytes) {
  const int64_t blocks = (it.numel + kEwThreads * EPT - 1) / (kEwThreads * EPT);
  float ms = time_ms([&] { vec_kernel<C, C, C, R, V, EPT><<<blocks, kEwThreads>>>(it, f); });
  printf("%-12s V=%2d EPT=%2d %8.2f us %6.0f GB/s\n", name, V, EPT, ms * 1e3, bytes / ms / 1e6);
}
int main() {
  const int64_t n = 8192LL * 8192;
  char *a, *b, *o; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&o, n * 4);
  cudaMemset(a, 1, n * 4); cudaMemset(b, 1, n * 4);
  auto u8 = contig<3>(n, {o, a, b}, {CT_UINT8, CT_UINT8, CT_UINT8}, {1, 1, 1});
  BinaryArith<uint8_t> add{CT_ADD};
  run<uint8_t, uint8_t, 4, 8>("add/u8", u8, add, 3.0 * n);
  run<uint8_t, uint8_t, 4, 16>("add/u8", u8, add, 3.0 * n);
  run<uint8_t, uint8_t, 8, 16>("add/u8", u8, add, 3.0 * n);
  run<uint8_t, uint8_t, 16, 16>("add/u8", u8, add, 3.0 * n);
  run<uint8_t, uint8_t, 8, 8>("add/u8", u8, add, 3.0 * n);
  run<uint8_t, uint8_t, 16, 32>("add/u8", u8, add, 3.0 * n);
  auto bl = contig<3>(n, {o, a, b}, {CT_BOOL, CT_BOOL, CT_BOOL}, {1, 1, 1});
  BinaryBool<bool> eq{CT_EQ};
  run<bool, bool, 4, 8>("eq/bool", bl, eq, 3.0 * n);
  run<bool, bool, 4, 16>("eq/bool", bl, eq, 3.0 * n);
  run<bool, bool, 8, 16>("eq/bool", bl, eq, 3.0 * n);
  run<bool, bool, 16, 16>("eq/bool", bl, eq, 3.0 * n);
  auto f16 = contig<3>(n, {o, a, b}, {CT_FLOAT16, CT_FLOAT16, CT_FLOAT16}, {2, 2, 2});
  BinaryArith<float> pw{CT_POW};
  run<half, half, 8, 8>("pow/f16", f16, pw, 6.0 * n);
  run<half, half, 8, 16>("pow/f16", f16, pw, 6.0 * n);
  run<half, half, 4, 8>("pow/f16", f16, pw, 6.0 * n);
  BinaryArith<float> ad{CT_ADD};
  run<half, half, 8, 8>("add/f16", f16, ad, 6.0 * n);
  run<half, half, 8, 16>("add/f16", f16, ad, 6.0 * n);
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
}
