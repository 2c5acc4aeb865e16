/* Seeing the GPU from C (docs/profiling.md, docs/monitoring.md): a few ops inside NVTX ranges,
 * which Nsight Systems shows on the timeline (`nsys profile -t nvtx,cuda ./profile`), then the
 * device's NVML figures. As PyTorch:
 *
 *   with torch.cuda.nvtx.range("matmul"):
 *       c = a @ b
 *   print(torch.cuda.utilization(), torch.cuda.temperature(), torch.cuda.power_draw(), ...)
 *   print(torch.cuda.list_gpu_processes())
 *
 * Device-agnostic: without CUDA the ops run on the CPU (NVTX needs no GPU) and the figures say
 * why they are missing; it exits 0 either way. Run it with `bazel run //examples/c:profile`.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ctorch.h>

/* Exits with the library's message when a call fails. */
static void ok(ct_status s, const char* what) {
  if (s == CT_OK) return;
  fprintf(stderr, "%s failed: %s: %s\n", what, ct_status_name(s), ct_last_error_message());
  exit(1);
}

/* A figure, or why it is missing (not supported by this GPU, no permission). */
static void figure(const char* name, ct_status s, long long value, const char* unit) {
  if (s == CT_OK) printf("  %-22s %lld %s\n", name, value, unit);
  else printf("  %-22s unavailable (%s: %s)\n", name, ct_status_name(s), ct_last_error_message());
}

int main(void) {
  int32_t cuda = 0;
  ok(ct_cuda_is_available(&cuda), "is_available");
  ct_device_type dev = cuda ? CT_CUDA : CT_CPU;
  int32_t index = cuda ? 0 : -1;
  printf("device: %s\n", cuda ? "cuda:0" : "cpu");

  int32_t depth = 0;
  ok(ct_nvtx_range_push("profile example", &depth), "range_push");
  printf("range 'profile example' pushed at depth %d (-2: no profiler attached)\n", depth);

  ct_tensor a = NULL, b = NULL, c = NULL, s = NULL;
  ok(ct_nvtx_range_push("setup", NULL), "range_push");
  ok(ct_randn((int64_t[]){512, 512}, 2, CT_FLOAT32, dev, index, NULL, &a), "randn");
  ok(ct_randn((int64_t[]){512, 512}, 2, CT_FLOAT32, dev, index, NULL, &b), "randn");
  ok(ct_nvtx_range_pop(NULL), "range_pop");
  for (int i = 0; i < 10; ++i) {
    ok(ct_nvtx_range_push("matmul + sum", NULL), "range_push");
    ok(ct_matmul(a, b, &c), "matmul");
    ok(ct_reduce(CT_SUM, c, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s), "sum");
    ct_tensor_release(c), ct_tensor_release(s);
    ok(ct_nvtx_range_pop(NULL), "range_pop");
  }
  ok(ct_nvtx_mark("ops done"), "mark");
  if (cuda) ok(ct_cuda_synchronize(0), "synchronize");
  ok(ct_nvtx_range_pop(&depth), "range_pop");
  printf("range popped at depth %d\n", depth);

  int32_t n = -1, v = 0;
  int64_t used = 0;
  ok(ct_cuda_device_count_nvml(&n), "device_count_nvml");
  printf("NVML device count: %d (-1: NVML cannot be used here)\n", n);
  ct_status st = ct_cuda_utilization(0, &v);
  if (st != CT_OK) { /* no driver, no GPU: the reason once */
    printf("no NVML figures: %s: %s\n", ct_status_name(st), ct_last_error_message());
  } else {
    printf("cuda:0 as NVML sees it:\n");
    figure("utilization", st, v, "%");
    st = ct_cuda_memory_usage(0, &v);
    figure("memory_usage", st, v, "% (of the time memory was busy)");
    st = ct_cuda_temperature(0, &v);
    figure("temperature", st, v, "C");
    st = ct_cuda_power_draw(0, &v);
    figure("power_draw", st, v, "mW");
    st = ct_cuda_clock_rate(0, &v);
    figure("clock_rate", st, v, "MHz");
    st = ct_cuda_device_memory_used(0, &used);
    figure("device_memory_used", st, (long long)used, "bytes");
    char text[4096];
    st = ct_cuda_list_gpu_processes(0, text, sizeof text, NULL);
    if (st == CT_OK) printf("%s\n", text);
    else printf("list_gpu_processes unavailable (%s: %s)\n", ct_status_name(st), ct_last_error_message());
  }
  ct_tensor_release(a), ct_tensor_release(b);
  return 0;
}
