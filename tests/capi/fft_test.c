/* FFTs from C against discrete Fourier transforms computed here in double precision (FFTW on
 * the CPU; cuFFT on CUDA devices), and the cuFFT plan cache. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

static const double PI = 3.14159265358979323846;

/* complex128 tensor from interleaved doubles, on dev */
static ct_tensor cplx_on(const double* v, const int64_t* sizes, int nd, ct_device_type dev, int32_t index) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  ct_tensor h, out;
  OK(ct_from_buffer(v, n * 16, sizes, nd, CT_COMPLEX128, CT_CPU, -1, &h));
  if (dev == CT_CPU) return h;
  OK(ct_tensor_to(h, CT_CUDA, index, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(h);
  return out;
}

static ct_tensor cplx(const double* v, const int64_t* sizes, int nd, ct_device_type dev) {
  return cplx_on(v, sizes, nd, dev, 0);
}

static ct_tensor real(const double* v, const int64_t* sizes, int nd, ct_device_type dev) {
  ct_tensor h, out;
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= sizes[i];
  OK(ct_from_buffer(v, n * 8, sizes, nd, CT_FLOAT64, CT_CPU, -1, &h));
  if (dev == CT_CPU) return h;
  OK(ct_tensor_to(h, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &out));
  rel(h);
  return out;
}

/* the values of t as complex128 (interleaved) or float64 */
static double* values(ct_tensor t, ct_dtype as, int64_t* n) {
  ct_tensor c;
  OK(ct_tensor_to(t, CT_CPU, -1, as, 0, 1, &c));
  OK(ct_tensor_numel(c, n));
  int64_t w = as == CT_COMPLEX128 ? 2 : 1;
  double* v = malloc((size_t)(*n * w > 0 ? *n * w : 1) * 8);
  OK(ct_tensor_copy_to_buffer(c, v, *n * w * 8));
  rel(c);
  return v;
}

/* out[k] = sum_j x[j] e^{sign 2 pi i j k / n} (complex, interleaved) */
static void dft(const double* x, int64_t n, int sign, double* out) {
  for (int64_t k = 0; k < n; ++k) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < n; ++j) {
      double a = sign * 2 * PI * (double)(j * k % n) / (double)n;
      re += x[2 * j] * cos(a) - x[2 * j + 1] * sin(a);
      im += x[2 * j] * sin(a) + x[2 * j + 1] * cos(a);
    }
    out[2 * k] = re, out[2 * k + 1] = im;
  }
}

static double sig(int64_t i, int salt) { return sin(0.37 * (double)i + salt) + 0.25 * cos(1.3 * (double)i * salt); }

