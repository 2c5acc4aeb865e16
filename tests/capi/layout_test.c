/* Elementwise ops, casts, copies, where/clamp/fill_, cat/stack and reductions over a
 * dtype x layout grid (issue 12, "Tests"), on the CPU and on every CUDA device:
 *
 *  1. Layout equivalence: an op on a view (broadcast, 0-dim CPU operand, Python scalar,
 *     transposed, stride-2 slice, 3-D permute, unaligned narrow, odd and zero sizes) equals,
 *     bit for bit (NaN == NaN), the same op on contiguous copies of its operands, which the test
 *     gathers itself on the host from the bytes it generated (no library strided code involved).
 *     Same status, dtype, shape and values. Result strides are never asserted.
 *  2. Mixed dtypes: op(a, b) equals op(a.to(R), b.to(R)) with R = torch.result_type (computed
 *     here, with PyTorch's dim / 0-dim / wrapped-number categories); float16 and bfloat16
 *     arithmetic equals the float32 computation rounded once.
 *  3. Special values with hand-computed expected values and bit patterns.
 *  4. CPU/CUDA parity over the same grid (exact except transcendental functions, pow, complex
 *     division and float sums; complex products with infinite operands differ between PyTorch's
 *     own CPU and CUDA kernels, so there only "non-finite on both" is required).
 *  5. Vector tails: contiguous and unaligned 1-D float16/int8/uint8 tensors of lengths around
 *     vector widths against element-by-element references computed here in C.
 *
 * Inputs are chosen so that the expectations hold in PyTorch too: float values are multiples of
 * 1/8 (sums of them are exact in any order), no +0/-0 ties reach maximum/clamp, no float that is
 * NaN, infinite or out of range is cast to an integer type, Python scalars are representable in
 * every dtype, and no integer sum overflows.
 *
 * A failure names the check, op, dtypes, layout, device and the first differing element with
 * both values. Known differences from PyTorch that the implementation has not fixed yet are
 * listed in k_known_diffs (printed, not counted as failures). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include "tests/capi/test_util.h"

#define MAXD 4

/* ============================================================================================
 * Reporting
 * ========================================================================================== */

/* Known differences from PyTorch of the current implementation, matched against the failure
 * message (every non-NULL substring must occur). Keep this list empty when nothing is known. */
typedef struct {
  const char* match[4];
  const char* why;
} known_diff;
static const known_diff k_known_diffs[] = {
    {{NULL}, NULL} /* end */
};

static int g_cases = 0;        /* grid cases evaluated (per device) */
static int g_known = 0;        /* failures matched by k_known_diffs */
static int g_printed = 0;      /* failures printed in the current test */
static int g_max_print = 40;   /* LAYOUT_TEST_MAX_PRINT overrides */
/* the first CUDA device the cases run on (LAYOUT_TEST_FIRST_DEVICE; tools/gpu_check.sh's
 * racecheck on several GPUs runs the last one alone: every device takes longer than a call) */
static int g_first_device = 0;

static int known_diff_index(const char* msg) {
  for (int k = 0; k_known_diffs[k].why; ++k) {
    int all = 1;
    for (int j = 0; j < 4 && k_known_diffs[k].match[j]; ++j) all = all && strstr(msg, k_known_diffs[k].match[j]);
    if (all) return k;
  }
  return -1;
}

__attribute__((format(printf, 1, 2))) static void lfail(const char* fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int k = known_diff_index(msg);
  fflush(stdout);
  if (k >= 0) {
    if (g_known++ < 40) fprintf(stderr, "  KNOWN_DIFF (%s): %s\n", k_known_diffs[k].why, msg);
    return;
  }
  g_failed_checks++;
  if (g_printed++ < g_max_print) fprintf(stderr, "  FAIL %s: %s\n", g_test_name, msg);
  else if (g_printed == g_max_print + 1) fprintf(stderr, "  FAIL %s: (further failures of this test not printed)\n", g_test_name);
}

/* A library call that must succeed; ctx says which case. */
#define TRY(ctx, call)                                                                          \
  do {                                                                                          \
    ct_status s_ = (call);                                                                      \
    if (s_ != CT_OK)                                                                            \
      lfail("%s: %s returned %s: %s", (ctx), #call, ct_status_name(s_), ct_last_error_message()); \
  } while (0)

/* ============================================================================================
 * dtypes, on the host (independent of the library)
 * ========================================================================================== */

static const char* dt_name(ct_dtype d) {
  switch (d) {
    case CT_UINT8: return "uint8";
    case CT_INT8: return "int8";
    case CT_INT16: return "int16";
    case CT_INT32: return "int32";
    case CT_INT64: return "int64";
    case CT_FLOAT16: return "float16";
    case CT_FLOAT32: return "float32";
    case CT_FLOAT64: return "float64";
    case CT_COMPLEX64: return "complex64";
    case CT_COMPLEX128: return "complex128";
    case CT_BOOL: return "bool";
    case CT_BFLOAT16: return "bfloat16";
    default: return "undefined";
  }
}

static int64_t dt_size(ct_dtype d) {
  switch (d) {
    case CT_UINT8: case CT_INT8: case CT_BOOL: return 1;
    case CT_INT16: case CT_FLOAT16: case CT_BFLOAT16: return 2;
    case CT_INT32: case CT_FLOAT32: return 4;
    case CT_INT64: case CT_FLOAT64: case CT_COMPLEX64: return 8;
    case CT_COMPLEX128: return 16;
    default: return 0;
  }
}

static int is_fp(ct_dtype d) { return d == CT_FLOAT16 || d == CT_BFLOAT16 || d == CT_FLOAT32 || d == CT_FLOAT64; }
static int is_cx(ct_dtype d) { return d == CT_COMPLEX64 || d == CT_COMPLEX128; }
static int is_intg(ct_dtype d) { return d == CT_UINT8 || d == CT_INT8 || d == CT_INT16 || d == CT_INT32 || d == CT_INT64; }
static int is_half(ct_dtype d) { return d == CT_FLOAT16 || d == CT_BFLOAT16; }

/* torch.promote_types for the dtypes used here */
static ct_dtype promote(ct_dtype a, ct_dtype b) {
  if (a == b) return a;
  if (a == CT_BOOL) return b;
  if (b == CT_BOOL) return a;
  if (is_cx(a) || is_cx(b)) {
    int wide = a == CT_COMPLEX128 || b == CT_COMPLEX128 || a == CT_FLOAT64 || b == CT_FLOAT64;
    return wide ? CT_COMPLEX128 : CT_COMPLEX64;
  }
  if (is_fp(a) && is_fp(b)) {
    if (is_half(a) && is_half(b)) return CT_FLOAT32;
    return dt_size(a) >= dt_size(b) ? a : b;
  }
  if (is_fp(a)) return a;
  if (is_fp(b)) return b;
  if (a == CT_UINT8 || b == CT_UINT8) {
    ct_dtype o = a == CT_UINT8 ? b : a;
    return o == CT_INT8 ? CT_INT16 : o;
  }
  return dt_size(a) >= dt_size(b) ? a : b;
}

/* PyTorch's combine_categories(higher, lower); CT_DTYPE_UNDEFINED is "no operand" */
static ct_dtype combine_categories(ct_dtype higher, ct_dtype lower) {
  if (higher == CT_DTYPE_UNDEFINED) return lower;
  if (lower == CT_DTYPE_UNDEFINED) return higher;
  if (is_cx(higher)) return higher;
  if (is_cx(lower)) return is_fp(higher) ? (higher == CT_FLOAT64 ? CT_COMPLEX128 : CT_COMPLEX64) : lower;
  if (is_fp(higher)) return higher;
  if (higher == CT_BOOL || is_fp(lower)) return promote(higher, lower);
  return higher;
}

/* torch.result_type of one dimensioned tensor, one 0-dim tensor and one wrapped number (each
 * may be CT_DTYPE_UNDEFINED). A wrapped float counts as float32, a wrapped int as int64. */
static ct_dtype result_type3(ct_dtype dim, ct_dtype zero, ct_dtype wrapped) {
  return combine_categories(dim, combine_categories(zero, wrapped));
}

/* float16 (ties to even, from any double: correctly rounded) */
static uint16_t dbl_to_f16(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  if (isnan(v)) return sign | 0x7E00;
  double a = fabs(v);
  if (isinf(a)) return sign | 0x7C00;
  if (a < 0x1p-14) return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24));
  int e;
  double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  double q = nearbyint(m * 2048.0);
  if (q == 2048.0) {
    q = 1024.0;
    e++;
  }
  if (e - 1 > 15) return sign | 0x7C00;
  return (uint16_t)(sign | (uint16_t)(((e - 1 + 15) << 10) | ((int)q - 1024)));
}

static double f16_to_dbl(uint16_t h) {
  int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static double bf16_to_dbl(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static int f16_isnan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF); }
static int bf16_isnan(uint16_t h) { return (h & 0x7FFF) > 0x7F80; }

/* writes a value of dt at p: floats from (re, im), integers and bool from iv */
static void put_f(ct_dtype dt, unsigned char* p, double re, double im);
static void put_i(ct_dtype dt, unsigned char* p, int64_t v) {
  switch (dt) {
    case CT_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case CT_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case CT_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case CT_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case CT_INT64: memcpy(p, &v, 8); break;
    case CT_BOOL: *p = v != 0; break;
    default: put_f(dt, p, (double)v, 0); break;
  }
}
static void put_f(ct_dtype dt, unsigned char* p, double re, double im) {
  switch (dt) {
    case CT_FLOAT16: { uint16_t b = dbl_to_f16(re); memcpy(p, &b, 2); break; }
    case CT_BFLOAT16: { uint16_t b = f32_to_bf16((float)re); memcpy(p, &b, 2); break; }
    case CT_FLOAT32: { float f = (float)re; memcpy(p, &f, 4); break; }
    case CT_FLOAT64: memcpy(p, &re, 8); break;
    case CT_COMPLEX64: { float f[2] = {(float)re, (float)im}; memcpy(p, f, 8); break; }
    case CT_COMPLEX128: { double d[2] = {re, im}; memcpy(p, d, 16); break; }
    case CT_BOOL: *p = re != 0 || im != 0 || isnan(re); break;
    default: put_i(dt, p, (int64_t)re); break;
  }
}

/* reads a value of dt at p as (re, im) and, for integers and bool, *iv */
static void get_v(ct_dtype dt, const unsigned char* p, double* re, double* im, int64_t* iv) {
  double r = 0, i = 0;
  int64_t n = 0;
  switch (dt) {
    case CT_UINT8: { uint8_t x; memcpy(&x, p, 1); n = x; break; }
    case CT_INT8: { int8_t x; memcpy(&x, p, 1); n = x; break; }
    case CT_INT16: { int16_t x; memcpy(&x, p, 2); n = x; break; }
    case CT_INT32: { int32_t x; memcpy(&x, p, 4); n = x; break; }
    case CT_INT64: memcpy(&n, p, 8); break;
    case CT_BOOL: n = *p; break;
    case CT_FLOAT16: { uint16_t b; memcpy(&b, p, 2); r = f16_to_dbl(b); break; }
    case CT_BFLOAT16: { uint16_t b; memcpy(&b, p, 2); r = bf16_to_dbl(b); break; }
    case CT_FLOAT32: { float f; memcpy(&f, p, 4); r = f; break; }
    case CT_FLOAT64: memcpy(&r, p, 8); break;
    case CT_COMPLEX64: { float f[2]; memcpy(f, p, 8); r = f[0]; i = f[1]; break; }
    case CT_COMPLEX128: { double d[2]; memcpy(d, p, 16); r = d[0]; i = d[1]; break; }
    default: break;
  }
  if (is_intg(dt) || dt == CT_BOOL) r = (double)n;
  if (re) *re = r;
  if (im) *im = i;
  if (iv) *iv = n;
}

static void fmt_v(ct_dtype dt, const unsigned char* p, char* buf, size_t cap) {
  double re, im;
  int64_t iv;
  get_v(dt, p, &re, &im, &iv);
  switch (dt) {
    case CT_FLOAT16: case CT_BFLOAT16: { uint16_t b; memcpy(&b, p, 2); snprintf(buf, cap, "%.9g (bits 0x%04x)", re, b); break; }
    case CT_FLOAT32: { uint32_t b; memcpy(&b, p, 4); snprintf(buf, cap, "%.9g (bits 0x%08x)", re, b); break; }
    case CT_FLOAT64: { uint64_t b; memcpy(&b, p, 8); snprintf(buf, cap, "%.17g (bits 0x%016llx)", re, (unsigned long long)b); break; }
    case CT_COMPLEX64: snprintf(buf, cap, "(%.9g%+.9gj)", re, im); break;
    case CT_COMPLEX128: snprintf(buf, cap, "(%.17g%+.17gj)", re, im); break;
    case CT_BOOL: snprintf(buf, cap, "%s (byte %d)", iv ? "true" : "false", (int)*p); break;
    default: snprintf(buf, cap, "%lld", (long long)iv); break;
  }
}

static int same_bits_or_nan_f32(const unsigned char* x, const unsigned char* y) {
  float a, b;
  memcpy(&a, x, 4);
  memcpy(&b, y, 4);
  return memcmp(x, y, 4) == 0 || (isnan(a) && isnan(b));
}
static int same_bits_or_nan_f64(const unsigned char* x, const unsigned char* y) {
  double a, b;
  memcpy(&a, x, 8);
  memcpy(&b, y, 8);
  return memcmp(x, y, 8) == 0 || (isnan(a) && isnan(b));
}

/* exact equality: same bits, except that any NaN equals any NaN (per component) */
static int elem_same(ct_dtype dt, const unsigned char* x, const unsigned char* y) {
  switch (dt) {
    case CT_FLOAT16: case CT_BFLOAT16: {
      uint16_t a, b;
      memcpy(&a, x, 2);
      memcpy(&b, y, 2);
      if (a == b) return 1;
      return dt == CT_FLOAT16 ? (f16_isnan(a) && f16_isnan(b)) : (bf16_isnan(a) && bf16_isnan(b));
    }
    case CT_FLOAT32: return same_bits_or_nan_f32(x, y);
    case CT_FLOAT64: return same_bits_or_nan_f64(x, y);
    case CT_COMPLEX64: return same_bits_or_nan_f32(x, y) && same_bits_or_nan_f32(x + 4, y + 4);
    case CT_COMPLEX128: return same_bits_or_nan_f64(x, y) && same_bits_or_nan_f64(x + 8, y + 8);
    default: return memcmp(x, y, (size_t)dt_size(dt)) == 0;
  }
}

/* Set around rule 4 for complex multiplication: PyTorch's CPU kernel multiplies with
 * std::complex (C99 Annex G: an infinite operand gives an infinite result where the textbook
 * formula gives NaN), its CUDA kernel with the textbook formula, so with infinite inputs the two
 * devices differ in PyTorch as well; elements that are non-finite on both devices then match. */
static int g_cx_nonfinite_match = 0;

static int cx_nonfinite(double re, double im) { return !isfinite(re) || !isfinite(im); }

/* |x - y| <= rtol * max(1, |y|) per component, |y| the modulus for complex values (the error of
 * a complex function is relative to its magnitude); infinities and NaN must match */
static int elem_close(ct_dtype dt, const unsigned char* x, const unsigned char* y, double rtol) {
  if (elem_same(dt, x, y)) return 1;
  if (!(is_fp(dt) || is_cx(dt))) return 0;
  double xr, xi, yr, yi;
  get_v(dt, x, &xr, &xi, NULL);
  get_v(dt, y, &yr, &yi, NULL);
  if (is_cx(dt) && g_cx_nonfinite_match && cx_nonfinite(xr, xi) && cx_nonfinite(yr, yi)) return 1;
  if (rtol <= 0) return 0;
  double g[2] = {xr, xi}, w[2] = {yr, yi};
  double scale = is_cx(dt) ? fmax(1.0, hypot(yr, yi)) : 0;
  for (int k = 0; k < 2; ++k) {
    if (isnan(g[k]) || isnan(w[k])) {
      if (!(isnan(g[k]) && isnan(w[k]))) return 0;
      continue;
    }
    if (isinf(g[k]) || isinf(w[k])) {
      if (g[k] != w[k]) return 0;
      continue;
    }
    if (!(fabs(g[k] - w[k]) <= rtol * fmax(fmax(1.0, fabs(w[k])), scale))) return 0;
  }
  return 1;
}

/* ============================================================================================
 * Host buffers and tensors
 * ========================================================================================== */

static int64_t prod(const int64_t* s, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= s[i];
  return n;
}

static void contig_strides(const int64_t* s, int nd, int64_t* st) {
  int64_t m = 1;
  for (int i = nd - 1; i >= 0; --i) {
    st[i] = m;
    m *= s[i];
  }
}

/* strides over a contiguous base of shape bsz that broadcast it to shape full */
static void bcast_strides(const int64_t* bsz, int bnd, const int64_t* full, int nd, int64_t* st) {
  int64_t bst[MAXD];
  contig_strides(bsz, bnd, bst);
  for (int i = 0; i < nd; ++i) {
    int j = i - (nd - bnd);
    st[i] = (j >= 0 && bsz[j] == full[i] && bsz[j] != 1) ? bst[j] : 0;
  }
}

/* where element k (in C order of sizes sz, all > 0) sits: offset + sum(idx * strides) */
static int64_t strided_offset(int64_t k, int nd, const int64_t* sz, const int64_t* st, int64_t off) {
  for (int d = nd - 1; d >= 0; --d) {
    off += k % sz[d] * st[d];
    k /= sz[d];
  }
  return off;
}

/* elements of src at offset + sum(idx * strides), in C order of sizes */
static unsigned char* gather(const unsigned char* src, ct_dtype dt, int nd, const int64_t* sz, const int64_t* st, int64_t off) {
  int64_t n = prod(sz, nd), es = dt_size(dt);
  unsigned char* out = (unsigned char*)malloc((size_t)(n ? n * es : 1));
  for (int64_t k = 0; k < n; ++k) memcpy(out + k * es, src + strided_offset(k, nd, sz, st, off) * es, (size_t)es);
  return out;
}

/* the inverse: writes vals (C order of sizes) into dst at the strided positions */
static void scatter(unsigned char* dst, const unsigned char* vals, ct_dtype dt, int nd, const int64_t* sz, const int64_t* st, int64_t off) {
  int64_t n = prod(sz, nd), es = dt_size(dt);
  for (int64_t k = 0; k < n; ++k) memcpy(dst + strided_offset(k, nd, sz, st, off) * es, vals + k * es, (size_t)es);
}

