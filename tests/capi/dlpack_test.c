/* DLPack and from_blob (section 26): ctorch's exports read through DLPack's structs as any
 * consumer reads them, DLPack structs built here by hand (an external producer: its own buffer
 * and deleter, on the CPU from malloc and on CUDA from cudaMalloc + cudaMemcpy) imported without
 * a copy, the deleters counted, the stream handoff, and the errors (PyTorch's messages). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

/* dlpack.h 1.1 declares the versioned struct without a typedef in C */
typedef struct DLManagedTensorVersioned DLManagedTensorVersioned;

static ct_device_type g_dev = CT_CPU; /* the device a grid test runs on */

/* ---- the dtypes and their DLPack types (written here from DLPack's spec and torch's table) */
typedef struct {
  ct_dtype dtype;
  uint8_t code;
  uint8_t bits;
} dl_case;
static const dl_case DTYPES[] = {
    {CT_UINT8, kDLUInt, 8},       {CT_INT8, kDLInt, 8},           {CT_INT16, kDLInt, 16},
    {CT_INT32, kDLInt, 32},       {CT_INT64, kDLInt, 64},         {CT_FLOAT16, kDLFloat, 16},
    {CT_FLOAT32, kDLFloat, 32},   {CT_FLOAT64, kDLFloat, 64},     {CT_COMPLEX64, kDLComplex, 64},
    {CT_COMPLEX128, kDLComplex, 128}, {CT_BOOL, kDLBool, 8},      {CT_BFLOAT16, kDLBfloat, 16},
};
#define N_DTYPES ((int)(sizeof DTYPES / sizeof DTYPES[0]))

static int64_t iaddr(const void* p) { return (int64_t)(intptr_t)p; }

/* the values of t as complex128 (interleaved re, im) in a new host buffer: exact for every dtype */
static double* values_of(ct_tensor t, int64_t* n) {
  ct_tensor c = NULL;
  *n = 0;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_COMPLEX128, 0, 1, &c));
  OK(ct_tensor_numel(c, n));
  double* v = malloc((size_t)(*n > 0 ? *n : 1) * 16);
  if (c) OK(ct_tensor_copy_to_buffer(c, v, *n * 16));
  rel(c);
  return v;
}

/* a [3, 5] tensor of dtype on g_dev holding 1..15 (bool: alternating), contiguous */
static ct_tensor source(ct_dtype dtype) {
  double v[15];
  for (int i = 0; i < 15; ++i) v[i] = dtype == CT_BOOL ? (double)(i % 2) : (double)(i + 1);
  ct_tensor h = from_f64(v, 15, (const int64_t[]){3, 5}, 2, dtype), d = NULL;
  if (g_dev == CT_CPU) return h;
  OK(ct_tensor_to(h, CT_CUDA, 0, CT_DTYPE_UNDEFINED, 0, 0, &d));
  rel(h);
  return d;
}

/* The layouts of the grid: views of a [3, 5] source. */
enum { L_CONTIG, L_TRANSPOSED, L_SLICED, L_EXPANDED, L_SCALAR, L_EMPTY, N_LAYOUTS };
static const char* LAYOUT_NAMES[] = {"contiguous", "transposed", "sliced+offset", "expanded", "0-dim", "empty"};

static ct_tensor layout(ct_tensor src, int which) {
  ct_tensor v = NULL, a = NULL;
  switch (which) {
    case L_CONTIG: OK(ct_tensor_retain(src)); return src;
    case L_TRANSPOSED: OK(ct_transpose(src, 0, 1, &v)); return v;
    case L_SLICED: OK(ct_slice(src, 1, 1, 5, 2, &v)); return v; /* offset 1, strides [5, 2] */
    case L_EXPANDED:
      OK(ct_select(src, 0, 1, &a)); /* [5], offset 5 */
      OK(ct_unsqueeze(a, 0, &v));
      rel(a);
      OK(ct_expand(v, (const int64_t[]){4, 5}, 2, &a)); /* strides [0, 1] */
      rel(v);
      return a;
    case L_SCALAR:
      OK(ct_select(src, 0, 2, &a));
      OK(ct_select(a, 0, 3, &v)); /* element 13, offset 13 */
      rel(a);
      return v;
    default: OK(ct_narrow(src, 0, 1, 0, &v)); return v; /* [0, 5] */
  }
}