static double maxdiff(const double* a, const double* b, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static void run_fft(ct_device_type dev) {
  int idx = dev == CT_CUDA ? 0 : -1;
  /* 1-D c2c of lengths 8 and 7, all norms; n cut and padded */
  const int64_t lens[2] = {8, 7};
  for (int li = 0; li < 2; ++li) {
    int64_t n = lens[li], cnt;
    double x[32], want[32];
    for (int64_t i = 0; i < n; ++i) x[2 * i] = sig(i, 1), x[2 * i + 1] = sig(i, 2);
    ct_tensor t = cplx(x, &n, 1, dev), y, z;
    OK(ct_fft_fft(t, -1, 0, CT_FFT_NORM_BACKWARD, &y));
    EXPECT_DTYPE(y, CT_COMPLEX128);
    double* got = values(y, CT_COMPLEX128, &cnt);
    dft(x, n, -1, want);
    EXPECT(maxdiff(got, want, 2 * n) < 1e-12);
    free(got);
    OK(ct_fft_ifft(y, -1, 0, CT_FFT_NORM_BACKWARD, &z)); /* round trip */
    got = values(z, CT_COMPLEX128, &cnt);
    EXPECT(maxdiff(got, x, 2 * n) < 1e-12);
    free(got), rel(y), rel(z);
    OK(ct_fft_fft(t, -1, 0, CT_FFT_NORM_ORTHO, &y));
    got = values(y, CT_COMPLEX128, &cnt);
    for (int64_t i = 0; i < 2 * n; ++i) EXPECT(fabs(got[i] - want[i] / sqrt((double)n)) < 1e-12);
    free(got), rel(y);
    OK(ct_fft_fft(t, -1, 0, CT_FFT_NORM_FORWARD, &y));
    got = values(y, CT_COMPLEX128, &cnt);
    for (int64_t i = 0; i < 2 * n; ++i) EXPECT(fabs(got[i] - want[i] / (double)n) < 1e-12);
    free(got), rel(y);
    OK(ct_fft_fft(t, n + 3, 0, CT_FFT_NORM_BACKWARD, &y)); /* zero-padded */
    EXPECT_SHAPE(y, n + 3);
    double xp[40] = {0};
    memcpy(xp, x, (size_t)n * 16);
    dft(xp, n + 3, -1, want);
    got = values(y, CT_COMPLEX128, &cnt);
    EXPECT(maxdiff(got, want, 2 * (n + 3)) < 1e-12);
    free(got), rel(y);
    OK(ct_fft_fft(t, 4, 0, CT_FFT_NORM_BACKWARD, &y)); /* cut */
    dft(x, 4, -1, want);
    got = values(y, CT_COMPLEX128, &cnt);
    EXPECT(maxdiff(got, want, 8) < 1e-12);
    free(got), rel(y), rel(t);
  }
  /* rfft / irfft of a real signal of length 10 (6 outputs) and an odd irfft length */
  {
    int64_t n = 10, cnt;
    double r[10], x[20], want[20];
    for (int i = 0; i < 10; ++i) r[i] = sig(i, 3), x[2 * i] = r[i], x[2 * i + 1] = 0;
    ct_tensor t = real(r, &n, 1, dev), y, z;
    OK(ct_fft_rfft(t, -1, 0, CT_FFT_NORM_BACKWARD, &y));
    EXPECT_SHAPE(y, 6);
    dft(x, 10, -1, want);
    double* got = values(y, CT_COMPLEX128, &cnt);
    EXPECT(maxdiff(got, want, 12) < 1e-12);
    free(got);
    OK(ct_fft_irfft(y, -1, 0, CT_FFT_NORM_BACKWARD, &z)); /* 2 * (6 - 1) = 10 */
    EXPECT_SHAPE(z, 10);
    EXPECT_DTYPE(z, CT_FLOAT64);
    got = values(z, CT_FLOAT64, &cnt);
    EXPECT(maxdiff(got, r, 10) < 1e-12);
    free(got), rel(z);
    OK(ct_fft_irfft(y, 9, 0, CT_FFT_NORM_BACKWARD, &z)); /* odd: uses the first 5 */
    EXPECT_SHAPE(z, 9);
    /* reference: Hermitian extension of y[0..4] to 9 points, inverse DFT / 9 */
    double* yv = values(y, CT_COMPLEX128, &cnt);
    double full[18], inv[18];
    for (int k = 0; k < 9; ++k) {
      int m = k <= 4 ? k : 9 - k;
      full[2 * k] = yv[2 * m], full[2 * k + 1] = k <= 4 ? yv[2 * m + 1] : -yv[2 * m + 1];
    }
    full[1] = 0; /* the imaginary part of the DC term is ignored */
    dft(full, 9, +1, inv);
    got = values(z, CT_FLOAT64, &cnt);
    for (int j = 0; j < 9; ++j) EXPECT(fabs(got[j] - inv[2 * j] / 9) < 1e-12);
    free(got), free(yv), rel(z);
    /* hfft(y, 10): the FFT of the Hermitian signal whose first half is y */
    OK(ct_fft_hfft(y, 10, 0, CT_FFT_NORM_BACKWARD, &z));
    EXPECT_SHAPE(z, 10);
    yv = values(y, CT_COMPLEX128, &cnt);
    double herm[20], hw[20];
    for (int k = 0; k < 10; ++k) {
      int m = k <= 5 ? k : 10 - k;
      herm[2 * k] = yv[2 * m], herm[2 * k + 1] = k <= 5 ? yv[2 * m + 1] : -yv[2 * m + 1];
    }
    herm[1] = 0, herm[11] = 0;
    dft(herm, 10, -1, hw);
    got = values(z, CT_FLOAT64, &cnt);
    for (int j = 0; j < 10; ++j) EXPECT(fabs(got[j] - hw[2 * j]) < 1e-10);
    free(got), free(yv), rel(z), rel(y), rel(t);
  }
  /* 2-D and 3-D: fft2 over the last two dims of (2,3,4) against row-then-column DFTs; fftn
   * with dims; rfftn / irfftn round trip */
  {
    int64_t sz[3] = {2, 3, 4}, cnt;
    double x[48];
    for (int i = 0; i < 24; ++i) x[2 * i] = sig(i, 4), x[2 * i + 1] = sig(i, 5);
    ct_tensor t = cplx(x, sz, 3, dev), y;
    OK(ct_fft_fft2(t, NULL, 0, NULL, 0, CT_FFT_NORM_BACKWARD, &y));
    EXPECT_SHAPE(y, 2, 3, 4);
    double* got = values(y, CT_COMPLEX128, &cnt);
    for (int b = 0; b < 2; ++b) {
      double rows[24], col[6], colo[6];
      for (int i = 0; i < 3; ++i) dft(x + 2 * (b * 12 + i * 4), 4, -1, rows + 8 * i);
      for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 3; ++i) col[2 * i] = rows[8 * i + 2 * j], col[2 * i + 1] = rows[8 * i + 2 * j + 1];
        dft(col, 3, -1, colo);
        for (int i = 0; i < 3; ++i) {
          EXPECT(fabs(got[2 * (b * 12 + i * 4 + j)] - colo[2 * i]) < 1e-12);
          EXPECT(fabs(got[2 * (b * 12 + i * 4 + j) + 1] - colo[2 * i + 1]) < 1e-12);
        }
      }
    }
    free(got);
    ct_tensor z;
    OK(ct_fft_ifft2(y, NULL, 0, NULL, 0, CT_FFT_NORM_BACKWARD, &z)); /* back over the last two dims */
    got = values(z, CT_COMPLEX128, &cnt);
    EXPECT(maxdiff(got, x, 48) < 1e-12);
    free(got), rel(z);
    OK(ct_fft_ifft2(y, (int64_t[]){3, 5}, 2, NULL, 0, 0, &z)); /* s pads the last dim */
    EXPECT_SHAPE(z, 2, 3, 5);
    rel(z);
    FAILS(ct_fft_ifft2(y, (int64_t[]){3}, 1, (int64_t[]){0, 1}, 2, 0, &z), CT_ERR_ARGUMENT, "must have the same length");
    rel(y);
    OK(ct_fft_fftn(t, NULL, 0, (int64_t[]){0, 2}, 2, CT_FFT_NORM_ORTHO, &y));
    OK(ct_fft_ifftn(y, NULL, 0, (int64_t[]){2, 0}, 2, CT_FFT_NORM_ORTHO, &z));
    got = values(z, CT_COMPLEX128, &cnt);
    EXPECT(maxdiff(got, x, 48) < 1e-12);
    free(got), rel(y), rel(z), rel(t);
    double r[24];
    for (int i = 0; i < 24; ++i) r[i] = sig(i, 6);
    t = real(r, sz, 3, dev);
    OK(ct_fft_rfftn(t, NULL, 0, NULL, 0, CT_FFT_NORM_BACKWARD, &y));
    EXPECT_SHAPE(y, 2, 3, 3);
    OK(ct_fft_irfftn(y, (int64_t[]){2, 3, 4}, 3, NULL, 0, CT_FFT_NORM_BACKWARD, &z));
    EXPECT_SHAPE(z, 2, 3, 4);
    got = values(z, CT_FLOAT64, &cnt);
    EXPECT(maxdiff(got, r, 24) < 1e-12);
    free(got), rel(y), rel(z), rel(t);
  }
  /* float32 input gives complex64; integers promote */
  {
    ct_tensor f = F64(CT_FLOAT32, 1, 2, 3, 4), i = I64(CT_INT64, 1, 2, 3, 4), fd, id, y;
    OK(ct_tensor_to(f, dev, idx, CT_DTYPE_UNDEFINED, 0, 0, &fd));
    OK(ct_tensor_to(i, dev, idx, CT_DTYPE_UNDEFINED, 0, 0, &id));
    OK(ct_fft_fft(fd, -1, 0, 0, &y));
    EXPECT_DTYPE(y, CT_COMPLEX64);
    int64_t cnt;
    double* got = values(y, CT_COMPLEX128, &cnt);
    EXPECT(fabs(got[0] - 10) < 1e-5 && fabs(got[2] + 2) < 1e-5 && fabs(got[3] - 2) < 1e-5);
    free(got), rel(y);
    OK(ct_fft_rfft(id, -1, 0, 0, &y));
    EXPECT_DTYPE(y, CT_COMPLEX64);
    EXPECT_SHAPE(y, 3);
    rel(y), rel(f), rel(i), rel(fd), rel(id);
  }
  /* fftfreq, fftshift */
  {
    ct_tensor f, s, a = F64(CT_FLOAT64, 0, 1, 2, 3, 4), ad;
    OK(ct_fft_fftfreq(5, 1.0, CT_DTYPE_UNDEFINED, dev, idx, &f));
    EXPECT_DTYPE(f, CT_FLOAT32);
    EXPECT_VALS(f, 1e-7, 0, 0.2, 0.4, -0.4, -0.2);
    rel(f);
    OK(ct_fft_fftfreq(4, 0.5, CT_FLOAT64, dev, idx, &f));
    EXPECT_VALS(f, 0, 0, 0.5, -1, -0.5);
    rel(f);
    OK(ct_tensor_to(a, dev, idx, CT_DTYPE_UNDEFINED, 0, 0, &ad));
    OK(ct_fft_fftshift(ad, NULL, 0, &s));
    EXPECT_VALS(s, 0, 3, 4, 0, 1, 2);
    ct_tensor b;
    OK(ct_fft_ifftshift(s, (int64_t[]){0}, 1, &b));
    EXPECT_VALS(b, 0, 0, 1, 2, 3, 4);
    rel(s), rel(b), rel(a), rel(ad);
  }
  /* errors */
  {
    ct_tensor h = F64(CT_FLOAT16, 1, 2), c = F64(CT_COMPLEX64, 1, 2), hd, cd, y;
    OK(ct_tensor_to(h, dev, idx, CT_DTYPE_UNDEFINED, 0, 0, &hd));
    OK(ct_tensor_to(c, dev, idx, CT_DTYPE_UNDEFINED, 0, 0, &cd));
    FAILS(ct_fft_fft(hd, -1, 0, 0, &y), CT_ERR_DTYPE, "Unsupported dtype Half");
    FAILS(ct_fft_rfft(cd, -1, 0, 0, &y), CT_ERR_DTYPE, "rfftn expects a real-valued input tensor");
    FAILS(ct_fft_fft(cd, 0, 0, 0, &y), CT_ERR_ARGUMENT, "Invalid number of data points (0) specified");
    FAILS(ct_fft_fft(cd, -1, 3, 0, &y), CT_ERR_INDEX, "");
    FAILS(ct_fft_fft(cd, -1, 0, 7, &y), CT_ERR_ARGUMENT, "Invalid normalization mode");
    FAILS(ct_fft_fftn(cd, NULL, 0, (int64_t[]){0, 0}, 2, 0, &y), CT_ERR_ARGUMENT, "FFT dims must be unique");
    FAILS(ct_fft_fftn(cd, (int64_t[]){2, 2}, 2, NULL, 0, 0, &y), CT_ERR_ARGUMENT, "but input tensor only has 1 dimensions");
    rel(h), rel(c), rel(hd), rel(cd);
  }
}

