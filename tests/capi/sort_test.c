/* Sorting and selection (section 29): sort, argsort, topk, kthvalue, unique, searchsorted on
 * every device against references computed here in double precision (qsort over (value,
 * position) with NaN greatest, a total order, so the reference is the stable sort), over dtypes,
 * layouts, special values, long rows and many short rows, the radix-select paths of topk and
 * kthvalue on CUDA (Note [CUDA select]), and PyTorch's messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

static const ct_dtype kDtypes[] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_INT32,
                                   CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
#define NDT ((int)(sizeof kDtypes / sizeof kDtypes[0]))

static int is_float_dt(ct_dtype d) { return d == CT_FLOAT16 || d == CT_BFLOAT16 || d == CT_FLOAT32 || d == CT_FLOAT64; }

/* the devices to run on: CPU, and CUDA 0 when present */
static int devices(ct_device_type* out) {
  out[0] = CT_CPU;
  if (g_cuda) out[1] = CT_CUDA;
  return g_cuda ? 2 : 1;
}

static ct_tensor on(ct_tensor host, ct_device_type dev) {
  if (dev == CT_CPU) return host;
  ct_tensor out = NULL;
  OK(ct_tensor_to(host, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(host);
  return out;
}

static ct_tensor make(const double* v, const int64_t* sizes, int nd, ct_dtype dt, ct_device_type dev) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  return on(from_f64(v, n, sizes, nd, dt), dev);
}

/* all elements (logical order) converted to `as` (8-byte float64 or int64) on the host; caller frees */
static void* copy_out(ct_tensor t, ct_dtype as, int64_t* n) {
  ct_tensor c = NULL;
  OK(ct_tensor_to(t, CT_CPU, -1, as, 0, 1, &c));
  OK(ct_tensor_numel(c, n));
  void* v = malloc((size_t)(*n > 0 ? *n : 1) * 8);
  OK(ct_tensor_copy_to_buffer(c, v, *n * 8));
  rel(c);
  return v;
}

static double* vals_of(ct_tensor t, int64_t* n) { return copy_out(t, CT_FLOAT64, n); }
static int64_t* ints_of(ct_tensor t, int64_t* n) { return copy_out(t, CT_INT64, n); }

/* ---- the reference: a stable sort of each lane along dim of a row-major array */
typedef struct {
  double v;
  int64_t i;
  int desc;
} item;

static int cmp_item(const void* pa, const void* pb) {
  const item* a = pa;
  const item* b = pb;
  int an = isnan(a->v), bn = isnan(b->v);
  int c = 0;
  if (an || bn) c = an - bn; /* NaN greatest */
  else c = (a->v > b->v) - (a->v < b->v); /* -0.0 == 0.0 */
  if (a->desc) c = -c;
  if (c) return c;
  return (a->i > b->i) - (a->i < b->i);
}

/* out_v/out_i: the first k of each lane (k == R: the whole sort), shaped like x with size k at dim */
static void ref_topk(const double* x, const int64_t* sizes, int nd, int dim, int desc, int64_t k, double* out_v,
                     int64_t* out_i) {
  int64_t outer = 1, inner = 1, R = nd ? sizes[dim] : 1;
  for (int d = 0; d < dim; ++d) outer *= sizes[d];
  for (int d = dim + 1; d < nd; ++d) inner *= sizes[d];
  item* it = malloc((size_t)(R > 0 ? R : 1) * sizeof(item));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      for (int64_t r = 0; r < R; ++r) it[r] = (item){x[(o * R + r) * inner + in], r, desc};
      qsort(it, (size_t)R, sizeof(item), cmp_item);
      for (int64_t j = 0; j < k; ++j) {
        out_v[(o * k + j) * inner + in] = it[j].v;
        out_i[(o * k + j) * inner + in] = it[j].i;
      }
    }
  free(it);
}

