/* Matrix products from C against products computed here in double precision (OpenBLAS on the
 * CPU; cuBLAS on CUDA devices, which must agree with the CPU within each dtype's tolerance). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

/* deterministic test values in [-1, 1) */
static double val(int64_t i, int salt) { return ((double)((i * 7919 + salt * 104729) % 2001) - 1000.0) / 1000.0; }

static ct_tensor make(const int64_t* sizes, int nd, ct_dtype dt, int salt, ct_device_type dev) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  double* v = malloc((size_t)(n > 0 ? n : 1) * 8);
  for (int64_t i = 0; i < n; ++i) v[i] = val(i, salt);
  ct_tensor h = from_f64(v, n, sizes, nd, dt), out = NULL;
  free(v);
  if (dev == CT_CPU) return h;
  OK(ct_tensor_to(h, dev, 0, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(h);
  return out;
}

static double* read_f64(ct_tensor t, int64_t* n_out) {
  ct_tensor f;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT64, 0, 1, &f));
  int64_t n = 0;
  OK(ct_tensor_numel(f, &n));
  double* v = malloc((size_t)(n > 0 ? n : 1) * 8);
  OK(ct_tensor_copy_to_buffer(f, v, n * 8));
  rel(f);
  *n_out = n;
  return v;
}

/* C = A B for row-major double matrices given through val() */
static void ref_mm(int64_t n, int64_t k, int64_t m, int sa, int sb, int64_t offa, int64_t offb, double* c,
                   double qa, double qb) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        double x = val(offa + i * k + p, sa), y = val(offb + p * m + j, sb);
        if (qa > 0) x = round(x * qa) / qa; /* inputs as the low-precision dtype holds them */
        if (qb > 0) y = round(y * qb) / qb;
        s += x * y;
      }
      c[i * m + j] = s;
    }
}

static double tol_of(ct_dtype dt, int64_t k) {
  switch (dt) {
    case CT_FLOAT64: return 1e-12 * k;
    case CT_FLOAT32: return 2e-6 * k;
    case CT_FLOAT16: return 2e-3 * k;
    case CT_BFLOAT16: return 1.6e-2 * k;
    default: return 1e-5 * k;
  }
}

static void check_mm(ct_device_type dev, ct_dtype dt, int64_t n, int64_t k, int64_t m) {
  int64_t sa[2] = {n, k}, sb[2] = {k, m};
  ct_tensor a = make(sa, 2, dt, 1, dev), b = make(sb, 2, dt, 2, dev), c = NULL;
  OK(ct_mm(a, b, &c));
  EXPECT_SHAPE(c, n, m);
  EXPECT_DTYPE(c, dt);
  int64_t cnt;
  double* got = read_f64(c, &cnt);
  double* want = malloc((size_t)(n * m > 0 ? n * m : 1) * 8);
  /* float16 holds these values exactly to 1/2048 steps near 1; bfloat16 to 1/128: compare with
   * inputs rounded the same way */
  double q = dt == CT_FLOAT16 ? 2048.0 : dt == CT_BFLOAT16 ? 128.0 : 0;
  ref_mm(n, k, m, 1, 2, 0, 0, want, q, q);
  double worst = 0;
  for (int64_t i = 0; i < n * m; ++i) worst = fmax(worst, fabs(got[i] - want[i]));
  if (worst > tol_of(dt, k)) printf("  mm dtype %d %lldx%lldx%lld on %s: max error %g\n", dt, (long long)n, (long long)k,
                                    (long long)m, dev == CT_CUDA ? "cuda" : "cpu", worst);
  EXPECT(worst <= tol_of(dt, k));
  free(got), free(want);
  rel(a), rel(b), rel(c);
}

