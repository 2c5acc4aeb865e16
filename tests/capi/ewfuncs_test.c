/* Elementwise functions (ctorch.h section 31, and ct_unary's isnan/isinf/isfinite/erf/silu) on
 * every device (the CPU; CUDA device 0 when there is one) against references computed here in
 * double precision: special values (NaN, +-inf, -0.0), dtypes and PyTorch's dtype rules and
 * messages, broadcasting, transposed/sliced/expanded inputs, 0-dim CPU scalars next to CUDA
 * tensors, empty tensors; CUDA against the CPU on larger inputs. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

static const ct_dtype FLOATS[] = {CT_FLOAT64, CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16};

static int ndevices(void) { return g_cuda ? 2 : 1; }
static ct_device_type device_at(int i) { return i == 0 ? CT_CPU : CT_CUDA; }

/* t moved to dev (t itself is released) */
static ct_tensor to_dev(ct_tensor t, ct_device_type dev) {
  if (dev == CT_CPU) return t;
  ct_tensor out = NULL;
  OK(ct_tensor_to(t, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(t);
  return out;
}

/* absolute tolerance for values of magnitude <= 4 computed in dtype d */
static double atol_of(ct_dtype d) {
  switch (d) {
    case CT_FLOAT64: return 1e-13;
    case CT_FLOAT32: return 4e-6;
    case CT_FLOAT16: return 4e-3;
    default: return 3e-2;
  }
}

/* the values of a float64 tensor as rounded to dtype d (the inputs the op really sees) */
static void rounded(const double* x, int n, ct_dtype d, double* out) {
  ct_tensor t = from_f64(x, n, (const int64_t[]){n}, 1, d), u = NULL;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT64, 0, 1, &u));
  OK(ct_tensor_copy_to_buffer(u, out, n * 8));
  rel(t);
  rel(u);
}

static double item(ct_tensor t) {
  double v = 0;
  OK(ct_tensor_item_double(t, &v));
  return v;
}

#define N_SPECIAL 9
static const double SPECIAL[N_SPECIAL] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1.5, -2.25, 3.0, -0.375};

static double ref_silu(double x) { return x / (1 + exp(-x)); }
static double ref_gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }
static double ref_gelu_tanh(double x) {
  return 0.5 * x * (1 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}

static void test_predicates(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (size_t k = 0; k < sizeof(FLOATS) / sizeof(FLOATS[0]); ++k) {
      ct_tensor x = to_dev(from_f64(SPECIAL, N_SPECIAL, (const int64_t[]){N_SPECIAL}, 1, FLOATS[k]), dev);
      ct_tensor a = NULL, b = NULL, c = NULL;
      OK(ct_unary(CT_ISNAN, x, &a));
      OK(ct_unary(CT_ISINF, x, &b));
      OK(ct_unary(CT_ISFINITE, x, &c));
      EXPECT_DTYPE(a, CT_BOOL);
      EXPECT_DTYPE(b, CT_BOOL);
      EXPECT_DTYPE(c, CT_BOOL);
      EXPECT_VALS(a, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0);
      EXPECT_VALS(b, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
      EXPECT_VALS(c, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1);
      rel(a), rel(b), rel(c), rel(x);
    }
    /* integers and bool: never NaN or infinite */
    const ct_dtype ints[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_BOOL};
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); ++k) {
      ct_tensor x = to_dev(I64(ints[k], 0, 1, 1, 0), dev), a = NULL, c = NULL;
      OK(ct_unary(CT_ISNAN, x, &a));
      OK(ct_unary(CT_ISFINITE, x, &c));
      EXPECT_DTYPE(a, CT_BOOL);
      EXPECT_VALS(a, 0, 0, 0, 0, 0);
      EXPECT_VALS(c, 0, 1, 1, 1, 1);
      rel(a), rel(c), rel(x);
    }
    /* complex: by the real part here (imaginary parts 0) */
    ct_tensor z = to_dev(F64(CT_COMPLEX64, NAN, INFINITY, 1.0), dev), a = NULL, b = NULL, c = NULL;
    OK(ct_unary(CT_ISNAN, z, &a));
    OK(ct_unary(CT_ISINF, z, &b));
    OK(ct_unary(CT_ISFINITE, z, &c));
    EXPECT_VALS(a, 0, 1, 0, 0);
    EXPECT_VALS(b, 0, 0, 1, 0);
    EXPECT_VALS(c, 0, 0, 0, 1);
    rel(a), rel(b), rel(c), rel(z);
    /* no in-place form */
    ct_tensor f = to_dev(F64(CT_FLOAT32, 1, NAN), dev);
    FAILS(ct_unary_(CT_ISNAN, f), CT_ERR_ARGUMENT, "isnan_");
    FAILS(ct_unary_(CT_ISFINITE, f), CT_ERR_ARGUMENT, "isfinite_");
    rel(f);
  }
}

