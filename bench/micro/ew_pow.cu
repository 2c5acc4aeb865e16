// Exploration (issue 12): pow/f16 contiguous, our vec_kernel with the op switch vs a pow-only
// functor vs a minimal hand-written kernel. The dense body this led to (Note [Dense body for
// float16 and bfloat16]) is now vec_kernel's own for full float16 blocks, so the library's
// kernel is timed as it is; the earlier copy of it with and without that body is gone (its
// numbers: bench/NOTES.md). nvcc -std=c++17 -O3 -arch=sm_90 -I../.. ew_pow.cu
#include <cstdio>
#include <vector>
#include <algorithm>
#include <curand.h>
#include "micro.cuh"
using namespace ct::cuda_ops;

struct PowOnly {
  static constexpr int kOps = 1;
  int op;
  template <int OP> __device__ float run(float a, float b) const { return pow(a, b); }
};
template <int OP, typename T = float> struct Fixed {
  static constexpr int kOps = 1;
  int op;
  template <int O> __device__ T run(T a, T b) const { return BinaryOfGroup<T, binary_group<static_cast<ct::BinaryOp>(OP)>()>{OP}.template run<OP>(a, b); }
};
__global__ void __launch_bounds__(128) simple(const __half* a, const __half* b, __half* o, int64_t n) {
  int64_t base = (static_cast<int64_t>(blockIdx.x) * 128 + threadIdx.x) * 8;
  if (base + 8 <= n) {
    uint4 x = *reinterpret_cast<const uint4*>(a + base), y = *reinterpret_cast<const uint4*>(b + base);
    const __half* xa = reinterpret_cast<const __half*>(&x);
    const __half* ya = reinterpret_cast<const __half*>(&y);
    uint4 r; __half* ra = reinterpret_cast<__half*>(&r);
#pragma unroll
    for (int k = 0; k < 8; ++k) ra[k] = __float2half(powf(__half2float(xa[k]), __half2float(ya[k])));
    *reinterpret_cast<uint4*>(o + base) = r;
  }
}
template <typename C, typename R, int V, int EPT, typename F>
void run(const char* name, Iter<3> it, F f, double bytes) {
  const int64_t blocks = (it.numel + kEwThreads * EPT - 1) / (kEwThreads * EPT);
  float ms = time_ms([&] { vec_kernel<C, C, C, R, V, EPT><<<blocks, kEwThreads>>>(it, f); });
  printf("%-16s V=%2d EPT=%2d %8.2f us %6.0f GB/s\n", name, V, EPT, ms * 1e3, bytes / ms / 1e6);
}
__global__ void tohalf(const float* f, __half* h, int64_t n) {
  for (int64_t i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256) h[i] = __float2half(f[i]);
}
int main() {
  const int64_t n = 8192LL * 8192;
  char *a, *b, *o; float* f; cudaMalloc(&a, n * 2); cudaMalloc(&b, n * 2); cudaMalloc(&o, n * 2); cudaMalloc(&f, n * 4);
  curandGenerator_t g; curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
  curandGenerateUniform(g, f, n); tohalf<<<1024, 256>>>(f, (__half*)a, n);
  curandGenerateUniform(g, f, n); tohalf<<<1024, 256>>>(f, (__half*)b, n);
  auto f16 = contig<3>(n, {o, a, b}, {CT_FLOAT16, CT_FLOAT16, CT_FLOAT16}, {2, 2, 2});
  for (int rep = 0; rep < 2; ++rep) {
    run<half, half, 8, 8>("pow/f16 switch", f16, BinaryOfGroup<float, BinaryGroup::Heavy>{CT_POW}, 6.0 * n);
    run<half, half, 8, 8>("pow/f16 powonly", f16, PowOnly{0}, 6.0 * n);
    run<half, half, 8, 8>("pow/f16 fixed", f16, Fixed<CT_POW>{0}, 6.0 * n);
    run<half, half, 4, 4>("pow/f16 switch4", f16, BinaryOfGroup<float, BinaryGroup::Heavy>{CT_POW}, 6.0 * n);
    run<half, half, 8, 16>("pow/f16 switch16", f16, BinaryOfGroup<float, BinaryGroup::Heavy>{CT_POW}, 6.0 * n);
    run<half, half, 8, 8>("add/f16 switch", f16, BinaryOfGroup<float, BinaryGroup::Light>{CT_ADD}, 6.0 * n);
    run<half, half, 8, 8>("div/f16 switch", f16, BinaryOfGroup<float, BinaryGroup::Light>{CT_DIV}, 6.0 * n);
    float ms = time_ms([&] { simple<<<(n / 8 + 127) / 128, 128>>>((__half*)a, (__half*)b, (__half*)o, n); });
    printf("%-16s             %8.2f us\n", "pow/f16 simple", ms * 1e3);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
}
