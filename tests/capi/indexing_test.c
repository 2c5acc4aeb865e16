/* Indexing (section 30) against values computed here from the inputs: index_select, gather,
 * take, masked_fill(_), masked_select, nonzero and where(cond) on every device (CPU always, each
 * case again on CUDA when present), every dtype, views (transposed, sliced, expanded, permuted),
 * 0-dim and empty tensors, PyTorch's messages for bad input, and the CUDA device-side assertion
 * in a child process (with and without CUDA_LAUNCH_BLOCKING=1). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/capi/test_util.h"

static const ct_dtype ALL[] = {CT_BOOL,    CT_UINT8,   CT_INT8,    CT_INT16,     CT_INT32,     CT_INT64,
                               CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128};
#define NALL ((int)(sizeof ALL / sizeof ALL[0]))

static int ndevices(void) { return g_cuda ? 2 : 1; }
static ct_device_type dev_of(int d) { return d ? CT_CUDA : CT_CPU; }

/* t moved to dev (t released) */
static ct_tensor on(ct_tensor t, ct_device_type dev) {
  if (dev == CT_CPU || !t) return t;
  ct_tensor out = NULL;
  OK(ct_tensor_to(t, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(t);
  return out;
}

static ct_tensor vals(const double* v, int64_t n, const int64_t* sizes, int nd, ct_dtype dt, ct_device_type dev) {
  return on(from_f64(v, n, sizes, nd, dt), dev);
}

static ct_tensor idx(const int64_t* v, int64_t n, const int64_t* sizes, int nd, ct_dtype dt, ct_device_type dev) {
  return on(from_i64(v, n, sizes, nd, dt), dev);
}

/* a value as dtype dt would hold it (bool: nonzero) */
static double as(ct_dtype dt, double v) { return dt == CT_BOOL ? (v != 0) : v; }

/* 0..n-1 */
static double g_iota[64];
static void init_iota(void) {
  for (int i = 0; i < 64; ++i) g_iota[i] = i;
}

static void expect_arr(ct_tensor t, const double* want, int64_t n, int line) { expect_vals_(t, want, n, 0, "result", line); }
#define EXPECT_ARR(t, want, n) expect_arr((t), (want), (n), __LINE__)

/* ---- index_select */

static void test_index_select(void) {
  init_iota();
  const int64_t s34[] = {3, 4};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev), r = NULL;
      /* dim 0, int64, a repeated row */
      ct_tensor i0 = idx((const int64_t[]){2, 0, 2}, 3, (const int64_t[]){3}, 1, CT_INT64, dev);
      OK(ct_index_select(t, 0, i0, &r));
      double w0[12];
      const int rows[] = {2, 0, 2};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) w0[i * 4 + j] = as(dt, rows[i] * 4 + j);
      EXPECT_SHAPE(r, 3, 4);
      EXPECT_DTYPE(r, dt);
      EXPECT_ARR(r, w0, 12);
      rel(r);
      /* dim -1, int32 */
      ct_tensor i1 = idx((const int64_t[]){3, 1}, 2, (const int64_t[]){2}, 1, CT_INT32, dev);
      OK(ct_index_select(t, -1, i1, &r));
      double w1[6];
      for (int i = 0; i < 3; ++i) w1[i * 2] = as(dt, i * 4 + 3), w1[i * 2 + 1] = as(dt, i * 4 + 1);
      EXPECT_SHAPE(r, 3, 2);
      EXPECT_ARR(r, w1, 6);
      rel(r);
      rel(i0), rel(i1), rel(t);
    }
    /* transposed self, sliced (strided) index */
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_FLOAT32, dev), tt = NULL, r = NULL, ib = NULL, is = NULL;
    OK(ct_transpose(t, 0, 1, &tt)); /* [4, 3]: tt[i][j] = j*4+i */
    ib = idx((const int64_t[]){3, 9, 0, 9, 2}, 5, (const int64_t[]){5}, 1, CT_INT64, dev);
    OK(ct_slice(ib, 0, 0, 5, 2, &is)); /* [3, 0, 2] */
    OK(ct_index_select(tt, 0, is, &r));
    EXPECT_SHAPE(r, 3, 3);
    EXPECT_VALS(r, 0, 3, 7, 11, 0, 4, 8, 2, 6, 10);
    rel(r);
    /* empty index */
    ct_tensor e = idx(NULL, 0, (const int64_t[]){0}, 1, CT_INT64, dev);
    OK(ct_index_select(t, 0, e, &r));
    EXPECT_SHAPE(r, 0, 4);
    rel(r);
    /* 0-dim self and 0-dim index */
    ct_tensor s = vals((const double[]){7}, 1, NULL, 0, CT_FLOAT64, dev);
    ct_tensor i0 = idx((const int64_t[]){0}, 1, NULL, 0, CT_INT64, dev);
    OK(ct_index_select(s, 0, i0, &r));
    EXPECT_SCALAR_SHAPE(r);
    EXPECT_VALS(r, 0, 7);
    rel(r);
    OK(ct_index_select(t, 1, i0, &r));
    EXPECT_SHAPE(r, 3, 1);
    EXPECT_VALS(r, 0, 0, 4, 8);
    rel(r);
    rel(s), rel(i0), rel(e), rel(ib), rel(is), rel(tt), rel(t);
  }
}

/* ---- gather */

static void test_gather(void) {
  init_iota();
  const int64_t s34[] = {3, 4};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev), r = NULL;
      const int64_t iv[] = {0, 3, 1, 1, 2, 0};
      ct_tensor i = idx(iv, 6, (const int64_t[]){3, 2}, 2, CT_INT64, dev);
      OK(ct_gather(t, 1, i, &r));
      double w[6];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 2; ++b) w[a * 2 + b] = as(dt, a * 4 + iv[a * 2 + b]);
      EXPECT_SHAPE(r, 3, 2);
      EXPECT_DTYPE(r, dt);
      EXPECT_ARR(r, w, 6);
      rel(r);
      /* dim 0 with an index smaller than self along dim 1: out[a][b] = t[i[a][b]][b] */
      const int64_t jv[] = {2, 0, 1, 1, 0, 2};
      ct_tensor j = idx(jv, 6, (const int64_t[]){2, 3}, 2, CT_INT64, dev);
      OK(ct_gather(t, 0, j, &r));
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 3; ++b) w[a * 3 + b] = as(dt, jv[a * 3 + b] * 4 + b);
      EXPECT_ARR(r, w, 6);
      rel(r);
      rel(i), rel(j), rel(t);
    }
    /* transposed index and self, expanded index */
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_INT32, dev), tt = NULL, r = NULL, it = NULL, ie = NULL;
    OK(ct_transpose(t, 0, 1, &tt)); /* [4, 3]: tt[a][b] = b*4+a */
    ct_tensor i = idx((const int64_t[]){0, 1, 2, 3, 2, 1}, 6, (const int64_t[]){2, 3}, 2, CT_INT64, dev);
    OK(ct_transpose(i, 0, 1, &it)); /* [3, 2]: [[0, 3], [1, 2], [2, 1]] */
    OK(ct_gather(tt, 0, it, &r));  /* out[a][b] = tt[it[a][b]][b] = b*4 + it[a][b] */
    EXPECT_VALS(r, 0, 0, 7, 1, 6, 2, 5);
    rel(r);
    ct_tensor row = idx((const int64_t[]){1, 0}, 2, (const int64_t[]){1, 2}, 2, CT_INT64, dev);
    OK(ct_expand(row, (const int64_t[]){3, 2}, 2, &ie));
    OK(ct_gather(t, 1, ie, &r));
    EXPECT_VALS(r, 0, 1, 0, 5, 4, 9, 8);
    rel(r);
    /* 0-dim */
    ct_tensor s = vals((const double[]){5}, 1, NULL, 0, CT_FLOAT32, dev), z = idx((const int64_t[]){0}, 1, NULL, 0, CT_INT64, dev);
    OK(ct_gather(s, 0, z, &r));
    EXPECT_SCALAR_SHAPE(r);
    EXPECT_VALS(r, 0, 5);
    rel(r);
    /* empty index: empty result of its shape (any dtype) */
    ct_tensor e = idx(NULL, 0, (const int64_t[]){0, 4}, 2, CT_INT32, dev);
    OK(ct_gather(t, 0, e, &r));
    EXPECT_SHAPE(r, 0, 4);
    rel(r);
    rel(s), rel(z), rel(e), rel(row), rel(ie), rel(i), rel(it), rel(tt), rel(t);
  }
}

/* Note [Gather in groups]: gather of 1- and 2-byte elements (and float32, never grouped) along
 * dim 1 and dim 0 whose index and output rows are whole groups of 8 (the grouped kernel on CUDA):
 * a contiguous index, a view of it with padded rows (still grouped), rows of 20 (not whole
 * groups), an index whose data starts one element in (not aligned to a group); take of 16
 * indices, some negative; index_select of a transposed self along its last dim with int32 and
 * int64 indices (the same kernel, the index broadcast down the rows). Values against the
 * definition, computed here. */
static void gather_expect(ct_tensor t, int dim, ct_tensor i, const double* v, int64_t cols, const int64_t* iv,
                          int64_t ir, int64_t ic, int64_t istride, ct_dtype dt, int line) {
  ct_tensor r = NULL;
  OK(ct_gather(t, dim, i, &r));
  double* w = malloc((size_t)(ir * ic) * 8);
  for (int64_t a = 0; a < ir; ++a)
    for (int64_t b = 0; b < ic; ++b) {
      const int64_t j = iv[a * istride + b];
      w[a * ic + b] = as(dt, v[dim == 1 ? a * cols + j : j * cols + b]);
    }
  expect_arr(r, w, ir * ic, line);
  free(w), rel(r);
}