/* a tensor holding bytes (dt, C order) on the CPU (dev < 0) or on CUDA device dev */
static ct_tensor mk(const void* bytes, ct_dtype dt, int nd, const int64_t* sz, int dev, const char* ctx) {
  ct_tensor t = NULL;
  static const unsigned char dummy[16] = {0};
  int64_t n = prod(sz, nd);
  ct_status s = ct_from_buffer(n ? bytes : dummy, n * dt_size(dt), sz, nd, dt, dev < 0 ? CT_CPU : CT_CUDA, dev < 0 ? -1 : dev, &t);
  if (s != CT_OK) {
    lfail("%s: from_buffer(%s, %d dims) returned %s: %s", ctx, dt_name(dt), nd, ct_status_name(s), ct_last_error_message());
    return NULL;
  }
  return t;
}

/* t converted to dtype d on its own device (t itself when d is its dtype) */
static ct_tensor to_dt(ct_tensor t, ct_dtype d, const char* ctx) {
  ct_device_type ty;
  int32_t ix;
  ct_tensor r = NULL;
  if (!t) return NULL;
  TRY(ctx, ct_tensor_device(t, &ty, &ix));
  TRY(ctx, ct_tensor_to(t, ty, ix, d, 0, 0, &r));
  return r;
}

/* the bytes of t (its dtype, C order); NULL on error */
static unsigned char* fetch(ct_tensor t, int64_t* n, const char* ctx) {
  ct_dtype dt;
  *n = 0;
  if (ct_tensor_dtype(t, &dt) != CT_OK || ct_tensor_numel(t, n) != CT_OK) {
    lfail("%s: dtype/numel: %s", ctx, ct_last_error_message());
    return NULL;
  }
  unsigned char* buf = (unsigned char*)malloc((size_t)(*n ? *n * dt_size(dt) : 1));
  ct_status s = ct_tensor_copy_to_buffer(t, buf, *n * dt_size(dt));
  if (s != CT_OK) {
    lfail("%s: copy_to_buffer returned %s: %s", ctx, ct_status_name(s), ct_last_error_message());
    free(buf);
    return NULL;
  }
  return buf;
}

static void fmt_index(int64_t k, const int64_t* sz, int nd, char* buf, size_t cap) {
  int64_t idx[MAXD + 4];
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = sz[d] ? k % sz[d] : 0;
    k = sz[d] ? k / sz[d] : 0;
  }
  size_t used = 0;
  buf[0] = 0;
  used += (size_t)snprintf(buf, cap, "[");
  for (int d = 0; d < nd && used < cap; ++d) used += (size_t)snprintf(buf + used, cap - used, d ? ", %lld" : "%lld", (long long)idx[d]);
  if (used < cap) snprintf(buf + used, cap - used, "]");
}

static void fmt_shape(const int64_t* sz, int nd, char* buf, size_t cap) {
  size_t used = (size_t)snprintf(buf, cap, "(");
  for (int d = 0; d < nd && used < cap; ++d) used += (size_t)snprintf(buf + used, cap - used, d ? ", %lld" : "%lld", (long long)sz[d]);
  if (used < cap) snprintf(buf + used, cap - used, ")");
}

/* got == want: dtype, shape and every element (bitwise, NaN == NaN; within rtol when > 0) */
static int cmp_tensors(ct_tensor got, ct_tensor want, double rtol, const char* ctx, const char* what) {
  ct_dtype dg = CT_DTYPE_UNDEFINED, dw = CT_DTYPE_UNDEFINED;
  int64_t sg[16], sw[16];
  int32_t ng = 0, nw = 0;
  if (ct_tensor_dtype(got, &dg) != CT_OK || ct_tensor_dtype(want, &dw) != CT_OK || ct_tensor_sizes(got, sg, 16, &ng) != CT_OK ||
      ct_tensor_sizes(want, sw, 16, &nw) != CT_OK) {
    lfail("%s (%s): metadata: %s", ctx, what, ct_last_error_message());
    return 0;
  }
  if (dg != dw) {
    lfail("%s (%s): dtype %s, expected %s", ctx, what, dt_name(dg), dt_name(dw));
    return 0;
  }
  if (ng != nw || memcmp(sg, sw, (size_t)ng * 8) != 0) {
    char a[128], b[128];
    fmt_shape(sg, ng, a, sizeof a);
    fmt_shape(sw, nw, b, sizeof b);
    lfail("%s (%s): shape %s, expected %s", ctx, what, a, b);
    return 0;
  }
  int64_t n1, n2;
  unsigned char* x = fetch(got, &n1, ctx);
  unsigned char* y = fetch(want, &n2, ctx);
  int ok = x && y;
  if (ok) {
    int64_t es = dt_size(dg), first = -1, ndiff = 0;
    for (int64_t k = 0; k < n1; ++k) {
      if (!elem_close(dg, x + k * es, y + k * es, rtol)) {
        if (first < 0) first = k;
        ndiff++;
      }
    }
    if (first >= 0) {
      char gi[96], gv[96], wv[96], sh[96];
      fmt_index(first, sg, ng, gi, sizeof gi);
      fmt_v(dg, x + first * es, gv, sizeof gv);
      fmt_v(dg, y + first * es, wv, sizeof wv);
      fmt_shape(sg, ng, sh, sizeof sh);
      lfail("%s (%s): first difference at flat index %lld %s of shape %s: got %s, expected %s (%lld of %lld elements differ)", ctx,
            what, (long long)first, gi, sh, gv, wv, (long long)ndiff, (long long)n1);
      ok = 0;
    }
  }
  free(x);
  free(y);
  return ok;
}

static char g_err_view[512]; /* the message of the last failed op on a view */

static void save_err(ct_status s) {
  if (s != CT_OK) snprintf(g_err_view, sizeof g_err_view, "%s", ct_last_error_message());
  else g_err_view[0] = 0;
}

/* the op on views (got, status sg) against a reference computation (want, status sw) */
static void check_close(ct_tensor got, ct_status sg, ct_tensor want, ct_status sw, double rtol, const char* ctx,
                        const char* what) {
  if (sg != sw) {
    lfail("%s (%s): status %s for the views (%s), %s for the reference (%s)", ctx, what, ct_status_name(sg),
          sg == CT_OK ? "" : g_err_view, ct_status_name(sw), sw == CT_OK ? "" : ct_last_error_message());
    return;
  }
  if (sg == CT_OK) cmp_tensors(got, want, rtol, ctx, what);
}

static void check_same(ct_tensor got, ct_status sg, ct_tensor want, ct_status sw, const char* ctx, const char* what) {
  check_close(got, sg, want, sw, 0, ctx, what);
}

/* PyTorch computes pow with a CPU scalar exponent of 2, 3, -2 as products (float16 / bfloat16
 * products rounded to the dtype in between) and of 0.5, -0.5, -1 as sqrt, rsqrt and reciprocal
 * (impl/ops/cuda/binary.cu, Note [pow with a scalar exponent]); the same exponent as a tensor
 * goes through pow(). The two agree to a few units in the last place. */
static double scalar_pow_rtol(ct_dtype d) {
  if (d == CT_FLOAT16) return 2e-3;
  if (d == CT_BFLOAT16) return 1.6e-2;
  if (d == CT_FLOAT32 || d == CT_COMPLEX64) return 2e-6;
  return 1e-13;
}

static void check_dtype(ct_tensor t, ct_dtype want, const char* ctx, const char* what) {
  ct_dtype d = CT_DTYPE_UNDEFINED;
  TRY(ctx, ct_tensor_dtype(t, &d));
  if (d != want) lfail("%s (%s): result dtype %s, expected %s", ctx, what, dt_name(d), dt_name(want));
}

static void check_device(ct_tensor t, int dev, const char* ctx) {
  ct_device_type ty = -1;
  int32_t ix = -2;
  TRY(ctx, ct_tensor_device(t, &ty, &ix));
  if (dev < 0 && ty != CT_CPU) lfail("%s: result is not on the CPU", ctx);
  if (dev >= 0 && (ty != CT_CUDA || ix != dev)) lfail("%s: result is on device (%d, %d), expected cuda:%d", ctx, ty, ix, dev);
}

/* ============================================================================================
 * Input values
 * ========================================================================================== */

static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

enum { SP_NONE = 0, SP_NAN_INF = 1, SP_ALL = 2 }; /* specials: none; NaN and +-inf; also -0.0 */

static int64_t int_max(ct_dtype d) {
  return d == CT_INT16 ? INT16_MAX : d == CT_INT32 ? INT32_MAX : d == CT_INT8 ? INT8_MAX : d == CT_UINT8 ? UINT8_MAX : INT64_MAX;
}
static int64_t int_min(ct_dtype d) {
  return d == CT_INT16 ? INT16_MIN : d == CT_INT32 ? INT32_MIN : d == CT_INT8 ? INT8_MIN : d == CT_UINT8 ? 0 : INT64_MIN;
}

/* element i of an input: floats are nonzero multiples of 1/8 in [-4, 4] (exactly representable
 * in every float dtype; their sums are exact in any order); integers span their dtype (int8,
 * uint8) or [-1000, 1000] with the dtype's extremes at some positions when specials are on. */
static void gen_elem(ct_dtype dt, int64_t i, int salt, int specials, unsigned char* p) {
  uint64_t h = mix64((uint64_t)i * 1000003u + (uint64_t)salt * 0x1234567u + (uint64_t)(dt + 1) * 77777u);
  if (is_fp(dt) || is_cx(dt)) {
    int k = (int)(h % 64) - 32, k2 = (int)((h >> 20) % 64) - 32;
    if (k >= 0) k++;
    if (k2 >= 0) k2++;
    double re = k / 8.0, im = k2 / 8.0;
    if (specials) {
      int64_t s = (i + salt * 5) % 29;
      if (s == 3) re = NAN;
      else if (s == 11) re = INFINITY;
      else if (s == 17) re = -INFINITY;
      else if (s == 23 && specials == SP_ALL) re = -0.0;
    }
    put_f(dt, p, re, im);
  } else if (dt == CT_BOOL) {
    *p = (h >> 11) & 1;
  } else {
    int64_t v = dt == CT_UINT8 ? (int64_t)(h % 256) : dt == CT_INT8 ? (int64_t)(h % 256) - 128 : (int64_t)(h % 2001) - 1000;
    if (specials && dt != CT_UINT8 && dt != CT_INT8) {
      int64_t s = (i + salt * 3) % 19;
      if (s == 4) v = int_max(dt);
      else if (s == 9) v = int_min(dt);
      else if (s == 13 && dt == CT_INT64) v = (int64_t)1 << 62;
    }
    put_i(dt, p, v);
  }
}

/* ============================================================================================
 * Layouts
 * ========================================================================================== */

enum {
  K_NONE,
  K_CONTIG,     /* contiguous, of the full shape */
  K_EXPAND_ROW, /* a row expanded to the full shape (stride 0 on dim 0) */
  K_EXPAND_COL, /* a column expanded to the full shape (stride 0 on dim 1) */
  K_ZERODIM,    /* a 0-dim tensor on the device */
  K_TRANSPOSE,  /* the transpose of a contiguous (cols, rows) tensor */
  K_STRIDE2,    /* every other column, starting at column 1, of a (rows, 2 cols + 1) tensor */
  K_STRIDE2A,   /* every other column, starting at column 0, of a (rows, 2 cols) tensor: aligned rows */
  K_PERMUTE3,   /* (C, A, B) permuted by (1, 2, 0) to (A, B, C) */
  K_UNALIGNED,  /* narrow(start, numel) of a 1-D tensor, viewed as the full shape */
  K_NARROW,     /* narrow(1, size) in every dim of a tensor 2 larger in each dim */
  K_ROW,        /* the second operand: a contiguous row, broadcast by the op */
  K_COL,        /* the second operand: a contiguous (rows, 1) column, broadcast by the op */
  K_CPU0,       /* the second operand: a 0-dim CPU tensor (also with CUDA operands) */
  K_SCALAR      /* the second operand: a Python scalar (ct_binary_scalar_f / _i) */
};

typedef struct {
  const char* name;
  int nd;
  int64_t shape[3];
  int ka, kb; /* binary-like ops: first and second operand */
  int k1;     /* ops with one tensor operand (unary, casts, reductions, fill_) */
} layout_def;

static const layout_def k_layouts[] = {
    {"contiguous 7x13", 2, {7, 13}, K_CONTIG, K_CONTIG, K_CONTIG},
    {"contiguous 64x33", 2, {64, 33}, K_CONTIG, K_CONTIG, K_CONTIG},
    {"broadcast row", 2, {7, 13}, K_CONTIG, K_ROW, K_EXPAND_ROW},
    {"broadcast column", 2, {7, 13}, K_CONTIG, K_COL, K_EXPAND_COL},
    {"0-dim CPU operand", 2, {7, 13}, K_CONTIG, K_CPU0, K_ZERODIM},
    {"Python scalar", 2, {7, 13}, K_CONTIG, K_SCALAR, K_NONE},
    {"transposed", 2, {7, 13}, K_TRANSPOSE, K_TRANSPOSE, K_TRANSPOSE},
    {"transposed lhs, contiguous rhs", 2, {7, 13}, K_TRANSPOSE, K_CONTIG, K_NONE},
    {"transposed lhs, broadcast column rhs", 2, {7, 13}, K_TRANSPOSE, K_COL, K_NONE},
    {"stride-2 slice", 2, {7, 13}, K_STRIDE2, K_STRIDE2, K_STRIDE2},
    /* aligned rows, enough elements for several vectorized chunks (Note [Stride-2 reductions]) */
    {"stride-2 slice 300x256", 2, {300, 256}, K_STRIDE2A, K_STRIDE2A, K_STRIDE2A},
    {"3-D permute", 3, {3, 7, 13}, K_PERMUTE3, K_PERMUTE3, K_PERMUTE3},
    {"unaligned narrow", 2, {7, 13}, K_UNALIGNED, K_UNALIGNED, K_UNALIGNED},
    {"1x1 narrow", 2, {1, 1}, K_NARROW, K_NARROW, K_NARROW},
    {"1-element narrow", 1, {1}, K_NARROW, K_NARROW, K_NARROW},
    {"zero-size 0x5", 2, {0, 5}, K_NARROW, K_NARROW, K_NARROW},
    /* more elements than one CPU chunk (32768): split across threads */
    {"contiguous 300x257", 2, {300, 257}, K_CONTIG, K_CONTIG, K_CONTIG},
    {"transposed 300x257", 2, {300, 257}, K_TRANSPOSE, K_TRANSPOSE, K_TRANSPOSE},
};
#define N_LAYOUTS ((int)(sizeof k_layouts / sizeof k_layouts[0]))

/* an operand: what the op receives (arg), the same values gathered contiguously on the host
 * and broadcast to the op's full shape (ref), and the tensor arg views (base) with its bytes */
typedef struct {
  ct_tensor arg, ref, base;
  unsigned char* hb; /* the base's bytes */
  int64_t bn;
  int vnd; /* arg as a strided view of base, in elements */
  int64_t vsz[MAXD], vst[MAXD], voff;
  ct_dtype dt;
} operand;

static void op_free(operand* o) {
  rel(o->arg);
  rel(o->ref);
  rel(o->base);
  free(o->hb);
  memset(o, 0, sizeof *o);
}

/* builds an operand of layout kind `kind` and dtype dt for an op of full shape (nd, full);
 * salt picks the values, start the first element of K_UNALIGNED. Returns 0 on failure. */
static int build_operand(operand* o, int kind, ct_dtype dt, int nd, const int64_t* full, int salt, int specials, int start, int dev,
                         const char* ctx) {
  memset(o, 0, sizeof *o);
  o->dt = dt;
  if (kind == K_ZERODIM) nd = 0;
  int64_t bsz[MAXD] = {0}, bst[MAXD];
  int bnd = 0;
  switch (kind) {
    case K_CONTIG: case K_NARROW:
      bnd = nd;
      for (int i = 0; i < nd; ++i) bsz[i] = full[i] + (kind == K_NARROW ? 2 : 0);
      break;
    case K_EXPAND_ROW: case K_ROW: bnd = 1; bsz[0] = full[nd - 1]; break;
    case K_EXPAND_COL: case K_COL: bnd = 2; bsz[0] = full[0]; bsz[1] = 1; break;
    case K_ZERODIM: case K_CPU0: bnd = 0; break;
    case K_TRANSPOSE: bnd = 2; bsz[0] = full[1]; bsz[1] = full[0]; break;
    case K_STRIDE2: bnd = 2; bsz[0] = full[0]; bsz[1] = 2 * full[1] + 1; break;
    case K_STRIDE2A: bnd = 2; bsz[0] = full[0]; bsz[1] = 2 * full[1]; break;
    case K_PERMUTE3: bnd = 3; bsz[0] = full[2]; bsz[1] = full[0]; bsz[2] = full[1]; break;
    case K_UNALIGNED: bnd = 1; bsz[0] = prod(full, nd) + start + 2; break;
    default: lfail("%s: bad layout kind %d", ctx, kind); return 0;
  }
  contig_strides(bsz, bnd, bst);
  o->bn = prod(bsz, bnd);
  int64_t es = dt_size(dt);
  o->hb = (unsigned char*)malloc((size_t)(o->bn ? o->bn * es : 1));
  for (int64_t i = 0; i < o->bn; ++i) gen_elem(dt, i, salt, specials, o->hb + i * es);
  o->base = mk(o->hb, dt, bnd, bsz, kind == K_CPU0 ? -1 : dev, ctx);
  if (!o->base) return 0;
  ct_status s = CT_OK;
  o->voff = 0;
  switch (kind) {
    case K_CONTIG: case K_ROW: case K_COL: case K_ZERODIM: case K_CPU0:
      ct_tensor_retain(o->base);
      o->arg = o->base;
      o->vnd = bnd;
      memcpy(o->vsz, bsz, sizeof bsz);
      memcpy(o->vst, bst, sizeof bst);
      break;
    case K_EXPAND_ROW: case K_EXPAND_COL:
      s = ct_expand(o->base, full, nd, &o->arg);
      o->vnd = nd;
      memcpy(o->vsz, full, (size_t)nd * 8);
      bcast_strides(bsz, bnd, full, nd, o->vst);
      break;
    case K_TRANSPOSE:
      s = ct_transpose(o->base, 0, 1, &o->arg);
      o->vnd = 2;
      o->vsz[0] = full[0], o->vsz[1] = full[1];
      o->vst[0] = bst[1], o->vst[1] = bst[0];
      break;
    case K_STRIDE2: case K_STRIDE2A:
      o->voff = kind == K_STRIDE2 ? 1 : 0;
      s = ct_slice(o->base, 1, o->voff, bsz[1], 2, &o->arg);
      o->vnd = 2;
      o->vsz[0] = full[0], o->vsz[1] = full[1];
      o->vst[0] = bst[0], o->vst[1] = 2;
      break;
    case K_PERMUTE3:
      s = ct_permute(o->base, (const int64_t[]){1, 2, 0}, 3, &o->arg);
      o->vnd = 3;
      memcpy(o->vsz, full, 3 * 8);
      o->vst[0] = bst[1], o->vst[1] = bst[2], o->vst[2] = bst[0];
      break;
    case K_UNALIGNED: {
      ct_tensor t = NULL;
      s = ct_narrow(o->base, 0, start, prod(full, nd), &t);
      if (s == CT_OK) s = ct_view(t, full, nd, &o->arg);
      rel(t);
      o->vnd = nd;
      memcpy(o->vsz, full, (size_t)nd * 8);
      contig_strides(full, nd, o->vst);
      o->voff = start;
      break;
    }
    case K_NARROW: {
      ct_tensor t = o->base;
      ct_tensor_retain(t);
      for (int i = 0; i < nd && s == CT_OK; ++i) {
        ct_tensor u = NULL;
        s = ct_narrow(t, i, 1, full[i], &u);
        rel(t);
        t = u;
      }
      o->arg = t;
      o->vnd = nd;
      memcpy(o->vsz, full, (size_t)nd * 8);
      memcpy(o->vst, bst, sizeof bst);
      for (int i = 0; i < nd; ++i) o->voff += bst[i];
      break;
    }
    default: break;
  }
  if (s != CT_OK || !o->arg) {
    lfail("%s: building the view failed: %s: %s", ctx, ct_status_name(s), ct_last_error_message());
    return 0;
  }
  /* the reference operand: gathered on the host, broadcast to the full shape */
  int rnd = o->vnd;
  int64_t rsz[MAXD], rst[MAXD], roff = o->voff;
  memcpy(rsz, o->vsz, sizeof rsz);
  memcpy(rst, o->vst, sizeof rst);
  if (kind == K_ROW || kind == K_COL || kind == K_CPU0) {
    rnd = nd;
    memcpy(rsz, full, (size_t)nd * 8);
    bcast_strides(bsz, bnd, full, nd, rst);
    roff = 0;
  }
  unsigned char* g = gather(o->hb, dt, rnd, rsz, rst, roff);
  o->ref = mk(g, dt, rnd, rsz, dev, ctx);
  free(g);
  /* the view has the shape it should have */
  int64_t got[16];
  int32_t gn = -1;
  if (ct_tensor_sizes(o->arg, got, 16, &gn) != CT_OK || gn != o->vnd || memcmp(got, o->vsz, (size_t)o->vnd * 8) != 0)
    lfail("%s: the %d-dim view of layout kind %d has the wrong shape", ctx, o->vnd, kind);
  return o->ref != NULL;
}

