/* Local timing of the CPU float16/bfloat16/float32 rows of issue 12 (cpu/add/<dt>/contig,
 * cpu/sum/<dt>/contig, cpu/sum_dim1/<dt>): 16M elements ([4096, 4096]), medians of host-clock
 * calls, GB/s of the bytes each op must move (add: 2 inputs + the output; sums: the input).
 * "add" allocates its output (first-touch page faults included, as the benchmark's row);
 * "add_" adds (and subtracts, alternately) in place: the kernel without the page faults.
 *   cc -O2 -I. bench/cpu_local/time_f16.c -Lbazel-bin/capi -lctorch -o /tmp/time_f16
 *   LD_LIBRARY_PATH=bazel-bin/capi /tmp/time_f16 [threads] [reps]
 */

#include "bench/host_timer.h"

enum { kAdd, kAddInPlace, kSum, kSumDim1 };

static double time_op(int op, ct_tensor a, ct_tensor b, int reps) {
  double t[101];
  if (reps > 101) reps = 101;
  static const int64_t dim1[1] = {1};
  for (int r = -2; r < reps; ++r) {
    ct_tensor o = NULL;
    double t0 = bench_now_ns() * 1e-3;
    if (op == kAdd) CK(ct_binary(CT_ADD, a, b, &o));
    else if (op == kAddInPlace) CK(ct_binary_(r % 2 ? CT_SUB : CT_ADD, a, b));
    else if (op == kSum) CK(ct_reduce(CT_SUM, a, NULL, 0, 0, CT_DTYPE_UNDEFINED, &o));
    else CK(ct_reduce(CT_SUM, a, dim1, 1, 0, CT_DTYPE_UNDEFINED, &o));
    double t1 = bench_now_ns() * 1e-3;
    if (o) CK(ct_tensor_release(o));
    if (r >= 0) t[r] = t1 - t0;
  }
  return bench_median(t, reps);
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 21;
  CK(ct_set_num_threads(threads));
  const int64_t sizes[2] = {4096, 4096};
  const double n = 4096.0 * 4096.0;
  struct { const char* name; ct_dtype dt; int size; } dts[] = {
      {"f32", CT_FLOAT32, 4}, {"f16", CT_FLOAT16, 2}, {"bf16", CT_BFLOAT16, 2}};
  printf("# %d threads, %d reps, medians\n", threads, reps);
  for (int k = 0; k < 3; ++k) {
    ct_tensor a, b;
    CK(ct_randn(sizes, 2, dts[k].dt, CT_CPU, -1, NULL, &a));
    CK(ct_randn(sizes, 2, dts[k].dt, CT_CPU, -1, NULL, &b));
    const double bytes = n * dts[k].size;
    double ta = time_op(kAdd, a, b, reps), ti = time_op(kAddInPlace, a, b, reps);
    double ts = time_op(kSum, a, b, reps), td = time_op(kSumDim1, a, b, reps);
    printf("%-4s  add %8.1f us %5.1f GB/s | add_ %8.1f us %5.1f GB/s | sum %7.1f us %5.1f GB/s | sum_dim1 %7.1f us %5.1f GB/s\n",
           dts[k].name, ta, 3 * bytes / ta * 1e-3, ti, 3 * bytes / ti * 1e-3, ts, bytes / ts * 1e-3, td,
           bytes / td * 1e-3);
    CK(ct_tensor_release(a));
    CK(ct_tensor_release(b));
  }
  return 0;
}