/* What DLPack must say about t: checks every field of dl against t's own metadata. */
static void check_dl(const DLTensor* dl, ct_tensor t, const dl_case* c, const char* what) {
  int32_t nd = -1;
  int64_t sizes[8], strides[8], ptr = -1;
  OK(ct_tensor_sizes(t, sizes, 8, &nd));
  OK(ct_tensor_strides(t, strides, 8, &nd));
  OK(ct_tensor_data_ptr(t, &ptr));
  if (dl->ndim != nd) FAILF("%s: ndim %d, expected %d", what, dl->ndim, nd);
  for (int i = 0; i < nd && dl->ndim == nd; ++i) {
    if (dl->shape[i] != sizes[i]) FAILF("%s: shape[%d] = %lld, expected %lld", what, i, (long long)dl->shape[i], (long long)sizes[i]);
    int64_t want = sizes[i] < 2 ? 1 : strides[i]; /* torch's normalization */
    if (dl->strides[i] != want) FAILF("%s: strides[%d] = %lld, expected %lld", what, i, (long long)dl->strides[i], (long long)want);
  }
  if (iaddr(dl->data) != ptr) FAILF("%s: data %p is not data_ptr 0x%llx (a copy?)", what, dl->data, (long long)ptr);
  if (dl->byte_offset != 0) FAILF("%s: byte_offset %llu", what, (unsigned long long)dl->byte_offset);
  if (dl->dtype.code != c->code || dl->dtype.bits != c->bits || dl->dtype.lanes != 1)
    FAILF("%s: dtype (%d, %d, %d), expected (%d, %d, 1)", what, dl->dtype.code, dl->dtype.bits, dl->dtype.lanes, c->code, c->bits);
  int want_type = g_dev == CT_CPU ? kDLCPU : kDLCUDA;
  if ((int)dl->device.device_type != want_type || dl->device.device_id != 0)
    FAILF("%s: device (%d, %d), expected (%d, 0)", what, (int)dl->device.device_type, dl->device.device_id, want_type);
  int32_t ty = -1, id = -1;
  OK(ct_tensor_dlpack_device(t, &ty, &id));
  EXPECT_EQ_I(ty, want_type);
  EXPECT_EQ_I(id, 0);
}

/* On the CPU, a consumer reads the elements straight from the struct: element k of the
 * row-major order at data + sum idx_i * strides_i, compared with ctorch's values. */
static void check_raw_cpu(const DLTensor* dl, const double* want, int64_t n, const dl_case* c, const char* what) {
  if (g_dev != CT_CPU) return;
  int64_t idx[8] = {0};
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int i = 0; i < dl->ndim; ++i) off += idx[i] * dl->strides[i];
    const char* p = (const char*)dl->data + dl->byte_offset + off * (c->bits / 8);
    double re = 0, im = 0;
    switch (c->dtype) {
      case CT_UINT8: re = *(const uint8_t*)p; break;
      case CT_INT8: re = *(const int8_t*)p; break;
      case CT_INT16: re = *(const int16_t*)p; break;
      case CT_INT32: re = *(const int32_t*)p; break;
      case CT_INT64: re = (double)*(const int64_t*)p; break;
      case CT_FLOAT32: re = *(const float*)p; break;
      case CT_FLOAT64: re = *(const double*)p; break;
      case CT_COMPLEX64: re = ((const float*)p)[0], im = ((const float*)p)[1]; break;
      case CT_COMPLEX128: re = ((const double*)p)[0], im = ((const double*)p)[1]; break;
      case CT_BOOL: re = *(const uint8_t*)p; break;
      case CT_BFLOAT16: {
        uint32_t b = (uint32_t)(*(const uint16_t*)p) << 16;
        float f;
        memcpy(&f, &b, 4);
        re = f;
        break;
      }
      default: return; /* float16: its bits are checked through the round trip */
    }
    if (re != want[2 * k] || im != want[2 * k + 1]) {
      FAILF("%s: raw element %lld = (%g, %g), expected (%g, %g)", what, (long long)k, re, im, want[2 * k], want[2 * k + 1]);
      return;
    }
    for (int i = dl->ndim - 1; i >= 0; --i) {
      if (++idx[i] < dl->shape[i]) break;
      idx[i] = 0;
    }
  }
}

/* Every dtype x layout: export both forms, check the struct, read it raw (CPU), import it back:
 * the same memory (data pointer), shape, values; release order: ctorch's handle first. */
