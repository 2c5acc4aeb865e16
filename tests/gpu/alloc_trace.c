/* The allocation sequence of tests/gpu/alloc_compare.py, in ctorch: prints every memory_stats
 * key after each step as "step <n> <key> <value>". The same steps run in torch on the same
 * GPU, and the script compares the two. */
#include <stdio.h>
#include <string.h>

#include "tests/capi/test_util.h" /* REQUIRE: a failed call ends the program */

static ct_tensor alloc(int64_t bytes) {
  ct_tensor t;
  REQUIRE(ct_empty(&bytes, 1, CT_UINT8, CT_CUDA, 0, &t));
  return t;
}

static void dump(int step) {
  static char keys[1 << 16];
  int64_t n;
  REQUIRE(ct_cuda_memory_stats_keys(0, keys, sizeof keys, &n));
  char* save = NULL;
  for (char* k = strtok_r(keys, "\n", &save); k; k = strtok_r(NULL, "\n", &save)) {
    int64_t v;
    REQUIRE(ct_cuda_memory_stat(0, k, &v));
    printf("step %d %s %lld\n", step, k, (long long)v);
  }
}

int main(void) {
  g_test_name = "alloc_trace"; /* in REQUIRE's message */
  const int64_t MiB = 1 << 20;
  ct_tensor a = alloc(100);
  dump(1);
  ct_tensor b = alloc(600);
  dump(2);
  REQUIRE(ct_tensor_release(a));
  dump(3);
  ct_tensor c = alloc(5 * MiB);
  dump(4);
  ct_tensor d = alloc(12 * MiB + 1);
  dump(5);
  REQUIRE(ct_tensor_release(b));
  REQUIRE(ct_tensor_release(c));
  dump(6);
  ct_tensor e = alloc(30 * MiB);
  dump(7);
  /* another stream: its blocks come from their own segments */
  ct_stream s, prev;
  int32_t prev_dev;
  REQUIRE(ct_stream_create(0, 0, &s));
  REQUIRE(ct_stream_guard_enter(s, &prev, &prev_dev));
  ct_tensor f = alloc(4096);
  REQUIRE(ct_stream_guard_exit(prev, prev_dev));
  dump(8);
  REQUIRE(ct_tensor_release(f));
  ct_tensor g = alloc(4096);
  dump(9);
  /* record_stream: freed, but pending until the stream's work is done */
  ct_tensor h = alloc(8192);
  REQUIRE(ct_tensor_record_stream(h, s));
  REQUIRE(ct_tensor_release(h));
  REQUIRE(ct_stream_synchronize(s));
  ct_tensor i = alloc(1000);
  dump(10);
  REQUIRE(ct_cuda_empty_cache());
  dump(11);
  REQUIRE(ct_cuda_reset_peak_memory_stats(0));
  dump(12);
  static char summary[1 << 16];
  int64_t sn;
  REQUIRE(ct_cuda_memory_summary(0, 0, summary, sizeof summary, &sn));
  FILE* f1 = fopen("summary_full.txt", "w");
  fputs(summary, f1);
  fclose(f1);
  REQUIRE(ct_cuda_memory_summary(0, 1, summary, sizeof summary, &sn));
  FILE* f2 = fopen("summary_abbrev.txt", "w");
  fputs(summary, f2);
  fclose(f2);
  ct_tensor big = alloc(200 * MiB);
  REQUIRE(ct_tensor_release(big));
  ct_tensor big2 = alloc(150 * MiB);
  dump(13);
  REQUIRE(ct_tensor_release(big2));
  REQUIRE(ct_tensor_release(d));
  REQUIRE(ct_tensor_release(e));
  REQUIRE(ct_tensor_release(g));
  REQUIRE(ct_tensor_release(i));
  REQUIRE(ct_cuda_empty_cache());
  dump(14);
  REQUIRE(ct_stream_release(s));
  return 0;
}
