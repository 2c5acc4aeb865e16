// torch C++ (libtorch) side of the allocator benchmarks: create+free of a 256-float CUDA
// tensor, and alternating allocations on four streams. Built on the GPU host by bench/run.sh.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <chrono>
#include <cstdio>
#include <vector>

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
  auto opts = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, 0);
  for (int i = 0; i < 1000; ++i) { auto t = at::empty({256}, opts); }
  const int iters = 100000;
  double t0 = now_us();
  for (int i = 0; i < iters; ++i) { auto t = at::empty({256}, opts); }
  double t1 = now_us();
  printf("create_free_256f %.3f us\n", (t1 - t0) / iters);

  std::vector<c10::cuda::CUDAStream> streams;
  for (int s = 0; s < 4; ++s) streams.push_back(c10::cuda::getStreamFromPool(false, 0));
  const int64_t sizes[] = {256, 4096, 300000, 3 << 20};
  int64_t n = 0;
  t0 = now_us();
  for (int i = 0; i < 20000; ++i) {
    c10::cuda::CUDAStreamGuard g(streams[i % 4]);
    auto a = at::empty({sizes[i % 4]}, opts);
    auto b = at::empty({sizes[(i + 1) % 4]}, opts);
    n += 2;
  }
  t1 = now_us();
  printf("multistream_alloc_free %.3f us\n", (t1 - t0) / n);
  return 0;
}
