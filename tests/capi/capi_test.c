/* The C API suite: every function of ctorch.h from plain C, against values computed by hand.
 * Runs on CPU everywhere; the CUDA cases check the no-GPU behaviour here and the device
 * properties on a GPU host. */
#include "tests/capi/cast_cases.h"
#include "tests/capi/test_util.h"

/* OK(call), then t's dtype and values (EXPECT_VALS(t, tol, ...)), then t released. */
#define EXPECT_RESULT(call, t, dtype, tol, ...) \
  do {                                          \
    OK(call);                                   \
    EXPECT_DTYPE(t, dtype);                     \
    EXPECT_VALS(t, tol, __VA_ARGS__);           \
    rel(t);                                     \
  } while (0)

static void test_version_and_errors(void) {
  int32_t ma = -1, mi = -1, pa = -1;
  OK(ct_version(&ma, &mi, &pa));
  EXPECT_EQ_I(ma, CT_VERSION_MAJOR);
  EXPECT_EQ_I(mi, CT_VERSION_MINOR);
  EXPECT_EQ_I(pa, CT_VERSION_PATCH);
  OK(ct_version(NULL, NULL, NULL));
  EXPECT_STR(ct_status_name(CT_ERR_SHAPE), "CT_ERR_SHAPE");
  EXPECT_STR(ct_status_name(12345), "CT_UNKNOWN");
  ct_clear_error();
  EXPECT_EQ_I(ct_last_error_code(), CT_OK);
  EXPECT_STR(ct_last_error_message(), "");
  FAILS(ct_tensor_release(NULL), CT_ERR_INVALID_HANDLE, "NULL");
  char small[8];
  int64_t len = ct_last_error_copy(small, sizeof small);
  EXPECT_EQ_I(len, (int64_t)strlen(ct_last_error_message()));
  EXPECT_EQ_I(strlen(small), 7);
  EXPECT(strncmp(small, ct_last_error_message(), 7) == 0);
  EXPECT_EQ_I(ct_last_error_copy(NULL, 0), len);
  /* a success does not clear the last error (errno-like) */
  int64_t n;
  OK(ct_live_tensor_count(&n));
  EXPECT_EQ_I(ct_last_error_code(), CT_ERR_INVALID_HANDLE);
}