/* ============================================================================================
 * The grid
 * ========================================================================================== */

static const ct_dtype k_dtypes[] = {CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT64, CT_INT32, CT_INT64,
                                    CT_UINT8,   CT_INT8,    CT_INT16,    CT_BOOL,    CT_COMPLEX64};
#define N_DTYPES ((int)(sizeof k_dtypes / sizeof k_dtypes[0]))

/* dtype pairs: every dtype with itself, then the mixed pairs both ways round */
static const ct_dtype k_mixed[][2] = {{CT_FLOAT32, CT_FLOAT16}, {CT_FLOAT16, CT_BFLOAT16}, {CT_INT32, CT_FLOAT16},
                                      {CT_UINT8, CT_INT8},      {CT_BOOL, CT_FLOAT32},     {CT_INT64, CT_FLOAT64}};
#define N_MIXED ((int)(sizeof k_mixed / sizeof k_mixed[0]))
#define N_PAIRS (N_DTYPES + 2 * N_MIXED)

static void pair_at(int p, ct_dtype* a, ct_dtype* b) {
  if (p < N_DTYPES) {
    *a = *b = k_dtypes[p];
  } else {
    int m = (p - N_DTYPES) / 2, r = (p - N_DTYPES) % 2;
    *a = k_mixed[m][r];
    *b = k_mixed[m][1 - r];
  }
}

enum { F_BINARY, F_UNARY, F_CLAMP, F_WHERE, F_CAST, F_CONTIG, F_CLONE, F_COPY, F_FILL, F_REDUCE, F_JOIN };

typedef struct {
  int fam;
  int op;
  ct_dtype da, db; /* operand dtypes; db: second operand, cast target, copy_ destination */
  int lay;
  int v;           /* variant: scalar kind, clamp bounds, fill value, reduction dims, join dim */
  int specials;
} gcase;

static const int k_binary_ops[] = {CT_ADD, CT_SUB, CT_MUL, CT_DIV, CT_POW, CT_MAXIMUM, CT_EQ, CT_LT, CT_LOGICAL_AND};
static const int k_unary_ops[] = {CT_NEG, CT_ABS, CT_EXP, CT_SIGMOID, CT_RELU, CT_ROUND, CT_SQUARE};
enum { R_SUM, R_MEAN, R_AMAX, R_ARGMAX };
enum { J_CAT, J_STACK };

static const char* binary_name(int op) {
  switch (op) {
    case CT_ADD: return "add";
    case CT_SUB: return "sub";
    case CT_MUL: return "mul";
    case CT_DIV: return "div";
    case CT_POW: return "pow";
    case CT_MAXIMUM: return "maximum";
    case CT_MINIMUM: return "minimum";
    case CT_EQ: return "eq";
    case CT_LT: return "lt";
    case CT_LOGICAL_AND: return "logical_and";
    default: return "binary?";
  }
}
static const char* unary_name(int op) {
  switch (op) {
    case CT_NEG: return "neg";
    case CT_ABS: return "abs";
    case CT_EXP: return "exp";
    case CT_SIGMOID: return "sigmoid";
    case CT_RELU: return "relu";
    case CT_ROUND: return "round";
    case CT_SQUARE: return "square";
    default: return "unary?";
  }
}

/* Python scalar variants: 1.5 or 3, on the right or (reversed) on the left */
static const double k_scalar_f = 1.5;
static const int64_t k_scalar_i = 3;
/* clamp bounds: floating dtypes -1.5..2.25, others 1..20 (integral Python numbers) */
static void clamp_bounds(const gcase* c, int* hmin, double* mn, int* hmax, double* mx) {
  int fl = is_fp(c->da) || is_cx(c->da);
  *mn = fl ? -1.5 : 1;
  *mx = fl ? 2.25 : 20;
  *hmin = c->v != 2;
  *hmax = c->v != 1;
}
static double fill_value(const gcase* c) {
  if (is_fp(c->da) || is_cx(c->da)) return c->v ? -0.0 : 2.5;
  if (c->da == CT_BOOL) return c->v ? 0 : 1;
  return c->v ? (c->da == CT_UINT8 ? 200 : -3) : 7;
}

static void describe(const gcase* c, int dev, char* buf, size_t cap) {
  const layout_def* L = &k_layouts[c->lay];
  char op[96] = "", dts[64], var[96] = "", devs[16];
  snprintf(dts, sizeof dts, "%s", dt_name(c->da));
  switch (c->fam) {
    case F_BINARY:
      snprintf(op, sizeof op, "%s", binary_name(c->op));
      if (L->kb == K_SCALAR) {
        if (c->v & 2) snprintf(var, sizeof var, " scalar=%lld%s", (long long)k_scalar_i, (c->v & 1) ? " (reversed: scalar op tensor)" : "");
        else snprintf(var, sizeof var, " scalar=%g%s", k_scalar_f, (c->v & 1) ? " (reversed: scalar op tensor)" : "");
      } else {
        snprintf(dts, sizeof dts, "%s, %s", dt_name(c->da), dt_name(c->db));
      }
      break;
    case F_UNARY: snprintf(op, sizeof op, "%s", unary_name(c->op)); break;
    case F_CLAMP: {
      int hmin, hmax;
      double mn, mx;
      clamp_bounds(c, &hmin, &mn, &hmax, &mx);
      snprintf(op, sizeof op, "clamp");
      if (hmin && hmax) snprintf(var, sizeof var, " min=%g max=%g", mn, mx);
      else if (hmin) snprintf(var, sizeof var, " min=%g", mn);
      else snprintf(var, sizeof var, " max=%g", mx);
      break;
    }
    case F_WHERE: snprintf(op, sizeof op, "where"); snprintf(dts, sizeof dts, "bool, %s, %s", dt_name(c->da), dt_name(c->db)); break;
    case F_CAST: snprintf(op, sizeof op, "cast"); snprintf(dts, sizeof dts, "%s->%s", dt_name(c->da), dt_name(c->db)); break;
    case F_CONTIG: snprintf(op, sizeof op, "contiguous"); break;
    case F_CLONE: snprintf(op, sizeof op, "clone"); break;
    case F_COPY: snprintf(op, sizeof op, "copy_"); snprintf(dts, sizeof dts, "src %s -> dst %s", dt_name(c->da), dt_name(c->db)); break;
    case F_FILL: snprintf(op, sizeof op, "fill_"); snprintf(var, sizeof var, " value=%g", fill_value(c)); break;
    case F_REDUCE: {
      static const char* names[] = {"sum", "mean", "amax", "argmax"};
      static const char* dims[] = {" over all", " dim=0 keepdim", " dim=-1"};
      snprintf(op, sizeof op, "%s", names[c->op]);
      snprintf(var, sizeof var, "%s", dims[c->v]);
      break;
    }
    case F_JOIN:
      snprintf(op, sizeof op, "%s", c->op == J_CAT ? "cat" : "stack");
      snprintf(dts, sizeof dts, "%s, %s", dt_name(c->da), dt_name(c->db));
      snprintf(var, sizeof var, " dim=%d", c->v);
      break;
    default: break;
  }
  if (dev < 0) snprintf(devs, sizeof devs, "cpu");
  else snprintf(devs, sizeof devs, "cuda:%d", dev);
  snprintf(buf, cap, "%s [%s]%s layout=%s%s device=%s", op, dts, var, L->name,
           c->specials == SP_ALL ? " (inputs with NaN/inf/-0)" : c->specials == SP_NAN_INF ? " (inputs with NaN/inf)" : "", devs);
}

/* Each eval builds the case's inputs on dev, runs the op on the views (returned, with its
 * status, for the CPU/CUDA comparison) and, when check, compares it with the references. */
typedef ct_tensor (*eval_fn)(const gcase* c, int dev, int check, ct_status* st, const char* ctx);

/* dtype of a binary op's result from the common dtype R */
static ct_dtype binary_result(int op, ct_dtype R) {
  if (op == CT_EQ || op == CT_LT || op == CT_LOGICAL_AND) return CT_BOOL;
  if (op == CT_DIV && (is_intg(R) || R == CT_BOOL)) return CT_FLOAT32;
  return R;
}

/* A true division whose divisor is a CPU scalar (a Python scalar on the right, or a 0-dim CPU
 * operand): torch.cuda multiplies by the scalar's reciprocal there, the CPU divides, so the two
 * devices may differ in the last bit (rule 4), as in PyTorch. */
static int cuda_div_by_cpu_scalar(const gcase* c) {
  const layout_def* L = &k_layouts[c->lay];
  return c->fam == F_BINARY && c->op == CT_DIV && ((L->kb == K_SCALAR && !(c->v & 1)) || L->kb == K_CPU0);
}

static ct_tensor eval_binary(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  const layout_def* L = &k_layouts[c->lay];
  operand a, b;
  memset(&b, 0, sizeof b);
  ct_tensor r = NULL;
  *st = CT_ERR_INTERNAL;
  int scalar = L->kb == K_SCALAR, rev = c->v & 1, sint = (c->v & 2) != 0;
  if (!build_operand(&a, L->ka, c->da, L->nd, L->shape, 1, c->specials, 1, dev, ctx) ||
      (!scalar && !build_operand(&b, L->kb, c->db, L->nd, L->shape, 2, c->specials, 3, dev, ctx))) {
    op_free(&a), op_free(&b);
    return NULL;
  }
  ct_dtype R;
  if (scalar) {
    *st = sint ? ct_binary_scalar_i(c->op, a.arg, k_scalar_i, rev, &r) : ct_binary_scalar_f(c->op, a.arg, k_scalar_f, rev, &r);
    R = result_type3(c->da, CT_DTYPE_UNDEFINED, sint ? CT_INT64 : CT_FLOAT32);
  } else {
    *st = ct_binary(c->op, a.arg, b.arg, &r);
    R = L->kb == K_CPU0 ? result_type3(c->da, c->db, CT_DTYPE_UNDEFINED) : promote(c->da, c->db);
  }
  save_err(*st);
  if (check) {
    if (*st == CT_OK) {
      check_device(r, dev, ctx);
      check_dtype(r, binary_result(c->op, R), ctx, "result dtype by torch.result_type");
    }
    /* rule 1: the same op on contiguous copies (only where they promote alike: both have dims) */
    if (!scalar && L->kb != K_CPU0) {
      ct_tensor r1 = NULL;
      ct_status s1 = ct_binary(c->op, a.ref, b.ref, &r1);
      check_same(r, *st, r1, s1, ctx, "rule 1: views vs contiguous copies");
      rel(r1);
    }
    /* rule 2: operands converted to the common dtype first (float32 for the true division of
       integers: PyTorch's promote_integer_inputs_to_float converts them straight to float32) */
    if (c->op == CT_DIV && (is_intg(R) || R == CT_BOOL)) R = CT_FLOAT32;
    ct_tensor aR = to_dt(a.ref, R, ctx), bR = NULL, r2 = NULL;
    if (scalar) {
      int64_t n = prod(L->shape, L->nd);
      unsigned char* buf = (unsigned char*)malloc((size_t)(n * dt_size(R) + 16));
      for (int64_t i = 0; i < n; ++i) {
        if (sint) put_i(R, buf + i * dt_size(R), k_scalar_i);
        else put_f(R, buf + i * dt_size(R), k_scalar_f, 0);
      }
      bR = mk(buf, R, L->nd, L->shape, dev, ctx);
      free(buf);
    } else {
      bR = to_dt(b.ref, R, ctx);
    }
    /* torch.cuda divides by a CPU scalar as x * (1 / s), the reciprocal taken in op-math from s
       cast to the common dtype (Note [Division by a CPU scalar], impl/ops/cuda/binary.cu) */
    ct_tensor inv = NULL;
    if (dev >= 0 && cuda_div_by_cpu_scalar(c) && aR && bR && *st == CT_OK) {
      ct_tensor s0 = NULL, so = NULL;
      if (scalar) TRY(ctx, ct_full(NULL, 0, sint ? (double)k_scalar_i : k_scalar_f, R, CT_CPU, -1, &s0));
      else s0 = to_dt(b.arg, R, ctx); /* the 0-dim CPU operand itself */
      so = to_dt(s0, is_half(R) ? CT_FLOAT32 : R, ctx);
      if (so) TRY(ctx, ct_unary(CT_RECIPROCAL, so, &inv));
      rel(s0), rel(so);
    }
    /* (a dtype error of the op, e.g. sub with a bool operand, may vanish after the conversion:
       statuses are compared by rule 1 and rule 4) */
    if (aR && bR && *st == CT_OK) {
      ct_status s2 = inv ? ct_binary(CT_MUL, aR, inv, &r2) : rev ? ct_binary(c->op, bR, aR, &r2) : ct_binary(c->op, aR, bR, &r2);
      const double rtol = c->op == CT_POW && !rev && (scalar || L->kb == K_CPU0) ? scalar_pow_rtol(R) : 0;
      check_close(r, *st, r2, s2, rtol, ctx, "rule 2: views vs contiguous copies converted to the common dtype first");
      /* float16 / bfloat16 arithmetic is the float32 computation rounded once */
      if (is_half(R) && (c->op == CT_ADD || c->op == CT_SUB || c->op == CT_MUL || c->op == CT_DIV) && *st == CT_OK) {
        ct_tensor af = to_dt(aR, CT_FLOAT32, ctx), bf = to_dt(bR, CT_FLOAT32, ctx), rf = NULL, rh = NULL;
        if (af && bf) {
          TRY(ctx, inv ? ct_binary(CT_MUL, af, inv, &rf) : rev ? ct_binary(c->op, bf, af, &rf) : ct_binary(c->op, af, bf, &rf));
          rh = to_dt(rf, R, ctx);
          if (rh) cmp_tensors(r, rh, 0, ctx, "rule 2: half-precision op == float32 op rounded once");
        }
        rel(af), rel(bf), rel(rf), rel(rh);
      }
    }
    rel(aR), rel(bR), rel(r2), rel(inv);
  }
  op_free(&a), op_free(&b);
  return r;
}

static ct_dtype unary_result(int op, ct_dtype d) {
  switch (op) {
    case CT_ABS: return d == CT_COMPLEX64 ? CT_FLOAT32 : d == CT_COMPLEX128 ? CT_FLOAT64 : d;
    case CT_EXP: case CT_SIGMOID: return (is_intg(d) || d == CT_BOOL) ? CT_FLOAT32 : d;
    case CT_SQUARE: return d == CT_BOOL ? CT_INT64 : d;
    default: return d;
  }
}

/* c's first operand (its layout's kind k1, dtype da) for the one-operand families; 0, with
 * nothing held, when it cannot be built */
static int build_first_operand(operand* a, const gcase* c, int dev, const char* ctx) {
  const layout_def* L = &k_layouts[c->lay];
  if (build_operand(a, L->k1, c->da, L->nd, L->shape, 1, c->specials, 1, dev, ctx)) return 1;
  op_free(a);
  return 0;
}

static ct_tensor eval_unary(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  operand a;
  ct_tensor r = NULL;
  *st = CT_ERR_INTERNAL;
  if (!build_first_operand(&a, c, dev, ctx)) return NULL;
  int hmin = 0, hmax = 0;
  double mn = 0, mx = 0;
  if (c->fam == F_CLAMP) {
    clamp_bounds(c, &hmin, &mn, &hmax, &mx);
    *st = ct_clamp(a.arg, hmin, mn, hmax, mx, &r);
  } else {
    *st = ct_unary(c->op, a.arg, &r);
  }
  save_err(*st);
  if (check) {
    ct_tensor r1 = NULL;
    ct_status s1 = c->fam == F_CLAMP ? ct_clamp(a.ref, hmin, mn, hmax, mx, &r1) : ct_unary(c->op, a.ref, &r1);
    check_same(r, *st, r1, s1, ctx, "rule 1: view vs contiguous copy");
    rel(r1);
    if (*st == CT_OK) {
      check_device(r, dev, ctx);
      /* clamp with integral bounds promotes bool to int64 (torch.result_type with the bounds) */
      ct_dtype want = c->fam == F_CLAMP ? (c->da == CT_BOOL ? CT_INT64 : c->da) : unary_result(c->op, c->da);
      check_dtype(r, want, ctx, "result dtype");
    }
    /* rule 2: exp / sigmoid of integers are those of the float32 values; of float16 /
       bfloat16 the float32 results rounded once */
    if (c->fam == F_UNARY && (c->op == CT_EXP || c->op == CT_SIGMOID) && *st == CT_OK &&
        (is_half(c->da) || is_intg(c->da) || c->da == CT_BOOL)) {
      ct_tensor af = to_dt(a.ref, CT_FLOAT32, ctx), rf = NULL, rh = NULL;
      if (af) {
        TRY(ctx, ct_unary(c->op, af, &rf));
        rh = is_half(c->da) ? to_dt(rf, c->da, ctx) : (rf ? (ct_tensor_retain(rf), rf) : NULL);
        if (rh) cmp_tensors(r, rh, 0, ctx, "rule 2: op of the values converted to float32 (rounded once to the input dtype)");
      }
      rel(af), rel(rf), rel(rh);
    }
  }
  op_free(&a);
  return r;
}

