/* The quickstart in C: the seed's device-agnostic example, then a tour of the product. Each
 * section runs on CUDA if present, else on the CPU, and checks the values it prints (a wrong
 * one exits 1):
 *
 *   device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
 *   x = torch.tensor([1., 2.], device=device)
 *   y = torch.tensor([1., 2.]).to(device)
 *   z = x + y
 *   print(x, y, z, z.sum().item())
 *   # a side stream timed by two events (CUDA only), torch.manual_seed + torch.randn,
 *   # a matmul of known matrices, torch.fft.rfft, torch.cuda.memory_summary (CUDA only)
 *
 * Run it with `bazel run //examples/c:quickstart` (or tools/demo.sh).
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ctorch.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    ct_status s_ = (call);                                                                \
    if (s_ != CT_OK) {                                                                    \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(s_), ct_last_error_message()); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

/* A value the reader can check: a wrong one is a bug, reported with exit status 1. */
#define EXPECT(cond)                                         \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                               \
    }                                                        \
  } while (0)

static void print_tensor(const char* name, ct_tensor t) {
  int64_t n = 0;
  ct_tensor_repr(t, NULL, 0, &n); /* size query: fails with CT_ERR_BUFFER_SIZE, sets n */
  char* buf = malloc((size_t)n + 1);
  CHECK(ct_tensor_repr(t, buf, n + 1, &n));
  printf("%s = %s\n", name, buf);
  free(buf);
}

/* side = torch.cuda.Stream(); start, end = torch.cuda.Event(enable_timing=True) (twice)
 * side.wait_stream(torch.cuda.current_stream()); start.record(side)
 * with torch.cuda.stream(side): total = (torch.ones(1000, 1000, device="cuda") * 2).sum()
 * end.record(side); end.synchronize(); torch.cuda.current_stream().wait_stream(side) */
static void stream_and_event(void) {
  ct_stream side, current, prev;
  ct_event start, end;
  int32_t prev_device;
  const int64_t shape[2] = {1000, 1000};
  ct_tensor ones, twos, total;
  CHECK(ct_stream_create(-1, 0, &side));
  CHECK(ct_stream_current(-1, &current));
  CHECK(ct_event_create(CT_EVENT_ENABLE_TIMING, &start));
  CHECK(ct_event_create(CT_EVENT_ENABLE_TIMING, &end));
  CHECK(ct_stream_wait_stream(side, current)); /* side starts after the work queued so far */
  CHECK(ct_event_record(start, side));
  CHECK(ct_stream_guard_enter(side, &prev, &prev_device)); /* with torch.cuda.stream(side): */
  CHECK(ct_ones(shape, 2, CT_FLOAT32, CT_CUDA, -1, &ones));
  CHECK(ct_binary_scalar_f(CT_MUL, ones, 2.0, 0, &twos));
  CHECK(ct_reduce(CT_SUM, twos, NULL, 0, 0, CT_DTYPE_UNDEFINED, &total));
  CHECK(ct_stream_guard_exit(prev, prev_device));
  CHECK(ct_event_record(end, side));
  CHECK(ct_event_synchronize(end));
  CHECK(ct_stream_wait_stream(current, side)); /* before the current stream reads total */
  double sum, ms;
  CHECK(ct_tensor_item_double(total, &sum));
  CHECK(ct_event_elapsed_time(start, end, &ms));
  int64_t handle;
  CHECK(ct_stream_cuda_handle(side, &handle));
  printf("on stream 0x%llx: (ones(1000, 1000) * 2).sum() = %.1f in %.3f ms\n", (unsigned long long)handle, sum, ms);
  EXPECT(sum == 2e6);
  ct_tensor tensors[] = {ones, twos, total};
  for (size_t i = 0; i < 3; ++i) CHECK(ct_tensor_release(tensors[i]));
  CHECK(ct_event_release(start));
  CHECK(ct_event_release(end));
  CHECK(ct_stream_release(side));
  CHECK(ct_stream_release(current));
}

/* A 2-D float32 tensor on the device from a row-major array. */
static ct_tensor matrix(const float* data, int64_t rows, int64_t cols, ct_device_type dev, int32_t idx) {
  const int64_t shape[2] = {rows, cols};
  ct_tensor t;
  CHECK(ct_from_buffer(data, (int64_t)(rows * cols * sizeof(float)), shape, 2, CT_FLOAT32, dev, idx, &t));
  return t;
}

