/* The caching allocator from C: statistics with hand-computed values, empty_cache, the memory
 * fraction, out of memory, raw allocations, snapshots, cross-stream reuse. The policy itself is
 * covered without a GPU by tests/impl/caching_allocator_test.cc. */
#include "tests/capi/test_util.h"

static const int64_t MiB = 1 << 20;

static int64_t st(const char* key) {
  int64_t v = -1;
  OK(ct_cuda_memory_stat(0, key, &v));
  return v;
}

static ct_tensor bytes(int64_t n) {
  ct_tensor t = NULL;
  OK(ct_empty(&n, 1, CT_UINT8, CT_CUDA, 0, &t));
  return t;
}

static void noop_hook(int32_t device, int64_t bytes, void* ctx) {
  (void)device, (void)bytes;
  if (ctx) ++*(int*)ctx;
}

static void test_everywhere(void) {
  char buf[32];
  int64_t need;
  OK(ct_cuda_get_allocator_backend(buf, sizeof buf, &need));
  EXPECT_STR(buf, "native");
  FAILS(ct_cuda_caching_allocator_delete(12345), CT_ERR_ARGUMENT, "is not memory from ct_cuda_caching_allocator_alloc");
  /* hooks can be added and removed without a GPU */
  int64_t id1 = -1, id2 = -1;
  FAILS(ct_cuda_add_oom_hook(NULL, NULL, &id1), CT_ERR_NULL_POINTER, "hook");
  FAILS(ct_cuda_add_oom_hook(noop_hook, NULL, NULL), CT_ERR_NULL_POINTER, "id");
  OK(ct_cuda_add_oom_hook(noop_hook, NULL, &id1));
  OK(ct_cuda_add_oom_hook(noop_hook, NULL, &id2));
  EXPECT(id1 != id2);
  OK(ct_cuda_remove_oom_hook(id1));
  FAILS(ct_cuda_remove_oom_hook(id1), CT_ERR_ARGUMENT, "no out-of-memory hook has id");
  OK(ct_cuda_remove_oom_hook(id2));
  int64_t sv;
  FAILS(ct_cuda_memory_stream_stat(NULL, "allocated_bytes.current", &sv), CT_ERR_INVALID_HANDLE, "stream");
  if (g_cuda) return;
  int64_t v;
  FAILS(ct_cuda_memory_allocated(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  FAILS(ct_cuda_memory_stat(0, "allocated_bytes.all.current", &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_empty_cache(), CT_ERR_CUDA_UNAVAILABLE, "");
  char b2[64];
  FAILS(ct_cuda_memory_summary(-1, 0, b2, sizeof b2, &need), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_set_per_process_memory_fraction(0.5, 0), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_caching_allocator_alloc(16, -1, NULL, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_max_memory_allocated(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_memory_reserved(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_max_memory_reserved(-1, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_reset_peak_memory_stats(-1), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_reset_max_memory_allocated(-1), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_reset_accumulated_memory_stats(-1), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_memory_stats_keys(-1, b2, sizeof b2, &need), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_memory_snapshot(-1, b2, sizeof b2, &need), CT_ERR_CUDA_UNAVAILABLE, "");
}

static void test_statistics(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_empty_cache());
  int64_t base_alloc = st("allocated_bytes.all.current");
  int64_t base_res = st("reserved_bytes.all.current");
  ct_tensor a = bytes(100); /* rounded to 512 in a new 2 MiB small segment */
  EXPECT_EQ_I(st("allocated_bytes.all.current") - base_alloc, 512);
  EXPECT_EQ_I(st("requested_bytes.all.current") >= 100, 1);
  EXPECT_EQ_I(st("reserved_bytes.small_pool.current") - base_res >= 0, 1);
  int64_t v;
  OK(ct_cuda_memory_allocated(0, &v));
  EXPECT_EQ_I(v, st("allocated_bytes.all.current"));
  OK(ct_cuda_memory_reserved(-1, &v));
  EXPECT_EQ_I(v, st("reserved_bytes.all.current"));
  ct_tensor b = bytes(5 * MiB); /* large pool: a 20 MiB segment */
  EXPECT_EQ_I(st("allocated_bytes.large_pool.current"), 5 * MiB);
  EXPECT_EQ_I(st("reserved_bytes.large_pool.current"), 20 * MiB);
  rel(b);
  EXPECT_EQ_I(st("allocated_bytes.large_pool.current"), 0);
  EXPECT_EQ_I(st("reserved_bytes.large_pool.current"), 20 * MiB); /* cached */
  OK(ct_cuda_max_memory_allocated(0, &v));
  EXPECT(v >= 5 * MiB + 512);
  OK(ct_cuda_max_memory_reserved(0, &v));
  EXPECT(v >= 22 * MiB);
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(st("reserved_bytes.large_pool.current"), 0);
  OK(ct_cuda_reset_peak_memory_stats(0));
  OK(ct_cuda_max_memory_allocated(0, &v));
  EXPECT_EQ_I(v, st("allocated_bytes.all.current"));
  OK(ct_cuda_reset_max_memory_allocated(0));
  OK(ct_cuda_reset_accumulated_memory_stats(0));
  EXPECT_EQ_I(st("allocated_bytes.all.allocated"), 0);
  EXPECT_EQ_I(st("num_device_alloc"), 0);
  FAILS(ct_cuda_memory_stat(0, "allocated_bytes.everything", &v), CT_ERR_ARGUMENT, "unknown memory_stats key");
  char keys[1 << 15];
  int64_t need;
  OK(ct_cuda_memory_stats_keys(0, keys, sizeof keys, &need));
  EXPECT(strstr(keys, "allocated_bytes.all.current\n") != NULL);
  EXPECT(strstr(keys, "inactive_split_bytes.small_pool.freed\n") != NULL);
  EXPECT(strstr(keys, "num_alloc_retries\n") != NULL);
  char summary[1 << 14];
  OK(ct_cuda_memory_summary(0, 0, summary, sizeof summary, &need));
  EXPECT(strstr(summary, "ctorch CUDA memory summary, device ID 0") != NULL);
  EXPECT(strstr(summary, "from large pool") != NULL);
  OK(ct_cuda_memory_summary(-1, 1, summary, sizeof summary, &need));
  EXPECT(strstr(summary, "from large pool") == NULL);
  char snap[1 << 15];
  OK(ct_cuda_memory_snapshot(0, snap, sizeof snap, &need));
  EXPECT(strstr(snap, "\"segment_type\": \"small\"") != NULL);
  EXPECT(strstr(snap, "\"state\": \"active_allocated\"") != NULL);
  rel(a);
}

static void test_reuse_and_streams(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_empty_cache());
  ct_tensor a = bytes(3 * MiB);
  int64_t before = st("num_device_alloc");
  rel(a);
  ct_tensor b = bytes(3 * MiB); /* the freed block comes back: no new device allocation */
  EXPECT_EQ_I(st("num_device_alloc"), before);
  /* on another stream the cached block is not used */
  ct_stream s, prev;
  int32_t pd;
  OK(ct_stream_create(0, 0, &s));
  rel(b);
  OK(ct_stream_guard_enter(s, &prev, &pd));
  ct_tensor c = bytes(3 * MiB);
  OK(ct_stream_guard_exit(prev, pd));
  EXPECT_EQ_I(st("num_device_alloc"), before + 1);
  /* record_stream: a freed block stays active until the stream's work is done */
  ct_tensor d = bytes(4096);
  int64_t active = st("active.all.current");
  OK(ct_tensor_record_stream(d, s));
  rel(d);
  EXPECT_EQ_I(st("active.all.current"), active);
  OK(ct_stream_synchronize(s));
  ct_tensor e = bytes(64); /* events are polled at the next allocation */
  EXPECT_EQ_I(st("active.all.current"), active);
  rel(e), rel(c);
  OK(ct_stream_release(s));
  /* raw allocations */
  int64_t p = 0;
  OK(ct_cuda_caching_allocator_alloc(1000, 0, NULL, &p));
  EXPECT(p != 0);
  OK(ct_cuda_caching_allocator_delete(p));
  FAILS(ct_cuda_caching_allocator_delete(p), CT_ERR_ARGUMENT, "freed already");
  FAILS(ct_cuda_caching_allocator_alloc(0, 0, NULL, &p), CT_ERR_ARGUMENT, "size must be positive");
}

static void test_pinned_memory_cache(void) {
  SKIP_WITHOUT_CUDA();
  const int64_t n = 64LL << 20; /* 256 MiB of float32: the copy takes milliseconds */
  ct_tensor host, p1, g, p2, p3;
  OK(ct_full(&n, 1, 2.0, CT_FLOAT32, CT_CPU, -1, &host));
  OK(ct_tensor_pin_memory(host, &p1));
  int64_t a1 = 0, a2 = 0, a3 = 0;
  OK(ct_tensor_data_ptr(p1, &a1));
  OK(ct_tensor_to(p1, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 1, 0, &g)); /* in flight */
  rel(p1);                                                       /* freed while copying */
  OK(ct_tensor_pin_memory(host, &p2));
  OK(ct_tensor_data_ptr(p2, &a2));
  EXPECT(a2 != a1); /* p1's block waits for its copy */
  OK(ct_cuda_synchronize(0));
  rel(p2);
  OK(ct_tensor_pin_memory(host, &p3)); /* both blocks are free now: one is reused */
  OK(ct_tensor_data_ptr(p3, &a3));
  EXPECT(a3 == a1 || a3 == a2);
  ct_tensor mn;
  OK(ct_reduce(CT_AMIN, g, NULL, 0, 0, CT_DTYPE_UNDEFINED, &mn));
  EXPECT_VALS(mn, 0, 2);
  rel(mn), rel(p3), rel(g), rel(host);
}

static void test_out_of_memory_and_fraction(void) {
  SKIP_WITHOUT_CUDA();
  int64_t total = 0, freeb = 0;
  OK(ct_cuda_mem_get_info(0, &freeb, &total));
  ct_tensor t = NULL;
  int64_t huge = 2 * total;
  FAILS(ct_empty(&huge, 1, CT_UINT8, CT_CUDA, 0, &t), CT_ERR_OUT_OF_MEMORY, "CUDA out of memory. Tried to allocate");
  EXPECT(strstr(ct_last_error_message(), "is reserved by ctorch but unallocated") != NULL);
  EXPECT(st("num_ooms") >= 1);
  /* a fraction limits what the allocator reserves */
  OK(ct_cuda_empty_cache());
  OK(ct_cuda_set_per_process_memory_fraction(0.01, 0));
  int64_t n = total / 50; /* 2% of the device */
  FAILS(ct_empty(&n, 1, CT_UINT8, CT_CUDA, 0, &t), CT_ERR_OUT_OF_MEMORY, "allowed;");
  FAILS(ct_cuda_set_per_process_memory_fraction(2.0, 0), CT_ERR_ARGUMENT, "between 0 and 1");
  OK(ct_cuda_set_per_process_memory_fraction(1.0, 0));
  OK(ct_empty(&n, 1, CT_UINT8, CT_CUDA, 0, &t));
  rel(t);
  OK(ct_cuda_empty_cache());
}

/* Tensors "dropped" by the program: the hook releases them, as a binding's collector would. */
typedef struct {
  ct_tensor dropped[64];
  int n, calls;
  int64_t last_request;
} dropped_list;

static void release_dropped(int32_t device, int64_t bytes, void* ctx) {
  dropped_list* d = (dropped_list*)ctx;
  EXPECT_EQ_I(device, 0);
  d->calls++;
  d->last_request = bytes;
  for (int i = 0; i < d->n; ++i) ct_tensor_release(d->dropped[i]);
  d->n = 0;
}

static void test_oom_hooks(void) {
  SKIP_WITHOUT_CUDA();
  int64_t total = 0, freeb = 0;
  OK(ct_cuda_mem_get_info(0, &freeb, &total));
  OK(ct_cuda_empty_cache());
  OK(ct_cuda_set_per_process_memory_fraction(0.01, 0));
  int64_t n = total / 400; /* a quarter of the allowed memory */
  int64_t ooms = st("num_ooms");
  dropped_list d = {{0}, 0, 0, 0};
  int64_t id;
  OK(ct_cuda_add_oom_hook(release_dropped, &d, &id));
  for (int i = 0; i < 20; ++i) { /* five times what fits, never released by the loop */
    ct_tensor t = NULL;
    OK(ct_empty(&n, 1, CT_UINT8, CT_CUDA, 0, &t));
    d.dropped[d.n++] = t;
  }
  EXPECT(d.calls >= 4);
  EXPECT_EQ_I(d.last_request, n);
  EXPECT_EQ_I(st("num_ooms"), ooms);
  OK(ct_cuda_remove_oom_hook(id));
  /* without the hook, the same program runs out of memory, with PyTorch's message */
  ct_tensor t = NULL;
  int calls = 0;
  OK(ct_cuda_add_oom_hook(noop_hook, &calls, &id));
  for (int i = 0; i < 20 && d.n < 64; ++i) {
    ct_status s = ct_empty(&n, 1, CT_UINT8, CT_CUDA, 0, &t);
    if (s != CT_OK) {
      EXPECT_EQ_I(s, CT_ERR_OUT_OF_MEMORY);
      EXPECT(strstr(ct_last_error_message(), "is allocated by ctorch") != NULL);
      break;
    }
    d.dropped[d.n++] = t;
  }
  EXPECT_EQ_I(calls, 1);
  EXPECT_EQ_I(st("num_ooms"), ooms + 1);
  OK(ct_cuda_remove_oom_hook(id));
  for (int i = 0; i < d.n; ++i) rel(d.dropped[i]);
  OK(ct_cuda_set_per_process_memory_fraction(1.0, 0));
  OK(ct_cuda_empty_cache());
}

static int64_t sst(ct_stream s, const char* key) {
  int64_t v = -1;
  OK(ct_cuda_memory_stream_stat(s, key, &v));
  return v;
}

static void test_stream_stats(void) {
  SKIP_WITHOUT_CUDA();
  OK(ct_cuda_empty_cache());
  ct_stream s, def, prev;
  int32_t pd;
  OK(ct_stream_create(0, 0, &s));
  OK(ct_stream_default(0, &def));
  EXPECT_EQ_I(sst(s, "allocation.allocated"), 0);
  int64_t def_alloc = sst(def, "allocated_bytes.current");
  OK(ct_stream_guard_enter(s, &prev, &pd));
  ct_tensor a = bytes(1000), b = bytes(3 * MiB);
  OK(ct_stream_guard_exit(prev, pd));
  ct_tensor c = bytes(512); /* on the default stream */
  EXPECT_EQ_I(sst(s, "allocation.current"), 2);
  EXPECT_EQ_I(sst(s, "allocated_bytes.current"), 1024 + 3 * MiB);
  EXPECT_EQ_I(sst(s, "requested_bytes.current"), 1000 + 3 * MiB);
  EXPECT_EQ_I(sst(s, "segment.current"), 2);
  EXPECT_EQ_I(sst(s, "reserved_bytes.current"), 22 * MiB);
  EXPECT_EQ_I(sst(def, "allocated_bytes.current") - def_alloc, 512);
  rel(a);
  rel(b);
  EXPECT_EQ_I(sst(s, "allocated_bytes.current"), 0);
  EXPECT_EQ_I(sst(s, "allocated_bytes.peak"), 1024 + 3 * MiB);
  EXPECT_EQ_I(sst(s, "allocated_bytes.freed"), 1024 + 3 * MiB);
  EXPECT_EQ_I(sst(s, "reserved_bytes.current"), 22 * MiB); /* cached */
  int64_t v;
  FAILS(ct_cuda_memory_stream_stat(s, "allocated_bytes.all.current", &v), CT_ERR_ARGUMENT, "unknown per-stream");
  OK(ct_cuda_empty_cache());
  EXPECT_EQ_I(sst(s, "reserved_bytes.current"), 0);
  OK(ct_cuda_reset_peak_memory_stats(0));
  EXPECT_EQ_I(sst(s, "allocated_bytes.peak"), 0);
  rel(c);
  ct_stream_release(s);
  ct_stream_release(def);
  OK(ct_cuda_empty_cache());
}

TEST_MAIN(TEST_CASE(everywhere), TEST_CASE(statistics), TEST_CASE(reuse_and_streams),
          TEST_CASE(pinned_memory_cache), TEST_CASE(out_of_memory_and_fraction), TEST_CASE(oom_hooks),
          TEST_CASE(stream_stats))
