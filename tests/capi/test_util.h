/* A tiny test harness for the C API suite: each TEST is a function; failures are counted and
 * the run ends with the line "N passed, N failed" that .ci/run aggregates. */
#ifndef CT_TEST_UTIL_H
#define CT_TEST_UTIL_H

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/ctorch.h"

/* Atomic: the checks below may fail on several threads at once (tests/capi/stress_test.c). */
static _Atomic int g_failed_checks = 0;
static int g_skipped = 0; /* set by a test that skipped itself (e.g. no GPU) */
__attribute__((unused)) static int g_cuda = 0; /* number of CUDA devices, set by run_tests */

/* GPU cases skip visibly (and are counted as skipped) on machines without one. */
#define SKIP_WITHOUT_CUDA()                               \
  do {                                                    \
    if (!g_cuda) {                                        \
      printf("  SKIP %s: no CUDA device\n", g_test_name); \
      g_skipped = 1;                                      \
      return;                                             \
    }                                                     \
  } while (0)
static const char* g_test_name = "";

#define FAILF(...)                                                         \
  do {                                                                     \
    fprintf(stderr, "  FAIL %s (%s:%d): ", g_test_name, __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                          \
    fprintf(stderr, "\n");                                                 \
    g_failed_checks++;                                                     \
  } while (0)

#define OK(call)                                                                          \
  do {                                                                                    \
    ct_status s_ = (call);                                                                \
    if (s_ != CT_OK) FAILF("%s returned %s: %s", #call, ct_status_name(s_), ct_last_error_message()); \
  } while (0)

/* For programs that cannot go on after a failed call (tests/gpu/alloc_trace.c): OK's message,
 * then exit(1). */
#define REQUIRE(call)                 \
  do {                                \
    OK(call);                         \
    if (g_failed_checks) exit(1);     \
  } while (0)

/* Expects `call` to fail with `code` and the message to contain `needle` (may be ""). */
#define FAILS(call, code, needle)                                                              \
  do {                                                                                         \
    ct_status s_ = (call);                                                                     \
    if (s_ != (code)) FAILF("%s returned %s, expected %s (%s)", #call, ct_status_name(s_),    \
                            ct_status_name(code), ct_last_error_message());                   \
    else if (!strstr(ct_last_error_message(), (needle)))                                       \
      FAILF("%s: message '%s' lacks '%s'", #call, ct_last_error_message(), (needle));          \
    else if (ct_last_error_code() != (code))                                                   \
      FAILF("%s: ct_last_error_code() is %d, expected %d", #call, ct_last_error_code(), (code)); \
  } while (0)

#define EXPECT(cond)                             \
  do {                                           \
    if (!(cond)) FAILF("expected %s", #cond);    \
  } while (0)

#define EXPECT_EQ_I(a, b)                                                              \
  do {                                                                                 \
    long long a_ = (long long)(a), b_ = (long long)(b);                                \
    if (a_ != b_) FAILF("%s == %lld, expected %s == %lld", #a, a_, #b, b_);            \
  } while (0)

#define EXPECT_EQ_D(a, b)                                                              \
  do {                                                                                 \
    double a_ = (double)(a), b_ = (double)(b);                                         \
    if (a_ != b_) FAILF("%s == %.17g, expected %s == %.17g", #a, a_, #b, b_);          \
  } while (0)

#define EXPECT_STR(a, b)                                                        \
  do {                                                                          \
    const char* a_ = (a);                                                       \
    const char* b_ = (b);                                                       \
    if (strcmp(a_, b_) != 0) FAILF("got\n%s\nexpected\n%s", a_, b_);            \
  } while (0)

/* a CPU tensor of dtype from n host values of src (float64 or int64), shaped sizes */
static inline ct_tensor from_host_(const void* v, ct_dtype src, int64_t n, const int64_t* sizes, int32_t nd,
                                   ct_dtype dtype) {
  ct_tensor host = NULL, out = NULL;
  if (ct_from_buffer(v, n * 8, sizes, nd, src, CT_CPU, -1, &host) != CT_OK) {
    FAILF("from_host_: %s", ct_last_error_message());
    return NULL;
  }
  if (ct_tensor_to(host, CT_CPU, -1, dtype, 0, 0, &out) != CT_OK) FAILF("from_host_ to: %s", ct_last_error_message());
  ct_tensor_release(host);
  return out;
}

static inline ct_tensor from_f64(const double* v, int64_t n, const int64_t* sizes, int32_t nd, ct_dtype dtype) {
  return from_host_(v, CT_FLOAT64, n, sizes, nd, dtype);
}

static inline ct_tensor from_i64(const int64_t* v, int64_t n, const int64_t* sizes, int32_t nd, ct_dtype dtype) {
  return from_host_(v, CT_INT64, n, sizes, nd, dtype);
}

/* 1-D helpers */
#define F64(dt, ...) from_f64((const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / 8, \
                              (const int64_t[]){sizeof((const double[]){__VA_ARGS__}) / 8}, 1, dt)
#define I64(dt, ...) from_i64((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / 8, \
                              (const int64_t[]){sizeof((const int64_t[]){__VA_ARGS__}) / 8}, 1, dt)

static inline void expect_shape_(ct_tensor t, const int64_t* want, int32_t nd, const char* what, int line) {
  int64_t got[16];
  int32_t n = -1;
  if (ct_tensor_sizes(t, got, 16, &n) != CT_OK) {
    FAILF("line %d: sizes of %s: %s", line, what, ct_last_error_message());
    return;
  }
  int same = n == nd;
  for (int i = 0; same && i < nd; ++i) same = got[i] == want[i];
  if (!same) {
    char buf[256] = "";
    for (int i = 0; i < n; ++i) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%lld ", (long long)got[i]);
    FAILF("line %d: shape of %s is [%s], expected %d dims", line, what, buf, nd);
  }
}
#define EXPECT_SHAPE(t, ...) expect_shape_((t), (const int64_t[]){__VA_ARGS__}, \
                                           sizeof((const int64_t[]){__VA_ARGS__}) / 8, #t, __LINE__)
#define EXPECT_SCALAR_SHAPE(t) expect_shape_((t), NULL, 0, #t, __LINE__)

static inline void expect_dtype_(ct_tensor t, ct_dtype want, const char* what, int line) {
  ct_dtype d = -2;
  if (ct_tensor_dtype(t, &d) != CT_OK || d != want) FAILF("line %d: dtype of %s is %d, expected %d", line, what, d, want);
}
#define EXPECT_DTYPE(t, d) expect_dtype_((t), (d), #t, __LINE__)

/* Compares all elements (converted to float64) with want[], |got - want| <= tol (NaN == NaN). */
static inline void expect_vals_(ct_tensor t, const double* want, int64_t n, double tol, const char* what, int line) {
  int64_t numel = -1;
  if (ct_tensor_numel(t, &numel) != CT_OK) {
    FAILF("line %d: numel of %s: %s", line, what, ct_last_error_message());
    return;
  }
  if (numel != n) {
    FAILF("line %d: %s has %lld elements, expected %lld", line, what, (long long)numel, (long long)n);
    return;
  }
  ct_tensor d = NULL;
  if (ct_tensor_to(t, CT_CPU, -1, CT_FLOAT64, 0, 0, &d) != CT_OK) {
    FAILF("line %d: to float64: %s", line, ct_last_error_message());
    return;
  }
  double* got = (double*)malloc((size_t)(n ? n : 1) * 8);
  if (ct_tensor_copy_to_buffer(d, got, n * 8) != CT_OK) FAILF("line %d: copy: %s", line, ct_last_error_message());
  for (int64_t i = 0; i < n; ++i) {
    int both_nan = isnan(got[i]) && isnan(want[i]);
    int same_inf = isinf(got[i]) && isinf(want[i]) && (got[i] > 0) == (want[i] > 0);
    if (!both_nan && !same_inf && !(fabs(got[i] - want[i]) <= tol)) {
      FAILF("line %d: %s[%lld] = %.17g, expected %.17g", line, what, (long long)i, got[i], want[i]);
      break;
    }
  }
  free(got);
  ct_tensor_release(d);
}
#define EXPECT_VALS(t, tol, ...) expect_vals_((t), (const double[]){__VA_ARGS__}, \
                                              sizeof((const double[]){__VA_ARGS__}) / 8, (tol), #t, __LINE__)

static inline void expect_repr_(ct_tensor t, const char* want, int line) {
  int64_t need = 0;
  ct_status s = ct_tensor_repr(t, NULL, 0, &need);
  if (s != CT_ERR_BUFFER_SIZE) {
    FAILF("line %d: repr size query returned %s", line, ct_status_name(s));
    return;
  }
  char* buf = (char*)malloc((size_t)need + 1);
  if (ct_tensor_repr(t, buf, need + 1, &need) != CT_OK) FAILF("line %d: repr: %s", line, ct_last_error_message());
  else if (strcmp(buf, want) != 0) FAILF("line %d: repr is\n%s\nexpected\n%s", line, buf, want);
  free(buf);
}
#define EXPECT_REPR(t, s) expect_repr_((t), (s), __LINE__)

/* A process-wide setting with a getter and a setter: it reads `initial`, reads `other` once set
 * to it, and `initial` again once set back (so the test leaves it as it found it). */
static inline void expect_setting_(ct_status (*get)(int32_t*), ct_status (*set)(int32_t), int32_t initial,
                                   int32_t other, const char* what, int line) {
  const int32_t steps[] = {initial, other, initial};
  for (int i = 0; i < 3; ++i) {
    int32_t v = -1;
    if (i > 0 && set(steps[i]) != CT_OK) FAILF("line %d: set %s to %d: %s", line, what, steps[i], ct_last_error_message());
    if (get(&v) != CT_OK) FAILF("line %d: get %s: %s", line, what, ct_last_error_message());
    else if (v != steps[i]) FAILF("line %d: %s is %d, expected %d", line, what, v, steps[i]);
  }
}
#define EXPECT_SETTING(get, set, initial, other) expect_setting_((get), (set), (initial), (other), #get, __LINE__)

static inline void rel(ct_tensor t) {
  if (t) ct_tensor_release(t);
}

typedef void (*test_fn)(void);
typedef struct {
  const char* name;
  test_fn fn;
} test_case;

/* Whether the environment's CT_TESTS (test names separated by commas; unset or empty: all)
 * selects the test `name`. */
static inline int test_selected(const char* name) {
  const char* sel = getenv("CT_TESTS");
  if (!sel || !*sel) return 1;
  const size_t len = strlen(name);
  for (const char* p = sel; *p;) {
    const char* end = strchr(p, ',');
    const size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == len && strncmp(p, name, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

/* Runs the tests in order (those CT_TESTS selects, test_selected): counts the CUDA devices first
 * (g_cuda), checks after each test that it left no tensor handle alive and the current device
 * as it found it, and prints one line a test plus the "N passed, N failed" summary (and how
 * many tests CT_TESTS left out). Returns the process exit status. */
static inline int run_tests(const test_case* tests, int n) {
  int32_t devices = 0;
  ct_cuda_device_count(&devices);
  g_cuda = devices;
  printf("CUDA devices: %d\n", devices);
  int passed = 0, failed = 0, skipped = 0, unselected = 0;
  for (int i = 0; i < n; ++i) {
    if (!test_selected(tests[i].name)) {
      unselected++;
      continue;
    }
    int before = g_failed_checks;
    int64_t live0 = 0, live1 = 0;
    int32_t dev0 = -1, dev1 = -1;
    ct_live_tensor_count(&live0);
    if (g_cuda) ct_cuda_current_device(&dev0);
    g_test_name = tests[i].name;
    g_skipped = 0;
    tests[i].fn();
    ct_live_tensor_count(&live1);
    if (live1 != live0) FAILF("leaked %lld tensor handles", (long long)(live1 - live0));
    if (g_cuda) {
      ct_cuda_current_device(&dev1);
      if (dev1 != dev0) {
        FAILF("the current CUDA device was %d before the test and %d after it", dev0, dev1);
        ct_cuda_set_device(dev0);
      }
    }
    if (g_failed_checks == before && g_skipped) {
      skipped++;
      printf("[SKIP] %s\n", tests[i].name);
    } else if (g_failed_checks == before) {
      passed++;
      printf("[ OK ] %s\n", tests[i].name);
    } else {
      failed++;
      printf("[FAIL] %s\n", tests[i].name);
    }
  }
  /* Hand cached device memory back, so leak checkers (compute-sanitizer) see none left. */
  if (g_cuda) ct_cuda_empty_cache();
  if (unselected) printf("(%d tests not selected by CT_TESTS)\n", unselected);
  if (skipped) printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  else printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

#define RUN_TESTS(tests) run_tests((tests), (int)(sizeof(tests) / sizeof((tests)[0])))

/* One entry of a suite's table: TEST_CASE(x) runs test_x under the name "x". */
#define TEST_CASE(name) {#name, test_##name}

/* The main of a suite that does nothing around its tests:
 * TEST_MAIN(TEST_CASE(a), TEST_CASE(b), ...) runs test_a, test_b, ... in that order. */
#define TEST_MAIN(...)                          \
  int main(void) {                              \
    const test_case tests_[] = {__VA_ARGS__};   \
    return RUN_TESTS(tests_);                   \
  }

#endif
