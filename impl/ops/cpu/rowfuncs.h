// The CPU kernels of the row functions (impl/ops/rowfuncs.cc, Note [CPU row kernels]): one
// pass-pair per contiguous row, rows split over the CPU threads.
#pragma once
#include <cstdint>

#include "impl/core/dtype.h"

namespace ct::cpu {

// Note [CPU row kernels]: softmax / log_softmax and layer_norm over the last `len` elements of
// a contiguous input of `rows` such rows, in dtype float16, bfloat16, float32 or float64. Each
// row is computed by one thread in the compute dtype (float16/bfloat16 widened to float32 in a
// per-thread buffer), with the operations, in the order and the precision of the composed path
// they replace (impl/ops/rowfuncs.cc: the row maximum, x - max, exp (cpu::exp_n), the sum
// accumulated in double and rounded to the compute dtype, then e / sum or (x - max) - log(sum);
// layer_norm: the mean, the deviations, the mean of their squares, 1 / sqrt(var + eps) and
// dev * rstd * weight + bias), so the result is the one the composed path gives, in one or two
// passes over the row instead of several full passes over temporaries.
void softmax_rows(const void* in, void* out, int64_t rows, int64_t len, DType dtype, bool log);
// The same over the middle dim (length L) of a contiguous input viewed as [outer, L, inner]:
// each column computed by one thread, blocks of neighbouring columns read a row at a time.
void softmax_cols(const void* in, void* out, int64_t outer, int64_t L, int64_t inner, DType dtype, bool log);
// weight and bias: null, or len contiguous values in the compute dtype (float32 for float16,
// bfloat16 and float32 inputs; float64 for float64).
void layer_norm_rows(const void* in, const void* weight, const void* bias, void* out, int64_t rows, int64_t len,
                     DType dtype, double eps);

}  // namespace ct::cpu
