// Matrix products through a real BLAS: OpenBLAS (CBLAS) on the CPU and cuBLAS on CUDA devices,
// both loaded at first use through impl/core/dynlib.h (Note [BLAS libraries load on first use]).
#pragma once
#include <cstdint>

#include "impl/core/device.h"
#include "impl/core/dtype.h"

namespace ct::blas {

// C[b] = A[b] * B[b] for b < batch, all row-major and contiguous: A is n x k, B is k x m and C
// is n x m, one matrix after the other. dtype: float32, float64, float16, bfloat16,
// complex64 or complex128 (the same for A, B and C).
void gemm(DType dtype, Device dev, int64_t batch, int64_t n, int64_t m, int64_t k, const void* A, const void* B,
          void* C);

// torch.backends.cuda.matmul.allow_tf32 (default false) and
// allow_fp16/bf16_reduced_precision_reduction (default true), process-wide.
void set_allow_tf32(bool on);
bool allow_tf32();
void set_allow_fp16_reduced_precision(bool on);
bool allow_fp16_reduced_precision();
void set_allow_bf16_reduced_precision(bool on);
bool allow_bf16_reduced_precision();

// The calling thread's cuBLAS handle for device (created on first use), bound to the current
// stream, as torch.cuda.current_blas_handle(): its bits as an integer.
int64_t current_blas_handle(int device);

}  // namespace ct::blas
