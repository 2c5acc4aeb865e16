/* Pluggable CUDA allocators (ct_cuda_set_allocator / ct_cuda_load_allocator). Its own process,
 * since the allocator can only be chosen before the first CUDA allocation.
 *   pluggable_test                 function pointers (and the error paths)
 *   pluggable_test load LIB.so     PyTorch-style functions loaded from a library */
#include <cuda_runtime_api.h>

#include "tests/capi/test_util.h"

static int g_allocs = 0, g_frees = 0;
static int g_ctx_seen = 0;

static void* my_alloc(int64_t size, int32_t device, int64_t stream, void* ctx) {
  (void)stream;
  if (ctx == &g_ctx_seen) g_ctx_seen = 1;
  void* p = NULL;
  int prev = 0;
  cudaGetDevice(&prev);
  cudaSetDevice(device);
  if (cudaMalloc(&p, (size_t)size) != cudaSuccess) p = NULL;
  cudaSetDevice(prev);
  g_allocs++;
  return p;
}

static void my_free(void* ptr, int64_t size, int32_t device, int64_t stream, void* ctx) {
  (void)size, (void)device, (void)stream, (void)ctx;
  cudaFree(ptr);
  g_frees++;
}

static const char* g_load_path = NULL;

static void test_before_any_allocation(void) {
  FAILS(ct_cuda_set_allocator(NULL, my_free, NULL), CT_ERR_NULL_POINTER, "'alloc'");
  FAILS(ct_cuda_load_allocator("/nonexistent/liballoc.so", "a", "f"), CT_ERR_ARGUMENT, "cannot load the allocator library");
  FAILS(ct_cuda_load_allocator("libm.so.6", "no_such_alloc", "cos"), CT_ERR_ARGUMENT, "has no function 'no_such_alloc'");
  char name[32];
  int64_t need;
  OK(ct_cuda_get_allocator_backend(name, sizeof name, &need));
  EXPECT_STR(name, "native");
  if (g_load_path) OK(ct_cuda_load_allocator(g_load_path, "my_alloc", "my_free"));
  else OK(ct_cuda_set_allocator(my_alloc, my_free, &g_ctx_seen));
  OK(ct_cuda_get_allocator_backend(name, sizeof name, &need));
  EXPECT_STR(name, "pluggable");
  if (!g_cuda) {
    /* a failed CUDA allocation (no GPU) is not "the first allocation": still changeable */
    ct_tensor t = NULL;
    FAILS(ct_zeros((int64_t[]){4}, 1, CT_FLOAT32, CT_CUDA, -1, &t), CT_ERR_CUDA_UNAVAILABLE, "");
    OK(ct_cuda_set_allocator(my_alloc, my_free, &g_ctx_seen));
  }
}

static void test_tensors_use_it(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor a, b, c;
  OK(ct_arange(0, 1000, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  OK(ct_ones((int64_t[]){1000}, 1, CT_FLOAT32, CT_CUDA, 0, &b));
  OK(ct_binary(CT_ADD, a, b, &c));
  ct_tensor s;
  OK(ct_reduce(CT_SUM, c, NULL, 0, 0, CT_FLOAT64, &s));
  EXPECT_VALS(s, 0, 999.0 * 1000 / 2 + 1000);
  rel(s), rel(a), rel(b), rel(c);
  if (!g_load_path) {
    EXPECT(g_allocs >= 3);
    EXPECT_EQ_I(g_frees, g_allocs); /* everything returned (reductions' scratch included) */
    EXPECT_EQ_I(g_ctx_seen, 1);
  }
  int64_t v;
  FAILS(ct_cuda_memory_allocated(0, &v), CT_ERR_NOT_SUPPORTED, "'pluggable'");
  FAILS(ct_cuda_set_allocator(my_alloc, my_free, NULL), CT_ERR_STATE, "before the first CUDA allocation");
  FAILS(ct_cuda_load_allocator("libm.so.6", "cos", "sin"), CT_ERR_STATE, "");
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "load") == 0) g_load_path = argv[2];
  const test_case tests[] = {TEST_CASE(before_any_allocation), TEST_CASE(tensors_use_it)};
  return RUN_TESTS(tests);
}
