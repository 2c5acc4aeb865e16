/* Section 25 of ctorch.h: the jiterator. Creation, handles and argument errors need no GPU; the
 * values (against double-precision references) and the checks of a call need one. The kernels'
 * source and NVRTC are also tested alone (tests/impl/jit_test.cc, jit_run_test.cc). */
#include <pthread.h>

#include "tests/capi/test_util.h"

static const char* kFused =
    "template <typename T> T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }";
static const char* kAlphaBeta[] = {"alpha", "beta"};
static const ct_jit_arg_type kInts2[] = {CT_JIT_ARG_INT64, CT_JIT_ARG_INT64};
static const int64_t kOnes[] = {1, 1};

static ct_cuda_jit_fn fused(void) {
  ct_cuda_jit_fn f = NULL;
  OK(ct_cuda_jit_create(kFused, kAlphaBeta, kInts2, kOnes, NULL, 2, &f));
  return f;
}

static void test_create_and_handles(void) {
  int64_t live0 = -1, live = -1;
  OK(ct_live_cuda_jit_count(&live0));
  ct_cuda_jit_fn f = fused();
  char name[64];
  int64_t needed = 0;
  OK(ct_cuda_jit_name(f, name, sizeof name, &needed));
  EXPECT_STR(name, "my_fused_kernel");
  EXPECT_EQ_I(needed, 15);
  int32_t n = 0;
  OK(ct_cuda_jit_num_outputs(f, &n));
  EXPECT_EQ_I(n, 1);
  OK(ct_live_cuda_jit_count(&live));
  EXPECT_EQ_I(live, live0 + 1);
  OK(ct_cuda_jit_retain(f));
  OK(ct_cuda_jit_release(f));
  OK(ct_cuda_jit_release(f));
  FAILS(ct_cuda_jit_release(f), CT_ERR_INVALID_HANDLE, "already released");
  FAILS(ct_cuda_jit_num_outputs(NULL, &n), CT_ERR_INVALID_HANDLE, "NULL jitted function");
  ct_tensor t = NULL;
  OK(ct_zeros((int64_t[]){1}, 1, CT_FLOAT32, CT_CPU, -1, &t));
  FAILS(ct_cuda_jit_num_outputs((ct_cuda_jit_fn)t, &n), CT_ERR_INVALID_HANDLE, "not a ctorch jitted function");
  rel(t);
  OK(ct_live_cuda_jit_count(&live));
  EXPECT_EQ_I(live, live0);
  /* two outputs, by reference; a bool and a double argument */
  const char* names[] = {"neg", "scale"};
  ct_jit_arg_type types[] = {CT_JIT_ARG_BOOL, CT_JIT_ARG_DOUBLE};
  int64_t ints[] = {0, 0};
  double doubles[] = {0, 2.5};
  OK(ct_cuda_jit_create_multi_output(
      "template <typename T> void sd(T a, T b, bool neg, T scale, T& out0, T& out1) {\n"
      "  out0 = (a + b) * scale; out1 = neg ? b - a : a - b; }",
      2, names, types, ints, doubles, 2, &f));
  OK(ct_cuda_jit_num_outputs(f, &n));
  EXPECT_EQ_I(n, 2);
  OK(ct_cuda_jit_release(f));
}

