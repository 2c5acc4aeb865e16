// The CUDA-event timer of the kernel microbenchmarks (README.md): median of 7 rounds of
// `launches` launches after 3 warm-ups, in ms per launch. Needs no ctorch header.
#pragma once
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

template <typename L> float time_ms(L launch, int launches = 20) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> v;
  for (int r = 0; r < 7; ++r) {
    cudaEventRecord(a); for (int i = 0; i < launches; ++i) launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); v.push_back(ms / launches);
  }
  std::sort(v.begin(), v.end()); return v[3];
}