static void test_gather_groups(void) {
  static const ct_dtype dts[] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32};
  double v[200];
  int64_t iv[5 * 40], jv[3 * 40], kv[16];
  for (int k = 0; k < 200; ++k) v[k] = (double)((k * 37) % 97);
  for (int k = 0; k < 5 * 40; ++k) iv[k] = (k * 7 + k / 40 * 5) % 40;
  for (int k = 0; k < 3 * 40; ++k) jv[k] = (k * 3 + k / 40) % 5;
  for (int k = 0; k < 16; ++k) kv[k] = (k * 53) % 400 - 200;
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (size_t q = 0; q < sizeof dts / sizeof dts[0]; ++q) {
        const ct_dtype dt = dts[q], it = CT_INT64;
        ct_tensor t = vals(v, 200, (const int64_t[]){5, 40}, 2, dt, dev);
        /* ib [5, 40] holds every index row; iw = ib[:, :24] (rows padded to 40), ic its
         * contiguous copy, i20 = ib[:, :20] */
        ct_tensor ib = idx(iv, 5 * 40, (const int64_t[]){5, 40}, 2, it, dev), iw = NULL, ic = NULL, i20 = NULL, ioff = NULL;
        OK(ct_slice(ib, 1, 0, 24, 1, &iw));
        OK(ct_contiguous(iw, &ic));
        gather_expect(t, 1, ic, v, 40, iv, 5, 24, 40, dt, __LINE__);
        gather_expect(t, 1, iw, v, 40, iv, 5, 24, 40, dt, __LINE__);
        OK(ct_slice(ib, 1, 0, 20, 1, &i20));
        gather_expect(t, 1, i20, v, 40, iv, 5, 20, 40, dt, __LINE__);
        /* the flat index one element in: [1, 24] starting at iv[1] */
        ct_tensor flat = NULL;
        OK(ct_reshape(ib, (const int64_t[]){1, 5 * 40}, 2, &flat));
        OK(ct_slice(flat, 1, 1, 25, 1, &ioff));
        gather_expect(t, 1, ioff, v, 40, iv + 1, 1, 24, 24, dt, __LINE__);
        /* dim 0: [3, 40] rows of indices into the 5 rows */
        ct_tensor j = idx(jv, 3 * 40, (const int64_t[]){3, 40}, 2, it, dev);
        gather_expect(t, 0, j, v, 40, jv, 3, 40, 40, dt, __LINE__);
        /* take of 16 indices, negative ones counted from the end */
        ct_tensor k = idx(kv, 16, (const int64_t[]){16}, 1, it, dev), r = NULL;
        OK(ct_take(t, k, &r));
        double w[16];
        for (int m = 0; m < 16; ++m) w[m] = as(dt, v[kv[m] < 0 ? kv[m] + 200 : kv[m]]);
        EXPECT_ARR(r, w, 16);
        rel(r);
        /* index_select(tt, 1, kv mod 40) of tt = [40, 5] transposed to [5, 40] */
        ct_tensor t2 = vals(v, 200, (const int64_t[]){40, 5}, 2, dt, dev), tt = NULL;
        OK(ct_transpose(t2, 0, 1, &tt));
        int64_t sv[16];
        for (int m = 0; m < 16; ++m) sv[m] = (kv[m] + 200) % 40;
        for (int i32 = 0; i32 < 2; ++i32) {
          ct_tensor si = idx(sv, 16, (const int64_t[]){16}, 1, i32 ? CT_INT32 : CT_INT64, dev);
          OK(ct_index_select(tt, 1, si, &r));
          double ws[5 * 16];
          for (int a = 0; a < 5; ++a)
            for (int b = 0; b < 16; ++b) ws[a * 16 + b] = as(dt, v[sv[b] * 5 + a]);
          EXPECT_ARR(r, ws, 5 * 16);
          rel(r), rel(si);
        }
        rel(tt), rel(t2), rel(k), rel(j), rel(flat), rel(ioff), rel(i20), rel(ic), rel(iw), rel(ib), rel(t);
      }
  }
}

/* ---- take */

static void test_take(void) {
  init_iota();
  const int64_t s34[] = {3, 4};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev), r = NULL;
      ct_tensor i = idx((const int64_t[]){11, -1, 0, -12, 5, 6}, 6, (const int64_t[]){2, 3}, 2, CT_INT64, dev);
      OK(ct_take(t, i, &r));
      const double w[] = {as(dt, 11), as(dt, 11), as(dt, 0), as(dt, 0), as(dt, 5), as(dt, 6)};
      EXPECT_SHAPE(r, 2, 3);
      EXPECT_ARR(r, w, 6);
      rel(r), rel(i), rel(t);
    }
    /* a transposed self is read in its own row-major order */
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_FLOAT64, dev), tt = NULL, r = NULL;
    OK(ct_transpose(t, 0, 1, &tt));
    ct_tensor i = idx((const int64_t[]){1, 3, -2}, 3, (const int64_t[]){3}, 1, CT_INT64, dev);
    OK(ct_take(tt, i, &r));
    EXPECT_VALS(r, 0, 4, 1, 7);
    rel(r);
    ct_tensor z = idx((const int64_t[]){-3}, 1, NULL, 0, CT_INT64, dev);
    OK(ct_take(t, z, &r));
    EXPECT_SCALAR_SHAPE(r);
    EXPECT_VALS(r, 0, 9);
    rel(r), rel(z), rel(i), rel(tt), rel(t);
  }
}

/* ---- masked_fill */

static void test_masked_fill(void) {
  init_iota();
  const int64_t s23[] = {2, 3};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 6, s23, 2, dt, dev), r = NULL;
      /* a [3] mask broadcast over the rows */
      ct_tensor m = vals((const double[]){1, 0, 1}, 3, (const int64_t[]){3}, 1, CT_BOOL, dev);
      OK(ct_masked_fill(t, m, 1, &r));
      const double w[] = {as(dt, 1), as(dt, 1), as(dt, 1), as(dt, 1), as(dt, 4), as(dt, 1)};
      EXPECT_SHAPE(r, 2, 3);
      EXPECT_DTYPE(r, dt);
      EXPECT_ARR(r, w, 6);
      rel(r);
      /* t unchanged; then in place */
      const double orig[] = {as(dt, 0), as(dt, 1), as(dt, 2), as(dt, 3), as(dt, 4), as(dt, 5)};
      EXPECT_ARR(t, orig, 6);
      OK(ct_masked_fill_(t, m, 1));
      EXPECT_ARR(t, w, 6);
      rel(m), rel(t);
    }
    /* in place on a transposed view with a [3, 1] mask; the result's shape is broadcast */
    ct_tensor t = vals(g_iota, 6, s23, 2, CT_FLOAT32, dev), tt = NULL, r = NULL;
    OK(ct_transpose(t, 0, 1, &tt)); /* [3, 2]: tt[a][b] = b*3+a */
    ct_tensor m = vals((const double[]){0, 1, 0}, 3, (const int64_t[]){3, 1}, 2, CT_BOOL, dev);
    OK(ct_masked_fill_(tt, m, -2.5));
    EXPECT_VALS(t, 0, 0, -2.5, 2, 3, -2.5, 5);
    ct_tensor row = vals((const double[]){1, 2}, 2, (const int64_t[]){2}, 1, CT_FLOAT64, dev);
    OK(ct_masked_fill(row, m, 9, &r));
    EXPECT_SHAPE(r, 3, 2);
    EXPECT_VALS(r, 0, 1, 2, 9, 9, 1, 2);
    rel(r);
    /* float value into an integer tensor truncates; a value out of its range is refused */
    ct_tensor it = vals(g_iota, 3, (const int64_t[]){3}, 1, CT_INT8, dev);
    ct_tensor m1 = vals((const double[]){1, 0, 1}, 3, (const int64_t[]){3}, 1, CT_BOOL, dev);
    OK(ct_masked_fill_(it, m1, -7.9));
    EXPECT_VALS(it, 0, -7, 1, -7);
    FAILS(ct_masked_fill_(it, m1, 300), CT_ERR_ARGUMENT, "value cannot be converted to type int8_t without overflow");
    EXPECT_VALS(it, 0, -7, 1, -7);
    /* a mask that does not broadcast to self's shape in place */
    FAILS(ct_masked_fill_(it, m, 0), CT_ERR_SHAPE, "");
    rel(it), rel(m1);
    rel(row), rel(m), rel(tt), rel(t);
  }
}

/* ---- masked_select */

