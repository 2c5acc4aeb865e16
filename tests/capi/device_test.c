/* CPU/CUDA parity: every op runs on the CPU (whose results the main suite checks against
 * hand-computed values) and on each CUDA device, on the same inputs; results must have the
 * same dtype, shape and values (exactly for integers, bools and exact float ops; within a few
 * ulps for transcendental functions and reordered sums). Also CUDA-only behaviour: copies
 * between devices and dtypes, CPU scalars with CUDA tensors, device mismatch errors, printing.
 * Without a GPU every case is skipped visibly. */
#include "tests/capi/cast_cases.h"
#include "tests/capi/test_util.h"

static int g_compared = 0;

/* deterministic pseudo-random values in [-4, 4) with a few specials */
static double value_at(int64_t i, int salt) {
  uint64_t x = (uint64_t)(i + 1) * 6364136223846793005ULL + (uint64_t)salt * 1442695040888963407ULL;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 32;
  double v = (double)(x % 8000) / 1000.0 - 4.0;
  if (i % 17 == 5) v = 0.0;
  if (i % 23 == 7) v = (double)(int64_t)v; /* exact integers (ties for argmax, x.5 for round) */
  return v;
}

static ct_tensor make_input(const int64_t* sizes, int32_t nd, ct_dtype dt, int salt) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  double* v = (double*)malloc((size_t)(n ? n : 1) * 8);
  for (int64_t i = 0; i < n; ++i) v[i] = value_at(i, salt);
  if (dt == CT_UINT8) for (int64_t i = 0; i < n; ++i) v[i] = fabs(v[i]) * 30;
  if (dt == CT_INT8 || dt == CT_INT16 || dt == CT_INT32 || dt == CT_INT64) for (int64_t i = 0; i < n; ++i) v[i] *= 3;
  ct_tensor t = from_f64(v, n, sizes, nd, dt);
  free(v);
  return t;
}

static ct_tensor to_cuda(ct_tensor t, int dev) {
  ct_tensor r = NULL;
  if (ct_tensor_to(t, CT_CUDA, dev, CT_DTYPE_UNDEFINED, 0, 0, &r) != CT_OK) FAILF("to cuda: %s", ct_last_error_message());
  return r;
}

static int is_complex_dt(ct_dtype d) { return d == CT_COMPLEX64 || d == CT_COMPLEX128; }

static int is_float_dt(ct_dtype d) {
  return d == CT_FLOAT16 || d == CT_BFLOAT16 || d == CT_FLOAT32 || d == CT_FLOAT64 || d == CT_COMPLEX64 || d == CT_COMPLEX128;
}

/* Compares a CUDA result with the CPU result. rel: relative tolerance for floating dtypes. */
static void compare(ct_tensor cpu, ct_tensor gpu, double rtol, const char* what) {
  ct_dtype dc, dg;
  OK(ct_tensor_dtype(cpu, &dc));
  OK(ct_tensor_dtype(gpu, &dg));
  if (dc != dg) {
    FAILF("%s: dtype %d on CPU, %d on CUDA", what, dc, dg);
    return;
  }
  int64_t sc[16], sg[16];
  int32_t nc, ng;
  OK(ct_tensor_sizes(cpu, sc, 16, &nc));
  OK(ct_tensor_sizes(gpu, sg, 16, &ng));
  if (nc != ng || memcmp(sc, sg, (size_t)nc * 8) != 0) {
    FAILF("%s: shapes differ", what);
    return;
  }
  ct_device_type t;
  int32_t idx;
  OK(ct_tensor_device(gpu, &t, &idx));
  if (t != CT_CUDA) FAILF("%s: result is not on CUDA", what);
  /* compare as complex128 (covers every dtype exactly except int64 beyond 2^53) */
  ct_tensor a, b;
  ct_dtype cmp = (dc == CT_INT64 || dc == CT_INT32 || dc == CT_UINT8 || dc == CT_INT8 || dc == CT_INT16 || dc == CT_BOOL)
                     ? CT_INT64 : CT_COMPLEX128;
  OK(ct_tensor_to(cpu, CT_CPU, -1, cmp, 0, 1, &a));
  OK(ct_tensor_to(gpu, CT_CPU, -1, cmp, 0, 1, &b));
  int64_t n;
  OK(ct_tensor_numel(a, &n));
  int64_t isz = cmp == CT_INT64 ? 8 : 16;
  char* x = (char*)malloc((size_t)(n ? n : 1) * isz);
  char* y = (char*)malloc((size_t)(n ? n : 1) * isz);
  OK(ct_tensor_copy_to_buffer(a, x, n * isz));
  OK(ct_tensor_copy_to_buffer(b, y, n * isz));
  for (int64_t i = 0; i < n; ++i) {
    if (cmp == CT_INT64) {
      int64_t u = ((int64_t*)x)[i], v = ((int64_t*)y)[i];
      if (u != v) {
        FAILF("%s[%lld]: CPU %lld, CUDA %lld", what, (long long)i, (long long)u, (long long)v);
        break;
      }
    } else {
      for (int k = 0; k < 2; ++k) {
        double u = ((double*)x)[2 * i + k], v = ((double*)y)[2 * i + k];
        if (isnan(u) && isnan(v)) continue;
        if (u == v) continue;
        double tol = rtol * fmax(1.0, fabs(u));
        if (!is_float_dt(dc)) tol = 0;
        if (!(fabs(u - v) <= tol)) {
          FAILF("%s[%lld]%s: CPU %.17g, CUDA %.17g", what, (long long)i, k ? ".imag" : "", u, v);
          i = n;
          break;
        }
      }
    }
  }
  free(x);
  free(y);
  rel(a);
  rel(b);
  g_compared++;
}