static void test_cpu_fft(void) { run_fft(CT_CPU); }

typedef struct {
  int ok;
  int64_t n;
} worker_arg;

static void* worker(void* p) {
  worker_arg* a = p;
  double x[2 * 64], want[2 * 64];
  for (int64_t i = 0; i < a->n; ++i) x[2 * i] = sig(i, (int)a->n), x[2 * i + 1] = 0;
  dft(x, a->n, -1, want);
  a->ok = 1;
  for (int it = 0; it < 50; ++it) {
    ct_tensor t = cplx(x, &a->n, 1, CT_CUDA), y;
    if (ct_fft_fft(t, -1, 0, 0, &y) != CT_OK) a->ok = 0;
    int64_t cnt;
    double* got = values(y, CT_COMPLEX128, &cnt);
    if (maxdiff(got, want, 2 * a->n) > 1e-11) a->ok = 0;
    free(got);
    ct_tensor_release(y);
    ct_tensor_release(t);
  }
  return NULL;
}

/* one complex FFT of length n on CUDA device `index`, checked against the DFT */
static void fft_once(int64_t n, int32_t index) {
  double x[2 * 64], want[2 * 64];
  for (int64_t i = 0; i < n; ++i) x[2 * i] = sig(i, 3), x[2 * i + 1] = sig(i, 4);
  dft(x, n, -1, want);
  ct_tensor t = cplx_on(x, &n, 1, CT_CUDA, index), y;
  OK(ct_fft_fft(t, -1, 0, 0, &y));
  int64_t cnt;
  double* got = values(y, CT_COMPLEX128, &cnt);
  EXPECT(maxdiff(got, want, 2 * n) < 1e-11);
  free(got);
  rel(y), rel(t);
}