/* values equal as numbers, NaN == NaN, and the same sign of zero */
static int same_val(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

static void expect_arrays_(const double* gv, const int64_t* gi, const double* wv, const int64_t* wi, int64_t n,
                           const char* what, int line) {
  for (int64_t j = 0; j < n; ++j) {
    if (gv && !same_val(gv[j], wv[j])) {
      FAILF("line %d %s: value[%lld] = %.17g, expected %.17g", line, what, (long long)j, gv[j], wv[j]);
      return;
    }
    if (gi && gi[j] != wi[j]) {
      FAILF("line %d %s: index[%lld] = %lld, expected %lld", line, what, (long long)j, (long long)gi[j],
            (long long)wi[j]);
      return;
    }
  }
}
#define EXPECT_ARRAYS(gv, gi, wv, wi, n, what) expect_arrays_((gv), (gi), (wv), (wi), (n), (what), __LINE__)

/* ct_sort / ct_topk of t (logical values x, shape sizes) along dim against the reference */
static void check_sort(ct_tensor t, const double* x, const int64_t* sizes, int nd, int dim, int desc, const char* what) {
  int64_t n = 1, cnt;
  for (int d = 0; d < nd; ++d) n *= sizes[d];
  double* wv = malloc((size_t)(n ? n : 1) * 8);
  int64_t* wi = malloc((size_t)(n ? n : 1) * 8);
  ref_topk(x, sizes, nd, nd ? dim : 0, desc, nd ? sizes[dim] : 1, wv, wi);
  ct_tensor v = NULL, i = NULL, a = NULL;
  OK(ct_sort(t, dim, desc, 1, &v, &i));
  OK(ct_argsort(t, dim - nd, desc, 0, &a)); /* negative dim */
  if (v && i && a) {
    expect_shape_(v, sizes, nd, what, __LINE__);
    EXPECT_DTYPE(i, CT_INT64);
    double* gv = vals_of(v, &cnt);
    int64_t* gi = ints_of(i, &cnt);
    int64_t* ga = ints_of(a, &cnt);
    EXPECT_ARRAYS(gv, gi, wv, wi, n, what);
    EXPECT_ARRAYS(NULL, ga, NULL, wi, n, what);
    free(gv), free(gi), free(ga);
  }
  rel(v), rel(i), rel(a), free(wv), free(wi);
}

static double pattern(int64_t i, ct_dtype dt) {
  int64_t h = (i * 7919 + 13) % 23;
  if (dt == CT_BOOL) return (double)(h % 2);
  if (dt == CT_UINT8) return (double)h;
  return (double)(h - 11) / (is_float_dt(dt) ? 2.0 : 1.0);
}

static void test_sort_special_values(void) {
  ct_device_type devs[2];
  for (int di = 0, nd = devices(devs); di < nd; ++di) {
    const double x[] = {NAN, -INFINITY, 0.0, -0.0, INFINITY, -1.0, -NAN, 2.5};
    const int64_t n = 8;
    for (int k = 0; k < 4; ++k) {
      const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};
      ct_tensor t = make(x, &n, 1, dts[k], devs[di]);
      ct_tensor v, i;
      int64_t cnt;
      OK(ct_sort(t, 0, 0, 1, &v, &i));
      double* gv = vals_of(v, &cnt);
      int64_t* gi = ints_of(i, &cnt);
      const double wv[] = {-INFINITY, -1.0, 0.0, -0.0, 2.5, INFINITY, NAN, NAN};
      const int64_t wi[] = {1, 5, 2, 3, 7, 4, 0, 6};
      EXPECT_ARRAYS(gv, gi, wv, wi, 8, "ascending");
      free(gv), free(gi), rel(v), rel(i);
      OK(ct_sort(t, -1, 1, 1, &v, &i));
      gv = vals_of(v, &cnt);
      gi = ints_of(i, &cnt);
      const double dv[] = {NAN, NAN, INFINITY, 2.5, 0.0, -0.0, -1.0, -INFINITY};
      const int64_t dix[] = {0, 6, 4, 7, 2, 3, 5, 1};
      EXPECT_ARRAYS(gv, gi, dv, dix, 8, "descending");
      free(gv), free(gi), rel(v), rel(i), rel(t);
    }
  }
}

static void test_sort_dtypes(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di)
    for (int k = 0; k < NDT; ++k) {
      const int64_t sizes[] = {5, 9};
      double x[45];
      for (int j = 0; j < 45; ++j) x[j] = pattern(j, kDtypes[k]);
      ct_tensor t = make(x, sizes, 2, kDtypes[k], devs[di]);
      for (int dim = 0; dim < 2; ++dim)
        for (int desc = 0; desc < 2; ++desc) check_sort(t, x, sizes, 2, dim, desc, "dtype grid");
      ct_tensor v, i;
      OK(ct_sort(t, 1, 0, 0, &v, &i));
      EXPECT_DTYPE(v, kDtypes[k]);
      rel(v), rel(i), rel(t);
    }
}

/* transposed, sliced with a step, expanded, permuted 3-D, 0-dim and empty inputs */
static void test_sort_layouts(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    const int64_t s3[] = {3, 4, 5};
    double x[60];
    for (int j = 0; j < 60; ++j) x[j] = pattern(j, CT_FLOAT32);
    ct_tensor base = make(x, s3, 3, CT_FLOAT32, devs[di]);
    /* permuted (2, 0, 1): logical [5, 3, 4] */
    ct_tensor p;
    OK(ct_permute(base, (const int64_t[]){2, 0, 1}, 3, &p));
    double xp[60];
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 4; ++c) xp[(a * 3 + b) * 4 + c] = x[(b * 4 + c) * 5 + a];
    for (int dim = 0; dim < 3; ++dim)
      for (int desc = 0; desc < 2; ++desc) check_sort(p, xp, (const int64_t[]){5, 3, 4}, 3, dim, desc, "permuted");
    rel(p);
    /* transposed 2-D view of a [12, 5] reshape: logical [5, 12] */
    ct_tensor m, tt;
    OK(ct_reshape(base, (const int64_t[]){12, 5}, 2, &m));
    OK(ct_transpose(m, 0, 1, &tt));
    double xt[60];
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 12; ++b) xt[a * 12 + b] = x[b * 5 + a];
    for (int dim = 0; dim < 2; ++dim) check_sort(tt, xt, (const int64_t[]){5, 12}, 2, dim, 0, "transposed");
    /* sliced with step 3 along the columns: logical [12, 2] */
    ct_tensor sl;
    OK(ct_slice(m, 1, 0, 5, 3, &sl));
    double xs[24];
    for (int a = 0; a < 12; ++a)
      for (int b = 0; b < 2; ++b) xs[a * 2 + b] = x[a * 5 + b * 3];
    for (int dim = 0; dim < 2; ++dim) check_sort(sl, xs, (const int64_t[]){12, 2}, 2, dim, 1, "sliced");
    rel(m), rel(tt), rel(sl);
    /* expanded [4, 5] from a [1, 5] row: every row the same (ties across rows are separate lanes) */
    ct_tensor row, ex;
    OK(ct_slice(base, 0, 0, 1, 1, &row));
    ct_tensor r2;
    OK(ct_reshape(row, (const int64_t[]){4, 5}, 2, &r2)); /* [1,4,5] -> [4,5] */
    ct_tensor r1;
    OK(ct_slice(r2, 0, 0, 1, 1, &r1));
    OK(ct_expand(r1, (const int64_t[]){4, 5}, 2, &ex));
    double xe[20];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 5; ++b) xe[a * 5 + b] = x[b];
    for (int dim = 0; dim < 2; ++dim) check_sort(ex, xe, (const int64_t[]){4, 5}, 2, dim, 0, "expanded");
    rel(row), rel(r2), rel(r1), rel(ex), rel(base);
    /* 0-dim: dims 0 and -1; values the element, index 0 */
    ct_tensor z;
    OK(ct_full(NULL, 0, 2.5, CT_FLOAT32, devs[di], -1, &z));
    ct_tensor v, i;
    OK(ct_sort(z, -1, 0, 0, &v, &i));
    EXPECT_SCALAR_SHAPE(v);
    EXPECT_SCALAR_SHAPE(i);
    EXPECT_VALS(v, 0, 2.5);
    EXPECT_VALS(i, 0, 0);
    rel(v), rel(i);
    FAILS(ct_sort(z, 1, 0, 0, &v, &i), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    OK(ct_topk(z, 1, 0, 1, 1, &v, &i));
    EXPECT_SCALAR_SHAPE(v);
    EXPECT_VALS(v, 0, 2.5);
    rel(v), rel(i);
    OK(ct_kthvalue(z, 1, 0, 0, &v, &i));
    EXPECT_SCALAR_SHAPE(v);
    EXPECT_VALS(i, 0, 0);
    rel(v), rel(i), rel(z);
    /* empty: [0, 3] along both dims */
    ct_tensor e;
    OK(ct_empty((const int64_t[]){0, 3}, 2, CT_FLOAT32, devs[di], -1, &e));
    for (int dim = 0; dim < 2; ++dim) {
      OK(ct_sort(e, dim, 0, 0, &v, &i));
      EXPECT_SHAPE(v, 0, 3);
      EXPECT_SHAPE(i, 0, 3);
      rel(v), rel(i);
    }
    OK(ct_topk(e, 0, 0, 1, 1, &v, &i));
    EXPECT_SHAPE(v, 0, 3);
    rel(v), rel(i);
    FAILS(ct_kthvalue(e, 1, 0, 0, &v, &i), CT_ERR_INDEX, "kthvalue(): Expected reduction dim 0 to have non-zero size.");
    rel(e);
  }
}

