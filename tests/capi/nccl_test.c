/* Section 21 of ctorch.h: NCCL communicators. Written from the header's contract; every value
 * is computed by hand. One GPU allows single-rank communicators (every collective of one member
 * leaves its data as it is, or copies it); with two or more GPUs, one thread per GPU joins one
 * communicator. The comparison with torch.distributed over several processes is
 * tests/gpu/nccl_dist_compare.py. Without CUDA the CPU errors are checked; with a GPU but no
 * loadable NCCL, the GPU cases skip visibly after checking CT_ERR_NOT_SUPPORTED. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <time.h>

#include "tests/capi/test_util.h"

static int g_nccl = -1; /* ct_nccl_is_available, asked once */

static int nccl_available(void) {
  if (g_nccl < 0) {
    int32_t a = -1;
    OK(ct_nccl_is_available(&a));
    g_nccl = a == 1;
  }
  return g_nccl;
}

/* GPU cases: skip visibly without a GPU, or without a loadable NCCL (then the versions call
 * must say so, naming the library). */
#define SKIP_WITHOUT_NCCL()                                                                  \
  do {                                                                                       \
    SKIP_WITHOUT_CUDA();                                                                     \
    if (!nccl_available()) {                                                                 \
      FAILS(ct_nccl_version(NULL, NULL, NULL), CT_ERR_NOT_SUPPORTED, "libnccl.so");          \
      printf("  SKIP %s: NCCL (libnccl.so.2) cannot be loaded\n", g_test_name);              \
      g_skipped = 1;                                                                         \
      return;                                                                                \
    }                                                                                        \
  } while (0)

/* NCCL_RUNTIME_CONNECT as the process started (ctorch sets it to 0 when it loads NCCL, unless
 * it was set: docs/comm.md), read before anything loads NCCL */