static void test_creation_errors(void) {
  ct_cuda_jit_fn f = NULL;
  FAILS(ct_cuda_jit_create(NULL, NULL, NULL, NULL, NULL, 0, &f), CT_ERR_NULL_POINTER, "'code'");
  FAILS(ct_cuda_jit_create(kFused, NULL, NULL, NULL, NULL, 0, NULL), CT_ERR_NULL_POINTER, "'out'");
  FAILS(ct_cuda_jit_create("template <typename T> T my _kernel(T x) { return x; }", NULL, NULL, NULL, NULL, 0, &f),
        CT_ERR_ARGUMENT, "Couldn't parse code, please check correctness:");
  FAILS(ct_cuda_jit_create("float f(float x) { return x; }", NULL, NULL, NULL, NULL, 0, &f), CT_ERR_ARGUMENT,
        "Couldn't parse code");
  FAILS(ct_cuda_jit_create(kFused, kAlphaBeta, kInts2, kOnes, NULL, -1, &f), CT_ERR_ARGUMENT, "must be >= 0, got -1");
  FAILS(ct_cuda_jit_create(kFused, NULL, kInts2, kOnes, NULL, 2, &f), CT_ERR_NULL_POINTER, "arg_names");
  FAILS(ct_cuda_jit_create(kFused, kAlphaBeta, NULL, kOnes, NULL, 2, &f), CT_ERR_NULL_POINTER, "arg_types");
  FAILS(ct_cuda_jit_create(kFused, kAlphaBeta, kInts2, NULL, NULL, 2, &f), CT_ERR_NULL_POINTER,
        "extra argument 'alpha' is an int64 but arg_ints is NULL");
  const ct_jit_arg_type dbl[] = {CT_JIT_ARG_DOUBLE, CT_JIT_ARG_DOUBLE};
  FAILS(ct_cuda_jit_create(kFused, kAlphaBeta, dbl, kOnes, NULL, 2, &f), CT_ERR_NULL_POINTER,
        "extra argument 'alpha' is a double but arg_doubles is NULL");
  const ct_jit_arg_type bad[] = {CT_JIT_ARG_INT64, 7};
  FAILS(ct_cuda_jit_create(kFused, kAlphaBeta, bad, kOnes, NULL, 2, &f), CT_ERR_ARGUMENT,
        "unknown jiterator argument type 7");
  const char* empty[] = {"alpha", ""};
  FAILS(ct_cuda_jit_create(kFused, empty, kInts2, kOnes, NULL, 2, &f), CT_ERR_ARGUMENT, "extra argument 1's name is empty");
  const char* twice[] = {"alpha", "alpha"};
  FAILS(ct_cuda_jit_create(kFused, twice, kInts2, kOnes, NULL, 2, &f), CT_ERR_ARGUMENT,
        "extra argument 'alpha' is declared twice");
  FAILS(ct_cuda_jit_create_multi_output(kFused, 0, NULL, NULL, NULL, NULL, 0, &f), CT_ERR_ARGUMENT,
        "makes 1 to 8 outputs, got 0");
  FAILS(ct_cuda_jit_create_multi_output(kFused, 9, NULL, NULL, NULL, NULL, 0, &f), CT_ERR_ARGUMENT,
        "makes 1 to 8 outputs, got 9");
  EXPECT(f == NULL);
  /* a call's overrides are checked before anything runs (no GPU needed) */
  f = fused();
  ct_tensor one = NULL, res = NULL;
  OK(ct_ones((int64_t[]){1}, 1, CT_FLOAT32, CT_CPU, -1, &one));
  const char* dup[] = {"beta", "beta"};
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){one, one}, 2, dup, kInts2, kOnes, NULL, 2, &res, 1), CT_ERR_ARGUMENT,
        "my_fused_kernel: extra argument 'beta' is overridden twice");
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){one, one}, 2, NULL, kInts2, kOnes, NULL, 1, &res, 1), CT_ERR_NULL_POINTER,
        "over_names");
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){one, one}, 2, kAlphaBeta, NULL, kOnes, NULL, 1, &one, 1),
        CT_ERR_NULL_POINTER, "over_types");
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){one, one}, 2, kAlphaBeta, dbl, kOnes, NULL, 1, &res, 1), CT_ERR_NULL_POINTER,
        "extra argument 'alpha' is a double but over_doubles is NULL");
  EXPECT(res == NULL);
  rel(one);
  OK(ct_cuda_jit_release(f));
  f = NULL;
  int64_t n = -1;
  OK(ct_cuda_jit_kernel_count(&n));
  EXPECT(n >= 0);
  FAILS(ct_cuda_jit_kernel_count(NULL), CT_ERR_NULL_POINTER, "'out'");
}

static void test_without_gpu(void) {
  if (g_cuda) {
    printf("  (a GPU is present: the no-CUDA errors are not reachable)\n");
    return;
  }
  ct_cuda_jit_fn f = fused();
  ct_tensor x = NULL, out = NULL;
  OK(ct_ones((int64_t[]){3}, 1, CT_FLOAT32, CT_CPU, -1, &x));
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){x, x}, 2, NULL, NULL, NULL, NULL, 0, &out, 1), CT_ERR_CUDA_UNAVAILABLE, "");
  EXPECT(out == NULL);
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, x}, 2, NULL, NULL, NULL, NULL, 0, &x, 1), CT_ERR_CUDA_UNAVAILABLE, "");
  rel(x);
  OK(ct_cuda_jit_release(f));
}

static ct_tensor cuda_f64(const double* v, int64_t n, ct_dtype dt) {
  ct_tensor h = from_f64(v, n, (int64_t[]){n}, 1, CT_FLOAT64), d = NULL;
  OK(ct_tensor_to(h, CT_CUDA, 0, dt, 0, 1, &d));
  rel(h);
  return d;
}