static void test_dtypes(void) {
  int64_t sz = 0;
  const ct_dtype all[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_FLOAT16,
                          CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128, CT_BOOL, CT_BFLOAT16};
  const int64_t sizes[] = {1, 1, 2, 4, 8, 2, 4, 8, 8, 16, 1, 2};
  const char* names[] = {"torch.uint8", "torch.int8", "torch.int16", "torch.int32", "torch.int64", "torch.float16",
                         "torch.float32", "torch.float64", "torch.complex64", "torch.complex128", "torch.bool",
                         "torch.bfloat16"};
  for (int i = 0; i < 12; ++i) {
    OK(ct_dtype_itemsize(all[i], &sz));
    EXPECT_EQ_I(sz, sizes[i]);
    char buf[32];
    int64_t need = 0;
    OK(ct_dtype_name(all[i], buf, sizeof buf, &need));
    EXPECT_STR(buf, names[i]);
    EXPECT_EQ_I(need, strlen(names[i]));
  }
  FAILS(ct_dtype_itemsize(8, &sz), CT_ERR_DTYPE, "invalid dtype value 8");
  FAILS(ct_dtype_itemsize(CT_FLOAT32, NULL), CT_ERR_NULL_POINTER, "'out'");
  char tiny[4];
  int64_t need = 0;
  FAILS(ct_dtype_name(CT_FLOAT32, tiny, sizeof tiny, &need), CT_ERR_BUFFER_SIZE, "too small");
  EXPECT_EQ_I(need, 13);
  /* torch.promote_types, checked against PyTorch's table */
  ct_dtype r;
  struct { ct_dtype a, b, want; } cases[] = {
      {CT_UINT8, CT_INT8, CT_INT16},     {CT_UINT8, CT_INT32, CT_INT32},       {CT_BOOL, CT_UINT8, CT_UINT8},
      {CT_INT32, CT_INT64, CT_INT64},    {CT_INT64, CT_FLOAT16, CT_FLOAT16},   {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32},
      {CT_FLOAT32, CT_FLOAT64, CT_FLOAT64}, {CT_COMPLEX64, CT_FLOAT64, CT_COMPLEX128}, {CT_INT64, CT_COMPLEX64, CT_COMPLEX64},
      {CT_BFLOAT16, CT_FLOAT32, CT_FLOAT32}, {CT_BOOL, CT_BOOL, CT_BOOL},     {CT_INT8, CT_INT16, CT_INT16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    OK(ct_promote_types(cases[i].a, cases[i].b, &r));
    EXPECT_EQ_I(r, cases[i].want);
    OK(ct_promote_types(cases[i].b, cases[i].a, &r));
    EXPECT_EQ_I(r, cases[i].want);
  }
}

static void test_devices(void) {
  ct_device_type t = -1;
  int32_t idx = -5;
  OK(ct_device_parse("cpu", &t, &idx));
  EXPECT_EQ_I(t, CT_CPU);
  EXPECT_EQ_I(idx, -1);
  OK(ct_device_parse("cuda", &t, &idx));
  EXPECT_EQ_I(t, CT_CUDA);
  EXPECT_EQ_I(idx, -1);
  OK(ct_device_parse("cuda:12", &t, &idx));
  EXPECT_EQ_I(idx, 12);
  OK(ct_device_parse("cpu:0", &t, &idx));
  EXPECT_EQ_I(idx, 0);
  const char* bad[] = {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:01", "CUDA", " cuda", "cuda:1 ", "cpu:1", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) FAILS(ct_device_parse(bad[i], &t, &idx), CT_ERR_DEVICE_STRING, "Invalid device string");
  FAILS(ct_device_parse(NULL, &t, &idx), CT_ERR_NULL_POINTER, "'str'");
  char buf[16];
  int64_t need;
  OK(ct_device_format(CT_CUDA, 1, buf, sizeof buf, &need));
  EXPECT_STR(buf, "cuda:1");
  OK(ct_device_format(CT_CUDA, -1, buf, sizeof buf, &need));
  EXPECT_STR(buf, "cuda");
  OK(ct_device_format(CT_CPU, -1, buf, sizeof buf, &need));
  EXPECT_STR(buf, "cpu");
  FAILS(ct_device_format(7, 0, buf, sizeof buf, &need), CT_ERR_ARGUMENT, "invalid device type 7");
}

static void test_cuda_enumeration(void) {
  int32_t avail = -1, count = -1;
  OK(ct_cuda_is_available(&avail));
  OK(ct_cuda_device_count(&count));
  EXPECT(avail == (count > 0));
  if (!avail) {
    printf("  (no CUDA device: checking the unavailable paths)\n");
    FAILS(ct_cuda_check_available(), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
    char buf[64];
    int64_t need;
    FAILS(ct_cuda_get_device_name(0, buf, sizeof buf, &need), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
    int32_t ma, mi;
    FAILS(ct_cuda_get_device_capability(0, &ma, &mi), CT_ERR_CUDA_UNAVAILABLE, "");
    int64_t v;
    FAILS(ct_cuda_get_device_property(0, CT_PROP_TOTAL_MEMORY, &v), CT_ERR_CUDA_UNAVAILABLE, "");
    ct_tensor t = NULL;
    FAILS(ct_zeros((int64_t[]){2}, 1, CT_FLOAT32, CT_CUDA, -1, &t), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
    EXPECT(t == NULL);
    return;
  }
  OK(ct_cuda_check_available());
  for (int32_t d = 0; d < count; ++d) {
    char name[256];
    int64_t need = 0;
    OK(ct_cuda_get_device_name(d, name, sizeof name, &need));
    int32_t ma = 0, mi = -1;
    OK(ct_cuda_get_device_capability(d, &ma, &mi));
    int64_t mem = 0, sms = 0, l2 = 0, warp = 0;
    OK(ct_cuda_get_device_property(d, CT_PROP_TOTAL_MEMORY, &mem));
    OK(ct_cuda_get_device_property(d, CT_PROP_MULTIPROCESSOR_COUNT, &sms));
    OK(ct_cuda_get_device_property(d, CT_PROP_L2_CACHE_SIZE, &l2));
    OK(ct_cuda_get_device_property(d, CT_PROP_WARP_SIZE, &warp));
    printf("  cuda:%d name='%s' capability=%d.%d total_memory=%lld multiprocessors=%lld l2=%lld\n", d, name, ma, mi,
           (long long)mem, (long long)sms, (long long)l2);
    EXPECT(strlen(name) > 0);
    EXPECT(ma >= 5);
    EXPECT(mem > (1LL << 30));
    EXPECT(sms > 0);
    EXPECT_EQ_I(warp, 32);
  }
  char buf[8];
  int64_t need;
  FAILS(ct_cuda_get_device_name(count, buf, sizeof buf, &need), CT_ERR_INDEX, "Invalid CUDA device index");
  int64_t v;
  FAILS(ct_cuda_get_device_property(0, 99, &v), CT_ERR_ARGUMENT, "unknown device property");
}

static void test_factories(void) {
  ct_tensor t;
  OK(ct_zeros((int64_t[]){2, 3}, 2, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_SHAPE(t, 2, 3);
  EXPECT_DTYPE(t, CT_FLOAT32);
  EXPECT_VALS(t, 0, 0, 0, 0, 0, 0, 0);
  int64_t st[2];
  int32_t nd;
  OK(ct_tensor_strides(t, st, 2, &nd));
  EXPECT_EQ_I(st[0], 3);
  EXPECT_EQ_I(st[1], 1);
  ct_device_type dt;
  int32_t di;
  OK(ct_tensor_device(t, &dt, &di));
  EXPECT_EQ_I(dt, CT_CPU);
  EXPECT_EQ_I(di, -1);
  rel(t);
  EXPECT_RESULT(ct_ones((int64_t[]){3}, 1, CT_INT32, CT_CPU, 0, &t), t, CT_INT32, 0, 1, 1, 1);
  OK(ct_full((int64_t[]){2, 2}, 2, 2.5, CT_FLOAT64, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, 2.5, 2.5, 2.5, 2.5);
  rel(t);
  OK(ct_full(NULL, 0, 7, CT_INT64, CT_CPU, -1, &t));
  EXPECT_SCALAR_SHAPE(t);
  int64_t iv;
  OK(ct_tensor_item_int64(t, &iv));
  EXPECT_EQ_I(iv, 7);
  rel(t);
  OK(ct_full((int64_t[]){2}, 1, 0.7, CT_BOOL, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, 1, 1);
  rel(t);
  OK(ct_empty((int64_t[]){4, 0}, 2, CT_FLOAT32, CT_CPU, -1, &t));
  int64_t numel;
  OK(ct_tensor_numel(t, &numel));
  EXPECT_EQ_I(numel, 0);
  rel(t);
  /* arange / linspace / eye */
  OK(ct_arange(0, 5, 1, CT_INT64, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, 0, 1, 2, 3, 4);
  rel(t);
  OK(ct_arange(1, 2, 0.25, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, 1, 1.25, 1.5, 1.75);
  rel(t);
  OK(ct_arange(5, 0, -2, CT_FLOAT64, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, 5, 3, 1);
  rel(t);
  FAILS(ct_arange(0, 5, 0, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "step must be nonzero");
  FAILS(ct_arange(0, 5, -1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "inconsistent with step sign");
  /* a step, start or end that is not finite (torch._refs.arange's and RangeUtils.h's texts) */
  FAILS(ct_arange(0, 1, INFINITY, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "step must be finite but got inf");
  FAILS(ct_arange(1, 0, -INFINITY, CT_FLOAT64, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "step must be finite but got -inf");
  FAILS(ct_arange(0, 1, NAN, CT_INT64, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "step must be finite but got nan");
  FAILS(ct_arange(0, INFINITY, 1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "unsupported range: 0 -> inf");
  FAILS(ct_arange(-INFINITY, 0, 1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "unsupported range: -inf -> 0");
  FAILS(ct_arange(NAN, 1, 1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "unsupported range: nan -> 1");
  OK(ct_linspace(0, 1, 5, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_VALS(t, 1e-7, 0, 0.25, 0.5, 0.75, 1);
  rel(t);
  OK(ct_linspace(-1, 1, 1, CT_FLOAT64, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, -1);
  rel(t);
  FAILS(ct_linspace(0, 1, -1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "non-negative");
  OK(ct_eye(2, 3, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_SHAPE(t, 2, 3);
  EXPECT_VALS(t, 0, 1, 0, 0, 0, 1, 0);
  rel(t);
  OK(ct_eye(2, -1, CT_INT64, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, 1, 0, 0, 1);
  rel(t);
  /* errors */
  t = NULL;
  FAILS(ct_eye(2, -2, CT_INT64, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "eye: m must be greater or equal to 0, got -2");
  FAILS(ct_eye(-1, 2, CT_INT64, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "eye: n must be greater or equal to 0, got -1");
  /* fill values that do not fit the dtype (c10::checked_convert's text); the edges fit */
  FAILS(ct_full((int64_t[]){1}, 1, 1e30, CT_INT8, CT_CPU, -1, &t), CT_ERR_ARGUMENT,
        "value cannot be converted to type int8_t without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, 128, CT_INT8, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type int8_t without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, -1, CT_UINT8, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type uint8_t without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, 2147483648.0, CT_INT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type int without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, 9223372036854775808.0, CT_INT64, CT_CPU, -1, &t), CT_ERR_ARGUMENT,
        "type int64_t without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, INFINITY, CT_INT16, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type int16_t without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, 70000, CT_FLOAT16, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type at::Half without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, 1e39, CT_BFLOAT16, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type at::BFloat16 without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, -1e39, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_ARGUMENT, "type float without overflow");
  FAILS(ct_full((int64_t[]){1}, 1, 1e39, CT_COMPLEX64, CT_CPU, -1, &t), CT_ERR_ARGUMENT,
        "type c10::complex<float> without overflow");
  EXPECT(t == NULL);
  OK(ct_full((int64_t[]){2}, 1, -128, CT_INT8, CT_CPU, -1, &t));
  EXPECT_VALS(t, 0, -128, -128);
  OK(ct_fill_(t, 127));
  EXPECT_VALS(t, 0, 127, 127);
  FAILS(ct_fill_(t, NAN), CT_ERR_ARGUMENT, "value cannot be converted to type int8_t without overflow");
  EXPECT_VALS(t, 0, 127, 127);  /* nothing written */
  rel(t);
  OK(ct_full((int64_t[]){3}, 1, 65504, CT_FLOAT16, CT_CPU, -1, &t));
  OK(ct_fill_(t, INFINITY));  /* infinities and NaN fit a floating dtype */
  EXPECT_VALS(t, 0, INFINITY, INFINITY, INFINITY);
  OK(ct_fill_(t, NAN));
  rel(t);
  OK(ct_full((int64_t[]){1}, 1, 1e300, CT_FLOAT64, CT_CPU, -1, &t));
  rel(t);
  OK(ct_full((int64_t[]){1}, 1, NAN, CT_BOOL, CT_CPU, -1, &t));  /* bool takes any value */
  rel(t);
  t = NULL;
  FAILS(ct_zeros((int64_t[]){2, -3}, 2, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_SHAPE, "negative dimension -3");
  FAILS(ct_zeros(NULL, 2, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_NULL_POINTER, "'sizes'");
  FAILS(ct_zeros((int64_t[]){2}, 1, 42, CT_CPU, -1, &t), CT_ERR_DTYPE, "invalid dtype value 42");
  FAILS(ct_zeros((int64_t[]){2}, 1, CT_FLOAT32, 5, -1, &t), CT_ERR_ARGUMENT, "invalid device type 5");
  FAILS(ct_zeros((int64_t[]){2}, 1, CT_FLOAT32, CT_CPU, -1, NULL), CT_ERR_NULL_POINTER, "'out'");
  FAILS(ct_zeros((int64_t[]){1LL << 40, 1LL << 40}, 2, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_SHAPE, "more elements than fit in int64");
  FAILS(ct_zeros((int64_t[]){1LL << 30, 1LL << 30}, 2, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_OUT_OF_MEMORY, "CPU out of memory: tried to allocate 4611686018427387904 bytes");
  EXPECT(t == NULL);
}

static void test_from_buffer_all_dtypes(void) {
  /* bytes in, bytes out, for every dtype */
  const ct_dtype all[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_FLOAT16,
                          CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128, CT_BOOL, CT_BFLOAT16};
  for (int k = 0; k < 12; ++k) {
    int64_t isz;
    OK(ct_dtype_itemsize(all[k], &isz));
    unsigned char in[6 * 16], out[6 * 16];
    for (int i = 0; i < 6 * isz; ++i) in[i] = (unsigned char)(all[k] == CT_BOOL ? (i % 2) : (i * 7 + 3));
    ct_tensor t;
    OK(ct_from_buffer(in, 6 * isz, (int64_t[]){2, 3}, 2, all[k], CT_CPU, -1, &t));
    OK(ct_tensor_copy_to_buffer(t, out, 6 * isz));
    EXPECT(memcmp(in, out, (size_t)(6 * isz)) == 0);
    FAILS(ct_tensor_copy_to_buffer(t, out, 6 * isz - 1), CT_ERR_BUFFER_SIZE, "needs exactly");
    rel(t);
  }
  ct_tensor t = NULL;
  float f[3] = {1, 2, 3};
  FAILS(ct_from_buffer(f, 8, (int64_t[]){3}, 1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_BUFFER_SIZE, "needs exactly 12");
  FAILS(ct_from_buffer(NULL, 12, (int64_t[]){3}, 1, CT_FLOAT32, CT_CPU, -1, &t), CT_ERR_NULL_POINTER, "data is NULL");
  /* half and bfloat16 conversions: 1.5 and -2 are exact; 0.1 rounds */
  OK(ct_from_buffer((double[]){1.5, -2, 0.1, 65504, 1e6}, 40, (int64_t[]){5}, 1, CT_FLOAT64, CT_CPU, -1, &t));
  ct_tensor h, b;
  OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT16, 0, 0, &h));
  OK(ct_tensor_to(t, CT_CPU, -1, CT_BFLOAT16, 0, 0, &b));
  uint16_t hb[5], bb[5];
  OK(ct_tensor_copy_to_buffer(h, hb, 10));
  OK(ct_tensor_copy_to_buffer(b, bb, 10));
  EXPECT_EQ_I(hb[0], 0x3e00); /* 1.5 */
  EXPECT_EQ_I(hb[1], 0xc000); /* -2 */
  EXPECT_EQ_I(hb[2], 0x2e66); /* 0.1 -> 0.0999755859375 */
  EXPECT_EQ_I(hb[3], 0x7bff); /* 65504, the largest half */
  EXPECT_EQ_I(hb[4], 0x7c00); /* overflow -> inf */
  EXPECT_EQ_I(bb[0], 0x3fc0);
  EXPECT_EQ_I(bb[1], 0xc000);
  EXPECT_EQ_I(bb[2], 0x3dcd); /* 0.1 -> 0.10009765625 */
  EXPECT_VALS(h, 0, 1.5, -2, 0.0999755859375, 65504, INFINITY);
  EXPECT_VALS(b, 0, 1.5, -2, 0.10009765625, 65536, 999424);
  rel(t), rel(h), rel(b);
}

static void test_like_and_new(void) {
  ct_tensor base, t;
  OK(ct_ones((int64_t[]){2, 3}, 2, CT_INT16, CT_CPU, -1, &base));
  OK(ct_zeros_like(base, CT_DTYPE_UNDEFINED, &t));
  EXPECT_SHAPE(t, 2, 3);
  EXPECT_DTYPE(t, CT_INT16);
  EXPECT_VALS(t, 0, 0, 0, 0, 0, 0, 0);
  rel(t);
  EXPECT_RESULT(ct_ones_like(base, CT_FLOAT64, &t), t, CT_FLOAT64, 0, 1, 1, 1, 1, 1, 1);
  OK(ct_full_like(base, 4, CT_DTYPE_UNDEFINED, &t));
  EXPECT_VALS(t, 0, 4, 4, 4, 4, 4, 4);
  rel(t);
  OK(ct_empty_like(base, CT_DTYPE_UNDEFINED, &t));
  EXPECT_SHAPE(t, 2, 3);
  EXPECT_DTYPE(t, CT_INT16);
  rel(t);
  OK(ct_new_zeros(base, (int64_t[]){4}, 1, CT_DTYPE_UNDEFINED, &t));
  EXPECT_SHAPE(t, 4);
  EXPECT_DTYPE(t, CT_INT16);
  rel(t);
  OK(ct_new_ones(base, (int64_t[]){1}, 1, CT_DTYPE_UNDEFINED, &t));
  EXPECT_VALS(t, 0, 1);
  rel(t);
  EXPECT_RESULT(ct_new_full(base, (int64_t[]){2}, 1, -3, CT_DTYPE_UNDEFINED, &t), t, CT_INT16, 0, -3, -3);
  OK(ct_new_empty(base, (int64_t[]){5}, 1, CT_BOOL, &t));
  EXPECT_DTYPE(t, CT_BOOL);
  rel(t);
  OK(ct_new_tensor(base, (double[]){1.9, -2.9}, 16, (int64_t[]){2}, 1, CT_FLOAT64, CT_DTYPE_UNDEFINED, &t));
  EXPECT_DTYPE(t, CT_INT16);
  EXPECT_VALS(t, 0, 1, -2); /* truncation toward zero, like torch's cast */
  rel(t);
  FAILS(ct_zeros_like(NULL, CT_DTYPE_UNDEFINED, &t), CT_ERR_INVALID_HANDLE, "NULL");
  rel(base);
}

static void test_handles(void) {
  ct_tensor t, v, same;
  int64_t live0, live;
  OK(ct_live_tensor_count(&live0));
  OK(ct_arange(0, 6, 1, CT_FLOAT32, CT_CPU, -1, &t));
  OK(ct_live_tensor_count(&live));
  EXPECT_EQ_I(live, live0 + 1);
  /* to() with nothing to change returns the same tensor, as a new reference */
  OK(ct_tensor_to(t, CT_CPU, -1, CT_FLOAT32, 0, 0, &same));
  int32_t is_same = 0;
  OK(ct_tensor_is_same(t, same, &is_same));
  EXPECT_EQ_I(is_same, 1);
  OK(ct_tensor_release(same)); /* drops one of the two references */
  float x;
  double dv;
  FAILS(ct_tensor_item_double(t, &dv), CT_ERR_SHAPE, "a Tensor with 6 elements");
  /* copy=1 forces a new tensor */
  OK(ct_tensor_to(t, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 1, &same));
  OK(ct_tensor_is_same(t, same, &is_same));
  EXPECT_EQ_I(is_same, 0);
  rel(same);
  /* retain/release */
  OK(ct_tensor_retain(t));
  OK(ct_tensor_release(t));
  /* a view keeps the storage alive after its base handle is gone */
  OK(ct_narrow(t, 0, 2, 3, &v));
  OK(ct_tensor_release(t));
  EXPECT_VALS(v, 0, 2, 3, 4);
  /* use after free, double free, foreign handles */
  int32_t d;
  FAILS(ct_tensor_dim(t, &d), CT_ERR_INVALID_HANDLE, "already released");
  FAILS(ct_tensor_release(t), CT_ERR_INVALID_HANDLE, "already released");
  FAILS(ct_tensor_dim((ct_tensor)&x, &d), CT_ERR_INVALID_HANDLE, "not a ctorch tensor handle");
  FAILS(ct_tensor_dim((ct_tensor)(uintptr_t)0x1, &d), CT_ERR_INVALID_HANDLE, "not a ctorch tensor handle");
  FAILS(ct_tensor_dim((ct_tensor)(uintptr_t)0x5000000100000001ULL, &d), CT_ERR_INVALID_HANDLE, "");
  FAILS(ct_tensor_dim(NULL, &d), CT_ERR_INVALID_HANDLE, "NULL tensor handle");
  FAILS(ct_tensor_dim(v, NULL), CT_ERR_NULL_POINTER, "'out'");
  /* a released slot reused by a new tensor does not revive the old handle */
  ct_tensor n;
  OK(ct_zeros(NULL, 0, CT_FLOAT32, CT_CPU, -1, &n));
  FAILS(ct_tensor_dim(t, &d), CT_ERR_INVALID_HANDLE, "");
  rel(n);
  rel(v);
  OK(ct_live_tensor_count(&live));
  EXPECT_EQ_I(live, live0);
}

static void test_metadata(void) {
  ct_tensor t, p;
  OK(ct_zeros((int64_t[]){2, 3, 4}, 3, CT_FLOAT64, CT_CPU, -1, &t));
  int32_t nd;
  int64_t v;
  OK(ct_tensor_dim(t, &nd));
  EXPECT_EQ_I(nd, 3);
  OK(ct_tensor_size(t, -1, &v));
  EXPECT_EQ_I(v, 4);
  OK(ct_tensor_stride(t, 0, &v));
  EXPECT_EQ_I(v, 12);
  FAILS(ct_tensor_size(t, 3, &v), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  int64_t buf[2];
  FAILS(ct_tensor_sizes(t, buf, 2, &nd), CT_ERR_BUFFER_SIZE, "3 dimensions");
  EXPECT_EQ_I(nd, 3);
  int32_t c;
  OK(ct_tensor_is_contiguous(t, &c));
  EXPECT_EQ_I(c, 1);
  OK(ct_permute(t, (int64_t[]){2, 0, 1}, 3, &p));
  /* data_ptr: a view's address is its base's plus offset * itemsize */
  ct_tensor sel;
  int64_t base_ptr = 0, sel_ptr = 0;
  OK(ct_select(t, 0, 1, &sel));
  OK(ct_tensor_data_ptr(t, &base_ptr));
  OK(ct_tensor_data_ptr(sel, &sel_ptr));
  EXPECT(base_ptr != 0);
  EXPECT_EQ_I(sel_ptr - base_ptr, 12 * 8);
  rel(sel);
  FAILS(ct_tensor_data_ptr(NULL, &base_ptr), CT_ERR_INVALID_HANDLE, "");
  ct_tensor empty0;
  OK(ct_empty((int64_t[]){0}, 1, CT_FLOAT32, CT_CPU, -1, &empty0));
  OK(ct_tensor_data_ptr(empty0, &base_ptr));
  EXPECT_EQ_I(base_ptr, 0);
  rel(empty0);
  OK(ct_tensor_is_contiguous(p, &c));
  EXPECT_EQ_I(c, 0);
  EXPECT_SHAPE(p, 4, 2, 3);
  OK(ct_tensor_storage_offset(p, &v));
  EXPECT_EQ_I(v, 0);
  rel(p);
  rel(t);
}

static void test_views(void) {
  ct_tensor t, v, w;
  OK(ct_arange(0, 12, 1, CT_FLOAT32, CT_CPU, -1, &t));
  OK(ct_view(t, (int64_t[]){3, -1}, 2, &v));
  EXPECT_SHAPE(v, 3, 4);
  int32_t shares = 0;
  OK(ct_tensor_shares_storage(t, v, &shares));
  EXPECT_EQ_I(shares, 1);
  /* writing through a view is seen by the base */
  OK(ct_select(v, 0, 1, &w)); /* row 1: 4 5 6 7 */
  EXPECT_VALS(w, 0, 4, 5, 6, 7);
  OK(ct_fill_(w, -1));
  EXPECT_VALS(t, 0, 0, 1, 2, 3, -1, -1, -1, -1, 8, 9, 10, 11);
  rel(w);
  /* transpose: strides swap, not contiguous; view of it fails, reshape copies */
  OK(ct_transpose(v, 0, 1, &w));
  EXPECT_SHAPE(w, 4, 3);
  int64_t st[2];
  int32_t nd;
  OK(ct_tensor_strides(w, st, 2, &nd));
  EXPECT_EQ_I(st[0], 1);
  EXPECT_EQ_I(st[1], 4);
  ct_tensor bad = NULL, r;
  FAILS(ct_view(w, (int64_t[]){12}, 1, &bad), CT_ERR_SHAPE, "Use .reshape(...) instead");
  OK(ct_reshape(w, (int64_t[]){12}, 1, &r));
  EXPECT_VALS(r, 0, 0, -1, 8, 1, -1, 9, 2, -1, 10, 3, -1, 11);
  OK(ct_tensor_shares_storage(r, t, &shares));
  EXPECT_EQ_I(shares, 0);
  rel(r);
  ct_tensor c;
  OK(ct_contiguous(w, &c));
  int32_t same;
  OK(ct_tensor_is_same(c, w, &same));
  EXPECT_EQ_I(same, 0);
  rel(c);
  OK(ct_contiguous(v, &c));
  OK(ct_tensor_is_same(c, v, &same));
  EXPECT_EQ_I(same, 1);
  rel(c);
  rel(w);
  FAILS(ct_view(t, (int64_t[]){5, -1}, 2, &bad), CT_ERR_SHAPE, "is invalid for input of size 12");
  FAILS(ct_view(t, (int64_t[]){-1, -1}, 2, &bad), CT_ERR_SHAPE, "only one dimension can be inferred");
  /* narrow / slice / select with negative indices */
  OK(ct_narrow(v, 1, 1, 2, &w));
  EXPECT_SHAPE(w, 3, 2);
  EXPECT_VALS(w, 0, 1, 2, -1, -1, 9, 10);
  rel(w);
  OK(ct_slice(t, 0, 1, 100, 3, &w));
  EXPECT_VALS(w, 0, 1, -1, -1, 10); /* indices 1, 4, 7, 10 */
  rel(w);
  OK(ct_slice(t, 0, -3, -1, 1, &w));
  EXPECT_VALS(w, 0, 9, 10);
  rel(w);
  OK(ct_select(v, -1, -1, &w));
  EXPECT_VALS(w, 0, 3, -1, 11);
  rel(w);
  FAILS(ct_select(v, 0, 3, &bad), CT_ERR_INDEX, "index 3 out of range");
  FAILS(ct_narrow(v, 1, 3, 2, &bad), CT_ERR_INDEX, "exceeds dimension size (4)");
  FAILS(ct_narrow(v, 1, 1, -1, &bad), CT_ERR_ARGUMENT, "narrow(): length must be non-negative.");
  FAILS(ct_slice(v, 0, 0, 2, 0, &bad), CT_ERR_ARGUMENT, "step must be positive");
  FAILS(ct_transpose(v, 0, 2, &bad), CT_ERR_INDEX, "Dimension out of range");
  FAILS(ct_permute(v, (int64_t[]){0, 0}, 2, &bad), CT_ERR_ARGUMENT, "duplicate dims");
  FAILS(ct_permute(v, (int64_t[]){0}, 1, &bad), CT_ERR_SHAPE, "does not match");
  /* unsqueeze / squeeze / expand / flatten */
  ct_tensor u;
  OK(ct_unsqueeze(v, 1, &u));
  EXPECT_SHAPE(u, 3, 1, 4);
  OK(ct_squeeze(u, &w));
  EXPECT_SHAPE(w, 3, 4);
  rel(w);
  OK(ct_squeeze_dim(u, 0, &w)); /* size 3: unchanged */
  EXPECT_SHAPE(w, 3, 1, 4);
  rel(w);
  OK(ct_squeeze_dim(u, -2, &w));
  EXPECT_SHAPE(w, 3, 4);
  rel(w);
  OK(ct_unsqueeze(v, -1, &w));
  EXPECT_SHAPE(w, 3, 4, 1);
  rel(w);
  FAILS(ct_unsqueeze(v, 3, &bad), CT_ERR_INDEX, "[-3, 2]");
  OK(ct_expand(u, (int64_t[]){2, 3, 5, 4}, 4, &w));
  EXPECT_SHAPE(w, 2, 3, 5, 4);
  int64_t st4[4];
  OK(ct_tensor_strides(w, st4, 4, &nd));
  EXPECT_EQ_I(st4[0], 0);
  EXPECT_EQ_I(st4[2], 0);
  rel(w);
  OK(ct_expand(u, (int64_t[]){-1, 2, -1}, 3, &w));
  EXPECT_SHAPE(w, 3, 2, 4);
  rel(w);
  FAILS(ct_expand(u, (int64_t[]){4, 1, 4}, 3, &bad), CT_ERR_SHAPE, "must match the existing size (3)");
  /* a size-1 dim expanded to a negative size other than -1 */
  FAILS(ct_expand(u, (int64_t[]){3, -2, 4}, 3, &bad), CT_ERR_SHAPE, "The expanded size of the tensor (-2) isn't allowed at dimension 1");
  rel(u);
  ct_tensor cube;
  OK(ct_zeros((int64_t[]){2, 3, 4}, 3, CT_FLOAT32, CT_CPU, -1, &cube));
  OK(ct_flatten(cube, 1, -1, &w));
  EXPECT_SHAPE(w, 2, 12);
  rel(w);
  OK(ct_flatten(cube, 0, -1, &w));
  EXPECT_SHAPE(w, 24);
  rel(w);
  rel(cube);
  EXPECT(bad == NULL);
  rel(v);
  rel(t);
}

static void test_elementwise_and_promotion(void) {
  ct_tensor a = F64(CT_INT32, 1, 2, 3), b = F64(CT_INT64, 10, 20, 30), r;
  EXPECT_RESULT(ct_binary(CT_ADD, a, b, &r), r, CT_INT64, 0, 11, 22, 33);
  /* int32 + 2.5 -> float32 ; int32 + 2 -> int32 */
  EXPECT_RESULT(ct_binary_scalar_f(CT_ADD, a, 2.5, 0, &r), r, CT_FLOAT32, 0, 3.5, 4.5, 5.5);
  EXPECT_RESULT(ct_binary_scalar_i(CT_MUL, a, 2, 0, &r), r, CT_INT32, 0, 2, 4, 6);
  /* reverse: 10 - a */
  OK(ct_binary_scalar_i(CT_SUB, a, 10, 1, &r));
  EXPECT_VALS(r, 0, 9, 8, 7);
  rel(r);
  /* int / int -> float32 true division */
  EXPECT_RESULT(ct_binary(CT_DIV, a, b, &r), r, CT_FLOAT32, 1e-7, 0.1, 0.1, 0.1);
  /* uint8 + int8 -> int16 */
  ct_tensor u8 = F64(CT_UINT8, 250, 5), i8 = F64(CT_INT8, 10, -10);
  EXPECT_RESULT(ct_binary(CT_ADD, u8, i8, &r), r, CT_INT16, 0, 260, -5);
  /* uint8 wraps */
  EXPECT_RESULT(ct_binary(CT_ADD, u8, u8, &r), r, CT_UINT8, 0, 244, 10);
  rel(u8), rel(i8);
  /* bool + bool stays bool (logical or), bool - bool is an error */
  ct_tensor t = F64(CT_BOOL, 1, 0, 1), f = F64(CT_BOOL, 1, 0, 0);
  EXPECT_RESULT(ct_binary(CT_ADD, t, f, &r), r, CT_BOOL, 0, 1, 0, 1);
  FAILS(ct_binary(CT_SUB, t, f, &r), CT_ERR_DTYPE, "Subtraction, the `-` operator, with two bool tensors");
  FAILS(ct_unary(CT_NEG, t, &r), CT_ERR_DTYPE, "Negation, the `-` operator, on a bool tensor");
  FAILS(ct_binary_scalar_i(CT_SUB, t, 1, 0, &r), CT_ERR_DTYPE, "with a bool tensor is not supported");
  FAILS(ct_binary_scalar_f(CT_SUB, t, 1.0, 1, &r), CT_ERR_DTYPE, "with a bool tensor is not supported");
  /* bool tensor + 1.5 -> float32; bool + int -> int64 */
  EXPECT_RESULT(ct_binary_scalar_f(CT_ADD, t, 1.5, 0, &r), r, CT_FLOAT32, 0, 2.5, 1.5, 2.5);
  OK(ct_binary_scalar_i(CT_ADD, t, 1, 0, &r));
  EXPECT_DTYPE(r, CT_INT64);
  rel(r);
  rel(t), rel(f);
  /* float16 tensor + 2.5 stays float16; float16 + float32 tensor -> float32 */
  ct_tensor h = F64(CT_FLOAT16, 1, 2), f32 = F64(CT_FLOAT32, 0.5, 0.25);
  EXPECT_RESULT(ct_binary_scalar_f(CT_ADD, h, 2.5, 0, &r), r, CT_FLOAT16, 0, 3.5, 4.5);
  EXPECT_RESULT(ct_binary(CT_ADD, h, f32, &r), r, CT_FLOAT32, 0, 1.5, 2.25);
  /* 0-dim float64 tensor + float32 tensor -> float32 (dim tensors win in the same category) */
  ct_tensor z64;
  OK(ct_full(NULL, 0, 0.5, CT_FLOAT64, CT_CPU, -1, &z64));
  EXPECT_RESULT(ct_binary(CT_ADD, f32, z64, &r), r, CT_FLOAT32, 0, 1, 0.75);
  /* ... but a 0-dim float tensor + int tensor -> the 0-dim's dtype (higher category) */
  OK(ct_binary(CT_ADD, a, z64, &r));
  EXPECT_DTYPE(r, CT_FLOAT64);
  rel(r);
  /* complex scalar tensor + float16 -> complex64 */
  ct_tensor zc;
  OK(ct_full(NULL, 0, 1, CT_COMPLEX128, CT_CPU, -1, &zc));
  OK(ct_binary(CT_ADD, h, zc, &r));
  EXPECT_DTYPE(r, CT_COMPLEX64);
  rel(r);
  rel(zc), rel(z64), rel(h), rel(f32);
  /* broadcasting (3,1) + (4,) -> (3,4) */
  ct_tensor col = from_f64((double[]){0, 10, 20}, 3, (int64_t[]){3, 1}, 2, CT_FLOAT32);
  ct_tensor row = F64(CT_FLOAT32, 1, 2, 3, 4);
  OK(ct_binary(CT_ADD, col, row, &r));
  EXPECT_SHAPE(r, 3, 4);
  EXPECT_VALS(r, 0, 1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24);
  rel(r);
  FAILS(ct_binary(CT_ADD, a, row, &r), CT_ERR_SHAPE, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  /* in place: shape must be the broadcast shape; dtype must be castable */
  FAILS(ct_binary_(CT_ADD, col, row), CT_ERR_SHAPE, "output with shape [3, 1] doesn't match the broadcast shape [3, 4]");
  FAILS(ct_binary_scalar_f_(CT_ADD, a, 0.5), CT_ERR_DTYPE, "result type Float can't be cast to the desired output type Int");
  OK(ct_binary_scalar_i_(CT_ADD, a, 5));
  EXPECT_VALS(a, 0, 6, 7, 8);
  OK(ct_binary_(CT_MUL, a, b));
  EXPECT_DTYPE(a, CT_INT32);
  EXPECT_VALS(a, 0, 60, 140, 240);
  rel(col), rel(row);
  /* comparisons and logical ops give bool */
  ct_tensor x = F64(CT_FLOAT32, 1, 2, 3), y = F64(CT_INT64, 3, 2, 1);
  const double lt[] = {1, 0, 0}, le[] = {1, 1, 0}, gt[] = {0, 0, 1}, ge[] = {0, 1, 1}, eq[] = {0, 1, 0}, ne[] = {1, 0, 1};
  const double* want[] = {eq, ne, lt, le, gt, ge};
  for (int k = 0; k < 6; ++k) {
    OK(ct_binary(CT_EQ + k, x, y, &r));
    EXPECT_DTYPE(r, CT_BOOL);
    expect_vals_(r, want[k], 3, 0, "cmp", __LINE__);
    rel(r);
  }
  OK(ct_binary_scalar_f(CT_GT, x, 1.5, 0, &r));
  EXPECT_VALS(r, 0, 0, 1, 1);
  rel(r);
  ct_tensor m1 = F64(CT_FLOAT32, 0, 1, 2, 0), m2 = F64(CT_INT32, 0, 0, 5, 3);
  OK(ct_binary(CT_LOGICAL_AND, m1, m2, &r));
  EXPECT_VALS(r, 0, 0, 0, 1, 0);
  rel(r);
  OK(ct_binary(CT_LOGICAL_OR, m1, m2, &r));
  EXPECT_VALS(r, 0, 0, 1, 1, 1);
  rel(r);
  OK(ct_binary(CT_LOGICAL_XOR, m1, m2, &r));
  EXPECT_VALS(r, 0, 0, 1, 0, 1);
  rel(r);
  EXPECT_RESULT(ct_unary(CT_LOGICAL_NOT, m2, &r), r, CT_BOOL, 0, 1, 1, 0, 0);
  rel(m1), rel(m2);
  /* maximum / minimum propagate NaN; pow; floor_divide; remainder */
  ct_tensor p = F64(CT_FLOAT64, 1, NAN, -3, 4), q = F64(CT_FLOAT64, 2, 0, -4, 0.5);
  OK(ct_binary(CT_MAXIMUM, p, q, &r));
  EXPECT_VALS(r, 0, 2, NAN, -3, 4);
  rel(r);
  OK(ct_binary(CT_MINIMUM, p, q, &r));
  EXPECT_VALS(r, 0, 1, NAN, -4, 0.5);
  rel(r);
  OK(ct_binary(CT_POW, p, q, &r));
  EXPECT_VALS(r, 1e-12, 1, 1, 1.0 / 81, 2);
  rel(r);
  ct_tensor n1 = F64(CT_INT64, 7, -7, 7, -7), n2 = F64(CT_INT64, 2, 2, -2, -2);
  OK(ct_binary(CT_FLOOR_DIVIDE, n1, n2, &r));
  EXPECT_VALS(r, 0, 3, -4, -4, 3);
  rel(r);
  OK(ct_binary(CT_REMAINDER, n1, n2, &r));
  EXPECT_VALS(r, 0, 1, 1, -1, -1);
  rel(r);
  ct_tensor zero = F64(CT_INT64, 0, 1, 1, 1);
  FAILS(ct_binary(CT_FLOOR_DIVIDE, n1, zero, &r), CT_ERR_ARGUMENT, "ZeroDivisionError");
  rel(zero);
  OK(ct_binary(CT_POW, n1, n2, &r));
  EXPECT_VALS(r, 0, 49, 49, 0, 0);
  rel(r);
  FAILS(ct_binary_scalar_i(CT_POW, n1, -1, 0, &r), CT_ERR_ARGUMENT, "Integers to negative integer powers are not allowed");
  ct_tensor fl = F64(CT_FLOAT32, 7.5, -7.5), fr = F64(CT_FLOAT32, 2, 2);
  OK(ct_binary(CT_FLOOR_DIVIDE, fl, fr, &r));
  EXPECT_VALS(r, 0, 3, -4);
  rel(r);
  OK(ct_binary(CT_REMAINDER, fl, fr, &r));
  EXPECT_VALS(r, 0, 1.5, 0.5);
  rel(r);
  rel(fl), rel(fr), rel(n1), rel(n2), rel(p), rel(q), rel(x), rel(y);
  FAILS(ct_binary(99, a, b, &r), CT_ERR_ARGUMENT, "unknown binary op 99");
  FAILS(ct_binary(CT_ADD, a, NULL, &r), CT_ERR_INVALID_HANDLE, "'b'");
  rel(a), rel(b);
}

static void test_unary_math(void) {
  ct_tensor x = F64(CT_FLOAT64, -2, -0.5, 0, 0.5, 2), r;
  double v[5] = {-2, -0.5, 0, 0.5, 2};
  double want[5];
  for (int k = CT_NEG; k <= CT_SQUARE; ++k) {
    if (k == CT_LOGICAL_NOT) continue;
    OK(ct_unary(k, x, &r));
    for (int i = 0; i < 5; ++i) {
      double a = v[i];
      switch (k) {
        case CT_NEG: want[i] = -a; break;
        case CT_ABS: want[i] = fabs(a); break;
        case CT_EXP: want[i] = exp(a); break;
        case CT_LOG: want[i] = log(a); break;
        case CT_SQRT: want[i] = sqrt(a); break;
        case CT_SIN: want[i] = sin(a); break;
        case CT_COS: want[i] = cos(a); break;
        case CT_TANH: want[i] = tanh(a); break;
        case CT_SIGMOID: want[i] = 1 / (1 + exp(-a)); break;
        case CT_RELU: want[i] = a > 0 ? a : 0; break;
        case CT_SIGN: want[i] = (a > 0) - (a < 0); break;
        case CT_FLOOR: want[i] = floor(a); break;
        case CT_CEIL: want[i] = ceil(a); break;
        case CT_ROUND: want[i] = a == 0.5 ? 0 : (a == -0.5 ? -0.0 : round(a)); break;
        case CT_RECIPROCAL: want[i] = 1 / a; break;
        case CT_SQUARE: want[i] = a * a; break;
      }
    }
    expect_vals_(r, want, 5, 1e-15, "unary", __LINE__);
    rel(r);
  }
  /* integer inputs promote to float32 for float ops and keep dtype otherwise */
  ct_tensor i = F64(CT_INT32, 1, 4, 9);
  EXPECT_RESULT(ct_unary(CT_SQRT, i, &r), r, CT_FLOAT32, 0, 1, 2, 3);
  EXPECT_RESULT(ct_unary(CT_NEG, i, &r), r, CT_INT32, 0, -1, -4, -9);
  FAILS(ct_unary_(CT_EXP, i), CT_ERR_DTYPE, "result type Float can't be cast to the desired output type Int");
  OK(ct_unary_(CT_NEG, i));
  EXPECT_VALS(i, 0, -1, -4, -9);
  OK(ct_unary_(CT_ABS, i));
  EXPECT_VALS(i, 0, 1, 4, 9);
  rel(i);
  OK(ct_unary_(CT_EXP, x));
  EXPECT_VALS(x, 1e-15, exp(-2), exp(-0.5), 1, exp(0.5), exp(2));
  rel(x);
  /* bool square -> int64 ; complex abs -> real */
  ct_tensor b = F64(CT_BOOL, 1, 0);
  OK(ct_unary(CT_SQUARE, b, &r));
  EXPECT_DTYPE(r, CT_INT64);
  rel(r);
  FAILS(ct_unary(CT_RELU, b, &r), CT_ERR_DTYPE, "\"relu\" not implemented for 'Bool'");
  rel(b);
  double cv[4] = {3, 4, 0, -2};
  ct_tensor c;
  OK(ct_from_buffer(cv, 32, (int64_t[]){2}, 1, CT_COMPLEX128, CT_CPU, -1, &c));
  EXPECT_RESULT(ct_unary(CT_ABS, c, &r), r, CT_FLOAT64, 0, 5, 2);
  FAILS(ct_unary(CT_SIGN, c, &r), CT_ERR_DTYPE, "torch.sgn");
  FAILS(ct_unary(-1, c, &r), CT_ERR_ARGUMENT, "unknown unary op -1");
  FAILS(ct_unary(CT_EXP, c, NULL), CT_ERR_NULL_POINTER, "'out'");
  rel(c);
}

/* torch.atan2 (CT_ATAN2) against C's atan2 in double: the four quadrants, both signed zeros on
 * each side, the infinities and NaN; int/bool inputs promote to float32 while float16, bfloat16
 * and float64 keep their dtype; broadcasting; the scalar, reverse and in-place forms; complex
 * inputs are CT_ERR_DTYPE. */
static void expect_atan2_(ct_tensor r, const double* y, const double* x, int64_t n, double tol, int line) {
  double got[32];
  ct_tensor d = NULL;
  if (n > 32 || ct_tensor_to(r, CT_CPU, -1, CT_FLOAT64, 0, 0, &d) != CT_OK ||
      ct_tensor_copy_to_buffer(d, got, n * 8) != CT_OK) {
    FAILF("line %d: reading the result: %s", line, ct_last_error_message());
    rel(d);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    double want = atan2(y[i], x[i]);
    int ok = isnan(want) ? isnan(got[i]) : fabs(got[i] - want) <= tol && signbit(got[i]) == signbit(want);
    if (!ok) FAILF("line %d: atan2(%g, %g) = %.17g, expected %.17g", line, y[i], x[i], got[i], want);
  }
  rel(d);
}
#define EXPECT_ATAN2(r, y, x, n, tol) expect_atan2_((r), (y), (x), (n), (tol), __LINE__)

static void test_atan2(void) {
  /* quadrants, signed zeros, the axes, infinities, NaN; every value exact in float16/bfloat16 */
  static const double y[] = {1, 1, -1, -1, 0.0, -0.0, 0.0, -0.0, 3, -2.5, INFINITY, INFINITY, -INFINITY, 1, -1, NAN, 2};
  static const double x[] = {1, -1, -1, 1, 0.0, 0.0, -0.0, -0.0, 0, 0, INFINITY, -INFINITY, 2, -INFINITY, INFINITY, 1, NAN};
  const int64_t n = (int64_t)(sizeof y / sizeof y[0]), sz[] = {n};
  const struct { ct_dtype dt; double tol; } floats[] = {
      {CT_FLOAT64, 1e-15}, {CT_FLOAT32, 1e-6}, {CT_FLOAT16, 2e-3}, {CT_BFLOAT16, 1.6e-2}};
  ct_tensor r = NULL;
  for (size_t k = 0; k < sizeof floats / sizeof floats[0]; ++k) {
    ct_tensor a = from_f64(y, n, sz, 1, floats[k].dt), b = from_f64(x, n, sz, 1, floats[k].dt);
    OK(ct_binary(CT_ATAN2, a, b, &r));
    EXPECT_DTYPE(r, floats[k].dt);
    EXPECT_ATAN2(r, y, x, n, floats[k].tol);
    rel(r);
    /* in place: a.atan2_(b) */
    OK(ct_binary_(CT_ATAN2, a, b));
    EXPECT_ATAN2(a, y, x, n, floats[k].tol);
    rel(a), rel(b);
  }
  /* integers promote to float32 (int32 with int64 too), bool as well */
  ct_tensor i32 = I64(CT_INT32, 1, -1, 0, 5, -7), i64 = I64(CT_INT64, 2, 2, -3, 0, -7);
  OK(ct_binary(CT_ATAN2, i32, i64, &r));
  EXPECT_DTYPE(r, CT_FLOAT32);
  EXPECT_ATAN2(r, ((const double[]){1, -1, 0, 5, -7}), ((const double[]){2, 2, -3, 0, -7}), 5, 1e-6);
  rel(r);
  ct_tensor bt = F64(CT_BOOL, 1, 0, 1), bf = F64(CT_BOOL, 1, 0, 0);
  OK(ct_binary(CT_ATAN2, bt, bf, &r));
  EXPECT_DTYPE(r, CT_FLOAT32);
  EXPECT_ATAN2(r, ((const double[]){1, 0, 1}), ((const double[]){1, 0, 0}), 3, 1e-6);
  rel(r), rel(bt), rel(bf);
  /* an int tensor cannot hold the float result in place */
  FAILS(ct_binary_(CT_ATAN2, i32, i64), CT_ERR_DTYPE, "result type Float can't be cast to the desired output type Int");
  /* Python scalars: atan2(t, 2.0) and the reverse atan2(2, t); int32 tensor with an int scalar -> float32 */
  ct_tensor f = F64(CT_FLOAT64, 1, -1, 0);
  OK(ct_binary_scalar_f(CT_ATAN2, f, 2.0, 0, &r));
  EXPECT_DTYPE(r, CT_FLOAT64);
  EXPECT_ATAN2(r, ((const double[]){1, -1, 0}), ((const double[]){2, 2, 2}), 3, 1e-15);
  rel(r);
  OK(ct_binary_scalar_i(CT_ATAN2, f, 2, 1, &r));
  EXPECT_ATAN2(r, ((const double[]){2, 2, 2}), ((const double[]){1, -1, 0}), 3, 1e-15);
  rel(r);
  OK(ct_binary_scalar_i(CT_ATAN2, i32, -2, 0, &r));
  EXPECT_DTYPE(r, CT_FLOAT32);
  EXPECT_ATAN2(r, ((const double[]){1, -1, 0, 5, -7}), ((const double[]){-2, -2, -2, -2, -2}), 5, 1e-6);
  rel(r), rel(f), rel(i32), rel(i64);
  /* broadcasting: [2, 1] with [3] -> [2, 3]; float16 with float32 -> float32 */
  ct_tensor col = from_f64((const double[]){1, -1}, 2, (const int64_t[]){2, 1}, 2, CT_FLOAT16);
  ct_tensor row = F64(CT_FLOAT32, 1, 0, -1);
  OK(ct_binary(CT_ATAN2, col, row, &r));
  EXPECT_DTYPE(r, CT_FLOAT32);
  EXPECT_SHAPE(r, 2, 3);
  EXPECT_ATAN2(r, ((const double[]){1, 1, 1, -1, -1, -1}), ((const double[]){1, 0, -1, 1, 0, -1}), 6, 1e-6);
  rel(r), rel(col), rel(row);
  /* complex: not implemented, as in torch */
  ct_tensor c = F64(CT_COMPLEX64, 1, 2);
  FAILS(ct_binary(CT_ATAN2, c, c, &r), CT_ERR_DTYPE, "\"atan2\" not implemented for 'ComplexFloat'");
  rel(c);
}

static void test_clamp_where_fill(void) {
  ct_tensor x = F64(CT_FLOAT32, -2, 0.5, 3), r;
  OK(ct_clamp(x, 1, -1, 1, 1, &r));
  EXPECT_VALS(r, 0, -1, 0.5, 1);
  rel(r);
  OK(ct_clamp(x, 0, 0, 1, 0, &r));
  EXPECT_VALS(r, 0, -2, 0, 0);
  rel(r);
  FAILS(ct_clamp(x, 0, 0, 0, 0, &r), CT_ERR_ARGUMENT, "At least one of 'min' or 'max'");
  OK(ct_clamp_(x, 1, 0, 0, 0));
  EXPECT_VALS(x, 0, 0, 0.5, 3);
  ct_tensor i = F64(CT_INT64, -5, 5);
  EXPECT_RESULT(ct_clamp(i, 1, -1, 1, 2, &r), r, CT_INT64, 0, -1, 2);
  ct_tensor cond = F64(CT_BOOL, 1, 0, 1);
  rel(i);
  i = F64(CT_INT64, 10, 20, 30);
  EXPECT_RESULT(ct_where(cond, x, i, &r), r, CT_FLOAT32, 0, 0, 20, 3);
  FAILS(ct_where(x, x, i, &r), CT_ERR_DTYPE, "where expected condition to be a boolean tensor");
  OK(ct_zero_(i));
  EXPECT_VALS(i, 0, 0, 0, 0);
  OK(ct_fill_(i, 7.9));
  EXPECT_VALS(i, 0, 7, 7, 7);
  rel(i), rel(cond), rel(x);
}

static void test_where_broadcast_error(void) {
  ct_tensor cond = F64(CT_BOOL, 1, 0, 1), a = F64(CT_FLOAT32, 1, 2), r = NULL;
  FAILS(ct_where(cond, a, a, &r), CT_ERR_SHAPE, "must match");
  rel(cond), rel(a);
}

static void test_reductions(void) {
  /* x = [[1, 2, 3], [4, 5, 6]] */
  ct_tensor x = from_f64((double[]){1, 2, 3, 4, 5, 6}, 6, (int64_t[]){2, 3}, 2, CT_FLOAT32), r;
  OK(ct_reduce(CT_SUM, x, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_SCALAR_SHAPE(r);
  EXPECT_VALS(r, 0, 21);
  rel(r);
  OK(ct_reduce(CT_SUM, x, (int64_t[]){0}, 1, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_SHAPE(r, 3);
  EXPECT_VALS(r, 0, 5, 7, 9);
  rel(r);
  OK(ct_reduce(CT_SUM, x, (int64_t[]){-1}, 1, 1, CT_DTYPE_UNDEFINED, &r));
  EXPECT_SHAPE(r, 2, 1);
  EXPECT_VALS(r, 0, 6, 15);
  rel(r);
  OK(ct_reduce(CT_MEAN, x, (int64_t[]){1}, 1, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, 2, 5);
  rel(r);
  OK(ct_reduce(CT_PROD, x, (int64_t[]){0, 1}, 2, 1, CT_DTYPE_UNDEFINED, &r));
  EXPECT_SHAPE(r, 1, 1);
  EXPECT_VALS(r, 0, 720);
  rel(r);
  OK(ct_reduce(CT_AMAX, x, (int64_t[]){0}, 1, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, 4, 5, 6);
  rel(r);
  OK(ct_reduce(CT_AMIN, x, (int64_t[]){1}, 1, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, 1, 4);
  rel(r);
  OK(ct_reduce(CT_SUM, x, NULL, 0, 0, CT_FLOAT64, &r));
  EXPECT_DTYPE(r, CT_FLOAT64);
  rel(r);
  FAILS(ct_reduce(CT_SUM, x, (int64_t[]){2}, 1, 0, CT_DTYPE_UNDEFINED, &r), CT_ERR_INDEX, "Dimension out of range");
  FAILS(ct_reduce(CT_SUM, x, (int64_t[]){1, -1}, 2, 0, CT_DTYPE_UNDEFINED, &r), CT_ERR_ARGUMENT, "appears multiple times");
  FAILS(ct_reduce(9, x, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r), CT_ERR_ARGUMENT, "unknown reduction op");
  /* integer sum -> int64; mean of int is an error */
  ct_tensor i = F64(CT_INT32, 1, 2, 3), b = F64(CT_BOOL, 1, 1, 0);
  EXPECT_RESULT(ct_reduce(CT_SUM, i, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r), r, CT_INT64, 0, 6);
  EXPECT_RESULT(ct_reduce(CT_SUM, b, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r), r, CT_INT64, 0, 2);
  FAILS(ct_reduce(CT_MEAN, i, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r), CT_ERR_DTYPE,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int");
  OK(ct_reduce(CT_MEAN, i, NULL, 0, 0, CT_FLOAT64, &r));
  EXPECT_VALS(r, 0, 2);
  rel(r);
  EXPECT_RESULT(ct_reduce(CT_AMAX, b, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r), r, CT_BOOL, 0, 1);
  /* max/min/argmax/argmin */
  OK(ct_max(x, &r));
  EXPECT_VALS(r, 0, 6);
  rel(r);
  OK(ct_min(x, &r));
  EXPECT_VALS(r, 0, 1);
  rel(r);
  ct_tensor vals, idx;
  ct_tensor y = from_f64((double[]){3, 7, 7, 9, 1, 9}, 6, (int64_t[]){2, 3}, 2, CT_FLOAT64);
  OK(ct_max_dim(y, 1, 0, &vals, &idx));
  EXPECT_VALS(vals, 0, 7, 9);
  EXPECT_VALS(idx, 0, 1, 0); /* first occurrence */
  EXPECT_DTYPE(idx, CT_INT64);
  rel(vals), rel(idx);
  OK(ct_min_dim(y, 0, 1, &vals, &idx));
  EXPECT_SHAPE(vals, 1, 3);
  EXPECT_VALS(vals, 0, 3, 1, 7);
  EXPECT_VALS(idx, 0, 0, 1, 0);
  rel(vals), rel(idx);
  OK(ct_argmax(y, 0, 0, 0, &r));
  EXPECT_SCALAR_SHAPE(r);
  EXPECT_VALS(r, 0, 3);
  rel(r);
  OK(ct_argmin(y, 1, 1, 1, &r));
  EXPECT_SHAPE(r, 2, 1);
  EXPECT_VALS(r, 0, 0, 1);
  rel(r);
  ct_tensor withnan = F64(CT_FLOAT32, 1, NAN, 5, NAN);
  OK(ct_argmax(withnan, 0, 0, 0, &r));
  EXPECT_VALS(r, 0, 1);
  rel(r);
  OK(ct_max(withnan, &r));
  EXPECT_VALS(r, 0, NAN);
  rel(r);
  rel(withnan);
  ct_tensor e;
  OK(ct_zeros((int64_t[]){0}, 1, CT_FLOAT32, CT_CPU, -1, &e));
  FAILS(ct_max(e, &r), CT_ERR_SHAPE, "Expected reduction dim to be specified for input.numel() == 0");
  OK(ct_reduce(CT_SUM, e, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, 0);
  rel(r);
  OK(ct_reduce(CT_PROD, e, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, 1);
  rel(r);
  OK(ct_reduce(CT_MEAN, e, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, NAN);
  rel(r);
  rel(e);
  /* norms */
  ct_tensor v = F64(CT_FLOAT32, 3, -4, 0);
  OK(ct_norm(v, 2, NULL, 0, 0, &r));
  EXPECT_VALS(r, 1e-6, 5);
  rel(r);
  OK(ct_norm(v, 1, NULL, 0, 0, &r));
  EXPECT_VALS(r, 0, 7);
  rel(r);
  OK(ct_norm(v, INFINITY, NULL, 0, 0, &r));
  EXPECT_VALS(r, 0, 4);
  rel(r);
  OK(ct_norm(v, -INFINITY, NULL, 0, 0, &r));
  EXPECT_VALS(r, 0, 0);
  rel(r);
  OK(ct_norm(v, 0, NULL, 0, 0, &r));
  EXPECT_VALS(r, 0, 2);
  rel(r);
  OK(ct_norm(v, 3, NULL, 0, 0, &r));
  EXPECT_VALS(r, 1e-5, pow(91, 1.0 / 3));
  rel(r);
  OK(ct_norm(x, 2, (int64_t[]){1}, 1, 1, &r));
  EXPECT_SHAPE(r, 2, 1);
  EXPECT_VALS(r, 1e-5, sqrt(14), sqrt(77));
  rel(r);
  FAILS(ct_norm(i, 2, NULL, 0, 0, &r), CT_ERR_DTYPE, "Expected a floating point or complex tensor as input. Got Int");
  rel(v), rel(y), rel(i), rel(b), rel(x);
}

static void test_large_parallel(void) {
  /* big enough for the threaded paths: sum of 0..n-1 and a broadcast multiply */
  const int64_t n = 1 << 20;
  ct_tensor a, r;
  OK(ct_arange(0, (double)n, 1, CT_FLOAT64, CT_CPU, -1, &a));
  OK(ct_reduce(CT_SUM, a, NULL, 0, 0, CT_DTYPE_UNDEFINED, &r));
  EXPECT_VALS(r, 0, (double)n * (n - 1) / 2);
  rel(r);
  ct_tensor m;
  OK(ct_view(a, (int64_t[]){1024, 1024}, 2, &m));
  OK(ct_reduce(CT_SUM, m, (int64_t[]){0}, 1, 0, CT_DTYPE_UNDEFINED, &r));
  double col0 = 0;
  for (int64_t i = 0; i < 1024; ++i) col0 += (double)(i * 1024);
  double got;
  ct_tensor s;
  OK(ct_select(r, 0, 0, &s));
  OK(ct_tensor_item_double(s, &got));
  EXPECT(got == col0);
  rel(s), rel(r);
  ct_tensor t;
  OK(ct_transpose(m, 0, 1, &t));
  OK(ct_binary(CT_SUB, m, t, &r)); /* antisymmetric: r + r^T = 0 */
  ct_tensor rt, z;
  OK(ct_transpose(r, 0, 1, &rt));
  OK(ct_binary(CT_ADD, r, rt, &z));
  ct_tensor zmax;
  OK(ct_norm(z, INFINITY, NULL, 0, 0, &zmax));
  EXPECT_VALS(zmax, 0, 0);
  OK(ct_select(r, 0, 1, &s));
  ct_tensor s2;
  OK(ct_select(s, 0, 0, &s2));
  OK(ct_tensor_item_double(s2, &got));
  EXPECT(got == 1024.0 - 1.0); /* m[1][0] - m[0][1] = 1024 - 1 */
  rel(s2), rel(s), rel(zmax), rel(z), rel(rt), rel(r), rel(t), rel(m), rel(a);
  int32_t nt;
  OK(ct_get_num_threads(&nt));
  EXPECT(nt >= 1);
  OK(ct_set_num_threads(1));
  int32_t nt1;
  OK(ct_get_num_threads(&nt1));
  EXPECT_EQ_I(nt1, 1);
  FAILS(ct_set_num_threads(0), CT_ERR_ARGUMENT, "positive number of threads");
  FAILS(ct_set_num_threads(-3), CT_ERR_ARGUMENT, "expected a positive number of threads, got -3");
  FAILS(ct_set_num_threads(1 << 30), CT_ERR_ARGUMENT, "expected at most 4096 threads, got 1073741824");
  FAILS(ct_set_num_threads(4097), CT_ERR_ARGUMENT, "expected at most 4096 threads, got 4097");
  OK(ct_get_num_threads(&nt1));
  EXPECT_EQ_I(nt1, 1); /* a refused value changes nothing */
  OK(ct_set_num_threads(4096));
  OK(ct_get_num_threads(&nt1));
  EXPECT_EQ_I(nt1, 4096);
  OK(ct_set_num_threads(nt));
}

static void test_cat_stack(void) {
  ct_tensor a = from_f64((double[]){1, 2, 3, 4}, 4, (int64_t[]){2, 2}, 2, CT_FLOAT32);
  ct_tensor b = from_f64((double[]){5, 6}, 2, (int64_t[]){1, 2}, 2, CT_INT64);
  ct_tensor r;
  OK(ct_cat((ct_tensor[]){a, b}, 2, 0, &r));
  EXPECT_SHAPE(r, 3, 2);
  EXPECT_DTYPE(r, CT_FLOAT32);
  EXPECT_VALS(r, 0, 1, 2, 3, 4, 5, 6);
  rel(r);
  FAILS(ct_cat((ct_tensor[]){a, b}, 2, 1, &r), CT_ERR_SHAPE, "Sizes of tensors must match except in dimension 1");
  ct_tensor e;
  OK(ct_zeros((int64_t[]){0}, 1, CT_FLOAT32, CT_CPU, -1, &e));
  OK(ct_cat((ct_tensor[]){a, e, a}, 3, 1, &r)); /* legacy: (0,) tensors are skipped */
  EXPECT_SHAPE(r, 2, 4);
  EXPECT_VALS(r, 0, 1, 2, 1, 2, 3, 4, 3, 4);
  rel(r), rel(e);
  OK(ct_stack((ct_tensor[]){a, a}, 2, 0, &r));
  EXPECT_SHAPE(r, 2, 2, 2);
  rel(r);
  OK(ct_stack((ct_tensor[]){a, a}, 2, -1, &r));
  EXPECT_SHAPE(r, 2, 2, 2);
  EXPECT_VALS(r, 0, 1, 1, 2, 2, 3, 3, 4, 4);
  rel(r);
  FAILS(ct_stack((ct_tensor[]){a, b}, 2, 0, &r), CT_ERR_SHAPE, "stack expects each tensor to be equal size");
  FAILS(ct_cat(NULL, 0, 0, &r), CT_ERR_ARGUMENT, "non-empty");
  FAILS(ct_cat((ct_tensor[]){a, NULL}, 2, 0, &r), CT_ERR_INVALID_HANDLE, "tensors[i]");
  rel(a), rel(b);
}

static void test_copy_item_to(void) {
  ct_tensor a = F64(CT_FLOAT64, 1.5, -2.5), b, r;
  OK(ct_zeros((int64_t[]){3, 2}, 2, CT_INT32, CT_CPU, -1, &b));
  OK(ct_tensor_copy_(b, a, 0)); /* broadcast + cast */
  EXPECT_VALS(b, 0, 1, -2, 1, -2, 1, -2);
  FAILS(ct_tensor_copy_(a, b, 0), CT_ERR_SHAPE, "can't be broadcast");
  OK(ct_tensor_clone(a, &r));
  int32_t shares;
  OK(ct_tensor_shares_storage(a, r, &shares));
  EXPECT_EQ_I(shares, 0);
  rel(r);
  double d;
  int64_t i;
  FAILS(ct_tensor_item_double(a, &d), CT_ERR_SHAPE, "a Tensor with 2 elements cannot be converted to Scalar");
  ct_tensor one;
  OK(ct_narrow(a, 0, 1, 1, &one));
  OK(ct_tensor_item_double(one, &d));
  EXPECT(d == -2.5);
  OK(ct_tensor_item_int64(one, &i));
  EXPECT_EQ_I(i, -2);
  double re, im;
  OK(ct_tensor_item_complex(one, &re, &im));
  EXPECT(re == -2.5 && im == 0);
  rel(one);
  int64_t big = (1LL << 62) + 1;
  ct_tensor bi;
  OK(ct_from_buffer(&big, 8, NULL, 0, CT_INT64, CT_CPU, -1, &bi));
  OK(ct_tensor_item_int64(bi, &i));
  EXPECT(i == big); /* exact, not through a double */
  rel(bi);
  double c[2] = {1, -3};
  ct_tensor ct;
  OK(ct_from_buffer(c, 16, NULL, 0, CT_COMPLEX128, CT_CPU, -1, &ct));
  OK(ct_tensor_item_complex(ct, &re, &im));
  EXPECT(re == 1 && im == -3);
  rel(ct);
  /* to(dtype) converts; to the same device+dtype is the same tensor */
  EXPECT_RESULT(ct_tensor_to(a, CT_CPU, 0, CT_FLOAT16, 1, 0, &r), r, CT_FLOAT16, 0, 1.5, -2.5);
  int32_t avail;
  OK(ct_cuda_is_available(&avail));
  if (!avail) FAILS(ct_tensor_to(a, CT_CUDA, -1, CT_DTYPE_UNDEFINED, 0, 0, &r), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  rel(a), rel(b);
}

/* values an integer type cannot hold: x86-64's conversion, as PyTorch's CPU kernels give it
 * (Note [Float to integer casts]; tests/capi/cast_cases.h; device_test.c checks CUDA's) */
static void test_out_of_range_casts(void) { CHECK_CASTS(kCastCpu, CT_CPU); }

/* the repr of t is want; releases t */
static void expect_repr_of_(ct_tensor t, const char* want, int line) {
  expect_repr_(t, want, line);
  rel(t);
}
#define EXPECT_REPR_OF(t, s) expect_repr_of_((t), (s), __LINE__)

static void test_repr(void) {
  ct_tensor t;
  EXPECT_REPR_OF(F64(CT_FLOAT32, 1, 2), "tensor([1., 2.])");
  EXPECT_REPR_OF(F64(CT_FLOAT32, 1.5, -2.25, 3), "tensor([ 1.5000, -2.2500,  3.0000])");
  EXPECT_REPR_OF(F64(CT_FLOAT64, 1, 2), "tensor([1., 2.], dtype=torch.float64)");
  EXPECT_REPR_OF(F64(CT_INT64, 1, -20, 3), "tensor([  1, -20,   3])");
  EXPECT_REPR_OF(F64(CT_INT32, 1, 2), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_REPR_OF(F64(CT_BOOL, 1, 0), "tensor([ True, False])");
  EXPECT_REPR_OF(F64(CT_FLOAT32, 1e-5, 1), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_REPR_OF(F64(CT_FLOAT32, 1, 10000), "tensor([1.0000e+00, 1.0000e+04])");
  /* width from the nonzero finite values */
  EXPECT_REPR_OF(F64(CT_FLOAT32, 0, NAN, INFINITY, -1), "tensor([ 0., nan, inf, -1.])");
  EXPECT_REPR_OF(F64(CT_FLOAT16, 0.5), "tensor([0.5000], dtype=torch.float16)");
  OK(ct_full(NULL, 0, 3, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_REPR(t, "tensor(3.)");
  rel(t);
  OK(ct_full(NULL, 0, 3, CT_INT64, CT_CPU, -1, &t));
  EXPECT_REPR(t, "tensor(3)");
  rel(t);
  EXPECT_REPR_OF(from_f64((double[]){1, 2, 3, 4, 5, 6}, 6, (int64_t[]){2, 3}, 2, CT_FLOAT32),
                 "tensor([[1., 2., 3.],\n        [4., 5., 6.]])");
  EXPECT_REPR_OF(from_f64((double[]){1, 2, 3, 4}, 4, (int64_t[]){2, 1, 2}, 3, CT_INT64),
                 "tensor([[[1, 2]],\n\n        [[3, 4]]])");
  OK(ct_zeros((int64_t[]){0}, 1, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_REPR(t, "tensor([])");
  rel(t);
  OK(ct_zeros((int64_t[]){2, 0}, 2, CT_INT64, CT_CPU, -1, &t));
  EXPECT_REPR(t, "tensor([], size=(2, 0), dtype=torch.int64)");
  rel(t);
  double c[4] = {1, 2, -1.5, -0.5};
  OK(ct_from_buffer(c, 32, (int64_t[]){2}, 1, CT_COMPLEX128, CT_CPU, -1, &t));
  EXPECT_REPR(t, "tensor([ 1.0000+2.0000j, -1.5000-0.5000j], dtype=torch.complex128)");
  rel(t);
  /* summarized: 2000 elements */
  OK(ct_arange(0, 2000, 1, CT_INT64, CT_CPU, -1, &t));
  EXPECT_REPR(t, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  rel(t);
  /* line wrapping at 80 columns */
  OK(ct_arange(0, 30, 1, CT_FLOAT32, CT_CPU, -1, &t));
  EXPECT_REPR(t,
              "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
              "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
              "        28., 29.])");
  rel(t);
  char small[4];
  int64_t need;
  t = F64(CT_FLOAT32, 1, 2);
  FAILS(ct_tensor_repr(t, small, sizeof small, &need), CT_ERR_BUFFER_SIZE, "too small");
  EXPECT_EQ_I(need, 16);
  rel(t);
}

static void test_seed_example_cpu(void) {
  /* The seed's device-agnostic example, on the CPU: x = torch.tensor([1., 2.], device=dev);
   * y = torch.tensor([1., 2.]).to(dev); z = x + y */
  ct_tensor x, y0, y, z;
  double v[2] = {1, 2};
  OK(ct_from_buffer(v, 16, (int64_t[]){2}, 1, CT_FLOAT64, CT_CPU, -1, &x));
  ct_tensor xf;
  OK(ct_tensor_to(x, CT_CPU, -1, CT_FLOAT32, 0, 0, &xf));
  OK(ct_tensor_clone(xf, &y0));
  OK(ct_tensor_to(y0, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &y));
  OK(ct_binary(CT_ADD, xf, y, &z));
  EXPECT_REPR(z, "tensor([2., 4.])");
  rel(x), rel(xf), rel(y0), rel(y), rel(z);
}

TEST_MAIN(TEST_CASE(version_and_errors), TEST_CASE(dtypes), TEST_CASE(devices), TEST_CASE(cuda_enumeration),
          TEST_CASE(factories), TEST_CASE(from_buffer_all_dtypes), TEST_CASE(like_and_new), TEST_CASE(handles),
          TEST_CASE(metadata), TEST_CASE(views), TEST_CASE(elementwise_and_promotion), TEST_CASE(unary_math),
          TEST_CASE(atan2), TEST_CASE(clamp_where_fill), TEST_CASE(where_broadcast_error),
          TEST_CASE(reductions), TEST_CASE(large_parallel), TEST_CASE(cat_stack), TEST_CASE(copy_item_to), TEST_CASE(out_of_range_casts),
          TEST_CASE(repr), TEST_CASE(seed_example_cpu))
