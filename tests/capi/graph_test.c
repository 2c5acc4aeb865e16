/* Section 19 of ctorch.h: CUDA graphs. Values are computed by hand (replays against the eager
 * ops, random replays against eager draws at the same generator offsets); the comparison
 * with torch.cuda's graphs is tests/gpu/graph_compare.py. */
#include <pthread.h>

#include "tests/capi/test_util.h"

#define N 1000

static ct_tensor cuda_arange(double scale) { /* scale * [0, 1, ..., N-1] on cuda:0 */
  ct_tensor a = NULL, b = NULL;
  OK(ct_arange(0, N, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  OK(ct_binary_scalar_f(CT_MUL, a, scale, 0, &b));
  rel(a);
  return b;
}

/* out = (x * 2 + 1).exp().neg() through temporaries (freed during the capture) */
static ct_tensor chain(ct_tensor x) {
  ct_tensor a = NULL, b = NULL, c = NULL, d = NULL;
  OK(ct_binary_scalar_f(CT_MUL, x, 2.0, 0, &a));
  OK(ct_binary_scalar_f(CT_ADD, a, 1.0, 0, &b));
  OK(ct_binary_scalar_f(CT_MUL, b, 1e-4, 0, &c));
  OK(ct_unary(CT_EXP, c, &d));
  rel(a), rel(b), rel(c);
  ct_tensor e = NULL;
  OK(ct_unary(CT_NEG, d, &e));
  rel(d);
  return e;
}

static void expect_chain(ct_tensor out, double scale) {
  double want[N];
  for (int i = 0; i < N; ++i) want[i] = -exp((float)((float)((float)(scale * i) * 2.0f + 1.0f) * 1e-4f));
  expect_vals_(out, want, N, 1e-6, "chain", __LINE__);
}

static int64_t stat(const char* key) {
  int64_t v = -1;
  OK(ct_cuda_memory_stat(0, key, &v));
  return v;
}

/* A side stream current on cuda:0 for a test; restored by side_end. */
typedef struct {
  ct_stream side, prev;
} side_stream;
static side_stream side_begin(void) {
  side_stream s = {NULL, NULL};
  OK(ct_stream_create(0, 0, &s.side));
  OK(ct_stream_current(0, &s.prev));
  OK(ct_stream_wait_stream(s.side, s.prev)); /* the side stream's work comes after what came before */
  OK(ct_stream_set_current(s.side));
  return s;
}
static void side_end(side_stream s) {
  OK(ct_stream_synchronize(s.side));
  OK(ct_stream_set_current(s.prev));
  OK(ct_stream_release(s.prev));
  OK(ct_stream_release(s.side));
}

static ct_status noop_fn(void* ctx) {
  (void)ctx;
  return CT_OK;
}

/* A new graph capturing (mode, a new pool) on a new side stream, current until side_end(*s). */
static ct_cuda_graph begin_capture(side_stream* s, ct_capture_mode mode) {
  ct_cuda_graph g = NULL;
  OK(ct_cuda_graph_create(&g));
  *s = side_begin();
  OK(ct_cuda_graph_capture_begin(g, 0, mode));
  return g;
}

static void test_handles_and_errors(void) {
  int64_t live0 = -1, live = -1;
  OK(ct_live_cuda_graph_count(&live0));
  ct_cuda_graph g = NULL;
  OK(ct_cuda_graph_create(&g));
  OK(ct_live_cuda_graph_count(&live));
  EXPECT_EQ_I(live, live0 + 1);
  OK(ct_cuda_graph_retain(g));
  OK(ct_cuda_graph_release(g));
  FAILS(ct_cuda_graph_create(NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_cuda_graph_replay(NULL), CT_ERR_INVALID_HANDLE, "NULL CUDA graph");
  FAILS(ct_cuda_graph_capture_begin(g, 0, 7), CT_ERR_ARGUMENT, "unknown capture error mode 7");
  FAILS(ct_cuda_graph_capture_begin(g, 0, -1), CT_ERR_ARGUMENT, "capture error mode");
  ct_tensor t = NULL;
  OK(ct_zeros((int64_t[]){2}, 1, CT_FLOAT32, CT_CPU, -1, &t));
  FAILS(ct_cuda_graph_replay((ct_cuda_graph)t), CT_ERR_INVALID_HANDLE, "not a ctorch CUDA graph");
  ct_cuda_graphed c = NULL;
  FAILS(ct_cuda_make_graphed_callable(NULL, NULL, NULL, 0, 3, 0, &c), CT_ERR_NULL_POINTER, "fn");
  FAILS(ct_cuda_make_graphed_callable(noop_fn, NULL, NULL, 0, 3, 0, NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_cuda_graphed_run(NULL, NULL, 0), CT_ERR_INVALID_HANDLE, "NULL graphed callable");
  FAILS(ct_cuda_graph_debug_dump(g, NULL), CT_ERR_NULL_POINTER, "path");
  FAILS(ct_cuda_graph_capture_exit(g, NULL, 0), CT_ERR_INVALID_HANDLE, "NULL stream");
  ct_cuda_graph gg = NULL;
  FAILS(ct_cuda_graphed_graph(NULL, &gg), CT_ERR_INVALID_HANDLE, "NULL graphed callable");
  FAILS(ct_cuda_graphed_graph((ct_cuda_graphed)g, &gg), CT_ERR_INVALID_HANDLE, "not a ctorch graphed callable");
  FAILS(ct_cuda_graphed_retain(NULL), CT_ERR_INVALID_HANDLE, "NULL graphed callable");
  FAILS(ct_cuda_graphed_release(NULL), CT_ERR_INVALID_HANDLE, "NULL graphed callable");
  EXPECT(gg == NULL);
  int64_t live_c = -1;
  OK(ct_live_cuda_graphed_count(&live_c));
  EXPECT_EQ_I(live_c, 0);
  int32_t capturing = -1;
  OK(ct_cuda_is_current_stream_capturing(&capturing));
  EXPECT_EQ_I(capturing, 0);
  OK(ct_cuda_graph_release(g));
  FAILS(ct_cuda_graph_release(g), CT_ERR_INVALID_HANDLE, "already released");
  OK(ct_live_cuda_graph_count(&live));
  EXPECT_EQ_I(live, live0);
  rel(t);
}

static void test_without_gpu(void) {
  if (g_cuda) {
    printf("  (a GPU is present: the no-CUDA errors are not reachable)\n");
    return;
  }
  ct_cuda_graph g = NULL;
  OK(ct_cuda_graph_create(&g));
  FAILS(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_graph_capture_end(g), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_graph_replay(g), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_graph_reset(g), CT_ERR_CUDA_UNAVAILABLE, "");
  int64_t pool = 0;
  FAILS(ct_cuda_graph_pool(g, &pool), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_graph_pool_handle(&pool), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_graph_enable_debug_mode(g), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_graph_debug_dump(g, "/tmp/x.dot"), CT_ERR_CUDA_UNAVAILABLE, "");
  ct_stream prev = NULL;
  int32_t prev_dev = -7;
  FAILS(ct_cuda_graph_capture_enter(g, 0, CT_CAPTURE_MODE_GLOBAL, NULL, &prev, &prev_dev), CT_ERR_CUDA_UNAVAILABLE, "");
  EXPECT(prev == NULL && prev_dev == -7); /* out-parameters untouched on failure */
  ct_cuda_graphed c = NULL;
  FAILS(ct_cuda_make_graphed_callable(noop_fn, NULL, NULL, 0, 3, 0, &c), CT_ERR_CUDA_UNAVAILABLE, "");
  EXPECT(c == NULL);
  OK(ct_cuda_graph_release(g));
}

static void test_default_stream_refused(void) {
  SKIP_WITHOUT_CUDA();
  ct_cuda_graph g = NULL;
  OK(ct_cuda_graph_create(&g));
  FAILS(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL), CT_ERR_STATE,
        "CUDA graphs must be captured on a non-default stream");
  FAILS(ct_cuda_graph_capture_end(g), CT_ERR_STATE, "capture_end() called before capture_begin()");
  FAILS(ct_cuda_graph_replay(g), CT_ERR_STATE, "without a preceding successful capture");
  int64_t pool = 0;
  FAILS(ct_cuda_graph_pool(g, &pool), CT_ERR_STATE, "without a preceding successful capture");
  FAILS(ct_cuda_graph_capture_begin(g, 1LL << 60, CT_CAPTURE_MODE_GLOBAL), CT_ERR_ARGUMENT, "is not a memory pool id");
  OK(ct_cuda_graph_release(g));
}

static void test_capture_and_replay(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor x = cuda_arange(1.0), x2 = cuda_arange(0.5);
  side_stream s;
  ct_cuda_graph g = begin_capture(&s, CT_CAPTURE_MODE_GLOBAL);
  int32_t capturing = 0;
  OK(ct_cuda_is_current_stream_capturing(&capturing));
  EXPECT_EQ_I(capturing, 1);
  FAILS(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL), CT_ERR_STATE, "already owns a captured graph");
  ct_tensor y = chain(x);
  OK(ct_cuda_graph_capture_end(g));
  OK(ct_cuda_is_current_stream_capturing(&capturing));
  EXPECT_EQ_I(capturing, 0);
  OK(ct_cuda_graph_replay(g));
  expect_chain(y, 1.0);
  OK(ct_tensor_copy_(x, x2, 0)); /* new values in the static input */
  OK(ct_cuda_graph_replay(g));
  expect_chain(y, 0.5);
  side_end(s);
  /* replaying on the default stream is fine */
  OK(ct_tensor_copy_(x, x2, 0));
  OK(ct_binary_scalar_f_(CT_MUL, x, 4.0));
  OK(ct_cuda_graph_replay(g));
  expect_chain(y, 2.0);
  FAILS(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL), CT_ERR_STATE, "already owns a captured graph");
  OK(ct_cuda_graph_reset(g));
  FAILS(ct_cuda_graph_replay(g), CT_ERR_STATE, "without a preceding successful capture");
  rel(x), rel(x2), rel(y);
  OK(ct_cuda_graph_release(g));
}

static void test_capture_scope(void) {
  SKIP_WITHOUT_CUDA();
  ct_stream before = NULL, inside = NULL, after = NULL, prev = NULL;
  int32_t prev_dev = -1;
  int64_t h0 = 0, h1 = 0;
  OK(ct_stream_current(0, &before));
  ct_tensor x = cuda_arange(1.0);
  ct_cuda_graph g = NULL;
  OK(ct_cuda_graph_create(&g));
  OK(ct_cuda_graph_capture_enter(g, 0, CT_CAPTURE_MODE_GLOBAL, NULL, &prev, &prev_dev));
  EXPECT_EQ_I(prev_dev, 0);
  OK(ct_stream_current(0, &inside));
  OK(ct_stream_cuda_handle(before, &h0));
  OK(ct_stream_cuda_handle(inside, &h1));
  EXPECT(h1 != 0 && h1 != h0); /* a side stream */
  ct_tensor y = chain(x);
  OK(ct_cuda_graph_capture_exit(g, prev, prev_dev));
  OK(ct_stream_current(0, &after));
  OK(ct_stream_cuda_handle(after, &h1));
  EXPECT_EQ_I(h1, h0);
  OK(ct_cuda_graph_replay(g));
  expect_chain(y, 1.0);
  /* exit with the wrong stream current fails, still restores, and releases prev */
  ct_cuda_graph g2 = NULL;
  OK(ct_cuda_graph_create(&g2));
  OK(ct_cuda_graph_capture_enter(g2, 0, CT_CAPTURE_MODE_GLOBAL, inside, &prev, &prev_dev));
  OK(ct_stream_set_current(before));
  FAILS(ct_cuda_graph_capture_exit(g2, prev, prev_dev), CT_ERR_STATE, "Capture must end on the same stream");
  OK(ct_cuda_graph_release(g2)); /* discards the capture still under way */
  int32_t capturing = -1;
  OK(ct_stream_set_current(inside));
  OK(ct_cuda_is_current_stream_capturing(&capturing));
  EXPECT_EQ_I(capturing, 0);
  OK(ct_stream_set_current(before));
  rel(x), rel(y);
  OK(ct_cuda_graph_release(g));
  OK(ct_stream_release(before));
  OK(ct_stream_release(inside));
  OK(ct_stream_release(after));
}

/* Copies a float32 CUDA tensor's bits to host memory. */
static void bits(ct_tensor t, float* out, int64_t n) {
  ct_tensor h = NULL;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &h));
  OK(ct_tensor_copy_to_buffer(h, out, n * 4));
  rel(h);
}