static void test_masked_select(void) {
  init_iota();
  const int64_t s23[] = {2, 3};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 6, s23, 2, dt, dev), r = NULL;
      ct_tensor m = vals((const double[]){1, 0, 0, 1, 1, 0}, 6, s23, 2, CT_BOOL, dev);
      OK(ct_masked_select(t, m, &r));
      const double w[] = {as(dt, 0), as(dt, 3), as(dt, 4)};
      EXPECT_SHAPE(r, 3);
      EXPECT_DTYPE(r, dt);
      EXPECT_ARR(r, w, 3);
      rel(r), rel(m), rel(t);
    }
    /* broadcast: a [2, 1] self against a [3] mask; a transposed self */
    ct_tensor col = vals((const double[]){10, 20}, 2, (const int64_t[]){2, 1}, 2, CT_FLOAT32, dev), r = NULL;
    ct_tensor m = vals((const double[]){0, 1, 1}, 3, (const int64_t[]){3}, 1, CT_BOOL, dev);
    OK(ct_masked_select(col, m, &r));
    EXPECT_VALS(r, 0, 10, 10, 20, 20);
    rel(r);
    ct_tensor t = vals(g_iota, 6, s23, 2, CT_INT64, dev), tt = NULL;
    OK(ct_transpose(t, 0, 1, &tt)); /* [3, 2]: [[0, 3], [1, 4], [2, 5]] */
    ct_tensor m2 = vals((const double[]){1, 1, 0, 1, 1, 0}, 6, (const int64_t[]){3, 2}, 2, CT_BOOL, dev);
    OK(ct_masked_select(tt, m2, &r));
    EXPECT_VALS(r, 0, 0, 3, 4, 2);
    rel(r);
    /* nothing selected */
    ct_tensor none = NULL;
    OK(ct_full((const int64_t[]){3, 2}, 2, 0, CT_BOOL, dev, 0, &none));
    OK(ct_masked_select(tt, none, &r));
    EXPECT_SHAPE(r, 0);
    rel(r), rel(none), rel(m2), rel(tt), rel(t), rel(m), rel(col);
  }
}

/* ---- the CPU's parallel paths: rows split over threads */

/* Above the CPU kernels' grains at 4 threads: index_select of a contiguous tensor copying whole
 * rows (12000 rows of 20 bytes; int64 and strided int32 indices with repeats; the last dim),
 * masked_select and nonzero over several blocks of 65536 flags, and the first bad entry of a
 * long contiguous index reported (the lowest position, whichever thread finds it) with nothing
 * written. */
static void test_parallel_paths(void) {
  init_iota();
  int32_t threads = 0;
  OK(ct_get_num_threads(&threads));
  OK(ct_set_num_threads(4));
  const int64_t n = 60000, sz[3] = {4, 3000, 5};
  double* v = malloc((size_t)n * 8);
  double* w = malloc((size_t)n * 8);
  int64_t* iv = malloc(6000 * 8);
  for (int64_t e = 0; e < n; ++e) v[e] = (double)e;
  for (int64_t j = 0; j < 6000; ++j) iv[j] = (j * 7) % 3000;
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    ct_tensor t = vals(v, n, sz, 3, CT_FLOAT32, dev), r = NULL;
    /* dim 1, int64: out[o, j, c] = t[o, iv[j], c] */
    ct_tensor i = idx(iv, 3000, (const int64_t[]){3000}, 1, CT_INT64, dev);
    OK(ct_index_select(t, 1, i, &r));
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t j = 0; j < 3000; ++j)
        for (int64_t c = 0; c < 5; ++c) w[(o * 3000 + j) * 5 + c] = (double)((o * 3000 + iv[j]) * 5 + c);
    EXPECT_SHAPE(r, 4, 3000, 5);
    EXPECT_ARR(r, w, n);
    rel(r), rel(i);
    /* int32 index with a step of 2 (entries iv[0], iv[2], ...), dim 1 */
    ct_tensor i32 = idx(iv, 6000, (const int64_t[]){6000}, 1, CT_INT32, dev), s = NULL;
    OK(ct_slice(i32, 0, 0, 6000, 2, &s));
    OK(ct_index_select(t, 1, s, &r));
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t j = 0; j < 3000; ++j)
        for (int64_t c = 0; c < 5; ++c) w[(o * 3000 + j) * 5 + c] = (double)((o * 3000 + iv[2 * j]) * 5 + c);
    EXPECT_ARR(r, w, n);
    rel(r), rel(s), rel(i32);
    /* the last dim: rows of one element */
    ct_tensor il = idx((const int64_t[]){4, 0, 0, 2}, 4, (const int64_t[]){4}, 1, CT_INT64, dev);
    OK(ct_index_select(t, 2, il, &r));
    const int pick[4] = {4, 0, 0, 2};
    for (int64_t q = 0; q < 12000; ++q)
      for (int c = 0; c < 4; ++c) w[q * 4 + c] = (double)(q * 5 + pick[c]);
    EXPECT_SHAPE(r, 4, 3000, 4);
    EXPECT_ARR(r, w, 48000);
    rel(r), rel(il);
    /* masked_select / nonzero: every third element of 200000 (four blocks of flags) */
    const int64_t mn = 200000;
    double* mv = malloc((size_t)mn * 8);
    double* xv = malloc((size_t)mn * 8);
    for (int64_t e = 0; e < mn; ++e) mv[e] = e % 3 == 0, xv[e] = (double)(e % 1000);
    ct_tensor m = vals(mv, mn, &mn, 1, CT_BOOL, dev), x = vals(xv, mn, &mn, 1, CT_INT32, dev);
    OK(ct_masked_select(x, m, &r));
    int64_t k = 0;
    for (int64_t e = 0; e < mn; e += 3) mv[k] = xv[e], xv[k++] = (double)e;
    EXPECT_SHAPE(r, k);
    EXPECT_ARR(r, mv, k);
    rel(r);
    OK(ct_nonzero(m, &r));
    EXPECT_SHAPE(r, k, 1);
    EXPECT_ARR(r, xv, k);
    rel(r), rel(m), rel(x);
    free(mv), free(xv);
    rel(t);
  }
  /* the first bad entry of a long contiguous index (CPU: on CUDA it is a device assertion) */
  int64_t* bv = malloc(70000 * 8);
  for (int64_t j = 0; j < 70000; ++j) bv[j] = j % 10;
  bv[50000] = 11, bv[60000] = -3, bv[65000] = 12;
  ct_tensor t = vals(g_iota, 10, (const int64_t[]){10}, 1, CT_FLOAT32, CT_CPU), r = NULL;
  ct_tensor bi = idx(bv, 70000, (const int64_t[]){70000}, 1, CT_INT64, CT_CPU);
  FAILS(ct_gather(t, 0, bi, &r), CT_ERR_INDEX, "index 11 is out of bounds for dimension 0 with size 10");
  FAILS(ct_index_select(t, 0, bi, &r), CT_ERR_INDEX, "index out of range in self");
  ct_tensor src = NULL;
  OK(ct_full((const int64_t[]){70000}, 1, 1.0, CT_FLOAT32, CT_CPU, -1, &src));
  FAILS(ct_index_add_(t, 0, bi, src, 1.0), CT_ERR_INDEX, "index out of range in self");
  EXPECT_ARR(t, g_iota, 10); /* nothing written */
  rel(bi);
  /* the same index without the bad entries: checked in two chunks, gathered */
  bv[50000] = 3, bv[60000] = -3 + 10, bv[65000] = 2;
  bi = idx(bv, 70000, (const int64_t[]){70000}, 1, CT_INT64, CT_CPU);
  OK(ct_gather(t, 0, bi, &r));
  double* gw = malloc(70000 * 8);
  for (int64_t j = 0; j < 70000; ++j) gw[j] = (double)bv[j];
  EXPECT_ARR(r, gw, 70000);
  free(gw);
  rel(r), rel(src), rel(bi), rel(t);
  /* a transposed index: the first bad entry in the index's order (7), not in memory order (5) */
  t = vals(g_iota, 4, (const int64_t[]){2, 2}, 2, CT_FLOAT32, CT_CPU);
  bi = idx((const int64_t[]){0, 5, 7, 0}, 4, (const int64_t[]){2, 2}, 2, CT_INT64, CT_CPU);
  ct_tensor bt = NULL;
  OK(ct_transpose(bi, 0, 1, &bt)); /* [[0, 7], [5, 0]] */
  FAILS(ct_gather(t, 1, bt, &r), CT_ERR_INDEX, "index 7 is out of bounds for dimension 1 with size 2");
  rel(bt), rel(bi), rel(t);
  free(bv), free(iv), free(w), free(v);
  OK(ct_set_num_threads(threads));
}

/* ---- nonzero and where(cond) */