static void test_erf_silu(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (size_t k = 0; k < sizeof(FLOATS) / sizeof(FLOATS[0]); ++k) {
      ct_dtype d = FLOATS[k];
      double in[N_SPECIAL], we[N_SPECIAL], ws[N_SPECIAL];
      rounded(SPECIAL, N_SPECIAL, d, in);
      for (int i = 0; i < N_SPECIAL; ++i) we[i] = erf(in[i]), ws[i] = ref_silu(in[i]);
      ws[2] = NAN; /* silu(-inf) = -inf / inf */
      ct_tensor x = to_dev(from_f64(SPECIAL, N_SPECIAL, (const int64_t[]){N_SPECIAL}, 1, d), dev), e = NULL, s = NULL;
      OK(ct_unary(CT_ERF, x, &e));
      OK(ct_unary(CT_SILU, x, &s));
      EXPECT_DTYPE(e, d);
      EXPECT_DTYPE(s, d);
      expect_vals_(e, we, N_SPECIAL, atol_of(d), "erf", __LINE__);
      expect_vals_(s, ws, N_SPECIAL, atol_of(d), "silu", __LINE__);
      /* erf(-0.0) is -0.0 */
      ct_tensor z = to_dev(F64(d, -0.0), dev), ez = NULL;
      OK(ct_unary(CT_ERF, z, &ez));
      EXPECT(signbit(item(ez)));
      /* in place */
      OK(ct_unary_(CT_ERF, z));
      EXPECT(signbit(item(z)));
      rel(x), rel(e), rel(s), rel(z), rel(ez);
    }
    /* integer and bool inputs: erf computes in float32; silu refuses them, and erf complex */
    ct_tensor i = to_dev(I64(CT_INT32, -1, 0, 2), dev), b = to_dev(I64(CT_BOOL, 1, 0), dev), r = NULL;
    OK(ct_unary(CT_ERF, i, &r));
    EXPECT_DTYPE(r, CT_FLOAT32);
    expect_vals_(r, (const double[]){erf(-1.0), 0, erf(2.0)}, 3, 1e-6, "erf(int)", __LINE__);
    rel(r);
    OK(ct_unary(CT_ERF, b, &r));
    EXPECT_DTYPE(r, CT_FLOAT32);
    expect_vals_(r, (const double[]){erf(1.0), 0}, 2, 1e-6, "erf(bool)", __LINE__);
    rel(r);
    FAILS(ct_unary(CT_SILU, i, &r), CT_ERR_DTYPE, "\"silu\" not implemented for 'Int'");
    FAILS(ct_unary(CT_SILU, b, &r), CT_ERR_DTYPE, "\"silu\" not implemented for 'Bool'");
    FAILS(ct_unary_(CT_ERF, i), CT_ERR_DTYPE, "result type Float can't be cast to the desired output type Int");
    ct_tensor z = to_dev(F64(CT_COMPLEX64, 1.0, -2.0), dev);
    FAILS(ct_unary(CT_ERF, z, &r), CT_ERR_DTYPE, "\"erf\" not implemented for 'ComplexFloat'");
    /* silu of complex: x / (1 + exp(-x)) (real inputs here) */
    OK(ct_unary(CT_SILU, z, &r));
    EXPECT_DTYPE(r, CT_COMPLEX64);
    double re = 0, im = 0;
    ct_tensor r1 = NULL;
    OK(ct_select(r, 0, 1, &r1));
    OK(ct_tensor_item_complex(r1, &re, &im));
    EXPECT(fabs(re - ref_silu(-2.0)) < 1e-6 && im == 0);
    rel(r), rel(r1), rel(z), rel(i), rel(b);
  }
}