static void run_products(ct_device_type dev) {
  const ct_dtype dts[4] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};
  for (int d = 0; d < 4; ++d) {
    check_mm(dev, dts[d], 3, 4, 5);
    check_mm(dev, dts[d], 1, 1, 1);
    check_mm(dev, dts[d], 64, 33, 17);
  }
  check_mm(dev, CT_FLOAT32, 0, 4, 5); /* empty results */
  check_mm(dev, CT_FLOAT32, 3, 0, 5); /* k = 0: zeros */
  /* matmul's shape rules */
  int64_t s1[1] = {4}, s2[2] = {4, 3}, s3[3] = {2, 3, 4}, s4[4] = {2, 1, 3, 4}, s5[3] = {5, 4, 2}, s6[2] = {3, 4};
  ct_tensor v = make(s1, 1, CT_FLOAT64, 3, dev), m2 = make(s2, 2, CT_FLOAT64, 4, dev),
            b3 = make(s3, 3, CT_FLOAT64, 5, dev), b4 = make(s4, 4, CT_FLOAT64, 6, dev),
            c3 = make(s5, 3, CT_FLOAT64, 7, dev), m34 = make(s6, 2, CT_FLOAT64, 8, dev), r;
  OK(ct_matmul(v, v, &r)); /* dot: 0-dim */
  EXPECT_SCALAR_SHAPE(r);
  int64_t cnt;
  double* g = read_f64(r, &cnt);
  double want = 0;
  for (int i = 0; i < 4; ++i) want += val(i, 3) * val(i, 3);
  EXPECT(fabs(g[0] - want) < 1e-12);
  free(g), rel(r);
  OK(ct_matmul(v, m2, &r)); /* 1-D x 2-D: (3) */
  EXPECT_SHAPE(r, 3);
  g = read_f64(r, &cnt);
  for (int j = 0; j < 3; ++j) {
    double s = 0;
    for (int p = 0; p < 4; ++p) s += val(p, 3) * val(p * 3 + j, 4);
    EXPECT(fabs(g[j] - s) < 1e-12);
  }
  free(g), rel(r);
  OK(ct_matmul(m34, v, &r)); /* 2-D x 1-D = mv: (3) */
  EXPECT_SHAPE(r, 3);
  rel(r);
  OK(ct_mv(m34, v, &r));
  EXPECT_SHAPE(r, 3);
  g = read_f64(r, &cnt);
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int p = 0; p < 4; ++p) s += val(i * 4 + p, 8) * val(p, 3);
    EXPECT(fabs(g[i] - s) < 1e-12);
  }
  free(g), rel(r);
  OK(ct_matmul(b3, m2, &r)); /* (2,3,4) x (4,3) -> (2,3,3) */
  EXPECT_SHAPE(r, 2, 3, 3);
  g = read_f64(r, &cnt);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = 0;
        for (int p = 0; p < 4; ++p) s += val(b * 12 + i * 4 + p, 5) * val(p * 3 + j, 4);
        EXPECT(fabs(g[(b * 3 + i) * 3 + j] - s) < 1e-12);
      }
  free(g), rel(r);
  OK(ct_matmul(b4, c3, &r)); /* (2,1,3,4) x (5,4,2): batch (2,5) -> (2,5,3,2) */
  EXPECT_SHAPE(r, 2, 5, 3, 2);
  g = read_f64(r, &cnt);
  for (int b0 = 0; b0 < 2; ++b0)
    for (int b1 = 0; b1 < 5; ++b1)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) {
          double s = 0;
          for (int p = 0; p < 4; ++p) s += val(b0 * 12 + i * 4 + p, 6) * val(b1 * 8 + p * 2 + j, 7);
          EXPECT(fabs(g[((b0 * 5 + b1) * 3 + i) * 2 + j] - s) < 1e-12);
        }
  free(g), rel(r);
  FAILS(ct_matmul(v, b3, &r), CT_ERR_SHAPE, "");  /* (4) x (2,3,4): 4 vs 3 */
  FAILS(ct_matmul(m2, v, &r), CT_ERR_SHAPE, "size mismatch, got input (4), mat (4x3), vec (4)");
  /* bmm, and a transposed (non-contiguous) operand */
  int64_t sb1[3] = {2, 3, 4}, sb2[3] = {2, 4, 5};
  int64_t sbt[3] = {2, 5, 4};
  ct_tensor x = make(sb1, 3, CT_FLOAT32, 9, dev), yt = make(sbt, 3, CT_FLOAT32, 10, dev), z, zc2, r2;
  OK(ct_transpose(yt, 1, 2, &z)); /* (2,4,5), non-contiguous */
  OK(ct_empty(sb2, 3, CT_FLOAT32, dev, dev == CT_CUDA ? 0 : -1, &zc2));
  OK(ct_tensor_copy_(zc2, z, 0)); /* the same values, contiguous */
  OK(ct_bmm(x, z, &r));
  EXPECT_SHAPE(r, 2, 3, 5);
  OK(ct_bmm(x, zc2, &r2));
  double *g1 = read_f64(r, &cnt), *g2 = read_f64(r2, &cnt);
  EXPECT(memcmp(g1, g2, (size_t)cnt * 8) == 0);
  free(g1), free(g2);
  rel(r), rel(r2), rel(z), rel(zc2), rel(yt), rel(x);
  /* addmm: beta * input + alpha * (m1 @ m2); beta 0 ignores NaN in the input */
  ct_tensor in = make((int64_t[]){3}, 1, CT_FLOAT64, 11, dev), nanin, a2 = make((int64_t[]){2, 4}, 2, CT_FLOAT64, 12, dev);
  OK(ct_addmm(in, a2, m2, 0.5, 2.0, &r));
  EXPECT_SHAPE(r, 2, 3);
  g = read_f64(r, &cnt);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int p = 0; p < 4; ++p) s += val(i * 4 + p, 12) * val(p * 3 + j, 4);
      EXPECT(fabs(g[i * 3 + j] - (0.5 * val(j, 11) + 2.0 * s)) < 1e-12);
    }
  free(g), rel(r);
  OK(ct_full((int64_t[]){2, 3}, 2, NAN, CT_FLOAT64, dev, dev == CT_CUDA ? 0 : -1, &nanin));
  OK(ct_addmm(nanin, a2, m2, 0.0, 1.0, &r));
  g = read_f64(r, &cnt);
  for (int i = 0; i < 6; ++i) EXPECT(!isnan(g[i]));
  free(g), rel(r), rel(nanin);
  /* the input must broadcast to the product, not the product to the input */
  ct_tensor big = make((int64_t[]){4, 3}, 2, CT_FLOAT64, 13, dev), col = make((int64_t[]){2, 1}, 2, CT_FLOAT64, 14, dev);
  FAILS(ct_addmm(big, a2, m2, 1.0, 1.0, &r), CT_ERR_SHAPE, "must match");
  ct_tensor row = make((int64_t[]){1, 4}, 2, CT_FLOAT64, 15, dev), in23 = make((int64_t[]){2, 3}, 2, CT_FLOAT64, 16, dev);
  FAILS(ct_addmm(in23, row, m2, 1.0, 1.0, &r), CT_ERR_SHAPE, "cannot be broadcast to the product's shape [1x3]");
  rel(row), rel(in23);
  OK(ct_addmm(col, a2, m2, 1.0, 1.0, &r)); /* (2,1) broadcasts to (2,3) */
  EXPECT_SHAPE(r, 2, 3);
  rel(r), rel(big), rel(col);
  /* complex128: (1+2i)(3-1i) = 5+5i */
  double cz[2] = {1, 2}, cw[2] = {3, -1};
  ct_tensor za, zb, zh, zr;
  OK(ct_from_buffer(cz, 16, (int64_t[]){1, 1}, 2, CT_COMPLEX128, CT_CPU, -1, &zh));
  OK(ct_tensor_to(zh, dev, dev == CT_CUDA ? 0 : -1, CT_DTYPE_UNDEFINED, 0, 1, &za));
  rel(zh);
  OK(ct_from_buffer(cw, 16, (int64_t[]){1, 1}, 2, CT_COMPLEX128, CT_CPU, -1, &zh));
  OK(ct_tensor_to(zh, dev, dev == CT_CUDA ? 0 : -1, CT_DTYPE_UNDEFINED, 0, 1, &zb));
  rel(zh);
  OK(ct_mm(za, zb, &zr));
  ct_tensor zc;
  OK(ct_tensor_to(zr, CT_CPU, -1, CT_COMPLEX64, 0, 1, &zc));
  float zv[2];
  OK(ct_tensor_copy_to_buffer(zc, zv, 8));
  EXPECT(zv[0] == 5.0f && zv[1] == 5.0f);
  rel(za), rel(zb), rel(zr), rel(zc);
  /* errors, as PyTorch words them */
  FAILS(ct_mm(m2, m2, &r), CT_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)");
  FAILS(ct_mm(v, m2, &r), CT_ERR_SHAPE, "self must be a matrix");
  FAILS(ct_bmm(b3, m2, &r), CT_ERR_SHAPE, "batch2 must be a 3D tensor");
  FAILS(ct_dot(v, m2, &r), CT_ERR_SHAPE, "1D tensors expected, but got 1D and 2D tensors");
  ct_tensor v3 = make((int64_t[]){3}, 1, CT_FLOAT64, 1, dev), vf = make((int64_t[]){4}, 1, CT_FLOAT32, 1, dev),
            vi = make((int64_t[]){4}, 1, CT_INT64, 1, dev), mi = make((int64_t[]){2, 2}, 2, CT_INT32, 1, dev);
  FAILS(ct_dot(v, v3, &r), CT_ERR_SHAPE, "inconsistent tensor size");
  FAILS(ct_dot(v, vf, &r), CT_ERR_DTYPE, "dot : expected both vectors to have same dtype, but found Double and Float");
  ct_tensor m32 = make((int64_t[]){3, 2}, 2, CT_FLOAT32, 1, dev);
  FAILS(ct_mm(m2, m32, &r), CT_ERR_DTYPE, "expected m1 and m2 to have the same dtype, but got: double != float");
  rel(m32);
  FAILS(ct_mm(mi, mi, &r), CT_ERR_DTYPE, "\"mm\" not implemented for 'Int'");
  FAILS(ct_dot(vi, vi, &r), CT_ERR_DTYPE, "not implemented for 'Long'");
  rel(v3), rel(vf), rel(vi), rel(mi);
  rel(v), rel(m2), rel(b3), rel(b4), rel(c3), rel(m34), rel(in), rel(a2);
}