static void grid(void) {
  for (int d = 0; d < N_DTYPES; ++d) {
    const dl_case* c = &DTYPES[d];
    ct_tensor src = source(c->dtype);
    for (int l = 0; l < N_LAYOUTS; ++l) {
      for (int versioned = 0; versioned < 2; ++versioned) {
        char what[96];
        snprintf(what, sizeof what, "dtype %d, %s, %s", c->dtype, LAYOUT_NAMES[l], versioned ? "versioned" : "legacy");
        ct_tensor t = layout(src, l), back = NULL;
        int64_t n = 0, n2 = 0, ptr = 0, ptr2 = -1;
        double* want = values_of(t, &n);
        OK(ct_tensor_data_ptr(t, &ptr));
        void* cap = NULL;
        OK(versioned ? ct_to_dlpack_versioned(t, &cap) : ct_to_dlpack(t, &cap));
        if (!cap) {
          free(want);
          rel(t);
          continue;
        }
        const DLTensor* dl;
        if (versioned) {
          DLManagedTensorVersioned* m = cap;
          EXPECT_EQ_I(m->version.major, 1);
          EXPECT_EQ_I(m->version.minor, 1);
          EXPECT_EQ_I(m->flags, 0); /* writable, not a copy */
          EXPECT(m->deleter != NULL);
          dl = &m->dl_tensor;
        } else {
          DLManagedTensor* m = cap;
          EXPECT(m->deleter != NULL);
          dl = &m->dl_tensor;
        }
        check_dl(dl, t, c, what);
        rel(t); /* the capsule keeps the memory alive */
        check_raw_cpu(dl, want, n, c, what);
        OK(versioned ? ct_from_dlpack_versioned(cap, &back) : ct_from_dlpack(cap, &back));
        if (back) {
          OK(ct_tensor_data_ptr(back, &ptr2));
          EXPECT_EQ_I(ptr2, ptr); /* zero copy */
          EXPECT_DTYPE(back, c->dtype);
          ct_device_type ty = -1;
          int32_t ix = -2;
          OK(ct_tensor_device(back, &ty, &ix));
          EXPECT_EQ_I(ty, g_dev);
          double* got = values_of(back, &n2);
          EXPECT_EQ_I(n2, n);
          if (n2 == n && memcmp(got, want, (size_t)n * 16) != 0) FAILF("%s: values differ after the round trip", what);
          free(got);
        }
        rel(back); /* runs the capsule's deleter */
        free(want);
      }
    }
    rel(src);
  }
}

static void test_export_import_cpu(void) {
  g_dev = CT_CPU;
  grid();
}

static void test_export_import_cuda(void) {
  SKIP_WITHOUT_CUDA();
  g_dev = CT_CUDA;
  grid();
  g_dev = CT_CPU;
}

/* ---- an external producer: its own buffer, its own deleter, counted */
static _Atomic int g_deleted = 0;
static _Atomic int g_freed = 0;

typedef struct {
  int64_t shape[4];
  int64_t strides[4];
  int on_cuda;
} producer_ctx;

static void producer_free(void* data, int on_cuda) {
  if (on_cuda) cudaFree(data);
  else free(data);
  g_freed++;
}

/* what both deleters do: free the buffer, the context and the struct, and count */
static void producer_release(void* self, void* ctx, void* data) {
  producer_ctx* p = ctx;
  producer_free(data, p->on_cuda);
  free(p);
  free(self);
  g_deleted++;
}

static void legacy_deleter(DLManagedTensor* self) {
  producer_release(self, self->manager_ctx, self->dl_tensor.data);
}

static void versioned_deleter(DLManagedTensorVersioned* self) {
  producer_release(self, self->manager_ctx, self->dl_tensor.data);
}

/* A [2, 3] float32 tensor 0.5, 1.5, ... 5.5, row-major strides (or NULL), behind byte_offset 16,
 * on the CPU (malloc) or CUDA (cudaMalloc + cudaMemcpy, no kernel). NULL without a GPU. */
