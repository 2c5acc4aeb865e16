/* Section 27: the safetensors format. Files are assembled byte by byte here from the format's
 * description (8 bytes little-endian N, N bytes of JSON, the data buffer) and read back; the
 * writer's output is checked byte for byte against headers written out by hand (the reference
 * implementation's own expected bytes where it has them); every validation rule with its
 * message; every truncation of a valid file; zero-copy and copy-on-write on the CPU; the
 * mapping outliving its handle; CUDA loads and saves when a GPU is there. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "tests/capi/test_util.h"

/* ---- bytes of a file, assembled by hand */

typedef struct {
  unsigned char* p;
  int64_t n;
} bytes;

/* 8-byte little-endian len(header), header, data */
static bytes assemble(const char* header, const void* data, int64_t ndata) {
  int64_t nh = (int64_t)strlen(header);
  bytes b = {(unsigned char*)malloc((size_t)(8 + nh + ndata + 1)), 8 + nh + ndata};
  for (int i = 0; i < 8; ++i) b.p[i] = (unsigned char)((uint64_t)nh >> (8 * i));
  memcpy(b.p + 8, header, (size_t)nh);
  if (ndata) memcpy(b.p + 8 + nh, data, (size_t)ndata);
  return b;
}

static char g_dir[512];

static const char* path_of(const char* name) {
  static char p[600];
  snprintf(p, sizeof p, "%s/%s", g_dir, name);
  return p;
}

static void write_file(const char* path, const void* p, int64_t n) {
  FILE* f = fopen(path, "wb");
  if (!f || (n && fwrite(p, 1, (size_t)n, f) != (size_t)n)) FAILF("cannot write %s", path);
  if (f) fclose(f);
}

static bytes read_file(const char* path) {
  bytes b = {NULL, 0};
  FILE* f = fopen(path, "rb");
  if (!f) {
    FAILF("cannot read %s", path);
    return b;
  }
  fseek(f, 0, SEEK_END);
  b.n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.p = (unsigned char*)malloc((size_t)b.n + 1);
  if (fread(b.p, 1, (size_t)b.n, f) != (size_t)b.n) FAILF("short read of %s", path);
  fclose(f);
  return b;
}

static ct_safetensors open_bytes(bytes b) {
  ct_safetensors f = NULL;
  OK(ct_safetensors_open_buffer(b.p, b.n, &f));
  return f;
}

/* the tensor's bytes, copied to the host */
static void expect_bytes_(ct_tensor t, const void* want, int64_t n, int line) {
  unsigned char* got = (unsigned char*)malloc((size_t)n + 1);
  if (ct_tensor_copy_to_buffer(t, got, n) != CT_OK) FAILF("line %d: copy: %s", line, ct_last_error_message());
  else if (memcmp(got, want, (size_t)n) != 0) FAILF("line %d: the tensor's bytes differ", line);
  free(got);
}
#define EXPECT_BYTES(t, want, n) expect_bytes_((t), (want), (n), __LINE__)

static void expect_name_(ct_safetensors f, int64_t i, const char* want, int line) {
  char buf[256];
  int64_t need = -1;
  if (ct_safetensors_name(f, i, buf, sizeof buf, &need) != CT_OK) FAILF("line %d: name %lld: %s", line, (long long)i, ct_last_error_message());
  else if (strcmp(buf, want) != 0 || need != (int64_t)strlen(want)) FAILF("line %d: name %lld is '%s', expected '%s'", line, (long long)i, buf, want);
}
#define EXPECT_NAME(f, i, s) expect_name_((f), (i), (s), __LINE__)

/* The bytes ct_safetensors_save_buffer writes for the dict. */
static bytes save_bytes(const char* const* names, const ct_tensor* ts, int32_t n, const char* const* keys,
                        const char* const* vals, int32_t nm) {
  bytes b = {NULL, 0};
  int64_t need = -1;
  FAILS(ct_safetensors_save_buffer(names, ts, n, keys, vals, nm, NULL, 0, &need), CT_ERR_BUFFER_SIZE, "too small");
  b.p = (unsigned char*)malloc((size_t)need + 1);
  b.n = need;
  OK(ct_safetensors_save_buffer(names, ts, n, keys, vals, nm, b.p, need, &need));
  EXPECT_EQ_I(need, b.n);
  return b;
}

/* expects b to be 8 bytes N, then exactly `header` padded with spaces to a multiple of 8, then
 * data */
