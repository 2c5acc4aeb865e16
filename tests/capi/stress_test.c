/* Eight threads at once through the C API, for ThreadSanitizer (bazel test --config=tsan; Note
 * [TSan] below) and as a plain suite: tensor handles created, retained and released (also by
 * threads that did not make them), views of one shared tensor, elementwise ops, reductions,
 * repr, thread-local error messages, generators (a shared one, private ones, the default one
 * reseeded while others draw), events, and streams (their CPU errors without a GPU, real
 * streams with one). Every value is checked against one computed by hand or by a
 * single-threaded run, and every live handle count returns to where it started. The caching
 * allocator's policy under eight threads is tests/impl/caching_allocator_test.cc's
 * EightThreadsShareOneAllocator (its fake device).
 *
 * Note [TSan]: what runs under ThreadSanitizer, and how.
 * - --config=tsan (.bazelrc) builds libctorch.so and the C and C++ suites with
 *   -fsanitize=thread, under its own platform suffix; tools/test.sh runs the suites whose
 *   threads run without a GPU: this one, nvtx_test, and tests/impl's caching_allocator_test and
 *   plan_cache_test. TSAN_OPTIONS: halt_on_error=1 (the first report fails the test),
 *   second_deadlock_stack=1, allocator_may_return_null=1 (the suites ask for absurd sizes and
 *   expect CT_ERR_OUT_OF_MEMORY, as under ASan).
 * - The host code with state of its own is plain C++ and instrumented (impl/cuda/runtime.cc's
 *   probe and current device); the .cu files (kernels and their launches), the CUDA runtime and
 *   the driver are not, and TSan runs without a GPU (Note [Sanitizers and nvcc] in
 *   tools/cuda.bzl).
 * - OpenMP teams have one thread (CT_NUM_THREADS=1 and OMP_NUM_THREADS=1 in the config's test
 *   environment). GCC's libgomp is not instrumented and starts and joins its teams through
 *   futexes TSan cannot see (LLVM's libomp carries TSan annotations and the Archer tool for
 *   this; the build uses GCC), so every parallel_for over a large tensor is reported: with two
 *   threads, capi_test's test_large_parallel stops at "data race ... parallel.h:30 ...
 *   Location is stack of main thread", a worker reading the loop's arguments the caller wrote
 *   before the team started.
 *   With teams of one, parallel_for runs its body on the calling thread
 *   (impl/ops/cpu/parallel.h) and cpu_random.cc's omp loop runs inline: TSan checks what ctorch
 *   shares between its caller's threads (handle tables, reference counts, generators, the
 *   allocators, error messages, caches), not OpenMP's own hand-offs.
 * - No suppressions: no report has come from third-party code (OpenBLAS, FFTW, NVRTC and NCCL
 *   are loaded with dlopen and uninstrumented). One would be added only for third-party code,
 *   with the report that shows it is not ctorch's. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */
#include <pthread.h>
#include <stdint.h>

#include "tests/capi/test_util.h"

#define NTHREADS 8

static int iters(int dflt) { /* CT_STRESS_ITERS overrides, for longer runs by hand */
  const char* e = getenv("CT_STRESS_ITERS");
  int v = e ? atoi(e) : 0;
  return v > 0 ? v : dflt;
}

/* Starts fn(i) on NTHREADS threads and joins them. The workers check with test_util.h's
 * macros, whose failure count is atomic. */
static pthread_barrier_t g_start; /* the workers start together */

static void run_threads(void* (*fn)(void*)) {
  pthread_t th[NTHREADS];
  intptr_t ids[NTHREADS];
  pthread_barrier_init(&g_start, NULL, NTHREADS);
  for (int i = 0; i < NTHREADS; ++i) {
    ids[i] = i;
    if (pthread_create(&th[i], NULL, fn, &ids[i]) != 0) FAILF("pthread_create %d", i);
  }
  for (int i = 0; i < NTHREADS; ++i) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&g_start);
}

static double sum_of(ct_tensor t) { /* the sum of all elements, as a double (-1e300 on error) */
  ct_tensor s = NULL;
  double v = -1e300;
  if (ct_reduce(CT_SUM, t, NULL, 0, 0, CT_FLOAT64, &s) != CT_OK || ct_tensor_item_double(s, &v) != CT_OK)
    FAILF("sum: %s", ct_last_error_message());
  if (s) ct_tensor_release(s);
  return v;
}