static void test_cpu_products(void) { run_products(CT_CPU); }

static void test_switches(void) {
  EXPECT_SETTING(ct_get_allow_tf32, ct_set_allow_tf32, 0, 1);
  EXPECT_SETTING(ct_get_allow_fp16_reduced_precision_reduction, ct_set_allow_fp16_reduced_precision_reduction, 1, 0);
  EXPECT_SETTING(ct_get_allow_bf16_reduced_precision_reduction, ct_set_allow_bf16_reduced_precision_reduction, 1, 0);
  if (!g_cuda) {
    int64_t h;
    FAILS(ct_cuda_current_blas_handle(&h), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  }
}

static void test_cuda_products(void) {
  SKIP_WITHOUT_CUDA();
  run_products(CT_CUDA);
  int64_t h1 = 0, h2 = 0;
  OK(ct_cuda_current_blas_handle(&h1));
  OK(ct_cuda_current_blas_handle(&h2));
  EXPECT(h1 != 0 && h1 == h2);
  /* TF32: float32 products of 1024-long dot products lose precision, within TF32's bound */
  int64_t s[2] = {64, 1024}, t[2] = {1024, 64};
  ct_tensor a = make(s, 2, CT_FLOAT32, 21, CT_CUDA), b = make(t, 2, CT_FLOAT32, 22, CT_CUDA), c32, c19;
  OK(ct_mm(a, b, &c32));
  OK(ct_set_allow_tf32(1));
  OK(ct_mm(a, b, &c19));
  OK(ct_set_allow_tf32(0));
  int64_t cnt;
  double *x = read_f64(c32, &cnt), *y = read_f64(c19, &cnt);
  double worst = 0, diff = 0;
  for (int64_t i = 0; i < cnt; ++i) worst = fmax(worst, fabs(x[i] - y[i])), diff += x[i] != y[i];
  EXPECT(diff > 0);         /* TF32 really was used */
  EXPECT(worst < 1e-2 * 32); /* and stays within ~2^-10 per term */
  free(x), free(y);
  rel(a), rel(b), rel(c32), rel(c19);
  /* operands on two devices */
  ct_tensor ga = make((int64_t[]){2, 2}, 2, CT_FLOAT32, 1, CT_CUDA), ca = make((int64_t[]){2, 2}, 2, CT_FLOAT32, 1, CT_CPU), r;
  FAILS(ct_mm(ga, ca, &r), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
  rel(ga), rel(ca);
}

TEST_MAIN(TEST_CASE(cpu_products), TEST_CASE(switches), TEST_CASE(cuda_products))
