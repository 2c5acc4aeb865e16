/* What the C benchmarks (bench/csan_bench.c, bench/jit/jit_bench.c) share: a call that must
 * succeed, a monotonic clock in microseconds, and the comparison qsort needs for medians. */
#ifndef CTORCH_BENCH_UTIL_H
#define CTORCH_BENCH_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capi/ctorch.h"

static void check(ct_status s, const char* what) {
  if (s != CT_OK) {
    fprintf(stderr, "%s: %s\n", what, ct_last_error_message());
    exit(1);
  }
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}
#endif