/* gelu, both approximations, over dtypes and a transposed input */
static void test_gelu(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (size_t k = 0; k < sizeof(FLOATS) / sizeof(FLOATS[0]); ++k) {
      ct_dtype d = FLOATS[k];
      double in[N_SPECIAL], wn[N_SPECIAL], wt[N_SPECIAL];
      rounded(SPECIAL, N_SPECIAL, d, in);
      for (int i = 0; i < N_SPECIAL; ++i) wn[i] = ref_gelu(in[i]), wt[i] = ref_gelu_tanh(in[i]);
      wn[2] = wt[2] = NAN; /* -inf * 0 */
      ct_tensor x = to_dev(from_f64(SPECIAL, N_SPECIAL, (const int64_t[]){N_SPECIAL}, 1, d), dev), a = NULL, b = NULL,
                c = NULL;
      OK(ct_gelu(x, "none", &a));
      OK(ct_gelu(x, "tanh", &b));
      OK(ct_gelu(x, NULL, &c));
      EXPECT_DTYPE(a, d);
      expect_vals_(a, wn, N_SPECIAL, atol_of(d), "gelu", __LINE__);
      expect_vals_(b, wt, N_SPECIAL, atol_of(d), "gelu tanh", __LINE__);
      expect_vals_(c, wn, N_SPECIAL, atol_of(d), "gelu NULL", __LINE__);
      rel(x), rel(a), rel(b), rel(c);
    }
    /* a transposed [3, 4] input: the result is its transpose's */
    double v[12], w[12];
    for (int i = 0; i < 12; ++i) v[i] = 0.5 * i - 3;
    ct_tensor m = to_dev(from_f64(v, 12, (const int64_t[]){3, 4}, 2, CT_FLOAT32), dev), t = NULL, g = NULL;
    OK(ct_transpose(m, 0, 1, &t));
    OK(ct_gelu(t, "tanh", &g));
    EXPECT_SHAPE(g, 4, 3);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 3; ++c) w[r * 3 + c] = ref_gelu_tanh(v[c * 4 + r]);
    expect_vals_(g, w, 12, 4e-6, "gelu(transposed)", __LINE__);
    rel(g);
    FAILS(ct_gelu(m, "erf", &g), CT_ERR_ARGUMENT, "approximate argument must be either none or tanh.");
    ct_tensor i = to_dev(I64(CT_INT64, 1, 2), dev);
    FAILS(ct_gelu(i, "none", &g), CT_ERR_DTYPE, "\"GeluKernelImpl\" not implemented for 'Long'");
    FAILS(ct_gelu(m, "none", NULL), CT_ERR_NULL_POINTER, "out");
    rel(m), rel(t), rel(i);
  }
}

static void test_nan_to_num(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    ct_tensor x = to_dev(F64(CT_FLOAT32, NAN, INFINITY, -INFINITY, 1.5, -0.0), dev), r = NULL;
    OK(ct_nan_to_num(x, 0, 0, 0, 0, 0, 0, &r));
    EXPECT_DTYPE(r, CT_FLOAT32);
    EXPECT_VALS(r, 0, 0, FLT_MAX, -FLT_MAX, 1.5, 0);
    rel(r);
    OK(ct_nan_to_num(x, 1, -1, 1, 7, 1, -7, &r));
    EXPECT_VALS(r, 0, -1, 7, -7, 1.5, 0);
    rel(r);
    rel(x);
    /* float16: the largest finite value by default; 1e10 rounds to inf as PyTorch's cast */
    x = to_dev(F64(CT_FLOAT16, NAN, INFINITY, -INFINITY, 2.0), dev);
    OK(ct_nan_to_num(x, 0, 0, 0, 0, 0, 0, &r));
    EXPECT_VALS(r, 0, 0, 65504, -65504, 2);
    rel(r);
    OK(ct_nan_to_num(x, 1, 0.1, 1, 1e10, 0, 0, &r));
    EXPECT_VALS(r, 0, 0.0999755859375, INFINITY, -65504, 2);
    rel(r), rel(x);
    /* float64 and bfloat16 */
    x = to_dev(F64(CT_FLOAT64, INFINITY, NAN), dev);
    OK(ct_nan_to_num(x, 0, 0, 0, 0, 0, 0, &r));
    EXPECT_VALS(r, 0, DBL_MAX, 0);
    rel(r), rel(x);
    x = to_dev(F64(CT_BFLOAT16, -INFINITY), dev);
    OK(ct_nan_to_num(x, 0, 0, 0, 0, 0, 0, &r));
    EXPECT_VALS(r, 0, -3.3895313892515355e38);
    rel(r), rel(x);
    /* integers: a copy (a new tensor) */
    x = to_dev(I64(CT_INT32, 3, -4), dev);
    OK(ct_nan_to_num(x, 1, 1, 1, 1, 1, 1, &r));
    EXPECT_DTYPE(r, CT_INT32);
    EXPECT_VALS(r, 0, 3, -4);
    EXPECT(r != x);
    rel(r), rel(x);
    /* complex: each part */
    x = to_dev(F64(CT_COMPLEX128, NAN, 2.0), dev);
    OK(ct_nan_to_num(x, 1, 5, 0, 0, 0, 0, &r));
    ct_tensor e = NULL;
    double re = 0, im = 0;
    OK(ct_select(r, 0, 0, &e));
    OK(ct_tensor_item_complex(e, &re, &im));
    EXPECT(re == 5 && im == 0);
    rel(e), rel(r), rel(x);
  }
}

