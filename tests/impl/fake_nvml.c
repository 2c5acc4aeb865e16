/* A stand-in for the driver's libnvidia-ml.so.1, for tests/impl/nvml_fake_test.cc on machines
 * without a GPU: the functions ctorch takes from NVML (impl/cuda/nvml.cc), with figures that
 * follow from the device index and behaviour set by environment variables read at each call:
 *   FAKE_NVML_INIT      nvmlInit_v2's return value (default 0)
 *   FAKE_NVML_COUNT     the number of GPUs (default 3)
 *   FAKE_NVML_TEMP_RC   nvmlDeviceGetTemperature's return value (default 0)
 *   FAKE_NVML_PROCS     compute processes on each GPU (default 0): pid 100 + k, (k + 1) MiB
 *   FAKE_NVML_NA        when set, the last process's memory is NVML_VALUE_NOT_AVAILABLE
 *   FAKE_NVML_GROW      when set, 9 more processes appear after the size query (more than the
 *                       slack a caller adds), once per FAKE_NVML_GROW value seen
 * GPU i: UUID kUuids[i], utilization 10 + i %, memory usage 20 + i %, 30 + i C, 100000 + i mW,
 * SM clock 1000 + i MHz, (i + 1) GiB used. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

typedef struct {
  unsigned int gpu, memory;
} utilization_t;
typedef struct {
  unsigned long long total, free, used;
} memory_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
} process_t;

static const char* const kUuids[] = {
    "GPU-11111111-aaaa-bbbb-cccc-000000000000", "GPU-22222222-aaaa-bbbb-cccc-000000000001",
    "GPU-12345678-aaaa-bbbb-cccc-000000000002", "GPU-33333333-aaaa-bbbb-cccc-000000000003"};

static int env_int(const char* name, int fallback) {
  const char* v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}

static unsigned int count(void) {
  int n = env_int("FAKE_NVML_COUNT", 3);
  return n < 0 ? 0 : n > 4 ? 4 : (unsigned int)n;
}

/* the device index of a handle; -1 for one this library did not give */
static int index_of(void* h) {
  intptr_t i = (intptr_t)h - 1;
  return i >= 0 && i < (intptr_t)count() ? (int)i : -1;
}

API int nvmlInit_v2(void) { return env_int("FAKE_NVML_INIT", 0); }

API const char* nvmlErrorString(int r) {
  switch (r) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
  }
}

API int nvmlDeviceGetCount_v2(unsigned int* n) {
  if (!n) return 2;
  *n = count();
  return 0;
}

API int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void** h) {
  if (!h || i >= count()) return 2;
  *h = (void*)(intptr_t)(i + 1);
  return 0;
}

API int nvmlDeviceGetUUID(void* h, char* buf, unsigned int len) {
  int i = index_of(h);
  if (i < 0 || !buf) return 2;
  if (len < strlen(kUuids[i]) + 1) return 7;
  strcpy(buf, kUuids[i]);
  return 0;
}

API int nvmlDeviceGetUtilizationRates(void* h, utilization_t* u) {
  int i = index_of(h);
  if (i < 0 || !u) return 2;
  u->gpu = 10 + i;
  u->memory = 20 + i;
  return 0;
}

API int nvmlDeviceGetTemperature(void* h, unsigned int sensor, unsigned int* t) {
  int i = index_of(h);
  if (i < 0 || !t || sensor != 0) return 2;  /* NVML_TEMPERATURE_GPU */
  int rc = env_int("FAKE_NVML_TEMP_RC", 0);
  if (rc) return rc;
  *t = 30 + i;
  return 0;
}

API int nvmlDeviceGetPowerUsage(void* h, unsigned int* mw) {
  int i = index_of(h);
  if (i < 0 || !mw) return 2;
  *mw = 100000 + i;
  return 0;
}

API int nvmlDeviceGetClockInfo(void* h, unsigned int type, unsigned int* mhz) {
  int i = index_of(h);
  if (i < 0 || !mhz || type != 1) return 2;  /* NVML_CLOCK_SM */
  *mhz = 1000 + i;
  return 0;
}

API int nvmlDeviceGetMemoryInfo(void* h, memory_t* m) {
  int i = index_of(h);
  if (i < 0 || !m) return 2;
  m->total = 80ULL << 30;
  m->used = (unsigned long long)(i + 1) << 30;
  m->free = m->total - m->used;
  return 0;
}

static int g_extra = 0;    /* processes that appeared after a size query */
static int g_grown = 0;    /* the FAKE_NVML_GROW value that last grew the list */

API int nvmlDeviceGetComputeRunningProcesses_v3(void* h, unsigned int* n, process_t* infos) {
  if (index_of(h) < 0 || !n) return 2;
  int grow = env_int("FAKE_NVML_GROW", 0);
  if (!grow) g_extra = 0;
  unsigned int have = (unsigned int)(env_int("FAKE_NVML_PROCS", 0) + g_extra);
  if (*n < have) {
    *n = have;
    if (grow && grow != g_grown) {  /* a process started between the two calls */
      g_grown = grow;
      g_extra += 9;
    }
    return 7;  /* NVML_ERROR_INSUFFICIENT_SIZE */
  }
  if (have && !infos) return 2;
  for (unsigned int k = 0; k < have; ++k) {
    infos[k].pid = 100 + k;
    infos[k].usedGpuMemory = (unsigned long long)(k + 1) << 20;
    infos[k].gpuInstanceId = infos[k].computeInstanceId = 0xFFFFFFFFu;
  }
  if (have && getenv("FAKE_NVML_NA")) infos[have - 1].usedGpuMemory = ~0ULL;
  *n = have;
  return 0;
}