static void test_nonzero(void) {
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals((const double[]){0, 3, 0, 1, 0, 2}, 6, (const int64_t[]){2, 3}, 2, dt, dev), r = NULL;
      OK(ct_nonzero(t, &r));
      EXPECT_DTYPE(r, CT_INT64);
      EXPECT_SHAPE(r, 3, 2);
      EXPECT_VALS(r, 0, 0, 1, 1, 0, 1, 2);
      rel(r), rel(t);
    }
    /* NaN is nonzero; 3-D permuted input (coordinates of the view) */
    ct_tensor f = vals((const double[]){0, NAN, -0.0, 1e-30}, 4, (const int64_t[]){4}, 1, CT_FLOAT64, dev), r = NULL;
    OK(ct_nonzero(f, &r));
    EXPECT_SHAPE(r, 2, 1);
    EXPECT_VALS(r, 0, 1, 3);
    rel(r);
    double v[24] = {0};
    v[5] = 1, v[18] = 1, v[23] = 1; /* [2, 3, 4]: (0,1,1), (1,1,2), (1,2,3) */
    ct_tensor t3 = vals(v, 24, (const int64_t[]){2, 3, 4}, 3, CT_UINT8, dev), p = NULL;
    OK(ct_permute(t3, (const int64_t[]){2, 0, 1}, 3, &p)); /* p[c][a][b] = t3[a][b][c] */
    OK(ct_nonzero(p, &r));
    EXPECT_SHAPE(r, 3, 3);
    EXPECT_VALS(r, 0, 1, 0, 1, 2, 1, 1, 3, 1, 2);
    rel(r);
    /* where(cond): one tensor a dim, the columns of nonzero */
    ct_tensor outs[3] = {NULL, NULL, NULL};
    int32_t n = 0;
    FAILS(ct_where_cond(t3, outs, 2, &n), CT_ERR_BUFFER_SIZE, "");
    EXPECT_EQ_I(n, 3);
    OK(ct_where_cond(t3, outs, 3, &n));
    EXPECT_VALS(outs[0], 0, 0, 1, 1);
    EXPECT_VALS(outs[1], 0, 1, 1, 2);
    EXPECT_VALS(outs[2], 0, 1, 2, 3);
    for (int i = 0; i < 3; ++i) rel(outs[i]);
    /* 0-dim: nonzero is [n, 0]; where gives one tensor of n zeros */
    ct_tensor s = vals((const double[]){4}, 1, NULL, 0, CT_FLOAT32, dev);
    OK(ct_nonzero(s, &r));
    EXPECT_SHAPE(r, 1, 0);
    rel(r);
    OK(ct_where_cond(s, outs, 3, &n));
    EXPECT_EQ_I(n, 1);
    EXPECT_SHAPE(outs[0], 1);
    EXPECT_VALS(outs[0], 0, 0);
    rel(outs[0]);
    /* empty and all-zero */
    ct_tensor e = vals(NULL, 0, (const int64_t[]){0, 3}, 2, CT_FLOAT32, dev), z = NULL;
    OK(ct_nonzero(e, &r));
    EXPECT_SHAPE(r, 0, 2);
    rel(r);
    OK(ct_full((const int64_t[]){5}, 1, 0, CT_INT32, dev, 0, &z));
    OK(ct_nonzero(z, &r));
    EXPECT_SHAPE(r, 0, 1);
    rel(r), rel(z), rel(e), rel(s), rel(p), rel(t3), rel(f);
  }
}

/* index_select of contiguous tensors copies whole rows on CUDA (Note [index_select rows]): rows
 * of every unit width (1 to 16 bytes: row lengths and element sizes that divide 16 or not), an
 * outer dim, a data pointer one element off the 16-byte grid, int32 and strided int64 indices;
 * checked on every device against the values picked here. */
static void test_index_select_rows(void) {
  const struct {
    int64_t sz[3];
    int dim;
    ct_dtype dt;
  } cases[] = {{{5, 7, 3}, 1, CT_INT8},       {{6, 10, 1}, 0, CT_FLOAT32},   {{4, 8, 16}, 1, CT_FLOAT16},
               {{3, 9, 5}, 1, CT_COMPLEX128}, {{2, 40, 33}, 1, CT_FLOAT64},  {{7, 300, 1}, 1, CT_INT16},
               {{1, 64, 4}, 1, CT_FLOAT32},   {{3, 5, 1000}, 1, CT_BFLOAT16},
               /* rows of 1125 16-byte and 301 2-byte units: a block a row */
               {{2, 9, 4500}, 1, CT_FLOAT32}, {{3, 8, 301}, 1, CT_INT16}};
  const int64_t pick[] = {4, 0, 2, 2, 1, 3, 0};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      const int64_t* sz = cases[c].sz;
      const int64_t n = sz[0] * sz[1] * sz[2];
      double* v = malloc((size_t)n * 8);
      for (int64_t i = 0; i < n; ++i) v[i] = (double)(i % 97);
      ct_tensor t = vals(v, n, sz, 3, cases[c].dt, dev);
      for (int it = 0; it < 2; ++it) {
        ct_tensor i = idx(pick, 7, (const int64_t[]){7}, 1, it ? CT_INT32 : CT_INT64, dev), r = NULL;
        OK(ct_index_select(t, cases[c].dim, i, &r));
        const int64_t outer = cases[c].dim == 0 ? 1 : sz[0], size = sz[cases[c].dim];
        const int64_t inner = cases[c].dim == 0 ? sz[1] * sz[2] : sz[2];
        double* w = malloc((size_t)(outer * 7 * inner) * 8);
        for (int64_t o = 0; o < outer; ++o)
          for (int j = 0; j < 7; ++j)
            for (int64_t k = 0; k < inner; ++k) w[(o * 7 + j) * inner + k] = v[(o * size + pick[j]) * inner + k];
        expect_arr(r, w, outer * 7 * inner, __LINE__ + (int)c);
        free(w);
        rel(r), rel(i);
      }
      rel(t);
      free(v);
    }
    /* a contiguous [1, 32] whose data pointer is one float32 past the start of its storage */
    double v[33];
    for (int i = 0; i < 33; ++i) v[i] = i;
    ct_tensor base = vals(v, 33, (const int64_t[]){1, 33}, 2, CT_FLOAT32, dev), t = NULL, r = NULL;
    OK(ct_slice(base, 1, 1, 33, 1, &t));
    ct_tensor i = idx((const int64_t[]){0, 0}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    OK(ct_index_select(t, 0, i, &r));
    double w[64];
    for (int k = 0; k < 64; ++k) w[k] = 1 + k % 32;
    EXPECT_ARR(r, w, 64);
    rel(r), rel(i);
    /* a strided int64 index (every other element of [6]) */
    ct_tensor ib = idx((const int64_t[]){1, 9, 0, 9, 1, 9}, 6, (const int64_t[]){6}, 1, CT_INT64, dev), is = NULL;
    OK(ct_slice(ib, 0, 0, 6, 2, &is));
    OK(ct_index_select(base, 1, is, &r));
    EXPECT_VALS(r, 0, 1, 0, 1);
    rel(r), rel(is), rel(ib), rel(t), rel(base);
    /* rows of more units than a grid's pieces reach (65535 x 128; here one-byte units of an odd
     * row): each block copies several units of its row */
    const int64_t L = 65535 * 128 + 131, sz[] = {2, 3, L};
    uint8_t* h = malloc((size_t)(6 * L));
    for (int64_t k = 0; k < 6 * L; ++k) h[k] = (uint8_t)((k * 131 + k / L * 7) % 251);
    ct_tensor big = NULL, ix = idx((const int64_t[]){2, 0}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    OK(ct_from_buffer(h, 6 * L, sz, 3, CT_UINT8, dev, 0, &big));
    OK(ct_index_select(big, 1, ix, &r));
    uint8_t* got = malloc((size_t)(4 * L));
    OK(ct_tensor_copy_to_buffer(r, got, 4 * L));
    int64_t bad = -1;
    for (int64_t o = 0; o < 2 && bad < 0; ++o)
      for (int j = 0; j < 2 && bad < 0; ++j)
        for (int64_t k = 0; k < L; ++k)
          if (got[(o * 2 + j) * L + k] != h[(o * 3 + (j ? 0 : 2)) * L + k]) {
            bad = (o * 2 + j) * L + k;
            break;
          }
    if (bad >= 0) FAILF("index_select of rows of %lld bytes: element %lld differs", (long long)L, (long long)bad);
    free(got), free(h), rel(r), rel(ix), rel(big);
  }
}

/* nonzero's coordinates on larger inputs (Note [nonzero's layout]): 4-D, every true element
 * checked, against the coordinates computed here; on CUDA the result has PyTorch's strides
 * {1, n}. */
static void test_nonzero_coords(void) {
  const int64_t sz[4] = {3, 5, 7, 11};
  const int64_t n = 3 * 5 * 7 * 11;
  double* v = malloc((size_t)n * 8);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += (v[i] = (i * 7919) % 5 == 0 ? 1.5 : 0) != 0;
  double* want = malloc((size_t)(count * 4) * 8);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] == 0) continue;
    want[k * 4 + 0] = (double)(i / (5 * 7 * 11));
    want[k * 4 + 1] = (double)(i / (7 * 11) % 5);
    want[k * 4 + 2] = (double)(i / 11 % 7);
    want[k * 4 + 3] = (double)(i % 11);
    ++k;
  }
  for (int d = 0; d < ndevices(); ++d) {
    for (int b = 0; b < 2; ++b) {
      ct_tensor t = vals(v, n, sz, 4, b ? CT_BOOL : CT_FLOAT32, dev_of(d)), r = NULL;
      OK(ct_nonzero(t, &r));
      EXPECT_SHAPE(r, count, 4);
      expect_arr(r, want, count * 4, __LINE__);
      int64_t st[4] = {0, 0, 0, 0};
      int32_t nd = 0;
      OK(ct_tensor_strides(r, st, 4, &nd));
      EXPECT_EQ_I(nd, 2);
      if (dev_of(d) == CT_CUDA) EXPECT_EQ_I(st[0] == 1 && st[1] == count, 1);
      else EXPECT_EQ_I(st[0] == 4 && st[1] == 1, 1);
      rel(r), rel(t);
    }
  }
  free(want);
  free(v);
}

/* Note [nonzero on the device]: the test on each element's bits, in every dtype: -0.0 is zero in
 * every floating and complex dtype, NaN and subnormals nonzero (the expected coordinates from the
 * values as the dtype holds them); contiguous (tested in place on CUDA) and transposed (a copy
 * first). */