static void* produce(int versioned, int on_cuda, int null_strides, void** base) {
  const float host[6] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
  const size_t off = 16, bytes = off + sizeof host;
  char* buf = NULL;
  if (on_cuda) {
    if (cudaMalloc((void**)&buf, bytes) != cudaSuccess) return NULL;
    cudaMemcpy(buf + off, host, sizeof host, cudaMemcpyHostToDevice);
  } else {
    buf = malloc(bytes);
    memcpy(buf + off, host, sizeof host);
  }
  *base = buf;
  producer_ctx* p = calloc(1, sizeof *p);
  p->on_cuda = on_cuda;
  p->shape[0] = 2, p->shape[1] = 3, p->strides[0] = 3, p->strides[1] = 1;
  DLTensor dl = {buf, {on_cuda ? kDLCUDA : kDLCPU, 0}, 2, {kDLFloat, 32, 1}, p->shape,
                 null_strides ? NULL : p->strides, off};
  if (versioned) {
    DLManagedTensorVersioned* m = calloc(1, sizeof *m);
    m->version.major = 1, m->version.minor = 0;
    m->manager_ctx = p, m->deleter = versioned_deleter, m->dl_tensor = dl;
    return m;
  }
  DLManagedTensor* m = calloc(1, sizeof *m);
  m->manager_ctx = p, m->deleter = legacy_deleter, m->dl_tensor = dl;
  return m;
}

/* Import, views, release: the producer's deleter runs once, after the last view goes. */
static void import_case(int on_cuda) {
  for (int versioned = 0; versioned < 2; ++versioned) {
    for (int null_strides = 0; null_strides < 2; ++null_strides) {
      g_deleted = 0, g_freed = 0;
      void* base = NULL;
      void* cap = produce(versioned, on_cuda, null_strides, &base);
      if (!cap) {
        FAILF("the CUDA producer could not cudaMalloc");
        return;
      }
      ct_tensor t = NULL, tr = NULL, sl = NULL;
      OK(versioned ? ct_from_dlpack_versioned(cap, &t) : ct_from_dlpack(cap, &t));
      if (!t) continue;
      int64_t ptr = 0;
      OK(ct_tensor_data_ptr(t, &ptr));
      EXPECT_EQ_I(ptr, iaddr(base) + 16); /* data + byte_offset, no copy */
      EXPECT_SHAPE(t, 2, 3);
      int64_t st[2];
      int32_t nd;
      OK(ct_tensor_strides(t, st, 2, &nd));
      EXPECT_EQ_I(st[0], 3);
      EXPECT_EQ_I(st[1], 1);
      EXPECT_VALS(t, 0, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5);
      if (on_cuda) { /* foreign memory: record_stream has nothing to tell the caching allocator */
        ct_stream side = NULL;
        OK(ct_stream_create(0, 0, &side));
        OK(ct_tensor_record_stream(t, side));
        OK(ct_stream_release(side));
      }
      OK(ct_transpose(t, 0, 1, &tr));
      OK(ct_slice(t, 1, 1, 3, 1, &sl));
      OK(ct_fill_(sl, 7)); /* writes land in the producer's memory */
      rel(t);
      rel(tr);
      EXPECT_EQ_I(g_deleted, 0); /* sl still uses it */
      if (!on_cuda) EXPECT_EQ_D(((float*)((char*)base + 16))[1], 7.0);
      EXPECT_VALS(sl, 0, 7, 7, 7, 7);
      rel(sl);
      EXPECT_EQ_I(g_deleted, 1);
      EXPECT_EQ_I(g_freed, 1);
    }
  }
}

static void test_import_external_cpu(void) { import_case(0); }

static void test_import_external_cuda(void) {
  SKIP_WITHOUT_CUDA();
  import_case(1);
}

