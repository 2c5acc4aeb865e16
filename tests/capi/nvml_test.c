/* Section 23 of ctorch.h: device monitoring through NVML, torch.cuda.init / is_initialized.
 * Without a GPU (CI): every query's documented error, the NVML device count's -1 or 0, init's
 * CT_ERR_CUDA_UNAVAILABLE, is_initialized 0. With a GPU: the figures' ranges, device memory that
 * grows by what this process allocates, this process in list_gpu_processes, the NVML count equal
 * to the runtime's, CUDA_VISIBLE_DEVICES's mapping. The comparison with nvidia-smi in the same
 * run is tests/gpu/nvml_compare.py. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "tests/capi/test_util.h"

#define MiB (1024LL * 1024LL)

/* What main saw before any test (run_tests initializes CUDA when there is a GPU): */
static int32_t g_initialized_first = -1;         /* is_initialized before anything */
static int32_t g_initialized_after_count = -1;   /* ... after is_available, device_count, count_nvml */
static int32_t g_nvml_count = -2;                /* ct_cuda_device_count_nvml as the process started */

/* Sets CUDA_VISIBLE_DEVICES (NULL: unsets it) for NVML's mapping; the CUDA runtime read it at
 * its start and keeps its devices. restore_visible puts the original back. */
static char g_visible_saved[1024];
static int g_visible_was_set = 0;
static void save_visible(void) {
  const char* v = getenv("CUDA_VISIBLE_DEVICES");
  g_visible_was_set = v != NULL;
  if (v) snprintf(g_visible_saved, sizeof g_visible_saved, "%s", v);
}
static void set_visible(const char* v) {
  if (v) setenv("CUDA_VISIBLE_DEVICES", v, 1);
  else unsetenv("CUDA_VISIBLE_DEVICES");
}
static void restore_visible(void) { set_visible(g_visible_was_set ? g_visible_saved : NULL); }

/* NVML usable: the count is >= 0 with the process's CUDA_VISIBLE_DEVICES (when that names
 * devices); -1 means no libnvidia-ml.so.1, no driver or a failed query. */
static int nvml_usable(void) { return g_nvml_count >= 0; }

typedef ct_status (*int_query)(int32_t, int32_t*);
static const struct {
  const char* name;
  int_query fn;
} k_int_queries[] = {
    {"utilization", ct_cuda_utilization}, {"memory_usage", ct_cuda_memory_usage},
    {"temperature", ct_cuda_temperature}, {"power_draw", ct_cuda_power_draw},
    {"clock_rate", ct_cuda_clock_rate},
};
#define N_INT_QUERIES (int)(sizeof k_int_queries / sizeof k_int_queries[0])

/* list_gpu_processes of device into a malloc'd string (NULL on failure, the status in *st). */
static char* list_processes(int32_t device, ct_status* st) {
  int64_t need = -1;
  for (int tries = 0; tries < 4; ++tries) {
    *st = ct_cuda_list_gpu_processes(device, NULL, 0, &need);
    if (*st != CT_ERR_BUFFER_SIZE) return NULL;
    char* buf = (char*)malloc((size_t)need + 1);
    *st = ct_cuda_list_gpu_processes(device, buf, need + 1, &need);
    if (*st == CT_OK) {
      if ((int64_t)strlen(buf) != need) FAILF("list_gpu_processes: needed %lld, wrote %zu bytes", (long long)need, strlen(buf));
      return buf;
    }
    free(buf);
    if (*st != CT_ERR_BUFFER_SIZE) return NULL;
  }
  return NULL;
}

