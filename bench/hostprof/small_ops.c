/* Host cost of small ops, for comparing builds of libctorch.so in one process (issue 12 item
 * 6). Each library given on the command line is dlopen'ed on its own (RTLD_LOCAL, so two
 * builds can sit side by side) and the cases run in alternating rounds, library after library,
 * so that machine noise hits all alike:
 *   add1      ct_binary(CT_ADD) of two 1-element float32 tensors, result released (on CUDA:
 *             Note [Binary fast path])
 *   add4x4_4  ct_binary(CT_ADD) of a [4,4] and a [4] float32 tensor (broadcast: the general
 *             path), result released
 *   empty256  ct_empty of 256 float32 + release
 *   floor     (CUDA, with a floor library) an empty kernel launch, bench/floor_kernel.cu
 * Device "cpu" or "cuda" (CUDA: host time per call; the device is synchronized every 256
 * calls, in every case). On the CPU the timings are a proxy for the host side of the CUDA
 * path, which shares tensor creation, promotion, broadcasting and the handle table.
 * Prints per library and case the median (and min) ns per call over the rounds.
 *   usage: small_ops cpu|cuda FLOOR.so|- lib.so ...   (bench/hostprof/small_ops.sh builds and runs it)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/host_timer.h"

typedef struct {
  const char* path;
  ct_status (*binary)(ct_binary_op, ct_tensor, ct_tensor, ct_tensor*);
  ct_status (*release)(ct_tensor);
  ct_status (*empty)(const int64_t*, int32_t, ct_dtype, ct_device_type, int32_t, ct_tensor*);
  ct_status (*full)(const int64_t*, int32_t, double, ct_dtype, ct_device_type, int32_t, ct_tensor*);
  ct_status (*sync)(int32_t);
  const char* (*message)(void);
  ct_tensor one, m44, v4;
} Lib;

enum { kCases = 4, kRounds = 31, kMaxLibs = 4, kSyncEvery = 256 };
static const char* kNames[kCases] = {"add1", "add4x4_4", "empty256", "floor"};
static ct_device_type g_dev = CT_CPU;
static void (*g_floor)(int);  /* ct_bench_launch_empty of the floor library */
static int g_iters = 50000;

static void* sym(void* h, const char* name) {
  void* p = dlsym(h, name);
  if (!p) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
  return p;
}

static double run_case(Lib* L, int c, int iters) {
  int64_t n256 = 256;
  ct_tensor r;
  int cuda = g_dev == CT_CUDA;
  double t0 = bench_now_ns();
  for (int i = 0; i < iters; ++i) {
    ct_status s = CT_OK;
    if (c == 3) {
      g_floor(1);
    } else {
      if (c == 0) s = L->binary(CT_ADD, L->one, L->one, &r);
      else if (c == 1) s = L->binary(CT_ADD, L->m44, L->v4, &r);
      else s = L->empty(&n256, 1, CT_FLOAT32, g_dev, cuda ? 0 : -1, &r);
      if (s != CT_OK) { fprintf(stderr, "%s: case %s failed: %s\n", L->path, kNames[c], L->message()); exit(1); }
      L->release(r);
    }
    if (cuda && i % kSyncEvery == kSyncEvery - 1) L->sync(-1);
  }
  if (cuda) L->sync(-1);
  return (bench_now_ns() - t0) / iters;
}

static void* idle(void* p) { return p; }

int main(int argc, char** argv) {
  /* glibc's malloc and libstdc++'s shared_ptr skip their atomics in a process that never
     started a thread; every real user has threads (bench/bindings/c does the same). */
  pthread_t th;
  pthread_create(&th, NULL, idle, NULL);
  pthread_join(th, NULL);
  if (argc < 4) {
    fprintf(stderr, "usage: %s cpu|cuda FLOOR.so|- lib.so ...\n", argv[0]);
    return 2;
  }
  g_dev = strcmp(argv[1], "cuda") == 0 ? CT_CUDA : CT_CPU;
  if (g_dev == CT_CUDA) g_iters = 10240;
  int ncases = 3;
  if (g_dev == CT_CUDA && strcmp(argv[2], "-") != 0) {
    void* f = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!f) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    g_floor = (void (*)(int))sym(f, "ct_bench_launch_empty");
    ncases = 4;
  }
  int nl = argc - 3;
  if (nl > kMaxLibs) nl = kMaxLibs;
  Lib libs[kMaxLibs];
  for (int l = 0; l < nl; ++l) {
    Lib* L = &libs[l];
    L->path = argv[l + 3];
    void* h = dlopen(L->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    L->binary = (ct_status(*)(ct_binary_op, ct_tensor, ct_tensor, ct_tensor*))sym(h, "ct_binary");
    L->release = (ct_status(*)(ct_tensor))sym(h, "ct_tensor_release");
    L->empty = (ct_status(*)(const int64_t*, int32_t, ct_dtype, ct_device_type, int32_t, ct_tensor*))sym(h, "ct_empty");
    L->full = (ct_status(*)(const int64_t*, int32_t, double, ct_dtype, ct_device_type, int32_t, ct_tensor*))sym(h, "ct_full");
    L->sync = (ct_status(*)(int32_t))sym(h, "ct_cuda_synchronize");
    L->message = (const char* (*)(void))sym(h, "ct_last_error_message");
    int64_t one = 1, s44[2] = {4, 4}, s4 = 4;
    int32_t di = g_dev == CT_CUDA ? 0 : -1;
    if (L->full(&one, 1, 1.5, CT_FLOAT32, g_dev, di, &L->one) || L->full(s44, 2, 1.5, CT_FLOAT32, g_dev, di, &L->m44) ||
        L->full(&s4, 1, 2.5, CT_FLOAT32, g_dev, di, &L->v4)) {
      fprintf(stderr, "%s: ct_full failed: %s\n", L->path, L->message());
      return 1;
    }
    for (int c = 0; c < ncases; ++c) run_case(L, c, g_iters);  /* warm-up */
  }
  static double t[kMaxLibs][kCases][kRounds];
  for (int r = 0; r < kRounds; ++r)
    for (int c = 0; c < ncases; ++c)
      for (int l = 0; l < nl; ++l) t[l][c][r] = run_case(&libs[l], c, g_iters);
  printf("%s, %d rounds of %d calls\n", g_dev == CT_CUDA ? "cuda (host time per call)" : "cpu", kRounds, g_iters);
  printf("%-10s", "ns/call");
  for (int l = 0; l < nl; ++l) printf("  lib%d median (min)", l);
  printf("\n");
  for (int c = 0; c < ncases; ++c) {
    printf("%-10s", kNames[c]);
    for (int l = 0; l < nl; ++l) {
      double median = bench_median(t[l][c], kRounds);
      printf("  %11.1f (%5.1f)", median, t[l][c][0]);
    }
    printf("\n");
  }
  for (int l = 0; l < nl; ++l) printf("lib%d = %s\n", l, libs[l].path);
  return 0;
}