/* one row over 2^20 elements with many ties (stability), and many short rows */
static void test_sort_large(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    const int64_t n = (1 << 20) + 37;
    double* x = malloc((size_t)n * 8);
    for (int64_t j = 0; j < n; ++j) x[j] = (double)((j * 2654435761LL) % 1000) - 500.0;
    x[5] = NAN, x[n - 1] = -0.0;
    ct_tensor t = make(x, &n, 1, CT_FLOAT32, devs[di]);
    check_sort(t, x, &n, 1, 0, 0, "long row");
    check_sort(t, x, &n, 1, 0, 1, "long row descending");
    rel(t);
    /* [2^16, 7] int16 rows, along the last dim and the first */
    const int64_t rows[] = {1 << 16, 7};
    for (int64_t j = 0; j < rows[0] * 7; ++j) x[j] = (double)((j * 40503) % 61) - 30;
    t = make(x, rows, 2, CT_INT16, devs[di]);
    check_sort(t, x, rows, 2, 1, 0, "many rows");
    check_sort(t, x, rows, 2, 0, 1, "long columns");
    rel(t);
    /* rows of each length class of the CUDA kernels (one block a row up to 128, 512, 2048, 4096
     * elements, 8192 for 1- and 2-byte keys; longer rows through the global passes) at their
     * bounds, with ties and NaN, in each key width (1- and 2-byte keys share a word with their
     * position there) */
    static const ct_dtype len_dts[] = {CT_FLOAT64, CT_FLOAT32, CT_FLOAT16, CT_INT8};
    enum { NLENS = 15 };
    const int64_t lens[NLENS] = {128, 129, 511, 512, 513, 1500, 2048, 2049, 4095, 4096, 4097, 5000, 8191, 8192, 8193};
    for (int li = 0; li < NLENS * 4; ++li) {
      const int64_t rs[] = {3, lens[li % NLENS]};
      for (int64_t j = 0; j < 3 * rs[1]; ++j) x[j] = (double)((j * 7919) % 97) / 8.0 - 6;
      x[rs[1] + 1] = NAN;
      if (len_dts[li / NLENS] == CT_INT8)
        for (int64_t j = 0; j < 3 * rs[1]; ++j) x[j] = (double)((j * 7919) % 251) - 125;
      t = make(x, rs, 2, len_dts[li / NLENS], devs[di]);
      check_sort(t, x, rs, 2, 1, 0, "row length classes");
      check_sort(t, x, rs, 2, 1, 1, "row length classes descending");
      rel(t);
    }
    free(x);
  }
}

/* Note [Sort's element kernels in groups]: one long row (the global passes) of each key width,
 * its length not a multiple of the group (4 elements), with -0.0
 * and NaN inside whole groups (their values come from the input, the others from the keys), and
 * the same row starting one element in (a view whose data is not aligned to a group: the
 * element-wise path) */