static ct_tensor eval_where(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  const layout_def* L = &k_layouts[c->lay];
  operand cond, a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  ct_tensor r = NULL;
  *st = CT_ERR_INTERNAL;
  if (!build_operand(&cond, L->ka, CT_BOOL, L->nd, L->shape, 3, SP_NONE, 2, dev, ctx) ||
      !build_operand(&a, L->ka, c->da, L->nd, L->shape, 1, c->specials, 1, dev, ctx) ||
      !build_operand(&b, L->kb, c->db, L->nd, L->shape, 2, c->specials, 3, dev, ctx)) {
    op_free(&cond), op_free(&a), op_free(&b);
    return NULL;
  }
  *st = ct_where(cond.arg, a.arg, b.arg, &r);
  save_err(*st);
  ct_dtype R = L->kb == K_CPU0 ? result_type3(c->da, c->db, CT_DTYPE_UNDEFINED) : promote(c->da, c->db);
  if (check) {
    if (*st == CT_OK) {
      check_device(r, dev, ctx);
      check_dtype(r, R, ctx, "result dtype by torch.result_type");
    }
    if (L->kb != K_CPU0) {
      ct_tensor r1 = NULL;
      ct_status s1 = ct_where(cond.ref, a.ref, b.ref, &r1);
      check_same(r, *st, r1, s1, ctx, "rule 1: views vs contiguous copies");
      rel(r1);
    }
    ct_tensor aR = to_dt(a.ref, R, ctx), bR = to_dt(b.ref, R, ctx), r2 = NULL;
    if (aR && bR) {
      ct_status s2 = ct_where(cond.ref, aR, bR, &r2);
      check_same(r, *st, r2, s2, ctx, "rule 2: views vs contiguous copies converted to the common dtype first");
    }
    rel(aR), rel(bR), rel(r2);
  }
  op_free(&cond), op_free(&a), op_free(&b);
  return r;
}

/* casts (to), contiguous() and clone() of a view */
static ct_tensor eval_cast(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  operand a;
  ct_tensor r = NULL;
  *st = CT_ERR_INTERNAL;
  if (!build_first_operand(&a, c, dev, ctx)) return NULL;
  if (c->fam == F_CAST) *st = ct_tensor_to(a.arg, dev < 0 ? CT_CPU : CT_CUDA, dev < 0 ? -1 : dev, c->db, 0, 0, &r);
  else if (c->fam == F_CONTIG) *st = ct_contiguous(a.arg, &r);
  else *st = ct_tensor_clone(a.arg, &r);
  save_err(*st);
  if (check) {
    if (c->fam == F_CAST) {
      ct_tensor r1 = NULL;
      ct_status s1 = ct_tensor_to(a.ref, dev < 0 ? CT_CPU : CT_CUDA, dev < 0 ? -1 : dev, c->db, 0, 0, &r1);
      check_same(r, *st, r1, s1, ctx, "rule 1: cast of the view vs cast of a contiguous copy");
      rel(r1);
    } else {
      /* contiguous() / clone() are the host-gathered values themselves */
      check_same(r, *st, a.ref, CT_OK, ctx, "contiguous copy vs the values gathered on the host");
      if (*st == CT_OK) {
        int32_t cont = 0;
        TRY(ctx, ct_tensor_is_contiguous(r, &cont));
        if (!cont) lfail("%s: the result is not contiguous", ctx);
      }
    }
    if (*st == CT_OK) check_device(r, dev, ctx);
  }
  op_free(&a);
  return r;
}

/* the storage of dst after a write of vals (its view's elements, of dtype dt, in order) through
   the view: the old bytes with vals scattered into the view's places */
static void expect_storage(const operand* dst, const unsigned char* vals, ct_dtype dt, int dev, const char* ctx,
                           const char* what) {
  int64_t es = dt_size(dt);
  unsigned char* want = (unsigned char*)malloc((size_t)(dst->bn ? dst->bn * es : 1));
  memcpy(want, dst->hb, (size_t)(dst->bn * es));
  scatter(want, vals, dt, dst->vnd, dst->vsz, dst->vst, dst->voff);
  int64_t bsz = dst->bn;
  ct_tensor wt = mk(want, dt, 1, &bsz, dev, ctx), flat = NULL;
  TRY(ctx, ct_reshape(dst->base, &bsz, 1, &flat));
  if (wt && flat) cmp_tensors(flat, wt, 0, ctx, what);
  rel(wt), rel(flat);
  free(want);
}

/* copy_ of a source (second operand's layout, dtype da) into a destination view (first
 * operand's layout, dtype db): the destination's whole storage must equal its old bytes with
 * the view's elements replaced by the source's values converted to db. Returns the storage. */
static ct_tensor eval_copy(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  const layout_def* L = &k_layouts[c->lay];
  operand dst, src;
  memset(&src, 0, sizeof src);
  *st = CT_ERR_INTERNAL;
  int sp = (is_fp(c->da) || is_cx(c->da)) && is_intg(c->db) ? SP_NONE : c->specials;
  if (!build_operand(&dst, L->ka, c->db, L->nd, L->shape, 5, SP_NONE, 1, dev, ctx) ||
      !build_operand(&src, L->kb, c->da, L->nd, L->shape, 2, sp, 3, dev, ctx)) {
    op_free(&dst), op_free(&src);
    return NULL;
  }
  *st = ct_tensor_copy_(dst.arg, src.arg, 0);
  save_err(*st);
  if (*st != CT_OK && check) lfail("%s: copy_ returned %s: %s", ctx, ct_status_name(*st), g_err_view);
  if (check && *st == CT_OK) {
    /* expected storage: old bytes, the view's elements from the source converted by a cast of
       its contiguous copy */
    ct_tensor conv = to_dt(src.ref, c->db, ctx);
    int64_t n = 0;
    unsigned char* vals = conv ? fetch(conv, &n, ctx) : NULL;
    if (vals) {
      expect_storage(&dst, vals, c->db, dev, ctx, "rule 1: destination storage after copy_ (index into the storage)");
    }
    free(vals);
    rel(conv);
  }
  ct_tensor out = dst.base;
  ct_tensor_retain(out);
  op_free(&dst), op_free(&src);
  return out;
}

/* fill_ of a view: its elements become the value, the rest of the storage is untouched */
static ct_tensor eval_fill(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  const layout_def* L = &k_layouts[c->lay];
  operand dst;
  *st = CT_ERR_INTERNAL;
  if (!build_operand(&dst, L->k1, c->da, L->nd, L->shape, 5, SP_NONE, 1, dev, ctx)) {
    op_free(&dst);
    return NULL;
  }
  double v = fill_value(c);
  *st = ct_fill_(dst.arg, v);
  save_err(*st);
  if (*st != CT_OK && check) lfail("%s: fill_ returned %s: %s", ctx, ct_status_name(*st), g_err_view);
  if (check && *st == CT_OK) {
    int64_t es = dt_size(c->da), n = prod(dst.vsz, dst.vnd);
    unsigned char* vals = (unsigned char*)malloc((size_t)(n ? n * es : 1));
    for (int64_t i = 0; i < n; ++i) put_f(c->da, vals + i * es, v, 0);
    expect_storage(&dst, vals, c->da, dev, ctx, "fill_ of the view: storage (index into the storage)");
    free(vals);
  }
  ct_tensor out = dst.base;
  ct_tensor_retain(out);
  op_free(&dst);
  return out;
}

static ct_status do_reduce(const gcase* c, ct_tensor t, ct_tensor* out) {
  int64_t dim = c->v == 2 ? -1 : 0;
  int keep = c->v == 1;
  if (c->op == R_ARGMAX) return ct_argmax(t, c->v != 0, (int32_t)dim, keep, out);
  static const ct_reduce_op ops[] = {CT_SUM, CT_MEAN, CT_AMAX};
  return ct_reduce(ops[c->op], t, c->v ? &dim : NULL, c->v ? 1 : 0, keep, CT_DTYPE_UNDEFINED, out);
}

static ct_tensor eval_reduce(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  operand a;
  ct_tensor r = NULL;
  *st = CT_ERR_INTERNAL;
  if (!build_first_operand(&a, c, dev, ctx)) return NULL;
  *st = do_reduce(c, a.arg, &r);
  save_err(*st);
  if (check) {
    ct_tensor r1 = NULL;
    ct_status s1 = do_reduce(c, a.ref, &r1);
    check_same(r, *st, r1, s1, ctx, "rule 1: reduction of the view vs of a contiguous copy");
    rel(r1);
    if (*st == CT_OK) check_device(r, dev, ctx);
  }
  op_free(&a);
  return r;
}

static ct_tensor eval_join(const gcase* c, int dev, int check, ct_status* st, const char* ctx) {
  const layout_def* L = &k_layouts[c->lay];
  /* layouts without a one-operand form: the second operand broadcast explicitly (cat and stack
     do not broadcast) */
  int ka = L->k1 != K_NONE ? L->k1 : L->ka, kb = L->k1 != K_NONE ? L->k1 : L->kb;
  if (kb == K_ROW) kb = K_EXPAND_ROW;
  if (kb == K_COL) kb = K_EXPAND_COL;
  operand a, b;
  memset(&b, 0, sizeof b);
  ct_tensor r = NULL;
  *st = CT_ERR_INTERNAL;
  if (!build_operand(&a, ka, c->da, L->nd, L->shape, 1, c->specials, 1, dev, ctx) ||
      !build_operand(&b, kb, c->db, L->nd, L->shape, 2, c->specials, 3, dev, ctx)) {
    op_free(&a), op_free(&b);
    return NULL;
  }
  ct_tensor args[2] = {a.arg, b.arg};
  *st = c->op == J_CAT ? ct_cat(args, 2, c->v, &r) : ct_stack(args, 2, c->v, &r);
  save_err(*st);
  if (check) {
    ct_tensor refs[2] = {a.ref, b.ref}, r1 = NULL, r2 = NULL;
    ct_status s1 = c->op == J_CAT ? ct_cat(refs, 2, c->v, &r1) : ct_stack(refs, 2, c->v, &r1);
    check_same(r, *st, r1, s1, ctx, "rule 1: views vs contiguous copies");
    ct_dtype R = promote(c->da, c->db);
    ct_tensor conv[2] = {to_dt(a.ref, R, ctx), to_dt(b.ref, R, ctx)};
    if (conv[0] && conv[1]) {
      ct_status s2 = c->op == J_CAT ? ct_cat(conv, 2, c->v, &r2) : ct_stack(conv, 2, c->v, &r2);
      check_same(r, *st, r2, s2, ctx, "rule 2: views vs contiguous copies converted to the common dtype first");
    }
    if (*st == CT_OK) {
      check_device(r, dev, ctx);
      check_dtype(r, R, ctx, "result dtype by torch.result_type");
    }
    rel(r1), rel(r2), rel(conv[0]), rel(conv[1]);
  }
  op_free(&a), op_free(&b);
  return r;
}

/* CPU/CUDA tolerance: exact except transcendental functions, pow, complex division and sums */
static double parity_rtol(const gcase* c, ct_tensor r) {
  ct_dtype d = CT_DTYPE_UNDEFINED;
  if (!r || ct_tensor_dtype(r, &d) != CT_OK) return 0;
  int approx = (c->fam == F_UNARY && (c->op == CT_EXP || c->op == CT_SIGMOID)) || (c->fam == F_BINARY && c->op == CT_POW) ||
               (c->fam == F_BINARY && c->op == CT_DIV && is_cx(d)) || (c->fam == F_REDUCE && (c->op == R_SUM || c->op == R_MEAN)) ||
               cuda_div_by_cpu_scalar(c);
  if (!approx) return 0;
  if (d == CT_FLOAT16) return 2e-3;
  if (d == CT_BFLOAT16) return 1.6e-2;
  if (d == CT_COMPLEX64 && c->op == CT_POW) return 1e-5; /* exp(b log a): error grows with |b log a| */
  if (d == CT_FLOAT32 || d == CT_COMPLEX64) return 2e-6;
  return 1e-13;
}

static eval_fn eval_for(int fam) {
  switch (fam) {
    case F_BINARY: return eval_binary;
    case F_UNARY: case F_CLAMP: return eval_unary;
    case F_WHERE: return eval_where;
    case F_CAST: case F_CONTIG: case F_CLONE: return eval_cast;
    case F_COPY: return eval_copy;
    case F_FILL: return eval_fill;
    case F_REDUCE: return eval_reduce;
    default: return eval_join;
  }
}

/* Runs a case on the CPU (cuda == 0), or on every CUDA device against the CPU's result. */
static void run_case(const gcase* c, int cuda) {
  char ctx[512];
  eval_fn f = eval_for(c->fam);
  ct_status sc = CT_OK, sg = CT_OK;
  if (!cuda) {
    describe(c, -1, ctx, sizeof ctx);
    ct_tensor r = f(c, -1, 1, &sc, ctx);
    rel(r);
    g_cases++;
    return;
  }
  describe(c, -1, ctx, sizeof ctx);
  ct_tensor rc = f(c, -1, 0, &sc, ctx);
  char cpu_err[512];
  snprintf(cpu_err, sizeof cpu_err, "%s", sc == CT_OK ? "" : g_err_view);
  for (int d = g_first_device; d < g_cuda; ++d) {
    describe(c, d, ctx, sizeof ctx);
    ct_tensor rg = f(c, d, 1, &sg, ctx);
    if (sc != sg) lfail("%s (rule 4: CPU/CUDA parity): status %s on the CPU (%s), %s on CUDA (%s)", ctx, ct_status_name(sc), cpu_err,
                        ct_status_name(sg), sg == CT_OK ? "" : g_err_view);
    else if (sc == CT_OK && rc && rg) {
      g_cx_nonfinite_match = c->fam == F_BINARY && c->op == CT_MUL;
      cmp_tensors(rg, rc, parity_rtol(c, rc), ctx, "rule 4: CPU/CUDA parity, CUDA result vs CPU result");
      g_cx_nonfinite_match = 0;
    }
    rel(rg);
    g_cases++;
  }
  rel(rc);
}

/* ============================================================================================
 * The grid tests
 * ========================================================================================== */

static void begin(void) { g_printed = 0; }

/* runs c once for each of the first n dtype pairs (k_dtypes with themselves, then the mixed pairs) */
static void run_pairs(gcase c, int n, int cuda) {
  for (int p = 0; p < n; ++p) {
    pair_at(p, &c.da, &c.db);
    run_case(&c, cuda);
  }
}

/* the layouts with a second tensor operand (not a scalar) and with a one-operand form */
static int has_pair(int lay) { return k_layouts[lay].kb != K_SCALAR; }
static int has_single(int lay) { return k_layouts[lay].k1 != K_NONE; }

/* runs c on every layout with two tensor operands, for each dtype pair */
static void run_pair_layouts(gcase c, int cuda) {
  for (int lay = 0; lay < N_LAYOUTS; ++lay) {
    if (!has_pair(lay)) continue;
    c.lay = lay;
    run_pairs(c, N_PAIRS, cuda);
  }
}

static void grid_binary(int cuda) {
  begin();
  for (int lay = 0; lay < N_LAYOUTS; ++lay) {
    for (size_t o = 0; o < sizeof k_binary_ops / sizeof k_binary_ops[0]; ++o) {
      /* no +0/-0 ties in maximum (PyTorch's vectorized and scalar paths differ there) */
      int sp = k_binary_ops[o] == CT_MAXIMUM ? SP_NAN_INF : SP_ALL;
      for (int v = 0; v < (has_pair(lay) ? 1 : 4); ++v) {
        gcase c = {F_BINARY, k_binary_ops[o], 0, 0, lay, v, sp};
        run_pairs(c, has_pair(lay) ? N_PAIRS : N_DTYPES, cuda);
      }
    }
  }
}

static void grid_unary(int cuda) {
  begin();
  for (int lay = 0; lay < N_LAYOUTS; ++lay) {
    if (!has_single(lay)) continue;
    for (int d = 0; d < N_DTYPES; ++d) {
      for (size_t o = 0; o < sizeof k_unary_ops / sizeof k_unary_ops[0]; ++o) {
        gcase c = {F_UNARY, k_unary_ops[o], k_dtypes[d], k_dtypes[d], lay, 0, SP_ALL};
        run_case(&c, cuda);
      }
      for (int v = 0; v < 3; ++v) {
        gcase c = {F_CLAMP, 0, k_dtypes[d], k_dtypes[d], lay, v, SP_NAN_INF};
        run_case(&c, cuda);
      }
    }
  }
}

static void grid_where(int cuda) {
  begin();
  gcase c = {F_WHERE, 0, 0, 0, 0, 0, SP_ALL};
  run_pair_layouts(c, cuda);
}

static void grid_casts_copies(int cuda) {
  begin();
  for (int lay = 0; lay < N_LAYOUTS; ++lay) {
    const layout_def* L = &k_layouts[lay];
    if (!has_single(lay)) continue;
    for (int s = 0; s < N_DTYPES; ++s) {
      ct_dtype ds = k_dtypes[s];
      for (int t = 0; t < N_DTYPES; ++t) {
        /* no NaN, inf or out-of-range value is cast to an integer (undefined in C++) */
        int sp = (is_fp(ds) || is_cx(ds)) && is_intg(k_dtypes[t]) ? SP_NONE : SP_ALL;
        gcase c = {F_CAST, 0, ds, k_dtypes[t], lay, 0, sp};
        run_case(&c, cuda);
      }
      /* fill_ writes through views; not through expanded ones (overlapping elements) */
      int fills = L->k1 != K_EXPAND_ROW && L->k1 != K_EXPAND_COL ? 2 : 0;
      gcase same[] = {{F_CONTIG, 0, ds, ds, lay, 0, SP_ALL},
                      {F_CLONE, 0, ds, ds, lay, 0, SP_ALL},
                      {F_FILL, 0, ds, ds, lay, 0, SP_NONE},
                      {F_FILL, 0, ds, ds, lay, 1, SP_NONE}};
      for (int i = 0; i < 2 + fills; ++i) run_case(&same[i], cuda);
    }
  }
  gcase c = {F_COPY, 0, 0, 0, 0, 0, SP_ALL};
  run_pair_layouts(c, cuda);
}

