// Shared helpers of the kernel microbenchmarks (README.md): a contiguous 1-D Iter and a CUDA-event
// timer (median of 7 rounds of 20 launches after 3 warm-ups, in ms per launch).
#pragma once
#include <algorithm>
#include <vector>

#include "capi/ctorch.h"  // the CT_* constants the benchmarks name
#include "impl/ops/cuda/functors.cuh"

template <int N>
ct::cuda_ops::Iter<N> contig(int64_t n, std::vector<char*> p, std::vector<int> dt, std::vector<int> sz) {
  ct::cuda_ops::Iter<N> it; it.ndim = 1; it.numel = n; it.sizes[0] = n;
  for (int k = 0; k < N; ++k) { it.data[k] = p[k]; it.dtype[k] = dt[k]; it.strides[k][0] = sz[k]; }
  return it;
}

template <typename L> float time_ms(L launch) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> v;
  for (int r = 0; r < 7; ++r) {
    cudaEventRecord(a); for (int i = 0; i < 20; ++i) launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); v.push_back(ms / 20);
  }
  std::sort(v.begin(), v.end()); return v[3];
}