static double tol_for(ct_dtype d, int approx) {
  if (d == CT_FLOAT16) return approx ? 2e-3 : 1e-3;
  if (d == CT_BFLOAT16) return approx ? 1.6e-2 : 8e-3;
  if (d == CT_FLOAT32 || d == CT_COMPLEX64) return approx ? 2e-6 : 0;
  return approx ? 1e-13 : 0;
}


static const ct_dtype k_dtypes[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT32, CT_INT64,
                                     CT_UINT8,   CT_INT8,    CT_INT16,   CT_BOOL,     CT_COMPLEX64, CT_COMPLEX128};
#define N_DTYPES ((int)(sizeof k_dtypes / sizeof k_dtypes[0]))

static void test_unary_parity(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t shape[2] = {37, 29};
  for (int d = 0; d < N_DTYPES; ++d) {
    ct_tensor x = make_input(shape, 2, k_dtypes[d], 1), xt, xg, xgt;
    OK(ct_transpose(x, 0, 1, &xt)); /* non-contiguous input */
    xg = to_cuda(x, 0);
    OK(ct_transpose(xg, 0, 1, &xgt));
    for (int op = CT_NEG; op <= CT_SQUARE; ++op) {
      for (int layout = 0; layout < 2; ++layout) {
        ct_tensor rc = NULL, rg = NULL;
        ct_status sc = ct_unary(op, layout ? xt : x, &rc);
        ct_status sg = ct_unary(op, layout ? xgt : xg, &rg);
        char what[96];
        snprintf(what, sizeof what, "unary op %d dtype %d layout %d", op, k_dtypes[d], layout);
        if (sc != sg) FAILF("%s: CPU status %d, CUDA status %d (%s)", what, sc, sg, ct_last_error_message());
        else if (sc == CT_OK) {
          ct_dtype rd;
          OK(ct_tensor_dtype(rc, &rd));
          /* complex division (reciprocal) uses different algorithms on the two sides */
          int approx = (op >= CT_EXP && op <= CT_SIGMOID) || (op == CT_RECIPROCAL && is_complex_dt(rd));
          compare(rc, rg, tol_for(rd, approx), what);
        }
        rel(rc), rel(rg);
      }
    }
    rel(x), rel(xt), rel(xg), rel(xgt);
  }
}

