// The random fills on the CPU: the same elements as the CUDA kernel (Note [Random launch
// geometry]), one loop iteration per GPU thread, spread over the CPU's cores.
#include "impl/rng/distributions.h"  // first: it includes cuRAND (Note [Philox from cuRAND on both devices])

#include <algorithm>

#include "impl/core/error.h"

namespace ct::rng {

namespace {
struct CpuFill {
  void* out;
  int64_t numel;
  const Params& p;
  uint64_t seed, offset;
  int64_t threads;
  template <typename S, int D>
  void run() {
    S* o = static_cast<S*>(out);
    const int64_t active = std::min(threads, numel);  // threads past numel write nothing
    const int64_t n = numel;
    const int64_t t = threads;
    const Params& pp = p;
    const uint64_t sd = seed, off = offset;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t idx = 0; idx < active; ++idx) thread_work<S, D>(o, n, idx, t, pp, sd, off);
  }
};
}  // namespace

void cpu_fill(void* out, int64_t numel, int32_t dtype, int draw, const Params& p, uint64_t seed, uint64_t offset,
              int64_t threads) {
  if (numel == 0) return;
  CpuFill f{out, numel, p, seed, offset, threads};
  CT_CHECK(dispatch(dtype, draw, f), Status::Internal, "random fill: no kernel for dtype ", dtype, " and draw ", draw);
}

}  // namespace ct::rng
