/* Section 24 of ctorch.h: the CUDA stream sanitizer. The modes and errors run everywhere; the
 * races (and their absence once synchronized) need a GPU. The bookkeeping's own cases, stream by
 * stream and event by event, are tests/impl/csan_test.cc. */
#include "tests/capi/test_util.h"

static int g_reports = 0;
static char g_last[8192];
static void collect(const char* report, void* user) {
  int* n = (int*)user;
  ++*n;
  snprintf(g_last, sizeof g_last, "%s", report);
}

static void warn_into_counter(void) {
  g_reports = 0;
  g_last[0] = 0;
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_OFF));
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_WARN));
  OK(ct_cuda_sanitizer_set_callback(collect, &g_reports));
}

static void sanitizer_off(void) {
  OK(ct_cuda_sanitizer_set_callback(NULL, NULL));
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_OFF));
}

static ct_tensor cuda_normal(void) { /* A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0) */
  ct_tensor a = NULL;
  OK(ct_empty((int64_t[]){100, 100}, 2, CT_FLOAT32, CT_CUDA, 0, &a));
  OK(ct_tensor_normal_(a, 0.0, 1.0, NULL));
  return a;
}

static ct_tensor sum_all(ct_tensor a) {
  ct_tensor b = NULL;
  OK(ct_reduce(CT_SUM, a, NULL, 0, 0, CT_DTYPE_UNDEFINED, &b));
  return b;
}

static void test_modes_and_errors(void) {
  ct_csan_mode m = -1;
  OK(ct_cuda_sanitizer_mode(&m));
  const char* env = getenv("CTORCH_CUDA_SANITIZER"); /* read when the library was loaded */
  EXPECT_EQ_I(m, !env ? CT_CSAN_OFF : strcmp(env, "warn") == 0 ? CT_CSAN_WARN : CT_CSAN_ERROR);
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_WARN));
  OK(ct_cuda_sanitizer_mode(&m));
  EXPECT_EQ_I(m, CT_CSAN_WARN);
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_ERROR));
  OK(ct_cuda_sanitizer_mode(&m));
  EXPECT_EQ_I(m, CT_CSAN_ERROR);
  FAILS(ct_cuda_sanitizer_set_mode(3), CT_ERR_ARGUMENT, "unknown sanitizer mode 3");
  FAILS(ct_cuda_sanitizer_set_mode(-1), CT_ERR_ARGUMENT, "CT_CSAN_");
  OK(ct_cuda_sanitizer_mode(&m));
  EXPECT_EQ_I(m, CT_CSAN_ERROR); /* a refused mode changes nothing */
  FAILS(ct_cuda_sanitizer_mode(NULL), CT_ERR_NULL_POINTER, "'out'");
  FAILS(ct_cuda_sanitizer_report_count(NULL), CT_ERR_NULL_POINTER, "'out'");
  int64_t n = -1;
  OK(ct_cuda_sanitizer_report_count(&n));
  EXPECT(n >= 0);
  /* CPU tensors are never checked: ops on them succeed in error mode */
  ct_tensor a = NULL, b = NULL, c = NULL;
  OK(ct_ones((int64_t[]){4}, 1, CT_FLOAT32, CT_CPU, -1, &a));
  OK(ct_binary(CT_ADD, a, a, &b));
  OK(ct_binary_(CT_ADD, b, a));
  OK(ct_reduce(CT_SUM, b, NULL, 0, 0, CT_DTYPE_UNDEFINED, &c));
  EXPECT_VALS(c, 0, 12.0);
  int64_t n2 = -1;
  OK(ct_cuda_sanitizer_report_count(&n2));
  EXPECT_EQ_I(n2, n);
  rel(a), rel(b), rel(c);
  sanitizer_off();
}

/* The seed's CUDA semantics example: sum() on a side stream may start before normal_() on the
 * default stream finishes. Reported without wait_stream, silent with it. */
static void test_seed_side_stream_example(void) {
  SKIP_WITHOUT_CUDA();
  warn_into_counter();
  ct_stream s = NULL, prev = NULL;
  OK(ct_stream_create(0, 0, &s));
  OK(ct_stream_current(0, &prev));
  ct_tensor a = cuda_normal();
  OK(ct_stream_set_current(s));
  ct_tensor b = sum_all(a); /* sum() may start before normal_() finishes */
  OK(ct_stream_set_current(prev));
  EXPECT_EQ_I(g_reports, 1);
  EXPECT(strstr(g_last, "CSAN detected a possible data race on tensor with data pointer") != NULL);
  EXPECT(strstr(g_last, "during kernel:\nsum\nreading from argument(s) self\n") != NULL);
  EXPECT(strstr(g_last, "during kernel:\nnormal_\nwriting to argument(s) self\n") != NULL);
  EXPECT(strstr(g_last, "Tensor: torch.float32[100, 100] on cuda:0") != NULL);
  rel(a), rel(b);
  /* the same with s.wait_stream(torch.cuda.current_stream()) first */
  g_reports = 0;
  a = cuda_normal();
  OK(ct_stream_wait_stream(s, prev));
  OK(ct_stream_set_current(s));
  b = sum_all(a);
  OK(ct_stream_set_current(prev));
  EXPECT_EQ_I(g_reports, 0);
  /* and back on the default stream: reading the result of s needs a wait too */
  ct_tensor c = NULL;
  OK(ct_binary(CT_MUL, b, b, &c));
  EXPECT_EQ_I(g_reports, 1);
  EXPECT(strstr(g_last, "during kernel:\nmul\nreading from argument(s) self, other\n") != NULL);
  rel(c);
  OK(ct_stream_wait_stream(prev, s));
  OK(ct_binary(CT_MUL, b, b, &c));
  EXPECT_EQ_I(g_reports, 1);
  OK(ct_stream_synchronize(s));
  rel(a), rel(b), rel(c);
  OK(ct_stream_release(s));
  OK(ct_stream_release(prev));
  sanitizer_off();
}

