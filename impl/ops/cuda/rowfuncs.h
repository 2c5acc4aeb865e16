// The fused per-row CUDA kernels of the row functions (impl/ops/rowfuncs.cc, Note [Row
// kernels]), as seen from host code (no CUDA types here). Each launches on `stream` (a
// cudaStream_t) of the current device; the caller sets the device and checks the launch.
#pragma once
#include <cstdint>

#include "impl/core/dtype.h"

namespace ct::cuda_ops {

// softmax (log false) or log_softmax of `rows` contiguous rows of `len` > 0 elements of dtype
// (float32, float64, float16, bfloat16) from in to out (the same dtype; in == out allowed); rows
// may be 0 (nothing launched), as in the functions below.
void softmax_rows(const void* in, void* out, int64_t rows, int64_t len, DType dtype, bool log, void* stream);

// logsumexp of `rows` contiguous rows of `len` > 0 elements of dtype (as softmax_rows) into
// out[rows] (the same dtype; Note [logsumexp rows]).
void logsumexp_rows(const void* in, void* out, int64_t rows, int64_t len, DType dtype, void* stream);

// Whether softmax_cols suits [outer, len, inner] (Note [Softmax over an inner dim]): columns short
// enough, or enough of them.
bool softmax_cols_ok(int64_t outer, int64_t len, int64_t inner);

// softmax (log false) or log_softmax over dim 1 of a contiguous [outer, len > 0, inner] tensor of
// dtype (as softmax_rows) from in to out (the same dtype and shape; in == out allowed).
void softmax_cols(const void* in, void* out, int64_t outer, int64_t len, int64_t inner, DType dtype, bool log,
                  void* stream);

// layer_norm of `rows` contiguous rows of `len` > 0 elements of dtype (as softmax_rows): weight
// and bias (len elements of dtype, contiguous) may be null.
void layer_norm_rows(const void* in, const void* weight, const void* bias, void* out, int64_t rows, int64_t len,
                     DType dtype, double eps, void* stream);

// var (take_sqrt false) or std of `rows` contiguous rows of `len` > 0 elements of dtype (as
// softmax_rows) into var_out[rows] and, unless null, their means into mean_out[rows] (both dtype):
// M2 / max(0, len - correction).
void var_rows(const void* in, void* var_out, void* mean_out, int64_t rows, int64_t len, DType dtype,
              double correction, bool take_sqrt, void* stream);

}  // namespace ct::cuda_ops