static void expect_file_(bytes b, const char* header, const void* data, int64_t ndata, int line) {
  int64_t nh = (int64_t)strlen(header), padded = (nh + 7) / 8 * 8;
  if (b.n != 8 + padded + ndata) {
    FAILF("line %d: the file has %lld bytes, expected %lld", line, (long long)b.n, (long long)(8 + padded + ndata));
    if (b.n > 8) fprintf(stderr, "  header: %.*s\n", (int)(b.n - 8), (const char*)b.p + 8);
    return;
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | b.p[i];
  if ((int64_t)n != padded) FAILF("line %d: N is %llu, expected %lld", line, (unsigned long long)n, (long long)padded);
  if (memcmp(b.p + 8, header, (size_t)nh) != 0) FAILF("line %d: header is\n%.*s\nexpected\n%s", line, (int)nh, (const char*)b.p + 8, header);
  for (int64_t i = nh; i < padded; ++i)
    if (b.p[8 + i] != ' ') FAILF("line %d: padding byte %lld is %d, not a space", line, (long long)i, b.p[8 + i]);
  if (ndata && memcmp(b.p + 8 + padded, data, (size_t)ndata) != 0) FAILF("line %d: the data buffer differs", line);
}
#define EXPECT_FILE(b, header, data, n) expect_file_((b), (header), (data), (n), __LINE__)

/* ---- reading files written by hand */

static void test_read_hand_written(void) {
  /* header padded to 120 bytes: data at file offset 128, aligned for every dtype */
  const char* h = "{\"b\":{\"dtype\":\"I64\",\"shape\":[3],\"data_offsets\":[16,40]},"
                  "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";
  char header[128];
  EXPECT(strlen(h) < 120);
  snprintf(header, sizeof header, "%-120s", h);
  float a[4] = {1.5f, -2.f, 3.25f, 1e30f};
  int64_t bv[3] = {-1, 1LL << 40, 7};
  unsigned char data[40];
  memcpy(data, a, 16);
  memcpy(data + 16, bv, 24);
  bytes file = assemble(header, data, 40);
  write_file(path_of("hand.safetensors"), file.p, file.n);

  ct_safetensors f = NULL;
  OK(ct_safetensors_open(path_of("hand.safetensors"), &f));
  int64_t n = -1;
  OK(ct_safetensors_count(f, &n));
  EXPECT_EQ_I(n, 2);
  EXPECT_NAME(f, 0, "a"); /* sorted, not in the header's order */
  EXPECT_NAME(f, 1, "b");
  OK(ct_safetensors_metadata_count(f, &n));
  EXPECT_EQ_I(n, 0);
  ct_dtype dt = -2;
  OK(ct_safetensors_tensor_dtype(f, "b", &dt));
  EXPECT_EQ_I(dt, CT_INT64);
  int64_t sizes[4] = {0};
  int32_t nd = -1;
  OK(ct_safetensors_tensor_shape(f, "a", sizes, 4, &nd));
  EXPECT_EQ_I(nd, 2);
  EXPECT_EQ_I(sizes[0], 2);
  EXPECT_EQ_I(sizes[1], 2);
  FAILS(ct_safetensors_tensor_shape(f, "a", sizes, 1, &nd), CT_ERR_BUFFER_SIZE, "too small");
  EXPECT_EQ_I(nd, 2);

  ct_tensor ta = NULL, tb = NULL;
  OK(ct_safetensors_get_tensor(f, "a", CT_CPU, -1, &ta));
  OK(ct_safetensors_get_tensor(f, "b", CT_CPU, -1, &tb));
  EXPECT_SHAPE(ta, 2, 2);
  EXPECT_DTYPE(ta, CT_FLOAT32);
  EXPECT_VALS(ta, 0, 1.5, -2, 3.25, (double)1e30f);
  EXPECT_VALS(tb, 0, -1, (double)(1LL << 40), 7);

  /* zero-copy: both tensors are the mapping itself; the file's byte at offset k is at
   * base + k for a page-aligned base (mmap maps from file offset 0) */
  int64_t pa = 0, pb = 0;
  OK(ct_tensor_data_ptr(ta, &pa));
  OK(ct_tensor_data_ptr(tb, &pb));
  EXPECT_EQ_I(pb - pa, 16);
  EXPECT_EQ_I((pa - 128) % 4096, 0);

  /* copy-on-write: a write into the tensor changes this process's copy, not the file; a later
   * get_tensor through the same handle sees it (one mapping, as the Python package) */
  OK(ct_fill_(ta, 9.0));
  bytes again = read_file(path_of("hand.safetensors"));
  EXPECT(again.n == file.n && memcmp(again.p, file.p, (size_t)file.n) == 0);
  free(again.p);
  ct_tensor ta2 = NULL;
  OK(ct_safetensors_get_tensor(f, "a", CT_CPU, -1, &ta2));
  EXPECT_VALS(ta2, 0, 9, 9, 9, 9);
  rel(ta2);
  /* a second open maps the file afresh */
  ct_safetensors f2 = NULL;
  OK(ct_safetensors_open(path_of("hand.safetensors"), &f2));
  OK(ct_safetensors_get_tensor(f2, "a", CT_CPU, -1, &ta2));
  EXPECT_VALS(ta2, 0, 1.5, -2, 3.25, (double)1e30f);
  rel(ta2);
  OK(ct_safetensors_release(f2));

  /* saving over the mapped file replaces it (a new file renamed over it): the tensors mapped
   * from the old one keep its bytes, a new open sees the new ones, no temporary file is left */
  {
    ct_tensor nb = I64(CT_INT64, 4, 5, 6);
    const char* nm[] = {"b"};
    OK(ct_safetensors_save_file(path_of("hand.safetensors"), nm, &nb, 1, NULL, NULL, 0));
    EXPECT_VALS(tb, 0, -1, (double)(1LL << 40), 7);
    OK(ct_safetensors_open(path_of("hand.safetensors"), &f2));
    ct_tensor b2 = NULL;
    OK(ct_safetensors_get_tensor(f2, "b", CT_CPU, -1, &b2));
    EXPECT_VALS(b2, 0, 4, 5, 6);
    rel(b2);
    rel(nb);
    OK(ct_safetensors_release(f2));
    int others = 0;
    DIR* d = opendir(g_dir);
    for (struct dirent* e; d && (e = readdir(d));) others += strstr(e->d_name, ".tmp") != NULL;
    if (d) closedir(d);
    EXPECT_EQ_I(others, 0);
  }

  /* the mapping outlives the handle while tensors use it */
  int64_t live = -1;
  OK(ct_safetensors_release(f));
  OK(ct_live_safetensors_count(&live));
  EXPECT_EQ_I(live, 0);
  EXPECT_VALS(tb, 0, -1, (double)(1LL << 40), 7);
  EXPECT_VALS(ta, 0, 9, 9, 9, 9);
  FAILS(ct_safetensors_count(f, &n), CT_ERR_INVALID_HANDLE, "already released");
  FAILS(ct_safetensors_release(f), CT_ERR_INVALID_HANDLE, "");
  rel(ta);
  rel(tb);
  free(file.p);
}

static void test_misaligned_and_bool_copies(void) {
  /* header of 61 bytes: the data starts at file offset 69, aligned for nothing wider than a
   * byte: the F32 and I16 tensors are copies, still with the file's values */
  const char* h = "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                  "\"y\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[8,10]}}";
  float x[2] = {0.5f, -7.f};
  unsigned char data[10];
  memcpy(data, x, 8);
  data[8] = 200;
  data[9] = 3;
  bytes file = assemble(h, data, 10);
  EXPECT_EQ_I((8 + strlen(h)) % 4 != 0, 1);
  ct_safetensors f = open_bytes(file);
  ct_tensor tx = NULL, ty = NULL;
  OK(ct_safetensors_get_tensor(f, "x", CT_CPU, -1, &tx));
  OK(ct_safetensors_get_tensor(f, "y", CT_CPU, -1, &ty));
  int64_t px = 0, py = 0;
  OK(ct_tensor_data_ptr(tx, &px));
  OK(ct_tensor_data_ptr(ty, &py));
  EXPECT_EQ_I(px % 4, 0);
  EXPECT_VALS(tx, 0, 0.5, -7);
  EXPECT_VALS(ty, 0, 200, 3);
  OK(ct_safetensors_release(f));
  rel(tx);
  rel(ty);
  free(file.p);

  /* bool: bytes 0 and 1 are used in place; any other byte means a copy with true */
  unsigned char clean[4] = {0, 1, 1, 0}, dirty[4] = {0, 2, 255, 1};
  const char* hb = "{\"m\":{\"dtype\":\"BOOL\",\"shape\":[4],\"data_offsets\":[0,4]}}";
  for (int k = 0; k < 2; ++k) {
    bytes b = assemble(hb, k ? dirty : clean, 4);
    ct_safetensors fb = open_bytes(b);
    ct_tensor m = NULL;
    OK(ct_safetensors_get_tensor(fb, "m", CT_CPU, -1, &m));
    EXPECT_DTYPE(m, CT_BOOL);
    if (k) EXPECT_VALS(m, 0, 0, 1, 1, 1);
    else EXPECT_VALS(m, 0, 0, 1, 1, 0);
    unsigned char raw[4];
    OK(ct_tensor_copy_to_buffer(m, raw, 4));
    for (int i = 0; i < 4; ++i) EXPECT(raw[i] <= 1);
    rel(m);
    OK(ct_safetensors_release(fb));
    free(b.p);
  }
}

/* every ctorch dtype the format has: a hand-made file read back, and the writer's file */
static void test_every_dtype(void) {
  static const struct {
    ct_dtype dt;
    const char* name;
    int size;
  } kinds[] = {{CT_BOOL, "BOOL", 1},    {CT_UINT8, "U8", 1},    {CT_INT8, "I8", 1},
               {CT_INT16, "I16", 2},    {CT_FLOAT16, "F16", 2}, {CT_BFLOAT16, "BF16", 2},
               {CT_INT32, "I32", 4},    {CT_FLOAT32, "F32", 4}, {CT_COMPLEX64, "C64", 8},
               {CT_FLOAT64, "F64", 8},  {CT_INT64, "I64", 8}};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    int sz = kinds[k].size;
    int64_t nbytes = 3 * 2 * sz;
    unsigned char data[48];
    /* arbitrary bytes, except bool's (0/1) and no NaN patterns needed: compared as bytes */
    for (int64_t i = 0; i < nbytes; ++i) data[i] = kinds[k].dt == CT_BOOL ? (unsigned char)(i % 2) : (unsigned char)(i * 37 + 11);
    char header[160];
    snprintf(header, sizeof header, "{\"t\":{\"dtype\":\"%s\",\"shape\":[3,2],\"data_offsets\":[0,%lld]}}", kinds[k].name,
             (long long)nbytes);
    bytes b = assemble(header, data, nbytes);
    ct_safetensors f = open_bytes(b);
    ct_dtype dt = -2;
    OK(ct_safetensors_tensor_dtype(f, "t", &dt));
    EXPECT_EQ_I(dt, kinds[k].dt);
    ct_tensor t = NULL;
    OK(ct_safetensors_get_tensor(f, "t", CT_CPU, -1, &t));
    EXPECT_DTYPE(t, kinds[k].dt);
    EXPECT_SHAPE(t, 3, 2);
    EXPECT_BYTES(t, data, nbytes);
    for (int dev = 0; dev < g_cuda; ++dev) { /* straight to each GPU, the same bytes */
      ct_tensor g = NULL;
      OK(ct_safetensors_get_tensor(f, "t", CT_CUDA, dev, &g));
      EXPECT_DTYPE(g, kinds[k].dt);
      EXPECT_SHAPE(g, 3, 2);
      EXPECT_BYTES(g, data, nbytes);
      rel(g);
    }
    /* written back: the header as written by hand, padded */
    const char* names[] = {"t"};
    bytes w = save_bytes(names, &t, 1, NULL, NULL, 0);
    EXPECT_FILE(w, header, data, nbytes);
    free(w.p);
    rel(t);
    OK(ct_safetensors_release(f));
    free(b.p);
  }
}

