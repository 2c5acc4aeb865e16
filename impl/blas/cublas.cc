// CUDA matrix products through cuBLAS, loaded at first use (Note [BLAS libraries load on
// first use]); blas::gemm (impl/blas/blas.cc) dispatches here for CUDA tensors.
//
// Note [cuBLAS handles]: as PyTorch, one handle per (device, host thread), created lazily and
// bound to the current stream before every call; its workspace comes from the caching
// allocator, one per (handle, stream) (so work on one stream never overwrites a workspace in
// use on another), and lives as long as the thread. TF32 and the reduced-precision reductions
// of half types follow the process-wide switches, as torch.backends.cuda.matmul.
#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "impl/alloc/allocator.h"
#include "impl/blas/backends.h"
#include "impl/blas/blas.h"
#include "impl/core/dynlib.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::blas {

namespace {

#define CT_CUBLAS_FUNCTIONS(X)                                                                                  \
  X(create, cublasCreate_v2, cublasStatus_t (*)(cublasHandle_t*))                                                \
  X(destroy, cublasDestroy_v2, cublasStatus_t (*)(cublasHandle_t))                                               \
  X(set_stream, cublasSetStream_v2, cublasStatus_t (*)(cublasHandle_t, cudaStream_t))                            \
  X(set_workspace, cublasSetWorkspace_v2, cublasStatus_t (*)(cublasHandle_t, void*, size_t))                     \
  X(set_math_mode, cublasSetMathMode, cublasStatus_t (*)(cublasHandle_t, cublasMath_t))                          \
  X(gemm_strided_batched, cublasGemmStridedBatchedEx,                                                            \
    cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*, \
                       cudaDataType, int, long long, const void*, cudaDataType, int, long long, const void*, void*,   \
                       cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t))                 \
  X(status_string, cublasGetStatusString, const char* (*)(cublasStatus_t))
CT_LIBRARY_TABLE(Cublas, CT_CUBLAS_FUNCTIONS);

const Cublas& cublas() {
  static const LazyLibrary<Cublas> lib(
      cuda_library_names("libcublas.so.13", "libcublas.so"),
      "CUDA matrix products need cuBLAS (libcublas.so.13, CUDA 13), which could not be loaded:");
  return lib.get();
}

void check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const char* msg = cublas().status_string ? cublas().status_string(s) : "";
  CT_CHECK(s != CUBLAS_STATUS_ALLOC_FAILED, Status::OutOfMemory, "CUDA out of memory in cuBLAS (", what, "): ", msg);
  fail(Status::Cuda, "cuBLAS error: ", msg, " (", static_cast<int>(s), " in ", what, ")");
}

// The calling thread's handles and workspaces (Note [cuBLAS handles]). Never destroyed at
// process exit (the driver may be gone by then; PyTorch leaks them too).
struct ThreadHandles {
  std::map<int, cublasHandle_t> handles;
  struct Workspace {
    DataPtr mem;
    size_t size;
  };
  std::map<std::pair<int, cudaStream_t>, Workspace> workspaces;
  ~ThreadHandles() {
    workspaces.clear();
    for (auto& [d, h] : handles) (void)cublas().destroy(h);
  }
};

size_t workspace_size(int device) {
  // PyTorch's defaults: 32 MiB on Hopper and newer, else 4 MiB x 2 + 16 KiB x 8
  return cuda::device_property(device, DeviceProperty::Major) >= 9 ? (32u << 20) : (4096u * 1024 * 2 + 16u * 1024 * 8);
}

cublasHandle_t handle_for(int device, cudaStream_t stream) {
  thread_local ThreadHandles t;
  const Cublas& lib = cublas();
  auto it = t.handles.find(device);
  if (it == t.handles.end()) {
    cublasHandle_t h = nullptr;
    check(lib.create(&h), "cublasCreate");
    it = t.handles.emplace(device, h).first;
  }
  cublasHandle_t h = it->second;
  check(lib.set_stream(h, stream), "cublasSetStream");
  auto key = std::make_pair(device, stream);
  auto w = t.workspaces.find(key);
  if (w == t.workspaces.end()) {
    size_t size = workspace_size(device);
    DataPtr mem = alloc::allocate(static_cast<int64_t>(size), Device{DeviceType::CUDA, device});
    w = t.workspaces.emplace(key, ThreadHandles::Workspace{std::move(mem), size}).first;
  }
  check(lib.set_workspace(h, w->second.mem.get(), w->second.size), "cublasSetWorkspace");
  return h;
}

}  // namespace

void cuda_gemm(DType dtype, int device, int64_t batch, int64_t n, int64_t m, int64_t k, const void* A, const void* B,
               void* C) {
  cuda::DeviceGuard g(device);
  cudaStream_t stream = static_cast<cudaStream_t>(cuda::current_stream(device)->stream);
  cublasHandle_t h = handle_for(device, stream);
  const Cublas& lib = cublas();
  CT_CHECK(n <= INT32_MAX && m <= INT32_MAX && k <= INT32_MAX && batch <= INT32_MAX, Status::NotSupported,
           "CUDA matrix product: sizes beyond 2^31 - 1 are not supported");
  cudaDataType t;
  cublasComputeType_t compute;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  float f1[2] = {1, 0}, f0[2] = {0, 0};
  double d1[2] = {1, 0}, d0[2] = {0, 0};
  const void *alpha = f1, *beta = f0;
  switch (dtype) {
    case DType::Float32:
      t = CUDA_R_32F;
      compute = g_tf32.load() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      if (g_tf32.load()) math = CUBLAS_TF32_TENSOR_OP_MATH;
      break;
    case DType::Float64: t = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F, alpha = d1, beta = d0; break;
    case DType::Float16:
      t = CUDA_R_16F, compute = CUBLAS_COMPUTE_32F;
      if (!g_fp16_reduced.load()) math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      break;
    case DType::BFloat16:
      t = CUDA_R_16BF, compute = CUBLAS_COMPUTE_32F;
      if (!g_bf16_reduced.load()) math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      break;
    case DType::Complex64: t = CUDA_C_32F, compute = CUBLAS_COMPUTE_32F; break;
    case DType::Complex128: t = CUDA_C_64F, compute = CUBLAS_COMPUTE_64F, alpha = d1, beta = d0; break;
    default: fail(Status::Internal, "cuda_gemm: unexpected dtype");
  }
  check(lib.set_math_mode(h, math), "cublasSetMathMode");
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands (no transposes).
  int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  check(lib.gemm_strided_batched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, alpha, B, t, M > 0 ? M : 1, k * m, A, t,
                                 K > 0 ? K : 1, n * k, beta, C, t, M > 0 ? M : 1, n * m, static_cast<int>(batch),
                                 compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}


int64_t current_blas_handle(int device) {
  cuda::DeviceGuard g(device);
  cudaStream_t stream = static_cast<cudaStream_t>(cuda::current_stream(device)->stream);
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(handle_for(device, stream)));
}

}  // namespace ct::blas
