/* Row functions (ctorch.h section 32) on every device against references computed here in
 * double precision from the inputs' own (rounded) values: softmax, log_softmax, logsumexp,
 * var, std, var_mean, std_mean, matrix_norm and layer_norm over dims, layouts (transposed,
 * sliced, permuted, expanded, 0-dim, empty, rows of 1, long rows), dtypes and special values,
 * and PyTorch's messages for bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

static const ct_dtype FLOATS[] = {CT_FLOAT64, CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16};

/* the devices every case runs on: the CPU, and CUDA device 0 when there is one */
static int ndevices(void) { return g_cuda ? 2 : 1; }
static ct_device_type device_at(int i) { return i == 0 ? CT_CPU : CT_CUDA; }

/* t on dev (a new reference; t itself is released) */
static ct_tensor on(ct_tensor t, ct_device_type dev) {
  if (dev == CT_CPU) return t;
  ct_tensor out = NULL;
  OK(ct_tensor_to(t, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(t);
  return out;
}

static double sig(int64_t i, int salt) { return 2.0 * sin(0.37 * (double)i + salt) + 0.5 * cos(1.3 * (double)i * salt); }

/* a contiguous tensor of shape sizes on dev holding sig(i, salt) in dtype */
static ct_tensor sample(const int64_t* sizes, int nd, ct_dtype dtype, int salt, ct_device_type dev) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  double* v = malloc((size_t)(n > 0 ? n : 1) * 8);
  for (int64_t i = 0; i < n; ++i) v[i] = sig(i, salt);
  ct_tensor t = from_f64(v, n, sizes, nd, dtype);
  free(v);
  return on(t, dev);
}

/* the logical (row-major) values of t as doubles; *n gets the count; the shape into sz/nd */
static double* values(ct_tensor t, int64_t* n, int64_t* sz, int32_t* nd) {
  ct_tensor c = NULL;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT64, 0, 1, &c));
  OK(ct_tensor_numel(c, n));
  if (sz) OK(ct_tensor_sizes(c, sz, 16, nd));
  double* v = malloc((size_t)(*n > 0 ? *n : 1) * 8);
  OK(ct_tensor_copy_to_buffer(c, v, *n * 8));
  rel(c);
  return v;
}

static double tol_of(ct_dtype d) {
  switch (d) {
    case CT_FLOAT64: return 1e-12;
    case CT_FLOAT32: return 3e-6;
    case CT_FLOAT16: return 2e-3;
    default: return 1.6e-2;
  }
}

/* got matches want within tol (relative to 1 + |want|); NaN matches NaN, inf the same inf */
static int close_to(double got, double want, double tol) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  return fabs(got - want) <= tol * (1 + fabs(want));
}

static void expect_close_(ct_tensor t, const double* want, int64_t n, double tol, const char* what, int line) {
  int64_t got_n = 0;
  double* got = values(t, &got_n, NULL, NULL);
  if (got_n != n) {
    FAILF("line %d: %s has %lld elements, expected %lld", line, what, (long long)got_n, (long long)n);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (!close_to(got[i], want[i], tol)) {
        FAILF("line %d: %s[%lld] = %.17g, expected %.17g", line, what, (long long)i, got[i], want[i]);
        break;
      }
    }
  }
  free(got);
}
#define EXPECT_CLOSE(t, want, n, tol) expect_close_((t), (want), (n), (tol), #t, __LINE__)

/* ---- references, over row-major values x of shape sz[0..nd) */

/* softmax / log_softmax along dim */
static void ref_softmax(const double* x, const int64_t* sz, int nd, int dim, int lg, double* out) {
  int64_t outer = 1, inner = 1, len = nd ? sz[dim] : 1;
  for (int d = 0; d < dim; ++d) outer *= sz[d];
  for (int d = dim + 1; d < nd; ++d) inner *= sz[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const double* r = x + o * len * inner + i;
      double m = -INFINITY, s = 0;
      for (int64_t k = 0; k < len; ++k) m = (isnan(r[k * inner]) || r[k * inner] > m) ? r[k * inner] : m;
      for (int64_t k = 0; k < len; ++k) s += exp(r[k * inner] - m);
      for (int64_t k = 0; k < len; ++k) {
        double z = r[k * inner] - m;
        out[o * len * inner + k * inner + i] = lg ? z - log(s) : exp(z) / s;
      }
    }
  }
}

/* the output index of element i when the dims in mask are reduced */
static int64_t out_index(int64_t i, const int64_t* sz, int nd, const int* mask) {
  int64_t o = 0, mul = 1;
  for (int d = nd - 1; d >= 0; --d) {
    int64_t c = i % sz[d];
    i /= sz[d];
    if (!mask[d]) o += c * mul, mul *= sz[d];
  }
  return o;
}

/* what: 0 var, 1 std, 2 mean, 3 logsumexp; over the dims in mask; returns the output count */
static int64_t ref_reduce(const double* x, const int64_t* sz, int nd, const int* mask, int what, double corr,
                          double* out) {
  int64_t n = 1, no = 1, r = 1;
  for (int d = 0; d < nd; ++d) n *= sz[d], no *= mask[d] ? 1 : sz[d], r *= mask[d] ? sz[d] : 1;
  double* a = calloc((size_t)no + 1, 8);
  double* b = calloc((size_t)no + 1, 8);
  for (int64_t o = 0; o < no; ++o) a[o] = what == 3 ? -INFINITY : 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = out_index(i, sz, nd, mask);
    if (what == 3) a[o] = (isnan(x[i]) || x[i] > a[o] || isnan(a[o])) ? (isnan(a[o]) ? a[o] : x[i]) : a[o];
    else a[o] += x[i];
  }
  if (what != 3) for (int64_t o = 0; o < no; ++o) a[o] /= (double)r;
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = out_index(i, sz, nd, mask);
    double m = what == 3 && isinf(a[o]) ? 0 : a[o];
    b[o] += what == 3 ? exp(x[i] - m) : (x[i] - a[o]) * (x[i] - a[o]);
  }
  for (int64_t o = 0; o < no; ++o) {
    double m = isinf(a[o]) ? 0 : a[o];
    double v = b[o] / fmax(0.0, (double)r - corr);
    out[o] = what == 0 ? v : what == 1 ? sqrt(v) : what == 2 ? a[o] : log(b[o]) + m;
  }
  free(a);
  free(b);
  return no;
}

/* ---- softmax / log_softmax */