static void test_sort_long_row_groups(void) {
  ct_device_type devs[2];
  static const ct_dtype dts[] = {CT_FLOAT16, CT_BFLOAT16, CT_INT8, CT_UINT8, CT_FLOAT64, CT_INT64};
  const int64_t n = 9 * 8192 + 5;
  double* x = malloc((size_t)n * 8);
  for (int di = 0, ndev = devices(devs); di < ndev; ++di)
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
      const int fl = is_float_dt(dts[k]);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t h = (j * 2654435761LL) % 201;
        x[j] = dts[k] == CT_UINT8 ? (double)h : (double)(h - 100) / (fl ? 4.0 : 1.0);
      }
      if (fl) x[16] = -0.0, x[17] = 0.0, x[18] = NAN, x[40] = -NAN, x[n - 2] = -0.0;
      ct_tensor t = make(x, &n, 1, dts[k], devs[di]);
      check_sort(t, x, &n, 1, 0, 0, "long row groups");
      check_sort(t, x, &n, 1, 0, 1, "long row groups descending");
      ct_tensor off;
      const int64_t m = n - 1;
      OK(ct_slice(t, 0, 1, n, 1, &off));
      check_sort(off, x + 1, &m, 1, 0, 0, "long row one element in");
      rel(off), rel(t);
    }
  free(x);
}

static void test_topk(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    ct_tensor t = on(F64(CT_FLOAT32, 4, 1, NAN, 7, 1, -3, 7), devs[di]);
    ct_tensor v, i;
    OK(ct_topk(t, 3, 0, 1, 1, &v, &i));
    EXPECT_VALS(v, 0, NAN, 7, 7);
    EXPECT_VALS(i, 0, 2, 3, 6);
    rel(v), rel(i);
    OK(ct_topk(t, 3, -1, 0, 0, &v, &i));
    EXPECT_VALS(v, 0, -3, 1, 1);
    EXPECT_VALS(i, 0, 5, 1, 4);
    rel(v), rel(i);
    OK(ct_topk(t, 0, 0, 1, 1, &v, &i));
    EXPECT_SHAPE(v, 0);
    rel(v), rel(i);
    FAILS(ct_topk(t, 8, 0, 1, 1, &v, &i), CT_ERR_INDEX, "selected index k out of range");
    FAILS(ct_topk(t, -1, 0, 1, 1, &v, &i), CT_ERR_INDEX, "selected index k out of range");
    FAILS(ct_topk(t, 1, 1, 1, 1, &v, &i), CT_ERR_INDEX, "Dimension out of range");
    rel(t);
    /* dtype x dim grid against the reference */
    for (int k = 1; k < NDT; ++k) {
      const int64_t sizes[] = {6, 4, 9};
      double x[216];
      for (int j = 0; j < 216; ++j) x[j] = pattern(j * 5, kDtypes[k]);
      t = make(x, sizes, 3, kDtypes[k], devs[di]);
      for (int dim = 0; dim < 3; ++dim)
        for (int largest = 0; largest < 2; ++largest) {
          const int64_t kk = sizes[dim] / 2;
          double wv[216];
          int64_t wi[216], cnt;
          ref_topk(x, sizes, 3, dim, largest, kk, wv, wi);
          OK(ct_topk(t, kk, dim, largest, 1, &v, &i));
          int64_t ws[3] = {6, 4, 9};
          ws[dim] = kk;
          expect_shape_(v, ws, 3, "topk", __LINE__);
          EXPECT_DTYPE(v, kDtypes[k]);
          double* gv = vals_of(v, &cnt);
          int64_t* gi = ints_of(i, &cnt);
          EXPECT_ARRAYS(gv, gi, wv, wi, cnt, "topk grid");
          free(gv), free(gi), rel(v), rel(i);
        }
      rel(t);
    }
    /* bool and complex are errors, named by the device's kernel */
    t = on(F64(CT_BOOL, 1, 0), devs[di]);
    FAILS(ct_topk(t, 1, 0, 1, 1, &v, &i), CT_ERR_DTYPE,
          devs[di] == CT_CPU ? "\"topk_cpu\" not implemented for 'Bool'" : "\"topk_out_cuda\" not implemented for 'Bool'");
    FAILS(ct_kthvalue(t, 1, 0, 0, &v, &i), CT_ERR_DTYPE, "not implemented for 'Bool'");
    rel(t);
  }
}

/* Note [CUDA select]'s paths (topk and kthvalue of rows longer than 1024 elements select the
 * k-th key digit by digit, then sort only the k kept): a single row over several 16384-element
 * chunks, and many long rows (one chunk each, and along dim 0 through the rows copy), for every
 * key width (1, 2, 4, 8 bytes, signed, unsigned and floating), k = 1, in the middle, beyond the
 * block sort (k > 4096), n - 1 and n, both directions, with ties, NaN, +-inf and -0.0 / 0.0;
 * values and indices (the stable sort's first k, on every device) against the reference. */
static double select_val(int64_t i, ct_dtype dt) {
  int64_t h = (i * 7919 + 13) % 301;
  if (!is_float_dt(dt)) return (double)(dt == CT_UINT8 ? h % 200 : h % 200 - 100);
  if (i % 997 == 5) return NAN;
  if (i % 1009 == 7) return i % 2 ? INFINITY : -INFINITY;
  if (h == 150) return i % 2 ? -0.0 : 0.0;
  return (double)(h - 150) / 2.0;
}