static void test_nonzero_bits(void) {
  const double v[8] = {-0.0, 0, 1, -0.0, NAN, 0, -2, 1e-40};
  for (int d = 0; d < ndevices(); ++d) {
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      int fl = dt == CT_FLOAT16 || dt == CT_BFLOAT16 || dt == CT_FLOAT32 || dt == CT_FLOAT64 ||
               dt == CT_COMPLEX64 || dt == CT_COMPLEX128;
      /* integers: NaN and 1e-40 as 0 would be undefined; use 5 and 0 there */
      double w[8];
      for (int i = 0; i < 8; ++i) w[i] = fl ? v[i] : (i == 4 ? 5 : i == 7 ? 0 : v[i]);
      ct_tensor t = vals(w, 8, (const int64_t[]){2, 4}, 2, dt, dev_of(d)), tt = NULL, r = NULL;
      ct_tensor back = NULL;
      OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT64, 0, 0, &back));
      double h[8];
      OK(ct_tensor_copy_to_buffer(back, h, sizeof h));
      rel(back);
      double want[16], wantt[16];
      int64_t n = 0, nt = 0;
      for (int i = 0; i < 8; ++i)
        if (h[i] != 0) want[2 * n] = i / 4, want[2 * n + 1] = i % 4, ++n;
      for (int c = 0; c < 4; ++c)
        for (int r0 = 0; r0 < 2; ++r0)
          if (h[r0 * 4 + c] != 0) wantt[2 * nt] = c, wantt[2 * nt + 1] = r0, ++nt;
      OK(ct_nonzero(t, &r));
      EXPECT_SHAPE(r, n, 2);
      expect_arr(r, want, 2 * n, __LINE__);
      rel(r);
      OK(ct_transpose(t, 0, 1, &tt));
      OK(ct_nonzero(tt, &r));
      EXPECT_SHAPE(r, nt, 2);
      expect_arr(r, wantt, 2 * nt, __LINE__);
      rel(r), rel(tt), rel(t);
    }
  }
}

/* ---- scatter, scatter_add, index_add_ */

static void test_scatter(void) {
  init_iota();
  const int64_t s34[] = {3, 4}, s24[] = {2, 4};
  const int64_t iv[] = {0, 1, 2, 0, 2, 0, 0, 1}; /* [2, 4], no repeat within a column */
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev), r = NULL;
      ct_tensor src = vals(g_iota + 20, 8, s24, 2, dt, dev);
      ct_tensor i = idx(iv, 8, s24, 2, CT_INT64, dev);
      double w[12];
      /* scatter along dim 0: out[iv[a][b]][b] = src[a][b] */
      for (int e = 0; e < 12; ++e) w[e] = as(dt, e);
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 4; ++b) w[iv[a * 4 + b] * 4 + b] = as(dt, 20 + a * 4 + b);
      OK(ct_scatter(t, 0, i, src, &r));
      EXPECT_DTYPE(r, dt);
      EXPECT_SHAPE(r, 3, 4);
      EXPECT_ARR(r, w, 12);
      rel(r);
      /* the value form */
      for (int e = 0; e < 12; ++e) w[e] = as(dt, e);
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 4; ++b) w[iv[a * 4 + b] * 4 + b] = as(dt, 1);
      OK(ct_scatter_value(t, 0, i, 1, &r));
      EXPECT_ARR(r, w, 12);
      rel(r);
      /* scatter_add along dim 1 with repeated indices: out[a][j[a][b]] += src[a][b] */
      const int64_t jv[] = {1, 1, 3, 1, 0, 0, 0, 2};
      ct_tensor j = idx(jv, 8, s24, 2, CT_INT64, dev);
      for (int e = 0; e < 12; ++e) w[e] = e;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 4; ++b) w[a * 4 + jv[a * 4 + b]] += 20 + a * 4 + b;
      for (int e = 0; e < 12; ++e) {
        if (dt == CT_BOOL) w[e] = w[e] != 0;
        else if (dt == CT_UINT8 || dt == CT_INT8) w[e] = (double)(dt == CT_UINT8 ? (uint8_t)(int)w[e] : (int8_t)(int)w[e]);
      }
      OK(ct_scatter_add(t, 1, j, src, &r));
      EXPECT_ARR(r, w, 12);
      rel(r);
      /* t itself unchanged */
      for (int e = 0; e < 12; ++e) w[e] = as(dt, e);
      EXPECT_ARR(t, w, 12);
      rel(j), rel(i), rel(src), rel(t);
    }
    /* duplicates in scatter: one of the written values wins */
    ct_tensor z = NULL, r = NULL;
    OK(ct_full((const int64_t[]){2}, 1, 0, CT_FLOAT32, dev, 0, &z));
    ct_tensor i = idx((const int64_t[]){1, 1, 1}, 3, (const int64_t[]){3}, 1, CT_INT64, dev);
    ct_tensor src = vals((const double[]){5, 6, 7}, 3, (const int64_t[]){3}, 1, CT_FLOAT32, dev);
    OK(ct_scatter(z, 0, i, src, &r));
    double got[2] = {-1, -1};
    ct_tensor h = NULL;
    OK(ct_tensor_to(r, CT_CPU, -1, CT_FLOAT64, 0, 0, &h));
    OK(ct_tensor_copy_to_buffer(h, got, 16));
    EXPECT(got[0] == 0 && (got[1] == 5 || got[1] == 6 || got[1] == 7));
    rel(h), rel(r);
    /* scatter_add of many float16 ones into one element: exact (integers below 2048) */
    ct_tensor ones = NULL, zi = NULL, acc = NULL;
    OK(ct_full((const int64_t[]){1000}, 1, 1, CT_FLOAT16, dev, 0, &ones));
    OK(ct_full((const int64_t[]){1000}, 1, 0, CT_INT64, dev, 0, &zi));
    OK(ct_full((const int64_t[]){1}, 1, 0.5, CT_FLOAT16, dev, 0, &acc));
    ct_tensor zi1 = NULL;
    OK(ct_narrow(zi, 0, 0, 1000, &zi1));
    OK(ct_scatter_add(acc, 0, zi1, ones, &r));
    EXPECT_VALS(r, 0, 1000.5);
    rel(r), rel(zi1), rel(acc), rel(zi), rel(ones);
    /* transposed self and index, index smaller than src */
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_FLOAT64, dev), tt = NULL, it = NULL;
    OK(ct_transpose(t, 0, 1, &tt)); /* [4, 3]: tt[a][b] = b*4+a */
    ct_tensor ib = idx((const int64_t[]){2, 0}, 2, (const int64_t[]){2, 1}, 2, CT_INT64, dev); /* [2, 1] */
    ct_tensor big = vals(g_iota + 40, 12, s34, 2, CT_FLOAT64, dev);
    OK(ct_scatter(tt, 1, ib, big, &r)); /* out[0][2] = big[0][0] = 40, out[1][0] = big[1][0] = 44 */
    EXPECT_VALS(r, 0, 0, 4, 40, 44, 5, 9, 2, 6, 10, 3, 7, 11);
    rel(r), rel(big), rel(ib), rel(it), rel(tt), rel(t), rel(src), rel(i), rel(z);
  }
}

/* Note [Paired half atomics]: float16/bfloat16 index_add_ into a contiguous destination adds in
 * pairs on CUDA; a view starting at an odd element (its first element's pair would start outside
 * it), repeated indices, and neighbours holding -0.0, which must stay -0.0 (sign checked). */