static void check_softmax(ct_tensor t, int dim, ct_dtype dtype, int lg, double tol, int line) {
  int64_t n = 0, sz[16];
  int32_t nd = 0;
  double* x = values(t, &n, sz, &nd);
  double* want = malloc((size_t)(n > 0 ? n : 1) * 8);
  int wd = dim < 0 ? dim + (nd ? nd : 1) : dim;
  ref_softmax(x, sz, nd, wd, lg, want);
  ct_tensor y = NULL;
  OK((lg ? ct_log_softmax : ct_softmax)(t, dim, dtype, &y));
  if (y) {
    ct_dtype in = CT_DTYPE_UNDEFINED, got = CT_DTYPE_UNDEFINED;
    ct_tensor_dtype(t, &in);
    ct_tensor_dtype(y, &got);
    if (got != (dtype == CT_DTYPE_UNDEFINED ? in : dtype)) FAILF("line %d: result dtype %d", line, (int)got);
    expect_close_(y, want, n, tol, lg ? "log_softmax" : "softmax", line);
    int64_t ysz[16];
    int32_t ynd = -1;
    OK(ct_tensor_sizes(y, ysz, 16, &ynd));
    if (ynd != nd || memcmp(ysz, sz, (size_t)nd * 8) != 0) FAILF("line %d: result shape", line);
  }
  rel(y);
  free(x);
  free(want);
}

static void test_softmax_dims_dtypes(void) {
  const int64_t sz[3] = {3, 4, 5};
  for (int di = 0; di < ndevices(); ++di) {
    for (int k = 0; k < 4; ++k) {
      ct_tensor t = sample(sz, 3, FLOATS[k], 1, device_at(di));
      for (int dim = -3; dim < 3; ++dim) {
        for (int lg = 0; lg < 2; ++lg) check_softmax(t, dim, CT_DTYPE_UNDEFINED, lg, tol_of(FLOATS[k]), __LINE__);
      }
      /* dtype=: the input converted first, the result in dtype */
      check_softmax(t, 2, CT_FLOAT64, 0, tol_of(FLOATS[k] == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32), __LINE__);
      check_softmax(t, 1, CT_FLOAT32, 1, tol_of(CT_FLOAT32), __LINE__);
      rel(t);
    }
  }
}

static void test_softmax_layouts(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    const int64_t sz[3] = {4, 6, 5};
    ct_tensor t = sample(sz, 3, CT_FLOAT32, 2, dev), v = NULL;
    OK(ct_transpose(t, 0, 2, &v)); /* transposed: [5, 6, 4] */
    for (int dim = 0; dim < 3; ++dim) check_softmax(v, dim, CT_DTYPE_UNDEFINED, dim & 1, 3e-6, __LINE__);
    rel(v);
    OK(ct_slice(t, 1, 1, 6, 2, &v)); /* sliced: [4, 3, 5] with a step */
    for (int dim = 0; dim < 3; ++dim) check_softmax(v, dim, CT_DTYPE_UNDEFINED, 0, 3e-6, __LINE__);
    rel(v);
    const int64_t perm[3] = {1, 2, 0};
    OK(ct_permute(t, perm, 3, &v)); /* permuted: [6, 5, 4] */
    for (int dim = 0; dim < 3; ++dim) check_softmax(v, dim, CT_DTYPE_UNDEFINED, 1, 3e-6, __LINE__);
    rel(v);
    rel(t);
    /* expanded: a row repeated with stride 0 */
    const int64_t rs[2] = {1, 7}, es[2] = {3, 7};
    t = sample(rs, 2, CT_FLOAT64, 3, dev);
    OK(ct_expand(t, es, 2, &v));
    check_softmax(v, 1, CT_DTYPE_UNDEFINED, 0, 1e-12, __LINE__);
    check_softmax(v, 0, CT_DTYPE_UNDEFINED, 1, 1e-12, __LINE__);
    rel(v);
    rel(t);
    /* rows of 1, long rows (more than one block of threads), a long column */
    const int64_t one[2] = {5, 1}, lng[2] = {3, 5000}, col[2] = {3000, 2};
    t = sample(one, 2, CT_FLOAT32, 4, dev);
    check_softmax(t, 1, CT_DTYPE_UNDEFINED, 0, 0, __LINE__); /* exactly 1 */
    check_softmax(t, 1, CT_DTYPE_UNDEFINED, 1, 0, __LINE__); /* exactly 0 */
    rel(t);
    t = sample(lng, 2, CT_FLOAT32, 5, dev);
    check_softmax(t, 1, CT_DTYPE_UNDEFINED, 0, 1e-5, __LINE__);
    check_softmax(t, -1, CT_DTYPE_UNDEFINED, 1, 1e-5, __LINE__);
    rel(t);
    t = sample(col, 2, CT_FLOAT16, 6, dev);
    check_softmax(t, 0, CT_DTYPE_UNDEFINED, 0, 2e-3, __LINE__);
    check_softmax(t, 0, CT_FLOAT32, 1, 1e-5, __LINE__);
    rel(t);
    /* 0-dim: softmax 1, log_softmax 0, dims 0 and -1 */
    ct_tensor s = NULL, y = NULL;
    OK(ct_full(NULL, 0, 3.5, CT_FLOAT32, dev, dev == CT_CPU ? -1 : 0, &s));
    OK(ct_softmax(s, 0, CT_DTYPE_UNDEFINED, &y));
    EXPECT_SCALAR_SHAPE(y);
    EXPECT_CLOSE(y, ((double[]){1.0}), 1, 0);
    rel(y);
    OK(ct_log_softmax(s, -1, CT_DTYPE_UNDEFINED, &y));
    EXPECT_CLOSE(y, ((double[]){0.0}), 1, 0);
    rel(y);
    FAILS(ct_softmax(s, 1, CT_DTYPE_UNDEFINED, &y), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    rel(s);
    /* empty: the shape kept */
    const int64_t ez[2] = {0, 4};
    OK(ct_empty(ez, 2, CT_FLOAT32, dev, dev == CT_CPU ? -1 : 0, &s));
    OK(ct_log_softmax(s, 1, CT_DTYPE_UNDEFINED, &y));
    EXPECT_SHAPE(y, 0, 4);
    rel(y);
    OK(ct_softmax(s, 0, CT_FLOAT64, &y));
    EXPECT_SHAPE(y, 0, 4);
    EXPECT_DTYPE(y, CT_FLOAT64);
    rel(y);
    rel(s);
  }
}

static void test_softmax_special_values(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    const int64_t sz[2] = {4, 3};
    /* a row of -inf, a row with NaN, a row with +inf, a row with one -inf */
    double v[12] = {-INFINITY, -INFINITY, -INFINITY, 1, NAN, 2, 1, INFINITY, 0, -INFINITY, 0, 0};
    for (int k = 0; k < 4; ++k) {
      ct_tensor t = on(from_f64(v, 12, sz, 2, FLOATS[k]), dev), y = NULL;
      double l2 = log(0.5);
      OK(ct_softmax(t, 1, CT_DTYPE_UNDEFINED, &y));
      EXPECT_CLOSE(y, ((double[]){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0.5, 0.5}), 12, tol_of(FLOATS[k]));
      rel(y);
      OK(ct_log_softmax(t, 1, CT_DTYPE_UNDEFINED, &y));
      EXPECT_CLOSE(y, ((double[]){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, -INFINITY, l2, l2}), 12, tol_of(FLOATS[k]));
      rel(y);
      rel(t);
    }
  }
}