static void set_offset(ct_generator gen, int64_t seed, int64_t offset) {
  unsigned char st[CT_RNG_STATE_SIZE];
  memcpy(st, &seed, 8);
  memcpy(st + 8, &offset, 8);
  OK(ct_generator_set_state(gen, st, CT_RNG_STATE_SIZE));
}

static void test_random_replays(void) {
  SKIP_WITHOUT_CUDA();
  enum { A = 5000, B = 1 << 20 };
  static float ga[A], gb[B], ea[A], eb[B];
  ct_generator def = NULL, mine = NULL;
  OK(ct_default_generator(CT_CUDA, 0, &def));
  OK(ct_generator_create(CT_CUDA, 0, &mine));
  OK(ct_cuda_manual_seed(1234));
  OK(ct_generator_manual_seed(mine, 99));
  int64_t off0 = -1, off = -1, moff0 = -1, moff = -1;
  OK(ct_generator_offset(def, &off0));
  OK(ct_generator_offset(mine, &moff0));
  side_stream s;
  ct_cuda_graph g = begin_capture(&s, CT_CAPTURE_MODE_GLOBAL);
  ct_tensor r1 = NULL, r2 = NULL, r3 = NULL;
  OK(ct_rand((int64_t[]){A}, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &r1));
  OK(ct_randn((int64_t[]){B}, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &r2));
  OK(ct_rand((int64_t[]){A}, 1, CT_FLOAT32, CT_CUDA, 0, mine, &r3));
  OK(ct_cuda_graph_capture_end(g));
  OK(ct_generator_offset(def, &off));
  EXPECT_EQ_I(off, off0); /* capturing draws nothing yet */
  for (int rep = 0; rep < 3; ++rep) {
    int64_t at = -1, mat = -1;
    OK(ct_generator_offset(def, &at));
    OK(ct_generator_offset(mine, &mat));
    OK(ct_cuda_graph_replay(g));
    bits(r1, ga, A);
    bits(r2, gb, B);
    /* eager draws from the same offsets */
    ct_tensor e1 = NULL, e2 = NULL, e3 = NULL;
    OK(ct_generator_offset(def, &off));
    set_offset(def, 1234, at);
    OK(ct_rand((int64_t[]){A}, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &e1));
    OK(ct_randn((int64_t[]){B}, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &e2));
    int64_t eager_end = -1;
    OK(ct_generator_offset(def, &eager_end));
    EXPECT_EQ_I(off, eager_end); /* the replay advanced the offset by the graph's whole increment */
    bits(e1, ea, A);
    bits(e2, eb, B);
    EXPECT(memcmp(ga, ea, sizeof ga) == 0);
    EXPECT(memcmp(gb, eb, sizeof gb) == 0);
    bits(r3, ga, A);
    OK(ct_generator_offset(mine, &moff));
    set_offset(mine, 99, mat);
    OK(ct_rand((int64_t[]){A}, 1, CT_FLOAT32, CT_CUDA, 0, mine, &e3));
    bits(e3, ea, A);
    EXPECT(memcmp(ga, ea, sizeof ga) == 0);
    OK(ct_generator_offset(mine, &mat));
    EXPECT_EQ_I(moff, mat);
    rel(e1), rel(e2), rel(e3);
    if (rep == 0) EXPECT(off > off0);
  }
  /* consecutive replays draw new numbers */
  bits(r1, ga, A);
  OK(ct_cuda_graph_replay(g));
  bits(r1, ea, A);
  EXPECT(memcmp(ga, ea, sizeof ga) != 0);
  side_end(s);
  rel(r1), rel(r2), rel(r3);
  OK(ct_cuda_graph_release(g));
  OK(ct_generator_release(def));
  OK(ct_generator_release(mine));
  (void)moff0;
}