/* the writer's bytes for small dicts, against headers written out by hand */
static void test_writer_exact_bytes(void) {
  /* the reference implementation's own tests: an empty dict; metadata only; one F32 tensor */
  bytes b = save_bytes(NULL, NULL, 0, NULL, NULL, 0);
  EXPECT_EQ_I(b.n, 16);
  static const unsigned char empty[16] = {8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ', ' ', ' ', ' ', ' '};
  EXPECT(b.n == 16 && memcmp(b.p, empty, 16) == 0);
  free(b.p);
  const char* k1[] = {"framework"};
  const char* v1[] = {"pt"};
  b = save_bytes(NULL, NULL, 0, k1, v1, 1);
  EXPECT_EQ_I(b.n, 48);
  EXPECT_EQ_I(b.p[0], 40);
  EXPECT_FILE(b, "{\"__metadata__\":{\"framework\":\"pt\"}}", NULL, 0);
  free(b.p);
  ct_tensor attn = F64(CT_FLOAT32, 0, 1, 2, 3, 4, 5), attn4 = NULL;
  int64_t s4[] = {1, 1, 2, 3};
  OK(ct_reshape(attn, s4, 4, &attn4));
  const char* n1[] = {"attn0"};
  b = save_bytes(n1, &attn4, 1, NULL, NULL, 0);
  EXPECT_EQ_I(b.p[0], 72); /* 65 bytes of JSON and 7 spaces */
  float fv[6] = {0, 1, 2, 3, 4, 5};
  EXPECT_FILE(b, "{\"attn0\":{\"dtype\":\"F32\",\"shape\":[1,1,2,3],\"data_offsets\":[0,24]}}", fv, 24);
  free(b.p);
  rel(attn4);
  rel(attn);

  /* order: dtype alignment descending (I64 > F32 > U8), then name; an empty tensor and a 0-dim
   * one; metadata keys sorted; a transposed (non-contiguous) input written contiguous */
  ct_tensor z = I64(CT_INT64, 5, -6), e = NULL, m = NULL, u = I64(CT_UINT8, 1, 2, 3), base = NULL, tr = NULL;
  int64_t s0[] = {0};
  OK(ct_empty(s0, 1, CT_FLOAT32, CT_CPU, -1, &e));
  OK(ct_full(NULL, 0, 2.5, CT_FLOAT32, CT_CPU, -1, &m));
  int64_t s23[] = {2, 3};
  ct_tensor flat = I64(CT_INT16, 1, 2, 3, 4, 5, 6);
  OK(ct_reshape(flat, s23, 2, &base));
  OK(ct_transpose(base, 0, 1, &tr)); /* [[1,4],[2,5],[3,6]] */
  const char* names[] = {"z", "a", "m", "b", "t"};
  ct_tensor ts[] = {z, u, m, e, tr};
  const char* keys[] = {"zeta", "alpha"};
  const char* vals[] = {"last", "first \"quoted\"\n"};
  b = save_bytes(names, ts, 5, keys, vals, 2);
  const char* want =
      "{\"__metadata__\":{\"alpha\":\"first \\\"quoted\\\"\\n\",\"zeta\":\"last\"},"
      "\"z\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,16]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[16,16]},"
      "\"m\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[16,20]},"
      "\"t\":{\"dtype\":\"I16\",\"shape\":[3,2],\"data_offsets\":[20,32]},"
      "\"a\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[32,35]}}";
  unsigned char data[35];
  int64_t zv[2] = {5, -6};
  float mv = 2.5f;
  int16_t tv[6] = {1, 4, 2, 5, 3, 6};
  memcpy(data, zv, 16);
  memcpy(data + 16, &mv, 4);
  memcpy(data + 20, tv, 12);
  data[32] = 1, data[33] = 2, data[34] = 3;
  EXPECT_FILE(b, want, data, 35);

  /* save_file writes the same bytes; reading them back gives the same tensors and metadata */
  OK(ct_safetensors_save_file(path_of("mine.safetensors"), names, ts, 5, keys, vals, 2));
  bytes f = read_file(path_of("mine.safetensors"));
  EXPECT(f.n == b.n && memcmp(f.p, b.p, (size_t)b.n) == 0);
  ct_safetensors sf = NULL;
  OK(ct_safetensors_open(path_of("mine.safetensors"), &sf));
  int64_t n = -1;
  OK(ct_safetensors_count(sf, &n));
  EXPECT_EQ_I(n, 5);
  const char* sorted[] = {"a", "b", "m", "t", "z"};
  for (int i = 0; i < 5; ++i) EXPECT_NAME(sf, i, sorted[i]);
  OK(ct_safetensors_metadata_count(sf, &n));
  EXPECT_EQ_I(n, 2);
  char buf[64];
  int64_t need = -1;
  OK(ct_safetensors_metadata_key(sf, 0, buf, sizeof buf, &need));
  EXPECT_STR(buf, "alpha");
  OK(ct_safetensors_metadata_key(sf, 1, buf, sizeof buf, &need));
  EXPECT_STR(buf, "zeta");
  OK(ct_safetensors_metadata_get(sf, "alpha", buf, sizeof buf, &need));
  EXPECT_STR(buf, "first \"quoted\"\n");
  FAILS(ct_safetensors_metadata_get(sf, "alpha", buf, 3, &need), CT_ERR_BUFFER_SIZE, "too small");
  EXPECT_EQ_I(need, 15);
  FAILS(ct_safetensors_metadata_get(sf, "beta", buf, sizeof buf, &need), CT_ERR_INDEX, "the metadata has no key 'beta'");
  FAILS(ct_safetensors_metadata_key(sf, 2, buf, sizeof buf, &need), CT_ERR_INDEX, "out of range");
  FAILS(ct_safetensors_metadata_key(sf, -1, buf, sizeof buf, &need), CT_ERR_INDEX, "out of range");
  FAILS(ct_safetensors_name(sf, 5, buf, sizeof buf, &need), CT_ERR_INDEX, "out of range");
  ct_tensor r = NULL;
  OK(ct_safetensors_get_tensor(sf, "t", CT_CPU, -1, &r));
  EXPECT_SHAPE(r, 3, 2);
  EXPECT_VALS(r, 0, 1, 4, 2, 5, 3, 6);
  rel(r);
  OK(ct_safetensors_get_tensor(sf, "m", CT_CPU, -1, &r));
  EXPECT_SCALAR_SHAPE(r);
  EXPECT_VALS(r, 0, 2.5);
  rel(r);
  OK(ct_safetensors_get_tensor(sf, "b", CT_CPU, -1, &r));
  EXPECT_SHAPE(r, 0);
  EXPECT_DTYPE(r, CT_FLOAT32);
  rel(r);
  FAILS(ct_safetensors_get_tensor(sf, "nope", CT_CPU, -1, &r), CT_ERR_INDEX, "safetensors: the file has no tensor 'nope'");
  FAILS(ct_safetensors_tensor_dtype(sf, "nope", &(ct_dtype){0}), CT_ERR_INDEX, "no tensor 'nope'");
  OK(ct_safetensors_release(sf));
  free(f.p);
  free(b.p);
  rel(z), rel(e), rel(m), rel(u), rel(base), rel(tr), rel(flat);
}

static void test_unicode_names(void) {
  /* UTF-8 names and metadata round trip; keys() sorts by bytes */
  ct_tensor a = F64(CT_FLOAT32, 1), b = F64(CT_FLOAT32, 2), c = F64(CT_FLOAT32, 3);
  const char* names[] = {"\xc3\xa9t\xc3\xa9", "z/\xf0\x9f\x98\x80", "Zeta"}; /* été, z/😀 */
  ct_tensor ts[] = {a, b, c};
  const char* k[] = {"\xe2\x82\xac"};
  const char* v[] = {"\xf0\x9f\x98\x80 ok"};
  bytes w = save_bytes(names, ts, 3, k, v, 1);
  /* raw UTF-8 in the JSON, not \u escapes (as serde_json writes it) */
  EXPECT(memmem(w.p, (size_t)w.n, "\"\xc3\xa9t\xc3\xa9\":", 8) != NULL);
  ct_safetensors f = open_bytes(w);
  EXPECT_NAME(f, 0, "Zeta");
  EXPECT_NAME(f, 1, "z/\xf0\x9f\x98\x80");
  EXPECT_NAME(f, 2, "\xc3\xa9t\xc3\xa9");
  char buf[64];
  int64_t need;
  OK(ct_safetensors_metadata_get(f, "\xe2\x82\xac", buf, sizeof buf, &need));
  EXPECT_STR(buf, "\xf0\x9f\x98\x80 ok");
  ct_tensor r = NULL;
  OK(ct_safetensors_get_tensor(f, "z/\xf0\x9f\x98\x80", CT_CPU, -1, &r));
  EXPECT_VALS(r, 0, 2);
  rel(r);
  OK(ct_safetensors_release(f));
  free(w.p);
  rel(a), rel(b), rel(c);
}

static void test_save_errors(void) {
  ct_tensor a = F64(CT_FLOAT32, 1), c = NULL;
  OK(ct_tensor_to(a, CT_CPU, -1, CT_COMPLEX128, 0, 0, &c));
  const char* two[] = {"x", "x"};
  ct_tensor aa[] = {a, a};
  const char* p = path_of("err.safetensors");
  FAILS(ct_safetensors_save_file(p, two, aa, 2, NULL, NULL, 0), CT_ERR_ARGUMENT, "safetensors: the name 'x' is given twice");
  const char* nul[] = {"x", NULL};
  FAILS(ct_safetensors_save_file(p, nul, aa, 2, NULL, NULL, 0), CT_ERR_NULL_POINTER, "argument 'names': entry 1 is NULL");
  FAILS(ct_safetensors_save_file(p, NULL, aa, 1, NULL, NULL, 0), CT_ERR_NULL_POINTER, "argument 'names' is NULL");
  const char* one[] = {"x"};
  FAILS(ct_safetensors_save_file(p, one, NULL, 1, NULL, NULL, 0), CT_ERR_NULL_POINTER, "tensors");
  FAILS(ct_safetensors_save_file(NULL, one, aa, 1, NULL, NULL, 0), CT_ERR_NULL_POINTER, "argument 'file_path'");
  FAILS(ct_safetensors_save_file(p, one, aa, -1, NULL, NULL, 0), CT_ERR_ARGUMENT, "must be >= 0");
  const char* meta[] = {"__metadata__"};
  FAILS(ct_safetensors_save_file(p, meta, aa, 1, NULL, NULL, 0), CT_ERR_ARGUMENT, "cannot be named \"__metadata__\"");
  const char* bad[] = {"\xff\xfe"};
  FAILS(ct_safetensors_save_file(p, bad, aa, 1, NULL, NULL, 0), CT_ERR_ARGUMENT, "a tensor name is not valid UTF-8");
  FAILS(ct_safetensors_save_file(p, one, &c, 1, NULL, NULL, 0), CT_ERR_NOT_SUPPORTED,
        "tensor 'x' is torch.complex128, which the safetensors format has no dtype for");
  ct_tensor stale = NULL;
  OK(ct_tensor_clone(a, &stale));
  rel(stale);
  FAILS(ct_safetensors_save_file(p, one, &stale, 1, NULL, NULL, 0), CT_ERR_INVALID_HANDLE, "");
  const char* k2[] = {"k", "k"};
  const char* v2[] = {"1", "2"};
  FAILS(ct_safetensors_save_file(p, one, aa, 1, k2, v2, 2), CT_ERR_ARGUMENT, "the metadata key 'k' is given twice");
  const char* vn[] = {"1", NULL};
  FAILS(ct_safetensors_save_file(p, one, aa, 1, k2, vn, 2), CT_ERR_NULL_POINTER, "argument 'meta_values': entry 1");
  FAILS(ct_safetensors_save_file(p, one, aa, 1, k2, v2, -3), CT_ERR_ARGUMENT, "must be >= 0");
  /* none of the above wrote the file */
  EXPECT(access(p, F_OK) != 0);
  FAILS(ct_safetensors_save_file("/nonexistent-dir/x.safetensors", one, aa, 1, NULL, NULL, 0), CT_ERR_ARGUMENT,
        "safetensors: cannot create '/nonexistent-dir/x.safetensors': No such file or directory");
  int64_t need = -1;
  char small[8];
  FAILS(ct_safetensors_save_buffer(one, aa, 1, NULL, NULL, 0, small, sizeof small, &need), CT_ERR_BUFFER_SIZE,
        "too small");
  EXPECT_EQ_I(need, 8 + 56 + 4); /* {"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} is 54 bytes, padded to 56 */
  FAILS(ct_safetensors_save_buffer(one, aa, 1, NULL, NULL, 0, NULL, 100, &need), CT_ERR_NULL_POINTER, "buf");
  FAILS(ct_safetensors_save_buffer(one, aa, 1, NULL, NULL, 0, small, 8, NULL), CT_ERR_NULL_POINTER, "needed");
  rel(a), rel(c);
}

/* a file whose header is h, data nd bytes of zeros, must fail to open with the message */
static void expect_invalid_(const char* h, int64_t nd, const char* needle, int line) {
  unsigned char* d = (unsigned char*)calloc(1, (size_t)nd + 1);
  bytes b = assemble(h, d, nd);
  ct_safetensors f = NULL;
  ct_status s = ct_safetensors_open_buffer(b.p, b.n, &f);
  if (s != CT_ERR_ARGUMENT) FAILF("line %d: open returned %s (%s), expected CT_ERR_ARGUMENT", line, ct_status_name(s), ct_last_error_message());
  else if (!strstr(ct_last_error_message(), needle)) FAILF("line %d: message '%s' lacks '%s'", line, ct_last_error_message(), needle);
  if (s == CT_OK) ct_safetensors_release(f);
  free(b.p);
  free(d);
}
#define EXPECT_INVALID(h, nd, needle) expect_invalid_((h), (nd), (needle), __LINE__)

static void test_validation_errors(void) {
  ct_safetensors f = NULL;
  unsigned char tiny[7] = {0};
  FAILS(ct_safetensors_open_buffer(tiny, 7, &f), CT_ERR_ARGUMENT, "fewer than the 8 of the header's length (HeaderTooSmall)");
  FAILS(ct_safetensors_open_buffer(NULL, 10, &f), CT_ERR_NULL_POINTER, "data is NULL");
  FAILS(ct_safetensors_open_buffer(tiny, -1, &f), CT_ERR_ARGUMENT, "nbytes must be >= 0");
  unsigned char big[16] = {0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0}; /* 100000001 */
  FAILS(ct_safetensors_open_buffer(big, 16, &f), CT_ERR_ARGUMENT,
        "the header's length 100000001 is larger than the limit of 100000000 bytes (HeaderTooLarge)");
  unsigned char huge[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  FAILS(ct_safetensors_open_buffer(huge, 16, &f), CT_ERR_ARGUMENT, "(HeaderTooLarge)");
  unsigned char past[16] = {9, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
  FAILS(ct_safetensors_open_buffer(past, 16, &f), CT_ERR_ARGUMENT, "the header's length 9 runs past the end of the 16 bytes (InvalidHeaderLength)");

  EXPECT_INVALID("{\"a\":", 0, "safetensors: the header is not valid JSON: ");
  EXPECT_INVALID("{} x", 0, "the header is not valid JSON");
  EXPECT_INVALID("{\"a\xff\":1}", 0, "the header is not valid JSON");
  EXPECT_INVALID("[1, 2]", 0, "the header is not a JSON object but array");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                 "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "the header names 'a' twice");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F9\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "tensor 'a' has the unknown dtype 'F9'");
  EXPECT_INVALID("{\"a\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "tensor 'a': \"dtype\" is not a string");
  EXPECT_INVALID("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "tensor 'a' has no \"dtype\"");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, "tensor 'a' has no \"shape\"");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "tensor 'a' has no \"data_offsets\"");
  EXPECT_INVALID("{\"a\":[1]}", 4, "tensor 'a' is described by array, not by an object");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, "tensor 'a''s shape entry is negative (-1)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4, "is not a non-negative integer (1.5)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}}", 4, "\"shape\" is not an array");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4, "\"data_offsets\" is not [begin, end] but [0]");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,18446744073709551615]}}", 4,
                 "tensor 'a''s end offset is too large (18446744073709551615)");
  /* offsets: a gap, an overlap, begin after end, not starting at 0 */
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                 "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12,
                 "tensor 'b' has data_offsets [8, 12], expected to begin at 4 (the tensors must cover the data buffer in order, without gaps or overlaps) (InvalidOffset)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                 "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "expected to begin at 8");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4, "(InvalidOffset)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                 "\"b\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                 "\"c\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[2,3]}}", 3, "tensor 'c' has data_offsets [2, 3], expected to begin at 0");
  /* sizes */
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4,
                 "tensor 'a' has data_offsets [0, 4] (4 bytes) but shape [2] of F32 needs 8 bytes (TensorInvalidInfo)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1, "needs 12 bits (TensorInvalidInfo)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 4,
                 "tensor 'a''s shape [4294967296, 4294967296] overflows (ValidationOverflow)");
  EXPECT_INVALID("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 5,
                 "the data buffer has 5 bytes but the tensors cover 4 (MetadataIncompleteBuffer)");
  EXPECT_INVALID("{}", 1, "(MetadataIncompleteBuffer)");
  /* metadata */
  EXPECT_INVALID("{\"__metadata__\":{\"k\":1}}", 0, "__metadata__ maps 'k' to 1, not to a string");
  EXPECT_INVALID("{\"__metadata__\":[\"k\"]}", 0, "__metadata__ is not an object of strings but array");
  /* names the C API cannot pass */
  EXPECT_INVALID("{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
                 "a tensor name contains a NUL character");

  /* values nested millions deep are refused without recursing through them */
  {
    const size_t depth = 3000000;
    const char* pre = "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4],\"shape\":";
    char* h = (char*)malloc(strlen(pre) + 2 * depth + 8);
    strcpy(h, pre);
    memset(h + strlen(pre), '[', depth);
    memset(h + strlen(pre) + depth, ']', depth);
    strcpy(h + strlen(pre) + 2 * depth, "}}");
    EXPECT_INVALID(h, 4, "tensor 'a''s shape entry is not a non-negative integer (an array of 1 entries)");
    free(h);
  }
  EXPECT_INVALID("{\"__metadata__\":{\"k\":[[[1]]]}}", 0, "__metadata__ maps 'k' to an array of 1 entries, not to a string");

  /* valid: dtypes the format has and ctorch does not; unknown fields ignored; padding */
  unsigned char d[4] = {1, 2, 3, 4};
  bytes b = assemble("{\"e\":{\"dtype\":\"F8_E4M3\",\"shape\":[2,2],\"data_offsets\":[0,4],\"extra\":true}}    ", d, 4);
  f = open_bytes(b);
  ct_dtype dt;
  FAILS(ct_safetensors_tensor_dtype(f, "e", &dt), CT_ERR_NOT_SUPPORTED,
        "safetensors: tensor 'e' has dtype F8_E4M3, which ctorch does not have");
  ct_tensor t = NULL;
  FAILS(ct_safetensors_get_tensor(f, "e", CT_CPU, -1, &t), CT_ERR_NOT_SUPPORTED, "F8_E4M3");
  int64_t sz[2];
  int32_t nd;
  OK(ct_safetensors_tensor_shape(f, "e", sz, 2, &nd));
  EXPECT_EQ_I(nd, 2);
  EXPECT_EQ_I(sz[1], 2);
  FAILS(ct_safetensors_tensor_shape(f, NULL, sz, 2, &nd), CT_ERR_NULL_POINTER, "argument 'tensor_name'");
  FAILS(ct_safetensors_get_tensor(f, "e", 7, -1, &t), CT_ERR_ARGUMENT, "");
  OK(ct_safetensors_release(f));
  free(b.p);

  /* 65 dimensions: a valid file (the format has no limit), a shape to read, no tensor (64 at most) */
  {
    char h[400] = "{\"x\":{\"dtype\":\"U8\",\"data_offsets\":[0,1],\"shape\":[1";
    for (int i = 1; i < 65; ++i) strcat(h, ",1");
    strcat(h, "]}}");
    unsigned char one = 7;
    bytes bx = assemble(h, &one, 1);
    f = open_bytes(bx);
    int64_t dims[80];
    OK(ct_safetensors_tensor_shape(f, "x", dims, 80, &nd));
    EXPECT_EQ_I(nd, 65);
    FAILS(ct_safetensors_get_tensor(f, "x", CT_CPU, -1, &t), CT_ERR_NOT_SUPPORTED,
          "safetensors: tensor 'x' has 65 dimensions, more than the 64 a tensor may have");
    OK(ct_safetensors_release(f));
    free(bx.p);
  }

  FAILS(ct_safetensors_open(path_of("does-not-exist"), &f), CT_ERR_ARGUMENT, "No such file or directory");
  FAILS(ct_safetensors_open(g_dir, &f), CT_ERR_ARGUMENT, "is not a regular file");
  FAILS(ct_safetensors_open(NULL, &f), CT_ERR_NULL_POINTER, "argument 'file_path'");
  write_file(path_of("empty"), "", 0);
  FAILS(ct_safetensors_open(path_of("empty"), &f), CT_ERR_ARGUMENT, "has 0 bytes, fewer than the 8 of the header's length (HeaderTooSmall)");
  FAILS(ct_safetensors_count(NULL, &(int64_t){0}), CT_ERR_INVALID_HANDLE, "NULL safetensors file handle");
  FAILS(ct_safetensors_retain((ct_safetensors)(uintptr_t)0x1234), CT_ERR_INVALID_HANDLE, "not a ctorch safetensors file handle");
  FAILS(ct_live_safetensors_count(NULL), CT_ERR_NULL_POINTER, "out");
}