static void test_softmax_errors(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    ct_tensor t = on(I64(CT_INT64, 1, 2, 3), dev), b = on(I64(CT_BOOL, 1, 0), dev), c = NULL, y = NULL;
    FAILS(ct_softmax(t, 0, CT_DTYPE_UNDEFINED, &y), CT_ERR_DTYPE, "\"host_softmax\" not implemented for 'Long'");
    FAILS(ct_log_softmax(b, 0, CT_DTYPE_UNDEFINED, &y), CT_ERR_DTYPE, "\"host_softmax\" not implemented for 'Bool'");
    FAILS(ct_softmax(t, 0, CT_INT32, &y), CT_ERR_DTYPE, "\"host_softmax\" not implemented for 'Int'");
    FAILS(ct_softmax(t, 1, CT_FLOAT32, &y), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    OK(ct_tensor_to(t, dev, dev == CT_CPU ? -1 : 0, CT_COMPLEX64, 0, 0, &c));
    FAILS(ct_softmax(c, 0, CT_DTYPE_UNDEFINED, &y), CT_ERR_DTYPE, "not implemented for 'ComplexFloat'");
    FAILS(ct_softmax(t, 0, (ct_dtype)99, &y), CT_ERR_DTYPE, "");
    FAILS(ct_softmax(t, 0, CT_FLOAT32, NULL), CT_ERR_NULL_POINTER, "'out'");
    FAILS(ct_softmax(NULL, 0, CT_FLOAT32, &y), CT_ERR_INVALID_HANDLE, "");
    /* an integer input with a floating dtype= is converted first */
    OK(ct_softmax(t, 0, CT_FLOAT64, &y));
    double e = exp(1) + exp(2) + exp(3);
    EXPECT_CLOSE(y, ((double[]){exp(1) / e, exp(2) / e, exp(3) / e}), 3, 1e-14);
    rel(y);
    rel(c);
    rel(b);
    rel(t);
  }
}

/* ---- logsumexp, var, std, var_mean, std_mean */

/* what as ref_reduce; dims[0..nd) (nd 0 = all) */
static void check_reduce(ct_tensor t, const int64_t* dims, int ndims, int keepdim, int what, double corr, double tol,
                         int line) {
  int64_t n = 0, sz[16];
  int32_t nd = 0;
  double* x = values(t, &n, sz, &nd);
  int mask[16] = {0};
  for (int d = 0; d < nd; ++d) mask[d] = ndims == 0;
  for (int i = 0; i < ndims; ++i) mask[dims[i] < 0 ? dims[i] + nd : dims[i]] = 1;
  double* want = malloc((size_t)(n + 1) * 8);
  double* want_mean = malloc((size_t)(n + 1) * 8);
  int64_t no = ref_reduce(x, sz, nd, mask, what, corr, want);
  ref_reduce(x, sz, nd, mask, 2, corr, want_mean);
  ct_tensor y = NULL, m = NULL;
  if (what == 3) OK(ct_logsumexp(t, dims, ndims, keepdim, &y));
  else if (what == 0) OK(ct_var(t, dims, ndims, corr, keepdim, &y));
  else OK(ct_std(t, dims, ndims, corr, keepdim, &y));
  if (y) {
    expect_close_(y, want, no, tol, what == 3 ? "logsumexp" : what ? "std" : "var", line);
    int64_t ysz[16];
    int32_t ynd = -1, k = 0;
    OK(ct_tensor_sizes(y, ysz, 16, &ynd));
    for (int d = 0; d < nd; ++d) {
      if (!mask[d] || keepdim) {
        if (k >= ynd || ysz[k] != (mask[d] ? 1 : sz[d])) FAILF("line %d: result shape (dim %d)", line, d);
        ++k;
      }
    }
    if (k != ynd) FAILF("line %d: result has %d dims, expected %d", line, ynd, k);
  }
  rel(y);
  if (what != 3) {
    y = NULL;
    OK((what ? ct_std_mean : ct_var_mean)(t, dims, ndims, corr, keepdim, &y, &m));
    if (y) expect_close_(y, want, no, tol, "var_mean's first", line);
    if (m) expect_close_(m, want_mean, no, tol, "var_mean's mean", line);
    rel(y);
    rel(m);
  }
  free(x);
  free(want);
  free(want_mean);
}

static void test_logsumexp_var_std(void) {
  const int64_t sz[3] = {3, 4, 5};
  const int64_t d1[1] = {1}, d02[2] = {0, 2}, dm1[1] = {-1};
  for (int di = 0; di < ndevices(); ++di) {
    for (int k = 0; k < 4; ++k) {
      ct_tensor t = sample(sz, 3, FLOATS[k], 7, device_at(di)), v = NULL;
      double tol = tol_of(FLOATS[k]) * 2;
      for (int what = 0; what < 4; ++what) {
        if (what == 2) continue;
        for (int keep = 0; keep < 2; ++keep) {
          check_reduce(t, d1, 1, keep, what, 1, tol, __LINE__);
          check_reduce(t, d02, 2, keep, what, 0, tol, __LINE__);
          check_reduce(t, NULL, 0, keep, what, 2.5, tol, __LINE__);
          check_reduce(t, dm1, 1, keep, what, 1, tol, __LINE__);
        }
      }
      OK(ct_transpose(t, 0, 2, &v));
      for (int what = 0; what < 4; ++what) {
        if (what != 2) check_reduce(v, d1, 1, 0, what, 1, tol, __LINE__), check_reduce(v, d02, 2, 1, what, 0, tol, __LINE__);
      }
      rel(v);
      OK(ct_slice(t, 2, 0, 5, 2, &v));
      for (int what = 0; what < 4; ++what) {
        if (what != 2) check_reduce(v, dm1, 1, 0, what, 1, tol, __LINE__);
      }
      rel(v);
      rel(t);
    }
    /* long rows */
    const int64_t lz[2] = {2, 70000};
    ct_tensor t = sample(lz, 2, CT_FLOAT32, 8, device_at(di));
    for (int what = 0; what < 4; ++what) {
      if (what != 2) check_reduce(t, dm1, 1, 0, what, 1, 1e-5, __LINE__);
    }
    rel(t);
  }
}