static void test_clamp_tensor(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    /* x [2, 3], min [3] (broadcast), max a 0-dim CPU tensor (a scalar next to CUDA tensors) */
    ct_tensor x = to_dev(from_f64((const double[]){-5, 0.5, NAN, 9, 2, -1}, 6, (const int64_t[]){2, 3}, 2, CT_FLOAT32), dev);
    ct_tensor lo = to_dev(F64(CT_FLOAT32, -1, 1, 0), dev);
    ct_tensor hi = from_f64((const double[]){4}, 1, NULL, 0, CT_FLOAT32), r = NULL;
    OK(ct_clamp_tensor(x, lo, hi, &r));
    EXPECT_SHAPE(r, 2, 3);
    EXPECT_VALS(r, 0, -1, 1, NAN, 4, 2, 0);
    rel(r);
    /* a NaN bound gives NaN; min > max gives max */
    ct_tensor lo2 = to_dev(F64(CT_FLOAT32, NAN, 3, 0), dev), hi2 = to_dev(F64(CT_FLOAT32, 1, 2, 1), dev);
    ct_tensor x2 = to_dev(F64(CT_FLOAT32, 0.5, 0.5, 0.5), dev);
    OK(ct_clamp_tensor(x2, lo2, hi2, &r));
    EXPECT_VALS(r, 0, NAN, 2, 0.5);
    rel(r);
    /* one bound: maximum / minimum (NaN of either propagates) */
    OK(ct_clamp_tensor(x2, lo2, NULL, &r));
    EXPECT_VALS(r, 0, NAN, 3, 0.5);
    rel(r);
    OK(ct_clamp_tensor(x2, NULL, hi2, &r));
    EXPECT_VALS(r, 0, 0.5, 0.5, 0.5);
    rel(r);
    /* promotion: int32 x with float32 bounds gives float32; integers with integer bounds */
    ct_tensor xi = to_dev(I64(CT_INT32, -7, 3, 12), dev), li = to_dev(I64(CT_INT64, 0, 0, 0), dev),
              hi3 = to_dev(I64(CT_INT64, 10, 10, 10), dev);
    OK(ct_clamp_tensor(xi, li, hi3, &r));
    EXPECT_DTYPE(r, CT_INT64);
    EXPECT_VALS(r, 0, 0, 3, 10);
    rel(r);
    OK(ct_clamp_tensor(xi, lo, hi, &r));
    EXPECT_DTYPE(r, CT_FLOAT32);
    EXPECT_VALS(r, 0, -1, 3, 4);
    rel(r);
    FAILS(ct_clamp_tensor(x, NULL, NULL, &r), CT_ERR_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
    ct_tensor z = to_dev(F64(CT_COMPLEX64, 1), dev), bb = to_dev(I64(CT_BOOL, 1), dev);
    FAILS(ct_clamp_tensor(z, z, z, &r), CT_ERR_DTYPE, "clamp is not supported for complex types");
    FAILS(ct_clamp_tensor(bb, bb, bb, &r), CT_ERR_DTYPE, "\"clamp\" not implemented for 'Bool'");
    ct_tensor bad = to_dev(F64(CT_FLOAT32, 1, 2), dev);
    FAILS(ct_clamp_tensor(x, bad, NULL, &r), CT_ERR_SHAPE, "");
    rel(x), rel(lo), rel(hi), rel(lo2), rel(hi2), rel(x2), rel(xi), rel(li), rel(hi3), rel(z), rel(bb), rel(bad);
  }
}

static double ref_lerp(double s, double e, double w) {
  return fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
}

