/* Scans (ctorch.h section 28: ct_cumsum, ct_cumprod, ct_cummax, ct_cummin, ct_logcumsumexp)
 * on the CPU and on CUDA (each test twice, "<name>_cpu" and "<name>_cuda"; the CUDA half skips
 * visibly without a GPU): hand-computed values, the dtype grid against scans computed here in
 * double precision (int64 with wraparound for integer results), layouts (transposed, sliced
 * with a step, expanded, permuted, 0-dim, empty), every dim, long rows and many short rows (each
 * path of Note [CUDA scans]), NaN and the infinities, and PyTorch's messages for bad input. */
#include <stdint.h>

#include "tests/capi/test_util.h"

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_LSE };
static const double kPi = 3.14159265358979323846;
static const char* const OP_NAME[] = {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"};

/* ---- helpers */

static ct_tensor on(ct_tensor t, int dev) { /* takes t; returns it on dev (-1: CPU) */
  if (dev < 0 || !t) return t;
  ct_tensor r = NULL;
  if (ct_tensor_to(t, CT_CUDA, dev, CT_DTYPE_UNDEFINED, 0, 0, &r) != CT_OK) FAILF("to cuda: %s", ct_last_error_message());
  ct_tensor_release(t);
  return r;
}

static int64_t numel_of(ct_tensor t) {
  int64_t n = -1;
  OK(ct_tensor_numel(t, &n));
  return n;
}

static int shape_of(ct_tensor t, int64_t* sz) {
  int32_t nd = -1;
  OK(ct_tensor_sizes(t, sz, 8, &nd));
  return nd;
}

/* t's elements in logical order, converted to dtype (8- or 16-byte elements) on the host. */
static void* read_as(ct_tensor t, ct_dtype dtype, int64_t esize) {
  int64_t n = numel_of(t);
  void* buf = calloc((size_t)(n ? n : 1), (size_t)esize);
  ct_tensor c = NULL;
  if (ct_tensor_to(t, CT_CPU, -1, dtype, 0, 1, &c) != CT_OK) {
    FAILF("read: %s", ct_last_error_message());
    return buf;
  }
  OK(ct_tensor_copy_to_buffer(c, buf, n * esize));
  ct_tensor_release(c);
  return buf;
}

/* O, L, I of scanning dim (wrapped) of a tensor of nd dims (Note [Scan layout]). */
static void layout_of(const int64_t* sz, int nd, int64_t dim, int64_t* O, int64_t* L, int64_t* I) {
  *O = *L = *I = 1;
  if (nd == 0) return;
  if (dim < 0) dim += nd;
  for (int d = 0; d < nd; ++d) {
    if (d < dim) *O *= sz[d];
    else if (d == dim) *L = sz[d];
    else *I *= sz[d];
  }
}

static double lse(double x, double y) { /* torch's log-add-exp, x new, y running */
  double mn = isnan(y) ? y : (y < x ? y : x), mx = isnan(y) ? y : (x < y ? y : x);
  if (mn != mx || isfinite(mn)) return log1p(exp(mn - mx)) + mx;
  return x;
}

/* The scan of op over dim of x (any device, layout, real dtype), computed here: float64 values
 * (or int64 with wraparound when the result is integral) and, for cummax/cummin, indices. */
typedef struct {
  int64_t n;
  double* f;
  int64_t* i;
  int64_t* idx;
} ref_t;

static ref_t reference(ct_tensor x, int op, int64_t dim, int integral) {
  ref_t r = {numel_of(x), NULL, NULL, NULL};
  int64_t sz[8], O, L, I;
  int nd = shape_of(x, sz);
  layout_of(sz, nd, dim, &O, &L, &I);
  double* xf = read_as(x, CT_FLOAT64, 8);
  int64_t* xi = read_as(x, CT_INT64, 8);
  r.f = calloc((size_t)(r.n ? r.n : 1), 8);
  r.i = calloc((size_t)(r.n ? r.n : 1), 8);
  r.idx = calloc((size_t)(r.n ? r.n : 1), 8);
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < I; ++i) {
      double af = op == OP_SUM ? 0 : op == OP_PROD ? 1 : -INFINITY;
      uint64_t ai = op == OP_PROD ? 1 : 0;
      int64_t best = -1;
      for (int64_t l = 0; l < L; ++l) {
        int64_t k = (o * L + l) * I + i;
        double v = xf[k];
        switch (op) {
          case OP_SUM: af += v; ai += (uint64_t)xi[k]; break;
          case OP_PROD: af *= v; ai *= (uint64_t)xi[k]; break;
          case OP_LSE: af = lse(v, af); break;
          default: { /* the later element wins on NaN, or on >= (<=) with no NaN so far */
            int take = best < 0 || isnan(v) ||
                       (!isnan(af) && (op == OP_MAX ? (integral ? xi[k] >= (int64_t)ai : v >= af)
                                                    : (integral ? xi[k] <= (int64_t)ai : v <= af)));
            if (take) {
              best = l;
              af = v;
              ai = (uint64_t)xi[k];
            }
            r.idx[k] = best;
          }
        }
        r.f[k] = af;
        r.i[k] = (int64_t)ai;
      }
    }
  free(xf);
  free(xi);
  return r;
}