static void test_reduce_edges(void) {
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    int32_t idx = dev == CT_CPU ? -1 : 0;
    const int64_t sz[2] = {3, 2}, d1[1] = {1}, d0[1] = {0};
    ct_tensor t = NULL, y = NULL, m = NULL;
    /* logsumexp: special rows, empty reductions, integer input */
    double v[6] = {-INFINITY, -INFINITY, INFINITY, 1, NAN, 1};
    t = on(from_f64(v, 6, sz, 2, CT_FLOAT32), dev);
    OK(ct_logsumexp(t, d1, 1, 0, &y));
    EXPECT_CLOSE(y, ((double[]){-INFINITY, INFINITY, NAN}), 3, 0);
    rel(y);
    rel(t);
    const int64_t ez[2] = {0, 3};
    OK(ct_empty(ez, 2, CT_FLOAT32, dev, idx, &t));
    OK(ct_logsumexp(t, d0, 1, 1, &y));
    EXPECT_SHAPE(y, 1, 3);
    EXPECT_CLOSE(y, ((double[]){-INFINITY, -INFINITY, -INFINITY}), 3, 0);
    rel(y);
    OK(ct_logsumexp(t, d1, 1, 0, &y));
    EXPECT_SHAPE(y, 0);
    rel(y);
    /* var of an empty reduction: 0 / 0 */
    OK(ct_var(t, d0, 1, 1, 0, &y));
    EXPECT_CLOSE(y, ((double[]){NAN, NAN, NAN}), 3, 0);
    rel(y);
    rel(t);
    t = on(I64(CT_INT64, 1, 2, 3), dev);
    OK(ct_logsumexp(t, NULL, 0, 0, &y));
    EXPECT_DTYPE(y, CT_FLOAT32);
    EXPECT_SCALAR_SHAPE(y);
    EXPECT_CLOSE(y, ((double[]){log(exp(1) + exp(2) + exp(3))}), 1, 1e-6);
    rel(y);
    FAILS(ct_var(t, NULL, 0, 1, 0, &y), CT_ERR_DTYPE, "std and var only support floating point and complex dtypes");
    FAILS(ct_std_mean(t, NULL, 0, 1, 0, &y, &m), CT_ERR_DTYPE, "std and var only support floating point and complex dtypes");
    rel(t);
    t = on(I64(CT_BOOL, 1, 0), dev);
    FAILS(ct_std(t, NULL, 0, 1, 0, &y), CT_ERR_DTYPE, "std and var only support floating point and complex dtypes");
    rel(t);
    /* correction >= N: inf (x / 0) and NaN (0 / 0) */
    t = on(F64(CT_FLOAT64, 1, 3), dev);
    OK(ct_var(t, NULL, 0, 2, 0, &y));
    EXPECT_CLOSE(y, ((double[]){INFINITY}), 1, 0);
    rel(y);
    OK(ct_std(t, NULL, 0, 3, 0, &y));
    EXPECT_CLOSE(y, ((double[]){INFINITY}), 1, 0);
    rel(y);
    OK(ct_var(t, NULL, 0, 0, 0, &y));
    EXPECT_CLOSE(y, ((double[]){1.0}), 1, 0);
    rel(y);
    rel(t);
    OK(ct_full(NULL, 0, 4.0, CT_FLOAT32, dev, idx, &t)); /* 0-dim: N = 1 */
    OK(ct_var_mean(t, NULL, 0, 1, 0, &y, &m));
    EXPECT_SCALAR_SHAPE(y);
    EXPECT_CLOSE(y, ((double[]){NAN}), 1, 0);
    EXPECT_CLOSE(m, ((double[]){4.0}), 1, 0);
    rel(y);
    rel(m);
    OK(ct_std(t, d0, 1, 0, 1, &y));
    EXPECT_CLOSE(y, ((double[]){0.0}), 1, 0);
    rel(y);
    rel(t);
    /* complex: |x - mean|^2, a real result; the mean complex. x = [1+1i, 3-1i]: mean 2, var
     * (2 + 2) / 1 = 4 */
    const double cv[4] = {1, 1, 3, -1};
    const int64_t two = 2;
    OK(ct_from_buffer(cv, 32, &two, 1, CT_COMPLEX128, CT_CPU, -1, &t));
    t = on(t, dev);
    OK(ct_var_mean(t, NULL, 0, 1, 0, &y, &m));
    EXPECT_DTYPE(y, CT_FLOAT64);
    EXPECT_DTYPE(m, CT_COMPLEX128);
    EXPECT_CLOSE(y, ((double[]){4.0}), 1, 1e-15);
    rel(y);
    rel(m);
    OK(ct_std(t, NULL, 0, 0, 0, &y));
    EXPECT_CLOSE(y, ((double[]){sqrt(2.0)}), 1, 1e-15);
    rel(y);
    ct_tensor c64 = NULL;
    OK(ct_tensor_to(t, dev, idx, CT_COMPLEX64, 0, 0, &c64));
    OK(ct_var(c64, NULL, 0, 1, 0, &y));
    EXPECT_DTYPE(y, CT_FLOAT32);
    EXPECT_CLOSE(y, ((double[]){4.0}), 1, 1e-6);
    rel(y);
    FAILS(ct_logsumexp(c64, NULL, 0, 0, &y), CT_ERR_NOT_SUPPORTED, "complex");
    rel(c64);
    rel(t);
    /* dims */
    t = sample(sz, 2, CT_FLOAT32, 1, dev);
    const int64_t bad[1] = {2}, twice[2] = {1, -1};
    FAILS(ct_var(t, bad, 1, 1, 0, &y), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    FAILS(ct_logsumexp(t, twice, 2, 0, &y), CT_ERR_ARGUMENT, "dim 1 appears multiple times in the list of dims");
    FAILS(ct_var_mean(t, NULL, 0, 1, 0, NULL, &m), CT_ERR_NULL_POINTER, "var_out");
    FAILS(ct_std_mean(t, NULL, 0, 1, 0, &y, NULL), CT_ERR_NULL_POINTER, "mean_out");
    FAILS(ct_var(t, NULL, -1, 1, 0, &y), CT_ERR_ARGUMENT, "");
    rel(t);
  }
}

/* ---- matrix_norm */