static void test_values(void) {
  SKIP_WITHOUT_CUDA();
  ct_cuda_jit_fn f = fused();
  double a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
  ct_tensor x = cuda_f64(a, 5, CT_FLOAT32), y = cuda_f64(b, 5, CT_FLOAT32), out = NULL;
  OK(ct_cuda_jit_run(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &out, 1));
  EXPECT_DTYPE(out, CT_FLOAT32);
  EXPECT_VALS(out, 0, 11, 22, 33, 44, 55);
  rel(out);
  /* beta overridden (an int), alpha as a double */
  const char* over[] = {"beta", "alpha"};
  ct_jit_arg_type ot[] = {CT_JIT_ARG_INT64, CT_JIT_ARG_DOUBLE};
  OK(ct_cuda_jit_run(f, (ct_tensor[]){x, y}, 2, over, ot, (int64_t[]){-1, 0}, (double[]){0, 0.5}, 2, &out, 1));
  EXPECT_VALS(out, 0, -9.5, -19, -28.5, -38, -47.5);
  rel(out);
  /* int32 and a broadcast float64 row: float64 */
  ct_tensor i = NULL, r = NULL;
  OK(ct_arange(0, 6, 1, CT_INT32, CT_CUDA, 0, &i));
  ct_tensor i2 = NULL;
  OK(ct_view(i, (int64_t[]){2, 3}, 2, &i2));
  r = cuda_f64((double[]){0.5, 0.25, 0.125}, 3, CT_FLOAT64);
  OK(ct_cuda_jit_run(f, (ct_tensor[]){i2, r}, 2, NULL, NULL, NULL, NULL, 0, &out, 1));
  EXPECT_DTYPE(out, CT_FLOAT64);
  EXPECT_SHAPE(out, 2, 3);
  EXPECT_VALS(out, 0, 0.5, 1.25, 2.125, 3.5, 4.25, 5.125);
  rel(out), rel(i), rel(i2), rel(r);
  out = NULL;
  /* errors: out untouched */
  const char* unknown[] = {"gamma"};
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){x, y}, 2, unknown, (ct_jit_arg_type[]){CT_JIT_ARG_INT64}, (int64_t[]){1},
                        NULL, 1, &out, 1),
        CT_ERR_ARGUMENT, "gamma is not declared in function definition");
  ct_tensor nine[9] = {x, x, x, x, x, x, x, x, x};
  FAILS(ct_cuda_jit_run(f, nine, 9, NULL, NULL, NULL, NULL, 0, &out, 1), CT_ERR_ARGUMENT,
        "jiterator only supports up to 8 tensor inputs, got 9");
  ct_tensor c = NULL;
  OK(ct_ones((int64_t[]){5}, 1, CT_FLOAT32, CT_CPU, -1, &c));
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){x, c}, 2, NULL, NULL, NULL, NULL, 0, &out, 1), CT_ERR_DEVICE,
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  /* the first CUDA tensor's device is named first, wherever it stands (TensorIterator's) */
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){c, x}, 2, NULL, NULL, NULL, NULL, 0, &out, 1), CT_ERR_DEVICE,
        "found at least two devices, cuda:0 and cpu!");
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &out, 2), CT_ERR_ARGUMENT,
        "my_fused_kernel makes 1 outputs, but n_outs is 2");
  ct_tensor z = NULL;
  OK(ct_zeros((int64_t[]){4}, 1, CT_FLOAT32, CT_CUDA, 0, &z));
  FAILS(ct_cuda_jit_run(f, (ct_tensor[]){x, z}, 2, NULL, NULL, NULL, NULL, 0, &out, 1), CT_ERR_SHAPE, "");
  EXPECT(out == NULL);
  rel(c), rel(z);
  ct_cuda_jit_fn broken = NULL;
  OK(ct_cuda_jit_create("template <typename T> T broken(T x) {\n  return x + undefined_name;\n}", NULL, NULL, NULL, NULL,
                        0, &broken));
  FAILS(ct_cuda_jit_run(broken, &x, 1, NULL, NULL, NULL, NULL, 0, &out, 1), CT_ERR_ARGUMENT,
        "identifier \"undefined_name\" is undefined");
  OK(ct_cuda_jit_release(broken));
  rel(x), rel(y);
  OK(ct_cuda_jit_release(f));
}

