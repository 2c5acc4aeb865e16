#include "impl/ops/cpu/reduce_kernels.h"

#include <algorithm>
#include <vector>

#include "impl/core/error.h"
#include "impl/ops/cpu/parallel.h"
#include "impl/ops/cpu/simd.h"

namespace ct::cpu {

namespace {

template <typename T>
void sum_rows_of(const T* x, float* out, int64_t O, int64_t R, bool mean) {
  auto fin = [&](double a) { return static_cast<float>(mean ? a / static_cast<double>(R) : a); };
  const int64_t nc = std::max<int64_t>(1, (R + kSumChunk - 1) / kSumChunk);
  if (nc == 1) {
    parallel_for(0, O, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(R, 1)), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) out[o] = fin(sum_n(x + o * R, R));
    });
    return;
  }
  std::vector<double> part(O * nc);
  parallel_for(0, O * nc, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / nc, lo = (t % nc) * kSumChunk;
      part[t] = sum_n(x + o * R + lo, std::min(kSumChunk, R - lo));
    }
  });
  for (int64_t o = 0; o < O; ++o) {
    double a = 0;
    for (int64_t c = 0; c < nc; ++c) a += part[o * nc + c];
    out[o] = fin(a);
  }
}

}  // namespace

void sum_rows(const void* x, DType dt, float* out, int64_t O, int64_t R, bool mean) {
  switch (dt) {
    case DType::Float32: sum_rows_of(static_cast<const float*>(x), out, O, R, mean); return;
    case DType::Float16: sum_rows_of(static_cast<const Half*>(x), out, O, R, mean); return;
    case DType::BFloat16: sum_rows_of(static_cast<const BFloat16*>(x), out, O, R, mean); return;
    default: fail(Status::Internal, "sum_rows: unsupported dtype ", dtype_name(dt));
  }
}

}  // namespace ct::cpu