static void test_matrix_norm(void) {
  /* two 2x3 matrices: A0 = [[1, -2, 3], [-4, 5, -6]], A1 = [[0, 1, 0], [2, 0, -1]] */
  const double a[12] = {1, -2, 3, -4, 5, -6, 0, 1, 0, 2, 0, -1};
  const int64_t sz[3] = {2, 2, 3};
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (int k = 0; k < 4; ++k) {
      ct_tensor t = on(from_f64(a, 12, sz, 3, FLOATS[k]), dev), y = NULL, v = NULL;
      double tol = tol_of(FLOATS[k]);
      /* column sums |.|: A0 5 7 9, A1 2 1 1; row sums: A0 6 15, A1 1 3 */
      OK(ct_matrix_norm(t, 1, -2, -1, 0, &y));
      EXPECT_SHAPE(y, 2);
      EXPECT_CLOSE(y, ((double[]){9, 2}), 2, tol);
      rel(y);
      OK(ct_matrix_norm(t, -1, 1, 2, 1, &y));
      EXPECT_SHAPE(y, 2, 1, 1);
      EXPECT_CLOSE(y, ((double[]){5, 1}), 2, tol);
      rel(y);
      OK(ct_matrix_norm(t, INFINITY, 1, 2, 0, &y));
      EXPECT_CLOSE(y, ((double[]){15, 3}), 2, tol);
      rel(y);
      OK(ct_matrix_norm(t, -INFINITY, 1, 2, 0, &y));
      EXPECT_CLOSE(y, ((double[]){6, 1}), 2, tol);
      rel(y);
      /* dims swapped: the transposed matrices (1 <-> inf) */
      OK(ct_matrix_norm(t, 1, 2, 1, 0, &y));
      EXPECT_CLOSE(y, ((double[]){15, 3}), 2, tol);
      rel(y);
      OK(ct_matrix_norm_str(t, "fro", 1, 2, 0, &y));
      EXPECT_CLOSE(y, ((double[]){sqrt(91.0), sqrt(6.0)}), 2, tol);
      rel(y);
      /* over dims 0 and 2: matrices [[1, -2, 3], [0, 1, 0]] and [[-4, 5, -6], [2, 0, -1]] */
      OK(ct_matrix_norm(t, 1, 0, 2, 1, &y));
      EXPECT_SHAPE(y, 1, 2, 1);
      EXPECT_CLOSE(y, ((double[]){3, 7}), 2, tol);
      rel(y);
      OK(ct_transpose(t, 1, 2, &v));
      OK(ct_matrix_norm(v, INFINITY, 1, 2, 0, &y));
      EXPECT_CLOSE(y, ((double[]){9, 2}), 2, tol);
      rel(y);
      rel(v);
      rel(t);
    }
    /* complex [[3+4i, 0], [i, 1]]: column sums of |.| 5 + 1 = 6 and 0 + 1 */
    const double cv[8] = {3, 4, 0, 0, 0, 1, 1, 0};
    const int64_t csz[2] = {2, 2};
    ct_tensor c = NULL, y = NULL;
    OK(ct_from_buffer(cv, 64, csz, 2, CT_COMPLEX128, CT_CPU, -1, &c));
    c = on(c, dev);
    OK(ct_matrix_norm(c, 1, 0, 1, 0, &y));
    EXPECT_DTYPE(y, CT_FLOAT64);
    EXPECT_CLOSE(y, ((double[]){6}), 1, 1e-15);
    rel(y);
    OK(ct_matrix_norm_str(c, "fro", 0, 1, 0, &y));
    EXPECT_CLOSE(y, ((double[]){sqrt(27.0)}), 1, 1e-15);
    rel(y);
    /* errors */
    FAILS(ct_matrix_norm(c, 2, 0, 1, 0, &y), CT_ERR_NOT_SUPPORTED, "singular values");
    FAILS(ct_matrix_norm(c, -2, 0, 1, 0, &y), CT_ERR_NOT_SUPPORTED, "singular values");
    FAILS(ct_matrix_norm_str(c, "nuc", 0, 1, 0, &y), CT_ERR_NOT_SUPPORTED, "singular values");
    FAILS(ct_matrix_norm(c, 3, 0, 1, 0, &y), CT_ERR_ARGUMENT, "linalg.matrix_norm: Order 3 not supported.");
    FAILS(ct_matrix_norm_str(c, "abc", 0, 1, 0, &y), CT_ERR_ARGUMENT, "linalg.matrix_norm: Order abc not supported.");
    FAILS(ct_matrix_norm_str(c, NULL, 0, 1, 0, &y), CT_ERR_NULL_POINTER, "'ord'");
    FAILS(ct_matrix_norm(c, 1, 1, -1, 0, &y), CT_ERR_ARGUMENT, "linalg.matrix_norm: dims must be different. Got (1, 1)");
    FAILS(ct_matrix_norm(c, 1, 0, 2, 0, &y), CT_ERR_INDEX, "Dimension out of range");
    rel(c);
    c = on(F64(CT_FLOAT32, 1, 2), dev);
    FAILS(ct_matrix_norm(c, 1, 0, 1, 0, &y), CT_ERR_SHAPE, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
    rel(c);
    c = on(from_i64((const int64_t[]){1, 2, 3, 4}, 4, csz, 2, CT_INT64), dev);
    FAILS(ct_matrix_norm_str(c, "fro", 0, 1, 0, &y), CT_ERR_DTYPE,
          "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Long");
    rel(c);
  }
}

/* ---- layer_norm */

/* reference over the last `nn` dims of x (n values, rows of length len) */
static void ref_layer_norm(const double* x, int64_t n, int64_t len, const double* w, const double* b, double eps,
                           double* out) {
  for (int64_t r = 0; r * len < n; ++r) {
    const double* row = x + r * len;
    double m = 0, v = 0;
    for (int64_t i = 0; i < len; ++i) m += row[i];
    m /= (double)len;
    for (int64_t i = 0; i < len; ++i) v += (row[i] - m) * (row[i] - m);
    v /= (double)len;
    for (int64_t i = 0; i < len; ++i) {
      double y = (row[i] - m) / sqrt(v + eps);
      out[r * len + i] = y * (w ? w[i] : 1) + (b ? b[i] : 0);
    }
  }
}

static void check_layer_norm(ct_tensor t, const int64_t* ns, int nn, ct_tensor w, ct_tensor b, double eps,
                             double tol, int line) {
  int64_t n = 0, wn = 0, len = 1;
  double* x = values(t, &n, NULL, NULL);
  double* wv = w ? values(w, &wn, NULL, NULL) : NULL;
  double* bv = b ? values(b, &wn, NULL, NULL) : NULL;
  for (int i = 0; i < nn; ++i) len *= ns[i];
  double* want = malloc((size_t)(n + 1) * 8);
  ref_layer_norm(x, n, len, wv, bv, eps, want);
  ct_tensor y = NULL;
  OK(ct_layer_norm(t, ns, nn, w, b, eps, &y));
  if (y) {
    ct_dtype in = CT_DTYPE_UNDEFINED, got = CT_DTYPE_UNDEFINED;
    ct_tensor_dtype(t, &in);
    ct_tensor_dtype(y, &got);
    if (in != got) FAILF("line %d: layer_norm's dtype %d, expected %d", line, (int)got, (int)in);
    expect_close_(y, want, n, tol, "layer_norm", line);
  }
  rel(y);
  free(x);
  free(wv);
  free(bv);
  free(want);
}