static void grid_reductions(int cuda) {
  begin();
  for (int lay = 0; lay < N_LAYOUTS; ++lay) {
    if (!has_single(lay)) continue;
    for (int d = 0; d < N_DTYPES; ++d) {
      ct_dtype dt = k_dtypes[d];
      for (int op = R_SUM; op <= R_ARGMAX; ++op) {
        for (int v = 0; v < 3; ++v) {
          /* floats: with and without NaN/inf/-0; integers: extremes only where nothing sums */
          for (int sp = 0; sp < 2; ++sp) {
            if (sp && !(is_fp(dt) || is_cx(dt) || op == R_AMAX || op == R_ARGMAX)) continue;
            if (sp && dt == CT_BOOL) continue;
            gcase c = {F_REDUCE, op, dt, dt, lay, v, sp ? SP_ALL : SP_NONE};
            run_case(&c, cuda);
          }
        }
      }
    }
  }
}

static void grid_joins(int cuda) {
  begin();
  for (int op = J_CAT; op <= J_STACK; ++op) {
    for (int dim = 0; dim < 2; ++dim) {
      gcase c = {F_JOIN, op, 0, 0, 0, dim, SP_ALL};
      run_pair_layouts(c, cuda);
    }
  }
}

/* each grid runs as two tests: on the CPU, and on CUDA where there is a device */
#define GRID_TESTS(name, grid)                     \
  static void test_##name##_cpu(void) { grid(0); } \
  static void test_##name##_cuda(void) {           \
    SKIP_WITHOUT_CUDA();                           \
    grid(1);                                       \
  }
GRID_TESTS(binary_layouts, grid_binary)
GRID_TESTS(unary_clamp_layouts, grid_unary)
GRID_TESTS(where_layouts, grid_where)
GRID_TESTS(casts_copies_fill_layouts, grid_casts_copies)
GRID_TESTS(reductions_layouts, grid_reductions)
GRID_TESTS(cat_stack_layouts, grid_joins)

/* ============================================================================================
 * Rule 3: special values, expected values computed by hand
 * ========================================================================================== */

#define ANY_NAN 0xFFFFFFFFFFFFFFFFULL

/* a 1-D tensor of n values of dt from doubles (or int64 when iv is given) */
static ct_tensor vec(ct_dtype dt, int n, const double* fv, const int64_t* iv, int dev, const char* ctx) {
  unsigned char buf[16 * 16];
  int64_t es = dt_size(dt), sz = n;
  for (int i = 0; i < n; ++i) {
    if (iv) put_i(dt, buf + i * es, iv[i]);
    else put_f(dt, buf + i * es, fv[i], 0);
  }
  return mk(buf, dt, 1, &sz, dev, ctx);
}

/* values of t against want: doubles compared exactly, with the sign of zero, NaN == NaN */
static void expect_values(ct_tensor t, ct_dtype dt, int n, const double* fw, const int64_t* iw, const char* ctx) {
  if (!t) return;
  check_dtype(t, dt, ctx, "result dtype");
  int64_t got_n = 0;
  unsigned char* b = fetch(t, &got_n, ctx);
  if (!b) return;
  if (got_n != n) {
    lfail("%s: %lld elements, expected %d", ctx, (long long)got_n, n);
  } else {
    for (int i = 0; i < n; ++i) {
      double re;
      int64_t iv;
      get_v(dt, b + i * dt_size(dt), &re, NULL, &iv);
      int ok;
      if (iw) ok = iv == iw[i];
      else if (isnan(fw[i])) ok = isnan(re);
      else ok = re == fw[i] && signbit(re) == signbit(fw[i]);
      if (!ok) {
        char gv[96];
        fmt_v(dt, b + i * dt_size(dt), gv, sizeof gv);
        if (iw) lfail("%s: element %d is %s, expected %lld", ctx, i, gv, (long long)iw[i]);
        else lfail("%s: element %d is %s, expected %.17g", ctx, i, gv, fw[i]);
        break;
      }
    }
  }
  free(b);
}

typedef struct {
  ct_dtype src;
  uint64_t sbits;
  ct_dtype dst;
  uint64_t dbits; /* ANY_NAN: any NaN */
  const char* what;
} cast_bits_case;

/* float -> float16 / bfloat16 / float32 conversions, bit patterns worked out by hand */
static const cast_bits_case k_cast_bits[] = {
    /* float32 -> float16: subnormals round to nearest, ties to even */
    {CT_FLOAT32, 0x33800000, CT_FLOAT16, 0x0001, "2^-24 -> smallest subnormal"},
    {CT_FLOAT32, 0x33C00000, CT_FLOAT16, 0x0002, "3*2^-25 (1.5 ulp, tie) -> 2 ulp (even)"},
    {CT_FLOAT32, 0x33000000, CT_FLOAT16, 0x0000, "2^-25 (0.5 ulp, tie) -> +0 (even)"},
    {CT_FLOAT32, 0x33000001, CT_FLOAT16, 0x0001, "just above 2^-25 -> 1 ulp"},
    {CT_FLOAT32, 0x34200000, CT_FLOAT16, 0x0002, "5*2^-25 (2.5 ulp, tie) -> 2 ulp (even)"},
    {CT_FLOAT32, 0x34600000, CT_FLOAT16, 0x0004, "7*2^-25 (3.5 ulp, tie) -> 4 ulp (even)"},
    {CT_FLOAT32, 0xB3C00000, CT_FLOAT16, 0x8002, "-3*2^-25 -> -2 ulp"},
    {CT_FLOAT32, 0x387FC000, CT_FLOAT16, 0x03FF, "1023*2^-24 -> largest subnormal"},
    {CT_FLOAT32, 0x387FE000, CT_FLOAT16, 0x0400, "1023.5*2^-24 (tie) -> smallest normal"},
    {CT_FLOAT32, 0x322BCC77, CT_FLOAT16, 0x0000, "1e-8 -> +0"},
    {CT_FLOAT32, 0xB22BCC77, CT_FLOAT16, 0x8000, "-1e-8 -> -0"},
    /* overflow */
    {CT_FLOAT32, 0x477FE000, CT_FLOAT16, 0x7BFF, "65504 (max)"},
    {CT_FLOAT32, 0x477FEF00, CT_FLOAT16, 0x7BFF, "65519 -> 65504"},
    {CT_FLOAT32, 0x477FF000, CT_FLOAT16, 0x7C00, "65520 (tie with 65536) -> inf"},
    {CT_FLOAT32, 0xC77FF000, CT_FLOAT16, 0xFC00, "-65520 -> -inf"},
    /* normal ties */
    {CT_FLOAT32, 0x3F801000, CT_FLOAT16, 0x3C00, "1+2^-11 (tie) -> 1 (even)"},
    {CT_FLOAT32, 0x3F803000, CT_FLOAT16, 0x3C02, "1+3*2^-11 (tie) -> 1+2^-9 (even)"},
    {CT_FLOAT32, 0x3F801001, CT_FLOAT16, 0x3C01, "just above 1+2^-11 -> 1+2^-10"},
    /* float32 -> bfloat16: round to nearest even on the upper 16 bits */
    {CT_FLOAT32, 0x3F808000, CT_BFLOAT16, 0x3F80, "1+2^-8 (tie) -> 1 (even)"},
    {CT_FLOAT32, 0x3F818000, CT_BFLOAT16, 0x3F82, "1+3*2^-8 (tie) -> 1+2^-6 (even)"},
    {CT_FLOAT32, 0x3F808001, CT_BFLOAT16, 0x3F81, "just above the tie -> up"},
    {CT_FLOAT32, 0x3F80FFFF, CT_BFLOAT16, 0x3F81, "0x3F80FFFF -> up"},
    {CT_FLOAT32, 0xBF818000, CT_BFLOAT16, 0xBF82, "-(1+3*2^-8) (tie) -> even"},
    {CT_FLOAT32, 0x7F7FFFFF, CT_BFLOAT16, 0x7F80, "FLT_MAX rounds up to inf"},
    {CT_FLOAT32, 0x7F7F7FFF, CT_BFLOAT16, 0x7F7F, "just below the tie -> max finite"},
    {CT_FLOAT32, 0x00000001, CT_BFLOAT16, 0x0000, "smallest float32 subnormal -> +0"},
    {CT_FLOAT32, 0x00008000, CT_BFLOAT16, 0x0000, "tie at 0 -> +0 (even)"},
    {CT_FLOAT32, 0x00018000, CT_BFLOAT16, 0x0002, "subnormal tie -> even"},
    /* float64 -> float16 / bfloat16: PyTorch converts through float32 (c10::Half and
       c10::BFloat16 are built from a float), so a double just above a tie rounds to float32
       onto the tie and then to even */
    {CT_FLOAT64, 0x3FF0020000001000ULL, CT_FLOAT16, 0x3C00, "1+2^-11+2^-40 -> float 1+2^-11 -> 1 (double rounding)"},
    {CT_FLOAT64, 0x40EFFDFFF7CED917ULL, CT_FLOAT16, 0x7C00, "65519.999 -> float 65520 -> inf (double rounding)"},
    {CT_FLOAT64, 0x3FF0100000400000ULL, CT_BFLOAT16, 0x3F80, "1+2^-8+2^-30 -> float 1+2^-8 -> 1 (double rounding)"},
    {CT_FLOAT64, 0x3E70000000000000ULL, CT_FLOAT16, 0x0001, "2^-24"},
    {CT_FLOAT64, 0x7E37E43C8800759CULL, CT_FLOAT16, 0x7C00, "1e300 -> inf"},
    /* to float32 / between half types: exact */
    {CT_FLOAT16, 0x0001, CT_FLOAT32, 0x33800000, "smallest subnormal"},
    {CT_FLOAT16, 0x03FF, CT_FLOAT32, 0x387FC000, "largest subnormal"},
    {CT_FLOAT16, 0x7BFF, CT_FLOAT32, 0x477FE000, "65504"},
    {CT_BFLOAT16, 0x0001, CT_FLOAT32, 0x00010000, "bfloat16 subnormal"},
    {CT_FLOAT16, 0x0001, CT_BFLOAT16, 0x3380, "float16 subnormal 2^-24 is a normal bfloat16"},
    {CT_BFLOAT16, 0x3F81, CT_FLOAT16, 0x3C08, "1+2^-7"},
    {CT_BFLOAT16, 0x477F, CT_FLOAT16, 0x7BF8, "65280"},
    {CT_BFLOAT16, 0x4780, CT_FLOAT16, 0x7C00, "65536 -> inf"},
    /* integers to floats: round to nearest even */
    {CT_INT32, 2049, CT_FLOAT16, 0x6800, "2049 (tie) -> 2048"},
    {CT_INT32, 2051, CT_FLOAT16, 0x6802, "2051 (tie) -> 2052"},
    {CT_INT32, 16777217, CT_FLOAT32, 0x4B800000, "2^24+1 (tie) -> 2^24"},
    {CT_INT64, 0xFFFFFFFFFFFF0010ULL, CT_FLOAT16, 0xFC00, "-65520 -> -inf"},
    {CT_INT64, 0x0020000000000001ULL, CT_FLOAT64, 0x4340000000000000ULL, "2^53+1 (tie) -> 2^53"},
    {CT_BOOL, 1, CT_FLOAT16, 0x3C00, "true -> 1"},
    {CT_BOOL, 1, CT_BFLOAT16, 0x3F80, "true -> 1"},
};

/* Signed zero, the infinities and NaN in each floating dtype: a cast between any two keeps the
 * value (a NaN stays some NaN), checked for every ordered pair by check_specials_cast. */
