/* The CUDA runtime API from C: devices and guards, streams, events, pinned memory and
 * asynchronous copies, the sync debug mode, CUDA_LAUNCH_BLOCKING. Without a GPU it checks
 * the "unavailable" paths and the calls that work everywhere; the GPU cases skip visibly. */
#include <pthread.h>

#include "tests/capi/test_util.h"



static void expect_string(ct_status (*fn)(void*, int64_t, int64_t*), const char* want) {
  char buf[256];
  int64_t need = -1;
  OK(fn(buf, sizeof buf, &need));
  EXPECT_STR(buf, want);
  EXPECT_EQ_I(need, strlen(want));
}

static void test_everywhere(void) {
  FAILS(ct_stream_retain(NULL), CT_ERR_INVALID_HANDLE, "is a NULL stream handle");
  FAILS(ct_stream_retain((ct_stream)(intptr_t)0x1234), CT_ERR_INVALID_HANDLE, "is not a ctorch stream handle");
  { /* every stream entry point checks its handle before anything needs a GPU */
    ct_stream none = NULL;
    int32_t i32;
    int64_t i64;
    ct_event ev = NULL;
    OK(ct_event_create(CT_EVENT_DEFAULT, &ev));
    FAILS(ct_stream_release(none), CT_ERR_INVALID_HANDLE, "argument 'stream' is a NULL stream handle");
    FAILS(ct_stream_set_current(none), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_device(none, &i32), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_priority(none, &i32), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_cuda_handle(none, &i64), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_query(none, &i32), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_wait_stream(none, none), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_record_event(none, ev), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_wait_event(none, ev), CT_ERR_INVALID_HANDLE, "NULL stream handle");
    FAILS(ct_stream_guard_exit(none, -1), CT_ERR_INVALID_HANDLE, "argument 'prev_stream' is a NULL stream handle");
    FAILS(ct_stream_release((ct_stream)ev), CT_ERR_INVALID_HANDLE, "is not a ctorch stream handle");
    OK(ct_event_release(ev));
  }
  expect_string(ct_cuda_get_arch_list, "sm_80 sm_90 compute_90");
  expect_string(ct_cuda_get_gencode_flags,
                "-gencode compute=compute_80,code=sm_80 -gencode compute=compute_90,code=sm_90 "
                "-gencode compute=compute_90,code=compute_90");
  EXPECT_SETTING(ct_cuda_get_sync_debug_mode, ct_cuda_set_sync_debug_mode, 0, 1);
  FAILS(ct_cuda_set_sync_debug_mode(3), CT_ERR_ARGUMENT, "invalid sync debug mode 3");
  /* events exist before any GPU work: the CUDA event is made at the first record */
  ct_event e = NULL, t0 = NULL;
  OK(ct_event_create(CT_EVENT_DEFAULT, &e));
  OK(ct_event_create(CT_EVENT_ENABLE_TIMING | CT_EVENT_BLOCKING, &t0));
  int32_t done = 0;
  OK(ct_event_query(e, &done));
  EXPECT_EQ_I(done, 1);
  OK(ct_event_synchronize(e));
  double ms;
  FAILS(ct_event_elapsed_time(e, t0, &ms), CT_ERR_STATE, "enable_timing=True");
  FAILS(ct_event_elapsed_time(t0, t0, &ms), CT_ERR_STATE, "must be recorded");
  ct_event bad = NULL;
  FAILS(ct_event_create(8, &bad), CT_ERR_ARGUMENT, "unknown event flags 8");
  OK(ct_event_retain(e));
  OK(ct_event_release(e));
  int64_t live = -1;
  OK(ct_live_event_count(&live));
  EXPECT_EQ_I(live, 2);
  OK(ct_event_release(e));
  OK(ct_event_release(t0));
  FAILS(ct_event_query(e, &done), CT_ERR_INVALID_HANDLE, "event handle that was already released");
  FAILS(ct_event_release(e), CT_ERR_INVALID_HANDLE, "");
  /* a tensor handle is not a stream or an event handle */
  ct_tensor t = F64(CT_FLOAT32, 1);
  FAILS(ct_stream_synchronize((ct_stream)t), CT_ERR_INVALID_HANDLE, "not a ctorch stream handle");
  FAILS(ct_event_query((ct_event)t, &done), CT_ERR_INVALID_HANDLE, "not a ctorch event handle");
  FAILS(ct_tensor_record_stream(t, NULL), CT_ERR_INVALID_HANDLE, "NULL stream handle");
  int32_t prev = 7;
  OK(ct_cuda_exchange_device_of(t, &prev)); /* CPU tensor: nothing changes */
  EXPECT_EQ_I(prev, -1);
  rel(t);
  OK(ct_live_event_count(&live));
  EXPECT_EQ_I(live, 0);
  OK(ct_live_stream_count(&live));
  EXPECT_EQ_I(live, 0);
}