/* Each illegal operation fails with CT_ERR_STATE naming it, invalidates the capture, and the
 * capture's end fails naming it too; nothing leaks and the graph captures again afterwards. */
typedef enum { ITEM, COPY_TO_HOST, COPY_FROM_HOST, STREAM_SYNC, DEVICE_SYNC, EVENT_QUERY, EVENT_SYNC, STREAM_QUERY,
               EMPTY_CACHE, PIN_MEMORY, N_ILLEGAL } illegal;
static const char* const kIllegalNames[] = {"copy from device to host", "copy from device to host",
                                            "copy from host to device", "Stream.synchronize",
                                            "torch.cuda.synchronize", "Event.query", "Event.synchronize",
                                            "Stream.query", "empty_cache", "pinned host memory allocation"};

static ct_status do_illegal(illegal op, ct_tensor x, ct_event ev) {
  double v = 0;
  int32_t done = 0;
  ct_tensor t = NULL;
  ct_stream cur = NULL;
  ct_status st = CT_OK;
  switch (op) {
    case ITEM: {
      ct_tensor one = NULL;
      OK(ct_select(x, 0, 3, &one));
      st = ct_tensor_item_double(one, &v);
      rel(one);
      return st;
    }
    case COPY_TO_HOST: st = ct_tensor_to(x, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &t); break;
    case COPY_FROM_HOST: {
      ct_tensor h = NULL;
      OK(ct_zeros((int64_t[]){N}, 1, CT_FLOAT32, CT_CPU, -1, &h));
      st = ct_tensor_copy_(x, h, 0);
      rel(h);
      return st;
    }
    case STREAM_SYNC:
      OK(ct_stream_current(0, &cur));
      st = ct_stream_synchronize(cur);
      break;
    case STREAM_QUERY:
      OK(ct_stream_current(0, &cur));
      st = ct_stream_query(cur, &done);
      break;
    case DEVICE_SYNC: st = ct_cuda_synchronize(0); break;
    case EVENT_QUERY: st = ct_event_query(ev, &done); break;
    case EVENT_SYNC: st = ct_event_synchronize(ev); break;
    case EMPTY_CACHE: st = ct_cuda_empty_cache(); break;
    case PIN_MEMORY: {
      ct_tensor h = NULL;
      OK(ct_zeros((int64_t[]){4}, 1, CT_FLOAT32, CT_CPU, -1, &h));
      st = ct_tensor_pin_memory(h, &t);
      rel(h);
      break;
    }
    default: break;
  }
  if (cur) OK(ct_stream_release(cur));
  rel(t);
  return st;
}

