/* A pluggable allocator library with PyTorch's CUDAPluggableAllocator signatures, loaded by
 * `pluggable_test load libmyalloc.so` (tools/gpu_check.sh). */
#include <cuda_runtime_api.h>
#include <stddef.h>

void* my_alloc(size_t size, int device, void* stream) {
  (void)stream;
  void* p = NULL;
  int prev = 0;
  cudaGetDevice(&prev);
  cudaSetDevice(device);
  if (cudaMalloc(&p, size) != cudaSuccess) p = NULL;
  cudaSetDevice(prev);
  return p;
}

void my_free(void* ptr, size_t size, int device, void* stream) {
  (void)size, (void)device, (void)stream;
  cudaFree(ptr);
}