static void test_index_add_pairs(void) {
  const ct_dtype dts[] = {CT_FLOAT16, CT_BFLOAT16};
  double z[9];
  for (int i = 0; i < 9; ++i) z[i] = -0.0;
  for (int d = 0; d < ndevices(); ++d) {
    for (int k = 0; k < 2; ++k) {
      ct_tensor base = vals(z, 9, (const int64_t[]){9}, 1, dts[k], dev_of(d)), view = NULL;
      OK(ct_narrow(base, 0, 1, 8, &view));
      const int64_t iv[10] = {0, 1, 2, 3, 4, 5, 6, 7, 7, 0};
      const double sv[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
      ct_tensor ix = idx(iv, 10, (const int64_t[]){10}, 1, CT_INT64, dev_of(d));
      ct_tensor src = vals(sv, 10, (const int64_t[]){10}, 1, dts[k], dev_of(d));
      OK(ct_index_add_(view, 0, ix, src, 1.0));
      EXPECT_VALS(base, 0, -0.0, 11, 2, 3, 4, 5, 6, 7, 17);
      rel(ix), rel(src);
      /* two elements of the whole tensor: every other element keeps its -0.0 */
      const int64_t iv2[2] = {2, 5};
      ct_tensor ix2 = idx(iv2, 2, (const int64_t[]){2}, 1, CT_INT64, dev_of(d)), z2 = NULL, src2 = NULL;
      OK(ct_full((const int64_t[]){9}, 1, -0.0, dts[k], dev_of(d), 0, &z2));
      OK(ct_full((const int64_t[]){2}, 1, 0.5, dts[k], dev_of(d), 0, &src2));
      OK(ct_index_add_(z2, 0, ix2, src2, 1.0));
      ct_tensor back = NULL;
      OK(ct_tensor_to(z2, CT_CPU, -1, CT_FLOAT64, 0, 0, &back));
      double h[9];
      OK(ct_tensor_copy_to_buffer(back, h, sizeof h));
      for (int i = 0; i < 9; ++i) {
        const double want = i == 2 || i == 5 ? 0.5 : -0.0;
        if (h[i] != want || signbit(h[i]) != signbit(want))
          FAILF("line %d: dtype %d element %d = %g, expected %g", __LINE__, (int)dts[k], i, h[i], want);
      }
      rel(back), rel(z2), rel(src2), rel(ix2), rel(view), rel(base);
      /* a transposed (dense) destination pairs too: columns 1 and 2 of z3.t() are rows 1 and 2
       * of z3; rows 0 and 3 keep their -0.0 */
      const int64_t one_two[2] = {1, 2};
      ct_tensor z3 = NULL, z3t = NULL, src3 = NULL, ix3 = idx(one_two, 2, (const int64_t[]){2}, 1, CT_INT64, dev_of(d));
      OK(ct_full((const int64_t[]){4, 6}, 2, -0.0, dts[k], dev_of(d), 0, &z3));
      OK(ct_transpose(z3, 0, 1, &z3t));
      OK(ct_full((const int64_t[]){6, 2}, 2, 0.25, dts[k], dev_of(d), 0, &src3));
      OK(ct_index_add_(z3t, 1, ix3, src3, 1.0));
      OK(ct_tensor_to(z3, CT_CPU, -1, CT_FLOAT64, 0, 0, &back));
      double h3[24];
      OK(ct_tensor_copy_to_buffer(back, h3, sizeof h3));
      for (int i = 0; i < 24; ++i) {
        const int row = i / 6;
        const double want = row == 1 || row == 2 ? 0.25 : -0.0;
        if (h3[i] != want || signbit(h3[i]) != signbit(want))
          FAILF("line %d: dtype %d element %d = %g, expected %g", __LINE__, (int)dts[k], i, h3[i], want);
      }
      rel(back), rel(src3), rel(z3t), rel(z3), rel(ix3);
    }
  }
}

static void test_index_add(void) {
  init_iota();
  const int64_t s34[] = {3, 4};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 1; k < NALL; ++k) { /* not bool */
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev);
      ct_tensor src = vals(g_iota + 1, 12, s34, 2, dt, dev);
      const int64_t iv[] = {2, 0, 2};
      ct_tensor i = idx(iv, 3, (const int64_t[]){3}, 1, k % 2 ? CT_INT64 : CT_INT32, dev);
      OK(ct_index_add_(t, 0, i, src, 2));
      double w[12];
      for (int e = 0; e < 12; ++e) w[e] = e;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 4; ++b) w[iv[a] * 4 + b] += 2 * (1 + a * 4 + b);
      for (int e = 0; e < 12; ++e)
        if (dt == CT_INT8) w[e] = (double)(int8_t)(int)w[e];
      EXPECT_ARR(t, w, 12);
      rel(i), rel(src), rel(t);
    }
    /* along dim 1 of a transposed self, alpha 1, a 0-dim index */
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_FLOAT32, dev), tt = NULL;
    OK(ct_transpose(t, 0, 1, &tt)); /* [4, 3] */
    ct_tensor src = vals((const double[]){1, 2, 3, 4}, 4, (const int64_t[]){4, 1}, 2, CT_FLOAT32, dev);
    ct_tensor z = idx((const int64_t[]){1}, 1, NULL, 0, CT_INT64, dev);
    OK(ct_index_add_(tt, 1, z, src, 1)); /* tt[a][1] += a + 1, i.e. t[1][a] */
    EXPECT_VALS(t, 0, 0, 1, 2, 3, 5, 7, 9, 11, 8, 9, 10, 11);
    rel(z), rel(src), rel(tt), rel(t);
  }
}