static void test_binary_parity(void) {
  SKIP_WITHOUT_CUDA();
  struct { ct_dtype a, b; int64_t sa[2], sb[2]; int nda, ndb; } cases[] = {
      {CT_FLOAT32, CT_FLOAT32, {64, 33}, {64, 33}, 2, 2},
      {CT_FLOAT32, CT_FLOAT32, {64, 32}, {64, 32}, 2, 2}, /* float4 path */
      {CT_FLOAT64, CT_FLOAT32, {5, 1}, {7}, 2, 1},         /* broadcast */
      {CT_INT32, CT_INT64, {40, 3}, {40, 3}, 2, 2},
      {CT_UINT8, CT_INT8, {100}, {100}, 1, 1},
      {CT_FLOAT16, CT_FLOAT32, {30}, {30}, 1, 1},
      {CT_BFLOAT16, CT_BFLOAT16, {30}, {30}, 1, 1},
      {CT_BOOL, CT_BOOL, {50}, {50}, 1, 1},
      {CT_INT16, CT_UINT8, {3, 9}, {9}, 2, 1},
      {CT_COMPLEX64, CT_FLOAT64, {20}, {20}, 1, 1},
      {CT_INT64, CT_FLOAT16, {20}, {1}, 1, 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ct_tensor a = make_input(cases[c].sa, cases[c].nda, cases[c].a, 2);
    ct_tensor b = make_input(cases[c].sb, cases[c].ndb, cases[c].b, 3);
    ct_tensor ag = to_cuda(a, 0), bg = to_cuda(b, 0);
    /* every op the library has (capi/abi.toml): up to the first code it refuses as unknown */
    int op = CT_ADD;
    for (;; ++op) {
      ct_tensor rc = NULL, rg = NULL;
      char what[96];
      snprintf(what, sizeof what, "binary op %d case %d", op, (int)c);
      /* integer division by zero is an error on the CPU and unspecified on CUDA: skip those */
      ct_status sc = ct_binary(op, a, b, &rc);
      if (sc == CT_ERR_ARGUMENT && strstr(ct_last_error_message(), "unknown binary op")) break;
      if (sc == CT_ERR_ARGUMENT && strstr(ct_last_error_message(), "ZeroDivision")) continue;
      ct_status sg = ct_binary(op, ag, bg, &rg);
      if (sc != sg) FAILF("%s: CPU status %d, CUDA status %d (%s)", what, sc, sg, ct_last_error_message());
      else if (sc == CT_OK) {
        ct_dtype rd;
        OK(ct_tensor_dtype(rc, &rd));
        compare(rc, rg, tol_for(rd, op == CT_POW || op == CT_ATAN2 || (op == CT_DIV && is_complex_dt(rd))), what);
      }
      rel(rc), rel(rg);
      /* with a Python scalar on the right and on the left (kernel-parameter scalars) */
      for (int rev = 0; rev < 2; ++rev) {
        rc = rg = NULL;
        sc = ct_binary_scalar_f(op, a, 1.5, rev, &rc);
        sg = ct_binary_scalar_f(op, ag, 1.5, rev, &rg);
        if (sc != sg) FAILF("%s scalar_f rev %d: CPU %d, CUDA %d", what, rev, sc, sg);
        else if (sc == CT_OK) {
          ct_dtype rd;
          OK(ct_tensor_dtype(rc, &rd));
          /* CUDA divides by a scalar as torch.cuda does, by its reciprocal; the CPU divides */
          compare(rc, rg, tol_for(rd, op == CT_POW || op == CT_ATAN2 || (op == CT_DIV && (is_complex_dt(rd) || !rev))), what);
        }
        rel(rc), rel(rg);
        rc = rg = NULL;
        sc = ct_binary_scalar_i(op, a, 3, rev, &rc);
        if (sc == CT_ERR_ARGUMENT && strstr(ct_last_error_message(), "ZeroDivision")) continue;
        sg = ct_binary_scalar_i(op, ag, 3, rev, &rg);
        if (sc != sg) FAILF("%s scalar_i rev %d: CPU %d, CUDA %d", what, rev, sc, sg);
        else if (sc == CT_OK) {
          ct_dtype rd;
          OK(ct_tensor_dtype(rc, &rd));
          compare(rc, rg, tol_for(rd, op == CT_POW || op == CT_ATAN2 || (op == CT_DIV && !rev)), what);
        }
        rel(rc), rel(rg);
      }
    }
    if (op <= CT_ATAN2) FAILF("case %d: the op loop stopped at %d, before CT_ATAN2", (int)c, op);
    /* in place */
    ct_tensor ac, agc;
    OK(ct_tensor_clone(a, &ac));
    OK(ct_tensor_clone(ag, &agc));
    ct_status s1 = ct_binary_(CT_MUL, ac, b), s2 = ct_binary_(CT_MUL, agc, bg);
    if (s1 != s2) FAILF("in-place case %d: CPU %d CUDA %d", (int)c, s1, s2);
    else if (s1 == CT_OK) compare(ac, agc, 0, "in-place mul");
    rel(ac), rel(agc), rel(a), rel(b), rel(ag), rel(bg);
  }
}

static void test_cast_parity(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t shape[1] = {257};
  for (int s = 0; s < N_DTYPES; ++s) {
    ct_tensor x = make_input(shape, 1, k_dtypes[s], 4), xg = to_cuda(x, 0);
    for (int d = 0; d < N_DTYPES; ++d) {
      ct_tensor rc, rg;
      OK(ct_tensor_to(x, CT_CPU, -1, k_dtypes[d], 0, 0, &rc));
      OK(ct_tensor_to(xg, CT_CUDA, 0, k_dtypes[d], 0, 0, &rg));
      char what[64];
      snprintf(what, sizeof what, "cast %d -> %d", k_dtypes[s], k_dtypes[d]);
      compare(rc, rg, 0, what);
      rel(rc), rel(rg);
    }
    rel(x), rel(xg);
  }
  /* negative floats to uint8 wrap through int64, as c10 does */
  ct_tensor f = F64(CT_FLOAT32, -1, -2.5, 300), fg = to_cuda(f, 0), u, ug;
  OK(ct_tensor_to(f, CT_CPU, -1, CT_UINT8, 0, 0, &u));
  OK(ct_tensor_to(fg, CT_CUDA, 0, CT_UINT8, 0, 0, &ug));
  EXPECT_VALS(u, 0, 255, 254, 44);
  EXPECT_VALS(ug, 0, 255, 254, 44);
  rel(f), rel(fg), rel(u), rel(ug);
}

/* values an integer type cannot hold: the GPU's conversion (saturating), as PyTorch's CUDA
 * kernels give it, while the CPU gives x86-64's (capi_test.c); tests/capi/cast_cases.h */
/* an empty bool tensor starts all false on CUDA too, even in a block that held other bytes */
static void test_empty_bool_is_false(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t n[1] = {4096};
  ct_tensor f, b;
  OK(ct_full(n, 1, 3.0, CT_FLOAT32, CT_CUDA, 0, &f)); /* bytes 00 00 40 40 */
  rel(f);                                             /* the block goes back to the cache */
  OK(ct_empty(n, 1, CT_BOOL, CT_CUDA, 0, &b));
  static unsigned char bytes[4096];
  memset(bytes, 0xab, sizeof bytes);
  OK(ct_tensor_copy_to_buffer(b, bytes, sizeof bytes));
  int nonzero = 0;
  for (int i = 0; i < 4096; ++i) nonzero += bytes[i] != 0;
  EXPECT_EQ_I(nonzero, 0);
  rel(b);
}

static void test_out_of_range_casts(void) {
  SKIP_WITHOUT_CUDA();
  CHECK_CASTS(kCastCuda, CT_CUDA);
}

static void test_reduction_parity(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t shapes[][3] = {{7, 5, 3}, {1, 100000, 1}, {3000, 2, 9}, {4, 33, 70}};
  /* dims: all, {0} and {0, 1} (leading dims: reduced in place, Note [Reducing leading dims]),
     {0, 2}, {2} (rows) */
  const int64_t dimsets[][3] = {{0, 0, 0}, {0, 0, 0}, {0, 2, 0}, {2, 0, 0}, {0, 1, 0}};
  const int ndims[] = {0, 1, 2, 1, 2};
  for (int sh = 0; sh < 4; ++sh) {
    for (int d = 0; d < N_DTYPES; ++d) {
      ct_dtype dt = k_dtypes[d];
      ct_tensor x = make_input(shapes[sh], 3, dt, 5), xg = to_cuda(x, 0);
      for (int ds = 0; ds < 5; ++ds) {
        for (int op = CT_SUM; op <= CT_AMIN; ++op) {
          for (int keep = 0; keep < 2; ++keep) {
            ct_tensor rc = NULL, rg = NULL;
            ct_status sc = ct_reduce(op, x, ndims[ds] ? dimsets[ds] : NULL, ndims[ds], keep, CT_DTYPE_UNDEFINED, &rc);
            ct_status sg = ct_reduce(op, xg, ndims[ds] ? dimsets[ds] : NULL, ndims[ds], keep, CT_DTYPE_UNDEFINED, &rg);
            char what[96];
            snprintf(what, sizeof what, "reduce op %d dtype %d shape %d dims %d keep %d", op, dt, sh, ds, keep);
            if (sc != sg) FAILF("%s: CPU %d CUDA %d", what, sc, sg);
            else if (sc == CT_OK) {
              ct_dtype rd;
              OK(ct_tensor_dtype(rc, &rd));
              double tol = (op == CT_AMAX || op == CT_AMIN) ? 0 : (rd == CT_FLOAT16 ? 2e-3 : rd == CT_BFLOAT16 ? 1.6e-2 : 1e-6);
              /* float prod over 100000 values can overflow to inf/0 identically; sums reorder */
              compare(rc, rg, tol, what);
            }
            rel(rc), rel(rg);
          }
        }
        if (dt != CT_COMPLEX64 && dt != CT_COMPLEX128) {
          ct_tensor vc = NULL, ic = NULL, vg = NULL, ig = NULL;
          int32_t dim = ds >= 3 ? 2 : ds;
          ct_status s1 = ct_max_dim(x, dim, 1, &vc, &ic), s2 = ct_max_dim(xg, dim, 1, &vg, &ig);
          if (s1 != s2) FAILF("max_dim dtype %d: CPU %d CUDA %d", dt, s1, s2);
          else if (s1 == CT_OK) {
            compare(vc, vg, 0, "max_dim values");
            compare(ic, ig, 0, "max_dim indices");
          }
          rel(vc), rel(ic), rel(vg), rel(ig);
          ct_tensor ac = NULL, ag = NULL;
          s1 = ct_argmin(x, ds != 0, dim, 0, &ac);
          s2 = ct_argmin(xg, ds != 0, dim, 0, &ag);
          if (s1 != s2) FAILF("argmin dtype %d: CPU %d CUDA %d", dt, s1, s2);
          else if (s1 == CT_OK) compare(ac, ag, 0, "argmin");
          rel(ac), rel(ag);
        }
        if (is_float_dt(dt)) {
          const double ps[] = {0, 1, 2, 3.5, INFINITY, -INFINITY};
          for (int p = 0; p < 6; ++p) {
            ct_tensor nc = NULL, ng = NULL;
            OK(ct_norm(x, ps[p], ndims[ds] ? dimsets[ds] : NULL, ndims[ds], 0, &nc));
            OK(ct_norm(xg, ps[p], ndims[ds] ? dimsets[ds] : NULL, ndims[ds], 0, &ng));
            ct_dtype rd;
            OK(ct_tensor_dtype(nc, &rd));
            compare(nc, ng, rd == CT_FLOAT16 ? 2e-3 : rd == CT_BFLOAT16 ? 1.6e-2 : 1e-6, "norm");
            rel(nc), rel(ng);
          }
        }
      }
      rel(x), rel(xg);
    }
  }
  /* Long rows read as 16-byte vectors where a chunk starts aligned, one by one where not: the
     same values from an offset of 0..3 elements, rows of odd lengths, and NaN anywhere. */
  for (int d = 0; d < 2; ++d) {
    ct_dtype dt = d ? CT_FLOAT64 : CT_FLOAT32;
    const int64_t n = 300007;
    ct_tensor x = make_input(&n, 1, dt, 9), xg = to_cuda(x, 0);
    for (int off = 0; off < 4; ++off) {
      ct_tensor v, vg, rc, rg;
      OK(ct_narrow(x, 0, off, n - 4, &v));
      OK(ct_narrow(xg, 0, off, n - 4, &vg));
      for (int op = CT_SUM; op <= CT_AMIN; ++op) {
        if (op == CT_PROD) continue;
        char what[80];
        snprintf(what, sizeof what, "long row op %d dtype %d offset %d", op, dt, off);
        OK(ct_reduce(op, v, NULL, 0, 0, CT_DTYPE_UNDEFINED, &rc));
        OK(ct_reduce(op, vg, NULL, 0, 0, CT_DTYPE_UNDEFINED, &rg));
        compare(rc, rg, op >= CT_AMAX ? 0 : (d ? 1e-9 : 1e-6), what);
        rel(rc), rel(rg);
      }
      /* 3 rows of 100001 (each row starts at a different alignment) */
      ct_tensor m, mg;
      OK(ct_reshape(v, (int64_t[]){3, 100001}, 2, &m));
      OK(ct_reshape(vg, (int64_t[]){3, 100001}, 2, &mg));
      int64_t dim1 = 1;
      OK(ct_reduce(CT_SUM, m, &dim1, 1, 0, CT_DTYPE_UNDEFINED, &rc));
      OK(ct_reduce(CT_SUM, mg, &dim1, 1, 0, CT_DTYPE_UNDEFINED, &rg));
      compare(rc, rg, d ? 1e-9 : 1e-6, "rows of 100001");
      rel(rc), rel(rg), rel(m), rel(mg), rel(v), rel(vg);
    }
    /* leading-dim reductions of [3000, 100] (vector loads over columns, 47 row chunks combined
       by the last block of each column tile) and of the same values one element off alignment
       (one column per thread) */
    for (int off = 0; off < 2; ++off) {
      ct_tensor v, vg, m, mg, rc, rg;
      OK(ct_narrow(x, 0, off, 300000, &v));
      OK(ct_narrow(xg, 0, off, 300000, &vg));
      OK(ct_reshape(v, (int64_t[]){3000, 100}, 2, &m));
      OK(ct_reshape(vg, (int64_t[]){3000, 100}, 2, &mg));
      int64_t dim0 = 0;
      for (int op = CT_SUM; op <= CT_AMIN; ++op) {
        if (op == CT_PROD) continue;
        char what[80];
        snprintf(what, sizeof what, "dim 0 of [3000, 100] op %d dtype %d offset %d", op, dt, off);
        OK(ct_reduce(op, m, &dim0, 1, 0, CT_DTYPE_UNDEFINED, &rc));
        OK(ct_reduce(op, mg, &dim0, 1, 0, CT_DTYPE_UNDEFINED, &rg));
        compare(rc, rg, op >= CT_AMAX ? 0 : (d ? 1e-9 : 1e-6), what);
        rel(rc), rel(rg);
      }
      rel(v), rel(vg), rel(m), rel(mg);
    }
    /* a NaN in the vectorized part and in the tail propagates through amax, and sums to NaN */
    for (int pos = 0; pos < 2; ++pos) {
      ct_tensor nanv, idx, rc, rg;
      int64_t at = pos ? n - 1 : 1000;
      OK(ct_full((int64_t[]){1}, 1, NAN, dt, CT_CUDA, 0, &nanv));
      OK(ct_narrow(xg, 0, at, 1, &idx));
      OK(ct_tensor_copy_(idx, nanv, 0));
      OK(ct_reduce(CT_AMAX, xg, NULL, 0, 0, CT_DTYPE_UNDEFINED, &rg));
      OK(ct_reduce(CT_SUM, xg, NULL, 0, 0, CT_DTYPE_UNDEFINED, &rc));
      double a = 0, b = 0;
      OK(ct_tensor_item_double(rg, &a));
      OK(ct_tensor_item_double(rc, &b));
      EXPECT(isnan(a) && isnan(b));
      rel(nanv), rel(idx), rel(rc), rel(rg);
      ct_tensor fresh = make_input(&n, 1, dt, 9), fg = to_cuda(fresh, 0);
      OK(ct_tensor_copy_(xg, fg, 0));
      rel(fresh), rel(fg);
    }
    rel(x), rel(xg);
  }
}

static void test_factories_views_join_on_cuda(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor c, g;
  OK(ct_arange(-3, 7, 0.5, CT_FLOAT32, CT_CPU, -1, &c));
  OK(ct_arange(-3, 7, 0.5, CT_FLOAT32, CT_CUDA, 0, &g));
  compare(c, g, 0, "arange");
  rel(c), rel(g);
  OK(ct_linspace(-1, 2, 101, CT_FLOAT64, CT_CPU, -1, &c));
  OK(ct_linspace(-1, 2, 101, CT_FLOAT64, CT_CUDA, 0, &g));
  compare(c, g, 0, "linspace");
  rel(c), rel(g);
  OK(ct_eye(5, 7, CT_INT32, CT_CPU, -1, &c));
  OK(ct_eye(5, 7, CT_INT32, CT_CUDA, -1, &g)); /* "cuda": the current device */
  compare(c, g, 0, "eye");
  rel(c), rel(g);
  OK(ct_full((int64_t[]){3, 4}, 2, -2.5, CT_BFLOAT16, CT_CPU, -1, &c));
  OK(ct_full((int64_t[]){3, 4}, 2, -2.5, CT_BFLOAT16, CT_CUDA, 0, &g));
  compare(c, g, 0, "full");
  ct_tensor v, vg;
  OK(ct_narrow(c, 1, 1, 2, &v));
  OK(ct_narrow(g, 1, 1, 2, &vg));
  OK(ct_fill_(v, 7));
  OK(ct_fill_(vg, 7)); /* fill through a non-contiguous view */
  compare(c, g, 0, "fill_ view");
  rel(v), rel(vg), rel(c), rel(g);
  /* where with a CPU scalar operand, clamp, cat, stack, contiguous of a permuted view */
  const int64_t sh[2] = {6, 8};
  ct_tensor x = make_input(sh, 2, CT_FLOAT32, 9), xg = to_cuda(x, 0);
  ct_tensor cond, condg, zero;
  OK(ct_binary_scalar_f(CT_GT, x, 0, 0, &cond));
  OK(ct_binary_scalar_f(CT_GT, xg, 0, 0, &condg));
  OK(ct_full(NULL, 0, -1, CT_FLOAT64, CT_CPU, -1, &zero));
  ct_tensor r1, r2;
  OK(ct_where(cond, x, zero, &r1));
  OK(ct_where(condg, xg, zero, &r2));
  compare(r1, r2, 0, "where with a CPU 0-dim operand");
  rel(r1), rel(r2);
  OK(ct_clamp(x, 1, -1, 1, 0.5, &r1));
  OK(ct_clamp(xg, 1, -1, 1, 0.5, &r2));
  compare(r1, r2, 0, "clamp");
  rel(r1), rel(r2);
  OK(ct_cat((ct_tensor[]){x, x}, 2, 1, &r1));
  OK(ct_cat((ct_tensor[]){xg, xg}, 2, 1, &r2));
  compare(r1, r2, 0, "cat");
  rel(r1), rel(r2);
  OK(ct_stack((ct_tensor[]){x, x, x}, 3, 2, &r1));
  OK(ct_stack((ct_tensor[]){xg, xg, xg}, 3, 2, &r2));
  compare(r1, r2, 0, "stack");
  ct_tensor p1, p2;
  OK(ct_permute(r1, (int64_t[]){2, 0, 1}, 3, &p1));
  OK(ct_permute(r2, (int64_t[]){2, 0, 1}, 3, &p2));
  rel(r1), rel(r2);
  ct_tensor q1, q2;
  OK(ct_contiguous(p1, &q1));
  OK(ct_contiguous(p2, &q2));
  compare(q1, q2, 0, "contiguous of a permuted view");
  rel(p1), rel(p2), rel(q1), rel(q2);
  /* 0-dim CPU tensor + CUDA tensor works; a 1-dim CPU tensor + CUDA tensor is an error */
  OK(ct_binary(CT_ADD, xg, zero, &r2));
  ct_device_type t;
  int32_t idx;
  OK(ct_tensor_device(r2, &t, &idx));
  EXPECT_EQ_I(t, CT_CUDA);
  EXPECT_EQ_I(idx, 0);
  rel(r2);
  r2 = NULL;
  FAILS(ct_binary(CT_ADD, xg, x, &r2), CT_ERR_DEVICE,
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  FAILS(ct_cat((ct_tensor[]){x, xg}, 2, 0, &r2), CT_ERR_DEVICE, "cpu and cuda:0");
  /* item and repr */
  ct_tensor s;
  OK(ct_reduce(CT_SUM, xg, NULL, 0, 0, CT_FLOAT64, &s));
  double a, b;
  OK(ct_tensor_item_double(s, &a));
  rel(s);
  OK(ct_reduce(CT_SUM, x, NULL, 0, 0, CT_FLOAT64, &s));
  OK(ct_tensor_item_double(s, &b));
  rel(s);
  EXPECT(fabs(a - b) < 1e-9);
  ct_tensor small = F64(CT_FLOAT32, 1, 2), smallg = to_cuda(small, 0);
  EXPECT_REPR(smallg, "tensor([1., 2.], device='cuda:0')");
  ct_tensor ig;
  OK(ct_tensor_to(smallg, CT_CUDA, 0, CT_INT32, 0, 0, &ig));
  EXPECT_REPR(ig, "tensor([1, 2], device='cuda:0', dtype=torch.int32)");
  rel(ig), rel(small), rel(smallg), rel(cond), rel(condg), rel(zero), rel(x), rel(xg);
}

/* Note [No promotion temporaries] (impl/ops/elementwise.cc): a mixed-dtype, broadcast, strided
 * or scalar op allocates its result and nothing else (nothing at all in place), counted by the
 * caching allocator. */
static int64_t allocations(void) {
  int64_t v = 0;
  OK(ct_cuda_memory_stat(0, "allocation.all.allocated", &v));
  return v;
}

static void test_no_promotion_temporaries(void) {
  SKIP_WITHOUT_CUDA();
  int64_t s2[2] = {64, 33}, s1[1] = {33}, st[2] = {33, 64};
  ct_tensor hh = make_input(s2, 2, CT_FLOAT16, 1), fh = make_input(s2, 2, CT_FLOAT32, 2);
  ct_tensor ih = make_input(s2, 2, CT_INT32, 3), bfh = make_input(s1, 1, CT_BFLOAT16, 4), fth = make_input(st, 2, CT_FLOAT32, 5);
  ct_tensor h = to_cuda(hh, 0), f = to_cuda(fh, 0), i = to_cuda(ih, 0), bf = to_cuda(bfh, 0), ft = to_cuda(fth, 0);
  ct_tensor c = NULL, tt = NULL;
  ct_tensor s0 = make_input(NULL, 0, CT_FLOAT64, 6); /* 0-dim CPU */
  OK(ct_transpose(ft, 0, 1, &tt));
  OK(ct_binary(CT_GT, f, h, &c));
  struct { const char* what; int kind; ct_binary_op op; ct_tensor a, b; } cases[] = {
      {"f16 + f32", 0, CT_ADD, h, f},          {"i32 * f16", 0, CT_MUL, i, h},
      {"f16 + bf16 row", 0, CT_ADD, h, bf},    {"f32.t() - f16", 0, CT_SUB, tt, h},
      {"f16 < 0-dim CPU f64", 0, CT_LT, h, s0}, {"i32 / i32", 0, CT_DIV, i, i},
      {"exp(i32)", 1, CT_ADD, i, NULL},        {"where(c, f16, bf16 row)", 2, CT_ADD, h, bf},
      {"clamp(i32, 0.5)", 3, CT_ADD, i, NULL},  {"f16.add_(f32)", 4, CT_ADD, h, f},
      {"f32.t().mul_(i32)", 4, CT_MUL, tt, i}, {"f16.to(f32) of a transpose", 5, CT_ADD, tt, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    int64_t before = allocations();
    ct_tensor r = NULL;
    switch (cases[k].kind) {
      case 0: OK(ct_binary(cases[k].op, cases[k].a, cases[k].b, &r)); break;
      case 1: OK(ct_unary(CT_EXP, cases[k].a, &r)); break;
      case 2: OK(ct_where(c, cases[k].a, cases[k].b, &r)); break;
      case 3: OK(ct_clamp(cases[k].a, 1, 0.5, 0, 0, &r)); break;
      case 4: OK(ct_binary_(cases[k].op, cases[k].a, cases[k].b)); break;
      default: OK(ct_tensor_to(cases[k].a, CT_CUDA, 0, CT_FLOAT16, 0, 0, &r)); break;
    }
    int64_t n = allocations() - before;
    if (n != (cases[k].kind == 4 ? 0 : 1)) FAILF("%s allocated %lld blocks (expected only its result)", cases[k].what, (long long)n);
    if (r) rel(r);
  }
  ct_tensor all[] = {h, f, i, bf, ft, s0, c, tt, hh, fh, ih, bfh, fth};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) rel(all[k]);
}

static void test_copies(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t sh[2] = {33, 17};
  ct_tensor x = make_input(sh, 2, CT_FLOAT64, 11), xt, g, back;
  OK(ct_transpose(x, 0, 1, &xt));
  /* H2D from a non-contiguous source with a cast, D2H into a non-contiguous destination */
  OK(ct_empty((int64_t[]){17, 33}, 2, CT_FLOAT32, CT_CUDA, 0, &g));
  OK(ct_tensor_copy_(g, xt, 0));
  OK(ct_empty((int64_t[]){33, 17}, 2, CT_FLOAT64, CT_CPU, -1, &back));
  ct_tensor bt;
  OK(ct_transpose(back, 0, 1, &bt));
  OK(ct_tensor_copy_(bt, g, 0));
  ct_tensor xf;
  OK(ct_tensor_to(x, CT_CPU, -1, CT_FLOAT32, 0, 0, &xf));
  ct_tensor bf;
  OK(ct_tensor_to(back, CT_CPU, -1, CT_FLOAT32, 0, 0, &bf));
  ct_tensor eq, all;
  OK(ct_binary(CT_EQ, xf, bf, &eq));
  OK(ct_reduce(CT_AMIN, eq, NULL, 0, 0, CT_DTYPE_UNDEFINED, &all));
  int64_t ok = 0;
  OK(ct_tensor_item_int64(all, &ok));
  EXPECT_EQ_I(ok, 1);
  rel(eq), rel(all), rel(xf), rel(bf), rel(bt), rel(back), rel(g), rel(xt);
  /* broadcast copy_ from CPU into CUDA */
  ct_tensor row = F64(CT_INT64, 1, 2, 3), mat;
  OK(ct_zeros((int64_t[]){2, 3}, 2, CT_INT16, CT_CUDA, 0, &mat));
  OK(ct_tensor_copy_(mat, row, 0));
  EXPECT_VALS(mat, 0, 1, 2, 3, 1, 2, 3);
  rel(row), rel(mat);
  /* pinned memory and non_blocking round trips */
  ct_tensor p;
  OK(ct_tensor_pin_memory(x, &p));
  int32_t pinned = 0;
  OK(ct_tensor_is_pinned(p, &pinned));
  EXPECT_EQ_I(pinned, 1);
  OK(ct_tensor_is_pinned(x, &pinned));
  EXPECT_EQ_I(pinned, 0);
  ct_tensor pg, ph;
  OK(ct_tensor_to(p, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 1, 0, &pg));
  OK(ct_tensor_to(pg, CT_CPU, -1, CT_DTYPE_UNDEFINED, 1, 0, &ph)); /* lands in pinned memory */
  OK(ct_tensor_is_pinned(ph, &pinned));
  EXPECT_EQ_I(pinned, 1);
  OK(ct_cuda_synchronize(0));
  compare(x, pg, 0, "pinned non_blocking H2D");
  ct_tensor d;
  OK(ct_binary(CT_SUB, x, ph, &d));
  ct_tensor mx;
  OK(ct_norm(d, INFINITY, NULL, 0, 0, &mx));
  EXPECT_VALS(mx, 0, 0);
  rel(d), rel(mx), rel(p), rel(pg), rel(ph);
  /* between GPUs when there are two */
  if (g_cuda >= 2) {
    ct_tensor g0 = to_cuda(x, 0), g1, h;
    OK(ct_tensor_to(g0, CT_CUDA, 1, CT_FLOAT32, 0, 0, &g1));
    ct_device_type t;
    int32_t idx;
    OK(ct_tensor_device(g1, &t, &idx));
    EXPECT_EQ_I(idx, 1);
    OK(ct_tensor_to(g1, CT_CPU, -1, CT_FLOAT64, 0, 0, &h));
    ct_tensor xf2;
    OK(ct_tensor_to(x, CT_CPU, -1, CT_FLOAT32, 0, 0, &xf2));
    compare(xf2, g1, 0, "cuda:0 -> cuda:1");
    rel(g0), rel(g1), rel(h), rel(xf2);
  } else {
    printf("  (one GPU: cross-device copies not exercised)\n");
  }
  rel(x);
}

static void test_no_cuda_paths(void) {
  if (g_cuda) {
    printf("  (CUDA present: the no-GPU paths are covered on machines without one)\n");
    return;
  }
  ct_tensor t = F64(CT_FLOAT32, 1), r = NULL;
  FAILS(ct_tensor_pin_memory(t, &r), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  int32_t pinned = -1;
  OK(ct_tensor_is_pinned(t, &pinned));
  EXPECT_EQ_I(pinned, 0);
  FAILS(ct_cuda_synchronize(-1), CT_ERR_CUDA_UNAVAILABLE, "");
  rel(t);
}

/* x / s with s a CPU scalar (a Python number, or a 0-dim CPU tensor) on CUDA is torch.cuda's
 * x * (1 / s), the reciprocal taken once in op-math from s cast to the common dtype (Note
 * [Division by a CPU scalar], impl/ops/cuda/binary.cu); a CUDA divisor tensor and the CPU divide.
 * Expected values computed here, in float and double. */
static void test_division_by_cpu_scalar(void) {
  SKIP_WITHOUT_CUDA();
  enum { N = 1000 };
  float xf[N], got[N];
  double xd[N], gotd[N];
  for (int i = 0; i < N; ++i) xf[i] = (float)(i + 1) * 0.37f, xd[i] = (i + 1) * 0.37;
  const int64_t n = N;
  ct_tensor x, xg, xdc, xdg, three, r;
  OK(ct_from_buffer(xf, sizeof xf, &n, 1, CT_FLOAT32, CT_CPU, -1, &x));
  xg = to_cuda(x, 0);
  OK(ct_from_buffer(xd, sizeof xd, &n, 1, CT_FLOAT64, CT_CPU, -1, &xdc));
  xdg = to_cuda(xdc, 0);
  OK(ct_full(NULL, 0, 3.0, CT_FLOAT64, CT_CPU, -1, &three));
  const float inv = 1.0f / 3.0f;
  const double invd = 1.0 / 3.0;
  int differs = 0;
  for (int form = 0; form < 3; ++form) { /* a Python scalar, a 0-dim CPU tensor, on the CPU */
    ct_tensor src = form == 2 ? x : xg;
    if (form == 1) OK(ct_binary(CT_DIV, src, three, &r));
    else OK(ct_binary_scalar_f(CT_DIV, src, 3.0, 0, &r));
    OK(ct_tensor_copy_to_buffer(r, got, sizeof got));
    rel(r);
    for (int i = 0; i < N; ++i) {
      const float want = form == 2 ? xf[i] / 3.0f : xf[i] * inv;
      if (memcmp(&got[i], &want, sizeof want) != 0) {
        FAILF("float32 x / 3 (form %d) at %d: %.9g, expected %.9g", form, i, got[i], want);
        break;
      }
      differs += (xf[i] * inv != xf[i] / 3.0f);
    }
  }
  if (differs == 0) FAILF("the data do not tell x * (1/3) from x / 3 apart");
  OK(ct_binary_scalar_f(CT_DIV, xdg, 3.0, 0, &r));
  OK(ct_tensor_copy_to_buffer(r, gotd, sizeof gotd));
  rel(r);
  for (int i = 0; i < N; ++i) {
    const double want = xd[i] * invd;
    if (memcmp(&gotd[i], &want, sizeof want) != 0) {
      FAILF("float64 x / 3 at %d: %.17g, expected %.17g", i, gotd[i], want);
      break;
    }
  }
  /* a CUDA divisor divides */
  ct_tensor threeg = to_cuda(three, 0);
  OK(ct_binary(CT_DIV, xg, threeg, &r));
  OK(ct_tensor_copy_to_buffer(r, got, sizeof got));
  rel(r);
  for (int i = 0; i < N; ++i) {
    const float want = xf[i] / 3.0f;
    if (memcmp(&got[i], &want, sizeof want) != 0) {
      FAILF("float32 x / a CUDA 3 at %d: %.9g, expected %.9g", i, got[i], want);
      break;
    }
  }
  rel(threeg), rel(three), rel(x), rel(xg), rel(xdc), rel(xdg);
}

int main(void) {
  const test_case tests[] = {TEST_CASE(unary_parity), TEST_CASE(binary_parity), TEST_CASE(cast_parity), TEST_CASE(out_of_range_casts), TEST_CASE(empty_bool_is_false),
                             TEST_CASE(reduction_parity), TEST_CASE(factories_views_join_on_cuda),
                             TEST_CASE(copies), TEST_CASE(no_promotion_temporaries), TEST_CASE(no_cuda_paths),
                             TEST_CASE(division_by_cpu_scalar)};
  int rc = RUN_TESTS(tests);
  printf("(%d CPU/CUDA comparisons)\n", g_compared);
  return rc;
}