/* every prefix of a valid file (several tensors and metadata) fails cleanly, from memory and
 * (a sample of lengths) from disk; so does every single-byte change of its header that breaks
 * it, and the others read back */
static void test_truncated_and_corrupted(void) {
  ct_tensor a = F64(CT_FLOAT64, 1, 2, 3), b = I64(CT_INT8, -1, 2), c = F64(CT_BFLOAT16, 0.5);
  const char* names[] = {"alpha", "beta", "gamma"};
  ct_tensor ts[] = {a, b, c};
  const char* k[] = {"format"};
  const char* v[] = {"pt"};
  bytes w = save_bytes(names, ts, 3, k, v, 1);
  ct_safetensors f = NULL;
  for (int64_t len = 0; len < w.n; ++len) {
    ct_status s = ct_safetensors_open_buffer(w.p, len, &f);
    if (s != CT_ERR_ARGUMENT) {
      FAILF("a prefix of %lld of %lld bytes gave %s", (long long)len, (long long)w.n, ct_status_name(s));
      if (s == CT_OK) ct_safetensors_release(f);
      break;
    }
    if (len % 17 == 0 || len == w.n - 1) {
      write_file(path_of("cut.safetensors"), w.p, len);
      s = ct_safetensors_open(path_of("cut.safetensors"), &f);
      if (s != CT_ERR_ARGUMENT) FAILF("a file cut at %lld gave %s", (long long)len, ct_status_name(s));
    }
  }
  f = open_bytes(w);
  OK(ct_safetensors_release(f));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | w.p[i];
  int ok = 0, bad = 0;
  for (uint64_t i = 0; i < 8 + n; ++i) {
    for (int x = 0; x < 3; ++x) {
      static const unsigned char repl[3] = {'"', '9', 0xff};
      unsigned char keep = w.p[i];
      w.p[i] = repl[x];
      ct_status s = ct_safetensors_open_buffer(w.p, w.n, &f);
      if (s == CT_OK) {
        ++ok;
        int64_t cnt = 0;
        OK(ct_safetensors_count(f, &cnt));
        for (int64_t j = 0; j < cnt; ++j) {
          char nm[128];
          int64_t need;
          ct_tensor t = NULL;
          if (ct_safetensors_name(f, j, nm, sizeof nm, &need) == CT_OK &&
              ct_safetensors_get_tensor(f, nm, CT_CPU, -1, &t) == CT_OK)
            rel(t);
        }
        OK(ct_safetensors_release(f));
      } else if (s == CT_ERR_ARGUMENT) {
        ++bad;
      } else {
        FAILF("changing byte %llu gave %s: %s", (unsigned long long)i, ct_status_name(s), ct_last_error_message());
      }
      w.p[i] = keep;
    }
  }
  EXPECT(bad > 0);
  free(w.p);
  rel(a), rel(b), rel(c);
}

