// parallel_for: splits [begin, end) over the CPU threads when the range is large enough.
// Exceptions thrown by the body are carried out of the parallel region and rethrown.
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>

#include <omp.h>

#include "impl/ops/cpu/threads.h"

namespace ct::cpu {

// Elements below which a loop runs on the calling thread (PyTorch's GRAIN_SIZE).
constexpr int64_t kGrainSize = 32768;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int nt = n <= grain ? 1 : num_threads();
  if (nt <= 1 || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  int64_t chunks = std::min<int64_t>(nt, (n + grain - 1) / grain);
  std::exception_ptr err;
  std::mutex mu;
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t s = begin + n * c / chunks, e = begin + n * (c + 1) / chunks;
    try {
      f(s, e);
    } catch (...) {
      std::lock_guard<std::mutex> g(mu);
      if (!err) err = std::current_exception();
    }
  }
  if (err) std::rethrow_exception(err);
}

}  // namespace ct::cpu