static void check_topk_grid(ct_tensor t, const double* x, const int64_t* sizes, int nd, int dim, const int64_t* ks,
                            int nk, const char* what) {
  int64_t n = 1, cnt, R = sizes[dim];
  for (int d = 0; d < nd; ++d) n *= sizes[d];
  double* wv = malloc((size_t)n * 8);
  int64_t* wi = malloc((size_t)n * 8);
  int64_t ws[4];
  for (int largest = 0; largest < 2; ++largest) {
    ref_topk(x, sizes, nd, dim, largest, R, wv, wi); /* the whole stable sort */
    for (int j = 0; j < nk; ++j) {
      const int64_t k = ks[j];
      ct_tensor v = NULL, i = NULL;
      OK(ct_topk(t, k, dim, largest, 1, &v, &i));
      if (!v || !i) continue;
      for (int d = 0; d < nd; ++d) ws[d] = d == dim ? k : sizes[d];
      expect_shape_(v, ws, nd, what, __LINE__);
      double* gv = vals_of(v, &cnt);
      int64_t* gi = ints_of(i, &cnt);
      /* element (lane, j < k) of the result against element j of the lane's whole sort */
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < dim; ++d) outer *= sizes[d];
      for (int d = dim + 1; d < nd; ++d) inner *= sizes[d];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in)
          for (int64_t q = 0; q < k; ++q) {
            const int64_t g = (o * k + q) * inner + in, w = (o * R + q) * inner + in;
            if (!same_val(gv[g], wv[w]) || gi[g] != wi[w]) {
              FAILF("%s topk k=%lld largest=%d [%lld, %lld, %lld]: (%.17g, %lld), expected (%.17g, %lld)", what,
                    (long long)k, largest, (long long)o, (long long)q, (long long)in, gv[g], (long long)gi[g], wv[w],
                    (long long)wi[w]);
              o = outer, in = inner, q = k;
            }
          }
      free(gv), free(gi), rel(v), rel(i);
      if (largest) continue;
      /* kthvalue: element k - 1 of the ascending sort */
      OK(ct_kthvalue(t, k, dim, 0, &v, &i));
      if (!v || !i) continue;
      gv = vals_of(v, &cnt);
      gi = ints_of(i, &cnt);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
          const int64_t g = o * inner + in, w = (o * R + k - 1) * inner + in;
          if (!same_val(gv[g], wv[w]) || gi[g] != wi[w]) {
            FAILF("%s kthvalue k=%lld [%lld, %lld]: (%.17g, %lld), expected (%.17g, %lld)", what, (long long)k,
                  (long long)o, (long long)in, gv[g], (long long)gi[g], wv[w], (long long)wi[w]);
            o = outer, in = inner;
          }
        }
      free(gv), free(gi), rel(v), rel(i);
    }
  }
  free(wv), free(wi);
}

static void test_select_long_rows(void) {
  static const ct_dtype dts[] = {CT_UINT8, CT_INT8,  CT_INT16,   CT_FLOAT16, CT_BFLOAT16,
                                 CT_INT32, CT_FLOAT32, CT_INT64, CT_FLOAT64};
  ct_device_type devs[2];
  const int64_t n = 40000; /* three chunks of Note [CUDA select] */
  double* x = malloc((size_t)n * 8);
  for (int di = 0, ndev = devices(devs); di < ndev; ++di)
    for (int k = 0; k < (int)(sizeof dts / sizeof dts[0]); ++k) {
      for (int64_t j = 0; j < n; ++j) x[j] = select_val(j, dts[k]);
      ct_tensor t = make(x, &n, 1, dts[k], devs[di]);
      const int64_t ks[] = {1, 37, 20000, n - 1, n};
      check_topk_grid(t, x, &n, 1, 0, ks, 5, "single long row");
      rel(t);
      /* many long rows: [6, 3000] along dim 1, and [3000, 4] along dim 0 */
      const int64_t rows[] = {6, 3000}, cols[] = {3000, 4};
      const int64_t ks2[] = {1, 100, 2999, 3000};
      t = make(x, rows, 2, dts[k], devs[di]);
      check_topk_grid(t, x, rows, 2, 1, ks2, 4, "many long rows");
      rel(t);
      t = make(x, cols, 2, dts[k], devs[di]);
      check_topk_grid(t, x, cols, 2, 0, ks2, 4, "long columns");
      rel(t);
    }
  free(x);
}

/* Rows of the one-launch select of Note [CUDA select] (one block a row, the row's keys in shared
 * memory: topk of 1024 < R, kthvalue of 128 < R, up to 16384 elements and 64 KiB of keys) at its
 * bounds and just past them: R = 128 (kthvalue: whole-row sort) and 129, 1000 (kthvalue's select,
 * topk's whole-row sort), 1024 and 1025 (topk), 4096 and 4097 (the old bound), 8192 (float64/int64
 * keys of 64 KiB: opt-in shared memory) and 8193 (their chunked kernels), 11777 (4-byte keys past
 * the default 48 KiB: opt-in), 16384 (the longest) and 16385 (the chunked kernels, two chunks a
 * row), for every key width, with k = 1, 255, 256, 257 (the write pass's 256-element steps), 600
 * and 2100 (the block sort of the kept k past 512 and 2048), R - 1 and R (each at most R); then
 * rows where every element ties with the k-th (all equal, all NaN, zeros of both signs). */