static void test_cuda(void) {
  SKIP_WITHOUT_CUDA();
  /* a hand-made file straight to the device, values checked */
  const char* h = "{\"w\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,6]},"
                  "\"q\":{\"dtype\":\"BOOL\",\"shape\":[2],\"data_offsets\":[6,8]}}";
  unsigned char data[8] = {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 1, 5}; /* 1, -2, 0.5 in float16; true, (5) true */
  bytes b = assemble(h, data, 8);
  write_file(path_of("cuda.safetensors"), b.p, b.n);
  ct_safetensors f = NULL;
  OK(ct_safetensors_open(path_of("cuda.safetensors"), &f));
  for (int dev = 0; dev < g_cuda; ++dev) {
    ct_tensor w = NULL, q = NULL;
    OK(ct_safetensors_get_tensor(f, "w", CT_CUDA, dev, &w));
    OK(ct_safetensors_get_tensor(f, "q", CT_CUDA, dev, &q));
    ct_device_type ty;
    int32_t idx;
    OK(ct_tensor_device(w, &ty, &idx));
    EXPECT_EQ_I(ty, CT_CUDA);
    EXPECT_EQ_I(idx, dev);
    EXPECT_DTYPE(w, CT_FLOAT16);
    EXPECT_VALS(w, 0, 1, -2, 0.5);
    EXPECT_VALS(q, 0, 1, 1);
    unsigned char raw[2];
    OK(ct_tensor_copy_to_buffer(q, raw, 2));
    EXPECT(raw[0] == 1 && raw[1] == 1);
    /* saving CUDA tensors (one transposed) writes the bytes the CPU tensors give */
    ct_tensor m = NULL, mt = NULL, mc = NULL, mtc = NULL;
    int64_t s23[] = {2, 3};
    ct_tensor flat = F64(CT_FLOAT32, 1, 2, 3, 4, 5, 6);
    OK(ct_reshape(flat, s23, 2, &mc));
    OK(ct_transpose(mc, 0, 1, &mtc));
    OK(ct_tensor_to(mc, CT_CUDA, dev, CT_DTYPE_UNDEFINED, 0, 0, &m));
    OK(ct_transpose(m, 0, 1, &mt));
    const char* names[] = {"w", "m", "mt"};
    ct_tensor on_gpu[] = {w, m, mt};
    ct_tensor w_cpu = NULL;
    OK(ct_tensor_to(w, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &w_cpu));
    ct_tensor on_cpu[] = {w_cpu, mc, mtc};
    bytes g = save_bytes(names, on_gpu, 3, NULL, NULL, 0);
    bytes c = save_bytes(names, on_cpu, 3, NULL, NULL, 0);
    EXPECT(g.n == c.n && memcmp(g.p, c.p, (size_t)c.n) == 0);
    ct_safetensors back = open_bytes(g);
    ct_tensor r = NULL;
    OK(ct_safetensors_get_tensor(back, "mt", CT_CUDA, dev, &r));
    EXPECT_SHAPE(r, 3, 2);
    EXPECT_VALS(r, 0, 1, 4, 2, 5, 3, 6);
    rel(r);
    OK(ct_safetensors_release(back));
    free(g.p), free(c.p);
    rel(w), rel(q), rel(m), rel(mt), rel(mc), rel(mtc), rel(flat), rel(w_cpu);
  }
  OK(ct_safetensors_release(f));
  free(b.p);
}