/* A tensor made on a side stream and used on the default stream: record_stream keeps its memory
 * for the default stream's use, and an event recorded on the side stream and waited for by the
 * default stream orders the read after the write: silent. */
static void test_record_stream_and_event_wait(void) {
  SKIP_WITHOUT_CUDA();
  warn_into_counter();
  ct_stream s = NULL, prev = NULL;
  ct_event e = NULL;
  OK(ct_stream_create(0, 0, &s));
  OK(ct_stream_current(0, &prev));
  OK(ct_event_create(0, &e));
  OK(ct_stream_set_current(s));
  ct_tensor x = cuda_normal(); /* allocated and written on s */
  OK(ct_stream_set_current(prev));
  OK(ct_tensor_record_stream(x, prev));
  OK(ct_stream_record_event(s, e));
  OK(ct_stream_wait_event(prev, e));
  ct_tensor y = sum_all(x);
  EXPECT_EQ_I(g_reports, 0);
  /* a later write on s without a wait for the default stream's read races with it */
  OK(ct_stream_set_current(s));
  OK(ct_tensor_normal_(x, 0.0, 1.0, NULL));
  OK(ct_stream_set_current(prev));
  EXPECT_EQ_I(g_reports, 1);
  EXPECT(strstr(g_last, "during kernel:\nnormal_\nwriting to argument(s) self\n") != NULL);
  EXPECT(strstr(g_last, "Previous access by stream") != NULL);
  /* host waits order everything: a stream synchronize, then an event synchronize */
  OK(ct_stream_synchronize(s));
  ct_tensor z = sum_all(x);
  EXPECT_EQ_I(g_reports, 1);
  OK(ct_stream_wait_stream(s, prev)); /* s writes after the default stream's read */
  OK(ct_stream_set_current(s));
  OK(ct_tensor_normal_(x, 0.0, 1.0, NULL));
  OK(ct_stream_record_event(s, e));
  OK(ct_stream_set_current(prev));
  OK(ct_event_synchronize(e));
  rel(z);
  z = sum_all(x);
  EXPECT_EQ_I(g_reports, 1);
  /* a copy to the host (item) waits for its stream */
  OK(ct_stream_wait_stream(s, prev));
  OK(ct_stream_set_current(s));
  OK(ct_tensor_normal_(x, 0.0, 1.0, NULL));
  ct_tensor one = sum_all(x);
  double v = 0;
  OK(ct_tensor_item_double(one, &v));
  OK(ct_stream_set_current(prev));
  rel(z), rel(one);
  z = sum_all(x);
  EXPECT_EQ_I(g_reports, 1);
  /* and a device synchronize waits for every stream */
  OK(ct_stream_wait_stream(s, prev));
  OK(ct_stream_set_current(s));
  OK(ct_tensor_normal_(x, 0.0, 1.0, NULL));
  OK(ct_stream_set_current(prev));
  OK(ct_cuda_synchronize(0));
  rel(z);
  z = sum_all(x);
  EXPECT_EQ_I(g_reports, 1);
  rel(x), rel(y), rel(z);
  OK(ct_event_release(e));
  OK(ct_stream_release(s));
  OK(ct_stream_release(prev));
  sanitizer_off();
}

/* Error mode: the racing op fails with CT_ERR_DATA_RACE (its kernel was queued), the next call
 * works; two views of one storage are one memory. */
static void test_error_mode_and_views(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_OFF));
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_ERROR));
  int64_t n0 = 0, n1 = 0;
  OK(ct_cuda_sanitizer_report_count(&n0));
  ct_stream s = NULL, prev = NULL;
  OK(ct_stream_create(0, 0, &s));
  OK(ct_stream_current(0, &prev));
  ct_tensor a = cuda_normal(), top = NULL, bottom = NULL, out = NULL;
  OK(ct_slice(a, 0, 0, 50, 1, &top));
  OK(ct_slice(a, 0, 50, 100, 1, &bottom));
  OK(ct_stream_set_current(s));
  FAILS(ct_unary(CT_NEG, bottom, &out), CT_ERR_DATA_RACE, "CSAN detected a possible data race");
  EXPECT(out == NULL);
  EXPECT(strstr(ct_last_error_message(), "The CUDA stream sanitizer detected 1 error (neg") != NULL);
  OK(ct_cuda_sanitizer_report_count(&n1));
  EXPECT_EQ_I(n1, n0 + 1);
  OK(ct_stream_wait_stream(s, prev)); /* now s is after normal_ */
  OK(ct_unary(CT_NEG, bottom, &out));
  rel(out);
  /* a write of the other half on the default stream: one storage, read on s */
  OK(ct_stream_set_current(prev));
  FAILS(ct_tensor_normal_(top, 0.0, 1.0, NULL), CT_ERR_DATA_RACE, "writing to argument(s) self");
  OK(ct_stream_synchronize(s));
  OK(ct_tensor_normal_(top, 0.0, 1.0, NULL));
  rel(a), rel(top), rel(bottom);
  OK(ct_stream_release(s));
  OK(ct_stream_release(prev));
  sanitizer_off();
}

TEST_MAIN(TEST_CASE(modes_and_errors), TEST_CASE(seed_side_stream_example), TEST_CASE(record_stream_and_event_wait),
          TEST_CASE(error_mode_and_views))