static const ct_dtype k_special_dtypes[] = {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
static const struct {
  const char* what;
  uint64_t bits[4]; /* in k_special_dtypes' order */
} k_special_bits[] = {
    {"-0.0", {0x8000, 0x8000, 0x80000000, 0x8000000000000000ULL}},
    {"inf", {0x7C00, 0x7F80, 0x7F800000, 0x7FF0000000000000ULL}},
    {"-inf", {0xFC00, 0xFF80, 0xFF800000, 0xFFF0000000000000ULL}},
    {"NaN", {0x7E00, 0x7FC0, 0x7FC00000, 0x7FF8000000000000ULL}},
};

typedef struct {
  ct_dtype src;
  double re, im;
  ct_dtype dst;
  int64_t want;
  const char* what;
} cast_int_case;

/* floats to integers truncate toward zero; to uint8 through int64 (c10's
 * static_cast_with_inter_type), so negative values wrap; to bool: != 0 */
static const cast_int_case k_cast_int[] = {
    {CT_FLOAT32, 2.75, 0, CT_INT32, 2, "truncation"},
    {CT_FLOAT32, -2.75, 0, CT_INT32, -2, "truncation toward zero"},
    {CT_FLOAT32, -0.5, 0, CT_INT64, 0, "-0.5 -> 0"},
    {CT_FLOAT32, 0.99, 0, CT_INT8, 0, "0.99 -> 0"},
    {CT_FLOAT32, -1.99, 0, CT_INT16, -1, "-1.99 -> -1"},
    {CT_FLOAT32, 127.9, 0, CT_INT8, 127, "127.9 -> 127"},
    {CT_FLOAT64, -1e9 - 0.5, 0, CT_INT32, -1000000000, "large"},
    {CT_FLOAT16, -3.5, 0, CT_INT32, -3, "float16 truncation"},
    {CT_BFLOAT16, 3.5, 0, CT_INT64, 3, "bfloat16 truncation"},
    {CT_FLOAT32, -1.0, 0, CT_UINT8, 255, "-1.0 -> 255 (through int64)"},
    {CT_FLOAT32, -2.5, 0, CT_UINT8, 254, "-2.5 -> -2 -> 254"},
    {CT_FLOAT32, 300.0, 0, CT_UINT8, 44, "300 -> 44"},
    {CT_FLOAT32, -129.0, 0, CT_UINT8, 127, "-129 -> 127"},
    {CT_FLOAT32, 255.9, 0, CT_UINT8, 255, "255.9 -> 255"},
    {CT_FLOAT32, -0.5, 0, CT_UINT8, 0, "-0.5 -> 0"},
    {CT_FLOAT16, -1.0, 0, CT_UINT8, 255, "float16 -1 -> 255"},
    {CT_BFLOAT16, -2.0, 0, CT_UINT8, 254, "bfloat16 -2 -> 254"},
    {CT_FLOAT64, -1.0, 0, CT_UINT8, 255, "float64 -1 -> 255"},
    {CT_COMPLEX64, -1.0, 2.0, CT_UINT8, 255, "complex: the real part, through int64"},
    {CT_FLOAT32, 0.5, 0, CT_BOOL, 1, "0.5 -> true"},
    {CT_FLOAT32, -0.0, 0, CT_BOOL, 0, "-0.0 -> false"},
    {CT_FLOAT32, NAN, 0, CT_BOOL, 1, "NaN -> true"},
    {CT_FLOAT32, INFINITY, 0, CT_BOOL, 1, "inf -> true"},
    {CT_FLOAT32, 1e-45, 0, CT_BOOL, 1, "float32 subnormal -> true"},
    {CT_FLOAT16, 0x1p-24, 0, CT_BOOL, 1, "float16 subnormal -> true"},
    {CT_FLOAT16, -0.0, 0, CT_BOOL, 0, "float16 -0.0 -> false"},
    {CT_BFLOAT16, NAN, 0, CT_BOOL, 1, "bfloat16 NaN -> true"},
    {CT_FLOAT64, -0.0, 0, CT_BOOL, 0, "float64 -0.0 -> false"},
    {CT_COMPLEX64, 0.0, 1.0, CT_BOOL, 1, "0+1j -> true"},
    {CT_COMPLEX64, -0.0, 0.0, CT_BOOL, 0, "-0+0j -> false"},
    {CT_INT8, -128, 0, CT_BOOL, 1, "-128 -> true"},
    {CT_UINT8, 255, 0, CT_INT8, -1, "255 -> -1 (wraps)"},
    {CT_INT32, 300, 0, CT_UINT8, 44, "300 -> 44"},
    {CT_INT32, -1, 0, CT_UINT8, 255, "-1 -> 255"},
    {CT_INT16, -32768, 0, CT_INT8, 0, "-32768 -> 0 (low byte)"},
    {CT_INT64, 4294967301.0, 0, CT_INT32, 5, "2^32+5 -> 5"},
};

/* op on n values a (dtype da) and b (db) gives want (dtype rd), for values of type T: double,
 * or int64_t where a value needs all 64 bits (run_bin_special takes either). */
#define BIN_CASE(T, N)   \
  struct {               \
    int op;              \
    ct_dtype da, db;     \
    int n;               \
    T a[N], b[N];        \
    ct_dtype rd;         \
    T want[N];           \
    const char* what;    \
  }

typedef BIN_CASE(double, 8) bin_f_case;

static const bin_f_case k_bin_f[] = {
    {CT_ADD, CT_FLOAT32, CT_FLOAT32, 7, {-0.0, -0.0, 0.0, NAN, INFINITY, INFINITY, 1}, {0.0, -0.0, -0.0, 1, -INFINITY, 1, NAN},
     CT_FLOAT32, {0.0, -0.0, 0.0, NAN, NAN, INFINITY, NAN}, "signed zeros, NaN and inf"},
    {CT_ADD, CT_FLOAT16, CT_FLOAT16, 2, {-0.0, -0.0}, {0.0, -0.0}, CT_FLOAT16, {0.0, -0.0}, "float16 signed zeros"},
    {CT_ADD, CT_BFLOAT16, CT_BFLOAT16, 2, {-0.0, -0.0}, {0.0, -0.0}, CT_BFLOAT16, {0.0, -0.0}, "bfloat16 signed zeros"},
    {CT_MUL, CT_FLOAT32, CT_FLOAT32, 4, {0.0, -0.0, INFINITY, -2}, {-1, -1, 0, 0}, CT_FLOAT32, {-0.0, 0.0, NAN, -0.0}, "signs of zero products"},
    {CT_DIV, CT_FLOAT32, CT_FLOAT32, 5, {1, -1, 0, -0.0, 1}, {0, 0, 0, INFINITY, -INFINITY}, CT_FLOAT32, {INFINITY, -INFINITY, NAN, -0.0, -0.0},
     "division by zero and inf"},
    {CT_DIV, CT_INT32, CT_INT32, 4, {1, -1, 0, 7}, {0, 0, 0, 2}, CT_FLOAT32, {INFINITY, -INFINITY, NAN, 3.5}, "true division of integers"},
    {CT_SUB, CT_FLOAT32, CT_FLOAT32, 2, {1, INFINITY}, {1, INFINITY}, CT_FLOAT32, {0.0, NAN}, "x - x"},
    {CT_MAXIMUM, CT_FLOAT32, CT_FLOAT32, 4, {NAN, 1, 2, -INFINITY}, {1, NAN, 3, -INFINITY}, CT_FLOAT32, {NAN, NAN, 3, -INFINITY}, "NaN propagates"},
    {CT_MAXIMUM, CT_FLOAT16, CT_FLOAT16, 3, {NAN, 1, 65504}, {1, NAN, INFINITY}, CT_FLOAT16, {NAN, NAN, INFINITY}, "float16 NaN propagates"},
    {CT_MAXIMUM, CT_BFLOAT16, CT_BFLOAT16, 2, {NAN, 1}, {1, NAN}, CT_BFLOAT16, {NAN, NAN}, "bfloat16 NaN propagates"},
    {CT_EQ, CT_FLOAT32, CT_FLOAT32, 3, {NAN, 1, -0.0}, {NAN, 1, 0.0}, CT_BOOL, {0, 1, 1}, "NaN != NaN, -0 == +0"},
    {CT_LT, CT_FLOAT32, CT_FLOAT32, 4, {NAN, 1, -0.0, -INFINITY}, {1, NAN, 0.0, INFINITY}, CT_BOOL, {0, 0, 0, 1}, "comparisons with NaN"},
    /* float16 arithmetic: float32 computation rounded once */
    {CT_ADD, CT_FLOAT16, CT_FLOAT16, 4, {65504, 65504, 0x1p-24, 60000}, {8, 16, 0x1p-24, 10000}, CT_FLOAT16,
     {65504, INFINITY, 0x1p-23, INFINITY}, "float16 overflow and subnormals"},
    {CT_MUL, CT_FLOAT16, CT_FLOAT16, 3, {0x1p-24, 0x3p-24, 60000}, {0.5, 0.5, -2}, CT_FLOAT16, {0.0, 0x1p-23, -INFINITY},
     "float16 subnormal products round to even"},
    {CT_DIV, CT_FLOAT16, CT_FLOAT16, 1, {1}, {3}, CT_FLOAT16, {0.333251953125}, "1/3 in float16 (0x3555)"},
    {CT_ADD, CT_BFLOAT16, CT_BFLOAT16, 2, {1, 1.0078125}, {0x1p-8, 0x1p-8}, CT_BFLOAT16, {1, 1.015625}, "bfloat16 ties to even"},
    {CT_MUL, CT_BFLOAT16, CT_BFLOAT16, 1, {0x1.FEp127}, {2}, CT_BFLOAT16, {INFINITY}, "bfloat16 overflow"},
    /* mixed dtypes: operands converted to the common dtype before the op */
    {CT_ADD, CT_FLOAT16, CT_FLOAT32, 1, {1}, {0x1p-20}, CT_FLOAT32, {1 + 0x1p-20}, "float16 + float32 is float32"},
    {CT_ADD, CT_INT32, CT_FLOAT16, 2, {2049, 2051}, {1, 1}, CT_FLOAT16, {2048, 2052},
     "int32 + float16: the int32 is rounded to float16 first (2049 -> 2048, + 1 -> 2049 -> 2048)"},
    {CT_ADD, CT_FLOAT16, CT_BFLOAT16, 1, {1}, {0x1p-10}, CT_FLOAT32, {1 + 0x1p-10}, "float16 + bfloat16 is float32"},
    {CT_ADD, CT_BOOL, CT_FLOAT32, 2, {1, 0}, {0.5, 0.5}, CT_FLOAT32, {1.5, 0.5}, "bool + float32"},
};

typedef BIN_CASE(int64_t, 4) bin_i_case;

static const bin_i_case k_bin_i[] = {
    {CT_ADD, CT_INT8, CT_INT8, 3, {127, -128, 100}, {1, -1, 100}, CT_INT8, {-128, 127, -56}, "int8 wraps"},
    {CT_ADD, CT_UINT8, CT_UINT8, 3, {255, 0, 200}, {1, 0, 100}, CT_UINT8, {0, 0, 44}, "uint8 wraps"},
    {CT_SUB, CT_UINT8, CT_UINT8, 1, {0}, {1}, CT_UINT8, {255}, "uint8 0 - 1"},
    {CT_MUL, CT_UINT8, CT_UINT8, 1, {16}, {16}, CT_UINT8, {0}, "uint8 16 * 16"},
    {CT_MUL, CT_INT8, CT_INT8, 1, {-128}, {-1}, CT_INT8, {-128}, "int8 -128 * -1"},
    {CT_ADD, CT_INT16, CT_INT16, 1, {32767}, {1}, CT_INT16, {-32768}, "int16 wraps"},
    {CT_ADD, CT_INT32, CT_INT32, 2, {INT32_MAX, INT32_MIN}, {1, -1}, CT_INT32, {INT32_MIN, INT32_MAX}, "int32 wraps"},
    {CT_ADD, CT_INT64, CT_INT64, 1, {INT64_MAX}, {1}, CT_INT64, {INT64_MIN}, "int64 wraps"},
    {CT_MUL, CT_INT64, CT_INT64, 3, {INT64_MAX, (int64_t)1 << 62, 3037000500LL}, {2, 4, 3037000500LL}, CT_INT64,
     {-2, 0, -9223372036709301616LL}, "int64 products wrap"},
    {CT_ADD, CT_UINT8, CT_INT8, 2, {200, 255}, {-100, 10}, CT_INT16, {100, 265}, "uint8 + int8 is int16"},
    {CT_MUL, CT_UINT8, CT_INT8, 1, {255}, {-1}, CT_INT16, {-255}, "uint8 * int8 is int16"},
    {CT_POW, CT_INT8, CT_INT8, 3, {2, -2, 3}, {7, 7, 5}, CT_INT8, {-128, -128, -13}, "int8 powers wrap"},
    {CT_POW, CT_INT32, CT_INT32, 3, {2, -1, 5}, {-1, -3, 0}, CT_INT32, {0, -1, 1}, "integer powers with negative exponents"},
};

/* a op b for n values of da and db, given as doubles (fa, fb) or int64 (ia, ib), is the n values
 * of dtype rd in fw or iw (compared as expect_values does) */
static void run_bin_special(int op, ct_dtype da, ct_dtype db, int n, const double* fa, const double* fb,
                            const int64_t* ia, const int64_t* ib, ct_dtype rd, const double* fw, const int64_t* iw,
                            const char* what, int dev) {
  char ctx[512];
  snprintf(ctx, sizeof ctx, "rule 3: %s [%s, %s] (%s) device=%s%d", binary_name(op), dt_name(da), dt_name(db), what,
           dev < 0 ? "cpu" : "cuda", dev < 0 ? 0 : dev);
  ct_tensor a = vec(da, n, fa, ia, dev, ctx), b = vec(db, n, fb, ib, dev, ctx), r = NULL;
  if (a && b) {
    TRY(ctx, ct_binary(op, a, b, &r));
    expect_values(r, rd, n, fw, iw, ctx);
  }
  rel(a), rel(b), rel(r);
  g_cases++;
}

/* bits (of dt's size) are a NaN of floating dtype dt */
static int bits_isnan(ct_dtype dt, uint64_t bits) {
  switch (dt) {
    case CT_FLOAT16: return f16_isnan((uint16_t)bits);
    case CT_BFLOAT16: return bf16_isnan((uint16_t)bits);
    case CT_FLOAT32: return (bits & 0x7FFFFFFFu) > 0x7F800000u;
    case CT_FLOAT64: return (bits & 0x7FFFFFFFFFFFFFFFULL) > 0x7FF0000000000000ULL;
    default: return 0;
  }
}

/* k->sbits as a 1-element k->src tensor on dev, cast to k->dst: its bits must be k->dbits */
static void check_cast_bits(const cast_bits_case* k, int dev) {
  char ctx[512];
  snprintf(ctx, sizeof ctx, "rule 3: cast %s->%s of bits 0x%llx (%s) device=%s%d", dt_name(k->src), dt_name(k->dst),
           (unsigned long long)k->sbits, k->what, dev < 0 ? "cpu" : "cuda", dev < 0 ? 0 : dev);
  int64_t one = 1;
  ct_tensor s = mk(&k->sbits, k->src, 1, &one, dev, ctx), r = NULL;
  if (!s) return;
  TRY(ctx, ct_tensor_to(s, dev < 0 ? CT_CPU : CT_CUDA, dev < 0 ? -1 : dev, k->dst, 0, 0, &r));
  int64_t n;
  unsigned char* b = r ? fetch(r, &n, ctx) : NULL;
  if (b) {
    uint64_t got = 0;
    memcpy(&got, b, (size_t)dt_size(k->dst));
    int ok = k->dbits == ANY_NAN ? bits_isnan(k->dst, got) : got == k->dbits;
    if (!ok) lfail("%s: got bits 0x%llx, expected 0x%llx", ctx, (unsigned long long)got, (unsigned long long)k->dbits);
  }
  free(b);
  rel(s), rel(r);
  g_cases++;
}

static void run_specials(int dev) {
  char ctx[512];
  const char* dn = dev < 0 ? "cpu" : "cuda";
  /* casts with bit patterns */
  for (size_t i = 0; i < sizeof k_cast_bits / sizeof k_cast_bits[0]; ++i) check_cast_bits(&k_cast_bits[i], dev);
  const int nsd = (int)(sizeof k_special_dtypes / sizeof k_special_dtypes[0]);
  for (size_t v = 0; v < sizeof k_special_bits / sizeof k_special_bits[0]; ++v)
    for (int from = 0; from < nsd; ++from)
      for (int to = 0; to < nsd; ++to) {
        int nan = strcmp(k_special_bits[v].what, "NaN") == 0;
        const cast_bits_case k = {k_special_dtypes[from], k_special_bits[v].bits[from], k_special_dtypes[to],
                                  nan ? ANY_NAN : k_special_bits[v].bits[to], k_special_bits[v].what};
        if (from != to) check_cast_bits(&k, dev);
      }
  /* casts to integers and bool */
  for (size_t i = 0; i < sizeof k_cast_int / sizeof k_cast_int[0]; ++i) {
    const cast_int_case* k = &k_cast_int[i];
    snprintf(ctx, sizeof ctx, "rule 3: cast %s->%s of %g%+gj (%s) device=%s%d", dt_name(k->src), dt_name(k->dst), k->re, k->im, k->what, dn,
             dev < 0 ? 0 : dev);
    unsigned char buf[16];
    int64_t one = 1;
    if (is_intg(k->src)) put_i(k->src, buf, (int64_t)k->re);
    else put_f(k->src, buf, k->re, k->im);
    ct_tensor s = mk(buf, k->src, 1, &one, dev, ctx), r = NULL;
    if (!s) continue;
    TRY(ctx, ct_tensor_to(s, dev < 0 ? CT_CPU : CT_CUDA, dev < 0 ? -1 : dev, k->dst, 0, 0, &r));
    expect_values(r, k->dst, 1, NULL, &k->want, ctx);
    rel(s), rel(r);
    g_cases++;
  }
  /* binary ops on special values */
  for (size_t i = 0; i < sizeof k_bin_f / sizeof k_bin_f[0]; ++i) {
    const bin_f_case* k = &k_bin_f[i];
    run_bin_special(k->op, k->da, k->db, k->n, k->a, k->b, NULL, NULL, k->rd, k->want, NULL, k->what, dev);
  }
  for (size_t i = 0; i < sizeof k_bin_i / sizeof k_bin_i[0]; ++i) {
    const bin_i_case* k = &k_bin_i[i];
    run_bin_special(k->op, k->da, k->db, k->n, NULL, NULL, k->a, k->b, k->rd, NULL, k->want, k->what, dev);
  }
  /* Python scalars and 0-dim CPU operands wrap and promote like tensors of their category */
  {
    struct { ct_dtype dt; int64_t a; int op; int64_t s; int64_t want; } sc[] = {
        {CT_INT8, 127, CT_ADD, 1, -128}, {CT_UINT8, 255, CT_ADD, 1, 0}, {CT_INT16, -32768, CT_SUB, 1, 32767},
        {CT_INT32, INT32_MAX, CT_ADD, 1, INT32_MIN}, {CT_INT8, -128, CT_MUL, -1, -128}, {CT_INT64, INT64_MIN, CT_SUB, 1, INT64_MAX},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; ++i) {
      snprintf(ctx, sizeof ctx, "rule 3: %s [%s] with Python scalar %lld device=%s%d", binary_name(sc[i].op), dt_name(sc[i].dt),
               (long long)sc[i].s, dn, dev < 0 ? 0 : dev);
      ct_tensor a = vec(sc[i].dt, 1, NULL, &sc[i].a, dev, ctx), r = NULL;
      if (a) {
        TRY(ctx, ct_binary_scalar_i(sc[i].op, a, sc[i].s, 0, &r));
        expect_values(r, sc[i].dt, 1, NULL, &sc[i].want, ctx);
      }
      rel(a), rel(r);
      g_cases++;
    }
    /* int32 tensor + 0-dim float16 CPU tensor: float16 result, the int32 rounded first */
    snprintf(ctx, sizeof ctx, "rule 3: add [int32, 0-dim CPU float16] device=%s%d", dn, dev < 0 ? 0 : dev);
    ct_tensor a = vec(CT_INT32, 2, (const double[]){2049, 3}, NULL, dev, ctx), z = vec(CT_FLOAT16, 1, (const double[]){1}, NULL, -1, ctx);
    ct_tensor z0 = NULL, r = NULL;
    TRY(ctx, ct_reshape(z, (const int64_t[]){1}, 0, &z0));
    if (a && z0) {
      TRY(ctx, ct_binary(CT_ADD, a, z0, &r));
      expect_values(r, CT_FLOAT16, 2, (const double[]){2048, 4}, NULL, ctx);
    }
    rel(r), rel(a), rel(z), rel(z0);
    r = NULL;
    /* uint8 tensor + 0-dim int8 CPU tensor: uint8 (the 0-dim tensor does not widen the result) */
    snprintf(ctx, sizeof ctx, "rule 3: add [uint8, 0-dim CPU int8] device=%s%d", dn, dev < 0 ? 0 : dev);
    a = vec(CT_UINT8, 2, NULL, (const int64_t[]){1, 5}, dev, ctx);
    z = vec(CT_INT8, 1, NULL, (const int64_t[]){-3}, -1, ctx);
    z0 = NULL;
    TRY(ctx, ct_reshape(z, (const int64_t[]){1}, 0, &z0));
    if (a && z0) {
      TRY(ctx, ct_binary(CT_ADD, a, z0, &r));
      expect_values(r, CT_UINT8, 2, NULL, (const int64_t[]){254, 2}, ctx);
    }
    rel(r), rel(a), rel(z), rel(z0);
    g_cases += 2;
  }
  /* unary ops */
  {
    struct { int op; ct_dtype dt; int n; double a[8]; ct_dtype rd; double want[8]; const char* what; } un[] = {
        {CT_NEG, CT_FLOAT32, 4, {0.0, -0.0, INFINITY, NAN}, CT_FLOAT32, {-0.0, 0.0, -INFINITY, NAN}, "neg of zeros"},
        {CT_NEG, CT_FLOAT16, 2, {0.0, 65504}, CT_FLOAT16, {-0.0, -65504}, "float16 neg(0) is -0 (bits 0x8000)"},
        {CT_NEG, CT_BFLOAT16, 1, {0.0}, CT_BFLOAT16, {-0.0}, "bfloat16 neg(0) is -0 (bits 0x8000)"},
        {CT_ABS, CT_FLOAT32, 3, {-0.0, -INFINITY, NAN}, CT_FLOAT32, {0.0, INFINITY, NAN}, "abs"},
        {CT_EXP, CT_FLOAT32, 4, {-INFINITY, INFINITY, NAN, 0}, CT_FLOAT32, {0, INFINITY, NAN, 1}, "exp of specials"},
        {CT_EXP, CT_FLOAT16, 3, {12, -20, -17}, CT_FLOAT16, {INFINITY, 0, 0x1p-24},
         "float16 exp: overflow, underflow, subnormal (expf(-17) = 0.69 ulp -> 2^-24)"},
        {CT_EXP, CT_BFLOAT16, 2, {89, 88}, CT_BFLOAT16, {INFINITY, 0x1.F2p126}, "bfloat16 exp (bits 0x7F80, 0x7EF9)"},
        {CT_SIGMOID, CT_FLOAT32, 4, {-INFINITY, INFINITY, NAN, 0}, CT_FLOAT32, {0, 1, NAN, 0.5}, "sigmoid of specials"},
        {CT_ROUND, CT_FLOAT32, 7, {-0.4, 0.5, 1.5, 2.5, -2.5, -0.5, NAN}, CT_FLOAT32, {-0.0, 0.0, 2, 2, -2, -0.0, NAN}, "half to even"},
        {CT_ROUND, CT_FLOAT16, 3, {2.5, -0.25, 3.5}, CT_FLOAT16, {2, -0.0, 4}, "float16 half to even"},
        {CT_RELU, CT_FLOAT32, 3, {NAN, -1, 2}, CT_FLOAT32, {NAN, 0, 2}, "relu keeps NaN"},
        {CT_SQUARE, CT_FLOAT32, 2, {-0.0, -INFINITY}, CT_FLOAT32, {0.0, INFINITY}, "square"},
        {CT_SQUARE, CT_FLOAT16, 1, {256}, CT_FLOAT16, {INFINITY}, "float16 square overflows"},
    };
    for (size_t i = 0; i < sizeof un / sizeof un[0]; ++i) {
      snprintf(ctx, sizeof ctx, "rule 3: %s [%s] (%s) device=%s%d", unary_name(un[i].op), dt_name(un[i].dt), un[i].what, dn, dev < 0 ? 0 : dev);
      ct_tensor a = vec(un[i].dt, un[i].n, un[i].a, NULL, dev, ctx), r = NULL;
      if (a) {
        TRY(ctx, ct_unary(un[i].op, a, &r));
        expect_values(r, un[i].rd, un[i].n, un[i].want, NULL, ctx);
      }
      rel(a), rel(r);
      g_cases++;
    }
    struct { int op; ct_dtype dt; int n; int64_t a[4]; int64_t want[4]; } ui[] = {
        {CT_NEG, CT_INT8, 2, {-128, 5}, {-128, -5}}, {CT_ABS, CT_INT8, 2, {-128, -5}, {-128, 5}},
        {CT_SQUARE, CT_INT8, 2, {12, -12}, {-112, -112}}, {CT_NEG, CT_UINT8, 2, {1, 0}, {255, 0}},
        {CT_NEG, CT_INT64, 1, {INT64_MIN}, {INT64_MIN}}, {CT_SQUARE, CT_INT32, 1, {65536}, {0}},
    };
    for (size_t i = 0; i < sizeof ui / sizeof ui[0]; ++i) {
      snprintf(ctx, sizeof ctx, "rule 3: %s [%s] wraps device=%s%d", unary_name(ui[i].op), dt_name(ui[i].dt), dn, dev < 0 ? 0 : dev);
      ct_tensor a = vec(ui[i].dt, ui[i].n, NULL, ui[i].a, dev, ctx), r = NULL;
      if (a) {
        TRY(ctx, ct_unary(ui[i].op, a, &r));
        expect_values(r, ui[i].dt, ui[i].n, NULL, ui[i].want, ctx);
      }
      rel(a), rel(r);
      g_cases++;
    }
  }
  /* clamp, where, fill_ */
  {
    snprintf(ctx, sizeof ctx, "rule 3: clamp [float32] min=-1 max=1 of NaN/inf device=%s%d", dn, dev < 0 ? 0 : dev);
    ct_tensor a = vec(CT_FLOAT32, 5, (const double[]){NAN, -5, 5, INFINITY, -INFINITY}, NULL, dev, ctx), r = NULL;
    if (a) {
      TRY(ctx, ct_clamp(a, 1, -1, 1, 1, &r));
      expect_values(r, CT_FLOAT32, 5, (const double[]){NAN, -1, 1, 1, -1}, NULL, ctx);
    }
    rel(a), rel(r);
    r = NULL;
    snprintf(ctx, sizeof ctx, "rule 3: clamp [float16] min=-1 of NaN device=%s%d", dn, dev < 0 ? 0 : dev);
    a = vec(CT_FLOAT16, 2, (const double[]){NAN, -5}, NULL, dev, ctx);
    if (a) {
      TRY(ctx, ct_clamp(a, 1, -1, 0, 0, &r));
      expect_values(r, CT_FLOAT16, 2, (const double[]){NAN, -1}, NULL, ctx);
    }
    rel(a), rel(r);
    r = NULL;
    snprintf(ctx, sizeof ctx, "rule 3: where [bool, float32, float32] keeps NaN and -0 device=%s%d", dn, dev < 0 ? 0 : dev);
    ct_tensor cnd = vec(CT_BOOL, 3, NULL, (const int64_t[]){1, 0, 1}, dev, ctx);
    ct_tensor x = vec(CT_FLOAT32, 3, (const double[]){NAN, 1, -0.0}, NULL, dev, ctx);
    ct_tensor y = vec(CT_FLOAT32, 3, (const double[]){2, NAN, 3}, NULL, dev, ctx);
    if (cnd && x && y) {
      TRY(ctx, ct_where(cnd, x, y, &r));
      expect_values(r, CT_FLOAT32, 3, (const double[]){NAN, NAN, -0.0}, NULL, ctx);
    }
    rel(cnd), rel(x), rel(y), rel(r);
    struct { ct_dtype dt; double v; double want; } fl[] = {
        {CT_FLOAT32, -0.0, -0.0}, {CT_FLOAT16, -0.0, -0.0}, {CT_BFLOAT16, -0.0, -0.0}, {CT_INT32, 2.5, 2}, {CT_INT8, -3.75, -3},
        {CT_BOOL, 0.5, 1}, {CT_FLOAT16, 65504, 65504}, {CT_FLOAT16, NAN, NAN},
    };
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; ++i) {
      snprintf(ctx, sizeof ctx, "rule 3: fill_ [%s] value=%g device=%s%d", dt_name(fl[i].dt), fl[i].v, dn, dev < 0 ? 0 : dev);
      ct_tensor t = vec(fl[i].dt, 3, (const double[]){1, 1, 1}, NULL, dev, ctx);
      if (t) {
        TRY(ctx, ct_fill_(t, fl[i].v));
        expect_values(t, fl[i].dt, 3, (const double[]){fl[i].want, fl[i].want, fl[i].want}, NULL, ctx);
      }
      rel(t);
      g_cases++;
    }
    g_cases += 3;
  }
  /* reductions */
  {
    struct { int op; ct_dtype dt; int n; double a[6]; ct_dtype rd; double want; const char* what; } rd[] = {
        {R_AMAX, CT_FLOAT32, 3, {1, NAN, 3}, CT_FLOAT32, NAN, "amax propagates NaN"},
        {R_AMAX, CT_FLOAT16, 2, {NAN, 1}, CT_FLOAT16, NAN, "float16 amax propagates NaN"},
        {R_AMAX, CT_BFLOAT16, 3, {1, 2, NAN}, CT_BFLOAT16, NAN, "bfloat16 amax propagates NaN"},
        {R_AMAX, CT_FLOAT32, 2, {-INFINITY, -INFINITY}, CT_FLOAT32, -INFINITY, "amax of -inf"},
        {R_ARGMAX, CT_FLOAT32, 4, {1, NAN, 3, NAN}, CT_INT64, 1, "argmax: the first NaN"},
        {R_ARGMAX, CT_FLOAT32, 3, {INFINITY, 1, NAN}, CT_INT64, 2, "argmax: NaN beats inf"},
        {R_ARGMAX, CT_FLOAT32, 2, {-INFINITY, -INFINITY}, CT_INT64, 0, "argmax of -inf"},
        {R_ARGMAX, CT_FLOAT32, 3, {3, 5, 5}, CT_INT64, 1, "argmax: the first of ties"},
        {R_ARGMAX, CT_FLOAT16, 2, {1, NAN}, CT_INT64, 1, "float16 argmax of NaN"},
        {R_ARGMAX, CT_INT32, 4, {5, 7, 7, -1}, CT_INT64, 1, "int32 argmax ties"},
        {R_SUM, CT_FLOAT32, 2, {1, NAN}, CT_FLOAT32, NAN, "sum with NaN"},
        {R_SUM, CT_FLOAT32, 2, {INFINITY, -INFINITY}, CT_FLOAT32, NAN, "inf - inf"},
        {R_SUM, CT_FLOAT16, 2, {65504, 65504}, CT_FLOAT16, INFINITY, "float16 sum overflows on rounding"},
        {R_SUM, CT_FLOAT16, 3, {0x1p-24, 0x1p-24, 0x1p-24}, CT_FLOAT16, 0x3p-24, "float16 subnormal sum (bits 0x0003)"},
        {R_MEAN, CT_FLOAT16, 2, {1, 2}, CT_FLOAT16, 1.5, "float16 mean"},
        {R_SUM, CT_INT8, 2, {127, 127}, CT_INT64, 254, "int8 sums in int64"},
        {R_SUM, CT_UINT8, 2, {255, 255}, CT_INT64, 510, "uint8 sums in int64"},
        {R_SUM, CT_BOOL, 3, {1, 1, 0}, CT_INT64, 2, "bool sums in int64"},
    };
    for (size_t i = 0; i < sizeof rd / sizeof rd[0]; ++i) {
      static const char* names[] = {"sum", "mean", "amax", "argmax"};
      snprintf(ctx, sizeof ctx, "rule 3: %s [%s] (%s) device=%s%d", names[rd[i].op], dt_name(rd[i].dt), rd[i].what, dn, dev < 0 ? 0 : dev);
      ct_tensor a = vec(rd[i].dt, rd[i].n, rd[i].a, NULL, dev, ctx), r = NULL;
      gcase c = {F_REDUCE, rd[i].op, rd[i].dt, rd[i].dt, 0, 0, 0};
      if (a) {
        TRY(ctx, do_reduce(&c, a, &r));
        if (rd[i].rd == CT_INT64) {
          int64_t w = (int64_t)rd[i].want;
          expect_values(r, CT_INT64, 1, NULL, &w, ctx);
        } else {
          expect_values(r, rd[i].rd, 1, &rd[i].want, NULL, ctx);
        }
      }
      rel(a), rel(r);
      g_cases++;
    }
    /* zero-size: sum is 0, mean NaN, amax / argmax over the empty dim fail */
    snprintf(ctx, sizeof ctx, "rule 3: reductions of a 0x5 float32 tensor device=%s%d", dn, dev < 0 ? 0 : dev);
    ct_tensor e = NULL, r = NULL;
    TRY(ctx, ct_zeros((const int64_t[]){0, 5}, 2, CT_FLOAT32, dev < 0 ? CT_CPU : CT_CUDA, dev < 0 ? -1 : dev, &e));
    if (e) {
      TRY(ctx, ct_reduce(CT_SUM, e, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
      expect_values(r, CT_FLOAT32, 1, (const double[]){0.0}, NULL, ctx);
      rel(r), r = NULL;
      TRY(ctx, ct_reduce(CT_SUM, e, (const int64_t[]){0}, 1, 0, CT_DTYPE_UNDEFINED, &r));
      expect_values(r, CT_FLOAT32, 5, (const double[]){0, 0, 0, 0, 0}, NULL, ctx);
      rel(r), r = NULL;
      TRY(ctx, ct_reduce(CT_MEAN, e, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
      expect_values(r, CT_FLOAT32, 1, (const double[]){NAN}, NULL, ctx);
      rel(r), r = NULL;
      if (ct_reduce(CT_AMAX, e, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r) == CT_OK) lfail("%s: amax of an empty tensor succeeded", ctx);
      rel(r), r = NULL;
      if (ct_argmax(e, 1, 0, 0, &r) == CT_OK) lfail("%s: argmax over an empty dim succeeded", ctx);
      rel(r), r = NULL;
      TRY(ctx, ct_reduce(CT_AMAX, e, (const int64_t[]){1}, 1, 0, CT_DTYPE_UNDEFINED, &r));
      if (r) {
        int64_t n = -1;
        TRY(ctx, ct_tensor_numel(r, &n));
        if (n != 0) lfail("%s: amax over the non-empty dim has %lld elements, expected 0", ctx, (long long)n);
      }
      rel(r), r = NULL;
    }
    rel(e);
    g_cases++;
  }
}

static void test_specials_cpu(void) {
  begin();
  run_specials(-1);
}
static void test_specials_cuda(void) {
  SKIP_WITHOUT_CUDA();
  begin();
  for (int d = g_first_device; d < g_cuda; ++d) run_specials(d);
}

/* ============================================================================================
 * Rule 5: vector tails, against element-by-element references computed here
 * ========================================================================================== */

static float h2f(const unsigned char* p) {
  uint16_t b;
  memcpy(&b, p, 2);
  return (float)f16_to_dbl(b);
}
static void f2h(float f, unsigned char* p) {
  uint16_t b = dbl_to_f16((double)f);
  memcpy(p, &b, 2);
}

enum { T_ADD, T_SUB, T_MUL, T_MAXIMUM, T_EQ, T_LT, T_ADD_S3, T_MUL_S15, T_NEG, T_ABS, T_RELU, T_TO_F32, T_TO_F16, T_TO_BF16, T_TO_BOOL,
       T_TO_I32, T_N };
static const char* const k_tail_names[] = {"add", "sub", "mul", "maximum", "eq", "lt", "add scalar 3", "mul scalar 1.5", "neg", "abs",
                                           "relu", "cast to float32", "cast to float16", "cast to bfloat16", "cast to bool", "cast to int32"};

/* the op's result dtype for input dtype dt, and element i of the reference */
static ct_dtype tail_ref(int op, ct_dtype dt, const unsigned char* x, const unsigned char* y, unsigned char* out) {
  int h = dt == CT_FLOAT16;
  float a = 0, b = 0;
  int64_t ia = 0, ib = 0;
  if (h) a = h2f(x), b = h2f(y);
  else get_v(dt, x, NULL, NULL, &ia), get_v(dt, y, NULL, NULL, &ib);
  switch (op) {
    case T_ADD: case T_SUB: case T_MUL:
      if (h) f2h(op == T_ADD ? a + b : op == T_SUB ? a - b : a * b, out);
      else put_i(dt, out, op == T_ADD ? ia + ib : op == T_SUB ? ia - ib : ia * ib); /* put_i wraps */
      return dt;
    case T_MAXIMUM:
      if (h) f2h(isnan(a) ? a : isnan(b) ? b : (a > b ? a : b), out);
      else put_i(dt, out, ia > ib ? ia : ib);
      return dt;
    case T_EQ: *out = h ? a == b : ia == ib; return CT_BOOL;
    case T_LT: *out = h ? a < b : ia < ib; return CT_BOOL;
    case T_ADD_S3:
      if (h) f2h(a + 3.0f, out);
      else put_i(dt, out, ia + 3);
      return dt;
    case T_MUL_S15:
      if (h) {
        f2h(a * 1.5f, out);
        return dt;
      } else {
        float f = (float)ia * 1.5f;
        memcpy(out, &f, 4);
        return CT_FLOAT32;
      }
    case T_NEG:
      if (h) {
        uint16_t v;
        memcpy(&v, x, 2);
        v ^= 0x8000;
        memcpy(out, &v, 2);
      } else {
        put_i(dt, out, -ia);
      }
      return dt;
    case T_ABS:
      if (h) {
        uint16_t v;
        memcpy(&v, x, 2);
        v &= 0x7FFF;
        memcpy(out, &v, 2);
      } else {
        put_i(dt, out, ia < 0 ? -ia : ia);
      }
      return dt;
    case T_RELU:
      if (h) f2h(isnan(a) ? a : a > 0 ? a : 0.0f, out);
      else put_i(dt, out, ia > 0 ? ia : 0);
      return dt;
    case T_TO_F32: {
      float f = h ? a : (float)ia;
      memcpy(out, &f, 4);
      return CT_FLOAT32;
    }
    case T_TO_F16: f2h(h ? a : (float)ia, out); return CT_FLOAT16;
    case T_TO_BF16: {
      uint16_t v = f32_to_bf16(h ? a : (float)ia);
      memcpy(out, &v, 2);
      return CT_BFLOAT16;
    }
    case T_TO_BOOL: *out = h ? (a != 0 || isnan(a)) : ia != 0; return CT_BOOL;
    case T_TO_I32: { /* float16 inputs of this op have no NaN / inf */
      int32_t v = h ? (int32_t)a : (int32_t)ia;
      memcpy(out, &v, 4);
      return CT_INT32;
    }
    default: return dt;
  }
}

static ct_status tail_run(int op, ct_tensor a, ct_tensor b, ct_tensor* r) {
  ct_device_type ty;
  int32_t ix;
  ct_tensor_device(a, &ty, &ix);
  switch (op) {
    case T_ADD: return ct_binary(CT_ADD, a, b, r);
    case T_SUB: return ct_binary(CT_SUB, a, b, r);
    case T_MUL: return ct_binary(CT_MUL, a, b, r);
    case T_MAXIMUM: return ct_binary(CT_MAXIMUM, a, b, r);
    case T_EQ: return ct_binary(CT_EQ, a, b, r);
    case T_LT: return ct_binary(CT_LT, a, b, r);
    case T_ADD_S3: return ct_binary_scalar_i(CT_ADD, a, 3, 0, r);
    case T_MUL_S15: return ct_binary_scalar_f(CT_MUL, a, 1.5, 0, r);
    case T_NEG: return ct_unary(CT_NEG, a, r);
    case T_ABS: return ct_unary(CT_ABS, a, r);
    case T_RELU: return ct_unary(CT_RELU, a, r);
    case T_TO_F32: return ct_tensor_to(a, ty, ix, CT_FLOAT32, 0, 0, r);
    case T_TO_F16: return ct_tensor_to(a, ty, ix, CT_FLOAT16, 0, 0, r);
    case T_TO_BF16: return ct_tensor_to(a, ty, ix, CT_BFLOAT16, 0, 0, r);
    case T_TO_BOOL: return ct_tensor_to(a, ty, ix, CT_BOOL, 0, 0, r);
    default: return ct_tensor_to(a, ty, ix, CT_INT32, 0, 0, r);
  }
}

/* compares r (1-D, n elements of dt) with want; relu's zeros compare without sign */
static void tail_compare(ct_tensor r, ct_dtype dt, const unsigned char* want, int64_t n, int zero_sign_free, const char* ctx) {
  check_dtype(r, dt, ctx, "result dtype");
  int64_t got_n = 0;
  unsigned char* got = fetch(r, &got_n, ctx);
  if (!got) return;
  int64_t es = dt_size(dt);
  if (got_n != n) lfail("%s: %lld elements, expected %lld", ctx, (long long)got_n, (long long)n);
  for (int64_t i = 0; i < n && got_n == n; ++i) {
    if (elem_same(dt, got + i * es, want + i * es)) continue;
    if (zero_sign_free) {
      double u, v;
      get_v(dt, got + i * es, &u, NULL, NULL);
      get_v(dt, want + i * es, &v, NULL, NULL);
      if (u == 0 && v == 0) continue;
    }
    char gv[96], wv[96];
    fmt_v(dt, got + i * es, gv, sizeof gv);
    fmt_v(dt, want + i * es, wv, sizeof wv);
    lfail("%s: first difference at index %lld: got %s, expected %s", ctx, (long long)i, gv, wv);
    break;
  }
  free(got);
}

static void run_tails(int dev) {
  static const int64_t lens[] = {1, 3, 7, 15, 17, 31, 33, 1023, 4097};
  static const ct_dtype dts[] = {CT_FLOAT16, CT_INT8, CT_UINT8};
  char ctx[512], dn[16];
  if (dev < 0) snprintf(dn, sizeof dn, "cpu");
  else snprintf(dn, sizeof dn, "cuda:%d", dev);
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; ++di) {
    ct_dtype dt = dts[di];
    int64_t es = dt_size(dt);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li) {
      int64_t n = lens[li], bn = n + 8;
      for (int start = 0; start < 4; ++start) {
        int bstart = (start + 1) % 4;
        /* A (with NaN/inf/-0 for float16), B, and C (no specials: casts to int32, sums) */
        unsigned char* ha = (unsigned char*)malloc((size_t)(bn * es));
        unsigned char* hb = (unsigned char*)malloc((size_t)(bn * es));
        unsigned char* hc = (unsigned char*)malloc((size_t)(bn * es));
        for (int64_t i = 0; i < bn; ++i) {
          gen_elem(dt, i, 11, SP_ALL, ha + i * es);
          gen_elem(dt, i, 12, SP_ALL, hb + i * es);
          gen_elem(dt, i, 13, SP_NONE, hc + i * es);
        }
        snprintf(ctx, sizeof ctx, "rule 5 [%s] length %lld", dt_name(dt), (long long)n);
        ct_tensor A = mk(ha, dt, 1, &bn, dev, ctx), B = mk(hb, dt, 1, &bn, dev, ctx), C = mk(hc, dt, 1, &bn, dev, ctx);
        ct_tensor a = NULL, b = NULL, c = NULL;
        if (A && B && C) {
          TRY(ctx, ct_narrow(A, 0, start, n, &a));
          TRY(ctx, ct_narrow(B, 0, bstart, n, &b));
          TRY(ctx, ct_narrow(C, 0, start, n, &c));
        }
        if (a && b && c) {
          unsigned char* want = (unsigned char*)malloc((size_t)(n * 8 + 8));
          for (int op = 0; op < T_N; ++op) {
            const unsigned char* xs = op == T_TO_I32 ? hc + start * es : ha + start * es;
            const unsigned char* ys = hb + bstart * es;
            ct_dtype rd = dt;
            for (int64_t i = 0; i < n; ++i) {
              unsigned char tmp[8];
              rd = tail_ref(op, dt, xs + i * es, ys + i * es, tmp);
              memcpy(want + i * dt_size(rd), tmp, (size_t)dt_size(rd));
            }
            snprintf(ctx, sizeof ctx, "rule 5: %s [%s] length %lld, view starting at element %d (rhs at %d) device=%s", k_tail_names[op],
                     dt_name(dt), (long long)n, start, bstart, dn);
            ct_tensor r = NULL;
            ct_status s = tail_run(op, op == T_TO_I32 ? c : a, b, &r);
            if (s != CT_OK) lfail("%s: returned %s: %s", ctx, ct_status_name(s), ct_last_error_message());
            else tail_compare(r, rd, want, n, op == T_RELU, ctx);
            rel(r);
            g_cases++;
          }
          /* exp / sigmoid of float16: the float32 results rounded once */
          if (dt == CT_FLOAT16) {
            for (int k = 0; k < 2; ++k) {
              int op = k ? CT_SIGMOID : CT_EXP;
              snprintf(ctx, sizeof ctx, "rule 5: %s [float16] length %lld, view starting at element %d device=%s", unary_name(op), (long long)n,
                       start, dn);
              ct_tensor r = NULL, af = to_dt(a, CT_FLOAT32, ctx), rf = NULL, rh = NULL;
              TRY(ctx, ct_unary(op, a, &r));
              if (af) TRY(ctx, ct_unary(op, af, &rf));
              if (rf) rh = to_dt(rf, CT_FLOAT16, ctx);
              if (r && rh) cmp_tensors(r, rh, 0, ctx, "float16 op == float32 op rounded once");
              rel(r), rel(af), rel(rf), rel(rh);
              g_cases++;
            }
          }
          /* reductions: sum (exact), amax and argmax (NaN wins, first occurrence) */
          {
            snprintf(ctx, sizeof ctx, "rule 5: sum/amax/argmax [%s] length %lld, view starting at element %d device=%s", dt_name(dt),
                     (long long)n, start, dn);
            double sum = 0;
            for (int64_t i = 0; i < n; ++i) {
              double v;
              get_v(dt, hc + (start + i) * es, &v, NULL, NULL);
              sum += v;
            }
            ct_tensor r = NULL;
            TRY(ctx, ct_reduce(CT_SUM, c, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
            if (dt == CT_FLOAT16) expect_values(r, CT_FLOAT16, 1, (const double[]){f16_to_dbl(dbl_to_f16(sum))}, NULL, ctx);
            else expect_values(r, CT_INT64, 1, NULL, (const int64_t[]){(int64_t)sum}, ctx);
            rel(r), r = NULL;
            int64_t best = 0;
            double bv;
            get_v(dt, ha + start * es, &bv, NULL, NULL);
            for (int64_t i = 1; i < n && !isnan(bv); ++i) {
              double v;
              get_v(dt, ha + (start + i) * es, &v, NULL, NULL);
              if (isnan(v) || v > bv) best = i, bv = v;
            }
            TRY(ctx, ct_reduce(CT_AMAX, a, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
            if (r) tail_compare(r, dt, ha + (start + best) * es, 1, 0, ctx);
            rel(r), r = NULL;
            TRY(ctx, ct_argmax(a, 0, 0, 0, &r));
            expect_values(r, CT_INT64, 1, NULL, &best, ctx);
            rel(r);
            g_cases += 3;
          }
          /* copy_ into the view and fill_ of the view: neighbours untouched */
          {
            snprintf(ctx, sizeof ctx, "rule 5: copy_ then fill_ [%s] length %lld, view starting at element %d device=%s", dt_name(dt),
                     (long long)n, start, dn);
            unsigned char* exp_ = (unsigned char*)malloc((size_t)(bn * es));
            memcpy(exp_, ha, (size_t)(bn * es));
            memcpy(exp_ + start * es, hb + bstart * es, (size_t)(n * es));
            TRY(ctx, ct_tensor_copy_(a, b, 0));
            tail_compare(A, dt, exp_, bn, 0, ctx);
            TRY(ctx, ct_fill_(a, 7));
            for (int64_t i = 0; i < n; ++i) put_f(dt, exp_ + (start + i) * es, 7, 0);
            tail_compare(A, dt, exp_, bn, 0, ctx);
            free(exp_);
            g_cases += 2;
          }
          free(want);
        }
        rel(a), rel(b), rel(c), rel(A), rel(B), rel(C);
        free(ha), free(hb), free(hc);
      }
    }
  }
}

static void test_vector_tails_cpu(void) {
  begin();
  run_tails(-1);
}
static void test_vector_tails_cuda(void) {
  SKIP_WITHOUT_CUDA();
  begin();
  for (int d = g_first_device; d < g_cuda; ++d) run_tails(d);
}

/* every test released what it made */
/* Note [One-launch cat]: cat of many same-dtype inputs of mixed layouts -- contiguous, stride-2
   slices, transposes (which keep the tiled kernel), expanded rows, zero-size -- spans several
   launches of kCatBatch inputs on CUDA; each input goes through its own view op on each device
   and the CUDA result must equal the CPU's bit for bit. Large inputs make the grid-stride loop
   (the grid is capped to the resident blocks) take several turns. */
static ct_tensor cat_input(ct_dtype dt, int kind, int64_t rows, int64_t cols, int salt, int dev, const char* ctx) {
  int64_t base_sz[2];
  switch (kind) {
    case 1: base_sz[0] = rows, base_sz[1] = 2 * cols; break; /* stride-2 slice */
    case 2: base_sz[0] = cols, base_sz[1] = rows; break;     /* transposed */
    case 3: base_sz[0] = 1, base_sz[1] = cols; break;        /* expanded row */
    default: base_sz[0] = rows, base_sz[1] = cols; break;
  }
  int64_t n = base_sz[0] * base_sz[1];
  unsigned char* buf = (unsigned char*)malloc((size_t)(n ? n * dt_size(dt) : 1));
  for (int64_t i = 0; i < n; ++i) gen_elem(dt, i, salt, 0, buf + i * dt_size(dt));
  ct_tensor b = mk(buf, dt, 2, base_sz, dev, ctx), v = NULL;
  free(buf);
  if (!b) return NULL;
  int64_t full[2] = {rows, cols};
  ct_status s = CT_OK;
  switch (kind) {
    case 1: s = ct_slice(b, 1, 1, 2 * cols, 2, &v); break;
    case 2: s = ct_transpose(b, 0, 1, &v); break;
    case 3: s = ct_expand(b, full, 2, &v); break;
    default: v = b, b = NULL; break;
  }
  if (s != CT_OK) lfail("%s: view of input kind %d: %s", ctx, kind, ct_last_error_message());
  if (b) ct_tensor_release(b);
  return v;
}

static void cat_many_case(ct_dtype dt, int nin, int64_t rows, int64_t colscale, int stack_dim) {
  char ctx[160];
  snprintf(ctx, sizeof ctx, "%s of %d %s inputs (%lld rows)", stack_dim < 0 ? "cat(dim=1)" : "stack", nin, dt_name(dt),
           (long long)rows);
  ct_tensor in[2][24] = {{NULL}};
  ct_tensor out[2] = {NULL, NULL};
  ct_status st[2] = {CT_OK, CT_OK};
  for (int d = 0; d < 2; ++d) {
    for (int k = 0; k < nin; ++k) {
      int kind = k % 5 == 4 ? 0 : k % 4;  /* contiguous, slice, transposed, expanded, ... */
      int64_t cols = stack_dim >= 0 ? colscale : (k % 7 == 5 ? 0 : colscale * (1 + k % 3) + (k & 1));
      in[d][k] = cat_input(dt, kind, rows, cols, 11 + k, d ? 0 : -1, ctx);
      if (!in[d][k]) goto done;
    }
    st[d] = stack_dim < 0 ? ct_cat(in[d], nin, 1, &out[d]) : ct_stack(in[d], nin, stack_dim, &out[d]);
    if (st[d] != CT_OK) lfail("%s on %s: %s", ctx, d ? "CUDA" : "CPU", ct_last_error_message());
  }
  if (st[0] == CT_OK && st[1] == CT_OK) {
    check_device(out[1], 0, ctx);
    cmp_tensors(out[1], out[0], 0, ctx, "CUDA vs CPU");
  }
done:
  for (int d = 0; d < 2; ++d) {
    for (int k = 0; k < nin; ++k) rel(in[d][k]);
    rel(out[d]);
  }
}

static void test_cat_many_inputs_cuda(void) {
  SKIP_WITHOUT_CUDA();
  const ct_dtype dts[] = {CT_UINT8, CT_FLOAT16, CT_FLOAT32, CT_FLOAT64, CT_COMPLEX128};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; ++i) {
    cat_many_case(dts[i], 19, 5, 3, -1);   /* 3 launches of up to 8 inputs, odd widths */
    cat_many_case(dts[i], 9, 33, 40, -1);  /* transposes large enough for the tiled kernel */
    cat_many_case(dts[i], 10, 4, 6, 0);    /* stack: new leading dim */
    cat_many_case(dts[i], 10, 4, 6, 2);    /* stack: new inner dim */
  }
  cat_many_case(CT_FLOAT32, 3, 1024, 700, -1); /* large inputs of different sizes */
  cat_many_case(CT_UINT8, 2, 2048, 1500, -1);
  /* inputs of three non-collapsible dims: a [5, 3, 4] tensor transposed to [3, 5, 4] and a
     contiguous [3, 5, 2], along the last dim (the kernel's general offsets) */
  for (int dev = -1; dev <= 0; ++dev) {
    static ct_tensor res[2];
    const char* ctx = "cat of 3-D views";
    int64_t s1[3] = {5, 3, 4}, s2[3] = {3, 5, 2};
    float b1[60], b2[30];
    for (int i = 0; i < 60; ++i) b1[i] = (float)i;
    for (int i = 0; i < 30; ++i) b2[i] = (float)(100 + i);
    ct_tensor t1 = mk(b1, CT_FLOAT32, 3, s1, dev, ctx), t2 = mk(b2, CT_FLOAT32, 3, s2, dev, ctx), v1 = NULL;
    res[dev + 1] = NULL;
    if (t1 && t2 && ct_transpose(t1, 0, 1, &v1) == CT_OK) {
      ct_tensor args[2] = {v1, t2};
      if (ct_cat(args, 2, 2, &res[dev + 1]) != CT_OK) lfail("%s: %s", ctx, ct_last_error_message());
    }
    rel(t1), rel(t2), rel(v1);
    if (dev == 0 && res[0] && res[1]) {
      /* by hand too: element [i, j, k] is b1[j * 12 + i * 4 + k] for k < 4, else b2[(i * 5 + j) * 2 + k - 4] */
      int64_t n = 0;
      unsigned char* got = fetch(res[1], &n, ctx);
      if (got && n == 90) {
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 5; ++j)
            for (int k = 0; k < 6; ++k) {
              float want = k < 4 ? b1[j * 12 + i * 4 + k] : b2[(i * 5 + j) * 2 + k - 4], g;
              memcpy(&g, got + 4 * ((i * 5 + j) * 6 + k), 4);
              if (g != want) lfail("%s: [%d, %d, %d] = %g, expected %g", ctx, i, j, k, g, want);
            }
      } else if (got) {
        lfail("%s: %lld elements, expected 90", ctx, (long long)n);
      }
      free(got);
      cmp_tensors(res[1], res[0], 0, ctx, "CUDA vs CPU");
    }
    if (dev == 0) rel(res[0]), rel(res[1]);
  }
}

/* Short reduced rows of strided and permuted views on CUDA against the CPU, exactly (small
 * integer values, so every sum is exact), the sums also by hand:
 *  - [6, 10, 40][:, :, ::2] permuted to [10, 6, 20], reduced over dim 2: rows of 20 elements at
 *    stride 2 (Note [Short strided rows]: a thread per row; its kept dims walked in input-stride
 *    order, against the output's order);
 *  - [8, 37, 50] permuted to [50, 8, 37], reduced over dim 1 (the columns path with permuted
 *    kept dims).
 * sum, amax (keepdim), argmax and max(dim) (values and indices written by the reduction kernel,
 * Note [Argmax outputs]; argmax of the strided views goes through a copy). */
typedef struct {
  int64_t sz[3];
  int step;       /* slice of the last dim */
  int64_t perm[3];
  int64_t dim;    /* reduced dim of the permuted view */
} short_rows_case;

static void short_rows_run(const short_rows_case* k, ct_dtype dt) {
  char ctx[128];
  snprintf(ctx, sizeof ctx, "short rows [%s] base [%lld, %lld, %lld] step %d perm (%lld, %lld, %lld) dim %lld", dt_name(dt),
           (long long)k->sz[0], (long long)k->sz[1], (long long)k->sz[2], k->step, (long long)k->perm[0],
           (long long)k->perm[1], (long long)k->perm[2], (long long)k->dim);
  const int n = (int)(k->sz[0] * k->sz[1] * k->sz[2]);
  unsigned char* buf = malloc((size_t)n * 8);
  double* vals = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) {
    vals[i] = (double)((i * 7) % 13) - (dt == CT_UINT8 ? 0 : 6);
    if (is_intg(dt)) put_i(dt, buf + (size_t)i * dt_size(dt), (int64_t)vals[i]);
    else put_f(dt, buf + (size_t)i * dt_size(dt), vals[i], 0);
  }
  /* the view's sizes and element strides within the base */
  int64_t bst[3] = {k->sz[1] * k->sz[2], k->sz[2], 1}, vsz[3], vst[3];
  int64_t ssz[3] = {k->sz[0], k->sz[1], (k->sz[2] + k->step - 1) / k->step}, sst[3] = {bst[0], bst[1], k->step};
  for (int j = 0; j < 3; ++j) vsz[j] = ssz[k->perm[j]], vst[j] = sst[k->perm[j]];
  ct_tensor res[2][4] = {{NULL}};
  for (int dev = -1; dev <= 0; ++dev) {
    ct_tensor b = mk(buf, dt, 3, k->sz, dev, ctx), sl = NULL, v = NULL, mx = NULL;
    if (b && ct_slice(b, 2, 0, k->sz[2], k->step, &sl) == CT_OK && ct_permute(sl, k->perm, 3, &v) == CT_OK) {
      ct_tensor* r = res[dev + 1];
      if (ct_reduce(CT_SUM, v, &k->dim, 1, 0, CT_DTYPE_UNDEFINED, &r[0]) != CT_OK ||
          ct_reduce(CT_AMAX, v, &k->dim, 1, 1, CT_DTYPE_UNDEFINED, &r[1]) != CT_OK ||
          ct_argmax(v, 1, (int32_t)k->dim, 0, &r[2]) != CT_OK || ct_max_dim(v, (int32_t)k->dim, 0, &r[3], &mx) != CT_OK)
        lfail("%s: %s", ctx, ct_last_error_message());
      rel(mx);
    } else {
      lfail("%s: view: %s", ctx, ct_last_error_message());
    }
    rel(b), rel(sl), rel(v);
  }
  static const char* what[4] = {"sum", "amax", "argmax", "max(dim) values"};
  for (int j = 0; j < 4; ++j)
    if (res[0][j] && res[1][j]) cmp_tensors(res[1][j], res[0][j], 0, ctx, what[j]);
  /* the sum by hand over the kept dims in logical order */
  int64_t got_n = 0;
  unsigned char* got = res[1][0] && (dt == CT_FLOAT32 || dt == CT_INT64) ? fetch(res[1][0], &got_n, ctx) : NULL;
  int kd[2], nk = 0;
  for (int j = 0; j < 3; ++j)
    if (j != k->dim) kd[nk++] = j;
  if (got && got_n == vsz[kd[0]] * vsz[kd[1]]) {
    for (int64_t x = 0; x < vsz[kd[0]]; ++x)
      for (int64_t y = 0; y < vsz[kd[1]]; ++y) {
        double want = 0;
        for (int64_t i = 0; i < vsz[k->dim]; ++i) want += vals[x * vst[kd[0]] + y * vst[kd[1]] + i * vst[k->dim]];
        int64_t o = x * vsz[kd[1]] + y;
        double g;
        if (dt == CT_FLOAT32) { float f; memcpy(&f, got + 4 * o, 4); g = f; }
        else { int64_t q; memcpy(&q, got + 8 * o, 8); g = (double)q; }
        if (g != want) {
          lfail("%s: sum[%lld, %lld] = %g, expected %g", ctx, (long long)x, (long long)y, g, want);
          x = vsz[kd[0]];
          break;
        }
      }
  } else if (got) {
    lfail("%s: sum has %lld elements", ctx, (long long)got_n);
  }
  free(got);
  for (int j = 0; j < 4; ++j) rel(res[0][j]), rel(res[1][j]);
  free(buf), free(vals);
}

static void test_short_rows_cuda(void) {
  SKIP_WITHOUT_CUDA();
  const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT64, CT_INT64, CT_UINT8};
  const short_rows_case cases[] = {
      {{6, 10, 40}, 2, {1, 0, 2}, 2},
      {{8, 37, 50}, 1, {2, 0, 1}, 1},
      {{3, 700, 64}, 2, {0, 1, 2}, 2}, /* 2100 rows of 32 */
  };
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) short_rows_run(&cases[c], dts[d]);
}

static void test_no_live_tensors(void) {
  int64_t live = -1;
  OK(ct_live_tensor_count(&live));
  EXPECT_EQ_I(live, 0);
}

int main(void) {
  if (getenv("LAYOUT_TEST_MAX_PRINT")) g_max_print = atoi(getenv("LAYOUT_TEST_MAX_PRINT"));
  if (getenv("LAYOUT_TEST_FIRST_DEVICE")) g_first_device = atoi(getenv("LAYOUT_TEST_FIRST_DEVICE"));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const test_case tests[] = {TEST_CASE(binary_layouts_cpu), TEST_CASE(unary_clamp_layouts_cpu),
                             TEST_CASE(where_layouts_cpu), TEST_CASE(casts_copies_fill_layouts_cpu),
                             TEST_CASE(reductions_layouts_cpu), TEST_CASE(cat_stack_layouts_cpu),
                             TEST_CASE(specials_cpu), TEST_CASE(vector_tails_cpu),
                             TEST_CASE(binary_layouts_cuda), TEST_CASE(unary_clamp_layouts_cuda),
                             TEST_CASE(where_layouts_cuda), TEST_CASE(casts_copies_fill_layouts_cuda),
                             TEST_CASE(reductions_layouts_cuda), TEST_CASE(cat_stack_layouts_cuda),
                             TEST_CASE(specials_cuda), TEST_CASE(vector_tails_cuda),
                             TEST_CASE(cat_many_inputs_cuda), TEST_CASE(short_rows_cuda),
                             TEST_CASE(no_live_tensors)};
  int rc = RUN_TESTS(tests);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("(%d cases checked, %d known differences from PyTorch, %.1f s)\n", g_cases, g_known,
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  return rc;
}
