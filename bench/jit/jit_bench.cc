// The jiterator against torch's (issue 18, in progress): x / (1 + exp(-x)) (x * sigmoid(x)) on
// 64M elements, float32 and float16, jitted by ctorch (impl/jit, linked statically: the C ABI
// has no jiterator yet) here, and by torch.cuda.jiterator in bench/jit/jit_bench.py on the same
// GPU in the same run. Prints the first call's wall time (the compile), then the median of 7
// rounds of 20 calls timed with CUDA events on the current stream, in microseconds per call.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "impl/cuda/stream.h"
#include "impl/jit/jit.h"
#include "impl/ops/ops.h"

using namespace ct;

int main() {
  const Device dev{DeviceType::CUDA, 0};
  jit::JitFunction f("template <typename T> T silu(T x) { return x / (T(1) + exp(-x)); }", 1, false, {});
  for (DType dt : {DType::Float32, DType::Float16}) {
    Tensor x = ops::to(ops::arange(0, 1 << 26, 1, DType::Float32, dev), dev, dt, true);
    cudaStream_t s = cuda::current_stream(0)->stream;
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    f.run({x}, {});
    cudaDeviceSynchronize();
    double first = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> us;
    for (int round = 0; round < 8; ++round) {
      cudaEventRecord(a, s);
      for (int i = 0; i < 20; ++i) f.run({x}, {});
      cudaEventRecord(b, s);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (round > 0) us.push_back(ms * 1000 / 20);
    }
    std::sort(us.begin(), us.end());
    std::printf("ctorch jiterator silu %s 64M: first call %.1f ms, %.1f us per call\n", dtype_name(dt), first,
                us[us.size() / 2]);
  }
  return 0;
}