static void test_illegal_operations(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor x = cuda_arange(1.0);
  ct_event ev = NULL;
  OK(ct_event_create(CT_EVENT_DEFAULT, &ev));
  OK(ct_event_record(ev, NULL));
  ct_cuda_graph g = NULL;
  OK(ct_cuda_graph_create(&g));
  side_stream s = side_begin();
  int64_t alloc0 = stat("allocated_bytes.all.current");
  for (int op = 0; op < N_ILLEGAL; ++op) {
    OK(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL));
    ct_tensor y = chain(x);
    ct_status st = do_illegal((illegal)op, x, ev);
    if (st != CT_ERR_STATE) FAILF("%s during capture returned %s (%s), expected CT_ERR_STATE", kIllegalNames[op],
                                  ct_status_name(st), ct_last_error_message());
    else if (!strstr(ct_last_error_message(), kIllegalNames[op]) ||
             !strstr(ct_last_error_message(), "not allowed while a CUDA graph is being captured"))
      FAILF("message for %s: %s", kIllegalNames[op], ct_last_error_message());
    rel(y);
    FAILS(ct_cuda_graph_capture_end(g), CT_ERR_STATE, kIllegalNames[op]);
    int32_t capturing = -1;
    OK(ct_cuda_is_current_stream_capturing(&capturing));
    EXPECT_EQ_I(capturing, 0);
    EXPECT_EQ_I(stat("allocated_bytes.all.current"), alloc0);
  }
  /* the graph captures again, and works */
  OK(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL));
  ct_tensor y = chain(x);
  OK(ct_cuda_graph_capture_end(g));
  OK(ct_cuda_graph_replay(g));
  side_end(s);
  expect_chain(y, 1.0);
  rel(x), rel(y);
  OK(ct_event_release(ev));
  OK(ct_cuda_graph_release(g));
}