static void test_lerp(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (size_t k = 0; k < sizeof(FLOATS) / sizeof(FLOATS[0]); ++k) {
      ct_dtype d = FLOATS[k];
      const double s0[4] = {1, -2, 0.5, 3}, e0[4] = {3, 2, 0.5, -1}, w0[4] = {0, 0.25, 0.75, 1};
      double s[4], e[4], w[4], want[4];
      rounded(s0, 4, d, s), rounded(e0, 4, d, e), rounded(w0, 4, d, w);
      for (int i = 0; i < 4; ++i) want[i] = ref_lerp(s[i], e[i], w[i]);
      ct_tensor st = to_dev(from_f64(s0, 4, (const int64_t[]){4}, 1, d), dev);
      ct_tensor et = to_dev(from_f64(e0, 4, (const int64_t[]){4}, 1, d), dev);
      ct_tensor wt = to_dev(from_f64(w0, 4, (const int64_t[]){4}, 1, d), dev), r = NULL;
      OK(ct_lerp(st, et, wt, &r));
      EXPECT_DTYPE(r, d);
      expect_vals_(r, want, 4, atol_of(d), "lerp", __LINE__);
      rel(r);
      /* weights 0 and 1 are exact: start and end */
      OK(ct_lerp_scalar(st, et, 1.0, &r));
      expect_vals_(r, e, 4, 0, "lerp(w=1)", __LINE__);
      rel(r);
      OK(ct_lerp_scalar(st, et, 0.0, &r));
      expect_vals_(r, s, 4, 0, "lerp(w=0)", __LINE__);
      rel(r);
      OK(ct_lerp_scalar(st, et, 0.3, &r));
      for (int i = 0; i < 4; ++i) want[i] = ref_lerp(s[i], e[i], 0.3);
      expect_vals_(r, want, 4, atol_of(d), "lerp(w=0.3)", __LINE__);
      rel(r), rel(st), rel(et), rel(wt);
    }
    /* broadcasting, a 0-dim CPU weight with CUDA tensors */
    ct_tensor s = to_dev(from_f64((const double[]){0, 1, 2, 3}, 4, (const int64_t[]){2, 2}, 2, CT_FLOAT32), dev);
    ct_tensor e = to_dev(F64(CT_FLOAT32, 10, 20), dev), w = from_f64((const double[]){0.5}, 1, NULL, 0, CT_FLOAT32);
    ct_tensor r = NULL;
    OK(ct_lerp(s, e, w, &r));
    EXPECT_VALS(r, 1e-6, 5, 10.5, 6, 11.5);
    rel(r);
    ct_tensor e64 = to_dev(F64(CT_FLOAT64, 10, 20), dev), w1 = to_dev(F64(CT_FLOAT64, 0.5, 0.5), dev);
    FAILS(ct_lerp(s, e64, w, &r), CT_ERR_DTYPE, "expected dtype float for `end` but got dtype double");
    FAILS(ct_lerp(s, e, w1, &r), CT_ERR_DTYPE, "expected dtype float for `weight` but got dtype double");
    ct_tensor i = to_dev(I64(CT_INT64, 1, 2), dev);
    FAILS(ct_lerp_scalar(i, i, 0.5, &r), CT_ERR_DTYPE, "\"lerp_kernel_scalar\" not implemented for 'Long'");
    FAILS(ct_lerp(i, i, i, &r), CT_ERR_DTYPE, "\"lerp_kernel_tensor\" not implemented for 'Long'");
    rel(s), rel(e), rel(w), rel(e64), rel(w1), rel(i);
  }
}

static void test_addcmul_addcdiv(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    ct_tensor a = to_dev(F64(CT_FLOAT32, 1, 2, 3), dev), b = to_dev(F64(CT_FLOAT32, 2, -4, 0.5), dev);
    ct_tensor c = to_dev(F64(CT_FLOAT32, 4, 8, 0), dev), r = NULL;
    OK(ct_addcmul(a, b, c, 0.5, &r));
    EXPECT_VALS(r, 0, 1 + 0.5 * 2 * 4, 2 + 0.5 * -4 * 8, 3);
    rel(r);
    OK(ct_addcdiv(a, b, c, 2, &r));
    EXPECT_VALS(r, 0, 1 + 2 * 0.5, 2 + 2 * -0.5, INFINITY);
    rel(r);
    /* integers wrap in addcmul; the value is truncated for an integer result */
    ct_tensor i = to_dev(I64(CT_INT8, 100, -3), dev), j = to_dev(I64(CT_INT8, 2, 5), dev), r2 = NULL;
    OK(ct_addcmul(i, j, j, 7.9, &r2));
    EXPECT_DTYPE(r2, CT_INT8);
    EXPECT_VALS(r2, 0, (int8_t)(100 + 7 * 4), -3 + 7 * 25 - 256);
    rel(r2);
    /* promotion: int8 with a float32 tensor gives float32; addcdiv of integer tensors refuses */
    ct_tensor i3 = to_dev(I64(CT_INT8, 1, 2, 3), dev);
    OK(ct_addcdiv(i3, b, c, 1, &r2));
    EXPECT_DTYPE(r2, CT_FLOAT32);
    EXPECT_VALS(r2, 0, 1.5, 1.5, INFINITY);
    rel(r2), rel(i3);
    FAILS(ct_addcdiv(a, i, j, 1, &r2), CT_ERR_DTYPE, "Integer division with addcdiv is no longer supported");
    ct_tensor bb = to_dev(I64(CT_BOOL, 1, 0), dev);
    FAILS(ct_addcmul(bb, bb, bb, 1, &r2), CT_ERR_DTYPE, "\"addcmul\" not implemented for 'Bool'");
    /* broadcasting [3, 1] x [3] and a 0-dim CPU tensor */
    ct_tensor col = to_dev(from_f64((const double[]){1, 2, 3}, 3, (const int64_t[]){3, 1}, 2, CT_FLOAT64), dev);
    ct_tensor s = from_f64((const double[]){10}, 1, NULL, 0, CT_FLOAT64);
    OK(ct_addcmul(s, col, b, 1, &r2));
    EXPECT_SHAPE(r2, 3, 3);
    EXPECT_DTYPE(r2, CT_FLOAT64); /* the dimensioned float64 and float32 promote; the 0-dim one does not count */
    EXPECT_VALS(r2, 0, 12, 6, 10.5, 14, 2, 11, 16, -2, 11.5);
    rel(r2);
    rel(a), rel(b), rel(c), rel(i), rel(j), rel(bb), rel(col), rel(s);
  }
}