static void test_select_medium_rows(void) {
  static const ct_dtype dts[] = {CT_UINT8, CT_INT16, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_INT64, CT_FLOAT64};
  enum { NLENS = 13, NTIES = 6 };
  static const int64_t lens[NLENS] = {128, 129, 1000, 1024, 1025, 2500, 4096, 4097, 8192, 8193, 11777, 16384, 16385};
  static const int64_t tie_lens[NTIES] = {129, 1025, 2500, 4096, 8192, 16384};
  ct_device_type devs[2];
  double* x = malloc((size_t)3 * 16385 * 8);
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    for (int d = 0; d < (int)(sizeof dts / sizeof dts[0]); ++d)
      for (int li = 0; li < NLENS; ++li) {
        const int64_t R = lens[li], rows[] = {3, R};
        for (int64_t j = 0; j < 3 * R; ++j) x[j] = select_val(j * 3 + li, dts[d]);
        ct_tensor t = make(x, rows, 2, dts[d], devs[di]);
        int64_t ks[] = {1, 255, 256, 257, 600, 2100 < R ? 2100 : R / 2, R - 1, R};
        for (int j = 0; j < 8; ++j) ks[j] = ks[j] < R ? ks[j] : R;
        check_topk_grid(t, x, rows, 2, 1, ks, 8, "medium rows");
        rel(t);
      }
    for (int c = 0; c < 3; ++c)
      for (int li = 0; li < NTIES; ++li) {
        const int64_t R = tie_lens[li], rows[] = {2, R};
        for (int64_t j = 0; j < 2 * R; ++j) x[j] = c == 0 ? 3.5 : c == 1 ? NAN : (j % 3 ? -0.0 : 0.0);
        ct_tensor t = make(x, rows, 2, c == 2 ? CT_FLOAT16 : CT_FLOAT32, devs[di]);
        const int64_t ks[] = {1, 300 < R ? 300 : R / 2, R - 1};
        check_topk_grid(t, x, rows, 2, 1, ks, 3,
                        c == 0 ? "medium rows all equal" : c == 1 ? "medium rows all NaN" : "medium rows of zeros");
        rel(t);
      }
  }
  free(x);
}

/* a long row of one repeated value (every element ties with the k-th) and one of all NaN */
static void test_select_ties(void) {
  ct_device_type devs[2];
  const int64_t n = 20000;
  double* x = malloc((size_t)n * 8);
  for (int di = 0, ndev = devices(devs); di < ndev; ++di)
    for (int c = 0; c < 3; ++c) {
      for (int64_t j = 0; j < n; ++j) x[j] = c == 0 ? 3.5 : c == 1 ? NAN : (j % 3 ? -0.0 : 0.0);
      ct_tensor t = make(x, &n, 1, CT_FLOAT32, devs[di]);
      const int64_t ks[] = {1, 5000, n - 1};
      check_topk_grid(t, x, &n, 1, 0, ks, 3, c == 0 ? "all equal" : c == 1 ? "all NaN" : "zeros of both signs");
      rel(t);
    }
  free(x);
}

static void test_kthvalue(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    const int64_t s[] = {2, 5};
    const double x[] = {3, 1, 2, 1, NAN, 9, -1, 4, -1, 0};
    ct_tensor t = make(x, s, 2, CT_FLOAT64, devs[di]);
    ct_tensor v, i;
    OK(ct_kthvalue(t, 2, 1, 0, &v, &i));
    EXPECT_SHAPE(v, 2);
    EXPECT_VALS(v, 0, 1, -1);
    EXPECT_VALS(i, 0, 3, 8 - 5); /* the second of equal elements in input order */
    rel(v), rel(i);
    OK(ct_kthvalue(t, 5, -1, 1, &v, &i));
    EXPECT_SHAPE(v, 2, 1);
    EXPECT_VALS(v, 0, NAN, 9);
    EXPECT_VALS(i, 0, 4, 0);
    rel(v), rel(i);
    OK(ct_kthvalue(t, 1, 0, 0, &v, &i));
    EXPECT_VALS(v, 0, 3, -1, 2, -1, 0);
    EXPECT_VALS(i, 0, 0, 1, 0, 1, 1);
    rel(v), rel(i);
    FAILS(ct_kthvalue(t, 6, 1, 0, &v, &i), CT_ERR_INDEX, "kthvalue(): selected number k out of range for dimension 1");
    FAILS(ct_kthvalue(t, 0, -1, 0, &v, &i), CT_ERR_INDEX, "kthvalue(): selected number k out of range for dimension 1");
    rel(t);
    /* grid against the reference (k-th of the stable sort) */
    for (int k = 1; k < NDT; ++k) {
      const int64_t sizes[] = {7, 11};
      double xx[77], wv[77];
      int64_t wi[77], cnt;
      for (int j = 0; j < 77; ++j) xx[j] = pattern(j * 3, kDtypes[k]);
      t = make(xx, sizes, 2, kDtypes[k], devs[di]);
      ref_topk(xx, sizes, 2, 1, 0, 11, wv, wi);
      OK(ct_kthvalue(t, 4, 1, 0, &v, &i));
      double* gv = vals_of(v, &cnt);
      int64_t* gi = ints_of(i, &cnt);
      for (int r = 0; r < 7; ++r) {
        if (!same_val(gv[r], wv[r * 11 + 3]) || gi[r] != wi[r * 11 + 3])
          FAILF("kthvalue dtype %d row %d: (%g, %lld), expected (%g, %lld)", kDtypes[k], r, gv[r], (long long)gi[r],
                wv[r * 11 + 3], (long long)wi[r * 11 + 3]);
      }
      free(gv), free(gi), rel(v), rel(i), rel(t);
    }
  }
}