static void test_without_gpu(void) {
  if (g_cuda) {
    printf("  (CUDA present: the no-GPU paths are covered on machines without one)\n");
    return;
  }
  int32_t d;
  FAILS(ct_cuda_current_device(&d), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  FAILS(ct_cuda_set_device(0), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  int32_t prev = 5;
  OK(ct_cuda_exchange_device(-1, &prev));
  EXPECT_EQ_I(prev, -1);
  OK(ct_cuda_set_device(-1)); /* a negative device changes nothing, as torch.cuda.set_device */
  FAILS(ct_cuda_exchange_device(0, &prev), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_synchronize(-1), CT_ERR_CUDA_UNAVAILABLE, "");
  int64_t f, tot;
  FAILS(ct_cuda_mem_get_info(-1, &f, &tot), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_can_device_access_peer(0, 1, &d), CT_ERR_CUDA_UNAVAILABLE, "");
  ct_stream s = NULL, p = NULL;
  FAILS(ct_stream_create(-1, 0, &s), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  FAILS(ct_stream_default(0, &s), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_stream_current(-1, &s), CT_ERR_CUDA_UNAVAILABLE, "");
  int32_t lo, hi;
  FAILS(ct_stream_priority_range(&lo, &hi), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_stream_external(0, -1, &s), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_stream_guard_enter(NULL, &p, &d), CT_ERR_INVALID_HANDLE, "NULL stream handle");
  EXPECT(s == NULL && p == NULL);
  ct_event e;
  OK(ct_event_create(0, &e));
  FAILS(ct_event_record(e, NULL), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_event_wait(e, NULL), CT_ERR_CUDA_UNAVAILABLE, "");
  OK(ct_event_release(e));
}

static void test_devices_and_guards(void) {
  SKIP_WITHOUT_CUDA();
  int32_t d = -1;
  OK(ct_cuda_set_device(0));
  OK(ct_cuda_current_device(&d));
  EXPECT_EQ_I(d, 0);
  FAILS(ct_cuda_set_device(g_cuda), CT_ERR_INDEX, "Invalid CUDA device index");
  int32_t prev = -5;
  OK(ct_cuda_exchange_device(g_cuda - 1, &prev));
  EXPECT_EQ_I(prev, 0);
  OK(ct_cuda_current_device(&d));
  EXPECT_EQ_I(d, g_cuda - 1);
  /* inside the guard, "cuda" means the guarded device; results stay with their inputs */
  ct_tensor x;
  OK(ct_ones((int64_t[]){4}, 1, CT_FLOAT32, CT_CUDA, -1, &x));
  ct_device_type dt;
  int32_t di;
  OK(ct_tensor_device(x, &dt, &di));
  EXPECT_EQ_I(di, g_cuda - 1);
  OK(ct_cuda_set_device(prev));
  ct_tensor y;
  OK(ct_binary(CT_ADD, x, x, &y)); /* current device is 0, inputs on the last device */
  OK(ct_tensor_device(y, &dt, &di));
  EXPECT_EQ_I(di, g_cuda - 1);
  EXPECT_VALS(y, 0, 2, 2, 2, 2);
  OK(ct_cuda_exchange_device_of(y, &prev));
  OK(ct_cuda_current_device(&d));
  EXPECT_EQ_I(d, g_cuda - 1);
  OK(ct_cuda_set_device(prev));
  rel(x), rel(y);
  int64_t freeb = 0, total = 0, prop = 0;
  OK(ct_cuda_mem_get_info(0, &freeb, &total));
  OK(ct_cuda_get_device_property(0, CT_PROP_TOTAL_MEMORY, &prop));
  EXPECT(freeb > 0 && freeb <= total);
  EXPECT_EQ_I(total, prop);
  int32_t peer = 9;
  OK(ct_cuda_can_device_access_peer(0, 0, &peer));
  EXPECT_EQ_I(peer, 0);
  OK(ct_cuda_synchronize(-1));
  OK(ct_cuda_synchronize(0));
}

static void* other_thread(void* arg) {
  /* a new thread starts on device 0 with the default stream, whatever the main thread set */
  int64_t* handle = (int64_t*)arg;
  ct_stream s;
  if (ct_stream_current(0, &s) != CT_OK) {
    *handle = -1;
    return NULL;
  }
  ct_stream_cuda_handle(s, handle);
  ct_stream_release(s);
  return NULL;
}

/* Dropping the last reference to a stream (or to memory cached for it) of another device leaves
   the calling thread's current device alone. */
static void test_other_device_streams(void) {
  if (g_cuda < 2) {
    printf("  SKIP %s: needs two CUDA devices, found %d\n", g_test_name, g_cuda);
    g_skipped = 1;
    return;
  }
  int32_t cur = -1;
  OK(ct_cuda_set_device(0));
  ct_stream s1;
  OK(ct_stream_create(1, 0, &s1));
  OK(ct_stream_release(s1)); /* destroyed here, on device 1 */
  OK(ct_cuda_current_device(&cur));
  EXPECT_EQ_I(cur, 0);
  /* a block cached for a stream of device 1 holds the stream; empty_cache drops it */
  OK(ct_stream_create(1, 0, &s1));
  int64_t p = 0;
  OK(ct_cuda_caching_allocator_alloc(4096, 1, s1, &p));
  OK(ct_stream_release(s1));
  OK(ct_cuda_caching_allocator_delete(p));
  OK(ct_cuda_empty_cache());
  OK(ct_cuda_current_device(&cur));
  EXPECT_EQ_I(cur, 0);
  OK(ct_cuda_set_device(1)); /* and the other way round */
  OK(ct_stream_create(0, 0, &s1));
  OK(ct_stream_release(s1));
  OK(ct_cuda_current_device(&cur));
  EXPECT_EQ_I(cur, 1);
  OK(ct_cuda_set_device(0));
}

static void test_streams(void) {
  SKIP_WITHOUT_CUDA();
  int32_t least = 1, greatest = 1;
  OK(ct_stream_priority_range(&least, &greatest));
  EXPECT_EQ_I(least, 0);
  EXPECT(greatest < 0);
  ct_stream def, cur, s, hi;
  OK(ct_stream_default(0, &def));
  OK(ct_stream_current(0, &cur));
  int64_t h_def = -1, h_cur = -1, h_s = 0;
  OK(ct_stream_cuda_handle(def, &h_def));
  OK(ct_stream_cuda_handle(cur, &h_cur));
  EXPECT_EQ_I(h_def, 0); /* the legacy default stream */
  EXPECT_EQ_I(h_cur, 0);
  OK(ct_stream_create(0, 0, &s));
  OK(ct_stream_retain(s)); /* two references: the stream lives until both are released */
  OK(ct_stream_release(s));
  int64_t h_retained = 0;
  OK(ct_stream_cuda_handle(s, &h_retained));
  EXPECT(h_retained != 0);
  OK(ct_stream_create(0, -1000, &hi)); /* clamped to the highest priority */
  int32_t pr = 0, dev = -1;
  OK(ct_stream_priority(hi, &pr));
  EXPECT_EQ_I(pr, greatest);
  OK(ct_stream_device(s, &dev));
  EXPECT_EQ_I(dev, 0);
  OK(ct_stream_cuda_handle(s, &h_s));
  EXPECT(h_s != 0);
  /* the stream guard: s becomes current; leaving restores the default stream */
  ct_stream prev = NULL;
  int32_t prev_dev = -1;
  OK(ct_stream_guard_enter(s, &prev, &prev_dev));
  ct_stream now;
  OK(ct_stream_current(-1, &now));
  int64_t h_now = 0;
  OK(ct_stream_cuda_handle(now, &h_now));
  EXPECT_EQ_I(h_now, h_s);
  OK(ct_stream_release(now));
  /* other threads keep their own current stream */
  int64_t h_thread = -2;
  pthread_t th;
  pthread_create(&th, NULL, other_thread, &h_thread);
  pthread_join(th, NULL);
  EXPECT_EQ_I(h_thread, 0);
  /* work on s: a big op, then the stream is busy until synchronized */
  ct_tensor a, b;
  OK(ct_ones((int64_t[]){1 << 24}, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  for (int i = 0; i < 5; ++i) {
    OK(ct_binary(CT_ADD, a, a, &b));
    rel(a);
    a = b;
  }
  OK(ct_stream_synchronize(s));
  int32_t done = 0;
  OK(ct_stream_query(s, &done));
  EXPECT_EQ_I(done, 1);
  ct_tensor total;
  OK(ct_reduce(CT_SUM, a, NULL, 0, 0, CT_FLOAT64, &total));
  EXPECT_VALS(total, 0, 32.0 * (1 << 24));
  rel(total);
  OK(ct_stream_guard_exit(prev, prev_dev));
  OK(ct_stream_current(0, &now));
  OK(ct_stream_cuda_handle(now, &h_now));
  EXPECT_EQ_I(h_now, 0);
  OK(ct_stream_release(now));
  /* wait_stream / wait_event order work across streams; the result is read on the default stream */
  ct_tensor c;
  OK(ct_stream_set_current(s));
  OK(ct_binary_scalar_f(CT_MUL, a, 0.5, 0, &c)); /* queued on s */
  OK(ct_stream_set_current(def));
  OK(ct_stream_wait_stream(def, s));
  ct_tensor m;
  OK(ct_reduce(CT_AMAX, c, NULL, 0, 0, CT_DTYPE_UNDEFINED, &m));
  EXPECT_VALS(m, 0, 16);
  rel(m);
  ct_event ev;
  OK(ct_event_create(0, &ev));
  OK(ct_stream_set_current(s));
  OK(ct_binary_scalar_f_(CT_ADD, c, 1.0));
  OK(ct_stream_record_event(s, ev));
  OK(ct_stream_set_current(def));
  OK(ct_stream_wait_event(def, ev));
  OK(ct_reduce(CT_AMIN, c, NULL, 0, 0, CT_DTYPE_UNDEFINED, &m));
  EXPECT_VALS(m, 0, 17);
  rel(m);
  /* record_stream: c was allocated on s and is used on def; freeing it must wait for def */
  ct_stream def2;
  OK(ct_stream_default(0, &def2));
  OK(ct_tensor_record_stream(c, def2));
  FAILS(ct_tensor_record_stream(c, NULL), CT_ERR_INVALID_HANDLE, "");
  ct_tensor cpu = F64(CT_FLOAT32, 1);
  FAILS(ct_tensor_record_stream(cpu, s), CT_ERR_DEVICE, "expected a CUDA tensor");
  rel(cpu);
  /* an external stream wrapping s's cudaStream_t behaves as s */
  ct_stream ext;
  OK(ct_stream_external(h_s, 0, &ext));
  int64_t h_ext = 0;
  OK(ct_stream_cuda_handle(ext, &h_ext));
  EXPECT_EQ_I(h_ext, h_s);
  OK(ct_stream_set_current(ext));
  ct_tensor d;
  OK(ct_binary(CT_SUB, c, c, &d));
  OK(ct_stream_synchronize(ext));
  OK(ct_stream_set_current(def));
  ct_tensor dn;
  OK(ct_norm(d, INFINITY, NULL, 0, 0, &dn));
  EXPECT_VALS(dn, 0, 0);
  rel(dn), rel(d);
  OK(ct_stream_release(ext));
  OK(ct_event_release(ev));
  rel(a), rel(c);
  OK(ct_stream_release(def2));
  OK(ct_stream_release(hi));
  OK(ct_stream_release(s));
  OK(ct_stream_release(cur));
  OK(ct_stream_release(def));
  FAILS(ct_stream_query(s, &done), CT_ERR_INVALID_HANDLE, "already released");
  int64_t live = -1;
  OK(ct_live_stream_count(&live));
  EXPECT_EQ_I(live, 0);
}

static void test_events_and_timing(void) {
  SKIP_WITHOUT_CUDA();
  ct_event start, end;
  OK(ct_event_create(CT_EVENT_ENABLE_TIMING, &start));
  OK(ct_event_create(CT_EVENT_ENABLE_TIMING | CT_EVENT_BLOCKING, &end));
  ct_tensor a, b;
  OK(ct_ones((int64_t[]){1 << 26}, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  OK(ct_event_record(start, NULL));
  for (int i = 0; i < 10; ++i) {
    OK(ct_binary(CT_MUL, a, a, &b));
    rel(b);
  }
  OK(ct_event_record(end, NULL));
  OK(ct_event_synchronize(end));
  int32_t done = 0;
  OK(ct_event_query(end, &done));
  EXPECT_EQ_I(done, 1);
  double ms = -1;
  OK(ct_event_elapsed_time(start, end, &ms));
  printf("  10 x mul of 64M float32: %.3f ms\n", ms);
  EXPECT(ms > 0.01 && ms < 10000);
  ct_event plain;
  OK(ct_event_create(0, &plain));
  OK(ct_event_record(plain, NULL));
  FAILS(ct_event_elapsed_time(start, plain, &ms), CT_ERR_STATE, "enable_timing=True");
  OK(ct_event_wait(plain, NULL));
  rel(a);
  OK(ct_event_release(plain));
  OK(ct_event_release(start));
  OK(ct_event_release(end));
}

static void test_async_copies(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t n = 1LL << 28; /* 1 GiB of float32 */
  ct_tensor host, pinned, dev;
  OK(ct_full((int64_t[]){n}, 1, 3.0, CT_FLOAT32, CT_CPU, -1, &host));
  OK(ct_tensor_pin_memory(host, &pinned));
  ct_event after;
  OK(ct_event_create(0, &after));
  /* non_blocking from pinned memory returns before the copy is done */
  OK(ct_tensor_to(pinned, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 1, 0, &dev));
  OK(ct_event_record(after, NULL));
  int32_t done = 1;
  OK(ct_event_query(after, &done));
  EXPECT_EQ_I(done, 0);
  OK(ct_event_synchronize(after));
  rel(dev);
  /* without non_blocking the copy is finished when the call returns */
  OK(ct_tensor_to(pinned, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &dev));
  OK(ct_event_record(after, NULL));
  OK(ct_event_query(after, &done));
  EXPECT_EQ_I(done, 1);
  /* device to pinned host, non_blocking, then synchronize before reading */
  ct_tensor back;
  OK(ct_tensor_to(dev, CT_CPU, -1, CT_DTYPE_UNDEFINED, 1, 0, &back));
  OK(ct_cuda_synchronize(0));
  ct_tensor mx;
  OK(ct_reduce(CT_AMIN, back, NULL, 0, 0, CT_DTYPE_UNDEFINED, &mx));
  EXPECT_VALS(mx, 0, 3);
  rel(mx), rel(back), rel(dev), rel(pinned), rel(host);
  OK(ct_event_release(after));
}

/* A user stream released (destroyed) before the pinned tensors it copied into: releasing them
 * afterwards must not touch the destroyed stream (the Go suite crashed on this), and their
 * blocks are reused once the copies are done. */
static void test_pinned_outlives_stream(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t n = 1 << 16;
  ct_tensor dev;
  OK(ct_full((int64_t[]){n}, 1, 7.0, CT_FLOAT32, CT_CUDA, 0, &dev));
  for (int round = 0; round < 16; ++round) {
    ct_stream side, prev;
    int32_t prev_dev;
    ct_tensor host, pinned;
    OK(ct_stream_create(0, 0, &side));
    OK(ct_zeros((int64_t[]){n}, 1, CT_FLOAT32, CT_CPU, -1, &host));
    OK(ct_tensor_pin_memory(host, &pinned));
    OK(ct_stream_guard_enter(side, &prev, &prev_dev));
    OK(ct_stream_wait_stream(side, prev)); /* dev was written on the default stream */
    OK(ct_tensor_copy_(pinned, dev, 1)); /* non_blocking, on side */
    OK(ct_stream_guard_exit(prev, prev_dev));
    OK(ct_stream_synchronize(side));
    OK(ct_stream_release(side)); /* the stream goes first */
    ct_tensor mn;
    OK(ct_reduce(CT_AMIN, pinned, NULL, 0, 0, CT_DTYPE_UNDEFINED, &mn));
    EXPECT_VALS(mn, 0, 7);
    rel(mn), rel(pinned), rel(host);
  }
  OK(ct_cuda_synchronize(0));
  rel(dev);
}

static void test_sync_debug_mode(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor x, y;
  OK(ct_ones((int64_t[]){8}, 1, CT_FLOAT32, CT_CUDA, 0, &x));
  OK(ct_cuda_set_sync_debug_mode(2));
  OK(ct_binary(CT_ADD, x, x, &y)); /* asynchronous: allowed */
  double v;
  ct_tensor s;
  OK(ct_reduce(CT_SUM, y, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s));
  FAILS(ct_tensor_item_double(s, &v), CT_ERR_STATE, "called a synchronizing CUDA operation");
  OK(ct_cuda_synchronize(0)); /* explicit synchronization is not reported (as PyTorch) */
  ct_stream cs;
  OK(ct_stream_current(0, &cs));
  FAILS(ct_stream_synchronize(cs), CT_ERR_STATE, "synchronizing");
  OK(ct_stream_release(cs));
  OK(ct_cuda_set_sync_debug_mode(1)); /* warns on stderr, works */
  OK(ct_tensor_item_double(s, &v));
  EXPECT(v == 16);
  OK(ct_cuda_set_sync_debug_mode(0));
  rel(x), rel(y), rel(s);
}

static void test_launch_blocking(void) {
  SKIP_WITHOUT_CUDA();
  const char* lb = getenv("CUDA_LAUNCH_BLOCKING");
  if (!lb || lb[0] != '1') {
    printf("  (CUDA_LAUNCH_BLOCKING is not set: gpu_check.sh runs this suite again with it)\n");
    return;
  }
  /* every launch is synchronous: right after a large op, the stream is idle */
  ct_tensor a, b;
  OK(ct_ones((int64_t[]){1 << 27}, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  OK(ct_unary(CT_EXP, a, &b));
  ct_stream s;
  OK(ct_stream_current(0, &s));
  int32_t done = 0;
  OK(ct_stream_query(s, &done));
  EXPECT_EQ_I(done, 1);
  OK(ct_stream_release(s));
  rel(a), rel(b);
}

TEST_MAIN(TEST_CASE(everywhere), TEST_CASE(without_gpu), TEST_CASE(devices_and_guards), TEST_CASE(streams),
          TEST_CASE(other_device_streams), TEST_CASE(events_and_timing), TEST_CASE(async_copies),
          TEST_CASE(pinned_outlives_stream), TEST_CASE(sync_debug_mode), TEST_CASE(launch_blocking))