/* hits and misses of cufft_plan_cache[index] since the last call */
static int64_t g_hits[8], g_misses[8];
static void counts_since(int32_t index, int64_t* hits, int64_t* misses) {
  int64_t h, m;
  OK(ct_cufft_plan_cache_hits(index, &h));
  OK(ct_cufft_plan_cache_misses(index, &m));
  *hits = h - g_hits[index], *misses = m - g_misses[index];
  g_hits[index] = h, g_misses[index] = m;
}
#define EXPECT_COUNTS(index, h, m)             \
  do {                                         \
    int64_t hh, mm;                            \
    counts_since(index, &hh, &mm);             \
    EXPECT_EQ_I(hh, h);                        \
    EXPECT_EQ_I(mm, m);                        \
  } while (0)

static void test_cuda_fft_and_plan_cache(void) {
  SKIP_WITHOUT_CUDA();
  run_fft(CT_CUDA);
  int64_t v, h, m;
  OK(ct_cufft_plan_cache_max_size(0, &v));
  EXPECT_EQ_I(v, 4096);
  OK(ct_cufft_plan_cache_clear(-1));
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 0);
  counts_since(0, &h, &m);
  /* hits: each length makes one plan, its repeats find it */
  for (int64_t n = 16; n <= 48; n += 16)
    for (int rep = 0; rep < 3; ++rep) fft_once(n, 0);
  EXPECT_COUNTS(0, 6, 3);
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 3);
  /* LRU order is now 48 32 16 (most recent first); using 16 makes it 16 48 32 */
  fft_once(16, 0);
  EXPECT_COUNTS(0, 1, 0);
  OK(ct_cufft_plan_cache_set_max_size(0, 2)); /* the least recently used plan (32) goes */
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 2);
  fft_once(16, 0), fft_once(48, 0); /* both still cached: 48 16 */
  EXPECT_COUNTS(0, 2, 0);
  fft_once(32, 0); /* made again; at max_size, 16 (least recent) goes: 32 48 */
  EXPECT_COUNTS(0, 0, 1);
  fft_once(48, 0); /* 48 32 */
  EXPECT_COUNTS(0, 1, 0);
  fft_once(16, 0); /* evicted before: a miss; 32 goes */
  EXPECT_COUNTS(0, 0, 1);
  fft_once(32, 0);
  EXPECT_COUNTS(0, 0, 1);
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 2);
  FAILS(ct_cufft_plan_cache_set_max_size(0, -1), CT_ERR_ARGUMENT, "non-negative");
  OK(ct_cufft_plan_cache_max_size(0, &v));
  EXPECT_EQ_I(v, 2); /* the failed call changed nothing */
  OK(ct_cufft_plan_cache_set_max_size(0, 0)); /* caching off: a plan made per call */
  fft_once(32, 0), fft_once(32, 0);
  EXPECT_COUNTS(0, 0, 2);
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 0);
  OK(ct_cufft_plan_cache_set_max_size(0, 4096));
  /* clear: every plan goes, settings stay */
  fft_once(16, 0), fft_once(32, 0);
  OK(ct_cufft_plan_cache_clear(0));
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 0);
  OK(ct_cufft_plan_cache_max_size(0, &v));
  EXPECT_EQ_I(v, 4096);
  fft_once(16, 0);
  EXPECT_COUNTS(0, 0, 3);
  /* the byte budget: cached work areas stay within it */
  int64_t big = 1 << 20;
  double* bx = calloc((size_t)big * 2, 8);
  ct_tensor t = cplx(bx, &big, 1, CT_CUDA), y;
  OK(ct_fft_fft(t, -1, 0, 0, &y));
  rel(y);
  int64_t bytes;
  OK(ct_cufft_plan_cache_bytes(0, &bytes));
  EXPECT(bytes >= 0);
  OK(ct_cufft_plan_cache_set_max_bytes(0, 1));
  OK(ct_cufft_plan_cache_bytes(0, &bytes));
  EXPECT(bytes <= 1);
  OK(ct_cufft_plan_cache_max_bytes(0, &v));
  EXPECT_EQ_I(v, 1);
  OK(ct_fft_fft(t, -1, 0, 0, &y)); /* still works, just not cached if it needs a work area */
  rel(y), rel(t);
  free(bx);
  FAILS(ct_cufft_plan_cache_set_max_bytes(0, -5), CT_ERR_ARGUMENT, "non-negative");
  OK(ct_cufft_plan_cache_set_max_bytes(0, 0));
  /* many threads at once, sharing a cache smaller than their working set (evictions while in
     use): every result right, every lookup counted once */
  OK(ct_cufft_plan_cache_set_max_size(0, 2));
  counts_since(0, &h, &m);
  pthread_t th[8];
  worker_arg args[8];
  for (int i = 0; i < 8; ++i) {
    args[i].n = 8 + 7 * (i % 4);
    pthread_create(&th[i], NULL, worker, &args[i]);
  }
  for (int i = 0; i < 8; ++i) {
    pthread_join(th[i], NULL);
    EXPECT(args[i].ok);
  }
  counts_since(0, &h, &m);
  EXPECT_EQ_I(h + m, 8 * 50);
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT(v <= 2);
  OK(ct_cufft_plan_cache_set_max_size(0, 4096));
  OK(ct_cufft_plan_cache_clear(0));
  FAILS(ct_cufft_plan_cache_hits(0, NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_cufft_plan_cache_misses(0, NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_cufft_plan_cache_misses(99, &v), CT_ERR_INDEX, "Invalid CUDA device index 99");
  FAILS(ct_cufft_plan_cache_size(99, &v), CT_ERR_INDEX, "Invalid CUDA device index 99");
}

/* torch.backends.cuda.cufft_plan_cache[i] is per device: settings, plans and counts of one
   device do not touch another's. Needs two GPUs. */
static void test_cuda_plan_cache_per_device(void) {
  if (g_cuda < 2) {
    printf("  SKIP %s: needs two CUDA devices, found %d\n", g_test_name, g_cuda);
    g_skipped = 1;
    return;
  }
  int64_t v;
  OK(ct_cufft_plan_cache_clear(0));
  OK(ct_cufft_plan_cache_clear(1));
  OK(ct_cufft_plan_cache_set_max_size(1, 3));
  OK(ct_cufft_plan_cache_max_size(0, &v));
  EXPECT_EQ_I(v, 4096);
  OK(ct_cufft_plan_cache_set_max_bytes(0, 12345));
  OK(ct_cufft_plan_cache_max_bytes(1, &v));
  EXPECT_EQ_I(v, 0);
  OK(ct_cufft_plan_cache_set_max_bytes(0, 0));
  counts_since(0, &v, &v);
  counts_since(1, &v, &v);
  fft_once(16, 1), fft_once(16, 1), fft_once(24, 1);
  EXPECT_COUNTS(1, 1, 2);
  EXPECT_COUNTS(0, 0, 0); /* device 1's transforms were not looked up in device 0's cache */
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 0);
  OK(ct_cufft_plan_cache_size(1, &v));
  EXPECT_EQ_I(v, 2);
  fft_once(16, 0); /* the same transform on device 0 needs its own plan */
  EXPECT_COUNTS(0, 0, 1);
  /* the current device selects the cache for device -1 */
  OK(ct_cuda_set_device(1));
  OK(ct_cufft_plan_cache_size(-1, &v));
  EXPECT_EQ_I(v, 2);
  OK(ct_cufft_plan_cache_clear(-1));
  OK(ct_cuda_set_device(0));
  OK(ct_cufft_plan_cache_size(1, &v));
  EXPECT_EQ_I(v, 0);
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 1); /* clearing device 1 left device 0's plan */
  /* more plans than device 1's max_size: only device 1 evicts */
  for (int64_t n = 8; n <= 40; n += 8) fft_once(n, 1);
  OK(ct_cufft_plan_cache_size(1, &v));
  EXPECT_EQ_I(v, 3);
  OK(ct_cufft_plan_cache_size(0, &v));
  EXPECT_EQ_I(v, 1);
  OK(ct_cufft_plan_cache_set_max_size(1, 4096));
  OK(ct_cufft_plan_cache_clear(0));
  OK(ct_cufft_plan_cache_clear(1));
}

static void test_without_cuda(void) {
  if (g_cuda) return;
  int64_t v;
  FAILS(ct_cufft_plan_cache_size(0, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_clear(0), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_hits(0, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_misses(0, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_max_size(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_set_max_size(-1, 3), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_max_bytes(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_set_max_bytes(-1, 1 << 20), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cufft_plan_cache_bytes(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "");
}

TEST_MAIN(TEST_CASE(cpu_fft), TEST_CASE(cuda_fft_and_plan_cache), TEST_CASE(cuda_plan_cache_per_device),
          TEST_CASE(without_cuda))