static void test_unique(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    const int64_t s[] = {2, 4};
    const double x[] = {2, -0.0, 0.0, NAN, 1, 2, NAN, 1};
    ct_tensor t = make(x, s, 2, CT_FLOAT32, devs[di]);
    ct_tensor v, inv, c;
    OK(ct_unique(t, 1, 1, 1, &v, &inv, &c));
    int64_t n;
    double* gv = vals_of(v, &n);
    const double wv[] = {-0.0, 1, 2, NAN, NAN}; /* -0.0 first in sorted order; NaNs distinct */
    EXPECT_EQ_I(n, 5);
    EXPECT_ARRAYS(gv, NULL, wv, NULL, 5, "unique values");
    EXPECT_SHAPE(inv, 2, 4);
    EXPECT_DTYPE(inv, CT_INT64);
    EXPECT_VALS(inv, 0, 2, 0, 0, 3, 1, 2, 4, 1);
    EXPECT_VALS(c, 0, 2, 2, 2, 1, 1);
    free(gv), rel(v), rel(inv), rel(c);
    OK(ct_unique(t, 0, 0, 0, &v, NULL, NULL)); /* values only */
    EXPECT_SHAPE(v, 5);
    rel(v);
    inv = c = (ct_tensor)&t; /* outputs not asked for are set to NULL */
    OK(ct_unique(t, 0, 0, 0, &v, &inv, &c));
    EXPECT(inv == NULL && c == NULL);
    rel(v), rel(t);
    /* every dtype: values, inverse and counts against a reference built from the sorted lane */
    for (int k = 0; k < NDT; ++k) {
      double xx[40], wv2[40];
      int64_t wi[40], cnt;
      for (int j = 0; j < 40; ++j) xx[j] = pattern(j * 3, kDtypes[k]);
      const int64_t n40 = 40;
      t = make(xx, &n40, 1, kDtypes[k], devs[di]);
      ref_topk(xx, &n40, 1, 0, 0, 40, wv2, wi);
      double uv[40];
      int64_t uc[40], uinv[40], u = 0;
      for (int j = 0; j < 40; ++j) {
        if (j == 0 || wv2[j] != wv2[j - 1]) uv[u] = wv2[j], uc[u++] = 0;
        uc[u - 1]++;
        uinv[wi[j]] = u - 1;
      }
      OK(ct_unique(t, 1, 1, 1, &v, &inv, &c));
      EXPECT_DTYPE(v, kDtypes[k]);
      double* g = vals_of(v, &cnt);
      EXPECT_EQ_I(cnt, u);
      if (cnt == u) EXPECT_ARRAYS(g, NULL, uv, NULL, u, "unique grid");
      int64_t* gi = ints_of(inv, &cnt);
      EXPECT_ARRAYS(NULL, gi, NULL, uinv, 40, "unique inverse");
      free(gi);
      gi = ints_of(c, &cnt);
      if (cnt == u) EXPECT_ARRAYS(NULL, gi, NULL, uc, u, "unique counts");
      free(g), free(gi), rel(v), rel(inv), rel(c), rel(t);
    }
    /* empty */
    OK(ct_empty((const int64_t[]){0, 2}, 2, CT_INT32, devs[di], -1, &t));
    OK(ct_unique(t, 1, 1, 1, &v, &inv, &c));
    EXPECT_SHAPE(v, 0);
    EXPECT_SHAPE(inv, 0, 2);
    EXPECT_SHAPE(c, 0);
    rel(v), rel(inv), rel(c), rel(t);
  }
}

