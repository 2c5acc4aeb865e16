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
// one run per configuration Cfg<V, EPT>
template <int V, int EPT> struct Cfg {};
template <typename C, typename R, typename F, int... V, int... EPT>
void sweep(const char* name, Iter<3> it, F f, double bytes, Cfg<V, EPT>...) {
  (run<C, R, V, EPT>(name, it, f, bytes), ...);
}
int main() {
  const int64_t n = 8192LL * 8192;
  char *a, *b, *o; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&o, n * 4);
  cudaMemset(a, 1, n * 4); cudaMemset(b, 1, n * 4);
  auto u8 = contig<3>(n, {o, a, b}, {CT_UINT8, CT_UINT8, CT_UINT8}, {1, 1, 1});
  sweep<uint8_t, uint8_t>("add/u8", u8, BinaryOfGroup<uint8_t, BinaryGroup::Light>{CT_ADD}, 3.0 * n, Cfg<4, 8>{}, Cfg<4, 16>{},
                          Cfg<8, 16>{}, Cfg<16, 16>{}, Cfg<8, 8>{}, Cfg<16, 32>{});
  auto bl = contig<3>(n, {o, a, b}, {CT_BOOL, CT_BOOL, CT_BOOL}, {1, 1, 1});
  sweep<bool, bool>("eq/bool", bl, BinaryOfGroup<bool, BinaryGroup::Bool>{CT_EQ}, 3.0 * n, Cfg<4, 8>{}, Cfg<4, 16>{}, Cfg<8, 16>{},
                    Cfg<16, 16>{});
  auto f16 = contig<3>(n, {o, a, b}, {CT_FLOAT16, CT_FLOAT16, CT_FLOAT16}, {2, 2, 2});
  sweep<half, half>("pow/f16", f16, BinaryOfGroup<float, BinaryGroup::Heavy>{CT_POW}, 6.0 * n, Cfg<8, 8>{}, Cfg<8, 16>{}, Cfg<4, 8>{});
  sweep<half, half>("add/f16", f16, BinaryOfGroup<float, BinaryGroup::Light>{CT_ADD}, 6.0 * n, Cfg<8, 8>{}, Cfg<8, 16>{});
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
}