/* relaxed mode lets other streams synchronize; global mode does not */
static void test_capture_modes(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor x = cuda_arange(1.0);
  ct_stream other = NULL;
  OK(ct_stream_create(0, 0, &other));
  for (int mode = CT_CAPTURE_MODE_GLOBAL; mode <= CT_CAPTURE_MODE_RELAXED; ++mode) {
    side_stream s;
    ct_cuda_graph g = begin_capture(&s, mode);
    ct_tensor y = chain(x);
    OK(ct_stream_set_current(other));
    ct_status st = ct_stream_synchronize(other); /* a stream that is not capturing */
    OK(ct_stream_set_current(s.side));
    if (mode == CT_CAPTURE_MODE_RELAXED) {
      EXPECT_EQ_I(st, CT_OK);
      OK(ct_cuda_graph_capture_end(g));
      OK(ct_cuda_graph_replay(g));
    } else {
      EXPECT_EQ_I(st, CT_ERR_STATE); /* the capturing thread (thread_local) or any (global) */
      FAILS(ct_cuda_graph_capture_end(g), CT_ERR_STATE, "Stream.synchronize");
    }
    side_end(s);
    if (mode == CT_CAPTURE_MODE_RELAXED) expect_chain(y, 1.0);
    rel(y);
    OK(ct_cuda_graph_release(g));
  }
  OK(ct_stream_release(other));
  rel(x);
}