static void test_two_outputs(void) {
  SKIP_WITHOUT_CUDA();
  const char* names[] = {"neg", "scale"};
  ct_jit_arg_type types[] = {CT_JIT_ARG_BOOL, CT_JIT_ARG_DOUBLE};
  ct_cuda_jit_fn f = NULL;
  OK(ct_cuda_jit_create_multi_output(
      "template <typename T> void sd(T a, T b, bool neg, T scale, T& out0, T& out1) {\n"
      "  out0 = (a + b) * scale; out1 = neg ? b - a : a - b; }",
      2, names, types, (int64_t[]){0, 0}, (double[]){0, 2}, 2, &f));
  ct_tensor a = cuda_f64((double[]){1, 2}, 2, CT_FLOAT16), b = cuda_f64((double[]){10, 20}, 2, CT_FLOAT16);
  ct_tensor outs[2] = {NULL, NULL};
  OK(ct_cuda_jit_run(f, (ct_tensor[]){a, b}, 2, names, types, (int64_t[]){1, 0}, NULL, 1, outs, 2));
  EXPECT_DTYPE(outs[0], CT_FLOAT16);
  EXPECT_VALS(outs[0], 0, 22, 44);
  EXPECT_VALS(outs[1], 0, 9, 18);
  rel(outs[0]), rel(outs[1]), rel(a), rel(b);
  OK(ct_cuda_jit_release(f));
}

/* ---- values against the built-in ops over dtypes and layouts: f(a, b) = a * b + a jitted, and
 * ct_binary's mul then add (the same promotion; float16/bfloat16 round once in the jitted
 * function and twice in the chain, float32 may be fused into an FMA: 1 ulp apart at most). */
static double* host_f64(ct_tensor t, int64_t* n) {
  ct_tensor d = NULL;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT64, 0, 1, &d));
  OK(ct_tensor_numel(d, n));
  double* v = (double*)malloc((size_t)(*n ? *n : 1) * 8);
  OK(ct_tensor_copy_to_buffer(d, v, *n * 8));  /* in C order */
  rel(d);
  return v;
}

/* a CUDA tensor of dtype dt and the given sizes (contiguous), values (i * 7 % 11) - 5 + frac */
static ct_tensor pattern(const int64_t* sizes, int32_t nd, ct_dtype dt, int salt) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  double* v = (double*)malloc((size_t)n * 8);
  int is_float = dt == CT_FLOAT32 || dt == CT_FLOAT64 || dt == CT_FLOAT16 || dt == CT_BFLOAT16;
  for (int64_t i = 0; i < n; ++i) v[i] = (double)((i * 7 + salt) % 11) - 5 + (is_float ? 0.25 * (double)(i % 3) : 0);
  if (dt == CT_UINT8)
    for (int64_t i = 0; i < n; ++i) v[i] = (double)((i * 7 + salt) % 11);
  ct_tensor h = from_f64(v, n, sizes, nd, CT_FLOAT64), d = NULL;
  OK(ct_tensor_to(h, CT_CUDA, 0, dt, 0, 1, &d));
  rel(h);
  free(v);
  return d;
}

static void compare_with_chain(ct_cuda_jit_fn f, ct_tensor a, ct_tensor b, ct_dtype dt, const char* layout) {
  ct_tensor got = NULL, m = NULL, want = NULL;
  OK(ct_cuda_jit_run(f, (ct_tensor[]){a, b}, 2, NULL, NULL, NULL, NULL, 0, &got, 1));
  OK(ct_binary(CT_MUL, a, b, &m));
  OK(ct_binary(CT_ADD, m, a, &want));
  ct_dtype gd = -1, wd = -2;
  OK(ct_tensor_dtype(got, &gd));
  OK(ct_tensor_dtype(want, &wd));
  EXPECT_EQ_I(gd, wd);
  int64_t gs[8], ws[8];
  int32_t gn = 0, wn = 0;
  OK(ct_tensor_sizes(got, gs, 8, &gn));
  OK(ct_tensor_sizes(want, ws, 8, &wn));
  EXPECT_EQ_I(gn, wn);
  OK(ct_tensor_strides(got, gs, 8, &gn));  /* laid out as the built-in op's output */
  OK(ct_tensor_strides(want, ws, 8, &wn));
  for (int i = 0; i < gn && i < wn; ++i)
    if (gs[i] != ws[i]) FAILF("dtype %d, %s: stride %d is %lld, the built-in op's %lld", dt, layout, i, (long long)gs[i], (long long)ws[i]);
  int64_t n = 0, n2 = 0;
  double* g = host_f64(got, &n);
  double* w = host_f64(want, &n2);
  EXPECT_EQ_I(n, n2);
  double rel_tol = dt == CT_BFLOAT16 ? 1.0 / 128 : dt == CT_FLOAT16 ? 1.0 / 1024 : dt == CT_FLOAT32 ? 1e-6 : 0;
  for (int64_t i = 0; i < n && i < n2; ++i) {
    if (!(fabs(g[i] - w[i]) <= rel_tol * fabs(w[i]))) {
      FAILF("dtype %d, %s: element %lld is %.17g, the built-in ops give %.17g", dt, layout, (long long)i, g[i], w[i]);
      break;
    }
  }
  free(g), free(w);
  rel(got), rel(m), rel(want);
}

