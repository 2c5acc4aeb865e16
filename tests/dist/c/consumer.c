/* A program outside the ctorch tree, built against the release archive only (tests/dist,
 * docs/install.md): the header as <ctorch.h>, the library found through pkg-config or CMake.
 *
 *   x = torch.tensor([1.5, 2.5, 4.0]); y = x * x - x
 *   print(y)                      # tensor([ 0.7500,  3.7500, 12.0000])
 *   y.sum().item() == 16.5
 *
 * Exit status 0 only when the library loaded is the header's version and every value is right. */
#include <ctorch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    ct_status s_ = (call);                                                                         \
    if (s_ != CT_OK) {                                                                             \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(s_), ct_last_error_message()); \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

int main(void) {
  int failed = 0;
  int32_t major = -1, minor = -1, patch = -1;
  ct_version(&major, &minor, &patch);
  printf("ctorch %d.%d.%d (header %d.%d.%d)\n", major, minor, patch, CT_VERSION_MAJOR, CT_VERSION_MINOR,
         CT_VERSION_PATCH);
  if (major != CT_VERSION_MAJOR || minor != CT_VERSION_MINOR || patch != CT_VERSION_PATCH) {
    fprintf(stderr, "FAIL: the library's version differs from the header's\n");
    failed = 1;
  }

  const float data[3] = {1.5f, 2.5f, 4.0f};
  const int64_t shape[1] = {3};
  ct_tensor x, sq, y, s;
  CHECK(ct_from_buffer(data, sizeof data, shape, 1, CT_FLOAT32, CT_CPU, -1, &x));
  CHECK(ct_binary(CT_MUL, x, x, &sq));
  CHECK(ct_binary(CT_SUB, sq, x, &y));
  CHECK(ct_reduce(CT_SUM, y, NULL, 0, 0, CT_DTYPE_UNDEFINED, &s));

  char repr[128];
  int64_t n = 0;
  CHECK(ct_tensor_repr(y, repr, sizeof repr, &n));
  printf("y = %s\n", repr);
  const char* want_repr = "tensor([ 0.7500,  3.7500, 12.0000])"; /* PyTorch prints this */
  if (strcmp(repr, want_repr) != 0) {
    fprintf(stderr, "FAIL: repr %s, expected %s\n", repr, want_repr);
    failed = 1;
  }

  float got[3];
  CHECK(ct_tensor_copy_to_buffer(y, got, sizeof got));
  for (int i = 0; i < 3; ++i) {
    float want = data[i] * data[i] - data[i]; /* exact in float32 for these inputs */
    if (got[i] != want) {
      fprintf(stderr, "FAIL: y[%d] = %g, expected %g\n", i, got[i], want);
      failed = 1;
    }
  }
  double total = 0;
  CHECK(ct_tensor_item_double(s, &total));
  printf("y.sum().item() = %g\n", total);
  if (total != 16.5) {
    fprintf(stderr, "FAIL: sum %g, expected 16.5\n", total);
    failed = 1;
  }

  ct_tensor handles[] = {x, sq, y, s};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) CHECK(ct_tensor_release(handles[i]));
  return failed;
}