static void test_searchsorted(void) {
  ct_device_type devs[2];
  for (int di = 0, ndev = devices(devs); di < ndev; ++di) {
    ct_device_type d = devs[di];
    ct_tensor seq = on(F64(CT_FLOAT32, 1, 3, 5, 7, 9), d);
    const int64_t vs[] = {2, 4};
    ct_tensor vals = make((const double[]){3, 6, 9, 0, 10, NAN, -0.0, 5}, vs, 2, CT_FLOAT32, d);
    ct_tensor out;
    OK(ct_searchsorted(seq, vals, 0, 0, NULL, NULL, &out));
    EXPECT_DTYPE(out, CT_INT64);
    EXPECT_SHAPE(out, 2, 4);
    EXPECT_VALS(out, 0, 1, 3, 4, 0, 5, 5, 0, 2);
    rel(out);
    OK(ct_searchsorted(seq, vals, 1, 1, NULL, NULL, &out));
    EXPECT_DTYPE(out, CT_INT32);
    EXPECT_VALS(out, 0, 2, 3, 5, 0, 5, 5, 0, 3);
    rel(out);
    OK(ct_searchsorted(seq, vals, 0, 0, "right", NULL, &out));
    EXPECT_VALS(out, 0, 2, 3, 5, 0, 5, 5, 0, 3);
    rel(out);
    OK(ct_searchsorted(seq, vals, 0, 1, "", NULL, &out)); /* "" is side not given */
    EXPECT_VALS(out, 0, 2, 3, 5, 0, 5, 5, 0, 3);
    rel(out);
    FAILS(ct_searchsorted(seq, vals, 0, 1, "left", NULL, &out), CT_ERR_ARGUMENT,
          "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
    FAILS(ct_searchsorted(seq, vals, 0, 0, "up", NULL, &out), CT_ERR_ARGUMENT,
          "torch.searchsorted(): side can only be 'left' or 'right' but got up");
    /* N-D boundaries: row r searched by row r of values; int64 boundaries, float values promote */
    const int64_t bs[] = {2, 3};
    ct_tensor b2 = make((const double[]){1, 2, 3, 10, 20, 30}, bs, 2, CT_INT64, d);
    OK(ct_searchsorted(b2, vals, 0, 0, NULL, NULL, &out));
    EXPECT_VALS(out, 0, 2, 3, 3, 0, 0, 3, 0, 0);
    rel(out);
    ct_tensor bad = make((const double[]){1, 2, 3, 4, 5, 6}, (const int64_t[]){3, 2}, 2, CT_FLOAT32, d);
    FAILS(ct_searchsorted(bad, vals, 0, 0, NULL, NULL, &out), CT_ERR_SHAPE,
          "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
          "tensor and input value tensor must match, but we got boundaries tensor [3, 2] and input value tensor [2, 4]");
    /* sorter: an unsorted sequence with the positions that sort it */
    ct_tensor useq = on(F64(CT_FLOAT64, 5, 1, 9, 3, 7), d);
    ct_tensor sorter = on(I64(CT_INT64, 1, 3, 0, 4, 2), d);
    OK(ct_searchsorted(useq, vals, 0, 0, NULL, sorter, &out));
    EXPECT_VALS(out, 0, 1, 3, 4, 0, 5, 5, 0, 2);
    rel(out);
    ct_tensor bad_sorter = on(I64(CT_INT64, 1, 3, 0, 4, 5), d);
    FAILS(ct_searchsorted(useq, vals, 0, 0, NULL, bad_sorter, &out), CT_ERR_INDEX,
          "torch.searchsorted(): sorter index out of range");
    /* a 0-dim value against 1-D boundaries */
    ct_tensor z;
    OK(ct_full(NULL, 0, 4, CT_INT32, d, -1, &z));
    OK(ct_searchsorted(seq, z, 0, 0, NULL, NULL, &out));
    EXPECT_SCALAR_SHAPE(out);
    EXPECT_VALS(out, 0, 2);
    rel(out);
    FAILS(ct_searchsorted(b2, z, 0, 0, NULL, NULL, &out), CT_ERR_SHAPE,
          "input value can be a scalar only when boundaries tensor dimension is 1");
    ct_tensor bl = on(F64(CT_BOOL, 0, 1), d);
    FAILS(ct_searchsorted(bl, bl, 0, 0, NULL, NULL, &out), CT_ERR_DTYPE, "not implemented for 'Bool'");
    rel(z), rel(seq), rel(vals), rel(b2), rel(bad), rel(useq), rel(sorter), rel(bad_sorter), rel(bl);
  }
}

static void test_errors(void) {
  ct_tensor c, v, i, out;
  OK(ct_full((const int64_t[]){3}, 1, 1.0, CT_COMPLEX64, CT_CPU, -1, &c));
  FAILS(ct_sort(c, 0, 0, 0, &v, &i), CT_ERR_DTYPE, "sort(): input tensor must be of non-complex type");
  FAILS(ct_argsort(c, 0, 0, 0, &out), CT_ERR_DTYPE, "sort(): input tensor must be of non-complex type");
  FAILS(ct_topk(c, 1, 0, 1, 1, &v, &i), CT_ERR_DTYPE, "\"topk_cpu\" not implemented for 'ComplexFloat'");
  FAILS(ct_unique(c, 1, 0, 0, &v, NULL, NULL), CT_ERR_DTYPE, "\"unique\" not implemented for 'ComplexFloat'");
  FAILS(ct_sort(c, 0, 0, 0, NULL, &i), CT_ERR_NULL_POINTER, "values");
  FAILS(ct_unique(c, 1, 0, 0, NULL, NULL, NULL), CT_ERR_NULL_POINTER, "values");
  FAILS(ct_unique(c, 1, 1, 0, &v, NULL, NULL), CT_ERR_NULL_POINTER, "inverse");
  FAILS(ct_unique(c, 1, 0, 1, &v, NULL, NULL), CT_ERR_NULL_POINTER, "counts");
  FAILS(ct_searchsorted(c, c, 0, 0, NULL, NULL, NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_sort(NULL, 0, 0, 0, &v, &i), CT_ERR_INVALID_HANDLE, "");
  rel(c);
  if (g_cuda) { /* tensors on two devices */
    ct_tensor a = F64(CT_FLOAT32, 1, 2), b;
    OK(ct_tensor_to(a, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &b));
    FAILS(ct_searchsorted(a, b, 0, 0, NULL, NULL, &out), CT_ERR_DEVICE,
          "torch.searchsorted(): boundaries and input value tensors should have same device type");
    rel(a), rel(b);
  }
}

/* the same ops on CPU and CUDA give identical values and indices */
static void test_cuda_matches_cpu(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t sizes[] = {33, 130};
  double x[33 * 130];
  for (int j = 0; j < 33 * 130; ++j) x[j] = (double)((j * 2654435761LL) % 97) / 4.0 - 12;
  x[7] = NAN, x[300] = -0.0, x[301] = INFINITY;
  for (int k = 1; k < NDT; ++k) {
    ct_tensor hc = make(x, sizes, 2, kDtypes[k], CT_CPU), hg = make(x, sizes, 2, kDtypes[k], CT_CUDA);
    ct_tensor v[2], i[2];
    int64_t n1, n2;
    for (int dim = 0; dim < 2; ++dim) {
      OK(ct_topk(hc, 17, dim, 1, 1, &v[0], &i[0]));
      OK(ct_topk(hg, 17, dim, 1, 1, &v[1], &i[1]));
      double* a = vals_of(v[0], &n1);
      double* b = vals_of(v[1], &n2);
      int64_t* ia = ints_of(i[0], &n1);
      int64_t* ib = ints_of(i[1], &n2);
      EXPECT_ARRAYS(b, ib, a, ia, n1, "topk cuda vs cpu");
      free(a), free(b), free(ia), free(ib);
      for (int j = 0; j < 2; ++j) rel(v[j]), rel(i[j]);
    }
    rel(hc), rel(hg);
  }
}

TEST_MAIN(TEST_CASE(sort_special_values), TEST_CASE(sort_dtypes), TEST_CASE(sort_layouts), TEST_CASE(sort_large), TEST_CASE(sort_long_row_groups),
          TEST_CASE(topk), TEST_CASE(select_long_rows), TEST_CASE(select_medium_rows), TEST_CASE(select_ties), TEST_CASE(kthvalue), TEST_CASE(unique),
          TEST_CASE(searchsorted), TEST_CASE(errors), TEST_CASE(cuda_matches_cpu))