static void test_against_builtin_ops(void) {
  SKIP_WITHOUT_CUDA();
  ct_cuda_jit_fn f = NULL;
  OK(ct_cuda_jit_create("template <typename T> T axpa(T a, T b) { return a * b + a; }", NULL, NULL, NULL, NULL, 0, &f));
  const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT64, CT_INT32, CT_INT64, CT_UINT8, CT_INT8, CT_INT16};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
    ct_dtype dt = dts[k];
    /* contiguous, several blocks and a tail */
    ct_tensor a = pattern((int64_t[]){3001}, 1, dt, 1), b = pattern((int64_t[]){3001}, 1, dt, 2), v = NULL, w = NULL;
    compare_with_chain(f, a, b, dt, "contiguous");
    rel(a), rel(b);
    /* transposed (its output transposed too) */
    a = pattern((int64_t[]){70, 60}, 2, dt, 3);
    OK(ct_transpose(a, 0, 1, &v));
    b = pattern((int64_t[]){60, 70}, 2, dt, 4);
    compare_with_chain(f, v, v, dt, "transposed");
    compare_with_chain(f, v, b, dt, "transposed and contiguous");
    rel(a), rel(b), rel(v);
    /* sliced columns and a broadcast row */
    a = pattern((int64_t[]){40, 90}, 2, dt, 5);
    OK(ct_narrow(a, 1, 7, 80, &v));
    b = pattern((int64_t[]){1, 80}, 2, dt, 6);
    compare_with_chain(f, v, b, dt, "sliced, broadcast row");
    rel(a), rel(b), rel(v);
    /* a column against a row, broadcast to a matrix */
    a = pattern((int64_t[]){50, 1}, 2, dt, 7);
    b = pattern((int64_t[]){1, 33}, 2, dt, 8);
    compare_with_chain(f, a, b, dt, "outer broadcast");
    rel(a), rel(b);
    /* permuted 3-d, with a 0-d CUDA scalar */
    a = pattern((int64_t[]){5, 4, 6}, 3, dt, 9);
    OK(ct_permute(a, (int64_t[]){2, 0, 1}, 3, &v));
    b = pattern(NULL, 0, dt, 10);
    compare_with_chain(f, v, b, dt, "permuted, 0-d");
    OK(ct_permute(a, (int64_t[]){1, 2, 0}, 3, &w));
    ct_tensor c = pattern((int64_t[]){4, 6, 5}, 3, dt, 11);
    compare_with_chain(f, w, c, dt, "two permutations");
    rel(a), rel(b), rel(c), rel(v), rel(w);
  }
  /* mixed dtypes: int32 with float16 (float16), uint8 with int8 (int16), float64 with bool */
  const ct_dtype mix[][2] = {{CT_INT32, CT_FLOAT16}, {CT_UINT8, CT_INT8}, {CT_FLOAT64, CT_BOOL}, {CT_BFLOAT16, CT_FLOAT16}};
  for (size_t k = 0; k < sizeof mix / sizeof mix[0]; ++k) {
    ct_tensor a = pattern((int64_t[]){2000}, 1, mix[k][0], 1), b = pattern((int64_t[]){2000}, 1, mix[k][1], 2);
    ct_dtype common = -1;
    OK(ct_promote_types(mix[k][0], mix[k][1], &common));
    compare_with_chain(f, a, b, common, "mixed dtypes");
    rel(a), rel(b);
  }
  OK(ct_cuda_jit_release(f));
}

/* ---- complex tensors: T = std::complex<float> / <double>; against ct_binary and ct_unary */
static double* host_c128(ct_tensor t, int64_t* n) {
  ct_tensor d = NULL;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_COMPLEX128, 0, 1, &d));
  OK(ct_tensor_numel(d, n));
  double* v = (double*)malloc((size_t)(*n ? *n : 1) * 16);
  OK(ct_tensor_copy_to_buffer(d, v, *n * 16));
  rel(d);
  return v;
}