static void test_where_scalars(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    ct_tensor cond = to_dev(I64(CT_BOOL, 1, 0, 1), dev), x = to_dev(I64(CT_INT32, 5, 6, 7), dev), r = NULL;
    OK(ct_where_scalar_i(cond, x, -1, 0, &r));
    EXPECT_DTYPE(r, CT_INT32);
    EXPECT_VALS(r, 0, 5, -1, 7);
    rel(r);
    OK(ct_where_scalar_i(cond, x, -1, 1, &r));
    EXPECT_VALS(r, 0, -1, 6, -1);
    rel(r);
    OK(ct_where_scalar_f(cond, x, 2.5, 0, &r));
    EXPECT_DTYPE(r, CT_FLOAT32);
    EXPECT_VALS(r, 0, 5, 2.5, 7);
    rel(r);
    /* a float16 tensor keeps its dtype with a Python float */
    ct_tensor h = to_dev(F64(CT_FLOAT16, 1, 2, 3), dev);
    OK(ct_where_scalar_f(cond, h, 0.5, 1, &r));
    EXPECT_DTYPE(r, CT_FLOAT16);
    EXPECT_VALS(r, 0, 0.5, 2, 0.5);
    rel(r);
    OK(ct_where_scalars_f(cond, 1, 0.25, &r));
    EXPECT_DTYPE(r, CT_FLOAT32);
    EXPECT_VALS(r, 0, 1, 0.25, 1);
    ct_device_type rd = CT_CPU;
    int32_t ri = 0;
    OK(ct_tensor_device(r, &rd, &ri));
    EXPECT_EQ_I(rd, dev);
    rel(r);
    OK(ct_where_scalars_i(cond, 3, 4, &r));
    EXPECT_DTYPE(r, CT_INT64);
    EXPECT_VALS(r, 0, 3, 4, 3);
    rel(r);
    /* broadcasting: a [2, 1] condition with a [3] tensor */
    ct_tensor c2 = to_dev(from_i64((const int64_t[]){1, 0}, 2, (const int64_t[]){2, 1}, 2, CT_BOOL), dev);
    OK(ct_where_scalar_f(c2, h, -1, 0, &r));
    EXPECT_SHAPE(r, 2, 3);
    EXPECT_VALS(r, 0, 1, 2, 3, -1, -1, -1);
    rel(r);
    FAILS(ct_where_scalar_f(x, x, 1, 0, &r), CT_ERR_DTYPE, "where expected condition to be a boolean tensor");
    rel(cond), rel(x), rel(h), rel(c2);
  }
}