static void live_counts(int64_t c[4]) {
  ct_live_tensor_count(&c[0]);
  ct_live_generator_count(&c[1]);
  ct_live_event_count(&c[2]);
  ct_live_stream_count(&c[3]);
}

static void expect_live_counts(const int64_t before[4]) {
  static const char* names[4] = {"tensor", "generator", "event", "stream"};
  int64_t after[4];
  live_counts(after);
  for (int i = 0; i < 4; ++i)
    if (after[i] != before[i]) FAILF("live %s handles: %lld before, %lld after", names[i], (long long)before[i],
                                     (long long)after[i]);
}

/* ---- mailboxes: a thread hands handles to the next one, which checks and releases them ---- */

enum { MAIL_TENSOR, MAIL_VIEW, MAIL_EVENT };
typedef struct {
  int kind;
  void* h;
  int from, iter;
} mail;
#define BOX_CAP 64
typedef struct {
  pthread_mutex_t mu;
  mail items[BOX_CAP];
  int n;
} mailbox;
static mailbox g_box[NTHREADS];

static ct_tensor g_base; /* arange(4096) as float64 [64, 64], shared by every thread */

static int post(int to, mail m) { /* 0 when the box is full (the sender keeps the handle) */
  mailbox* b = &g_box[to];
  pthread_mutex_lock(&b->mu);
  int ok = b->n < BOX_CAP;
  if (ok) b->items[b->n++] = m;
  pthread_mutex_unlock(&b->mu);
  return ok;
}

/* Checks a handle another thread made and drops it: a tensor full(from * 100000 + iter) of 8
 * float64s; a row view of g_base (row iter % 64) retained by the sender; an event retained once
 * by the sender (never recorded, so done). */
static void consume(mail m) {
  if (m.kind == MAIL_TENSOR) {
    ct_tensor t = (ct_tensor)m.h;
    EXPECT_EQ_D(sum_of(t), 8.0 * (m.from * 100000 + m.iter));
    OK(ct_tensor_release(t));
  } else if (m.kind == MAIL_VIEW) {
    ct_tensor v = (ct_tensor)m.h;
    int64_t r = m.iter % 64;
    EXPECT_EQ_D(sum_of(v), 4096.0 * r + 2016.0);
    int32_t shares = 0;
    OK(ct_tensor_shares_storage(v, g_base, &shares));
    EXPECT_EQ_D(shares, 1);
    OK(ct_tensor_release(v)); /* the sender's retain */
    OK(ct_tensor_release(v)); /* the view itself */
  } else {
    ct_event e = (ct_event)m.h;
    int32_t done = 0;
    OK(ct_event_query(e, &done));
    EXPECT_EQ_D(done, 1);
    OK(ct_event_synchronize(e));
    OK(ct_event_release(e));
    OK(ct_event_release(e));
  }
}

static void drain(int id) {
  mailbox* b = &g_box[id];
  mail got[BOX_CAP];
  pthread_mutex_lock(&b->mu);
  int n = b->n;
  memcpy(got, b->items, (size_t)n * sizeof(mail));
  b->n = 0;
  pthread_mutex_unlock(&b->mu);
  for (int i = 0; i < n; ++i) consume(got[i]);
}

/* ---- test 1: handles, views, ops, reductions, repr, errors, events, streams ---- */

