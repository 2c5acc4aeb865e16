// CPU reduction kernels that read their input where it lies (Note [Reductions in place] in
// impl/ops/reduce.cc).
#pragma once
#include <cstdint>

#include "impl/core/dtype.h"

namespace ct::cpu {

// Note [CPU float sums]: sum and mean of float32, float16 and bfloat16 rows, with a float32
// result (the compute dtype), read the input in its own dtype (no converted copy). A row is cut
// into fixed chunks of kSumChunk elements; each chunk is summed by sum_n (simd.h: double
// accumulators in 16 lanes, vectorized for AVX2 or AVX-512, float16 widened with F16C, in the
// same order at every level) and the chunks' sums are
// added in order, in double, before the one rounding to float. Rows (or, for a single long
// row, its chunks) are spread over the threads; the result does not depend on their number
// nor on the machine (Note [CPU SIMD kernels]).
constexpr int64_t kSumChunk = 32768;

inline bool sum_rows_supported(DType dt) {
  return dt == DType::Float32 || dt == DType::Float16 || dt == DType::BFloat16;
}

// out[o] = sum (mean: / R) of x[o * R, (o + 1) * R) for o < O; x of dtype dt (sum_rows_supported).
void sum_rows(const void* x, DType dt, float* out, int64_t O, int64_t R, bool mean);

}  // namespace ct::cpu
