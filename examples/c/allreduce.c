/* An NCCL communicator from C (docs/comm.md): nranks processes all-reduce a tensor. Rank 0
 * writes the communicator's unique id to a file, the others read it from there, and each
 * joins with its rank on GPU rank % device_count. As PyTorch:
 *
 *   dist.init_process_group("nccl", rank=rank, world_size=nranks, init_method="file://...")
 *   t = torch.full((4,), rank + 1.0, device=f"cuda:{rank % torch.cuda.device_count()}")
 *   dist.all_reduce(t)          # every element: 1 + 2 + ... + nranks
 *
 * usage: allreduce [rank nranks id-file]   (defaults: 0 1 and a file in the temp folder; two
 * ranks or more need the file named)
 * Two processes on one host:
 *   allreduce 0 2 /tmp/ct_id & allreduce 1 2 /tmp/ct_id
 * Two hosts: the same two commands, one on each host, with the id file on a shared file
 * system (or copied to the second host once rank 0 has written it). Nothing else changes:
 * NCCL finds the network itself. Without CUDA or NCCL it says why and exits 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ctorch.h>

enum { N = 4 };
static const int64_t kWaitForIdMs = 60000; /* how long the other ranks wait for the id file */
static const int64_t kTimeoutMs = 60000;   /* the communicator's timeout (joining, collectives) */

/* Exits with the library's message when a call fails. */
static void ok(ct_status s, const char* what) {
  if (s == CT_OK) return;
  fprintf(stderr, "%s failed: %s: %s\n", what, ct_status_name(s), ct_last_error_message());
  exit(1);
}

/* Rank 0: the id written to a temporary name, then renamed, so a reader never sees half of it. */
static void write_id(const char* path, const unsigned char* id) {
  char tmp[4096 + 32]; /* path (at most 4095 bytes, main checks) and ".tmp.<pid>" */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE* f = fopen(tmp, "wb");
  if (!f || fwrite(id, 1, CT_NCCL_UNIQUE_ID_BYTES, f) != CT_NCCL_UNIQUE_ID_BYTES || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s: %s\n", tmp, strerror(errno));
    exit(1);
  }
  if (rename(tmp, path) != 0) {
    fprintf(stderr, "cannot rename %s to %s: %s\n", tmp, path, strerror(errno));
    exit(1);
  }
}

/* The other ranks: poll until the file holds a whole id, at most kWaitForIdMs. */
static void read_id(const char* path, unsigned char* id) {
  struct timespec pause = {0, 50 * 1000 * 1000};
  for (int64_t waited = 0; waited <= kWaitForIdMs; waited += 50) {
    FILE* f = fopen(path, "rb");
    if (f) {
      size_t n = fread(id, 1, CT_NCCL_UNIQUE_ID_BYTES, f);
      fclose(f);
      if (n == CT_NCCL_UNIQUE_ID_BYTES) return;
    }
    nanosleep(&pause, NULL);
  }
  fprintf(stderr, "no unique id in %s after %lld ms: is rank 0 running?\n", path, (long long)kWaitForIdMs);
  exit(1);
}

int main(int argc, char** argv) {
  int rank = argc > 1 ? atoi(argv[1]) : 0;
  int nranks = argc > 2 ? atoi(argv[2]) : 1;
  char default_path[4096];
  const char* tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(default_path, sizeof default_path, "%s/ctorch_allreduce_id.%ld", tmpdir, (long)getpid());
  const char* path = argc > 3 ? argv[3] : default_path;
  if (nranks < 1 || rank < 0 || rank >= nranks || (nranks > 1 && argc <= 3) || strlen(path) >= 4096) {
    fprintf(stderr, "usage: %s [rank nranks id-file] with 0 <= rank < nranks (the id file is needed for 2 ranks or more)\n",
            argv[0]);
    return 2;
  }
  int32_t devices = 0, nccl = 0;
  ok(ct_cuda_device_count(&devices), "device_count");
  ok(ct_nccl_is_available(&nccl), "nccl_is_available");
  if (devices == 0 || !nccl) {
    printf("an NCCL communicator needs %s; nothing to do.\n",
           devices == 0 ? "a CUDA device (none here)" : "NCCL (libnccl.so.2 cannot be loaded)");
    return 0;
  }
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  if (rank == 0) {
    ok(ct_nccl_get_unique_id(id, sizeof id), "get_unique_id");
    write_id(path, id);
  } else {
    read_id(path, id);
  }
  int device = rank % devices;
  ct_nccl_comm comm;
  ok(ct_nccl_comm_init_rank(nranks, id, sizeof id, rank, device, kTimeoutMs, &comm), "comm_init_rank");
  /* Every member has joined (the init waits for all), so every one has read the id: rank 0
   * removes the file, and the next run cannot pick up this run's id. */
  if (rank == 0) remove(path);

  ct_tensor t;
  ok(ct_full((int64_t[]){N}, 1, rank + 1.0, CT_FLOAT32, CT_CUDA, device, &t), "full");
  ok(ct_nccl_all_reduce(comm, t, CT_COMM_SUM, NULL), "all_reduce"); /* queued on the current stream */
  float got[N];
  ok(ct_tensor_copy_to_buffer(t, got, sizeof got), "copy"); /* waits for the stream */
  ok(ct_nccl_comm_check(comm), "comm_check");

  float want = nranks * (nranks + 1) / 2.0f;
  printf("rank %d of %d on cuda:%d: all_reduce(SUM) of %d.0 =", rank, nranks, device, rank + 1);
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    printf(" %.1f", got[i]);
    bad |= got[i] != want;
  }
  printf(bad ? "   expected %.1f: WRONG\n" : "   (= %.1f)\n", want);
  ct_tensor_release(t);
  ok(ct_nccl_comm_destroy(comm), "comm_destroy");
  ok(ct_nccl_comm_release(comm), "comm_release");
  return bad ? 1 : 0;
}
