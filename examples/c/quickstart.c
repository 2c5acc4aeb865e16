/* The seed's device-agnostic quickstart, in C:
 *
 *   device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
 *   x = torch.tensor([1., 2.], device=device)
 *   y = torch.tensor([1., 2.]).to(device)
 *   z = x + y
 *   print(x, y, z, z.sum().item())
 */
#include <stdio.h>
#include <stdlib.h>

#include "capi/ctorch.h"

#define CHECK(call)                                                                       \
  do {                                                                                    \
    ct_status s_ = (call);                                                                \
    if (s_ != CT_OK) {                                                                    \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(s_), ct_last_error_message()); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static void print_tensor(const char* name, ct_tensor t) {
  int64_t n = 0;
  ct_tensor_repr(t, NULL, 0, &n); /* size query: fails with CT_ERR_BUFFER_SIZE, sets n */
  char* buf = malloc((size_t)n + 1);
  CHECK(ct_tensor_repr(t, buf, n + 1, &n));
  printf("%s = %s\n", name, buf);
  free(buf);
}

int main(void) {
  int32_t major, minor, patch, avail = 0, count = 0;
  CHECK(ct_version(&major, &minor, &patch));
  CHECK(ct_cuda_is_available(&avail));
  CHECK(ct_cuda_device_count(&count));
  printf("ctorch %d.%d.%d, cuda available: %s, device count: %d\n", major, minor, patch, avail ? "yes" : "no", count);
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
  return 0;
}