static void test_without_cuda(void) {
  if (g_cuda) return;
  bytes b = assemble("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", "\0\0\0\0", 4);
  ct_safetensors f = open_bytes(b);
  ct_tensor t = NULL;
  FAILS(ct_safetensors_get_tensor(f, "w", CT_CUDA, -1, &t), CT_ERR_CUDA_UNAVAILABLE, "");
  OK(ct_safetensors_release(f));
  free(b.p);
}

static void test_handles_left(void) {
  int64_t live = -1;
  OK(ct_live_safetensors_count(&live));
  EXPECT_EQ_I(live, 0);
  ct_safetensors f = NULL;
  bytes b = assemble("{}", NULL, 0);
  f = open_bytes(b);
  OK(ct_safetensors_retain(f));
  OK(ct_live_safetensors_count(&live));
  EXPECT_EQ_I(live, 1);
  OK(ct_safetensors_release(f));
  OK(ct_safetensors_release(f));
  OK(ct_live_safetensors_count(&live));
  EXPECT_EQ_I(live, 0);
  free(b.p);
}

/* eight threads share one open file: each retains it, reads every tensor (zero-copy) and its
 * values, and releases its reference, while the main thread has already released its own */
typedef struct {
  ct_safetensors f;
  int ok;
} shared_file;

