// blas::gemm's dispatch (OpenBLAS on the CPU, cuBLAS on CUDA devices) and the matmul switches.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstring>

#include "impl/blas/backends.h"
#include "impl/blas/blas.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::blas {

std::atomic<bool> g_tf32{false}, g_fp16_reduced{true}, g_bf16_reduced{true};

void gemm(DType dtype, Device dev, int64_t batch, int64_t n, int64_t m, int64_t k, const void* A, const void* B,
          void* C) {
  if (batch == 0 || n == 0 || m == 0) return;
  if (dev.is_cuda()) {
    if (k == 0) {
      cuda::DeviceGuard g(dev.index);
      cuda::check(cudaMemsetAsync(C, 0, static_cast<size_t>(batch * n * m * itemsize(dtype)),
                                  static_cast<cudaStream_t>(cuda::current_stream(dev.index)->stream)),
                  "cudaMemsetAsync");
      return;
    }
    cuda_gemm(dtype, dev.index, batch, n, m, k, A, B, C);
    return;
  }
  if (k == 0) {
    std::memset(C, 0, static_cast<size_t>(batch * n * m * itemsize(dtype)));
    return;
  }
  cpu_gemm(dtype, batch, n, m, k, A, B, C);
}

void set_allow_tf32(bool on) { g_tf32.store(on); }
bool allow_tf32() { return g_tf32.load(); }
void set_allow_fp16_reduced_precision(bool on) { g_fp16_reduced.store(on); }
bool allow_fp16_reduced_precision() { return g_fp16_reduced.load(); }
void set_allow_bf16_reduced_precision(bool on) { g_bf16_reduced.store(on); }
bool allow_bf16_reduced_precision() { return g_bf16_reduced.load(); }

}  // namespace ct::blas