static void test_complex(void) {
  SKIP_WITHOUT_CUDA();
  ct_cuda_jit_fn f = NULL;
  OK(ct_cuda_jit_create("template <typename T> T cx(T a, T b) { return a * b + std::exp(a) / b - std::sqrt(a); }", NULL,
                        NULL, NULL, NULL, 0, &f));
  const ct_dtype dts[][2] = {{CT_COMPLEX64, CT_COMPLEX64}, {CT_COMPLEX128, CT_COMPLEX128}, {CT_COMPLEX64, CT_FLOAT32},
                             {CT_FLOAT64, CT_COMPLEX64}, {CT_INT32, CT_COMPLEX128}};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
    /* values with nonzero imaginary parts where complex: re + i * im from two real patterns */
    ct_tensor ops[2];
    for (int j = 0; j < 2; ++j) {
      ct_dtype dt = dts[k][j];
      ct_tensor re0 = pattern((int64_t[]){33, 40}, 2, CT_FLOAT64, 3 + j), re = NULL, t = NULL;
      OK(ct_binary_scalar_f(CT_ADD, re0, 0.125, 0, &re));  /* never 0: b divides */
      rel(re0);
      if (dt == CT_COMPLEX64 || dt == CT_COMPLEX128) {
        ct_tensor im = pattern((int64_t[]){33, 40}, 2, CT_FLOAT64, 7 + j), c = NULL, ci = NULL, sum = NULL;
        OK(ct_tensor_to(im, CT_CUDA, 0, CT_COMPLEX128, 0, 1, &c));
        OK(ct_binary_scalar_f(CT_MUL, c, 0.5, 0, &ci));  /* im / 2, still real-valued */
        /* (re + 1) + i * im/2: build i * x as x * (0+1i) through a 0-d complex tensor */
        double unit[2] = {0, 1};
        ct_tensor iu_d = NULL, imag = NULL;
        OK(ct_from_buffer(unit, 16, NULL, 0, CT_COMPLEX128, CT_CUDA, 0, &iu_d));
        OK(ct_binary(CT_MUL, ci, iu_d, &imag));
        OK(ct_binary(CT_ADD, re, imag, &sum));
        OK(ct_tensor_to(sum, CT_CUDA, 0, dt, 0, 1, &t));
        rel(im), rel(c), rel(ci), rel(sum), rel(iu_d), rel(imag);
      } else {
        OK(ct_tensor_to(re, CT_CUDA, 0, dt, 0, 1, &t));
      }
      rel(re);
      ops[j] = t;
    }
    ct_tensor tb = NULL;  /* b transposed: the strided form too */
    OK(ct_transpose(ops[1], 0, 1, &tb));
    ct_tensor tbc = NULL;
    OK(ct_contiguous(tb, &tbc));
    ct_tensor b_t = NULL;
    OK(ct_transpose(tbc, 0, 1, &b_t));  /* the values of b with column-major strides */
    for (int layout = 0; layout < 2; ++layout) {
      ct_tensor a = ops[0], b = layout ? b_t : ops[1];
      ct_tensor got = NULL, ab = NULL, ea = NULL, eab = NULL, sa = NULL, s1 = NULL, want = NULL;
      OK(ct_cuda_jit_run(f, (ct_tensor[]){a, b}, 2, NULL, NULL, NULL, NULL, 0, &got, 1));
      ct_dtype common = -1, gd = -2;
      ct_dtype da = -1, db = -1;
      OK(ct_tensor_dtype(a, &da));
      OK(ct_tensor_dtype(b, &db));
      OK(ct_promote_types(da, db, &common));
      OK(ct_tensor_dtype(got, &gd));
      EXPECT_EQ_I(gd, common);
      /* the chain in the common dtype */
      ct_tensor ac = NULL, bc = NULL;
      OK(ct_tensor_to(a, CT_CUDA, 0, common, 0, 1, &ac));
      OK(ct_tensor_to(b, CT_CUDA, 0, common, 0, 1, &bc));
      OK(ct_binary(CT_MUL, ac, bc, &ab));
      OK(ct_unary(CT_EXP, ac, &ea));
      OK(ct_binary(CT_DIV, ea, bc, &eab));
      OK(ct_unary(CT_SQRT, ac, &sa));
      OK(ct_binary(CT_ADD, ab, eab, &s1));
      OK(ct_binary(CT_SUB, s1, sa, &want));
      int64_t n = 0, n2 = 0;
      double* g = host_c128(got, &n);
      double* w = host_c128(want, &n2);
      EXPECT_EQ_I(n, n2);
      double tol = common == CT_COMPLEX64 ? 2e-5 : 1e-12;
      for (int64_t i = 0; i < 2 * n && i < 2 * n2; ++i) {
        double scale = fabs(w[i & ~(int64_t)1]) + fabs(w[i | 1]) + 1;
        if (!(fabs(g[i] - w[i]) <= tol * scale)) {
          FAILF("dtypes %d/%d, layout %d: %s part of element %lld is %.17g, the built-in ops give %.17g", da, db, layout,
                i % 2 ? "imaginary" : "real", (long long)(i / 2), g[i], w[i]);
          break;
        }
      }
      free(g), free(w);
      rel(got), rel(ab), rel(ea), rel(eab), rel(sa), rel(s1), rel(want), rel(ac), rel(bc);
    }
    rel(ops[0]), rel(ops[1]), rel(tb), rel(tbc), rel(b_t);
  }
  OK(ct_cuda_jit_release(f));
}