int main(void) {
  int32_t major, minor, patch, avail = 0, count = 0;
  CHECK(ct_version(&major, &minor, &patch));
  CHECK(ct_cuda_is_available(&avail));
  CHECK(ct_cuda_device_count(&count));
  printf("-- devices\n");
  printf("ctorch %d.%d.%d, cuda available: %s, device count: %d\n", major, minor, patch, avail ? "yes" : "no", count);
  if (major != CT_VERSION_MAJOR || minor != CT_VERSION_MINOR || patch != CT_VERSION_PATCH) {
    fprintf(stderr, "the library is ctorch %d.%d.%d, the header %d.%d.%d\n", major, minor, patch, CT_VERSION_MAJOR,
            CT_VERSION_MINOR, CT_VERSION_PATCH);
    return 1;
  }
  if (!avail) {
    ct_cuda_check_available();
    printf("  (%s)\n", ct_last_error_message());
  }
  for (int32_t d = 0; d < count; ++d) {
    char name[256];
    int64_t len, mem, sms;
    int32_t cmaj, cmin;
    CHECK(ct_cuda_get_device_name(d, name, sizeof name, &len));
    CHECK(ct_cuda_get_device_capability(d, &cmaj, &cmin));
    CHECK(ct_cuda_get_device_property(d, CT_PROP_TOTAL_MEMORY, &mem));
    CHECK(ct_cuda_get_device_property(d, CT_PROP_MULTIPROCESSOR_COUNT, &sms));
    printf("  cuda:%d %s, capability %d.%d, %.1f GiB, %lld SMs\n", d, name, cmaj, cmin, mem / 1073741824.0, (long long)sms);
  }

  printf("\n-- tensors on the device\n");
  /* device = cuda:0 if available else cpu */
  ct_device_type dev = avail ? CT_CUDA : CT_CPU;
  int32_t idx = avail ? 0 : -1;
  const float data[2] = {1.f, 2.f};
  const int64_t shape[1] = {2};
  ct_tensor x = NULL, y_cpu, y, z, s;
  CHECK(ct_from_buffer(data, sizeof data, shape, 1, CT_FLOAT32, dev, idx, &x));
  char dname[32];
  int64_t dlen;
  CHECK(ct_device_format(dev, idx, dname, sizeof dname, &dlen));
  printf("device: %s\n", dname);

  CHECK(ct_from_buffer(data, sizeof data, shape, 1, CT_FLOAT32, CT_CPU, -1, &y_cpu));
  CHECK(ct_tensor_to(y_cpu, dev, idx, CT_DTYPE_UNDEFINED, 0, 0, &y));
  CHECK(ct_binary(CT_ADD, x, y, &z));
  CHECK(ct_reduce(CT_SUM, z, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s));
  double total = 0;
  CHECK(ct_tensor_item_double(s, &total));
  print_tensor("x", x);
  print_tensor("y", y);
  print_tensor("z = x + y", z);
  printf("z.sum().item() = %g\n", total);

  ct_tensor handles[] = {x, y_cpu, y, z, s};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) CHECK(ct_tensor_release(handles[i]));

  printf("\n-- a stream and an event\n");
  if (avail) {
    stream_and_event();
  } else {
    ct_event e; /* events exist without a GPU until they are recorded */
    int32_t done;
    CHECK(ct_event_create(CT_EVENT_ENABLE_TIMING, &e));
    CHECK(ct_event_query(e, &done));
    printf("streams are CUDA-only; an event never recorded is done: query() = %d\n", done);
    EXPECT(done == 1);
    CHECK(ct_event_release(e));
  }

  printf("\n-- a seeded random matrix: torch.manual_seed(0); torch.randn(2, 3)\n");
  const int64_t rshape[2] = {2, 3};
  /* torch.cuda's values for this seed; ctorch draws them on the CPU too (docs/random.md) */
  const float torch_cuda[6] = {-0.9247f, -0.4253f, -2.6438f, 0.1452f, -0.1209f, -0.5797f};
  ct_tensor r;
  float rv[6];
  CHECK(ct_manual_seed(0));
  CHECK(ct_randn(rshape, 2, CT_FLOAT32, dev, idx, NULL, &r));
  print_tensor("r", r);
  CHECK(ct_tensor_copy_to_buffer(r, rv, sizeof rv));
  for (int i = 0; i < 6; ++i) EXPECT(fabsf(rv[i] - torch_cuda[i]) < 1e-4f);

  printf("\n-- a matmul: [[1, 2, 3], [4, 5, 6]] @ [[7, 8], [9, 10], [11, 12]]\n");
  const float a_data[6] = {1, 2, 3, 4, 5, 6}, b_data[6] = {7, 8, 9, 10, 11, 12};
  const float expected[4] = {58, 64, 139, 154};
  ct_tensor a = matrix(a_data, 2, 3, dev, idx), b = matrix(b_data, 3, 2, dev, idx), c;
  float c_data[4];
  CHECK(ct_matmul(a, b, &c));
  print_tensor("a @ b", c);
  CHECK(ct_tensor_copy_to_buffer(c, c_data, sizeof c_data));
  EXPECT(memcmp(c_data, expected, sizeof expected) == 0);

  printf("\n-- an FFT: torch.fft.rfft(torch.tensor([1., 2., 3., 4.]))\n");
  const int64_t n4[1] = {4};
  ct_tensor sig, spec;
  float f[6]; /* 3 complex64 values: re, im, ... */
  CHECK(ct_from_buffer(a_data, 4 * sizeof(float), n4, 1, CT_FLOAT32, dev, idx, &sig));
  CHECK(ct_fft_rfft(sig, -1, -1, CT_FFT_NORM_BACKWARD, &spec));
  print_tensor("rfft", spec);
  CHECK(ct_tensor_copy_to_buffer(spec, f, sizeof f));
  const float want[6] = {10, 0, -2, 2, -2, 0};
  for (int i = 0; i < 6; ++i) EXPECT(fabsf(f[i] - want[i]) < 1e-5f);

  printf("\n-- memory\n");
  if (avail) {
    int64_t allocated, n = 0;
    CHECK(ct_cuda_memory_allocated(0, &allocated));
    printf("torch.cuda.memory_allocated(0) = %lld bytes\n", (long long)allocated);
    EXPECT(allocated > 0); /* the tensors above are still alive */
    ct_cuda_memory_summary(0, 1, NULL, 0, &n); /* size query, as for ct_tensor_repr */
    char* summary = malloc((size_t)n + 1);
    CHECK(ct_cuda_memory_summary(0, 1, summary, n + 1, &n));
    printf("%s\n", summary);
    free(summary);
  } else {
    printf("memory statistics are CUDA-only (torch.cuda.memory_allocated, memory_summary)\n");
  }

  ct_tensor rest[] = {r, a, b, c, sig, spec};
  for (size_t i = 0; i < sizeof rest / sizeof rest[0]; ++i) CHECK(ct_tensor_release(rest[i]));
  return 0;
}
