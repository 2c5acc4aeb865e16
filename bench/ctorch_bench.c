/* ctorch side of the GPU benchmarks (bench/run.sh runs it next to torch_bench.py).
 * Prints "name value unit" lines. GPU times come from CUDA events around N iterations after
 * a warm-up; host costs from a monotonic clock around N calls followed by a synchronize. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "capi/ctorch.h"

#define CK(call)                                                                              \
  do {                                                                                        \
    ct_status s_ = (call);                                                                    \
    if (s_ != CT_OK) {                                                                        \
      fprintf(stderr, "%s: %s: %s\n", #call, ct_status_name(s_), ct_last_error_message());   \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static ct_event ev0, ev1;

static double gpu_ms(void) {
  double ms;
  CK(ct_event_synchronize(ev1));
  CK(ct_event_elapsed_time(ev0, ev1, &ms));
  return ms;
}

/* The allocator benchmarks (also run alone, `ctorch_bench alloc`, alternating with torch's in
 * bench/run.sh): create + free of a 256-float CUDA tensor, and allocations alternating
 * between four streams. */
static void alloc_benches(void) {
  ct_tensor c;
  double t0, t1;
  /* create + free of a 256-float CUDA tensor (the caching allocator's fast path) */
  for (int i = 0; i < 1000; ++i) { CK(ct_empty((int64_t[]){256}, 1, CT_FLOAT32, CT_CUDA, 0, &c)); CK(ct_tensor_release(c)); }
  const int cf_iters = 100000;
  t0 = now_us();
  for (int i = 0; i < cf_iters; ++i) { CK(ct_empty((int64_t[]){256}, 1, CT_FLOAT32, CT_CUDA, 0, &c)); CK(ct_tensor_release(c)); }
  t1 = now_us();
  printf("create_free_256f %.3f us\n", (t1 - t0) / cf_iters);

  /* allocations alternating between four streams */
  {
    ct_stream st[4];
    for (int k = 0; k < 4; ++k) CK(ct_stream_create(0, 0, &st[k]));
    const int64_t sizes[] = {256, 4096, 300000, 3 << 20};
    int64_t count = 0;
    t0 = now_us();
    for (int i = 0; i < 20000; ++i) {
      ct_stream prev;
      int32_t pd;
      CK(ct_stream_guard_enter(st[i % 4], &prev, &pd));
      ct_tensor x, y;
      CK(ct_empty(&sizes[i % 4], 1, CT_FLOAT32, CT_CUDA, 0, &x));
      CK(ct_empty(&sizes[(i + 1) % 4], 1, CT_FLOAT32, CT_CUDA, 0, &y));
      CK(ct_tensor_release(x));
      CK(ct_tensor_release(y));
      CK(ct_stream_guard_exit(prev, pd));
      count += 2;
    }
    t1 = now_us();
    printf("multistream_alloc_free %.3f us\n", (t1 - t0) / count);
    for (int k = 0; k < 4; ++k) CK(ct_stream_release(st[k]));
  }
}

