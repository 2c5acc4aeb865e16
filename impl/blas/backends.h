// The two gemm backends behind blas::gemm (impl/blas/blas.cc) and the switches they read.
#pragma once
#include <atomic>
#include <cstdint>

#include "impl/core/dtype.h"

namespace ct::blas {

extern std::atomic<bool> g_tf32, g_fp16_reduced, g_bf16_reduced;
void cpu_gemm(DType dtype, int64_t batch, int64_t n, int64_t m, int64_t k, const void* A, const void* B, void* C);
void cuda_gemm(DType dtype, int device, int64_t batch, int64_t n, int64_t m, int64_t k, const void* A, const void* B,
               void* C);

}  // namespace ct::blas
