/* An NVTX injection library that records calls, standing in for Nsight Systems in the tests of
 * section 22 (Note [NVTX] in impl/nvtx/nvtx.h): a process started with
 *   NVTX_INJECTION64_PATH=/abs/path/libnvtx_inject.so  CTORCH_NVTX_RECORD=/some/file
 * loads it at its first NVTX call. It keeps a push/pop depth per thread, as a profiler does
 * (push returns the depth of the range it starts, 0, 1, ...; pop the depth of the range it ends;
 * a pop with nothing pushed returns -1, an error), numbers started ranges 1, 2, ... and appends
 * one line per call to CTORCH_NVTX_RECORD (one write(2) of O_APPEND each, so threads' lines never
 * mix):
 *   <call>\t<thread id>\t<value>\t<message as lowercase hex bytes>\n
 * call: mark, push, pop, start, end; value: what push/pop returned, the id of start/end, 0 for
 * mark; the message field is empty for pop and end (and for an empty message). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

static int g_fd = -1;
static _Thread_local int t_depth;
static atomic_ullong g_next_id = 1;

static void record(const char* call, long long value, const char* msg) {
  if (g_fd < 0) return;
  size_t n = msg ? strlen(msg) : 0;
  char* line = malloc(64 + 2 * n);
  if (!line) return;
  int len = snprintf(line, 64, "%s\t%ld\t%lld\t", call, (long)syscall(SYS_gettid), value);
  for (size_t i = 0; i < n; ++i) len += sprintf(line + len, "%02x", (unsigned char)msg[i]);
  line[len++] = '\n';
  ssize_t w = write(g_fd, line, (size_t)len);
  (void)w;
  free(line);
}

static void NVTX_API mark_a(const char* msg) { record("mark", 0, msg); }

static int NVTX_API range_push_a(const char* msg) {
  int d = t_depth++;
  record("push", d, msg);
  return d;
}

static int NVTX_API range_pop(void) {
  int d = t_depth > 0 ? --t_depth : -1;
  record("pop", d, NULL);
  return d;
}

static nvtxRangeId_t NVTX_API range_start_a(const char* msg) {
  unsigned long long id = atomic_fetch_add(&g_next_id, 1);
  record("start", (long long)id, msg);
  return id;
}

static void NVTX_API range_end(nvtxRangeId_t id) { record("end", (long long)id, NULL); }

/* NVTX's entry point (nvtxDetail/nvtxInit.h): fills in the core module's function pointers.
 * Returns 1 on success; 0 makes NVTX fall back to no-ops. */
__attribute__((visibility("default"))) int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  const char* path = getenv("CTORCH_NVTX_RECORD");
  if (path && *path) g_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const NvtxExportTableCallbacks* cb = (const NvtxExportTableCallbacks*)get(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table ||
      size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *table[NVTX_CBID_CORE_MarkA] = (NvtxFunctionPointer)mark_a;
  *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)range_push_a;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)range_pop;
  *table[NVTX_CBID_CORE_RangeStartA] = (NvtxFunctionPointer)range_start_a;
  *table[NVTX_CBID_CORE_RangeEnd] = (NvtxFunctionPointer)range_end;
  return 1;
}