static void ref_free(ref_t* r) {
  free(r->f);
  free(r->i);
  free(r->idx);
}

/* got (any device) against r: exact for integral results (and indices), else within
 * rtol * (1 + |want|). */
static void expect_ref(ct_tensor got, const ref_t* r, int integral, double rtol, const char* what, int line) {
  if (numel_of(got) != r->n) {
    FAILF("line %d: %s has %lld elements, expected %lld", line, what, (long long)numel_of(got), (long long)r->n);
    return;
  }
  if (integral) {
    int64_t* g = read_as(got, CT_INT64, 8);
    for (int64_t k = 0; k < r->n; ++k)
      if (g[k] != r->i[k]) {
        FAILF("line %d: %s[%lld] = %lld, expected %lld", line, what, (long long)k, (long long)g[k], (long long)r->i[k]);
        break;
      }
    free(g);
    return;
  }
  double* g = read_as(got, CT_FLOAT64, 8);
  for (int64_t k = 0; k < r->n; ++k) {
    double w = r->f[k];
    int same = (isnan(g[k]) && isnan(w)) || (isinf(w) && g[k] == w) || fabs(g[k] - w) <= rtol * (1 + fabs(w));
    if (!same) {
      FAILF("line %d: %s[%lld] = %.17g, expected %.17g", line, what, (long long)k, g[k], w);
      break;
    }
  }
  free(g);
}

static void expect_idx(ct_tensor got, const ref_t* r, const char* what, int line) {
  int64_t* g = read_as(got, CT_INT64, 8);
  for (int64_t k = 0; k < r->n; ++k)
    if (g[k] != r->idx[k]) {
      FAILF("line %d: %s indices[%lld] = %lld, expected %lld", line, what, (long long)k, (long long)g[k],
            (long long)r->idx[k]);
      break;
    }
  free(g);
}

static int is_int_dtype(ct_dtype d) {
  return d == CT_UINT8 || d == CT_INT8 || d == CT_INT16 || d == CT_INT32 || d == CT_INT64 || d == CT_BOOL;
}

static ct_dtype dtype_of(ct_tensor t) {
  ct_dtype d = -2;
  OK(ct_tensor_dtype(t, &d));
  return d;
}

static const char* where_(int dev) { return dev < 0 ? "CPU" : "CUDA"; }

/* Runs op over dim of x and checks the result (dtype, values, indices) against reference(). */
static void check_op(ct_tensor x, int op, int64_t dim, double rtol, int line) {
  ct_tensor out = NULL, idx = NULL;
  ct_status s;
  switch (op) {
    case OP_SUM: s = ct_cumsum(x, dim, CT_DTYPE_UNDEFINED, &out); break;
    case OP_PROD: s = ct_cumprod(x, dim, CT_DTYPE_UNDEFINED, &out); break;
    case OP_MAX: s = ct_cummax(x, dim, &out, &idx); break;
    case OP_MIN: s = ct_cummin(x, dim, &out, &idx); break;
    default: s = ct_logcumsumexp(x, dim, &out); break;
  }
  if (s != CT_OK) {
    FAILF("line %d: %s(dim %lld): %s", line, OP_NAME[op], (long long)dim, ct_last_error_message());
    return;
  }
  ct_dtype in = dtype_of(x), want = in;
  if ((op == OP_SUM || op == OP_PROD) && is_int_dtype(in)) want = CT_INT64;
  if (dtype_of(out) != want) FAILF("line %d: %s dtype %d, expected %d", line, OP_NAME[op], dtype_of(out), want);
  int64_t sx[8], so[8];
  int nx = shape_of(x, sx), no = shape_of(out, so);
  if (nx != no || memcmp(sx, so, (size_t)nx * 8) != 0) FAILF("line %d: %s changed the shape", line, OP_NAME[op]);
  int integral = is_int_dtype(want);
  ref_t r = reference(x, op, dim, integral);
  char what[64];
  snprintf(what, sizeof what, "%s(dim %lld)", OP_NAME[op], (long long)dim);
  expect_ref(out, &r, integral, rtol, what, line);
  if (idx) {
    EXPECT(dtype_of(idx) == CT_INT64);
    expect_idx(idx, &r, what, line);
  }
  ref_free(&r);
  rel(out);
  rel(idx);
}