/* ---- the out form and in place */
static void test_out_and_in_place(void) {
  SKIP_WITHOUT_CUDA();
  ct_cuda_jit_fn f = fused();
  double a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
  ct_tensor x = cuda_f64(a, 5, CT_FLOAT32), y = cuda_f64(b, 5, CT_FLOAT32), o = NULL;
  OK(ct_empty((int64_t[]){5}, 1, CT_FLOAT64, CT_CUDA, 0, &o));  /* float32 results stored as float64 */
  OK(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &o, 1));
  EXPECT_VALS(o, 0, 11, 22, 33, 44, 55);
  const char* over[] = {"beta"};
  OK(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, over, (ct_jit_arg_type[]){CT_JIT_ARG_INT64}, (int64_t[]){-1}, NULL,
                         1, &o, 1));
  EXPECT_VALS(o, 0, -9, -18, -27, -36, -45);
  rel(o);
  /* errors: nothing written */
  ct_tensor l = NULL, s4 = NULL, e = NULL, one = NULL, c = NULL;
  OK(ct_zeros((int64_t[]){5}, 1, CT_INT64, CT_CUDA, 0, &l));
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &l, 1), CT_ERR_DTYPE,
        "my_fused_kernel: result type Float can't be cast to the desired output type Long");
  EXPECT_VALS(l, 0, 0, 0, 0, 0, 0);
  OK(ct_zeros((int64_t[]){4}, 1, CT_FLOAT32, CT_CUDA, 0, &s4));
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &s4, 1), CT_ERR_SHAPE,
        "output with shape [4] doesn't match the broadcast shape [5]");
  OK(ct_zeros((int64_t[]){1}, 1, CT_FLOAT32, CT_CUDA, 0, &one));
  OK(ct_expand(one, (int64_t[]){5}, 1, &e));
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &e, 1), CT_ERR_ARGUMENT,
        "more than one element of the written-to tensor refers to a single memory location");
  EXPECT_VALS(one, 0, 0);
  OK(ct_zeros((int64_t[]){5}, 1, CT_FLOAT32, CT_CPU, -1, &c));
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &c, 1), CT_ERR_DEVICE,
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, (ct_tensor[]){s4, s4}, 2),
        CT_ERR_ARGUMENT, "my_fused_kernel makes 1 outputs, but n_outs is 2");
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, NULL, 1), CT_ERR_NULL_POINTER, "outs");
  FAILS(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, (ct_tensor[]){NULL}, 1),
        CT_ERR_INVALID_HANDLE, "");
  rel(l), rel(s4), rel(e), rel(one), rel(c);
  /* in place: x = x + y */
  OK(ct_cuda_jit_run_out(f, (ct_tensor[]){x, y}, 2, NULL, NULL, NULL, NULL, 0, &x, 1));
  EXPECT_VALS(x, 0, 11, 22, 33, 44, 55);
  /* an input overlapping the output without being it is read before anything is written:
   * x[0:4] = x[1:5] + y[0:4] from the values before the call */
  ct_tensor lo = NULL, hi = NULL, y4 = NULL;
  OK(ct_narrow(x, 0, 0, 4, &lo));
  OK(ct_narrow(x, 0, 1, 4, &hi));
  OK(ct_narrow(y, 0, 0, 4, &y4));
  OK(ct_cuda_jit_run_out(f, (ct_tensor[]){hi, y4}, 2, NULL, NULL, NULL, NULL, 0, &lo, 1));
  EXPECT_VALS(x, 0, 32, 53, 74, 95, 55);
  rel(lo), rel(hi), rel(y4);
  /* a transposed output of another dtype */
  ct_tensor m = NULL, base = NULL, t = NULL;
  OK(ct_arange(0, 6, 1, CT_INT32, CT_CUDA, 0, &m));
  ct_tensor m2 = NULL;
  OK(ct_view(m, (int64_t[]){2, 3}, 2, &m2));
  OK(ct_zeros((int64_t[]){3, 2}, 2, CT_FLOAT16, CT_CUDA, 0, &base));
  OK(ct_transpose(base, 0, 1, &t));
  OK(ct_cuda_jit_run_out(f, (ct_tensor[]){m2, m2}, 2, NULL, NULL, NULL, NULL, 0, &t, 1));
  EXPECT_VALS(t, 0, 0, 2, 4, 6, 8, 10);
  EXPECT_VALS(base, 0, 0, 6, 2, 8, 4, 10);
  rel(m), rel(m2), rel(base), rel(t);
  rel(x), rel(y);
  OK(ct_cuda_jit_release(f));
  /* two outputs of their own dtypes */
  ct_cuda_jit_fn g = NULL;
  OK(ct_cuda_jit_create_multi_output("template <typename T> void sd(T a, T b, T& s, T& d) { s = a + b; d = a - b; }", 2,
                                     NULL, NULL, NULL, NULL, 0, &g));
  ct_tensor p = cuda_f64((double[]){7, 300}, 2, CT_INT64), q = cuda_f64((double[]){2, 1}, 2, CT_INT64);
  ct_tensor outs[2] = {NULL, NULL};
  OK(ct_empty((int64_t[]){2}, 1, CT_UINT8, CT_CUDA, 0, &outs[0]));  /* int64 -> uint8 wraps: 301 is 45 */
  OK(ct_empty((int64_t[]){2}, 1, CT_FLOAT32, CT_CUDA, 0, &outs[1]));
  OK(ct_cuda_jit_run_out(g, (ct_tensor[]){p, q}, 2, NULL, NULL, NULL, NULL, 0, outs, 2));
  EXPECT_VALS(outs[0], 0, 9, 45);
  EXPECT_VALS(outs[1], 0, 5, 299);
  /* two outputs meeting in memory: refused, nothing written; the very same view twice: allowed */
  ct_tensor w = NULL, w0 = NULL, w1 = NULL;
  OK(ct_zeros((int64_t[]){3}, 1, CT_INT64, CT_CUDA, 0, &w));
  OK(ct_narrow(w, 0, 0, 2, &w0));
  OK(ct_narrow(w, 0, 1, 2, &w1));
  FAILS(ct_cuda_jit_run_out(g, (ct_tensor[]){p, q}, 2, NULL, NULL, NULL, NULL, 0, (ct_tensor[]){w0, w1}, 2),
        CT_ERR_ARGUMENT, "some elements of the output tensors 0 and 1 refer to a single memory location");
  EXPECT_VALS(w, 0, 0, 0, 0);
  OK(ct_cuda_jit_run_out(g, (ct_tensor[]){p, q}, 2, NULL, NULL, NULL, NULL, 0, (ct_tensor[]){w0, w0}, 2));
  EXPECT_VALS(w, 0, 5, 299, 0);  /* the second output's values, written last */
  rel(w), rel(w0), rel(w1);
  rel(outs[0]), rel(outs[1]), rel(p), rel(q);
  OK(ct_cuda_jit_release(g));
}

