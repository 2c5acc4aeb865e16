/* nccl_mode_probe: is the per-call cost of ctorch's all_reduce NCCL's nonblocking mode?
 * (bench/NOTES.md, "Issue 16": the diagnosis to confirm before changing the communicator.)
 *
 * Two processes, one GPU each, NCCL alone (no ctorch, no torch), times back-to-back all_reduces
 * (float32, sum, in place) on the legacy default stream with CUDA events, for three kinds of
 * communicator:
 *   blocking     ncclCommInitRankConfig with blocking = 1 (torch.distributed's default)
 *   nonblocking  blocking = 0, each call followed by polling ncclCommGetAsyncError until it is
 *                no longer ncclInProgress (what ctorch's communicator does)
 *   split        a nonblocking communicator, then ncclCommSplit(color 0, key rank) with
 *                blocking = 1 (polled through the parent), and the calls on the child
 *   split_share  the same with splitShare = 1 (the child shares the parent's resources)
 *   absent       the split child, but rank 1 comes to the first all_reduce 3 s late: rank 0
 *                prints how long its own first call (the host launch, which makes NCCL's lazy
 *                connections) took: about 3 s if a blocking launch waits for a late peer
 * Build and run on the GPU host (two GPUs):
 *   gcc -O2 -I/usr/local/cuda/include bench/comm/nccl_mode_probe.c -o /tmp/probe \
 *       -L/usr/local/cuda/lib64 -lcudart -ldl && /tmp/probe
 * NCCL is opened with dlopen (libnccl.so.2, as ctorch does). Prints one line per mode and size:
 * microseconds per call, median of 5 rounds of 200 calls. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NCCL_FN(name, ...) static ncclResult_t (*p_##name)(__VA_ARGS__)
NCCL_FN(ncclGetUniqueId, ncclUniqueId*);
NCCL_FN(ncclCommInitRankConfig, ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*);
NCCL_FN(ncclCommSplit, ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*);
NCCL_FN(ncclCommGetAsyncError, ncclComm_t, ncclResult_t*);
NCCL_FN(ncclAllReduce, const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
NCCL_FN(ncclCommFinalize, ncclComm_t);
NCCL_FN(ncclCommDestroy, ncclComm_t);

static void load(void) {
  void* h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen("/usr/local/cuda/lib/libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "no libnccl.so.2: %s\n", dlerror()); exit(2); }
#define BIND(name) if (!(*(void**)&p_##name = dlsym(h, #name))) { fprintf(stderr, "no %s\n", #name); exit(2); }
  BIND(ncclGetUniqueId) BIND(ncclCommInitRankConfig) BIND(ncclCommSplit) BIND(ncclCommGetAsyncError)
  BIND(ncclAllReduce) BIND(ncclCommFinalize) BIND(ncclCommDestroy)
}

static void ready(ncclComm_t c, const char* what) {  /* poll a nonblocking communicator */
  ncclResult_t st = ncclInProgress;
  while (st == ncclInProgress) p_ncclCommGetAsyncError(c, &st);
  if (st != ncclSuccess) { fprintf(stderr, "%s failed: %d\n", what, (int)st); exit(3); }
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void run(int rank, int n, ncclUniqueId id, const char* mode) {
  cudaSetDevice(rank);
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  int nonblocking = strcmp(mode, "blocking") != 0;
  cfg.blocking = nonblocking ? 0 : 1;
  ncclComm_t comm = NULL, parent = NULL;
  ncclResult_t r = p_ncclCommInitRankConfig(&comm, n, id, rank, &cfg);
  if (r != ncclSuccess && r != ncclInProgress) { fprintf(stderr, "init: %d\n", (int)r); exit(3); }
  if (nonblocking) ready(comm, "init");
  if (strncmp(mode, "split", 5) == 0 || strcmp(mode, "absent") == 0) {
    parent = comm;
    comm = NULL;
    ncclConfig_t child = NCCL_CONFIG_INITIALIZER;
    child.blocking = 1;
    if (strcmp(mode, "split_share") == 0) child.splitShare = 1;
    r = p_ncclCommSplit(parent, 0, rank, &comm, &child);
    if (r != ncclSuccess && r != ncclInProgress) { fprintf(stderr, "split: %d\n", (int)r); exit(3); }
    ready(parent, "split");
    nonblocking = 0;  /* the calls go to the blocking child */
  }
  static const size_t sizes[] = {8, 1024, 1 << 20, 16 << 20};
  float* buf = NULL;
  cudaMalloc((void**)&buf, 16 << 20);
  if (strcmp(mode, "absent") == 0) {
    struct timespec t0, t1;
    if (rank == 1) sleep(3);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r = p_ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, comm, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rank == 0)
      printf("absent: rank 0's first all_reduce call returned %d after %.3f s (rank 1 came 3 s late)\n", (int)r,
             (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    cudaDeviceSynchronize();
    fflush(stdout);
    p_ncclCommDestroy(comm);
    if (p_ncclCommFinalize(parent) == ncclInProgress) ready(parent, "finalize");
    p_ncclCommDestroy(parent);
    return;
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    size_t count = sizes[k] / 4 ? sizes[k] / 4 : 1;
    double us[5];
    for (int round = -1; round < 5; ++round) {  /* round -1: warm-up */
      cudaDeviceSynchronize();
      cudaEventRecord(e0, 0);
      for (int i = 0; i < 200; ++i) {
        r = p_ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, 0);
        if (r != ncclSuccess && r != ncclInProgress) { fprintf(stderr, "all_reduce: %d\n", (int)r); exit(3); }
        if (nonblocking) ready(comm, "all_reduce");
      }
      cudaEventRecord(e1, 0);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (round >= 0) us[round] = ms * 1000.0 / 200;
    }
    qsort(us, 5, sizeof us[0], cmp);
    if (rank == 0) printf("%-12s %9zu bytes  %8.2f us per all_reduce\n", mode, sizes[k], us[2]);
  }
  fflush(stdout);
  if (strcmp(mode, "blocking") == 0) {
    p_ncclCommDestroy(comm);
  } else {
    if (p_ncclCommFinalize(comm) == ncclInProgress) ready(comm, "finalize");
    p_ncclCommDestroy(comm);
    if (parent) {
      if (p_ncclCommFinalize(parent) == ncclInProgress) ready(parent, "finalize");
      p_ncclCommDestroy(parent);
    }
  }
}

int main(void) {
  load();
  static const char* modes[] = {"absent", "blocking", "nonblocking", "split", "split_share"};
  for (int m = 0; m < 5; ++m) {
    int fd[2];
    if (pipe(fd) != 0) return 1;
    pid_t kids[2];
    for (int rank = 0; rank < 2; ++rank) {
      kids[rank] = fork();
      if (kids[rank] == 0) {
        ncclUniqueId id;
        if (rank == 0) {  /* the bootstrap root lives in the process that made the id */
          if (p_ncclGetUniqueId(&id) != ncclSuccess) _exit(4);
          if (write(fd[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(4);
          if (write(fd[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(4);
        }
        if (read(fd[0], &id, sizeof id) != (ssize_t)sizeof id) _exit(4);
        run(rank, 2, id, modes[m]);
        _exit(0);
      }
    }
    int bad = 0;
    for (int rank = 0; rank < 2; ++rank) {
      int st = 0;
      waitpid(kids[rank], &st, 0);
      bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    close(fd[0]);
    close(fd[1]);
    if (bad) fprintf(stderr, "%s: a rank failed\n", modes[m]);
  }
  return 0;
}