/* A tensor of n values f(k) of dtype, shaped sz, on dev. */
static ct_tensor make(int64_t n, double (*f)(int64_t), const int64_t* sz, int nd, ct_dtype dtype, int dev) {
  double* v = malloc((size_t)(n ? n : 1) * 8);
  for (int64_t k = 0; k < n; ++k) v[k] = f(k);
  ct_tensor t = on(from_f64(v, n, sz, nd, dtype), dev);
  free(v);
  return t;
}

static double small_ints(int64_t k) { return (double)((k * 7 + 3) % 9) - 4; }          /* -4..4 */
static double near_one(int64_t k) { return 0.75 + 0.125 * (double)((k * 3) % 5); }      /* 0.75..1.25 */
static double with_ties(int64_t k) { return (double)((k * 5 + 1) % 4); }               /* 0..3, many ties */
static double zero_one(int64_t k) { return (double)((k * 3) % 2); }

#define DEVICE_TEST(name)                          \
  static void name(int dev);                       \
  static void test_##name##_cpu(void) { name(-1); } \
  static void test_##name##_cuda(void) {           \
    SKIP_WITHOUT_CUDA();                           \
    name(0);                                       \
  }                                                \
  static void name(int dev)

/* ---- hand-computed values */

DEVICE_TEST(cumsum_values) {
  int64_t sz[] = {2, 3};
  ct_tensor x = on(from_f64((const double[]){1, 2, 3, 4, 5, 6}, 6, sz, 2, CT_FLOAT32), dev), o = NULL;
  OK(ct_cumsum(x, 1, CT_DTYPE_UNDEFINED, &o));
  EXPECT_DTYPE(o, CT_FLOAT32);
  EXPECT_SHAPE(o, 2, 3);
  EXPECT_VALS(o, 0, 1, 3, 6, 4, 9, 15);
  rel(o);
  OK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_VALS(o, 0, 1, 2, 3, 5, 7, 9);
  rel(o);
  OK(ct_cumsum(x, -2, CT_FLOAT64, &o)); /* dtype= gives the result's dtype */
  EXPECT_DTYPE(o, CT_FLOAT64);
  EXPECT_VALS(o, 0, 1, 2, 3, 5, 7, 9);
  rel(o);
  rel(x);
  /* integers and bool give int64; a given dtype casts the input first (1.75 -> 1) */
  x = on(I64(CT_INT32, 5, -2, 7), dev);
  OK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_DTYPE(o, CT_INT64);
  EXPECT_VALS(o, 0, 5, 3, 10);
  rel(o);
  rel(x);
  x = on(F64(CT_BOOL, 1, 0, 1, 1), dev);
  OK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_DTYPE(o, CT_INT64);
  EXPECT_VALS(o, 0, 1, 1, 2, 3);
  rel(o);
  rel(x);
  x = on(F64(CT_FLOAT64, 1.75, 2.5, -1.5), dev);
  OK(ct_cumsum(x, 0, CT_INT32, &o));
  EXPECT_DTYPE(o, CT_INT32);
  EXPECT_VALS(o, 0, 1, 3, 2);
  rel(o);
  OK(ct_cumsum(x, 0, CT_FLOAT16, &o));
  EXPECT_DTYPE(o, CT_FLOAT16);
  EXPECT_VALS(o, 0, 1.75, 4.25, 2.75);
  rel(o);
  rel(x);
  /* complex */
  x = on(F64(CT_COMPLEX64, 1, 2, 3), dev);
  OK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_DTYPE(o, CT_COMPLEX64);
  EXPECT_VALS(o, 0, 1, 3, 6);
  rel(o);
  rel(x);
}