static void* read_all(void* arg) {
  shared_file* s = (shared_file*)arg;
  s->ok = 1;
  for (int round = 0; round < 50; ++round) {
    int64_t n = 0;
    if (ct_safetensors_count(s->f, &n) != CT_OK || n != 2) s->ok = 0;
    for (int64_t i = 0; i < n; ++i) {
      char name[8];
      int64_t need;
      ct_tensor t = NULL;
      double v = -1;
      if (ct_safetensors_name(s->f, i, name, sizeof name, &need) != CT_OK ||
          ct_safetensors_get_tensor(s->f, name, CT_CPU, -1, &t) != CT_OK) {
        s->ok = 0;
        continue;
      }
      if (ct_tensor_item_double(t, &v) != CT_OK || v != (name[0] == 'a' ? 1.5 : -3.0)) s->ok = 0;
      ct_tensor_release(t);
    }
  }
  if (ct_safetensors_release(s->f) != CT_OK) s->ok = 0;
  return NULL;
}

static void test_threads(void) {
  ct_tensor a = F64(CT_FLOAT32, 1.5), b = F64(CT_FLOAT64, -3);
  const char* names[] = {"a", "b"};
  ct_tensor ts[] = {a, b};
  bytes w = save_bytes(names, ts, 2, NULL, NULL, 0);
  ct_safetensors f = open_bytes(w);
  shared_file s[8];
  pthread_t th[8];
  for (int i = 0; i < 8; ++i) {
    OK(ct_safetensors_retain(f));
    s[i].f = f;
    s[i].ok = 0;
  }
  OK(ct_safetensors_release(f));
  for (int i = 0; i < 8; ++i) pthread_create(&th[i], NULL, read_all, &s[i]);
  for (int i = 0; i < 8; ++i) {
    pthread_join(th[i], NULL);
    EXPECT(s[i].ok);
  }
  int64_t live = -1;
  OK(ct_live_safetensors_count(&live));
  EXPECT_EQ_I(live, 0);
  free(w.p);
  rel(a), rel(b);
}

static void make_dir(void) {
  const char* t = getenv("TEST_TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/ct_safetensors_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(g_dir)) {
    fprintf(stderr, "cannot make a temporary directory %s\n", g_dir);
    exit(1);
  }
}

static void test_setup(void) { make_dir(); }

TEST_MAIN(TEST_CASE(setup), TEST_CASE(read_hand_written), TEST_CASE(misaligned_and_bool_copies),
          TEST_CASE(every_dtype), TEST_CASE(writer_exact_bytes), TEST_CASE(unicode_names), TEST_CASE(save_errors),
          TEST_CASE(validation_errors), TEST_CASE(truncated_and_corrupted), TEST_CASE(cuda),
          TEST_CASE(without_cuda), TEST_CASE(threads), TEST_CASE(handles_left))