int main(int argc, char** argv) {
  const int64_t n = 64LL << 20; /* 64M float32 = 256 MiB */
  if (argc > 1 && !strcmp(argv[1], "alloc")) {
    alloc_benches();
    return 0;
  }
  CK(ct_event_create(CT_EVENT_ENABLE_TIMING, &ev0));
  CK(ct_event_create(CT_EVENT_ENABLE_TIMING, &ev1));
  ct_tensor a, b, c, s;

  /* host cost of a small op: the time the caller spends per call, stream kept busy */
  CK(ct_ones((int64_t[]){1}, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  for (int i = 0; i < 1000; ++i) { CK(ct_binary(CT_ADD, a, a, &c)); CK(ct_tensor_release(c)); }
  CK(ct_cuda_synchronize(0));
  const int small_iters = 20000;
  double t0 = now_us();
  for (int i = 0; i < small_iters; ++i) { CK(ct_binary(CT_ADD, a, a, &c)); CK(ct_tensor_release(c)); }
  double t1 = now_us();
  CK(ct_cuda_synchronize(0));
  printf("small_add_host %.3f us\n", (t1 - t0) / small_iters);
  CK(ct_tensor_release(a));

  alloc_benches();

  /* add and sum of 64M float32 */
  CK(ct_ones((int64_t[]){n}, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  CK(ct_ones((int64_t[]){n}, 1, CT_FLOAT32, CT_CUDA, 0, &b));
  const int iters = 20;
  for (int i = 0; i < 3; ++i) { CK(ct_binary(CT_ADD, a, b, &c)); CK(ct_tensor_release(c)); }
  CK(ct_event_record(ev0, NULL));
  for (int i = 0; i < iters; ++i) { CK(ct_binary(CT_ADD, a, b, &c)); CK(ct_tensor_release(c)); }
  CK(ct_event_record(ev1, NULL));
  double ms = gpu_ms() / iters;
  printf("add_64M_f32 %.4f ms %.1f GB/s\n", ms, 3.0 * n * 4 / (ms * 1e6));
  for (int i = 0; i < 3; ++i) { CK(ct_reduce(CT_SUM, a, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s)); CK(ct_tensor_release(s)); }
  CK(ct_event_record(ev0, NULL));
  for (int i = 0; i < iters; ++i) { CK(ct_reduce(CT_SUM, a, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s)); CK(ct_tensor_release(s)); }
  CK(ct_event_record(ev1, NULL));
  ms = gpu_ms() / iters;
  printf("sum_64M_f32 %.4f ms %.1f GB/s\n", ms, 1.0 * n * 4 / (ms * 1e6));

  /* random numbers: rand_ (uniform_) and randn_ (normal_) of 64M float32 in place */
  CK(ct_empty((int64_t[]){n}, 1, CT_FLOAT32, CT_CUDA, 0, &c));
  for (int i = 0; i < 3; ++i) CK(ct_tensor_uniform_(c, 0.0, 1.0, NULL));
  CK(ct_event_record(ev0, NULL));
  for (int i = 0; i < iters; ++i) CK(ct_tensor_uniform_(c, 0.0, 1.0, NULL));
  CK(ct_event_record(ev1, NULL));
  ms = gpu_ms() / iters;
  printf("rand_64M_f32 %.4f ms %.1f GB/s\n", ms, 1.0 * n * 4 / (ms * 1e6));
  for (int i = 0; i < 3; ++i) CK(ct_tensor_normal_(c, 0.0, 1.0, NULL));
  CK(ct_event_record(ev0, NULL));
  for (int i = 0; i < iters; ++i) CK(ct_tensor_normal_(c, 0.0, 1.0, NULL));
  CK(ct_event_record(ev1, NULL));
  ms = gpu_ms() / iters;
  printf("randn_64M_f32 %.4f ms %.1f GB/s\n", ms, 1.0 * n * 4 / (ms * 1e6));
  CK(ct_tensor_release(c));
  {
    const int64_t m = 16LL << 20;
    ct_tensor h;
    CK(ct_empty((int64_t[]){m}, 1, CT_FLOAT32, CT_CPU, 0, &h));
    CK(ct_tensor_normal_(h, 0.0, 1.0, NULL));
    double h0 = now_us();
    for (int i = 0; i < 5; ++i) CK(ct_tensor_normal_(h, 0.0, 1.0, NULL));
    printf("cpu_randn_16M_f32 %.4f ms\n", (now_us() - h0) / 5 / 1e3);
    CK(ct_tensor_release(h));
  }

  /* matrix products: 8192 x 8192 (and 4096) in float32, TF32, bfloat16, float16 */
  {
    const int64_t sizes[2] = {8192, 4096};
    const struct { const char* name; ct_dtype dt; int tf32; } kinds[4] = {
        {"fp32", CT_FLOAT32, 0}, {"tf32", CT_FLOAT32, 1}, {"bf16", CT_BFLOAT16, 0}, {"fp16", CT_FLOAT16, 0}};
    for (int si = 0; si < 2; ++si) {
      int64_t N = sizes[si];
      for (int ki = 0; ki < 4; ++ki) {
        ct_tensor x, y, z;
        CK(ct_rand((int64_t[]){N, N}, 2, kinds[ki].dt, CT_CUDA, 0, NULL, &x));
        CK(ct_rand((int64_t[]){N, N}, 2, kinds[ki].dt, CT_CUDA, 0, NULL, &y));
        CK(ct_set_allow_tf32(kinds[ki].tf32));
        for (int i = 0; i < 3; ++i) { CK(ct_mm(x, y, &z)); CK(ct_tensor_release(z)); }
        const int mi = 10;
        CK(ct_event_record(ev0, NULL));
        for (int i = 0; i < mi; ++i) { CK(ct_mm(x, y, &z)); CK(ct_tensor_release(z)); }
        CK(ct_event_record(ev1, NULL));
        ms = gpu_ms() / mi;
        printf("matmul_%lld_%s %.4f ms %.1f TFLOPS\n", (long long)N, kinds[ki].name, ms, 2.0 * N * N * N / (ms * 1e9));
        CK(ct_set_allow_tf32(0));
        CK(ct_tensor_release(x));
        CK(ct_tensor_release(y));
      }
    }
  }

  /* FFT: c2c of 2^24 complex64, and 4096 batched transforms of 1024 */
  {
    const struct { const char* name; int64_t sizes[2]; int nd; } ffts[2] = {{"fft_c2c_2p24", {1 << 24, 0}, 1},
                                                                             {"fft_c2c_4096x1024", {4096, 1024}, 2}};
    for (int fi = 0; fi < 2; ++fi) {
      ct_tensor x, y;
      CK(ct_randn(ffts[fi].sizes, ffts[fi].nd, CT_FLOAT32, CT_CUDA, 0, NULL, &y));
      CK(ct_tensor_to(y, CT_CUDA, 0, CT_COMPLEX64, 0, 0, &x));
      CK(ct_tensor_release(y));
      for (int i = 0; i < 3; ++i) { CK(ct_fft_fft(x, -1, -1, 0, &y)); CK(ct_tensor_release(y)); }
      CK(ct_event_record(ev0, NULL));
      for (int i = 0; i < iters; ++i) { CK(ct_fft_fft(x, -1, -1, 0, &y)); CK(ct_tensor_release(y)); }
      CK(ct_event_record(ev1, NULL));
      ms = gpu_ms() / iters;
      printf("%s %.4f ms\n", ffts[fi].name, ms);
      CK(ct_tensor_release(x));
    }
  }

  /* device to device copy of 256 MiB */
  CK(ct_empty((int64_t[]){n}, 1, CT_FLOAT32, CT_CUDA, 0, &c));
  for (int i = 0; i < 3; ++i) CK(ct_tensor_copy_(c, a, 0));
  CK(ct_event_record(ev0, NULL));
  for (int i = 0; i < iters; ++i) CK(ct_tensor_copy_(c, a, 0));
  CK(ct_event_record(ev1, NULL));
  ms = gpu_ms() / iters;
  printf("d2d_copy_256MiB %.4f ms %.1f GB/s\n", ms, 2.0 * n * 4 / (ms * 1e6));

  /* host <-> device, pinned (non_blocking) and pageable */
  ct_tensor hp, hpin;
  CK(ct_ones((int64_t[]){n}, 1, CT_FLOAT32, CT_CPU, -1, &hp));
  CK(ct_tensor_pin_memory(hp, &hpin));
  const char* names[4] = {"h2d_pinned_256MiB", "h2d_pageable_256MiB", "d2h_pinned_256MiB", "d2h_pageable_256MiB"};
  for (int k = 0; k < 4; ++k) {
    ct_tensor host = (k % 2 == 0) ? hpin : hp;
    int nb = (k % 2 == 0);
    int reps = 5;
    for (int i = 0; i < 2; ++i) CK(k < 2 ? ct_tensor_copy_(c, host, nb) : ct_tensor_copy_(host, c, nb));
    CK(ct_cuda_synchronize(0));
    double w0 = now_us();
    for (int i = 0; i < reps; ++i) CK(k < 2 ? ct_tensor_copy_(c, host, nb) : ct_tensor_copy_(host, c, nb));
    CK(ct_cuda_synchronize(0));
    double w1 = now_us();
    double per = (w1 - w0) / 1e3 / reps;
    printf("%s %.4f ms %.1f GB/s\n", names[k], per, 1.0 * n * 4 / (per * 1e6));
  }
  CK(ct_tensor_release(hp));
  CK(ct_tensor_release(hpin));
  CK(ct_tensor_release(a));
  CK(ct_tensor_release(b));
  CK(ct_tensor_release(c));
  return 0;
}
