/* The stream sanitizer's host cost per op (issue 17: nothing measurable when off, within 2x of
 * the host cost per op when on). One process, one small CUDA add at a time (1024 float32, so the
 * host's launch path is what is timed), in place and into a new tensor (which also allocates and
 * frees), for the modes OFF, WARN, OFF again, ERROR, rounds interleaved, medians of 7 rounds of
 * 20000 calls, the wall time of a round divided by its calls (the GPU work of a round is waited
 * for at its end). Run by `bash bench/run.sh gpu_artifacts csan`; prints one table row a case.
 * The sanitizer's functions are looked up at run time, so the same program also runs against a
 * libctorch.so built before the sanitizer existed (`csan_bench baseline`: the OFF rows only, the
 * cost of having the sanitizer at all).
 *   gcc -O2 -I. bench/csan_bench.c -o csan_bench -L<dir of libctorch.so> -lctorch -ldl */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"

#define CALLS 20000
#define ROUNDS 7

static ct_tensor g_a, g_b;
static ct_status (*p_set_mode)(int32_t);
static ct_status (*p_report_count)(int64_t*);

static double round_us(int inplace) {
  check(ct_cuda_synchronize(0), "synchronize");
  double t0 = now_us();
  for (int i = 0; i < CALLS; ++i) {
    if (inplace) {
      check(ct_binary_(CT_ADD, g_a, g_b), "add_");
    } else {
      ct_tensor c = NULL;
      check(ct_binary(CT_ADD, g_a, g_b, &c), "add");
      check(ct_tensor_release(c), "release");
    }
  }
  check(ct_cuda_synchronize(0), "synchronize");
  return (now_us() - t0) / CALLS;
}

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "";  /* "baseline": a library without the sanitizer */
  *(void**)&p_set_mode = dlsym(RTLD_DEFAULT, "ct_cuda_sanitizer_set_mode");
  *(void**)&p_report_count = dlsym(RTLD_DEFAULT, "ct_cuda_sanitizer_report_count");
  const int nmodes = p_set_mode ? 4 : 1;
  int32_t n = 0;
  check(ct_cuda_device_count(&n), "device_count");
  if (n == 0) {
    printf("csan_bench: no GPU, nothing measured\n");
    return 0;
  }
  check(ct_zeros((int64_t[]){1024}, 1, CT_FLOAT32, CT_CUDA, 0, &g_a), "zeros");
  check(ct_ones((int64_t[]){1024}, 1, CT_FLOAT32, CT_CUDA, 0, &g_b), "ones");
  const ct_csan_mode modes[] = {CT_CSAN_OFF, CT_CSAN_WARN, CT_CSAN_OFF, CT_CSAN_ERROR};
  const char* names[] = {"off", "warn", "off_again", "error"};
  for (int inplace = 1; inplace >= 0; --inplace) {
    double us[4][ROUNDS];
    for (int m = 0; m < nmodes; ++m) {  /* warm-up */
      if (p_set_mode) check(p_set_mode(modes[m]), "set_mode");
      round_us(inplace);
    }
    for (int r = 0; r < ROUNDS; ++r)
      for (int m = 0; m < nmodes; ++m) {
        if (p_set_mode) check(p_set_mode(modes[m]), "set_mode");
        us[m][r] = round_us(inplace);
      }
    if (p_set_mode) check(p_set_mode(CT_CSAN_OFF), "set_mode");
    double med[4];
    for (int m = 0; m < nmodes; ++m) {
      qsort(us[m], ROUNDS, sizeof(double), cmp_double);
      med[m] = us[m][ROUNDS / 2];
    }
    for (int m = 0; m < nmodes; ++m)
      printf("| csan_%s%s_add%s_1024_host | %.3f | us/op | vs off %.3f |\n", strcmp(label, "baseline") ? "" : "baseline_",
             p_set_mode ? names[m] : "none", inplace ? "_inplace" : "", med[m], med[m] / med[0]);
  }
  if (!p_report_count) return 0;
  int64_t reports = -1;
  check(p_report_count(&reports), "report_count");
  printf("csan_bench: %lld race reports (expected 0)\n", (long long)reports);
  return reports == 0 ? 0 : 1;
}