/* Views of the shared g_base (element [r][c] = 64r + c), each summed against its closed form. */
static void shared_views(int r) {
  OK(ct_tensor_retain(g_base));
  ct_tensor row = NULL, tr = NULL, col = NULL, nar = NULL, sl = NULL, slrow = NULL;
  OK(ct_select(g_base, 0, r, &row));
  EXPECT_EQ_D(sum_of(row), 4096.0 * r + 2016.0);
  OK(ct_transpose(g_base, 0, 1, &tr));
  OK(ct_select(tr, 0, r, &col)); /* column r: sum over j of 64j + r */
  EXPECT_EQ_D(sum_of(col), 129024.0 + 64.0 * r);
  OK(ct_narrow(row, 0, 10, 5, &nar));
  EXPECT_EQ_D(sum_of(nar), 5.0 * 64 * r + 60.0);
  OK(ct_slice(g_base, 1, 1, 64, 2, &sl)); /* the odd columns */
  OK(ct_select(sl, 0, r, &slrow));
  EXPECT_EQ_D(sum_of(slrow), 2048.0 * r + 1024.0);
  int64_t off = -1;
  OK(ct_tensor_storage_offset(slrow, &off));
  EXPECT_EQ_D(off, 64 * r + 1);
  ct_tensor vs[] = {row, tr, col, nar, sl, slrow};
  for (int i = 0; i < 6; ++i) OK(ct_tensor_release(vs[i]));
  OK(ct_tensor_release(g_base)); /* the retain above */
}

/* A tensor of this thread's own: ops in and out of place, reductions, repr. */
static void own_tensor(int id, int k) {
  int64_t b = (id + 1) * 1000 + k % 500; /* four digits: torch pads the repr's ints to one width */
  ct_tensor a = NULL, m = NULL, n = NULL, s = NULL, am = NULL, f = NULL, mean = NULL, small = NULL;
  OK(ct_arange((double)b, (double)(b + 32), 1, CT_INT64, CT_CPU, -1, &a));
  OK(ct_view(a, (int64_t[]){4, 8}, 2, &m));
  OK(ct_binary_scalar_i(CT_MUL, m, 3, 0, &n)); /* 3 * (b + j) */
  EXPECT_EQ_D(sum_of(n), 3.0 * (32 * b + 496));
  OK(ct_reduce(CT_AMAX, n, NULL, 0, 0, CT_DTYPE_UNDEFINED, &am));
  int64_t mx = -1;
  OK(ct_tensor_item_int64(am, &mx));
  EXPECT_EQ_D(mx, 3 * (b + 31));
  OK(ct_binary(CT_SUB, n, m, &s)); /* 2 * (b + j) */
  OK(ct_unary_(CT_NEG, s));
  EXPECT_EQ_D(sum_of(s), -2.0 * (32 * b + 496));
  OK(ct_binary_scalar_i_(CT_ADD, m, 1)); /* in place through the view: a is b + 1 + j */
  EXPECT_EQ_D(sum_of(a), 32.0 * (b + 1) + 496);
  OK(ct_tensor_to(a, CT_CPU, -1, CT_FLOAT64, 0, 0, &f));
  OK(ct_reduce(CT_MEAN, f, NULL, 0, 0, CT_DTYPE_UNDEFINED, &mean));
  double mv = 0;
  OK(ct_tensor_item_double(mean, &mv));
  EXPECT_EQ_D(mv, (double)b + 1 + 15.5);
  OK(ct_narrow(a, 0, 0, 3, &small));
  char want[96], got[96];
  snprintf(want, sizeof want, "tensor([%lld, %lld, %lld])", (long long)b + 1, (long long)b + 2, (long long)b + 3);
  int64_t need = -1;
  OK(ct_tensor_repr(small, got, sizeof got, &need));
  if (strcmp(got, want) != 0) FAILF("repr is %s, expected %s", got, want);
  EXPECT_EQ_D(need, strlen(want));
  ct_tensor all[] = {a, m, n, s, am, f, mean, small};
  for (int i = 0; i < 8; ++i) OK(ct_tensor_release(all[i]));
}

/* Errors are per thread: each thread's message names its own argument. */
static void own_errors(int id) {
  ct_tensor t = NULL;
  OK(ct_zeros((int64_t[]){2, 3}, 2, CT_FLOAT32, CT_CPU, -1, &t));
  int64_t x;
  char needle[32];
  snprintf(needle, sizeof needle, "but got %d)", 10 + id);
  FAILS(ct_tensor_size(t, 10 + id, &x), CT_ERR_INDEX, needle);
  OK(ct_tensor_release(t));
  FAILS(ct_tensor_release(t), CT_ERR_INVALID_HANDLE, "already released");
}

