/* The C baseline of the binding-overhead benchmark (bench/bindings/run.sh): the cost of a no-op
 * call (ct_tensor_numel on a live tensor) and of one small op (a + b on 1-element float32
 * tensors, result released) from C. Prints "c noop <ns>" and "c small_add <ns>": the median of 7
 * rounds after a warm-up. Argument "cuda": the small op on CUDA tensors (host cost per call; the
 * work is queued, one synchronize at the end). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "bench/host_timer.h"

static volatile int64_t g_sink;

static double noop_round(ct_tensor a, long iters) {
  double t0 = bench_now_ns();
  int64_t n = 0, s = 0;
  for (long i = 0; i < iters; ++i) {
    ct_tensor_numel(a, &n);
    s += n;
  }
  double t1 = bench_now_ns();
  g_sink = s;
  return (t1 - t0) / (double)iters;
}

static double add_round(ct_tensor a, ct_tensor b, long iters, int sync) {
  double t0 = bench_now_ns();
  for (long i = 0; i < iters; ++i) {
    ct_tensor c;
    ct_binary(CT_ADD, a, b, &c);
    ct_tensor_release(c);
  }
  double t1 = bench_now_ns();
  if (sync) CK(ct_cuda_synchronize(-1));
  return (t1 - t0) / (double)iters;
}

static double median7(double* v) { return bench_median(v, 7); }

static void* idle(void* p) { return p; }

int main(int argc, char** argv) {
  int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  /* Once a process has started a thread, glibc's malloc and libstdc++'s shared_ptr use locks and
     atomics they skip in a single-threaded process. The JVM, Mono and Go always have threads, so
     the C baseline starts (and joins) one too, for a like-for-like comparison. */
  pthread_t th;
  pthread_create(&th, NULL, idle, NULL);
  pthread_join(th, NULL);
  int64_t one = 1;
  ct_tensor a, b;
  ct_device_type dev = cuda ? CT_CUDA : CT_CPU;
  CK(ct_full(&one, 1, 1.5, CT_FLOAT32, dev, cuda ? 0 : -1, &a));
  CK(ct_full(&one, 1, 2.5, CT_FLOAT32, dev, cuda ? 0 : -1, &b));
  double r[7];
  if (!cuda) {
    noop_round(a, 20000);
    for (int i = 0; i < 7; ++i) r[i] = noop_round(a, 1000000);
    printf("c noop %.1f\n", median7(r));
  }
  add_round(a, b, 20000, cuda);
  for (int i = 0; i < 7; ++i) r[i] = add_round(a, b, cuda ? 20000 : 200000, cuda);
  printf("c %s %.1f\n", cuda ? "small_add_cuda" : "small_add", median7(r));
  CK(ct_tensor_release(a));
  CK(ct_tensor_release(b));
  return 0;
}
