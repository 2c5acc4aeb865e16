// Shared helpers of the kernel microbenchmarks (README.md): a contiguous 1-D Iter, and the timer
// (timer.cuh).
#pragma once
#include <algorithm>
#include <vector>

#include "capi/ctorch.h"  // the CT_* constants the benchmarks name
#include "impl/ops/cuda/functors.cuh"
#include "timer.cuh"

template <int N>
ct::cuda_ops::Iter<N> contig(int64_t n, std::vector<char*> p, std::vector<int> dt, std::vector<int> sz) {
  ct::cuda_ops::Iter<N> it; it.ndim = 1; it.numel = n; it.sizes[0] = n;
  for (int k = 0; k < N; ++k) { it.data[k] = p[k]; it.dtype[k] = dt[k]; it.strides[k][0] = sz[k]; }
  return it;
}