static char g_connect_at_start[64];
__attribute__((constructor)) static void read_connect_at_start(void) {
  const char* v = getenv("NCCL_RUNTIME_CONNECT");
  if (v) snprintf(g_connect_at_start, sizeof g_connect_at_start, "%s", v);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t live_comms(void) {
  int64_t n = -1;
  OK(ct_live_nccl_comm_count(&n));
  return n;
}

static void unique_id(unsigned char id[CT_NCCL_UNIQUE_ID_BYTES]) {
  OK(ct_nccl_get_unique_id(id, CT_NCCL_UNIQUE_ID_BYTES));
}

/* A single-rank communicator on the current device (-1), timeout 30 s. */
static ct_nccl_comm one_rank(void) {
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  ct_nccl_comm c = NULL;
  OK(ct_nccl_comm_init_rank(1, id, sizeof id, 0, -1, 30000, &c));
  return c;
}

/* The start of a single-rank test: skips without a GPU or NCCL, else c is a new communicator. */
#define ONE_RANK_COMM(c)          \
  SKIP_WITHOUT_NCCL();            \
  ct_nccl_comm c = one_rank();    \
  if (!c) return

static void release_comm(ct_nccl_comm c) {
  if (c) OK(ct_nccl_comm_release(c));
}

/* a float32 CUDA tensor on cuda:dev holding the given values */
#define CUDA_F32(dev, ...) to_cuda(F64(CT_FLOAT32, __VA_ARGS__), (dev), CT_DTYPE_UNDEFINED)
#define CUDA_AS(dt, ...) to_cuda(F64(dt, __VA_ARGS__), 0, CT_DTYPE_UNDEFINED)
static ct_tensor to_cuda(ct_tensor cpu, int32_t dev, ct_dtype dt) {
  ct_tensor g = NULL;
  OK(ct_tensor_to(cpu, CT_CUDA, dev, dt, 0, 0, &g));
  rel(cpu);
  return g;
}

static ct_tensor cuda_zeros(int64_t n, ct_dtype dt) {
  ct_tensor t = NULL;
  OK(ct_zeros((int64_t[]){n}, 1, dt, CT_CUDA, 0, &t));
  return t;
}

/* ---- without CUDA (CI) ------------------------------------------------------------------ */

static void test_without_gpu(void) {
  if (g_cuda) {
    printf("  (a GPU is present: the no-CUDA errors are not reachable)\n");
    return;
  }
  EXPECT_EQ_I(nccl_available(), 0); /* is_available says 0; the live count works */
  EXPECT_EQ_I(live_comms(), 0);
  int32_t ma = -7, mi = -7, pa = -7;
  FAILS(ct_nccl_version(&ma, &mi, &pa), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  EXPECT(ma == -7 && mi == -7 && pa == -7); /* out-parameters untouched on failure */
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  memset(id, 0xab, sizeof id);
  FAILS(ct_nccl_get_unique_id(id, sizeof id), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  EXPECT(id[0] == 0xab && id[CT_NCCL_UNIQUE_ID_BYTES - 1] == 0xab);
  /* every function fails so without CUDA: also with a buffer too small for the id */
  FAILS(ct_nccl_get_unique_id(id, 16), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  ct_nccl_comm c = NULL;
  FAILS(ct_nccl_comm_init_rank(1, id, sizeof id, 0, -1, 1000, &c), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  EXPECT(c == NULL);
  FAILS(ct_nccl_group_start(), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  FAILS(ct_nccl_group_end(), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  EXPECT_EQ_I(live_comms(), 0);
}

/* ---- handles and pointers (CPU and GPU) --------------------------------------------------- */

/* A bad communicator handle: CT_ERR_INVALID_HANDLE with the table's message; without CUDA every
 * function but the live count and is_available fails with CT_ERR_CUDA_UNAVAILABLE first. */
#define BAD_HANDLE(call, needle)                                                 \
  do {                                                                           \
    if (g_cuda) FAILS(call, CT_ERR_INVALID_HANDLE, needle);                      \
    else FAILS(call, CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");          \
  } while (0)

static void test_null_and_foreign_handles(void) {
  FAILS(ct_nccl_is_available(NULL), CT_ERR_NULL_POINTER, "");
  FAILS(ct_live_nccl_comm_count(NULL), CT_ERR_NULL_POINTER, "");
  int32_t v = -5;
  ct_nccl_comm out = NULL;
  BAD_HANDLE(ct_nccl_comm_rank(NULL, &v), "NULL");
  BAD_HANDLE(ct_nccl_comm_size(NULL, &v), "NULL");
  BAD_HANDLE(ct_nccl_comm_device(NULL, &v), "NULL");
  EXPECT_EQ_I(v, -5);
  BAD_HANDLE(ct_nccl_comm_check(NULL), "NULL");
  BAD_HANDLE(ct_nccl_comm_wait(NULL, 100), "NULL");
  BAD_HANDLE(ct_nccl_comm_abort(NULL), "NULL");
  BAD_HANDLE(ct_nccl_comm_destroy(NULL), "NULL");
  BAD_HANDLE(ct_nccl_comm_retain(NULL), "NULL");
  BAD_HANDLE(ct_nccl_comm_release(NULL), "NULL");
  BAD_HANDLE(ct_nccl_comm_split(NULL, 0, 0, &out), "NULL");
  EXPECT(out == NULL);
  ct_tensor t = NULL;
  OK(ct_zeros((int64_t[]){4}, 1, CT_FLOAT32, CT_CPU, -1, &t));
  BAD_HANDLE(ct_nccl_all_reduce(NULL, t, CT_COMM_SUM, NULL), "NULL");
  BAD_HANDLE(ct_nccl_broadcast(NULL, t, 0, NULL), "NULL");
  BAD_HANDLE(ct_nccl_reduce(NULL, t, 0, CT_COMM_SUM, NULL), "NULL");
  BAD_HANDLE(ct_nccl_all_gather(NULL, t, t, NULL), "NULL");
  BAD_HANDLE(ct_nccl_reduce_scatter(NULL, t, t, CT_COMM_SUM, NULL), "NULL");
  BAD_HANDLE(ct_nccl_all_to_all(NULL, t, t, NULL), "NULL");
  BAD_HANDLE(ct_nccl_send(NULL, t, 0, NULL), "NULL");
  BAD_HANDLE(ct_nccl_recv(NULL, t, 0, NULL), "NULL");
  /* a handle of another kind (a tensor's) is no communicator */
  ct_nccl_comm foreign = (ct_nccl_comm)t;
  BAD_HANDLE(ct_nccl_comm_rank(foreign, &v), "not a ctorch");
  BAD_HANDLE(ct_nccl_comm_check(foreign), "not a ctorch");
  BAD_HANDLE(ct_nccl_comm_release(foreign), "not a ctorch");
  BAD_HANDLE(ct_nccl_all_reduce(foreign, t, CT_COMM_SUM, NULL), "not a ctorch");
  /* and a made-up value */
  BAD_HANDLE(ct_nccl_comm_abort((ct_nccl_comm)(uintptr_t)0x1234567), "not a ctorch");
  EXPECT_EQ_I(live_comms(), 0);
  rel(t);
}

/* ---- one GPU: versions, ids, arguments ---------------------------------------------------- */

static void test_version_and_unique_id(void) {
  SKIP_WITHOUT_NCCL();
  int32_t ma = -1, mi = -1, pa = -1;
  OK(ct_nccl_version(&ma, &mi, &pa));
  EXPECT_EQ_I(ma, 2);
  EXPECT(mi >= 0 && mi < 100 && pa >= 0 && pa < 100);
  int32_t ma2 = -1;
  OK(ct_nccl_version(&ma2, NULL, NULL)); /* each out may be NULL */
  EXPECT_EQ_I(ma2, ma);
  OK(ct_nccl_version(NULL, NULL, NULL));
  /* NCCL loaded: NCCL_RUNTIME_CONNECT is 0, or what the environment said */
  const char* connect = getenv("NCCL_RUNTIME_CONNECT");
  EXPECT(connect != NULL && strcmp(connect, g_connect_at_start[0] ? g_connect_at_start : "0") == 0);
  unsigned char a[CT_NCCL_UNIQUE_ID_BYTES + 8], b[CT_NCCL_UNIQUE_ID_BYTES];
  memset(a, 0x5a, sizeof a);
  memset(b, 0x5a, sizeof b);
  OK(ct_nccl_get_unique_id(a, sizeof a)); /* a larger buffer: 128 bytes written, no more */
  for (int i = CT_NCCL_UNIQUE_ID_BYTES; i < (int)sizeof a; ++i) EXPECT_EQ_I(a[i], 0x5a);
  OK(ct_nccl_get_unique_id(b, sizeof b));
  EXPECT(memcmp(a, b, CT_NCCL_UNIQUE_ID_BYTES) != 0);
  int nonfill = 0;
  for (int i = 0; i < CT_NCCL_UNIQUE_ID_BYTES; ++i) nonfill += b[i] != 0x5a;
  EXPECT(nonfill > 0);
  unsigned char small[CT_NCCL_UNIQUE_ID_BYTES - 1];
  FAILS(ct_nccl_get_unique_id(small, sizeof small), CT_ERR_BUFFER_SIZE, "CT_NCCL_UNIQUE_ID_BYTES");
  FAILS(ct_nccl_get_unique_id(NULL, CT_NCCL_UNIQUE_ID_BYTES), CT_ERR_NULL_POINTER, "");
}

static void test_init_arguments(void) {
  SKIP_WITHOUT_NCCL();
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  int64_t live0 = live_comms();
  ct_nccl_comm c = NULL;
  FAILS(ct_nccl_comm_init_rank(2, id, sizeof id, 2, -1, 1000, &c), CT_ERR_ARGUMENT, "rank 2 is not a rank");   /* rank >= nranks */
  FAILS(ct_nccl_comm_init_rank(2, id, sizeof id, -1, -1, 1000, &c), CT_ERR_ARGUMENT, "");  /* rank < 0 */
  FAILS(ct_nccl_comm_init_rank(0, id, sizeof id, 0, -1, 1000, &c), CT_ERR_ARGUMENT, "");   /* nranks 0 */
  FAILS(ct_nccl_comm_init_rank(1, id, 64, 0, -1, 1000, &c), CT_ERR_ARGUMENT, "CT_NCCL_UNIQUE_ID_BYTES");          /* id_len != 128 */
  FAILS(ct_nccl_comm_init_rank(1, id, CT_NCCL_UNIQUE_ID_BYTES + 1, 0, -1, 1000, &c), CT_ERR_ARGUMENT, "");
  FAILS(ct_nccl_comm_init_rank(1, NULL, CT_NCCL_UNIQUE_ID_BYTES, 0, -1, 1000, &c), CT_ERR_NULL_POINTER, "");
  FAILS(ct_nccl_comm_init_rank(1, id, sizeof id, 0, -1, 1000, NULL), CT_ERR_NULL_POINTER, "");
  EXPECT(c == NULL);
  EXPECT_EQ_I(live_comms(), live0);
}

/* ---- a single-rank communicator ----------------------------------------------------------- */

static void test_single_rank_comm(void) {
  SKIP_WITHOUT_NCCL();
  int64_t live0 = live_comms();
  ct_nccl_comm c = one_rank();
  if (!c) return;
  EXPECT_EQ_I(live_comms(), live0 + 1);
  int32_t r = -1, n = -1, d = -1, cur = -1;
  OK(ct_nccl_comm_rank(c, &r));
  OK(ct_nccl_comm_size(c, &n));
  OK(ct_nccl_comm_device(c, &d));
  OK(ct_cuda_current_device(&cur));
  EXPECT_EQ_I(r, 0);
  EXPECT_EQ_I(n, 1);
  EXPECT_EQ_I(d, cur); /* device -1: the current device */
  FAILS(ct_nccl_comm_rank(c, NULL), CT_ERR_NULL_POINTER, "");
  FAILS(ct_nccl_comm_size(c, NULL), CT_ERR_NULL_POINTER, "");
  FAILS(ct_nccl_comm_device(c, NULL), CT_ERR_NULL_POINTER, "");
  OK(ct_nccl_comm_check(c));
  OK(ct_nccl_comm_wait(c, 0));
  /* retain / release: the handle lives until its last reference goes */
  OK(ct_nccl_comm_retain(c));
  OK(ct_nccl_comm_release(c));
  OK(ct_nccl_comm_check(c));
  EXPECT_EQ_I(live_comms(), live0 + 1);
  OK(ct_nccl_comm_release(c));
  EXPECT_EQ_I(live_comms(), live0);
  FAILS(ct_nccl_comm_check(c), CT_ERR_INVALID_HANDLE, "already released");
  FAILS(ct_nccl_comm_release(c), CT_ERR_INVALID_HANDLE, "already released");
  /* an explicit device: the last one */
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  ct_nccl_comm e = NULL;
  OK(ct_nccl_comm_init_rank(1, id, sizeof id, 0, g_cuda - 1, 0, &e)); /* timeout 0: the default */
  if (e) {
    OK(ct_nccl_comm_device(e, &d));
    EXPECT_EQ_I(d, g_cuda - 1);
    OK(ct_cuda_current_device(&r));
    EXPECT_EQ_I(r, cur); /* the current device is left as it was */
    OK(ct_nccl_comm_destroy(e));
    release_comm(e);
  }
  EXPECT_EQ_I(live_comms(), live0);
}

/* all_reduce of one member: every op leaves the values as they are (AVG divides the sum by 1). */
static void test_all_reduce_ops(void) {
  ONE_RANK_COMM(c);
  const ct_comm_op ops[] = {CT_COMM_SUM, CT_COMM_AVG, CT_COMM_PRODUCT, CT_COMM_MIN, CT_COMM_MAX};
  for (int i = 0; i < 5; ++i) {
    ct_tensor f = CUDA_F32(0, 1.5, -2.25, 3e6, 0.0);
    ct_tensor n = CUDA_AS(CT_INT32, 7, -3, 2147483647, 0);
    ct_tensor l = CUDA_AS(CT_INT64, 5, -9, 1e15, 1);
    ct_tensor h = CUDA_AS(CT_FLOAT16, 0.5, -1, 2048);
    ct_tensor bf = CUDA_AS(CT_BFLOAT16, 0.5, -1, 256);
    ct_tensor u = CUDA_AS(CT_UINT8, 0, 1, 255);
    OK(ct_nccl_all_reduce(c, f, ops[i], NULL));
    OK(ct_nccl_all_reduce(c, n, ops[i], NULL));
    OK(ct_nccl_all_reduce(c, l, ops[i], NULL));
    OK(ct_nccl_all_reduce(c, h, ops[i], NULL));
    OK(ct_nccl_all_reduce(c, bf, ops[i], NULL));
    OK(ct_nccl_all_reduce(c, u, ops[i], NULL));
    OK(ct_nccl_comm_wait(c, 0));
    EXPECT_VALS(f, 0, 1.5, -2.25, 3e6, 0.0);
    EXPECT_VALS(n, 0, 7, -3, 2147483647, 0);
    EXPECT_VALS(l, 0, 5, -9, 1e15, 1);
    EXPECT_VALS(h, 0, 0.5, -1, 2048);
    EXPECT_VALS(bf, 0, 0.5, -1, 256);
    EXPECT_VALS(u, 0, 0, 1, 255);
    EXPECT_DTYPE(n, CT_INT32);
    rel(f), rel(n), rel(l), rel(h), rel(bf), rel(u);
  }
  /* float64 and int8, SUM */
  ct_tensor dd = CUDA_AS(CT_FLOAT64, 0.1, 1e300), i8 = CUDA_AS(CT_INT8, -128, 127);
  OK(ct_nccl_all_reduce(c, dd, CT_COMM_SUM, NULL));
  OK(ct_nccl_all_reduce(c, i8, CT_COMM_MAX, NULL));
  EXPECT_VALS(dd, 0, 0.1, 1e300);
  EXPECT_VALS(i8, 0, -128, 127);
  rel(dd), rel(i8);
  /* an unknown op */
  ct_tensor f = CUDA_F32(0, 1, 2);
  FAILS(ct_nccl_all_reduce(c, f, 5, NULL), CT_ERR_ARGUMENT, "unknown communicator reduce op 5");
  FAILS(ct_nccl_all_reduce(c, f, -1, NULL), CT_ERR_ARGUMENT, "unknown communicator reduce op -1");
  FAILS(ct_nccl_all_reduce(c, NULL, CT_COMM_SUM, NULL), CT_ERR_INVALID_HANDLE, "NULL");
  EXPECT_VALS(f, 0, 1, 2);
  rel(f);
  release_comm(c);
}

/* bool: SUM (logical or), PRODUCT, MIN, MAX allowed; AVG refused. complex: SUM and AVG only.
 * int16 has no NCCL type. */
static void test_all_reduce_dtypes(void) {
  ONE_RANK_COMM(c);
  ct_tensor b = CUDA_AS(CT_BOOL, 1, 0, 1);
  OK(ct_nccl_all_reduce(c, b, CT_COMM_SUM, NULL));
  OK(ct_nccl_all_reduce(c, b, CT_COMM_MAX, NULL));
  OK(ct_nccl_all_reduce(c, b, CT_COMM_MIN, NULL));
  OK(ct_nccl_all_reduce(c, b, CT_COMM_PRODUCT, NULL));
  FAILS(ct_nccl_all_reduce(c, b, CT_COMM_AVG, NULL), CT_ERR_DTYPE, "cannot use ReduceOp.AVG with boolean inputs");
  EXPECT_VALS(b, 0, 1, 0, 1);
  EXPECT_DTYPE(b, CT_BOOL);
  /* complex64: (1+2i, -3.5-0.25i) */
  const float zv[4] = {1, 2, -3.5f, -0.25f};
  float zg[4] = {0, 0, 0, 0};
  ct_tensor zc = NULL;
  OK(ct_from_buffer(zv, sizeof zv, (int64_t[]){2}, 1, CT_COMPLEX64, CT_CUDA, 0, &zc));
  OK(ct_nccl_all_reduce(c, zc, CT_COMM_SUM, NULL));
  OK(ct_nccl_all_reduce(c, zc, CT_COMM_AVG, NULL));
  FAILS(ct_nccl_all_reduce(c, zc, CT_COMM_MAX, NULL), CT_ERR_DTYPE, "does not support ReduceOp.MAX on complex tensors");
  FAILS(ct_nccl_all_reduce(c, zc, CT_COMM_MIN, NULL), CT_ERR_DTYPE, "");
  FAILS(ct_nccl_all_reduce(c, zc, CT_COMM_PRODUCT, NULL), CT_ERR_DTYPE, "");
  OK(ct_tensor_copy_to_buffer(zc, zg, sizeof zg));
  EXPECT(memcmp(zg, zv, sizeof zv) == 0);
  /* complex travels as pairs of floats: all_gather and broadcast too */
  ct_tensor zo = NULL;
  OK(ct_zeros((int64_t[]){2}, 1, CT_COMPLEX64, CT_CUDA, 0, &zo));
  OK(ct_nccl_all_gather(c, zo, zc, NULL));
  OK(ct_nccl_broadcast(c, zo, 0, NULL));
  OK(ct_tensor_copy_to_buffer(zo, zg, sizeof zg));
  EXPECT(memcmp(zg, zv, sizeof zv) == 0);
  rel(zc), rel(zo);
  ct_tensor s = CUDA_AS(CT_INT16, 1, 2);
  FAILS(ct_nccl_all_reduce(c, s, CT_COMM_SUM, NULL), CT_ERR_DTYPE, "torch.int16");
  FAILS(ct_nccl_broadcast(c, s, 0, NULL), CT_ERR_DTYPE, "");
  EXPECT_VALS(s, 0, 1, 2);
  rel(s), rel(b);
  release_comm(c);
}

static void test_collectives(void) {
  ONE_RANK_COMM(c);
  /* broadcast from root 0 and reduce to root 0: the root's data stays */
  ct_tensor t = CUDA_F32(0, 4, -5, 6.5);
  OK(ct_nccl_broadcast(c, t, 0, NULL));
  EXPECT_VALS(t, 0, 4, -5, 6.5);
  OK(ct_nccl_reduce(c, t, 0, CT_COMM_SUM, NULL));
  OK(ct_nccl_reduce(c, t, 0, CT_COMM_MAX, NULL));
  EXPECT_VALS(t, 0, 4, -5, 6.5);
  /* all_gather: output has 1 x input's elements and any shape */
  ct_tensor in = CUDA_F32(0, 1, 2, 3, 4, 5, 6), out = NULL;
  OK(ct_zeros((int64_t[]){2, 3}, 2, CT_FLOAT32, CT_CUDA, 0, &out));
  OK(ct_nccl_all_gather(c, out, in, NULL));
  EXPECT_VALS(out, 0, 1, 2, 3, 4, 5, 6);
  EXPECT_SHAPE(out, 2, 3);
  rel(out);
  /* reduce_scatter: input has 1 x output's elements */
  out = cuda_zeros(6, CT_FLOAT32);
  OK(ct_nccl_reduce_scatter(c, out, in, CT_COMM_SUM, NULL));
  EXPECT_VALS(out, 0, 1, 2, 3, 4, 5, 6);
  rel(out);
  /* all_to_all: part 0 of the input to part 0 of the output */
  out = cuda_zeros(6, CT_FLOAT32);
  OK(ct_nccl_all_to_all(c, out, in, NULL));
  EXPECT_VALS(out, 0, 1, 2, 3, 4, 5, 6);
  rel(out);
  /* int64 all_gather (8-byte elements) */
  ct_tensor li = CUDA_AS(CT_INT64, -1, 1e12), lo = cuda_zeros(2, CT_INT64);
  OK(ct_nccl_all_gather(c, lo, li, NULL));
  EXPECT_VALS(lo, 0, -1, 1e12);
  rel(li), rel(lo);
  /* a zero-element tensor is fine */
  ct_tensor z = cuda_zeros(0, CT_FLOAT32);
  OK(ct_nccl_all_reduce(c, z, CT_COMM_SUM, NULL));
  rel(z);
  OK(ct_nccl_comm_wait(c, 5000));
  EXPECT_VALS(in, 0, 1, 2, 3, 4, 5, 6); /* inputs untouched */
  rel(in), rel(t);
  release_comm(c);
}

/* send and recv to itself pair up within one group; groups nest. */
static void test_send_recv_and_groups(void) {
  ONE_RANK_COMM(c);
  ct_tensor a = CUDA_F32(0, 9, 8, 7), b = cuda_zeros(3, CT_FLOAT32);
  OK(ct_nccl_group_start());
  OK(ct_nccl_send(c, a, 0, NULL));
  OK(ct_nccl_recv(c, b, 0, NULL));
  OK(ct_nccl_group_end());
  EXPECT_VALS(b, 0, 9, 8, 7);
  rel(b);
  /* nested: a collective and a send/recv pair inside two starts, queued at the outer end */
  b = cuda_zeros(3, CT_FLOAT32);
  ct_tensor g = cuda_zeros(3, CT_FLOAT32);
  OK(ct_nccl_group_start());
  OK(ct_nccl_group_start());
  OK(ct_nccl_all_gather(c, g, a, NULL));
  OK(ct_nccl_group_end());
  OK(ct_nccl_send(c, a, 0, NULL));
  OK(ct_nccl_recv(c, b, 0, NULL));
  OK(ct_nccl_group_end());
  OK(ct_nccl_comm_wait(c, 0));
  EXPECT_VALS(b, 0, 9, 8, 7);
  EXPECT_VALS(g, 0, 9, 8, 7);
  FAILS(ct_nccl_group_end(), CT_ERR_STATE, "without a matching ct_nccl_group_start"); /* an end without a start */
  OK(ct_nccl_group_start());
  OK(ct_nccl_group_end());
  FAILS(ct_nccl_group_end(), CT_ERR_STATE, "");
  /* peers out of range */
  FAILS(ct_nccl_send(c, a, 1, NULL), CT_ERR_ARGUMENT, "peer 1 is not a rank of this communicator");
  FAILS(ct_nccl_recv(c, b, -1, NULL), CT_ERR_ARGUMENT, "");
  rel(a), rel(b), rel(g);
  release_comm(c);
}

/* Note [Communicators and groups]: what NCCL would defer into an open group is refused there;
 * a communicator released inside a group ends after it; the group's work still runs. */
static void test_lifecycle_inside_groups(void) {
  ONE_RANK_COMM(c);
  int64_t live0 = live_comms();
  ct_nccl_comm other = one_rank();
  EXPECT_EQ_I(live_comms(), live0 + 1);
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  ct_tensor a = CUDA_F32(0, 1, 2), b = cuda_zeros(2, CT_FLOAT32);
  OK(ct_nccl_group_start());
  OK(ct_nccl_send(c, a, 0, NULL));
  OK(ct_nccl_recv(c, b, 0, NULL));
  ct_nccl_comm x = NULL;
  FAILS(ct_nccl_comm_init_rank(1, id, sizeof id, 0, -1, 30000, &x), CT_ERR_STATE,
        "ct_nccl_comm_init_rank is not allowed between ct_nccl_group_start and ct_nccl_group_end");
  EXPECT(x == NULL);
  FAILS(ct_nccl_comm_split(c, 0, 0, &x), CT_ERR_STATE, "ct_nccl_comm_split is not allowed");
  FAILS(ct_nccl_comm_destroy(c), CT_ERR_STATE, "ct_nccl_comm_destroy is not allowed");
  FAILS(ct_nccl_comm_abort(c), CT_ERR_STATE, "ct_nccl_comm_abort is not allowed");
  FAILS(ct_nccl_comm_wait(c, 0), CT_ERR_STATE, "ct_nccl_comm_wait is not allowed");
  OK(ct_nccl_comm_check(c)); /* asking is fine */
  release_comm(other);       /* its end waits for the group's end */
  EXPECT_EQ_I(live_comms(), live0);
  OK(ct_nccl_group_end());
  OK(ct_nccl_comm_wait(c, 0)); /* c is whole: the refused calls changed nothing */
  EXPECT_VALS(b, 0, 1, 2);
  rel(a), rel(b);
  release_comm(c);
}

/* A timeout too large for the clock means "very long", not "already past". */
static void test_huge_timeout(void) {
  SKIP_WITHOUT_NCCL();
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  ct_nccl_comm c = NULL;
  OK(ct_nccl_comm_init_rank(1, id, sizeof id, 0, -1, INT64_MAX, &c));
  ct_tensor t = CUDA_F32(0, 4);
  OK(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL));
  OK(ct_nccl_comm_wait(c, INT64_MAX));
  EXPECT_VALS(t, 0, 4);
  rel(t);
  release_comm(c);
}

/* A collective on a stream of the caller's: ordered on that stream. */
static void test_explicit_stream(void) {
  ONE_RANK_COMM(c);
  ct_stream s = NULL, cur = NULL;
  OK(ct_stream_create(0, 0, &s));
  OK(ct_stream_current(0, &cur));
  enum { M = 1 << 20 };
  ct_tensor in = NULL, out = NULL;
  OK(ct_full((int64_t[]){M}, 1, 2.5, CT_FLOAT32, CT_CUDA, 0, &in));
  OK(ct_zeros((int64_t[]){M}, 1, CT_FLOAT32, CT_CUDA, 0, &out));
  OK(ct_stream_wait_stream(s, cur)); /* the inputs were written on the current stream */
  OK(ct_nccl_all_gather(c, out, in, s));
  OK(ct_nccl_all_reduce(c, out, CT_COMM_SUM, s));
  OK(ct_stream_synchronize(s));
  /* every element 2.5 (min and max), so all of out was written after the sync */
  ct_tensor lo = NULL, hi = NULL;
  OK(ct_min(out, &lo));
  OK(ct_max(out, &hi));
  EXPECT_VALS(lo, 0, 2.5);
  EXPECT_VALS(hi, 0, 2.5);
  rel(lo), rel(hi), rel(in), rel(out);
  OK(ct_stream_release(cur));
  OK(ct_stream_release(s));
  release_comm(c);
}

static void test_tensor_checks(void) {
  ONE_RANK_COMM(c);
  ct_tensor cpu = F64(CT_FLOAT32, 1, 2, 3, 4);
  FAILS(ct_nccl_all_reduce(c, cpu, CT_COMM_SUM, NULL), CT_ERR_DEVICE, "tensors must be CUDA tensors");
  FAILS(ct_nccl_broadcast(c, cpu, 0, NULL), CT_ERR_DEVICE, "");
  FAILS(ct_nccl_send(c, cpu, 0, NULL), CT_ERR_DEVICE, "");
  ct_tensor g4 = cuda_zeros(4, CT_FLOAT32);
  FAILS(ct_nccl_all_gather(c, g4, cpu, NULL), CT_ERR_DEVICE, "");
  FAILS(ct_nccl_all_gather(c, cpu, g4, NULL), CT_ERR_DEVICE, "");
  if (g_cuda >= 2) { /* a tensor on another GPU than the communicator's */
    ct_tensor other = NULL;
    OK(ct_zeros((int64_t[]){4}, 1, CT_FLOAT32, CT_CUDA, 1, &other));
    FAILS(ct_nccl_all_reduce(c, other, CT_COMM_SUM, NULL), CT_ERR_DEVICE, "the communicator is on cuda:0");
    FAILS(ct_nccl_all_to_all(c, g4, other, NULL), CT_ERR_DEVICE, "");
    rel(other);
  }
  /* non-contiguous: a transposed 2x2, and every other element */
  ct_tensor sq = NULL, tr = NULL, every2 = NULL;
  OK(ct_zeros((int64_t[]){2, 2}, 2, CT_FLOAT32, CT_CUDA, 0, &sq));
  OK(ct_transpose(sq, 0, 1, &tr));
  OK(ct_slice(g4, 0, 0, 4, 2, &every2));
  FAILS(ct_nccl_all_reduce(c, tr, CT_COMM_SUM, NULL), CT_ERR_ARGUMENT, "contiguous");
  FAILS(ct_nccl_recv(c, every2, 0, NULL), CT_ERR_ARGUMENT, "contiguous");
  ct_tensor g2 = cuda_zeros(2, CT_FLOAT32);
  FAILS(ct_nccl_reduce_scatter(c, every2, g2, CT_COMM_SUM, NULL), CT_ERR_ARGUMENT, "contiguous");
  /* sizes: all_gather's output has nranks x input's elements, reduce_scatter's input nranks x
   * output's, all_to_all's the same number */
  ct_tensor g3 = cuda_zeros(3, CT_FLOAT32), g8 = cuda_zeros(8, CT_FLOAT32);
  FAILS(ct_nccl_all_gather(c, g3, g4, NULL), CT_ERR_SHAPE, "nranks times");
  FAILS(ct_nccl_all_gather(c, g8, g4, NULL), CT_ERR_SHAPE, "");
  FAILS(ct_nccl_reduce_scatter(c, g4, g3, CT_COMM_SUM, NULL), CT_ERR_SHAPE, "nranks times");
  FAILS(ct_nccl_reduce_scatter(c, g4, g8, CT_COMM_SUM, NULL), CT_ERR_SHAPE, "");
  FAILS(ct_nccl_all_to_all(c, g3, g4, NULL), CT_ERR_SHAPE, "same number of elements");
  /* one dtype for both tensors */
  ct_tensor i4 = cuda_zeros(4, CT_INT32);
  FAILS(ct_nccl_all_gather(c, i4, g4, NULL), CT_ERR_DTYPE, "must have the same type");
  FAILS(ct_nccl_all_to_all(c, g4, i4, NULL), CT_ERR_DTYPE, "");
  /* roots out of range */
  FAILS(ct_nccl_broadcast(c, g4, 1, NULL), CT_ERR_ARGUMENT, "root 1 is not a rank of this communicator");
  FAILS(ct_nccl_broadcast(c, g4, -1, NULL), CT_ERR_ARGUMENT, "");
  FAILS(ct_nccl_reduce(c, g4, 1, CT_COMM_SUM, NULL), CT_ERR_ARGUMENT, "");
  /* a stream of another device than the communicator's */
  if (g_cuda >= 2) {
    ct_stream s1 = NULL;
    OK(ct_stream_create(1, 0, &s1));
    FAILS(ct_nccl_all_reduce(c, g4, CT_COMM_SUM, s1), CT_ERR_DEVICE, "");
    OK(ct_stream_release(s1));
  }
  OK(ct_nccl_comm_check(c)); /* refused calls leave the communicator healthy */
  OK(ct_nccl_all_reduce(c, g4, CT_COMM_SUM, NULL));
  EXPECT_VALS(g4, 0, 0, 0, 0, 0);
  rel(cpu), rel(g4), rel(sq), rel(tr), rel(every2), rel(g2), rel(g3), rel(g8), rel(i4);
  release_comm(c);
}

static void test_split(void) {
  ONE_RANK_COMM(c);
  int64_t live0 = live_comms();
  ct_nccl_comm s = NULL;
  OK(ct_nccl_comm_split(c, 0, 0, &s));
  EXPECT(s != NULL);
  if (s) {
    EXPECT_EQ_I(live_comms(), live0 + 1);
    int32_t r = -1, n = -1, d = -1, pd = -2;
    OK(ct_nccl_comm_rank(s, &r));
    OK(ct_nccl_comm_size(s, &n));
    OK(ct_nccl_comm_device(s, &d));
    OK(ct_nccl_comm_device(c, &pd));
    EXPECT_EQ_I(r, 0);
    EXPECT_EQ_I(n, 1);
    EXPECT_EQ_I(d, pd);
    ct_tensor t = CUDA_F32(0, 3, 1);
    OK(ct_nccl_all_reduce(s, t, CT_COMM_PRODUCT, NULL));
    OK(ct_nccl_comm_wait(s, 0));
    EXPECT_VALS(t, 0, 3, 1);
    rel(t);
    /* the child lives on after its parent is released */
    release_comm(c);
    c = NULL;
    OK(ct_nccl_comm_check(s));
    release_comm(s);
  }
  if (!c) c = one_rank();
  ct_nccl_comm none = (ct_nccl_comm)(uintptr_t)1;
  OK(ct_nccl_comm_split(c, CT_NCCL_SPLIT_NOCOLOR, 0, &none));
  EXPECT(none == NULL);
  FAILS(ct_nccl_comm_split(c, 0, 0, NULL), CT_ERR_NULL_POINTER, "");
  ct_nccl_comm bad = NULL;
  FAILS(ct_nccl_comm_split(c, -2, 0, &bad), CT_ERR_ARGUMENT, "CT_NCCL_SPLIT_NOCOLOR");
  EXPECT(bad == NULL);
  release_comm(c);
  EXPECT_EQ_I(live_comms(), live0 - 1);
}

/* destroy and abort end a communicator: later calls fail with CT_ERR_STATE; release still works. */
static void test_destroy_and_abort(void) {
  SKIP_WITHOUT_NCCL();
  int64_t live0 = live_comms();
  ct_tensor t = CUDA_F32(0, 1, 2), out = cuda_zeros(2, CT_FLOAT32);
  ct_nccl_comm c = one_rank();
  if (!c) return;
  OK(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL));
  OK(ct_nccl_comm_destroy(c)); /* waits for the queued work */
  EXPECT_VALS(t, 0, 1, 2);
  int32_t r = -1;
  ct_nccl_comm s = NULL;
  FAILS(ct_nccl_comm_check(c), CT_ERR_STATE, "destroyed by ct_nccl_comm_destroy");
  FAILS(ct_nccl_comm_wait(c, 0), CT_ERR_STATE, "destroyed");
  FAILS(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_broadcast(c, t, 0, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_all_gather(c, out, t, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_send(c, t, 0, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_comm_split(c, 0, 0, &s), CT_ERR_STATE, "");
  FAILS(ct_nccl_comm_rank(c, &r), CT_ERR_STATE, "");
  FAILS(ct_nccl_comm_destroy(c), CT_ERR_STATE, "");
  EXPECT(s == NULL && r == -1);
  EXPECT_EQ_I(live_comms(), live0 + 1); /* destroyed, not released */
  release_comm(c);
  EXPECT_EQ_I(live_comms(), live0);

  c = one_rank();
  if (!c) return;
  OK(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL));
  OK(ct_nccl_comm_abort(c));
  FAILS(ct_nccl_comm_check(c), CT_ERR_STATE, "aborted by ct_nccl_comm_abort");
  FAILS(ct_nccl_comm_wait(c, 100), CT_ERR_STATE, "aborted");
  FAILS(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_reduce(c, t, 0, CT_COMM_SUM, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_reduce_scatter(c, t, t, CT_COMM_SUM, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_all_to_all(c, out, t, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_recv(c, t, 0, NULL), CT_ERR_STATE, "");
  FAILS(ct_nccl_comm_size(c, &r), CT_ERR_STATE, "");
  OK(ct_nccl_comm_abort(c)); /* aborting twice is allowed */
  FAILS(ct_nccl_comm_check(c), CT_ERR_STATE, "");
  release_comm(c);
  EXPECT_EQ_I(live_comms(), live0);
  /* a communicator released without destroy is destroyed by its last release */
  c = one_rank();
  OK(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL));
  release_comm(c);
  EXPECT_EQ_I(live_comms(), live0);
  OK(ct_cuda_synchronize(-1));
  EXPECT_VALS(t, 0, 1, 2);
  rel(t), rel(out);
}

/* A peer that never joins: the init gives up after its timeout, leaving nothing behind. */
static void test_init_timeout(void) {
  SKIP_WITHOUT_NCCL();
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  int64_t live0 = live_comms();
  ct_nccl_comm c = NULL;
  double t0 = now_s();
  FAILS(ct_nccl_comm_init_rank(2, id, sizeof id, 0, -1, 2000, &c), CT_ERR_TIMEOUT, "timed out after 2000 ms");
  double dt = now_s() - t0;
  printf("  init of 2 ranks, the peer missing: gave up after %.2f s (timeout 2 s)\n", dt);
  EXPECT(dt >= 1.5 && dt < 30.0);
  EXPECT(c == NULL);
  EXPECT_EQ_I(live_comms(), live0);
  /* a new single-rank communicator still works afterwards */
  c = one_rank();
  ct_tensor t = CUDA_F32(0, 5);
  OK(ct_nccl_all_reduce(c, t, CT_COMM_SUM, NULL));
  EXPECT_VALS(t, 0, 5);
  rel(t);
  release_comm(c);
}

/* Random bytes as a unique id: an error (malformed, or nobody to join) within the timeout. */
static void test_garbage_unique_id(void) {
  SKIP_WITHOUT_NCCL();
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  uint32_t x = 12345u;
  for (int i = 0; i < CT_NCCL_UNIQUE_ID_BYTES; ++i) {
    x = x * 1664525u + 1013904223u;
    id[i] = (unsigned char)(x >> 24);
  }
  int64_t live0 = live_comms();
  ct_nccl_comm c = NULL;
  double t0 = now_s();
  ct_status s = ct_nccl_comm_init_rank(2, id, sizeof id, 1, -1, 3000, &c);
  double dt = now_s() - t0;
  printf("  init with a random id: %s after %.2f s (%s)\n", ct_status_name(s), dt, ct_last_error_message());
  EXPECT(s == CT_ERR_COMM || s == CT_ERR_TIMEOUT || s == CT_ERR_ARGUMENT);
  EXPECT(s == ct_last_error_code());
  EXPECT(dt < 3.0 + 12.0); /* the timeout, and time for the abort */
  EXPECT(c == NULL);
  EXPECT_EQ_I(live_comms(), live0);
}

/* ---- two or more GPUs: one thread a rank, in this process -------------------------------- */

typedef struct {
  int rank, nranks;
  const unsigned char* id;
  int failures;
} rank_arg;

static void* rank_main(void* p) {
  rank_arg* a = (rank_arg*)p;
  /* the checks of a thread: counted here, reported by the main thread */
#define TCHECK(cond)                                                                   \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "  rank %d: %s failed (%s)\n", a->rank, #cond, ct_last_error_message()); \
      a->failures++;                                                                   \
    }                                                                                  \
  } while (0)
  ct_nccl_comm c = NULL;
  TCHECK(ct_nccl_comm_init_rank(a->nranks, a->id, CT_NCCL_UNIQUE_ID_BYTES, a->rank, a->rank, 60000, &c) == CT_OK);
  if (!c) return NULL;
  int n = a->nranks, r = a->rank;
  int32_t v = -1;
  TCHECK(ct_nccl_comm_rank(c, &v) == CT_OK && v == r);
  TCHECK(ct_nccl_comm_size(c, &v) == CT_OK && v == n);
  TCHECK(ct_nccl_comm_device(c, &v) == CT_OK && v == r);
  /* all_reduce of [r+1, 2(r+1)]: SUM = [S, 2S] with S = n(n+1)/2; MAX = [n, 2n]; MIN = [1, 2] */
  double S = n * (n + 1) / 2.0;
  const ct_comm_op ops[] = {CT_COMM_SUM, CT_COMM_MAX, CT_COMM_MIN, CT_COMM_AVG};
  const double want0[] = {S, n, 1, S / n};
  for (int k = 0; k < 4; ++k) {
    ct_tensor t = NULL;
    double vals[2] = {r + 1, 2.0 * (r + 1)}, got[2] = {0, 0};
    TCHECK(ct_from_buffer(vals, sizeof vals, (int64_t[]){2}, 1, CT_FLOAT64, CT_CUDA, r, &t) == CT_OK);
    TCHECK(ct_nccl_all_reduce(c, t, ops[k], NULL) == CT_OK);
    TCHECK(ct_tensor_copy_to_buffer(t, got, sizeof got) == CT_OK);
    /* SUM, MAX, MIN exact; AVG multiplies by 1/n first (NCCL), exact only for n a power of 2 */
    double tol = ops[k] == CT_COMM_AVG ? 1e-12 * want0[k] : 0;
    TCHECK(fabs(got[0] - want0[k]) <= tol && fabs(got[1] - 2 * want0[k]) <= 2 * tol);
    ct_tensor_release(t);
  }
  /* all_gather of [r]: [0, 1, ..., n-1]; broadcast from the last rank */
  ct_tensor in = NULL, out = NULL;
  TCHECK(ct_full((int64_t[]){1}, 1, r, CT_INT64, CT_CUDA, r, &in) == CT_OK);
  TCHECK(ct_zeros((int64_t[]){n}, 1, CT_INT64, CT_CUDA, r, &out) == CT_OK);
  TCHECK(ct_nccl_all_gather(c, out, in, NULL) == CT_OK);
  int64_t g[16] = {0};
  TCHECK(ct_tensor_copy_to_buffer(out, g, n * 8) == CT_OK);
  for (int i = 0; i < n; ++i) TCHECK(g[i] == i);
  TCHECK(ct_nccl_broadcast(c, in, n - 1, NULL) == CT_OK);
  double b = -1;
  TCHECK(ct_tensor_item_double(in, &b) == CT_OK && b == n - 1);
  ct_tensor_release(in), ct_tensor_release(out);
  TCHECK(ct_nccl_comm_destroy(c) == CT_OK);
  TCHECK(ct_nccl_comm_release(c) == CT_OK);
#undef TCHECK
  return NULL;
}

static void test_threads_one_gpu_each(void) {
  SKIP_WITHOUT_NCCL();
  if (g_cuda < 2) {
    printf("  SKIP %s: needs 2 GPUs, %d here\n", g_test_name, g_cuda);
    g_skipped = 1;
    return;
  }
  int n = g_cuda > 8 ? 8 : g_cuda;
  int64_t live0 = live_comms();
  unsigned char id[CT_NCCL_UNIQUE_ID_BYTES];
  unique_id(id);
  pthread_t th[8];
  rank_arg args[8];
  for (int r = 0; r < n; ++r) {
    args[r] = (rank_arg){r, n, id, 0};
    pthread_create(&th[r], NULL, rank_main, &args[r]);
  }
  for (int r = 0; r < n; ++r) {
    pthread_join(th[r], NULL);
    if (args[r].failures) FAILF("rank %d: %d checks failed", r, args[r].failures);
  }
  EXPECT_EQ_I(live_comms(), live0);
}

TEST_MAIN(TEST_CASE(without_gpu), TEST_CASE(null_and_foreign_handles), TEST_CASE(version_and_unique_id),
          TEST_CASE(init_arguments), TEST_CASE(single_rank_comm), TEST_CASE(all_reduce_ops),
          TEST_CASE(all_reduce_dtypes), TEST_CASE(collectives), TEST_CASE(send_recv_and_groups),
          TEST_CASE(lifecycle_inside_groups), TEST_CASE(huge_timeout),
          TEST_CASE(explicit_stream), TEST_CASE(tensor_checks), TEST_CASE(split), TEST_CASE(destroy_and_abort),
          TEST_CASE(init_timeout), TEST_CASE(garbage_unique_id), TEST_CASE(threads_one_gpu_each))