typedef struct {
  double scale;
  int ok;
} thread_arg;

static void* capture_thread(void* p) {
  thread_arg* a = (thread_arg*)p;
  OK(ct_cuda_set_device(0));
  ct_tensor x = cuda_arange(a->scale);
  side_stream s;
  ct_cuda_graph g = begin_capture(&s, CT_CAPTURE_MODE_THREAD_LOCAL);
  ct_tensor y = chain(x);
  OK(ct_cuda_graph_capture_end(g));
  for (int i = 0; i < 5; ++i) OK(ct_cuda_graph_replay(g));
  side_end(s);
  expect_chain(y, a->scale);
  rel(x), rel(y);
  OK(ct_cuda_graph_release(g));
  a->ok = 1;
  return NULL;
}

static void test_two_threads_thread_local(void) {
  SKIP_WITHOUT_CUDA();
  pthread_t t[2];
  thread_arg a[2] = {{1.0, 0}, {0.25, 0}};
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, capture_thread, &a[i]);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  EXPECT(a[0].ok && a[1].ok);
}

static void test_private_pool_memory(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_empty_cache());
  int64_t alloc0 = stat("allocated_bytes.all.current"), res0 = stat("reserved_bytes.all.current");
  ct_tensor x = cuda_arange(1.0); /* 4000 bytes -> one 4096-byte block of a 2 MiB segment */
  int64_t res_x = stat("reserved_bytes.all.current");
  side_stream s;
  ct_cuda_graph g = begin_capture(&s, CT_CAPTURE_MODE_GLOBAL);
  ct_tensor y = chain(x); /* temporaries freed in the capture, y kept: all in the private pool */
  int64_t in_capture = stat("reserved_bytes.all.current");
  EXPECT_EQ_I(in_capture - res_x, 2 << 20); /* one new small segment: the pool's */
  OK(ct_cuda_graph_capture_end(g));
  EXPECT_EQ_I(stat("allocated_bytes.all.current") - alloc0, 2 * 4096); /* x and y */
  OK(ct_cuda_graph_replay(g));
  side_end(s);
  /* y freed: its block stays in the pool; empty_cache frees nothing of a live graph */
  rel(y);
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(stat("reserved_bytes.all.current"), in_capture);
  int64_t pool = 0;
  OK(ct_cuda_graph_pool(g, &pool));
  EXPECT(pool > 0);
  OK(ct_cuda_graph_reset(g));
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(stat("reserved_bytes.all.current"), res_x);
  rel(x);
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(stat("reserved_bytes.all.current"), res0);
  EXPECT_EQ_I(stat("allocated_bytes.all.current"), alloc0);
  OK(ct_cuda_graph_release(g));
}

static void test_tensor_keeps_pool_memory(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_empty_cache());
  ct_tensor x = cuda_arange(1.0);
  int64_t res_x = stat("reserved_bytes.all.current");
  side_stream s;
  ct_cuda_graph g = begin_capture(&s, CT_CAPTURE_MODE_GLOBAL);
  ct_tensor y = chain(x);
  OK(ct_cuda_graph_capture_end(g));
  OK(ct_cuda_graph_replay(g));
  side_end(s);
  OK(ct_cuda_graph_release(g)); /* graph gone, y still uses the pool's memory */
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(stat("reserved_bytes.all.current") - res_x, 2 << 20);
  expect_chain(y, 1.0);
  rel(y);
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(stat("reserved_bytes.all.current"), res_x);
  rel(x);
}

