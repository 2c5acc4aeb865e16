// The floor for the host cost of an op: launching an empty kernel, timed like small_add_host.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>

__global__ void empty_kernel() {}

int main() {
  for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 1>>>();
  cudaDeviceSynchronize();
  const int iters = 20000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) empty_kernel<<<1, 1>>>();
  auto t1 = std::chrono::steady_clock::now();
  cudaDeviceSynchronize();
  printf("launch_floor %.3f us\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / iters);
  return 0;
}
