// GPU time by CUDA events, shared by the benchmarks built against libtorch on the GPU host
// (bench/gpu_bench.cc, bench/graph_bench.cc): both libraries queue their work on the legacy
// default stream, their current stream there. Header-only; include as "bench/gpu_timer.h" with
// the repository root on the include path.
#ifndef CTORCH_BENCH_GPU_TIMER_H_
#define CTORCH_BENCH_GPU_TIMER_H_

#include <cuda_runtime_api.h>

#include <functional>

// fn run `iters` times between two events on the legacy default stream: ms per call. The events
// are created at the first call (a warm-up in both benchmarks).
inline double gpu_ms(const std::function<void()>& fn, int iters) {
  static cudaEvent_t e0 = nullptr, e1 = nullptr;
  static const bool created = cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess;
  (void)created;
  cudaEventRecord(e0, nullptr);
  for (int i = 0; i < iters; ++i) fn();
  cudaEventRecord(e1, nullptr);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  return ms / iters;
}

#endif  // CTORCH_BENCH_GPU_TIMER_H_