static void test_layer_norm(void) {
  const int64_t sz[3] = {2, 3, 4}, n1[1] = {4}, n2[2] = {3, 4};
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (int k = 0; k < 4; ++k) {
      ct_dtype dt = FLOATS[k];
      double tol = tol_of(dt) * 4;
      ct_tensor t = sample(sz, 3, dt, 9, dev), w1 = sample(n1, 1, dt, 10, dev), b1 = sample(n1, 1, dt, 11, dev);
      ct_tensor w2 = sample(n2, 2, dt, 12, dev), b2 = sample(n2, 2, dt, 13, dev), v = NULL;
      check_layer_norm(t, n1, 1, NULL, NULL, 1e-5, tol, __LINE__);
      check_layer_norm(t, n1, 1, w1, b1, 1e-5, tol, __LINE__);
      check_layer_norm(t, n1, 1, w1, NULL, 0.5, tol, __LINE__);
      check_layer_norm(t, n1, 1, NULL, b1, 1e-5, tol, __LINE__);
      check_layer_norm(t, n2, 2, w2, b2, 1e-5, tol, __LINE__);
      check_layer_norm(t, sz, 3, NULL, NULL, 1e-5, tol, __LINE__);
      const int64_t perm[3] = {1, 2, 0}, n3[1] = {2};
      OK(ct_permute(t, perm, 3, &v)); /* [3, 4, 2] */
      check_layer_norm(v, n3, 1, NULL, NULL, 1e-5, tol, __LINE__);
      rel(v);
      rel(t);
      rel(w1);
      rel(b1);
      rel(w2);
      rel(b2);
    }
    /* a long row; float16 inputs with float32 weights */
    const int64_t lz[2] = {3, 6000}, ln[1] = {6000};
    ct_tensor t = sample(lz, 2, CT_FLOAT32, 14, dev), w = sample(ln, 1, CT_FLOAT32, 15, dev), y = NULL;
    check_layer_norm(t, ln, 1, w, NULL, 1e-5, 1e-5, __LINE__);
    rel(t);
    t = sample(lz, 2, CT_FLOAT16, 14, dev);
    check_layer_norm(t, ln, 1, w, w, 1e-5, 4e-3, __LINE__);
    /* a constant row: (x - mean) = 0, y = bias */
    ct_tensor c = NULL;
    OK(ct_full(lz, 2, 7.0, CT_FLOAT32, dev, dev == CT_CPU ? -1 : 0, &c));
    check_layer_norm(c, ln, 1, NULL, w, 1e-5, 0, __LINE__);
    rel(c);
    /* empty */
    const int64_t ez[2] = {0, 6000};
    OK(ct_empty(ez, 2, CT_FLOAT32, dev, dev == CT_CPU ? -1 : 0, &c));
    OK(ct_layer_norm(c, ln, 1, w, w, 1e-5, &y));
    EXPECT_SHAPE(y, 0, 6000);
    rel(y);
    rel(c);
    /* errors, PyTorch's messages */
    const int64_t bad[1] = {5}, n23[2] = {2, 6000};
    FAILS(ct_layer_norm(t, ln, 0, NULL, NULL, 1e-5, &y), CT_ERR_ARGUMENT,
          "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
          "normalized_shape = []");
    FAILS(ct_layer_norm(t, bad, 1, NULL, NULL, 1e-5, &y), CT_ERR_SHAPE,
          "Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[3, 6000]");
    FAILS(ct_layer_norm(t, n23, 2, NULL, NULL, 1e-5, &y), CT_ERR_SHAPE,
          "Given normalized_shape=[2, 6000], expected input with shape [*, 2, 6000], but got input of size[3, 6000]");
    FAILS(ct_layer_norm(t, lz, 2, w, NULL, 1e-5, &y), CT_ERR_SHAPE,
          "Expected weight to be of same shape as normalized_shape, but got weight of shape [6000] and normalized_shape "
          "= [3, 6000]");
    FAILS(ct_layer_norm(t, lz, 2, NULL, w, 1e-5, &y), CT_ERR_SHAPE,
          "Expected bias to be of same shape as normalized_shape, but got bias of shape [6000] and normalized_shape = "
          "[3, 6000]");
    FAILS(ct_layer_norm(t, NULL, 1, NULL, NULL, 1e-5, &y), CT_ERR_NULL_POINTER, "normalized_shape");
    FAILS(ct_layer_norm(t, ln, 1, NULL, NULL, 1e-5, NULL), CT_ERR_NULL_POINTER, "'out'");
    rel(t);
    t = on(from_i64((const int64_t[]){1, 2, 3, 4}, 4, (const int64_t[]){1, 4}, 2, CT_INT64), dev);
    FAILS(ct_layer_norm(t, (const int64_t[]){4}, 1, NULL, NULL, 1e-5, &y), CT_ERR_DTYPE,
          "\"LayerNormKernelImpl\" not implemented for 'Long'");
    rel(t);
    if (dev == CT_CUDA) { /* weight on another device */
      t = sample(lz, 2, CT_FLOAT32, 1, CT_CUDA);
      ct_tensor wc = sample(ln, 1, CT_FLOAT32, 1, CT_CPU);
      FAILS(ct_layer_norm(t, ln, 1, wc, NULL, 1e-5, &y), CT_ERR_DEVICE, "");
      rel(wc);
      rel(t);
    }
    rel(w);
  }
}

/* The CPU row kernels split rows over threads (above their grain of 32768 elements: 70 rows of
 * 1024 are three chunks of 32 rows at 4 threads), softmax over a dim other than the last in
 * blocks of 64 columns (1024 columns: 16 blocks; 130: two full blocks and a partial one), and
 * non-contiguous inputs (copied first); values against the double references. */