static void test_init_and_is_initialized(void) {
  EXPECT_EQ_I(g_initialized_first, 0);
  EXPECT_EQ_I(g_initialized_after_count, 0);  /* counting does not initialize, as torch */
  int32_t v = -1;
  if (!g_cuda) {
    FAILS(ct_cuda_init(), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
    FAILS(ct_cuda_init(), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");  /* every time */
    FAILS(ct_cuda_check_available(), CT_ERR_CUDA_UNAVAILABLE, "");
    OK(ct_cuda_is_initialized(&v));
    EXPECT_EQ_I(v, 0);
    return;
  }
  /* run_tests asked for the current device before this test: that initialized CUDA */
  OK(ct_cuda_is_initialized(&v));
  EXPECT_EQ_I(v, 1);
  OK(ct_cuda_init());
  OK(ct_cuda_init());
  v = -1;
  OK(ct_cuda_is_initialized(&v));
  EXPECT_EQ_I(v, 1);
}

static void test_null_out_pointers(void) {
  FAILS(ct_cuda_is_initialized(NULL), CT_ERR_NULL_POINTER, "out");
  FAILS(ct_cuda_device_count_nvml(NULL), CT_ERR_NULL_POINTER, "out");
  for (int i = 0; i < N_INT_QUERIES; ++i) {
    ct_status s = k_int_queries[i].fn(0, NULL);
    if (s != CT_ERR_NULL_POINTER) FAILF("%s(0, NULL) returned %s", k_int_queries[i].name, ct_status_name(s));
  }
  FAILS(ct_cuda_device_memory_used(0, NULL), CT_ERR_NULL_POINTER, "out");
}

static void test_nvml_count_with_nothing_visible(void) {
  /* torch.cuda._device_count_nvml: 0 before asking NVML when the list is empty; -1 for MIG */
  const char* none[] = {"", "-1", "0,0", "1, 1", "x", "GPU-a,GPU-a"};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
    set_visible(none[i]);
    int32_t n = -5;
    OK(ct_cuda_device_count_nvml(&n));
    if (n != 0) FAILF("CUDA_VISIBLE_DEVICES='%s': NVML count %d, expected 0", none[i], n);
  }
  set_visible("MIG-4f1a2b3c-0000-0000-0000-000000000000");
  int32_t n = -5;
  OK(ct_cuda_device_count_nvml(&n));
  EXPECT_EQ_I(n, -1);
  restore_visible();
}

static void test_errors_without_nvml(void) {
  if (nvml_usable()) {
    printf("  SKIP %s: libnvidia-ml.so.1 loads here (the GPU cases check it)\n", g_test_name);
    g_skipped = 1;
    return;
  }
  if (g_visible_was_set) EXPECT(g_nvml_count == -1 || g_nvml_count == 0);
  else EXPECT_EQ_I(g_nvml_count, -1);
  set_visible(NULL);
  int32_t n = -5;
  OK(ct_cuda_device_count_nvml(&n));
  EXPECT_EQ_I(n, -1);
  set_visible("1,0");
  OK(ct_cuda_device_count_nvml(&n));
  EXPECT_EQ_I(n, -1);
  restore_visible();
  const int32_t devices[] = {-1, 0, 1, 64};
  for (int d = 0; d < 4; ++d) {
    for (int i = 0; i < N_INT_QUERIES; ++i) {
      int32_t v = -7;
      FAILS(k_int_queries[i].fn(devices[d], &v), CT_ERR_NOT_SUPPORTED, "libnvidia-ml.so.1");
      EXPECT_EQ_I(v, -7);  /* untouched on failure */
    }
    int64_t used = -7;
    FAILS(ct_cuda_device_memory_used(devices[d], &used), CT_ERR_NOT_SUPPORTED, "libnvidia-ml.so.1");
    EXPECT_EQ_I(used, -7);
    int64_t need = -7;
    char buf[64] = "unchanged";
    FAILS(ct_cuda_list_gpu_processes(devices[d], buf, sizeof buf, &need), CT_ERR_NOT_SUPPORTED, "could not be loaded");
    EXPECT_STR(buf, "unchanged");
  }
  FAILS(ct_cuda_temperature(0, &n), CT_ERR_NOT_SUPPORTED, "torch.cuda's device monitoring");
}

/* GPU cases: a GPU and a usable NVML */
#define SKIP_WITHOUT_NVML()                                                                   \
  do {                                                                                        \
    SKIP_WITHOUT_CUDA();                                                                      \
    if (!nvml_usable()) {                                                                     \
      FAILF("a CUDA device but no usable NVML (count %d): %s", g_nvml_count, "is the driver's libnvidia-ml.so.1 missing?"); \
      return;                                                                                 \
    }                                                                                         \
  } while (0)

static void test_nvml_count_equals_cuda_count(void) {
  SKIP_WITHOUT_NVML();
  int32_t n = -5;
  OK(ct_cuda_device_count_nvml(&n));
  EXPECT_EQ_I(n, g_cuda);
  EXPECT_EQ_I(g_nvml_count, g_cuda);
}

static void test_figures_in_range(void) {
  SKIP_WITHOUT_NVML();
  for (int32_t d = -1; d < g_cuda; ++d) {
    int32_t util = -1, mem = -1, temp = -1, power = -1, clock = -1;
    OK(ct_cuda_utilization(d, &util));
    OK(ct_cuda_memory_usage(d, &mem));
    OK(ct_cuda_temperature(d, &temp));
    OK(ct_cuda_power_draw(d, &power));
    OK(ct_cuda_clock_rate(d, &clock));
    printf("  device %d: utilization %d%%, memory usage %d%%, %d C, %d mW, SM clock %d MHz\n", d, util, mem, temp,
           power, clock);
    if (util < 0 || util > 100) FAILF("device %d: utilization %d", d, util);
    if (mem < 0 || mem > 100) FAILF("device %d: memory usage %d", d, mem);
    if (temp < 1 || temp > 120) FAILF("device %d: temperature %d C", d, temp);
    if (power <= 0 || power > 2000000) FAILF("device %d: power draw %d mW", d, power);
    if (clock <= 0 || clock > 5000) FAILF("device %d: SM clock %d MHz", d, clock);
  }
}

static void test_memory_used_follows_allocations(void) {
  SKIP_WITHOUT_NVML();
  int64_t free0 = 0, total = 0, used0 = 0, used1 = 0;
  OK(ct_cuda_synchronize(0));
  OK(ct_cuda_mem_get_info(0, &free0, &total));
  OK(ct_cuda_device_memory_used(0, &used0));
  printf("  device 0: NVML used %lld MiB; cudaMemGetInfo total %lld MiB, free %lld MiB\n", (long long)(used0 / MiB),
         (long long)(total / MiB), (long long)(free0 / MiB));
  /* NVML's used (version 1) is what is allocated plus the driver's reserve, which
   * cudaMemGetInfo's total leaves out: at least total - free, and not much more */
  if (used0 <= 0 || used0 < total - free0 - 64 * MiB || used0 > total - free0 + 1024 * MiB)
    FAILF("NVML used %lld bytes; cudaMemGetInfo: total %lld, free %lld", (long long)used0, (long long)total,
          (long long)free0);
  /* 512 MiB more, in this process */
  ct_tensor t = NULL;
  OK(ct_empty((const int64_t[]){128 * MiB}, 1, CT_FLOAT32, CT_CUDA, 0, &t));
  OK(ct_cuda_synchronize(0));
  OK(ct_cuda_device_memory_used(0, &used1));
  printf("  after a 512 MiB tensor: NVML used %lld MiB\n", (long long)(used1 / MiB));
  if (used1 - used0 < 500 * MiB || used1 - used0 > 600 * MiB)
    FAILF("NVML used grew by %lld MiB for a 512 MiB tensor", (long long)((used1 - used0) / MiB));
  /* this process is listed after it allocated */
  ct_status st = CT_OK;
  char* text = list_processes(0, &st);
  if (!text) {
    FAILF("list_gpu_processes(0): %s %s", ct_status_name(st), ct_last_error_message());
  } else {
    printf("  list_gpu_processes(0):\n%s\n", text);
    int32_t index = -1;
    char line[64];
    if (sscanf(text, "GPU:%d", &index) != 1 || strncmp(text, "GPU:", 4) != 0) FAILF("list starts '%.20s'", text);
    if (!g_visible_was_set) EXPECT_EQ_I(index, 0);  /* CUDA device 0 is NVML's 0 */
    snprintf(line, sizeof line, "\nprocess %10d uses ", (int)getpid());
    if (strstr(text, "no processes are running")) {
      FAILF("no process listed while this one holds 512 MiB");
    } else if (!strstr(text, line)) {
      /* NVML gives pids of the host's namespace: a process in a container has another */
      if (!strstr(text, "\nprocess ")) FAILF("no process line");
      printf("  NOTE: pid %d is not listed (a PID namespace: NVML reports the host's pids)\n", (int)getpid());
    }
    free(text);
  }
  rel(t);
  OK(ct_cuda_empty_cache());
}

static void test_visible_devices_mapping(void) {
  SKIP_WITHOUT_NVML();
  int32_t v = -1;
  set_visible("");
  FAILS(ct_cuda_temperature(0, &v), CT_ERR_INDEX, "device 0 is not visible (CUDA_VISIBLE_DEVICES=[])");
  set_visible(NULL);
  int32_t physical = -1;
  OK(ct_cuda_device_count_nvml(&physical));  /* every GPU NVML sees */
  EXPECT(physical >= g_cuda);
  FAILS(ct_cuda_utilization(64, &v), CT_ERR_INDEX, "device 64 is not visible (CUDA_VISIBLE_DEVICES=[0");
  FAILS(ct_cuda_list_gpu_processes(physical, NULL, 0, NULL), CT_ERR_INDEX, "is not visible");
  /* NVML's order through the variable: CUDA device 0 is NVML's index `last` */
  char var[32];
  int32_t last = physical - 1;
  snprintf(var, sizeof var, "%d", last);
  set_visible(var);
  ct_status st = CT_OK;
  char* text = list_processes(0, &st);
  char want[32];
  snprintf(want, sizeof want, "GPU:%d\n", last);
  if (!text) FAILF("list_gpu_processes(0) with CUDA_VISIBLE_DEVICES=%s: %s", var, ct_last_error_message());
  else if (strncmp(text, want, strlen(want)) != 0) FAILF("CUDA_VISIBLE_DEVICES=%s: list starts '%.12s'", var, text);
  free(text);
  OK(ct_cuda_device_count_nvml(&v));
  EXPECT_EQ_I(v, 1);
  if (physical >= 2) {
    set_visible("1,0,7777");  /* cut at the first ordinal NVML does not have */
    OK(ct_cuda_device_count_nvml(&v));
    EXPECT_EQ_I(v, 2);
    text = list_processes(1, &st);
    if (!text || strncmp(text, "GPU:0\n", 6) != 0) FAILF("CUDA device 1 of '1,0': '%.12s'", text ? text : "(failed)");
    free(text);
    FAILS(ct_cuda_clock_rate(2, &v), CT_ERR_INDEX, "device 2 is not visible (CUDA_VISIBLE_DEVICES=[1, 0])");
  } else {
    printf("  (one GPU: the reordering cases need two)\n");
  }
  restore_visible();
}

int main(void) {
  save_visible();
  ct_cuda_is_initialized(&g_initialized_first);
  int32_t ignored = 0;
  ct_cuda_is_available(&ignored);
  ct_cuda_device_count(&ignored);
  ct_cuda_device_count_nvml(&g_nvml_count);
  ct_cuda_is_initialized(&g_initialized_after_count);
  printf("NVML device count: %d\n", g_nvml_count);
  const test_case tests[] = {
      TEST_CASE(init_and_is_initialized),
      TEST_CASE(null_out_pointers),
      TEST_CASE(nvml_count_with_nothing_visible),
      TEST_CASE(errors_without_nvml),
      TEST_CASE(nvml_count_equals_cuda_count),
      TEST_CASE(figures_in_range),
      TEST_CASE(memory_used_follows_allocations),
      TEST_CASE(visible_devices_mapping),
  };
  return RUN_TESTS(tests);
}