static void test_isclose_allclose(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    ct_tensor a = to_dev(F64(CT_FLOAT32, 1, 1, NAN, INFINITY, INFINITY, 0, 100), dev);
    ct_tensor b = to_dev(F64(CT_FLOAT32, 1, 1.000005, NAN, INFINITY, -INFINITY, 1e-9, 100.5), dev), r = NULL;
    OK(ct_isclose(a, b, 1e-5, 1e-8, 0, &r));
    EXPECT_DTYPE(r, CT_BOOL);
    EXPECT_VALS(r, 0, 1, 1, 0, 1, 0, 1, 0);
    rel(r);
    OK(ct_isclose(a, b, 1e-5, 1e-8, 1, &r));
    EXPECT_VALS(r, 0, 1, 1, 1, 1, 0, 1, 0);
    rel(r);
    OK(ct_isclose(a, b, 0.01, 0, 0, &r));
    EXPECT_VALS(r, 0, 1, 1, 0, 1, 0, 0, 1);
    rel(r);
    /* the bound is |rtol * b|: negative b too */
    ct_tensor an = to_dev(F64(CT_FLOAT64, -1, -1), dev), bn = to_dev(F64(CT_FLOAT64, -1.001, -1.02), dev);
    OK(ct_isclose(an, bn, 0.01, 0, 0, &r));
    EXPECT_VALS(r, 0, 1, 0);
    rel(r), rel(an), rel(bn);
    int32_t all = -1;
    OK(ct_allclose(a, a, 1e-5, 1e-8, 1, &all));
    EXPECT_EQ_I(all, 1);
    OK(ct_allclose(a, a, 1e-5, 1e-8, 0, &all));
    EXPECT_EQ_I(all, 0);
    /* integers: |a - b| in the dtype, the bound in float32 */
    ct_tensor i = to_dev(I64(CT_INT64, 10, 10, 1000), dev), j = to_dev(I64(CT_INT64, 11, 13, 1010), dev);
    OK(ct_isclose(i, j, 0.1, 0, 0, &r));
    EXPECT_VALS(r, 0, 1, 0, 1);
    rel(r);
    /* bool compares as float32 */
    ct_tensor t = to_dev(I64(CT_BOOL, 1, 0), dev), f = to_dev(I64(CT_BOOL, 1, 1), dev);
    OK(ct_isclose(t, f, 0, 0.5, 0, &r));
    EXPECT_VALS(r, 0, 1, 0);
    rel(r);
    OK(ct_isclose(t, f, 0, 1, 0, &r));
    EXPECT_VALS(r, 0, 1, 1);
    rel(r);
    /* float16: atol + |rtol * b| rounded to float16 (the sum 1 + 2^-11 rounds to 1) */
    ct_tensor h1 = to_dev(F64(CT_FLOAT16, 1.0), dev), h2 = to_dev(F64(CT_FLOAT16, 0.0), dev);
    OK(ct_isclose(h1, h2, 0, 1.0 + 1.0 / 2048, 0, &r));
    EXPECT_VALS(r, 0, 1);
    rel(r);
    OK(ct_isclose(h1, h2, 0, 0.9995, 0, &r)); /* 0.9995 rounds to 0.99951171875 < 1 */
    EXPECT_VALS(r, 0, 0);
    rel(r);
    /* empty tensors are all close */
    ct_tensor e = NULL;
    OK(ct_empty((const int64_t[]){0}, 1, CT_FLOAT32, dev, 0, &e));
    OK(ct_allclose(e, e, 0, 0, 0, &all));
    EXPECT_EQ_I(all, 1);
    OK(ct_isclose(e, e, 0, 0, 0, &r));
    EXPECT_SHAPE(r, 0);
    rel(r);
    ct_tensor a64 = to_dev(F64(CT_FLOAT64, 1), dev), z = to_dev(F64(CT_COMPLEX64, 1, 2), dev);
    FAILS(ct_isclose(a, a64, 0, 0, 0, &r), CT_ERR_DTYPE, "Float did not match Double");
    FAILS(ct_isclose(a, a, -1, 0, 0, &r), CT_ERR_ARGUMENT, "rtol must be greater than or equal to zero, but got -1");
    FAILS(ct_isclose(a, a, 0, -1, 0, &r), CT_ERR_ARGUMENT, "atol must be greater than or equal to zero, but got -1");
    FAILS(ct_isclose(z, z, 0, 0, 1, &r), CT_ERR_ARGUMENT, "isclose with equal_nan=True is not supported for complex");
    FAILS(ct_allclose(a, a, 0, 0, 0, NULL), CT_ERR_NULL_POINTER, "out");
    /* complex: |a - b| <= atol + |rtol * b| */
    ct_tensor z2 = to_dev(F64(CT_COMPLEX64, 1.001, 2.5), dev);
    OK(ct_isclose(z, z2, 0.01, 0, 0, &r));
    EXPECT_VALS(r, 0, 1, 0);
    rel(r);
    rel(a), rel(b), rel(i), rel(j), rel(t), rel(f), rel(h1), rel(h2), rel(e), rel(a64), rel(z), rel(z2);
  }
}

/* empty and 0-dim inputs, sliced (strided) inputs */
static void test_layouts(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    ct_tensor e = NULL, r = NULL;
    OK(ct_empty((const int64_t[]){2, 0}, 2, CT_FLOAT32, dev, 0, &e));
    OK(ct_gelu(e, "none", &r));
    EXPECT_SHAPE(r, 2, 0);
    rel(r);
    OK(ct_unary(CT_ISNAN, e, &r));
    EXPECT_SHAPE(r, 2, 0);
    rel(r);
    OK(ct_lerp_scalar(e, e, 0.5, &r));
    EXPECT_SHAPE(r, 2, 0);
    rel(r);
    OK(ct_addcmul(e, e, e, 1, &r));
    EXPECT_SHAPE(r, 2, 0);
    rel(r), rel(e);
    ct_tensor s = to_dev(from_f64((const double[]){NAN}, 1, NULL, 0, CT_FLOAT64), dev);
    OK(ct_nan_to_num(s, 1, 3, 0, 0, 0, 0, &r));
    EXPECT_SCALAR_SHAPE(r);
    EXPECT_VALS(r, 0, 3);
    rel(r), rel(s);
    /* every other element of a [10] tensor */
    double v[10], want[5];
    for (int i = 0; i < 10; ++i) v[i] = (i % 3 == 0) ? NAN : 0.25 * i;
    ct_tensor x = to_dev(from_f64(v, 10, (const int64_t[]){10}, 1, CT_FLOAT32), dev), sl = NULL;
    OK(ct_slice(x, 0, 1, 10, 2, &sl));
    OK(ct_unary(CT_ISNAN, sl, &r));
    for (int i = 0; i < 5; ++i) want[i] = isnan(v[2 * i + 1]);
    expect_vals_(r, want, 5, 0, "isnan(slice)", __LINE__);
    rel(r);
    OK(ct_unary(CT_SILU, sl, &r));
    for (int i = 0; i < 5; ++i) want[i] = ref_silu(v[2 * i + 1]);
    expect_vals_(r, want, 5, 4e-6, "silu(slice)", __LINE__);
    rel(r), rel(sl), rel(x);
    /* an expanded condition and a [1] -> [4] expanded input */
    ct_tensor one = to_dev(F64(CT_FLOAT32, 2), dev), ex = NULL;
    OK(ct_expand(one, (const int64_t[]){4}, 1, &ex));
    OK(ct_addcdiv(ex, ex, ex, 3, &r));
    EXPECT_VALS(r, 0, 5, 5, 5, 5);
    rel(r), rel(ex), rel(one);
  }
}

