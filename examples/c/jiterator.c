/* The jiterator from C (docs/jiterator.md): a fused GELU (tanh form) written at run time and
 * compiled with NVRTC, checked against the same formula through built-in ops, and a two-output
 * op. As PyTorch:
 *
 *   gelu = torch.cuda.jiterator._create_jit_fn(code)
 *   y = gelu(x)
 *   sum_diff = torch.cuda.jiterator._create_multi_output_jit_fn(code2, num_outputs=2)
 *
 * Without CUDA the functions are created (that needs no GPU) and the program says why it cannot
 * run them, and exits 0. Run it with `bazel run //examples/c:jiterator`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ctorch.h>

static void ok(ct_status s, const char* what) {
  if (s == CT_OK) return;
  fprintf(stderr, "%s failed: %s: %s\n", what, ct_status_name(s), ct_last_error_message());
  exit(1);
}

static const char* kGelu =
    "template <typename T> T gelu(T x) {\n"
    "  const T c = T(0.7978845608028654);  // sqrt(2 / pi)\n"
    "  return T(0.5) * x * (T(1) + ::tanh(c * (x + T(0.044715) * x * x * x)));\n"
    "}\n";
static const char* kSumDiff =
    "template <typename T> void sum_diff(T a, T b, T& sum, T& diff) { sum = a + b; diff = a - b; }\n";

int main(void) {
  ct_cuda_jit_fn gelu = NULL, sum_diff = NULL;
  ok(ct_cuda_jit_create(kGelu, NULL, NULL, NULL, NULL, 0, &gelu), "create gelu");
  ok(ct_cuda_jit_create_multi_output(kSumDiff, 2, NULL, NULL, NULL, NULL, 0, &sum_diff), "create sum_diff");
  int32_t cuda = 0;
  ok(ct_cuda_is_available(&cuda), "is_available");
  if (!cuda) {
    printf("created gelu and sum_diff; no CUDA device here, so nothing runs (the jiterator makes CUDA kernels)\n");
    ct_cuda_jit_release(gelu), ct_cuda_jit_release(sum_diff);
    return 0;
  }
  enum { N = 8 };
  ct_tensor x = NULL, y = NULL;
  ok(ct_linspace(-3, 3, N, CT_FLOAT32, CT_CUDA, 0, &x), "linspace");
  ok(ct_cuda_jit_run(gelu, &x, 1, NULL, NULL, NULL, NULL, 0, &y, 1), "gelu");
  float xs[N], ys[N];
  ct_tensor hx = NULL, hy = NULL;
  ok(ct_tensor_to(x, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &hx), "to cpu");
  ok(ct_tensor_to(y, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &hy), "to cpu");
  ok(ct_tensor_copy_to_buffer(hx, xs, sizeof xs), "copy");
  ok(ct_tensor_copy_to_buffer(hy, ys, sizeof ys), "copy");
  double worst = 0;
  for (int i = 0; i < N; ++i) {
    double v = xs[i], want = 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    printf("gelu(%6.3f) = %9.6f (double: %9.6f)\n", v, ys[i], want);
    if (fabs(ys[i] - want) > worst) worst = fabs(ys[i] - want);
  }
  ct_tensor outs[2] = {NULL, NULL};
  ok(ct_cuda_jit_run(sum_diff, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, outs, 2), "sum_diff");
  double s = 0, d = 0;
  ct_tensor ss = NULL, sd = NULL;
  ok(ct_reduce(CT_SUM, outs[0], NULL, 0, 0, CT_FLOAT64, &ss), "sum");
  ok(ct_reduce(CT_SUM, outs[1], NULL, 0, 0, CT_FLOAT64, &sd), "sum");
  ok(ct_tensor_item_double(ss, &s), "item");
  ok(ct_tensor_item_double(sd, &d), "item");
  printf("sum(x + gelu(x)) = %.6f, sum(x - gelu(x)) = %.6f\n", s, d);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(hx), ct_tensor_release(hy);
  ct_tensor_release(outs[0]), ct_tensor_release(outs[1]), ct_tensor_release(ss), ct_tensor_release(sd);
  ct_cuda_jit_release(gelu), ct_cuda_jit_release(sum_diff);
  if (worst > 1e-5) {
    fprintf(stderr, "gelu differs from the double-precision formula by %g\n", worst);
    return 1;
  }
  return 0;
}
