/* The jiterator against torch's (issue 18), ctorch's side through the C ABI, as users call it.
 * Driven by bench/jit/jit_bench.py on the GPU host, which runs it in two processes sharing one
 * fresh kernel cache directory (CTORCH_KERNEL_CACHE_PATH): the first compiles, the second loads
 * from disk. Prints one line a row, `row <name> <microseconds>` (and `first <dtype> <ms>`: the
 * wall time of a function's first call, compile or disk load included), for:
 *   silu = x / (1 + exp(-x)) (x * sigmoid(x)) in float32, float16 and bfloat16 at 64M, 1M and
 *   4K elements; ctorch's built-in chain x * sigmoid(x) next to it at 64M;
 *   at 64M (8192 x 8192) in float32 and float16: a transposed view, a slice of every row
 *   (8192 of 8200 columns), and a two-input axpb = a * b + 1 of a column (8192, 1) and a row
 *   (1, 8192) broadcast to the square.
 * Each timed row is the median of 7 rounds (after one warm-up round) of N calls, the wall time of
 * a round (ct_cuda_synchronize at both ends) divided by N: the GPU time for large tensors, the
 * host's cost per call for small ones. torch's side (jit_bench.py) times the same way.
 *   gcc -O2 -I. bench/jit/jit_bench.c -o jit_bench -L<dir of libctorch.so> -lctorch */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"

#define ROUNDS 7

static ct_cuda_jit_fn g_fn;
static ct_tensor g_in[2];
static int g_nin;

static void call_jit(void) {
  ct_tensor out;
  check(ct_cuda_jit_run(g_fn, g_in, g_nin, NULL, NULL, NULL, NULL, 0, &out, 1), "ct_cuda_jit_run");
  ct_tensor_release(out);
}

static void call_builtin(void) { /* x * sigmoid(x) */
  ct_tensor s, out;
  check(ct_unary(CT_SIGMOID, g_in[0], &s), "ct_unary");
  check(ct_binary(CT_MUL, g_in[0], s, &out), "ct_binary");
  ct_tensor_release(s);
  ct_tensor_release(out);
}

/* the median over ROUNDS rounds of calls calls of f, microseconds a call */
static double time_it(void (*f)(void), int calls) {
  double us[ROUNDS];
  for (int r = -1; r < ROUNDS; ++r) {
    check(ct_cuda_synchronize(-1), "ct_cuda_synchronize");
    double t0 = now_us();
    for (int i = 0; i < calls; ++i) f();
    check(ct_cuda_synchronize(-1), "ct_cuda_synchronize");
    if (r >= 0) us[r] = (now_us() - t0) / calls;
  }
  qsort(us, ROUNDS, sizeof us[0], cmp_double);
  return us[ROUNDS / 2];
}

static ct_tensor uniform(const int64_t* sizes, int ndim, ct_dtype dt) {
  ct_tensor t;
  check(ct_empty(sizes, ndim, dt, CT_CUDA, -1, &t), "ct_empty");
  check(ct_tensor_uniform_(t, -10, 10, NULL), "ct_tensor_uniform_");
  return t;
}

static const char* dname(ct_dtype dt) { return dt == CT_FLOAT32 ? "f32" : dt == CT_FLOAT16 ? "f16" : "bf16"; }

static ct_cuda_jit_fn create(const char* code) {
  ct_cuda_jit_fn f;
  check(ct_cuda_jit_create(code, NULL, NULL, NULL, NULL, 0, &f), "ct_cuda_jit_create");
  return f;
}

int main(void) {
  const char* silu = "template <typename T> T silu(T x) { return x / (T(1) + exp(-x)); }";
  const char* axpb = "template <typename T> T axpb(T a, T b) { return a * b + T(1); }";
  const ct_dtype dts[3] = {CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16};
  g_fn = create(silu);
  /* the first call of each dtype: NVRTC (or the disk cache) and the load */
  for (int d = 0; d < 3; ++d) {
    int64_t n = 4096;
    g_in[0] = uniform(&n, 1, dts[d]);
    g_nin = 1;
    check(ct_cuda_synchronize(-1), "ct_cuda_synchronize");
    double t0 = now_us();
    call_jit();
    check(ct_cuda_synchronize(-1), "ct_cuda_synchronize");
    printf("first %s %.1f\n", dname(dts[d]), (now_us() - t0) / 1000);
    ct_tensor_release(g_in[0]);
  }
  const int64_t sizes[3] = {(int64_t)1 << 26, (int64_t)1 << 20, 4096};
  const char* size_names[3] = {"64M", "1M", "4K"};
  const int calls[3] = {20, 200, 2000};
  for (int d = 0; d < 3; ++d) {
    for (int s = 0; s < 3; ++s) {
      g_in[0] = uniform(&sizes[s], 1, dts[d]);
      g_nin = 1;
      printf("row jit_silu_%s_%s %.2f\n", dname(dts[d]), size_names[s], time_it(call_jit, calls[s]));
      if (s == 0) printf("row builtin_silu_%s_%s %.2f\n", dname(dts[d]), size_names[s], time_it(call_builtin, calls[s]));
      ct_tensor_release(g_in[0]);
    }
  }
  for (int d = 0; d < 2; ++d) {
    const int64_t sq[2] = {8192, 8192}, wide[2] = {8192, 8200};
    ct_tensor base = uniform(sq, 2, dts[d]);
    check(ct_transpose(base, 0, 1, &g_in[0]), "ct_transpose");
    g_nin = 1;
    printf("row jit_silu_%s_64M_transposed %.2f\n", dname(dts[d]), time_it(call_jit, 20));
    ct_tensor_release(g_in[0]);
    ct_tensor_release(base);
    base = uniform(wide, 2, dts[d]);
    check(ct_narrow(base, 1, 0, 8192, &g_in[0]), "ct_narrow");
    printf("row jit_silu_%s_64M_sliced %.2f\n", dname(dts[d]), time_it(call_jit, 20));
    ct_tensor_release(g_in[0]);
    ct_tensor_release(base);
  }
  ct_cuda_jit_release(g_fn);
  g_fn = create(axpb);
  for (int d = 0; d < 2; ++d) {
    const int64_t col[2] = {8192, 1}, row[2] = {1, 8192};
    g_in[0] = uniform(col, 2, dts[d]);
    g_in[1] = uniform(row, 2, dts[d]);
    g_nin = 2;
    printf("row jit_axpb_%s_64M_broadcast %.2f\n", dname(dts[d]), time_it(call_jit, 20));
    ct_tensor_release(g_in[0]);
    ct_tensor_release(g_in[1]);
  }
  ct_cuda_jit_release(g_fn);
  return 0;
}