/* An external consumer of ctorch's CUDA export: cudaMemcpy from the struct's pointer. */
static void test_export_to_external_cuda_consumer(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor a = NULL, t = NULL;
  OK(ct_arange(0, 12, 1, CT_FLOAT32, CT_CUDA, 0, &a));
  OK(ct_slice(a, 0, 2, 12, 3, &t)); /* 2, 5, 8, 11 at offset 2, stride 3 */
  rel(a);
  void* cap = NULL;
  OK(ct_tensor_dlpack(t, 1, 1, &cap)); /* the default stream waits for ctorch's current one */
  rel(t);
  DLManagedTensorVersioned* m = cap;
  if (!m) return;
  EXPECT_EQ_I(m->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ_I(m->dl_tensor.strides[0], 3);
  float host[10];
  EXPECT(cudaMemcpy(host, m->dl_tensor.data, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int k = 0; k < 4; ++k) EXPECT_EQ_D(host[3 * k], 2 + 3 * k);
  OK(ct_dlpack_delete(cap, 1));
}

/* Failures leave the capsule to the caller: its deleter has not run, and the caller runs it. */
static void expect_import_fails(void* cap, int versioned, ct_status code, const char* msg) {
  ct_tensor t = NULL;
  g_deleted = 0;
  FAILS(versioned ? ct_from_dlpack_versioned(cap, &t) : ct_from_dlpack(cap, &t), code, msg);
  EXPECT(t == NULL);
  EXPECT_EQ_I(g_deleted, 0);
  OK(ct_dlpack_delete(cap, versioned));
  EXPECT_EQ_I(g_deleted, 1);
}

static void test_import_errors(void) {
  void* base;
  ct_tensor t = NULL;
  FAILS(ct_from_dlpack(NULL, &t), CT_ERR_NULL_POINTER, "capsule");
  FAILS(ct_from_dlpack_versioned(NULL, &t), CT_ERR_NULL_POINTER, "capsule");
  FAILS(ct_dlpack_delete(NULL, 0), CT_ERR_NULL_POINTER, "capsule");
  for (int v = 0; v < 2; ++v) {
    DLManagedTensor* m = produce(v, 0, 0, &base);
    DLTensor* dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    FAILS(v ? ct_from_dlpack_versioned(m, NULL) : ct_from_dlpack(m, NULL), CT_ERR_NULL_POINTER, "out");
    dl->dtype.lanes = 2;
    expect_import_fails(m, v, CT_ERR_DTYPE, "ATen does not support lanes != 1");
    struct {
      uint8_t code, bits;
      const char* msg;
    } bad[] = {{kDLUInt, 16, "Unsupported kUInt bits 16"}, {kDLInt, 4, "Unsupported kInt bits 4"},
               {kDLFloat, 8, "Unsupported kFloat bits 8"}, {kDLBfloat, 32, "Unsupported kFloat bits 32"},
               {kDLComplex, 32, "Unsupported kFloat bits 32"}, {kDLBool, 16, "Unsupported kDLBool bits 16"},
               {kDLFloat8_e4m3fn, 8, "Unsupported code 10"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
      m = produce(v, 0, 0, &base);
      dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
      dl->dtype.code = bad[i].code, dl->dtype.bits = bad[i].bits;
      expect_import_fails(m, v, CT_ERR_DTYPE, bad[i].msg);
    }
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->device.device_type = kDLCUDAHost;
    expect_import_fails(m, v, CT_ERR_DEVICE, "Unsupported device_type: 3");
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->device.device_type = kDLCUDA, dl->device.device_id = 0;
    if (!g_cuda) expect_import_fails(m, v, CT_ERR_CUDA_UNAVAILABLE, "");
    else expect_import_fails(m, v, CT_ERR_DEVICE, "The specified pointer resides on host memory");
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->strides[1] = -1;
    expect_import_fails(m, v, CT_ERR_ARGUMENT, "as_strided: Negative strides are not supported at the moment, got strides: [3, -1]");
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->shape = NULL;
    expect_import_fails(m, v, CT_ERR_NULL_POINTER, "shape is NULL for ndim 2");
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->shape[0] = -2;
    expect_import_fails(m, v, CT_ERR_SHAPE, "Trying to create tensor with negative dimension -2");
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->ndim = 65;
    expect_import_fails(m, v, CT_ERR_SHAPE, "from_dlpack: ndim 65 is out of range (expected 0..64)");
    m = produce(v, 0, 0, &base);
    dl = v ? &((DLManagedTensorVersioned*)(void*)m)->dl_tensor : &m->dl_tensor;
    dl->ndim = -1;
    expect_import_fails(m, v, CT_ERR_SHAPE, "from_dlpack: ndim -1 is out of range");
  }
  DLManagedTensorVersioned* mv = produce(1, 0, 0, &base);
  mv->version.major = 2;
  expect_import_fails(mv, 1, CT_ERR_NOT_SUPPORTED, "unsupported DLPack capsule major version: 2. Maximum supported version: 1");
  mv = produce(1, 0, 0, &base);
  mv->version.major = 0;
  expect_import_fails(mv, 1, CT_ERR_NOT_SUPPORTED, "unsupported DLPack capsule major version: 0");
  /* the read-only flag is not checked, as torch does not (docs/dlpack.md): the import succeeds
   * and owns the capsule */
  mv = produce(1, 0, 0, &base);
  mv->flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  g_deleted = 0;
  OK(ct_from_dlpack_versioned(mv, &t));
  EXPECT_VALS(t, 0, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5);
  rel(t);
  EXPECT_EQ_I(g_deleted, 1);
  t = NULL;
  /* a capsule with a NULL deleter (the spec allows it): nothing to call, ever */
  float x[3] = {1, 2, 3};
  int64_t shape[1] = {3};
  DLManagedTensor plain = {{x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0}, NULL, NULL};
  OK(ct_from_dlpack(&plain, &t));
  EXPECT_VALS(t, 0, 1, 2, 3);
  rel(t);
  OK(ct_dlpack_delete(&plain, 0));
}

/* The exported struct outlives every ctorch handle; unconsumed capsules are deleted by the
 * producer (ct_dlpack_delete); a view's export keeps the whole storage. */
static void test_export_lifetime(void) {
  ct_tensor a = NULL, v = NULL;
  OK(ct_arange(0, 6, 1, CT_INT64, CT_CPU, -1, &a));
  OK(ct_narrow(a, 0, 4, 2, &v));
  rel(a);
  void *c1 = NULL, *c2 = NULL;
  OK(ct_to_dlpack(v, &c1));
  OK(ct_to_dlpack_versioned(v, &c2));
  rel(v);
  const DLTensor* d1 = &((DLManagedTensor*)c1)->dl_tensor;
  const DLTensor* d2 = &((DLManagedTensorVersioned*)c2)->dl_tensor;
  EXPECT_EQ_I(((const int64_t*)d1->data)[0], 4);
  EXPECT_EQ_I(((const int64_t*)d1->data)[1], 5);
  OK(ct_dlpack_delete(c1, 0));
  EXPECT_EQ_I(((const int64_t*)d2->data)[1], 5); /* c2 still holds the storage */
  OK(ct_dlpack_delete(c2, 1));
  ct_tensor t = NULL;
  OK(ct_arange(0, 2, 1, CT_INT64, CT_CPU, -1, &t));
  FAILS(ct_to_dlpack(t, NULL), CT_ERR_NULL_POINTER, "out_capsule");
  FAILS(ct_to_dlpack_versioned(t, NULL), CT_ERR_NULL_POINTER, "out_capsule");
  FAILS(ct_tensor_dlpack(t, -1, 1, NULL), CT_ERR_NULL_POINTER, "out_capsule");
  FAILS(ct_tensor_dlpack_device(t, NULL, NULL), CT_ERR_NULL_POINTER, "device_type");
  FAILS(ct_to_dlpack(NULL, &c1), CT_ERR_INVALID_HANDLE, "");
  rel(t);
}

/* ---- stream handoff (Tensor.__dlpack__(stream=...)) */
static void test_stream_cpu(void) {
  ct_tensor t = NULL;
  OK(ct_arange(0, 3, 1, CT_FLOAT32, CT_CPU, -1, &t));
  void* cap = NULL;
  OK(ct_tensor_dlpack(t, -1, 0, &cap));
  EXPECT_EQ_I(((DLManagedTensor*)cap)->dl_tensor.device.device_type, kDLCPU);
  OK(ct_dlpack_delete(cap, 0));
  cap = NULL;
  FAILS(ct_tensor_dlpack(t, 1, 1, &cap), CT_ERR_ARGUMENT, "stream should be None on cpu.");
  EXPECT(cap == NULL);
  rel(t);
}

/* The consumer's stream waits for ctorch's current stream: checked by the stream sanitizer,
 * which reports a read on the consumer stream of memory written on the current stream unless
 * an event orders them. */
static void test_stream_cuda(void) {
  SKIP_WITHOUT_CUDA();
  ct_tensor t = NULL;
  OK(ct_zeros((const int64_t[]){1 << 20}, 1, CT_FLOAT32, CT_CUDA, 0, &t));
  void* cap = NULL;
  FAILS(ct_tensor_dlpack(t, 2, 1, &cap), CT_ERR_ARGUMENT, "per-thread default stream is not supported.");
  FAILS(ct_tensor_dlpack(t, 0, 1, &cap), CT_ERR_ARGUMENT, "unsupported stream 0 for ROCm/CUDA");
  EXPECT(cap == NULL);
  ct_stream side = NULL, prev = NULL;
  int32_t prev_dev = -1;
  int64_t handle = 0;
  OK(ct_stream_create(0, 0, &side));
  OK(ct_stream_cuda_handle(side, &handle));
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_ERROR));
  OK(ct_fill_(t, 3)); /* written on the current (default) stream */
  OK(ct_tensor_dlpack(t, handle, 1, &cap));
  OK(ct_stream_guard_enter(side, &prev, &prev_dev));
  ct_tensor c = NULL;
  OK(ct_tensor_clone(t, &c)); /* reads on the consumer's stream: ordered by the handoff's event */
  OK(ct_stream_guard_exit(prev, prev_dev));
  OK(ct_stream_synchronize(side));
  OK(ct_cuda_sanitizer_set_mode(CT_CSAN_OFF));
  ct_tensor one = NULL;
  OK(ct_narrow(c, 0, 0, 2, &one));
  EXPECT_VALS(one, 0, 3, 3);
  rel(one);
  rel(c);
  OK(ct_dlpack_delete(cap, 1));
  OK(ct_tensor_dlpack(t, 1, 0, &cap)); /* the default stream is current: nothing to wait for */
  OK(ct_dlpack_delete(cap, 0));
  OK(ct_stream_release(side));
  rel(t);
}

/* ---- from_blob */
typedef struct {
  _Atomic int calls;
  void* last_address;
} blob_counter;

static void blob_deleter(void* address, void* ctx) {
  blob_counter* c = ctx;
  c->last_address = address;
  c->calls++;
}

static void* release_on_thread(void* t) {
  ct_tensor_release((ct_tensor)t);
  return NULL;
}

static void test_from_blob_cpu(void) {
  double buf[12];
  for (int i = 0; i < 12; ++i) buf[i] = i;
  blob_counter cnt = {0, NULL};
  ct_tensor t = NULL, v = NULL;
  /* strides [1, 4]: a transposed [3, 4] view of the buffer */
  OK(ct_from_blob(buf, (const int64_t[]){4, 3}, 2, (const int64_t[]){1, 4}, CT_FLOAT64, CT_CPU, -1, blob_deleter,
                  &cnt, &t));
  int64_t ptr = 0;
  OK(ct_tensor_data_ptr(t, &ptr));
  EXPECT_EQ_I(ptr, iaddr(buf));
  EXPECT_VALS(t, 0, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
  OK(ct_select(t, 1, 2, &v));
  rel(t);
  EXPECT_EQ_I(cnt.calls, 0);
  /* the last reference goes on another thread: the deleter runs there, once */
  pthread_t th;
  pthread_create(&th, NULL, release_on_thread, v);
  pthread_join(th, NULL);
  EXPECT_EQ_I(cnt.calls, 1);
  EXPECT(cnt.last_address == buf);
  /* contiguous (NULL strides), no deleter: the caller owns the memory */
  OK(ct_from_blob(buf, (const int64_t[]){2, 6}, 2, NULL, CT_FLOAT64, CT_CPU, -1, NULL, NULL, &t));
  OK(ct_fill_(t, 2));
  EXPECT_EQ_D(buf[11], 2);
  rel(t);
  /* 0-dim and empty (NULL address allowed without elements) */
  OK(ct_from_blob(buf, NULL, 0, NULL, CT_FLOAT64, CT_CPU, -1, blob_deleter, &cnt, &t));
  EXPECT_SCALAR_SHAPE(t);
  EXPECT_VALS(t, 0, 2);
  rel(t);
  EXPECT_EQ_I(cnt.calls, 2);
  OK(ct_from_blob(NULL, (const int64_t[]){0, 3}, 2, NULL, CT_FLOAT32, CT_CPU, -1, blob_deleter, &cnt, &t));
  EXPECT_SHAPE(t, 0, 3);
  rel(t);
  EXPECT_EQ_I(cnt.calls, 3);
  /* failures never call the deleter */
  cnt.calls = 0;
  t = NULL;
  FAILS(ct_from_blob(NULL, (const int64_t[]){2}, 1, NULL, CT_FLOAT32, CT_CPU, -1, blob_deleter, &cnt, &t),
        CT_ERR_NULL_POINTER, "the data pointer is NULL for a tensor of 2 elements");
  FAILS(ct_from_blob(buf, (const int64_t[]){-1}, 1, NULL, CT_FLOAT32, CT_CPU, -1, blob_deleter, &cnt, &t),
        CT_ERR_SHAPE, "");
  FAILS(ct_from_blob(buf, (const int64_t[]){2, 2}, 2, (const int64_t[]){-1, 1}, CT_FLOAT32, CT_CPU, -1, blob_deleter,
                     &cnt, &t),
        CT_ERR_ARGUMENT, "as_strided: Negative strides are not supported at the moment, got strides: [-1, 1]");
  FAILS(ct_from_blob(buf, (const int64_t[]){2}, 1, (const int64_t[]){INT64_MAX}, CT_FLOAT32, CT_CPU, -1, blob_deleter,
                     &cnt, &t),
        CT_ERR_SHAPE, "needs more bytes than fit in int64");
  FAILS(ct_from_blob(buf, (const int64_t[]){2}, 1, NULL, 8, CT_CPU, -1, blob_deleter, &cnt, &t), CT_ERR_DTYPE, "");
  FAILS(ct_from_blob(buf, (const int64_t[]){2}, 1, NULL, CT_FLOAT32, 7, -1, blob_deleter, &cnt, &t), CT_ERR_ARGUMENT,
        "");
  FAILS(ct_from_blob(buf, NULL, 1, NULL, CT_FLOAT32, CT_CPU, -1, blob_deleter, &cnt, &t), CT_ERR_NULL_POINTER, "sizes");
  FAILS(ct_from_blob(buf, (const int64_t[]){2}, 1, NULL, CT_FLOAT32, CT_CPU, -1, blob_deleter, &cnt, NULL),
        CT_ERR_NULL_POINTER, "out");
  if (!g_cuda)
    FAILS(ct_from_blob(buf, (const int64_t[]){2}, 1, NULL, CT_FLOAT32, CT_CUDA, 0, blob_deleter, &cnt, &t),
          CT_ERR_CUDA_UNAVAILABLE, "");
  EXPECT(t == NULL);
  EXPECT_EQ_I(cnt.calls, 0);
}

static void cuda_free_deleter(void* address, void* ctx) {
  cudaFree(address);
  ((blob_counter*)ctx)->calls++;
}

static void test_from_blob_cuda(void) {
  SKIP_WITHOUT_CUDA();
  float* d = NULL;
  const float host[4] = {1, 2, 3, 4};
  EXPECT(cudaMalloc((void**)&d, sizeof host) == cudaSuccess);
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  blob_counter cnt = {0, NULL};
  ct_tensor t = NULL, s = NULL;
  OK(ct_from_blob(d, (const int64_t[]){2, 2}, 2, NULL, CT_FLOAT32, CT_CUDA, 0, cuda_free_deleter, &cnt, &t));
  int64_t ptr = 0;
  OK(ct_tensor_data_ptr(t, &ptr));
  EXPECT_EQ_I(ptr, iaddr(d));
  OK(ct_binary(CT_ADD, t, t, &s));
  EXPECT_VALS(s, 0, 2, 4, 6, 8);
  rel(s);
  rel(t);
  EXPECT_EQ_I(cnt.calls, 1);
  /* host memory is not memory of cuda:0; the deleter does not run on failure */
  float h[2];
  cnt.calls = 0;
  FAILS(ct_from_blob(h, (const int64_t[]){2}, 1, NULL, CT_FLOAT32, CT_CUDA, 0, blob_deleter, &cnt, &t), CT_ERR_DEVICE,
        "The specified pointer resides on host memory and is not registered with any CUDA device.");
  if (g_cuda >= 2) {
    float* d1 = NULL;
    cudaSetDevice(1);
    cudaMalloc((void**)&d1, 16);
    cudaSetDevice(0);
    FAILS(ct_from_blob(d1, (const int64_t[]){2}, 1, NULL, CT_FLOAT32, CT_CUDA, 0, blob_deleter, &cnt, &t),
          CT_ERR_DEVICE, "Specified device cuda:0 does not match device of data cuda:1");
    cudaFree(d1);
  }
  EXPECT_EQ_I(cnt.calls, 0);
  /* pinned memory is exported as kDLCPU (as torch) */
  ct_tensor c = NULL, p = NULL;
  OK(ct_ones((const int64_t[]){2}, 1, CT_FLOAT32, CT_CPU, -1, &c));
  OK(ct_tensor_pin_memory(c, &p));
  int32_t ty = -1, id = -1;
  OK(ct_tensor_dlpack_device(p, &ty, &id));
  EXPECT_EQ_I(ty, kDLCPU);
  EXPECT_EQ_I(id, 0);
  rel(c);
  rel(p);
}

static const test_case TESTS[] = {
    TEST_CASE(export_import_cpu),
    TEST_CASE(export_import_cuda),
    TEST_CASE(import_external_cpu),
    TEST_CASE(import_external_cuda),
    TEST_CASE(export_to_external_cuda_consumer),
    TEST_CASE(import_errors),
    TEST_CASE(export_lifetime),
    TEST_CASE(stream_cpu),
    TEST_CASE(stream_cuda),
    TEST_CASE(from_blob_cpu),
    TEST_CASE(from_blob_cuda),
};

int main(void) { return RUN_TESTS(TESTS); }
