/* Local timing of the CPU cast rows (cpu/cast/<from>-><to>/contig, 16M elements, [4096, 4096]):
 * medians of host-clock calls, in ns per element. "to" allocates its output (first-touch page
 * faults included, as the benchmark's row, ct_tensor_to); "copy_" converts into a destination
 * allocated once (the kernel alone). A last column times the transposed f32->i32 row's input
 * (a .t() view) through "to".
 *   cc -O2 -I. bench/cpu_local/time_cast.c -Lbazel-bin/capi -lctorch -o /tmp/time_cast
 *   LD_LIBRARY_PATH=bazel-bin/capi /tmp/time_cast [threads] [reps]
 */

#include "bench/host_timer.h"

static double time_cast(ct_tensor x, ct_dtype to, ct_tensor dst, int reps) {
  double t[101];
  if (reps > 101) reps = 101;
  for (int r = -2; r < reps; ++r) {
    ct_tensor o = NULL;
    double t0 = bench_now_ns();
    if (dst) CK(ct_tensor_copy_(dst, x, 0));
    else CK(ct_tensor_to(x, CT_CPU, -1, to, 0, 0, &o));
    double t1 = bench_now_ns();
    if (o) CK(ct_tensor_release(o));
    if (r >= 0) t[r] = t1 - t0;
  }
  return bench_median(t, reps);
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 11;
  CK(ct_set_num_threads(threads));
  const int64_t sizes[2] = {4096, 4096};
  const double n = 4096.0 * 4096.0;
  struct { const char* name; ct_dtype from, to; } rows[] = {
      {"f32->i8", CT_FLOAT32, CT_INT8},    {"f32->u8", CT_FLOAT32, CT_UINT8},
      {"f32->bool", CT_FLOAT32, CT_BOOL},  {"f32->i16", CT_FLOAT32, CT_INT16},
      {"f32->i32", CT_FLOAT32, CT_INT32},  {"f32->i64", CT_FLOAT32, CT_INT64},
      {"f16->i32", CT_FLOAT16, CT_INT32},  {"f16->i8", CT_FLOAT16, CT_INT8},
      {"bf16->i32", CT_BFLOAT16, CT_INT32}, {"bf16->bool", CT_BFLOAT16, CT_BOOL},
      {"f64->i32", CT_FLOAT64, CT_INT32},  {"f32->f16", CT_FLOAT32, CT_FLOAT16},
  };
  printf("# %d threads, %d reps, medians, ns/element\n", threads, reps);
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
    ct_tensor a, d;
    CK(ct_randn(sizes, 2, rows[k].from, CT_CPU, -1, NULL, &a));
    CK(ct_empty(sizes, 2, rows[k].to, CT_CPU, -1, &d));
    CK(ct_tensor_copy_(d, a, 0));
    double tt = time_cast(a, rows[k].to, NULL, reps), tc = time_cast(a, rows[k].to, d, reps);
    printf("%-11s to %6.3f ns/el | copy_ %6.3f ns/el\n", rows[k].name, tt / n, tc / n);
    CK(ct_tensor_release(a));
    CK(ct_tensor_release(d));
  }
  {
    ct_tensor a, at;
    CK(ct_randn(sizes, 2, CT_FLOAT32, CT_CPU, -1, NULL, &a));
    CK(ct_transpose(a, 0, 1, &at));
    printf("%-11s to %6.3f ns/el\n", "f32->i32 t", time_cast(at, CT_INT32, NULL, reps) / n);
    CK(ct_tensor_release(at));
    CK(ct_tensor_release(a));
  }
  return 0;
}