static void test_shared_pool(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_empty_cache());
  ct_tensor x = cuda_arange(1.0);
  int64_t h = 0, p1 = 0, p2 = 0;
  OK(ct_cuda_graph_pool_handle(&h));
  EXPECT(h > 0);
  ct_cuda_graph g1 = NULL, g2 = NULL;
  OK(ct_cuda_graph_create(&g1));
  OK(ct_cuda_graph_create(&g2));
  side_stream s = side_begin();
  OK(ct_cuda_graph_capture_begin(g1, h, CT_CAPTURE_MODE_GLOBAL));
  ct_tensor y1 = chain(x);
  OK(ct_cuda_graph_capture_end(g1));
  int64_t r1 = stat("reserved_bytes.all.current");
  OK(ct_cuda_graph_pool(g1, &p1));
  EXPECT_EQ_I(p1, h);
  OK(ct_cuda_graph_capture_begin(g2, p1, CT_CAPTURE_MODE_GLOBAL));
  ct_tensor y2 = chain(y1); /* the blocks g1's capture freed serve g2's */
  OK(ct_cuda_graph_capture_end(g2));
  EXPECT_EQ_I(stat("reserved_bytes.all.current"), r1);
  OK(ct_cuda_graph_pool(g2, &p2));
  EXPECT_EQ_I(p2, h);
  OK(ct_cuda_graph_replay(g1));
  OK(ct_cuda_graph_replay(g2));
  side_end(s);
  double want[N];
  for (int i = 0; i < N; ++i) {
    float v = (float)-exp((float)((float)((float)i * 2.0f + 1.0f) * 1e-4f));
    want[i] = -exp((float)((float)(v * 2.0f + 1.0f) * 1e-4f));
  }
  expect_vals_(y2, want, N, 1e-6, "y2", __LINE__);
  /* the pool lives while either graph does */
  rel(y1), rel(y2);
  OK(ct_cuda_graph_release(g1));
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(stat("reserved_bytes.all.current"), r1);
  OK(ct_cuda_graph_release(g2));
  OK(ct_cuda_empty_cache());
  EXPECT(stat("reserved_bytes.all.current") < r1);
  rel(x);
}

static void test_debug_dump(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor x = cuda_arange(1.0);
  side_stream s;
  ct_cuda_graph g = begin_capture(&s, CT_CAPTURE_MODE_GLOBAL);
  ct_tensor y = chain(x);
  OK(ct_cuda_graph_capture_end(g));
  FAILS(ct_cuda_graph_debug_dump(g, "/tmp/ctorch_graph_test.dot"), CT_ERR_STATE, "debug not enabled");
  OK(ct_cuda_graph_reset(g));
  rel(y);
  OK(ct_cuda_graph_enable_debug_mode(g));
  OK(ct_cuda_graph_capture_begin(g, 0, CT_CAPTURE_MODE_GLOBAL));
  y = chain(x);
  OK(ct_cuda_graph_capture_end(g));
  side_end(s);
  remove("/tmp/ctorch_graph_test.dot");
  OK(ct_cuda_graph_debug_dump(g, "/tmp/ctorch_graph_test.dot"));
  FILE* f = fopen("/tmp/ctorch_graph_test.dot", "r");
  EXPECT(f != NULL);
  if (f) {
    char buf[4096] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    EXPECT(strstr(buf, "digraph") != NULL);
    fclose(f);
  }
  rel(x), rel(y);
  OK(ct_cuda_graph_release(g));
}

/* the graphed function: y = x * 3 - 1 (a new y each call) */
typedef struct {
  ct_tensor x, y;
  int calls;
  int fail;
} graphed_ctx;

static ct_status graphed_fn(void* p) {
  graphed_ctx* c = (graphed_ctx*)p;
  c->calls++;
  if (c->fail) {
    ct_tensor bad = NULL;
    return ct_reshape(c->x, (int64_t[]){7}, 1, &bad); /* fails: CT_ERR_SHAPE */
  }
  ct_tensor a = NULL;
  ct_status st = ct_binary_scalar_f(CT_MUL, c->x, 3.0, 0, &a);
  if (st != CT_OK) return st;
  rel(c->y);
  c->y = NULL;
  st = ct_binary_scalar_f(CT_SUB, a, 1.0, 0, &c->y);
  rel(a);
  return st;
}

