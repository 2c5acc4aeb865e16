/* Host cost of small CPU ops, for comparing builds of libctorch.so in one process (issue 12
 * item 6; CPU timings are a proxy for the host side of the CUDA path, which shares tensor
 * creation, promotion, broadcasting and the handle table). Each library given on the command
 * line is dlopen'ed on its own (RTLD_LOCAL, so two builds can sit side by side) and the cases
 * run in alternating rounds, library after library, so that machine noise hits all alike:
 *   add1      ct_binary(CT_ADD) of two 1-element float32 tensors, result released
 *   add4x4_4  ct_binary(CT_ADD) of a [4,4] and a [4] float32 tensor (broadcast), result released
 *   empty256  ct_empty of 256 float32 + release
 * Prints per library and case the median (and min) ns per call over the rounds.
 *   usage: bash bench/hostprof/cpu_ops.sh [lib.so ...]   (default: bazel-bin/capi/libctorch.so)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capi/ctorch.h"

typedef struct {
  const char* path;
  ct_status (*binary)(ct_binary_op, ct_tensor, ct_tensor, ct_tensor*);
  ct_status (*release)(ct_tensor);
  ct_status (*empty)(const int64_t*, int32_t, ct_dtype, ct_device_type, int32_t, ct_tensor*);
  ct_status (*full)(const int64_t*, int32_t, double, ct_dtype, ct_device_type, int32_t, ct_tensor*);
  ct_tensor one, m44, v4;
} Lib;

enum { kCases = 3, kRounds = 31, kIters = 50000, kMaxLibs = 4 };
static const char* kNames[kCases] = {"add1", "add4x4_4", "empty256"};

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void* sym(void* h, const char* name) {
  void* p = dlsym(h, name);
  if (!p) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
  return p;
}

static double run_case(Lib* L, int c, int iters) {
  int64_t n256 = 256;
  ct_tensor r;
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) {
    ct_status s;
    if (c == 0) s = L->binary(CT_ADD, L->one, L->one, &r);
    else if (c == 1) s = L->binary(CT_ADD, L->m44, L->v4, &r);
    else s = L->empty(&n256, 1, CT_FLOAT32, CT_CPU, -1, &r);
    if (s != CT_OK) { fprintf(stderr, "%s: case %s failed (%d)\n", L->path, kNames[c], s); exit(1); }
    L->release(r);
  }
  return (now_ns() - t0) / iters;
}

static void* idle(void* p) { return p; }

int main(int argc, char** argv) {
  /* glibc's malloc and libstdc++'s shared_ptr skip their atomics in a process that never
     started a thread; every real user has threads (bench/bindings/c does the same). */
  pthread_t th;
  pthread_create(&th, NULL, idle, NULL);
  pthread_join(th, NULL);
  int nl = argc > 1 ? argc - 1 : 1;
  if (nl > kMaxLibs) nl = kMaxLibs;
  Lib libs[kMaxLibs];
  for (int l = 0; l < nl; ++l) {
    Lib* L = &libs[l];
    L->path = argc > 1 ? argv[l + 1] : "bazel-bin/capi/libctorch.so";
    void* h = dlopen(L->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    L->binary = (ct_status(*)(ct_binary_op, ct_tensor, ct_tensor, ct_tensor*))sym(h, "ct_binary");
    L->release = (ct_status(*)(ct_tensor))sym(h, "ct_tensor_release");
    L->empty = (ct_status(*)(const int64_t*, int32_t, ct_dtype, ct_device_type, int32_t, ct_tensor*))sym(h, "ct_empty");
    L->full = (ct_status(*)(const int64_t*, int32_t, double, ct_dtype, ct_device_type, int32_t, ct_tensor*))sym(h, "ct_full");
    int64_t one = 1, s44[2] = {4, 4}, s4 = 4;
    if (L->full(&one, 1, 1.5, CT_FLOAT32, CT_CPU, -1, &L->one) || L->full(s44, 2, 1.5, CT_FLOAT32, CT_CPU, -1, &L->m44) ||
        L->full(&s4, 1, 2.5, CT_FLOAT32, CT_CPU, -1, &L->v4)) {
      fprintf(stderr, "%s: ct_full failed\n", L->path);
      return 1;
    }
    for (int c = 0; c < kCases; ++c) run_case(L, c, kIters);  /* warm-up */
  }
  static double t[kMaxLibs][kCases][kRounds];
  for (int r = 0; r < kRounds; ++r)
    for (int c = 0; c < kCases; ++c)
      for (int l = 0; l < nl; ++l) t[l][c][r] = run_case(&libs[l], c, kIters);
  printf("%-10s", "ns/call");
  for (int l = 0; l < nl; ++l) printf("  lib%d median (min)", l);
  printf("\n");
  for (int c = 0; c < kCases; ++c) {
    printf("%-10s", kNames[c]);
    for (int l = 0; l < nl; ++l) {
      qsort(t[l][c], kRounds, sizeof(double), cmp);
      printf("  %11.1f (%5.1f)", t[l][c][kRounds / 2], t[l][c][0]);
    }
    printf("\n");
  }
  for (int l = 0; l < nl; ++l) printf("lib%d = %s\n", l, libs[l].path);
  return 0;
}