static void test_rows_over_threads(void) {
  int32_t threads = 0;
  OK(ct_get_num_threads(&threads));
  OK(ct_set_num_threads(4));
  const int64_t rs[2] = {70, 1024}, ln[1] = {1024}, cs[3] = {3, 50, 130};
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (int k = 0; k < 4; ++k) {
      ct_dtype dt = FLOATS[k];
      ct_tensor t = sample(rs, 2, dt, 21, dev), w = sample(ln, 1, dt, 22, dev), b = sample(ln, 1, dt, 23, dev);
      ct_tensor v = NULL;
      for (int lg = 0; lg < 2; ++lg) {
        check_softmax(t, 1, CT_DTYPE_UNDEFINED, lg, tol_of(dt), __LINE__);
        check_softmax(t, 0, CT_DTYPE_UNDEFINED, lg, tol_of(dt), __LINE__);
      }
      check_layer_norm(t, ln, 1, w, b, 1e-5, tol_of(dt) * 4, __LINE__);
      check_layer_norm(t, ln, 1, NULL, NULL, 1e-5, tol_of(dt) * 4, __LINE__);
      OK(ct_transpose(t, 0, 1, &v)); /* [1024, 70], not contiguous */
      check_softmax(v, 1, CT_DTYPE_UNDEFINED, 0, tol_of(dt), __LINE__);
      check_softmax(v, 0, CT_DTYPE_UNDEFINED, 1, tol_of(dt), __LINE__);
      rel(v);
      rel(t);
      rel(w);
      rel(b);
      t = sample(cs, 3, dt, 24, dev);
      check_softmax(t, 1, CT_DTYPE_UNDEFINED, 0, tol_of(dt), __LINE__);
      check_softmax(t, 0, CT_DTYPE_UNDEFINED, 1, tol_of(dt), __LINE__);
      rel(t);
    }
    /* the special values of test_softmax_special_values down columns (the column kernel) */
    const int64_t sz[2] = {4, 3};
    double x[12] = {-INFINITY, -INFINITY, -INFINITY, 1, NAN, 2, 1, INFINITY, 0, -INFINITY, 0, 0};
    for (int k = 0; k < 4; ++k) {
      ct_tensor t = on(from_f64(x, 12, sz, 2, FLOATS[k]), dev), tt = NULL, y = NULL;
      OK(ct_transpose(t, 0, 1, &tt)); /* [3, 4]: the rows of t are its columns */
      OK(ct_softmax(tt, 0, CT_DTYPE_UNDEFINED, &y));
      EXPECT_CLOSE(y, ((double[]){NAN, NAN, NAN, 0, NAN, NAN, NAN, 0.5, NAN, NAN, NAN, 0.5}), 12, tol_of(FLOATS[k]));
      rel(y);
      OK(ct_log_softmax(tt, 0, CT_DTYPE_UNDEFINED, &y));
      double l2 = log(0.5);
      EXPECT_CLOSE(y, ((double[]){NAN, NAN, NAN, -INFINITY, NAN, NAN, NAN, l2, NAN, NAN, NAN, l2}), 12,
                   tol_of(FLOATS[k]));
      rel(y);
      rel(tt);
      rel(t);
    }
  }
  OK(ct_set_num_threads(threads));
}

/* the CUDA results equal the CPU's within float rounding (the same inputs on both) */
/* The CUDA row kernels' classes (Note [Softmax of short rows], [Softmax rows in shared memory],
 * [logsumexp rows], [Welford by vectors], [Norms in double]) on every device: row lengths around
 * each threshold, the warp form for many medium rows, float64 rows in opted-in shared memory,
 * rows too long for shared memory, a data pointer off the 16-byte grid (no vectors), special
 * values in each form, and vector norms read in place from transposed, sliced and float16
 * inputs. */
static void test_row_kernel_classes(void) {
  const int64_t lens[] = {1, 5, 128, 256, 257, 1000, 1024, 1025, 12289, 30000};
  const int64_t dm1[1] = {-1};
  for (int di = 0; di < ndevices(); ++di) {
    ct_device_type dev = device_at(di);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li) {
      const int64_t sz[2] = {9, lens[li]};
      for (int k = 1; k < 3; ++k) { /* float32, float16 */
        ct_tensor t = sample(sz, 2, FLOATS[k], 11, dev);
        double tol = tol_of(FLOATS[k]) * (lens[li] > 1024 ? 4 : 2);
        check_softmax(t, 1, CT_DTYPE_UNDEFINED, 0, tol, __LINE__);
        check_softmax(t, 1, CT_DTYPE_UNDEFINED, 1, tol, __LINE__);
        check_reduce(t, dm1, 1, 0, 3, 1, tol, __LINE__);
        if (lens[li] > 1) check_reduce(t, dm1, 1, 1, 0, 1, tol * 4, __LINE__);
        rel(t);
      }
    }
    /* many medium rows (the warp form for rows of 257 to 1024) */
    const int64_t many[2] = {8200, 300};
    ct_tensor t = sample(many, 2, CT_FLOAT32, 12, dev);
    check_softmax(t, -1, CT_DTYPE_UNDEFINED, 0, 3e-6, __LINE__);
    check_reduce(t, dm1, 1, 0, 3, 1, 3e-6, __LINE__);
    check_reduce(t, dm1, 1, 0, 1, 0, 1e-5, __LINE__);
    rel(t);
    /* float64 rows of 8192 (64 KiB: beyond the default shared memory of a block) */
    const int64_t wide[2] = {3, 8192};
    t = sample(wide, 2, CT_FLOAT64, 13, dev);
    check_softmax(t, 1, CT_DTYPE_UNDEFINED, 0, 1e-12, __LINE__);
    check_softmax(t, 1, CT_DTYPE_UNDEFINED, 1, 1e-12, __LINE__);
    rel(t);
    /* a contiguous row whose data pointer is one element past an aligned one */
    const int64_t one[2] = {1, 1001};
    ct_tensor base = sample(one, 2, CT_FLOAT32, 14, dev), v = NULL;
    OK(ct_slice(base, 1, 1, 1001, 1, &v));
    check_softmax(v, 1, CT_DTYPE_UNDEFINED, 0, 3e-6, __LINE__);
    check_reduce(v, dm1, 1, 0, 3, 1, 3e-6, __LINE__);
    check_reduce(v, dm1, 1, 0, 0, 1, 1e-5, __LINE__);
    rel(v);
    rel(base);
    /* logsumexp of special rows, short (a warp a row) and long (a block a row): +inf, all -inf,
     * a NaN, a -inf among finite values */
    for (int len = 4; len <= 2000; len += 1996) {
      const int64_t ssz[2] = {4, len};
      double* x = malloc((size_t)(4 * len) * 8);
      for (int i = 0; i < 4 * len; ++i) x[i] = 0.25 * (i % 7);
      x[1] = INFINITY;
      for (int i = len; i < 2 * len; ++i) x[i] = -INFINITY;
      x[2 * len + 2] = NAN;
      x[3 * len + 1] = -INFINITY;
      ct_tensor sp = on(from_f64(x, 4 * len, ssz, 2, CT_FLOAT32), dev), y = NULL;
      OK(ct_logsumexp(sp, dm1, 1, 0, &y));
      double rest = 0;
      for (int i = 0; i < len; ++i)
        if (i != 1) rest += exp(0.25 * ((3 * len + i) % 7));
      EXPECT_CLOSE(y, ((double[]){INFINITY, -INFINITY, NAN, log(rest)}), 4, 3e-6);
      rel(y);
      rel(sp);
      free(x);
    }
    /* vector norms in place: "fro" of transposed, sliced and float16 matrices */
    const int64_t msz[3] = {3, 40, 50};
    for (int k = 0; k < 4; ++k) {
      ct_tensor m = sample(msz, 3, FLOATS[k], 15, dev), mt = NULL, ms = NULL;
      OK(ct_transpose(m, 1, 2, &mt));
      OK(ct_slice(m, 2, 0, 50, 2, &ms));
      ct_tensor views[3] = {m, mt, ms};
      for (int w = 0; w < 3; ++w) {
        int64_t n = 0, vsz[16];
        int32_t vnd = 0;
        double* x = values(views[w], &n, vsz, &vnd);
        double want[3] = {0, 0, 0};
        for (int64_t i = 0; i < n; ++i) want[i / (vsz[1] * vsz[2])] += x[i] * x[i];
        for (int b = 0; b < 3; ++b) want[b] = sqrt(want[b]);
        ct_tensor y = NULL;
        OK(ct_matrix_norm_str(views[w], "fro", -2, -1, 0, &y));
        expect_close_(y, want, 3, tol_of(FLOATS[k]), "fro norm", __LINE__ + w);
        rel(y);
        OK(ct_matrix_norm(views[w], INFINITY, 1, 2, 0, &y)); /* the largest row sum of |x| */
        double rows[3] = {0, 0, 0};
        for (int b = 0; b < 3; ++b)
          for (int64_t r = 0; r < vsz[1]; ++r) {
            double acc = 0;
            for (int64_t c = 0; c < vsz[2]; ++c) acc += fabs(x[(b * vsz[1] + r) * vsz[2] + c]);
            if (acc > rows[b]) rows[b] = acc;
          }
        expect_close_(y, rows, 3, tol_of(FLOATS[k]), "inf norm", __LINE__ + w);
        rel(y);
        free(x);
      }
      rel(ms);
      rel(mt);
      rel(m);
    }
  }
}