/* CUDA against the CPU on inputs long enough for the vectorized kernels, float32 and float16,
 * contiguous and transposed: exact for the exact ops, a few ulp for the transcendental ones */
static void test_cuda_matches_cpu(void) {
  SKIP_WITHOUT_CUDA();
  const int n = 64 * 33;
  double* v = malloc(n * 8);
  double* w = malloc(n * 8);
  for (int i = 0; i < n; ++i) {
    v[i] = 6 * sin(0.37 * i) + ((i % 97 == 0) ? NAN : 0) + ((i % 89 == 0) ? INFINITY : 0);
    w[i] = 0.5 + 0.5 * cos(1.3 * i);
  }
  const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT16};
  for (int k = 0; k < 2; ++k) {
    ct_tensor c = from_f64(v, n, (const int64_t[]){64, 33}, 2, dts[k]), cw = from_f64(w, n, (const int64_t[]){64, 33}, 2, dts[k]);
    for (int tr = 0; tr < 2; ++tr) {
      ct_tensor x = c, y = cw;
      if (tr) {
        OK(ct_transpose(c, 0, 1, &x));
        OK(ct_transpose(cw, 0, 1, &y));
      } else {
        OK(ct_tensor_retain(c));
        OK(ct_tensor_retain(cw));
      }
      ct_tensor gx = NULL, gy = NULL;
      OK(ct_tensor_to(x, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &gx));
      OK(ct_tensor_to(y, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &gy));
      ct_tensor rc[9] = {0}, rg[9] = {0};
      const double tol[9] = {0, 0, 1e-6, 1e-6, 1e-6, 0, 1e-6, 1e-6, 0};
      for (int dv = 0; dv < 2; ++dv) {
        ct_tensor a = dv ? gx : x, b = dv ? gy : y;
        ct_tensor* r = dv ? rg : rc;
        OK(ct_unary(CT_ISNAN, a, &r[0]));
        OK(ct_unary(CT_ISFINITE, a, &r[1]));
        OK(ct_unary(CT_ERF, a, &r[2]));
        OK(ct_unary(CT_SILU, a, &r[3]));
        OK(ct_gelu(a, tr ? "tanh" : "none", &r[4]));
        OK(ct_nan_to_num(a, 0, 0, 0, 0, 0, 0, &r[5]));
        OK(ct_lerp(a, b, b, &r[6]));
        OK(ct_addcdiv(a, b, b, 0.5, &r[7]));
        OK(ct_isclose(a, b, 0.1, 0.5, 1, &r[8]));
      }
      for (int i = 0; i < 9; ++i) {
        int64_t m = 0;
        OK(ct_tensor_numel(rc[i], &m));
        ct_tensor d = NULL;
        OK(ct_tensor_to(rc[i], CT_CPU, -1, CT_FLOAT64, 0, 1, &d));
        double* want = malloc(m * 8);
        OK(ct_tensor_copy_to_buffer(d, want, m * 8));
        /* a relative tolerance as an absolute one for |values| <= 8 */
        expect_vals_(rg[i], want, m, tol[i] * 8 * (dts[k] == CT_FLOAT16 ? 1000 : 1), "cuda vs cpu", __LINE__ + i);
        free(want);
        rel(d), rel(rc[i]), rel(rg[i]);
      }
      rel(x), rel(y), rel(gx), rel(gy);
    }
    rel(c), rel(cw);
  }
  free(v);
  free(w);
}

TEST_MAIN(TEST_CASE(predicates), TEST_CASE(erf_silu), TEST_CASE(gelu), TEST_CASE(nan_to_num), TEST_CASE(clamp_tensor),
          TEST_CASE(lerp), TEST_CASE(addcmul_addcdiv), TEST_CASE(where_scalars), TEST_CASE(isclose_allclose),
          TEST_CASE(layouts), TEST_CASE(cuda_matches_cpu))