/* Eight threads call a new function at once: one kernel is compiled. */
typedef struct {
  ct_cuda_jit_fn f;
  ct_tensor x;
  double got;
} call_ctx;
static void* call_cube(void* p) {
  call_ctx* c = (call_ctx*)p;
  ct_tensor out = NULL, s = NULL;
  if (ct_cuda_jit_run(c->f, &c->x, 1, NULL, NULL, NULL, NULL, 0, &out, 1) == CT_OK &&
      ct_reduce(CT_SUM, out, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s) == CT_OK)
    ct_tensor_item_double(s, &c->got);
  rel(out), rel(s);
  return NULL;
}

static void test_threads_compile_once(void) {
  SKIP_WITHOUT_CUDA();
  ct_cuda_jit_fn f = NULL;
  OK(ct_cuda_jit_create("template <typename T> T cube(T x) { return x * x * x; }", NULL, NULL, NULL, NULL, 0, &f));
  ct_tensor x = NULL;
  OK(ct_arange(0, 10, 1, CT_FLOAT64, CT_CUDA, 0, &x));
  int64_t before = 0, after = 0;
  OK(ct_cuda_jit_kernel_count(&before));
  pthread_t th[8];
  call_ctx ctx[8];
  for (int i = 0; i < 8; ++i) {
    ctx[i] = (call_ctx){f, x, -1};
    pthread_create(&th[i], NULL, call_cube, &ctx[i]);
  }
  for (int i = 0; i < 8; ++i) pthread_join(th[i], NULL);
  OK(ct_cuda_jit_kernel_count(&after));
  EXPECT_EQ_I(after, before + 1);
  for (int i = 0; i < 8; ++i) EXPECT(ctx[i].got == 2025.0); /* sum of i^3, 0..9 */
  rel(x);
  OK(ct_cuda_jit_release(f));
}

TEST_MAIN(TEST_CASE(create_and_handles), TEST_CASE(creation_errors), TEST_CASE(without_gpu), TEST_CASE(values),
          TEST_CASE(two_outputs), TEST_CASE(against_builtin_ops), TEST_CASE(complex), TEST_CASE(out_and_in_place),
          TEST_CASE(threads_compile_once))
