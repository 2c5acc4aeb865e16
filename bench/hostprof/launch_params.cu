// Host cost of a kernel launch by the size of its parameters (issue 12 item 6): an empty kernel
// taking P bytes by value, launched on the legacy default stream, host ns per launch (the device
// synchronized every 256 launches), medians of 21 rounds.
//   nvcc -O2 -arch=sm_90 launch_params.cu -o launch_params && ./launch_params
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
template <int P> struct Blob { unsigned char b[P]; };
template <int P> __global__ void k(Blob<P>) {}
__global__ void k0() {}
template <typename L> double per_call(L launch) {
  std::vector<double> v;
  for (int r = 0; r < 21; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10240; ++i) {
      launch();
      if (i % 256 == 255) cudaDeviceSynchronize();
    }
    cudaDeviceSynchronize();
    v.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 10240);
  }
  std::sort(v.begin(), v.end());
  return v[10];
}
template <int P> void row() {
  Blob<P> b{};
  std::printf("params %5d bytes: %7.1f ns per launch\n", P, per_call([&] { k<P><<<1, 1>>>(b); }));
}
int main() {
  cudaFree(nullptr);
  for (int rep = 0; rep < 2; ++rep) {
    std::printf("params     0 bytes: %7.1f ns per launch\n", per_call([] { k0<<<1, 1>>>(); }));
    row<64>(); row<256>(); row<512>(); row<1024>(); row<2048>(); row<4000>();
    std::printf("params 0, 1 block of 128: %7.1f ns\n", per_call([] { k0<<<1, 128>>>(); }));
    std::printf("cudaGetLastError alone: %7.1f ns\n", per_call([] { (void)cudaGetLastError(); }));
    int d; std::printf("cudaGetDevice alone: %7.1f ns\n", per_call([&] { cudaGetDevice(&d); }));
  }
}