/* var / std read in place (Note [var in place]; on the CPU the same values by the composed
 * path): columns ([R, O] over dim 0, and its transposed view over dim 1) long enough to be split
 * over blocks and threads, as rows (the row kernel) and strided rows, with a NaN column, an
 * infinite one (its mean +inf: Note [Infinite means]), a constant one and one far from 0 (1e4 +
 * sig: the precision of the column kernel's shifted sums); references in double from the stored
 * values. */
static void test_var_in_place(void) {
  const int64_t R = 3000, O = 64;
  const int64_t sz[2] = {R, O}, d0[1] = {0}, d1[1] = {1};
  double* v = malloc((size_t)(R * O) * 8);
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t c = 0; c < O; ++c) {
      double x = sig(r * O + c, 3);
      if (c == 1) x += 1e4;
      if (c == 2) x = 7.25;
      if (c == 3 && r == 1234) x = NAN;
      if (c == 4 && r == 17) x = INFINITY;
      v[r * O + c] = x;
    }
  }
  for (int di = 0; di < ndevices(); ++di) {
    for (int k = 0; k < 4; ++k) {
      ct_tensor t = on(from_f64(v, R * O, sz, 2, FLOATS[k]), device_at(di)), tt = NULL;
      const double tol = tol_of(FLOATS[k]) * 4;
      check_reduce(t, d0, 1, 0, 0, 1, tol, __LINE__);
      check_reduce(t, d0, 1, 1, 1, 0, tol, __LINE__);
      OK(ct_transpose(t, 0, 1, &tt));
      check_reduce(tt, d1, 1, 0, 0, 1, tol, __LINE__);
      check_reduce(tt, d1, 1, 1, 1, 2, tol, __LINE__);
      /* the same columns as contiguous rows (the row kernel) and every other element of them
       * (the strided plan) */
      ct_tensor rows = NULL, half = NULL;
      OK(ct_contiguous(tt, &rows));
      check_reduce(rows, d1, 1, 0, 0, 1, tol, __LINE__);
      OK(ct_slice(rows, 1, 0, R, 2, &half));
      check_reduce(half, d1, 1, 1, 0, 1, tol, __LINE__);
      rel(half), rel(rows), rel(tt), rel(t);
    }
  }
  free(v);
}

static void test_cuda_matches_cpu(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t sz[2] = {33, 1025}, ln[1] = {1025}, d1[1] = {1};
  ct_tensor c = sample(sz, 2, CT_FLOAT32, 3, CT_CPU), g = sample(sz, 2, CT_FLOAT32, 3, CT_CUDA);
  ct_tensor rc[6] = {0}, rg[6] = {0};
  OK(ct_softmax(c, 1, CT_DTYPE_UNDEFINED, &rc[0]));
  OK(ct_softmax(g, 1, CT_DTYPE_UNDEFINED, &rg[0]));
  OK(ct_log_softmax(c, 0, CT_DTYPE_UNDEFINED, &rc[1]));
  OK(ct_log_softmax(g, 0, CT_DTYPE_UNDEFINED, &rg[1]));
  OK(ct_logsumexp(c, d1, 1, 0, &rc[2]));
  OK(ct_logsumexp(g, d1, 1, 0, &rg[2]));
  OK(ct_var(c, d1, 1, 1, 0, &rc[3]));
  OK(ct_var(g, d1, 1, 1, 0, &rg[3]));
  OK(ct_layer_norm(c, ln, 1, NULL, NULL, 1e-5, &rc[4]));
  OK(ct_layer_norm(g, ln, 1, NULL, NULL, 1e-5, &rg[4]));
  OK(ct_matrix_norm(c, 1, 0, 1, 0, &rc[5]));
  OK(ct_matrix_norm(g, 1, 0, 1, 0, &rg[5]));
  for (int i = 0; i < 6; ++i) {
    int64_t n = 0;
    double* want = values(rc[i], &n, NULL, NULL);
    expect_close_(rg[i], want, n, 1e-5, "cuda result", __LINE__ + i);
    free(want);
    rel(rc[i]);
    rel(rg[i]);
  }
  rel(c);
  rel(g);
}

TEST_MAIN(TEST_CASE(softmax_dims_dtypes), TEST_CASE(rows_over_threads), TEST_CASE(softmax_layouts), TEST_CASE(softmax_special_values),
          TEST_CASE(softmax_errors), TEST_CASE(logsumexp_var_std), TEST_CASE(reduce_edges), TEST_CASE(matrix_norm),
          TEST_CASE(layer_norm), TEST_CASE(row_kernel_classes), TEST_CASE(var_in_place), TEST_CASE(cuda_matches_cpu))