static void test_graphed_callable(void) {
  SKIP_WITHOUT_CUDA();
  graphed_ctx c = {cuda_arange(1.0), NULL, 0, 0};
  int64_t live0 = -1, live = -1;
  OK(ct_live_cuda_graphed_count(&live0));
  ct_cuda_graphed gc = NULL;
  OK(ct_cuda_make_graphed_callable(graphed_fn, &c, &c.x, 1, 2, 0, &gc));
  EXPECT_EQ_I(c.calls, 3); /* two warm-up calls and the captured one */
  ct_tensor x2 = cuda_arange(2.0);
  OK(ct_cuda_graphed_run(gc, &x2, 1));
  double want[N];
  for (int i = 0; i < N; ++i) want[i] = 2.0 * i * 3 - 1;
  expect_vals_(c.y, want, N, 0, "graphed y", __LINE__);
  OK(ct_binary_scalar_f_(CT_MUL, c.x, 0.5)); /* the static input changed in place: run with none */
  OK(ct_cuda_graphed_run(gc, NULL, 0));
  for (int i = 0; i < N; ++i) want[i] = 1.0 * i * 3 - 1;
  expect_vals_(c.y, want, N, 0, "graphed y", __LINE__);
  EXPECT_EQ_I(c.calls, 3);
  ct_tensor bad = NULL;
  OK(ct_zeros((int64_t[]){N + 1}, 1, CT_FLOAT32, CT_CUDA, 0, &bad));
  FAILS(ct_cuda_graphed_run(gc, &bad, 1), CT_ERR_SHAPE, "has shape [1001] but the static input has [1000]");
  rel(bad);
  OK(ct_zeros((int64_t[]){N}, 1, CT_FLOAT64, CT_CUDA, 0, &bad));
  FAILS(ct_cuda_graphed_run(gc, &bad, 1), CT_ERR_DTYPE, "torch.float64");
  rel(bad);
  OK(ct_zeros((int64_t[]){N}, 1, CT_FLOAT32, CT_CPU, -1, &bad));
  FAILS(ct_cuda_graphed_run(gc, &bad, 1), CT_ERR_DEVICE, "is on cpu");
  ct_tensor two[2] = {bad, bad};
  FAILS(ct_cuda_graphed_run(gc, two, 2), CT_ERR_ARGUMENT, "expected 1 inputs");
  rel(bad);
  ct_cuda_graph g = NULL;
  int64_t pool = 0;
  OK(ct_cuda_graphed_graph(gc, &g));
  OK(ct_cuda_graph_pool(g, &pool));
  EXPECT(pool > 0);
  OK(ct_cuda_graph_replay(g));
  OK(ct_cuda_graph_release(g));
  OK(ct_live_cuda_graphed_count(&live));
  EXPECT_EQ_I(live, live0 + 1);
  OK(ct_cuda_graphed_retain(gc));
  OK(ct_cuda_graphed_release(gc));
  OK(ct_cuda_graphed_release(gc));
  OK(ct_live_cuda_graphed_count(&live));
  EXPECT_EQ_I(live, live0);
  /* a failing function: its status and message come back, the capture is discarded */
  graphed_ctx f = {c.x, NULL, 0, 1};
  ct_cuda_graphed gf = NULL;
  FAILS(ct_cuda_make_graphed_callable(graphed_fn, &f, &f.x, 1, 0, 0, &gf), CT_ERR_SHAPE,
        "the function returned CT_ERR_SHAPE: shape '[7]' is invalid");
  EXPECT(gf == NULL);
  int32_t capturing = -1;
  OK(ct_cuda_is_current_stream_capturing(&capturing));
  EXPECT_EQ_I(capturing, 0);
  FAILS(ct_cuda_make_graphed_callable(graphed_fn, &c, &c.x, 1, -1, 0, &gf), CT_ERR_ARGUMENT, "num_warmup_iters");
  FAILS(ct_cuda_make_graphed_callable(graphed_fn, &c, &c.x, -1, 0, 0, &gf), CT_ERR_ARGUMENT, "count must be >= 0");
  rel(c.x), rel(c.y), rel(x2);
}

TEST_MAIN(TEST_CASE(handles_and_errors), TEST_CASE(without_gpu), TEST_CASE(default_stream_refused),
          TEST_CASE(capture_and_replay), TEST_CASE(capture_scope), TEST_CASE(random_replays),
          TEST_CASE(illegal_operations), TEST_CASE(capture_modes), TEST_CASE(two_threads_thread_local),
          TEST_CASE(private_pool_memory), TEST_CASE(tensor_keeps_pool_memory), TEST_CASE(shared_pool),
          TEST_CASE(debug_dump), TEST_CASE(graphed_callable))