static void test_scatter_errors(void) {
  init_iota();
  ct_tensor t = vals(g_iota, 12, (const int64_t[]){3, 4}, 2, CT_FLOAT32, CT_CPU), r = NULL;
  ct_tensor src = vals(g_iota, 8, (const int64_t[]){2, 4}, 2, CT_FLOAT32, CT_CPU);
  ct_tensor srcd = vals(g_iota, 8, (const int64_t[]){2, 4}, 2, CT_FLOAT64, CT_CPU);
  ct_tensor bad = idx((const int64_t[]){0, 1, 2, 3, 0, 0, 0, 0}, 8, (const int64_t[]){2, 4}, 2, CT_INT64, CT_CPU);
  ct_tensor i32 = idx((const int64_t[]){0, 1, 2, 0, 0, 0, 0, 0}, 8, (const int64_t[]){2, 4}, 2, CT_INT32, CT_CPU);
  ct_tensor wide = NULL;
  OK(ct_full((const int64_t[]){2, 5}, 2, 0, CT_INT64, CT_CPU, -1, &wide));
  FAILS(ct_scatter(t, 0, bad, src, &r), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
  FAILS(ct_scatter_add(t, 0, bad, src, &r), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
  FAILS(ct_scatter_value(t, 0, bad, 1, &r), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
  FAILS(ct_scatter(t, 0, i32, src, &r), CT_ERR_DTYPE, "scatter(): Expected dtype int64 for index");
  FAILS(ct_scatter_add(t, 0, i32, src, &r), CT_ERR_DTYPE, "scatter_add(): Expected dtype int64 for index");
  FAILS(ct_scatter(t, 0, i32, srcd, &r), CT_ERR_DTYPE, "");
  FAILS(ct_scatter(t, 0, wide, src, &r), CT_ERR_SHAPE,
        "Expected index [2, 5] to be no larger than self [3, 4] apart from dimension 0 and to be no larger size than src [2, 4]");
  FAILS(ct_scatter_value(t, 0, wide, 1, &r), CT_ERR_SHAPE, "Expected index [2, 5] to be no larger than self [3, 4]");
  ct_tensor v = idx((const int64_t[]){0, 3}, 2, (const int64_t[]){2}, 1, CT_INT64, CT_CPU);
  FAILS(ct_index_add_(t, 0, v, src, 1), CT_ERR_INDEX, "index out of range in self");
  ct_tensor v3 = idx((const int64_t[]){0, 1, 2}, 3, (const int64_t[]){3}, 1, CT_INT64, CT_CPU);
  FAILS(ct_index_add_(t, 0, v3, src, 1), CT_ERR_INDEX,
        "index_add_(): Number of indices (3) should be equal to source.size(dim) (2)");
  ct_tensor v2 = idx((const int64_t[]){0, 1}, 2, (const int64_t[]){2}, 1, CT_INT64, CT_CPU);
  FAILS(ct_index_add_(t, 0, v2, srcd, 1), CT_ERR_DTYPE, "index_add_(): self (Float) and source (Double) must have the same scalar type");
  ct_tensor ti = vals(g_iota, 12, (const int64_t[]){3, 4}, 2, CT_INT32, CT_CPU), si = vals(g_iota, 8, (const int64_t[]){2, 4}, 2, CT_INT32, CT_CPU);
  FAILS(ct_index_add_(ti, 0, v2, si, 0.5), CT_ERR_ARGUMENT, "alpha must not be a floating point number");
  EXPECT_ARR(t, g_iota, 12); /* nothing written */
  rel(si), rel(ti), rel(v2), rel(v3), rel(v), rel(wide), rel(i32), rel(bad), rel(srcd), rel(src), rel(t);
}

/* ---- index and index_put_ (advanced indexing) */

static void test_index(void) {
  init_iota();
  const int64_t s34[] = {3, 4};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev), r = NULL;
      ct_tensor rows = idx((const int64_t[]){2, 0}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
      OK(ct_index(t, &rows, 1, &r)); /* t[[2, 0]] */
      double w[16];
      for (int b = 0; b < 4; ++b) w[b] = as(dt, 8 + b), w[4 + b] = as(dt, b);
      EXPECT_SHAPE(r, 2, 4);
      EXPECT_DTYPE(r, dt);
      EXPECT_ARR(r, w, 8);
      rel(r);
      ct_tensor cols = idx((const int64_t[]){3, -1, 0}, 3, (const int64_t[]){3}, 1, CT_INT32, dev);
      ct_tensor two[2] = {NULL, cols};
      OK(ct_index(t, two, 2, &r)); /* t[:, [3, -1, 0]] */
      for (int a = 0; a < 3; ++a) w[a * 3] = as(dt, a * 4 + 3), w[a * 3 + 1] = as(dt, a * 4 + 3), w[a * 3 + 2] = as(dt, a * 4);
      EXPECT_SHAPE(r, 3, 3);
      EXPECT_ARR(r, w, 9);
      rel(r), rel(cols), rel(rows), rel(t);
    }
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_FLOAT32, dev), r = NULL;
    /* two indices broadcast: [[0], [2]] and [1, 3] */
    ct_tensor i0 = idx((const int64_t[]){0, 2}, 2, (const int64_t[]){2, 1}, 2, CT_INT64, dev);
    ct_tensor i1 = idx((const int64_t[]){1, 3}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    ct_tensor both[2] = {i0, i1};
    OK(ct_index(t, both, 2, &r));
    EXPECT_SHAPE(r, 2, 2);
    EXPECT_VALS(r, 0, 1, 3, 9, 11);
    rel(r);
    /* 3-D: non-adjacent indexed dims go first; adjacent ones stay in place */
    ct_tensor x = vals(g_iota, 24, (const int64_t[]){2, 3, 4}, 3, CT_FLOAT64, dev);
    ct_tensor a0 = idx((const int64_t[]){0, 1}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    ct_tensor a2 = idx((const int64_t[]){3, 0}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    ct_tensor sep[3] = {a0, NULL, a2};
    OK(ct_index(x, sep, 3, &r));
    EXPECT_SHAPE(r, 2, 3);
    EXPECT_VALS(r, 0, 3, 7, 11, 12, 16, 20);
    rel(r);
    ct_tensor b1 = idx((const int64_t[]){2, 0}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    ct_tensor b2 = idx((const int64_t[]){1, 1}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
    ct_tensor adj[3] = {NULL, b1, b2};
    OK(ct_index(x, adj, 3, &r));
    EXPECT_SHAPE(r, 2, 2);
    EXPECT_VALS(r, 0, 9, 1, 21, 13);
    rel(r);
    /* a bool mask over dim 0, and one over both dims (as masked_select) */
    ct_tensor m = vals((const double[]){1, 0, 1}, 3, (const int64_t[]){3}, 1, CT_BOOL, dev);
    OK(ct_index(t, &m, 1, &r));
    EXPECT_SHAPE(r, 2, 4);
    EXPECT_VALS(r, 0, 0, 1, 2, 3, 8, 9, 10, 11);
    rel(r);
    ct_tensor m2 = NULL;
    OK(ct_binary_scalar_f(CT_GT, t, 8.5, 0, &m2));
    OK(ct_index(t, &m2, 1, &r));
    EXPECT_VALS(r, 0, 9, 10, 11);
    rel(r);
    /* a transposed self; a CPU index for any device */
    ct_tensor tt = NULL;
    OK(ct_transpose(t, 0, 1, &tt));
    ct_tensor ci = idx((const int64_t[]){1, 3}, 2, (const int64_t[]){2}, 1, CT_INT64, CT_CPU);
    OK(ct_index(tt, &ci, 1, &r));
    EXPECT_VALS(r, 0, 1, 5, 9, 3, 7, 11);
    rel(r);
    /* an empty index */
    ct_tensor e = idx(NULL, 0, (const int64_t[]){0}, 1, CT_INT64, dev);
    OK(ct_index(t, &e, 1, &r));
    EXPECT_SHAPE(r, 0, 4);
    rel(r);
    rel(e), rel(ci), rel(tt), rel(m2), rel(m), rel(b1), rel(b2), rel(a0), rel(a2), rel(x), rel(i0), rel(i1), rel(t);
  }
}

static void test_index_put(void) {
  init_iota();
  const int64_t s34[] = {3, 4};
  for (int d = 0; d < ndevices(); ++d) {
    ct_device_type dev = dev_of(d);
    for (int k = 0; k < NALL; ++k) {
      ct_dtype dt = ALL[k];
      ct_tensor t = vals(g_iota, 12, s34, 2, dt, dev);
      /* t[[2, 0]] = [[20..23], [24..27]] */
      ct_tensor rows = idx((const int64_t[]){2, 0}, 2, (const int64_t[]){2}, 1, CT_INT64, dev);
      ct_tensor v = vals(g_iota + 20, 8, (const int64_t[]){2, 4}, 2, dt, dev);
      OK(ct_index_put_(t, &rows, 1, v, 0));
      double w[12];
      for (int e = 0; e < 12; ++e) w[e] = e;
      for (int b = 0; b < 4; ++b) w[8 + b] = 20 + b, w[b] = 24 + b;
      for (int e = 0; e < 12; ++e) w[e] = as(dt, w[e]);
      EXPECT_ARR(t, w, 12);
      /* accumulate with a repeated row: t[[1, 1, 0]] += [1, 2, 3, 4] (broadcast) */
      ct_tensor dup = idx((const int64_t[]){1, 1, 0}, 3, (const int64_t[]){3}, 1, CT_INT64, dev);
      ct_tensor add = vals((const double[]){1, 2, 3, 4}, 4, (const int64_t[]){4}, 1, dt, dev);
      OK(ct_index_put_(t, &dup, 1, add, 1));
      for (int e = 0; e < 12; ++e) w[e] = e;
      for (int b = 0; b < 4; ++b) w[8 + b] = 20 + b, w[b] = 24 + b + (b + 1), w[4 + b] += 2 * (b + 1);
      for (int e = 0; e < 12; ++e) w[e] = as(dt, w[e]);
      EXPECT_ARR(t, w, 12);
      rel(add), rel(dup), rel(v), rel(rows), rel(t);
    }
    /* a bool mask and a 0-dim CPU value: t[t > 8.5] = -1 */
    ct_tensor t = vals(g_iota, 12, s34, 2, CT_FLOAT32, dev), m = NULL;
    OK(ct_binary_scalar_f(CT_GT, t, 8.5, 0, &m));
    ct_tensor s = vals((const double[]){-1}, 1, NULL, 0, CT_FLOAT32, CT_CPU);
    OK(ct_index_put_(t, &m, 1, s, 0));
    EXPECT_VALS(t, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1);
    /* columns of a transposed view: tt[:, [0]] = 5 writes t's row 0 */
    ct_tensor tt = NULL;
    OK(ct_transpose(t, 0, 1, &tt));
    ct_tensor c0 = idx((const int64_t[]){0}, 1, (const int64_t[]){1}, 1, CT_INT64, dev);
    ct_tensor two[2] = {NULL, c0};
    ct_tensor five = vals((const double[]){5}, 1, NULL, 0, CT_FLOAT32, dev);
    OK(ct_index_put_(tt, two, 2, five, 0));
    EXPECT_VALS(t, 0, 5, 5, 5, 5, 4, 5, 6, 7, 8, -1, -1, -1);
    /* float16 accumulation of many repeats: exact for small integers */
    ct_tensor h = NULL, z = NULL, o = NULL;
    OK(ct_full((const int64_t[]){2}, 1, 0, CT_FLOAT16, dev, 0, &h));
    OK(ct_full((const int64_t[]){500}, 1, 1, CT_INT64, dev, 0, &z));
    OK(ct_full((const int64_t[]){1}, 1, 1, CT_FLOAT16, dev, 0, &o));
    OK(ct_index_put_(h, &z, 1, o, 1));
    EXPECT_VALS(h, 0, 0, 500);
    rel(o), rel(z), rel(h), rel(five), rel(c0), rel(tt), rel(s), rel(m), rel(t);
  }
}

static void test_index_errors(void) {
  init_iota();
  ct_tensor t = vals(g_iota, 12, (const int64_t[]){3, 4}, 2, CT_FLOAT32, CT_CPU), r = NULL;
  ct_tensor bad = idx((const int64_t[]){0, 3}, 2, (const int64_t[]){2}, 1, CT_INT64, CT_CPU);
  ct_tensor neg = idx((const int64_t[]){-5}, 1, (const int64_t[]){1}, 1, CT_INT64, CT_CPU);
  ct_tensor i3 = idx((const int64_t[]){0, 1, 2}, 3, (const int64_t[]){3}, 1, CT_INT64, CT_CPU);
  ct_tensor f = vals((const double[]){0}, 1, (const int64_t[]){1}, 1, CT_FLOAT32, CT_CPU);
  ct_tensor m4 = vals((const double[]){1, 0, 1, 0}, 4, (const int64_t[]){4}, 1, CT_BOOL, CT_CPU);
  FAILS(ct_index(t, &bad, 1, &r), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
  ct_tensor second[2] = {NULL, neg};
  FAILS(ct_index(t, second, 2, &r), CT_ERR_INDEX, "index -5 is out of bounds for dimension 1 with size 4");
  ct_tensor three[3] = {i3, i3, i3};
  FAILS(ct_index(t, three, 3, &r), CT_ERR_INDEX, "too many indices for tensor of dimension 2");
  ct_tensor mism[2] = {bad, i3};
  FAILS(ct_index(t, mism, 2, &r), CT_ERR_INDEX,
        "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  FAILS(ct_index(t, &m4, 1, &r), CT_ERR_INDEX,
        "The shape of the mask [4] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0");
  FAILS(ct_index(t, &f, 1, &r), CT_ERR_INDEX, "tensors used as indices must be long, int, byte or bool tensors");
  ct_tensor none[1] = {NULL};
  FAILS(ct_index(t, none, 1, &r), CT_ERR_ARGUMENT, "");
  FAILS(ct_index(t, NULL, 1, &r), CT_ERR_NULL_POINTER, "index_tensors");
  ct_tensor vd = vals((const double[]){1}, 1, NULL, 0, CT_FLOAT64, CT_CPU);
  FAILS(ct_index_put_(t, &i3, 1, vd, 0), CT_ERR_DTYPE,
        "Index put requires the source and destination dtypes match, got Float for the destination and Double for the source.");
  ct_tensor v3 = vals((const double[]){1, 2, 3}, 3, (const int64_t[]){3}, 1, CT_FLOAT32, CT_CPU);
  FAILS(ct_index_put_(t, &i3, 1, v3, 0), CT_ERR_SHAPE, "");
  ct_tensor vf = vals((const double[]){1}, 1, NULL, 0, CT_FLOAT32, CT_CPU);
  FAILS(ct_index_put_(t, &bad, 1, vf, 1), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_ARR(t, g_iota, 12); /* nothing written */
  rel(vf), rel(v3), rel(vd), rel(m4), rel(f), rel(i3), rel(neg), rel(bad), rel(t);
}

/* ---- bad input: PyTorch's messages; on the CPU an index out of range writes nothing */

static void test_errors(void) {
  init_iota();
  ct_tensor t = vals(g_iota, 12, (const int64_t[]){3, 4}, 2, CT_FLOAT32, CT_CPU), r = NULL;
  ct_tensor bad = idx((const int64_t[]){0, 5}, 2, (const int64_t[]){2}, 1, CT_INT64, CT_CPU);
  ct_tensor neg = idx((const int64_t[]){-1}, 1, (const int64_t[]){1}, 1, CT_INT64, CT_CPU);
  ct_tensor f = vals((const double[]){0}, 1, (const int64_t[]){1}, 1, CT_FLOAT32, CT_CPU);
  ct_tensor i2 = idx((const int64_t[]){0, 1}, 2, (const int64_t[]){1, 2}, 2, CT_INT64, CT_CPU);
  FAILS(ct_index_select(t, 0, bad, &r), CT_ERR_INDEX, "index out of range in self");
  FAILS(ct_index_select(t, 0, neg, &r), CT_ERR_INDEX, "index out of range in self");
  FAILS(ct_index_select(t, 0, f, &r), CT_ERR_DTYPE, "index_select(): Expected dtype int32 or int64 for index");
  FAILS(ct_index_select(t, 0, i2, &r), CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
  FAILS(ct_index_select(t, 2, neg, &r), CT_ERR_INDEX, "Dimension out of range");
  FAILS(ct_index_select(t, 0, bad, NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_index_select(NULL, 0, bad, &r), CT_ERR_INVALID_HANDLE, "");
  ct_tensor gi = idx((const int64_t[]){0, 3, 1, 1, 2, 5}, 6, (const int64_t[]){3, 2}, 2, CT_INT64, CT_CPU);
  FAILS(ct_gather(t, 1, gi, &r), CT_ERR_INDEX, "index 5 is out of bounds for dimension 1 with size 4");
  ct_tensor gi32 = idx((const int64_t[]){0, 1}, 2, (const int64_t[]){1, 2}, 2, CT_INT32, CT_CPU);
  FAILS(ct_gather(t, 1, gi32, &r), CT_ERR_DTYPE, "gather(): Expected dtype int64 for index");
  ct_tensor big1 = NULL;
  OK(ct_full((const int64_t[]){2, 5}, 2, 0, CT_INT64, CT_CPU, -1, &big1));
  FAILS(ct_gather(t, 0, big1, &r), CT_ERR_SHAPE,
        "Size does not match at dimension 1 expected index [2, 5] to be no larger than self [3, 4] apart from dimension 0");
  FAILS(ct_gather(t, 0, bad, &r), CT_ERR_SHAPE, "Index tensor must have the same number of dimensions as input tensor");
  ct_tensor tk = idx((const int64_t[]){12}, 1, (const int64_t[]){1}, 1, CT_INT64, CT_CPU);
  FAILS(ct_take(t, tk, &r), CT_ERR_INDEX, "out of range: tried to access index 12 on a tensor of 12 elements.");
  ct_tensor tk2 = idx((const int64_t[]){-13}, 1, (const int64_t[]){1}, 1, CT_INT64, CT_CPU);
  FAILS(ct_take(t, tk2, &r), CT_ERR_INDEX, "out of range: tried to access index -13 on a tensor of 12 elements.");
  FAILS(ct_take(t, gi32, &r), CT_ERR_DTYPE, "take(): Expected a long tensor for index, but got Int");
  ct_tensor u8 = vals((const double[]){1, 0, 1, 0}, 4, (const int64_t[]){4}, 1, CT_UINT8, CT_CPU);
  FAILS(ct_masked_fill(t, u8, 0, &r), CT_ERR_DTYPE,
        "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char");
  FAILS(ct_masked_fill_(t, f, 0), CT_ERR_DTYPE, "masked_fill_ only supports boolean masks, but got mask with dtype float");
  FAILS(ct_masked_select(t, u8, &r), CT_ERR_DTYPE, "masked_select: expected BoolTensor for mask");
  ct_tensor m5 = vals((const double[]){1, 0, 1, 0, 1}, 5, (const int64_t[]){5}, 1, CT_BOOL, CT_CPU);
  FAILS(ct_masked_select(t, m5, &r), CT_ERR_SHAPE, "The size of tensor a (4) must match the size of tensor b (5)");
  FAILS(ct_where_cond(t, NULL, 2, NULL), CT_ERR_NULL_POINTER, "");
  /* nothing written by a failed call: t is still 0..11 */
  EXPECT_ARR(t, g_iota, 12);
  rel(m5), rel(u8), rel(tk), rel(tk2), rel(big1), rel(gi), rel(gi32), rel(i2), rel(f), rel(neg), rel(bad), rel(t);
}

/* ---- devices */

static void test_device_mismatch(void) {
  SKIP_WITHOUT_CUDA();
  init_iota();
  ct_tensor t = vals(g_iota, 4, (const int64_t[]){4}, 1, CT_FLOAT32, CT_CUDA), r = NULL;
  ct_tensor i = idx((const int64_t[]){1}, 1, (const int64_t[]){1}, 1, CT_INT64, CT_CPU);
  ct_tensor m = vals((const double[]){1, 0, 1, 0}, 4, (const int64_t[]){4}, 1, CT_BOOL, CT_CPU);
  FAILS(ct_index_select(t, 0, i, &r), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
  FAILS(ct_gather(t, 0, i, &r), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
  FAILS(ct_take(t, i, &r), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
  FAILS(ct_masked_fill_(t, m, 1), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
  FAILS(ct_masked_select(t, m, &r), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
  rel(m), rel(i), rel(t);
}

/* The child process of device_assert: a CUDA index out of range. With CUDA_LAUNCH_BLOCKING=1
 * the op itself reports the assertion; otherwise the op succeeds and the next synchronizing
 * call does. Exit 0 when it went as described. */
static int assert_child(const char* which) {
  int blocking = getenv("CUDA_LAUNCH_BLOCKING") && strcmp(getenv("CUDA_LAUNCH_BLOCKING"), "1") == 0;
  ct_tensor t = NULL, i = NULL, r = NULL;
  if (ct_full((const int64_t[]){3}, 1, 1, CT_FLOAT32, CT_CUDA, 0, &t) != CT_OK) return 2;
  ct_tensor h = from_i64((const int64_t[]){0, 5}, 2, (const int64_t[]){2}, 1, CT_INT64);
  if (ct_tensor_to(h, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &i) != CT_OK) return 3;
  ct_status s;
  if (strcmp(which, "gather_groups") == 0) { /* float16, 8 indices: the grouped kernel */
    ct_tensor h8 = from_i64((const int64_t[]){0, 1, 2, 0, 1, 2, 0, 5}, 8, (const int64_t[]){8}, 1, CT_INT64), t16 = NULL;
    ct_tensor_release(i);
    if (ct_tensor_to(h8, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &i) != CT_OK) return 3;
    if (ct_tensor_to(t, CT_CUDA, 0, CT_FLOAT16, 0, 0, &t16) != CT_OK) return 3;
    s = ct_gather(t16, 0, i, &r);
    ct_tensor_release(h8);
  } else if (strcmp(which, "gather") == 0) s = ct_gather(t, 0, i, &r);
  else if (strcmp(which, "take") == 0) s = ct_take(t, i, &r);
  else if (strcmp(which, "scatter_add") == 0) s = ct_scatter_add(t, 0, i, t, &r);
  else if (strcmp(which, "index") == 0) s = ct_index(t, &i, 1, &r);
  else s = ct_index_select(t, 0, i, &r);
  if (blocking) {
    if (s != CT_ERR_CUDA || !strstr(ct_last_error_message(), "device-side assert triggered")) {
      fprintf(stderr, "blocking: the op returned %s: %s\n", ct_status_name(s), ct_last_error_message());
      return 4;
    }
    return 0;
  }
  /* An op of several launches (index: the check, then the offsets' arithmetic) may see the
   * sticky error at one of its own later launches; otherwise the next synchronizing call does. */
  if (s != CT_OK) {
    if (s == CT_ERR_CUDA && strstr(ct_last_error_message(), "device-side assert triggered")) return 0;
    fprintf(stderr, "the op returned %s: %s\n", ct_status_name(s), ct_last_error_message());
    return 5;
  }
  s = ct_cuda_synchronize(0);
  if (s != CT_ERR_CUDA || !strstr(ct_last_error_message(), "device-side assert triggered")) {
    fprintf(stderr, "synchronize returned %s: %s\n", ct_status_name(s), ct_last_error_message());
    return 6;
  }
  return 0;
}

static const char* g_self = NULL;

static int run_child(const char* which, int blocking) {
  pid_t pid = fork();
  if (pid == 0) {
    /* The child's assertion is the expected outcome: it runs outside compute-sanitizer (whose
     * tools the CUDA driver loads through CUDA_INJECTION64_PATH), which would report it. */
    unsetenv("CUDA_INJECTION64_PATH");
    if (blocking) setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
    else unsetenv("CUDA_LAUNCH_BLOCKING");
    execl(g_self, g_self, "--assert-child", which, (char*)NULL);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_device_assert(void) {
  SKIP_WITHOUT_CUDA();
  const char* ops[] = {"index_select", "gather", "gather_groups", "take", "scatter_add", "index"};
  for (int k = 0; k < 6; ++k) {
    for (int blocking = 0; blocking < 2; ++blocking) {
      int rc = run_child(ops[k], blocking);
      if (rc != 0) FAILF("%s (CUDA_LAUNCH_BLOCKING=%d): the child exited with %d", ops[k], blocking, rc);
    }
  }
}

int main(int argc, char** argv) {
  (void)argv;
  g_self = "/proc/self/exe";
  if (argc == 3 && strcmp(argv[1], "--assert-child") == 0) return assert_child(argv[2]);
  const test_case tests[] = {TEST_CASE(index_select), TEST_CASE(gather), TEST_CASE(gather_groups),       TEST_CASE(take),
                             TEST_CASE(masked_fill),  TEST_CASE(masked_select), TEST_CASE(parallel_paths), TEST_CASE(nonzero),
                             TEST_CASE(index_select_rows), TEST_CASE(nonzero_coords), TEST_CASE(nonzero_bits), TEST_CASE(index_add_pairs),
                             TEST_CASE(scatter), TEST_CASE(index_add), TEST_CASE(scatter_errors), TEST_CASE(index), TEST_CASE(index_put), TEST_CASE(index_errors), TEST_CASE(errors),       TEST_CASE(device_mismatch), TEST_CASE(device_assert)};
  return RUN_TESTS(tests);
}