DEVICE_TEST(cumprod_values) {
  int64_t sz[] = {2, 3};
  ct_tensor x = on(from_f64((const double[]){1, 2, 3, 4, 5, 6}, 6, sz, 2, CT_FLOAT64), dev), o = NULL;
  OK(ct_cumprod(x, 1, CT_DTYPE_UNDEFINED, &o));
  EXPECT_VALS(o, 0, 1, 2, 6, 4, 20, 120);
  rel(o);
  OK(ct_cumprod(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_VALS(o, 0, 1, 2, 3, 4, 10, 18);
  rel(o);
  rel(x);
  x = on(I64(CT_UINT8, 3, 200, 2), dev); /* int64 result: no uint8 wrap */
  OK(ct_cumprod(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_DTYPE(o, CT_INT64);
  EXPECT_VALS(o, 0, 3, 600, 1200);
  rel(o);
  OK(ct_cumprod(x, 0, CT_UINT8, &o)); /* uint8 result wraps: 600 % 256 = 88, 1200 % 256 = 176 */
  EXPECT_DTYPE(o, CT_UINT8);
  EXPECT_VALS(o, 0, 3, 88, 176);
  rel(o);
  rel(x);
  x = on(F64(CT_FLOAT32, 2, INFINITY, 0, NAN, 1), dev);
  OK(ct_cumprod(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_VALS(o, 0, 2, INFINITY, NAN, NAN, NAN);
  rel(o);
  rel(x);
}

DEVICE_TEST(cummax_cummin_values) {
  ct_tensor x = on(F64(CT_FLOAT32, 1, 3, 3, 2, NAN, 5, NAN, 0), dev), v = NULL, i = NULL;
  OK(ct_cummax(x, 0, &v, &i));
  EXPECT_DTYPE(v, CT_FLOAT32);
  EXPECT_DTYPE(i, CT_INT64);
  EXPECT_VALS(v, 0, 1, 3, 3, 3, NAN, NAN, NAN, NAN);
  EXPECT_VALS(i, 0, 0, 1, 2, 2, 4, 4, 6, 6); /* the last of equal maxima; the last NaN */
  rel(v);
  rel(i);
  OK(ct_cummin(x, -1, &v, &i));
  EXPECT_VALS(v, 0, 1, 1, 1, 1, NAN, NAN, NAN, NAN);
  EXPECT_VALS(i, 0, 0, 0, 0, 0, 4, 4, 6, 6);
  rel(v);
  rel(i);
  rel(x);
  x = on(F64(CT_FLOAT64, 2, 1, 2, 1, -INFINITY, 1), dev);
  OK(ct_cummin(x, 0, &v, &i));
  EXPECT_VALS(v, 0, 2, 1, 1, 1, -INFINITY, -INFINITY);
  EXPECT_VALS(i, 0, 0, 1, 1, 3, 4, 4);
  rel(v);
  rel(i);
  rel(x);
  x = on(F64(CT_BOOL, 0, 1, 0, 1), dev);
  OK(ct_cummax(x, 0, &v, &i));
  EXPECT_DTYPE(v, CT_BOOL);
  EXPECT_VALS(v, 0, 0, 1, 1, 1);
  EXPECT_VALS(i, 0, 0, 1, 1, 3);
  rel(v);
  rel(i);
  rel(x);
  x = on(I64(CT_INT8, -5, -7, 100, -128, 100), dev);
  OK(ct_cummin(x, 0, &v, &i));
  EXPECT_DTYPE(v, CT_INT8);
  EXPECT_VALS(v, 0, -5, -7, -7, -128, -128);
  EXPECT_VALS(i, 0, 0, 1, 1, 3, 3);
  rel(v);
  rel(i);
  OK(ct_cummax(x, 0, &v, &i));
  EXPECT_VALS(v, 0, -5, -5, 100, 100, 100);
  EXPECT_VALS(i, 0, 0, 0, 2, 2, 4);
  rel(v);
  rel(i);
  rel(x);
}

DEVICE_TEST(logcumsumexp_values) {
  const double l2 = log(2.0);
  ct_tensor x = on(F64(CT_FLOAT64, 0, -INFINITY, 0, 1000, 1000), dev), o = NULL;
  OK(ct_logcumsumexp(x, 0, &o));
  EXPECT_DTYPE(o, CT_FLOAT64);
  EXPECT_VALS(o, 1e-9, 0, 0, l2, 1000, 1000 + l2); /* stable: no overflow at 1000 */
  rel(o);
  rel(x);
  x = on(F64(CT_FLOAT32, -INFINITY, -INFINITY, INFINITY, 2, INFINITY, NAN, 3), dev);
  OK(ct_logcumsumexp(x, 0, &o));
  EXPECT_VALS(o, 0, -INFINITY, -INFINITY, INFINITY, INFINITY, INFINITY, NAN, NAN);
  rel(o);
  rel(x);
  x = on(F64(CT_BFLOAT16, 1, 1), dev);
  OK(ct_logcumsumexp(x, 0, &o));
  EXPECT_DTYPE(o, CT_BFLOAT16);
  EXPECT_VALS(o, 0.01, 1, 1 + l2);
  rel(o);
  rel(x);
  /* complex: log(exp(0) + exp(i pi/2)) = log(1 + i) = (ln 2 / 2, pi / 4) */
  double buf[4] = {0, 0, 0, kPi / 2}; /* (re, im) pairs */
  ct_tensor xc = NULL, c = NULL;
  OK(ct_from_buffer(buf, sizeof buf, (const int64_t[]){2}, 1, CT_COMPLEX128, CT_CPU, -1, &xc));
  xc = on(xc, dev);
  OK(ct_logcumsumexp(xc, 0, &c));
  EXPECT_DTYPE(c, CT_COMPLEX128);
  double* got = read_as(c, CT_COMPLEX128, 16);
  EXPECT(fabs(got[0]) < 1e-15 && fabs(got[1]) < 1e-15);
  EXPECT(fabs(got[2] - l2 / 2) < 1e-12 && fabs(got[3] - kPi / 4) < 1e-12);
  free(got);
  rel(c);
  rel(xc);
}

/* Integer sums and products wrap around as torch's int64 (and a given narrower dtype's). */
DEVICE_TEST(integer_wraparound) {
  ct_tensor x = on(I64(CT_INT64, INT64_MAX, 1, 1), dev), o = NULL;
  OK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o));
  int64_t* g = read_as(o, CT_INT64, 8);
  EXPECT(g[0] == INT64_MAX && g[1] == INT64_MIN && g[2] == INT64_MIN + 1);
  free(g);
  rel(o);
  rel(x);
  x = on(I64(CT_INT32, INT32_MAX, 1), dev);
  OK(ct_cumsum(x, 0, CT_INT32, &o));
  EXPECT_VALS(o, 0, INT32_MAX, INT32_MIN);
  rel(o);
  OK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o)); /* int64: no wrap */
  EXPECT_VALS(o, 0, INT32_MAX, (double)INT32_MAX + 1);
  rel(o);
  rel(x);
  x = on(I64(CT_INT64, (int64_t)1 << 32, (int64_t)1 << 32, 3), dev);
  OK(ct_cumprod(x, 0, CT_DTYPE_UNDEFINED, &o));
  EXPECT_VALS(o, 0, 4294967296.0, 0, 0);
  rel(o);
  rel(x);
}

/* ---- the dtype grid: every op, every dtype torch takes, dims 0 and 1 of a [3, 5] tensor */

DEVICE_TEST(dtype_grid) {
  static const ct_dtype dts[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_BOOL,
                                 CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
  int64_t sz[] = {3, 5};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
    ct_dtype d = dts[k];
    int fl = !is_int_dtype(d);
    double tol = d == CT_FLOAT16 ? 2e-3 : d == CT_BFLOAT16 ? 1e-2 : d == CT_FLOAT32 ? 1e-6 : 1e-12;
    ct_tensor x = make(15, d == CT_UINT8 ? with_ties : small_ints, sz, 2, d, dev);
    ct_tensor p = make(15, fl ? near_one : with_ties, sz, 2, d, dev);
    for (int64_t dim = -2; dim < 2; ++dim) {
      check_op(x, OP_SUM, dim, tol, __LINE__);
      check_op(p, OP_PROD, dim, tol, __LINE__);
      check_op(x, OP_MAX, dim, 0, __LINE__);
      check_op(x, OP_MIN, dim, 0, __LINE__);
      if (fl) check_op(x, OP_LSE, dim, tol, __LINE__);
    }
    rel(x);
    rel(p);
  }
}

/* PyTorch's errors: logcumsumexp of integers, cummax/cummin of complex, a bool cumsum, bad dims. */
DEVICE_TEST(errors) {
  char msg[128];
  int64_t sz[] = {2, 3};
  ct_tensor x = make(6, small_ints, sz, 2, CT_INT64, dev), o = NULL, i = NULL;
  snprintf(msg, sizeof msg, "\"logcumsumexp_%s\" not implemented for 'Long'", dev < 0 ? "out_cpu" : "cuda");
  FAILS(ct_logcumsumexp(x, 1, &o), CT_ERR_DTYPE, msg);
  FAILS(ct_cumsum(x, 5, CT_DTYPE_UNDEFINED, &o), CT_ERR_INDEX,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  FAILS(ct_cumprod(x, -3, CT_DTYPE_UNDEFINED, &o), CT_ERR_INDEX,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  FAILS(ct_cummax(x, 2, &o, &i), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  FAILS(ct_logcumsumexp(x, 7, &o), CT_ERR_INDEX, "but got 7)");
  snprintf(msg, sizeof msg, "\"cumsum_%s\" not implemented for 'Bool'", dev < 0 ? "out_cpu" : "cuda");
  FAILS(ct_cumsum(x, 0, CT_BOOL, &o), CT_ERR_DTYPE, msg);
  snprintf(msg, sizeof msg, "\"cumprod_%s\" not implemented for 'Bool'", dev < 0 ? "out_cpu" : "cuda");
  FAILS(ct_cumprod(x, 0, CT_BOOL, &o), CT_ERR_DTYPE, msg);
  FAILS(ct_cumsum(x, 0, (ct_dtype)99, &o), CT_ERR_DTYPE, "");
  FAILS(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_cummax(x, 0, NULL, &i), CT_ERR_NULL_POINTER, "values");
  FAILS(ct_cummin(x, 0, &o, NULL), CT_ERR_NULL_POINTER, "indices");
  FAILS(ct_logcumsumexp(NULL, 0, &o), CT_ERR_INVALID_HANDLE, "NULL");
  EXPECT(o == NULL && i == NULL);
  rel(x);
  x = make(6, small_ints, sz, 2, CT_COMPLEX64, dev);
  snprintf(msg, sizeof msg, "\"cummax_%s\" not implemented for 'ComplexFloat'", dev < 0 ? "cpu" : "cuda");
  FAILS(ct_cummax(x, 1, &o, &i), CT_ERR_DTYPE, msg);
  snprintf(msg, sizeof msg, "\"cummin_%s\" not implemented for 'ComplexFloat'", dev < 0 ? "cpu" : "cuda");
  FAILS(ct_cummin(x, 0, &o, &i), CT_ERR_DTYPE, msg);
  EXPECT(o == NULL && i == NULL);
  rel(x);
}

/* ---- layouts */

DEVICE_TEST(layouts) {
  int64_t sz[] = {4, 6, 5};
  ct_tensor base = make(120, small_ints, sz, 3, CT_FLOAT64, dev), pb = make(120, near_one, sz, 3, CT_FLOAT64, dev);
  ct_tensor row = make(6, small_ints, (const int64_t[]){1, 6, 1}, 3, CT_FLOAT32, dev);
  ct_tensor views[5][2] = {{0}};
  OK(ct_transpose(base, 0, 2, &views[0][0]));
  OK(ct_transpose(pb, 0, 2, &views[0][1]));
  OK(ct_slice(base, 1, 1, 6, 2, &views[1][0]));
  OK(ct_slice(pb, 1, 1, 6, 2, &views[1][1]));
  OK(ct_expand(row, sz, 3, &views[2][0])); /* strides 0 */
  OK(ct_expand(row, sz, 3, &views[2][1]));
  OK(ct_permute(base, (const int64_t[]){2, 0, 1}, 3, &views[3][0]));
  OK(ct_permute(pb, (const int64_t[]){2, 0, 1}, 3, &views[3][1]));
  OK(ct_select(base, 2, 3, &views[4][0])); /* [4, 6] with strides 30, 5 */
  OK(ct_select(pb, 2, 3, &views[4][1]));
  for (int v = 0; v < 5; ++v) {
    int64_t vs[8];
    int nd = shape_of(views[v][0], vs);
    for (int64_t dim = -1; dim < nd; ++dim) {
      check_op(views[v][0], OP_SUM, dim, 1e-6, __LINE__);
      check_op(views[v][1], OP_PROD, dim, 1e-6, __LINE__);
      check_op(views[v][0], OP_MAX, dim, 0, __LINE__);
      check_op(views[v][0], OP_MIN, dim, 0, __LINE__);
      check_op(views[v][0], OP_LSE, dim, 1e-6, __LINE__);
    }
    rel(views[v][0]);
    rel(views[v][1]);
  }
  rel(base);
  rel(pb);
  rel(row);
}

/* A 0-dim tensor is one element (dims -1 and 0); cummax/cummin take any dim for it and for an
 * empty tensor; empty results keep the shape. */
DEVICE_TEST(zero_dim_and_empty) {
  ct_tensor s = NULL, o = NULL, i = NULL;
  OK(ct_full(NULL, 0, 5, CT_INT32, dev < 0 ? CT_CPU : CT_CUDA, dev, &s));
  for (int64_t dim = -1; dim <= 0; ++dim) {
    OK(ct_cumsum(s, dim, CT_DTYPE_UNDEFINED, &o));
    EXPECT_SCALAR_SHAPE(o);
    EXPECT_DTYPE(o, CT_INT64);
    EXPECT_VALS(o, 0, 5);
    rel(o);
  }
  FAILS(ct_cumsum(s, 1, CT_DTYPE_UNDEFINED, &o), CT_ERR_INDEX,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  OK(ct_cumprod(s, 0, CT_BOOL, &o)); /* nothing to scan: torch fills, no dtype error */
  EXPECT_DTYPE(o, CT_BOOL);
  EXPECT_VALS(o, 0, 1);
  rel(o);
  OK(ct_cummax(s, 5, &o, &i));
  EXPECT_SCALAR_SHAPE(o);
  EXPECT_DTYPE(o, CT_INT32);
  EXPECT_VALS(o, 0, 5);
  EXPECT_VALS(i, 0, 0);
  rel(o);
  rel(i);
  if (dev < 0) FAILS(ct_logcumsumexp(s, 0, &o), CT_ERR_DTYPE, "\"logcumsumexp_out_cpu\" not implemented for 'Int'");
  else {
    OK(ct_logcumsumexp(s, 0, &o)); /* torch's CUDA op fills before its dtype dispatch */
    EXPECT_VALS(o, 0, 5);
    rel(o);
  }
  rel(s);
  OK(ct_full(NULL, 0, -1.5, CT_FLOAT32, dev < 0 ? CT_CPU : CT_CUDA, dev, &s));
  OK(ct_logcumsumexp(s, -1, &o));
  EXPECT_VALS(o, 0, -1.5);
  rel(o);
  rel(s);
  int64_t esz[] = {0, 3};
  OK(ct_full(esz, 2, 0, CT_INT16, dev < 0 ? CT_CPU : CT_CUDA, dev, &s));
  OK(ct_cumsum(s, 1, CT_DTYPE_UNDEFINED, &o));
  EXPECT_SHAPE(o, 0, 3);
  EXPECT_DTYPE(o, CT_INT64);
  rel(o);
  OK(ct_cumprod(s, 0, CT_FLOAT32, &o));
  EXPECT_SHAPE(o, 0, 3);
  EXPECT_DTYPE(o, CT_FLOAT32);
  rel(o);
  OK(ct_cummin(s, 9, &o, &i));
  EXPECT_SHAPE(o, 0, 3);
  EXPECT_SHAPE(i, 0, 3);
  rel(o);
  rel(i);
  FAILS(ct_cumsum(s, 2, CT_DTYPE_UNDEFINED, &o), CT_ERR_INDEX, "[-2, 1], but got 2)");
  rel(s);
}

/* ---- sizes: each path of Note [CUDA scans] (and the CPU's blocks): one long row (> one CUDA
 * block; cub::DeviceScan), a few long rows, many short rows, rows of moderate length, an outer
 * dim with few long lines (transposed), an outer dim with many lines. */

DEVICE_TEST(long_rows) {
  int64_t n1[] = {100000};
  ct_tensor x = make(100000, small_ints, n1, 1, CT_FLOAT64, dev);
  check_op(x, OP_SUM, 0, 0, __LINE__); /* small integers in float64: exact in any order */
  check_op(x, OP_MAX, 0, 0, __LINE__);
  check_op(x, OP_MIN, 0, 0, __LINE__);
  check_op(x, OP_LSE, 0, 1e-10, __LINE__);
  rel(x);
  x = make(100000, with_ties, n1, 1, CT_FLOAT32, dev);
  check_op(x, OP_SUM, 0, 0, __LINE__); /* partial sums < 2^24: exact in float32 */
  check_op(x, OP_MAX, 0, 0, __LINE__);
  rel(x);
  x = make(100000, small_ints, n1, 1, CT_INT32, dev);
  check_op(x, OP_SUM, 0, 0, __LINE__);
  check_op(x, OP_PROD, 0, 0, __LINE__); /* wraps */
  check_op(x, OP_MAX, 0, 0, __LINE__);  /* CUDA: int32 read as itself (cuda_ops::scan_takes) */
  check_op(x, OP_MIN, 0, 0, __LINE__);
  rel(x);
  x = make(100000, with_ties, n1, 1, CT_UINT8, dev); /* CUDA: uint8 read by cub::DeviceScan's input */
  check_op(x, OP_SUM, 0, 0, __LINE__);
  rel(x);
  int64_t n2[] = {3, 70000};
  x = make(210000, with_ties, n2, 2, CT_FLOAT16, dev);
  check_op(x, OP_MAX, 1, 0, __LINE__);
  check_op(x, OP_MIN, -1, 0, __LINE__);
  rel(x);
  x = make(210000, zero_one, n2, 2, CT_BFLOAT16, dev);
  check_op(x, OP_MAX, 1, 0, __LINE__);
  rel(x);
  int64_t n3[] = {2, 70000};
  x = make(140000, small_ints, n3, 2, CT_COMPLEX128, dev);
  ct_tensor o = NULL;
  OK(ct_cumsum(x, 1, CT_DTYPE_UNDEFINED, &o));
  ref_t r = reference(x, OP_SUM, 1, 0);
  expect_ref(o, &r, 0, 0, "complex cumsum", __LINE__);
  ref_free(&r);
  rel(o);
  rel(x);
}

DEVICE_TEST(many_short_rows) {
  int64_t a[] = {20000, 3}, b[] = {2000, 100}, c[] = {3000, 100}, d[] = {50, 40, 60};
  ct_tensor x = make(60000, small_ints, a, 2, CT_INT64, dev);
  for (int op = OP_SUM; op <= OP_MIN; ++op) check_op(x, op, 1, 0, __LINE__);
  check_op(x, OP_SUM, 0, 0, __LINE__);
  rel(x);
  x = make(200000, small_ints, b, 2, CT_FLOAT64, dev);
  check_op(x, OP_SUM, 1, 0, __LINE__);
  check_op(x, OP_MAX, 1, 0, __LINE__);
  check_op(x, OP_LSE, 1, 1e-12, __LINE__);
  check_op(x, OP_SUM, 0, 0, __LINE__);
  rel(x);
  /* int32 and uint8 read as themselves on CUDA (cuda_ops::scan_takes: cummax/cummin of int32
   * with many ties, the last index of equal extremes; sums and products of int32 and uint8 into
   * int64, products wrapping): rows (dim 1), few long lines transposed to rows (dim 0), short
   * rows and lines */
  x = make(300000, with_ties, c, 2, CT_INT32, dev);
  for (int64_t dim = 0; dim < 2; ++dim)
    for (int op = OP_SUM; op <= OP_MIN; ++op) check_op(x, op, dim, 0, __LINE__);
  rel(x);
  x = make(60000, small_ints, a, 2, CT_INT32, dev);
  for (int64_t dim = 0; dim < 2; ++dim)
    for (int op = OP_SUM; op <= OP_MIN; ++op) check_op(x, op, dim, 0, __LINE__);
  rel(x);
  x = make(300000, with_ties, c, 2, CT_UINT8, dev);
  for (int64_t dim = 0; dim < 2; ++dim) {
    check_op(x, OP_SUM, dim, 0, __LINE__);
    check_op(x, OP_PROD, dim, 0, __LINE__);
  }
  rel(x);
  x = make(300000, small_ints, c, 2, CT_FLOAT32, dev); /* dim 0: 100 lines of 3000 */
  check_op(x, OP_SUM, 0, 0, __LINE__);
  check_op(x, OP_MIN, 0, 0, __LINE__);
  check_op(x, OP_LSE, 0, 1e-5, __LINE__);
  rel(x);
  x = make(120000, with_ties, d, 3, CT_FLOAT16, dev);
  for (int64_t dim = 0; dim < 3; ++dim) {
    check_op(x, OP_SUM, dim, 2e-3, __LINE__);
    check_op(x, OP_MAX, dim, 0, __LINE__);
  }
  rel(x);
}

/* Scans over the last dim (the CPU's per-row loop) with rows split over threads: 40 rows of
 * 1000 are two chunks of 32 rows at 4 threads. */
DEVICE_TEST(rows_over_threads) {
  int32_t threads = 0;
  OK(ct_get_num_threads(&threads));
  OK(ct_set_num_threads(4));
  int64_t sz[] = {40, 1000};
  ct_tensor x = make(40000, small_ints, sz, 2, CT_INT64, dev);
  check_op(x, OP_SUM, 1, 0, __LINE__);
  check_op(x, OP_PROD, -1, 0, __LINE__);
  rel(x);
  x = make(40000, near_one, sz, 2, CT_FLOAT32, dev);
  check_op(x, OP_SUM, 1, 1e-6, __LINE__);
  check_op(x, OP_PROD, 1, 1e-5, __LINE__);
  check_op(x, OP_LSE, 1, 1e-6, __LINE__);
  rel(x);
  x = make(40000, with_ties, sz, 2, CT_FLOAT16, dev);
  check_op(x, OP_SUM, 1, 2e-3, __LINE__);
  check_op(x, OP_LSE, 1, 2e-3, __LINE__);
  rel(x);
  x = make(40000, near_one, sz, 2, CT_FLOAT64, dev);
  check_op(x, OP_PROD, 1, 1e-12, __LINE__);
  rel(x);
  OK(ct_set_num_threads(threads));
}

static const test_case tests[] = {
    TEST_CASE(cumsum_values_cpu),       TEST_CASE(cumsum_values_cuda),
    TEST_CASE(cumprod_values_cpu),      TEST_CASE(cumprod_values_cuda),
    TEST_CASE(cummax_cummin_values_cpu), TEST_CASE(cummax_cummin_values_cuda),
    TEST_CASE(logcumsumexp_values_cpu), TEST_CASE(logcumsumexp_values_cuda),
    TEST_CASE(integer_wraparound_cpu),  TEST_CASE(integer_wraparound_cuda),
    TEST_CASE(dtype_grid_cpu),          TEST_CASE(dtype_grid_cuda),
    TEST_CASE(errors_cpu),              TEST_CASE(errors_cuda),
    TEST_CASE(layouts_cpu),             TEST_CASE(layouts_cuda),
    TEST_CASE(zero_dim_and_empty_cpu),  TEST_CASE(zero_dim_and_empty_cuda),
    TEST_CASE(long_rows_cpu),           TEST_CASE(long_rows_cuda),
    TEST_CASE(many_short_rows_cpu),     TEST_CASE(many_short_rows_cuda),
    TEST_CASE(rows_over_threads_cpu),   TEST_CASE(rows_over_threads_cuda),
};

int main(void) { return RUN_TESTS(tests); }
