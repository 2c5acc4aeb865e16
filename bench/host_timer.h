/* What the host-side C benchmarks share (bench/bindings/c, bench/hostprof, bench/cpu_local):
 * a monotonic clock, the median of a set of timings, and CK(call), which exits with the
 * library's message when a ct_ call fails. Header-only; include as "bench/host_timer.h" with
 * the repository root on the include path. */
#ifndef CTORCH_BENCH_HOST_TIMER_H_
#define CTORCH_BENCH_HOST_TIMER_H_

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capi/ctorch.h"

#define CK(call)                                                                          \
  do {                                                                                    \
    ct_status s_ = (call);                                                                \
    if (s_ != CT_OK) {                                                                    \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                \
              ct_last_error_message());                                                   \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

/* CLOCK_MONOTONIC in nanoseconds */
static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* sorts v[0..n) and returns its median (the upper one for even n); v[0] is then the minimum */
static inline double bench_median(double* v, int n) {
  qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
  return v[n / 2];
}

#endif  // CTORCH_BENCH_HOST_TIMER_H_