/* Streams: the CPU errors without a GPU; a stream, an event recorded on it and a wait with one. */
static void streams(int id) {
  ct_stream s = NULL;
  int32_t n = -1;
  OK(ct_cuda_device_count(&n)); /* runtime.cc's probe, from every thread */
  EXPECT_EQ_D(n, g_cuda);
  if (!g_cuda) {
    FAILS(ct_cuda_current_device(&n), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
    FAILS(ct_stream_create(-1, 0, &s), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
    if (s) FAILF("a failed ct_stream_create set *out");
    return;
  }
  ct_event e = NULL;
  ct_tensor t = NULL;
  OK(ct_stream_create(0, 0, &s));
  OK(ct_event_create(CT_EVENT_DEFAULT, &e));
  OK(ct_full((int64_t[]){256}, 1, (double)id, CT_FLOAT32, CT_CUDA, 0, &t));
  OK(ct_tensor_record_stream(t, s));
  OK(ct_event_record(e, s));
  OK(ct_stream_wait_event(s, e));
  OK(ct_stream_synchronize(s));
  EXPECT_EQ_D(sum_of(t), 256.0 * id);
  OK(ct_tensor_release(t));
  OK(ct_event_release(e));
  OK(ct_stream_release(s));
}

static void* handles_worker(void* arg) {
  int id = (int)*(intptr_t*)arg, next = (id + 1) % NTHREADS, n = iters(500);
  pthread_barrier_wait(&g_start);
  for (int k = 0; k < n; ++k) {
    shared_views((id * 7 + k) % 64);
    own_tensor(id, k);
    if (k % 8 == id % 8) own_errors(id);
    if (k % 16 == 0) streams(id);
    /* hand three handles to the next thread: a new tensor, a retained view, a retained event */
    ct_tensor t = NULL, v = NULL;
    ct_event e = NULL;
    OK(ct_full((int64_t[]){8}, 1, (double)(id * 100000 + k), CT_FLOAT64, CT_CPU, -1, &t));
    OK(ct_select(g_base, 0, k % 64, &v));
    OK(ct_tensor_retain(v));
    OK(ct_event_create(CT_EVENT_DEFAULT, &e));
    OK(ct_event_retain(e));
    mail ms[] = {{MAIL_TENSOR, t, id, k}, {MAIL_VIEW, v, id, k}, {MAIL_EVENT, e, id, k}};
    for (int i = 0; i < 3; ++i)
      if (!post(next, ms[i])) consume(ms[i]); /* a full box: check and drop it here */
    drain(id);
    int64_t live = -1;
    OK(ct_live_tensor_count(&live));
    if (live < 1) FAILF("live tensor count %lld with g_base alive", (long long)live);
  }
  return NULL;
}

static void test_handles_views_ops(void) {
  int64_t before[4];
  live_counts(before);
  ct_tensor a = NULL;
  OK(ct_arange(0, 4096, 1, CT_FLOAT64, CT_CPU, -1, &a));
  OK(ct_view(a, (int64_t[]){64, 64}, 2, &g_base));
  rel(a);
  for (int i = 0; i < NTHREADS; ++i) pthread_mutex_init(&g_box[i].mu, NULL);
  run_threads(handles_worker);
  for (int i = 0; i < NTHREADS; ++i) drain(i); /* what the last posts left */
  for (int i = 0; i < NTHREADS; ++i) pthread_mutex_destroy(&g_box[i].mu);
  EXPECT(sum_of(g_base) == 4095.0 * 4096 / 2); /* nobody wrote to it */
  rel(g_base);
  g_base = NULL;
  expect_live_counts(before);
}

/* ---- test 2: generators ---- */

#define DRAWS 64 /* per thread from the shared generator */
static ct_generator g_shared_gen;
static double g_drawn[NTHREADS][DRAWS][4];
static double g_private_want[NTHREADS][5];

static void draw4(ct_generator g, double out[4]) {
  ct_tensor t = NULL;
  OK(ct_rand((int64_t[]){4}, 1, CT_FLOAT64, CT_CPU, -1, g, &t));
  OK(ct_tensor_copy_to_buffer(t, out, 32));
  OK(ct_tensor_release(t));
}

static void randn5(ct_generator g, double out[5]) {
  ct_tensor t = NULL;
  OK(ct_randn((int64_t[]){5}, 1, CT_FLOAT64, CT_CPU, -1, g, &t));
  OK(ct_tensor_copy_to_buffer(t, out, 40));
  OK(ct_tensor_release(t));
}

static void* generators_worker(void* arg) {
  int id = (int)*(intptr_t*)arg;
  ct_generator mine = NULL;
  pthread_barrier_wait(&g_start);
  OK(ct_generator_retain(g_shared_gen));
  OK(ct_generator_create(CT_CPU, -1, &mine));
  for (int k = 0; k < DRAWS; ++k) {
    /* the shared generator: every draw takes offsets no other draw takes */
    draw4(g_shared_gen, g_drawn[id][k]);
    /* a private generator gives what one thread alone gets with the same seed */
    double got[5];
    OK(ct_generator_manual_seed(mine, 1000 + id));
    randn5(mine, got);
    for (int i = 0; i < 5; ++i) EXPECT_EQ_D(got[i], g_private_want[id][i]);
    /* its state round-trips while the others draw */
    unsigned char st[CT_RNG_STATE_SIZE];
    int64_t need = 0;
    double again[5];
    OK(ct_generator_get_state(mine, st, sizeof st, &need));
    randn5(mine, got);
    OK(ct_generator_set_state(mine, st, need));
    randn5(mine, again);
    for (int i = 0; i < 5; ++i) EXPECT_EQ_D(again[i], got[i]);
    /* the default generator, reseeded by two threads while the others draw from it */
    if (id < 2) {
      OK(ct_manual_seed(77));
    } else {
      double u[4];
      draw4(NULL, u);
      for (int i = 0; i < 4; ++i)
        if (!(u[i] >= 0 && u[i] < 1)) FAILF("rand gave %g", u[i]);
    }
  }
  OK(ct_generator_release(mine));
  OK(ct_generator_release(g_shared_gen));
  return NULL;
}

static int cmp4(const void* a, const void* b) { /* lexicographic */
  const double *x = (const double*)a, *y = (const double*)b;
  for (int i = 0; i < 4; ++i)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

static void test_generators(void) {
  int64_t before[4];
  live_counts(before);
  int failed0 = g_failed_checks;
  /* single-threaded references: the shared generator's draws and each private seed's randn */
  static double want[NTHREADS * DRAWS][4];
  ct_generator ref = NULL;
  OK(ct_generator_create(CT_CPU, -1, &ref));
  OK(ct_generator_manual_seed(ref, 1234));
  for (int k = 0; k < NTHREADS * DRAWS; ++k) draw4(ref, want[k]);
  for (int i = 0; i < NTHREADS; ++i) {
    OK(ct_generator_manual_seed(ref, 1000 + i));
    randn5(ref, g_private_want[i]);
  }
  OK(ct_generator_manual_seed(ref, 1234)); /* the offset NTHREADS * DRAWS draws leave */
  for (int k = 0; k < NTHREADS * DRAWS; ++k) {
    double skip[4];
    draw4(ref, skip);
  }
  int64_t want_offset = -1;
  OK(ct_generator_offset(ref, &want_offset));
  OK(ct_generator_release(ref));
  if (g_failed_checks != failed0) return; /* the single-threaded references failed */

  OK(ct_generator_create(CT_CPU, -1, &g_shared_gen));
  OK(ct_generator_manual_seed(g_shared_gen, 1234));
  run_threads(generators_worker);
  int64_t off = -1;
  OK(ct_generator_offset(g_shared_gen, &off));
  EXPECT_EQ_I(off, want_offset);
  OK(ct_generator_release(g_shared_gen));
  /* the threads' draws are the single thread's, in some order */
  qsort(want, NTHREADS * DRAWS, sizeof want[0], cmp4);
  qsort(g_drawn, NTHREADS * DRAWS, sizeof want[0], cmp4);
  int differ = memcmp(want, g_drawn, sizeof want);
  if (differ) FAILF("the eight threads' draws from one generator are not the single thread's draws");
  int64_t seed = -1;
  OK(ct_initial_seed(&seed));
  EXPECT_EQ_I(seed, 77);
  expect_live_counts(before);
}

TEST_MAIN(TEST_CASE(handles_views_ops), TEST_CASE(generators))
