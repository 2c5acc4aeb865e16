/* Floating -> integer casts of values the integer type cannot hold (Note [Float to integer
 * casts], impl/ops/cpu/convert.h): what each device gives, as PyTorch 2.11 gave them on an H100
 * host (CPU: x86-64's conversion; CUDA: the GPU's, saturating), for float32 and float64 sources.
 * capi_test.c checks the CPU rows, cuda_test.c the CUDA rows. */
#pragma once
#include <math.h>
#include <stdint.h>

#include "capi/ctorch.h"
#include "tests/capi/test_util.h"

#define CAST_N 12
static const double kCastIn[CAST_N] = {3000000007.0, -3000000007.0, NAN, INFINITY, -INFINITY, 2.9,
                                       -2.9, 300.0, -129.5, 1e20, 40000.0, -40000.0};

typedef struct {
  ct_dtype src, dst;
  int64_t want[CAST_N];
} cast_case;

#define I32MIN INT32_MIN
#define I32MAX INT32_MAX
#define I64MIN INT64_MIN
#define I64MAX INT64_MAX

static const cast_case kCastCpu[] = {
    {CT_FLOAT32, CT_INT8, {0, 0, 0, 0, 0, 2, -2, 44, 127, 0, 64, -64}},
    {CT_FLOAT64, CT_INT8, {0, 0, 0, 0, 0, 2, -2, 44, 127, 0, 64, -64}},
    {CT_FLOAT32, CT_INT16, {0, 0, 0, 0, 0, 2, -2, 300, -129, 0, -25536, 25536}},
    {CT_FLOAT64, CT_INT16, {0, 0, 0, 0, 0, 2, -2, 300, -129, 0, -25536, 25536}},
    {CT_FLOAT32, CT_INT32, {I32MIN, I32MIN, I32MIN, I32MIN, I32MIN, 2, -2, 300, -129, I32MIN, 40000, -40000}},
    {CT_FLOAT64, CT_INT32, {I32MIN, I32MIN, I32MIN, I32MIN, I32MIN, 2, -2, 300, -129, I32MIN, 40000, -40000}},
    {CT_FLOAT32, CT_INT64, {3000000000, -3000000000, I64MIN, I64MIN, I64MIN, 2, -2, 300, -129, I64MIN, 40000, -40000}},
    {CT_FLOAT64, CT_INT64, {3000000007, -3000000007, I64MIN, I64MIN, I64MIN, 2, -2, 300, -129, I64MIN, 40000, -40000}},
    {CT_FLOAT32, CT_UINT8, {0, 0, 0, 0, 0, 2, 254, 44, 127, 0, 64, 192}},
    {CT_FLOAT64, CT_UINT8, {7, 249, 0, 0, 0, 2, 254, 44, 127, 0, 64, 192}},
    {CT_FLOAT32, CT_BOOL, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
};

static const cast_case kCastCuda[] = {
    {CT_FLOAT32, CT_INT8, {-1, 0, 0, -1, 0, 2, -2, 44, 127, -1, 64, -64}},
    {CT_FLOAT64, CT_INT8, {-1, 0, 0, -1, 0, 2, -2, 44, 127, -1, 64, -64}},
    {CT_FLOAT32, CT_INT16, {-1, 0, 0, -1, 0, 2, -2, 300, -129, -1, -25536, 25536}},
    {CT_FLOAT64, CT_INT16, {-1, 0, 0, -1, 0, 2, -2, 300, -129, -1, -25536, 25536}},
    {CT_FLOAT32, CT_INT32, {I32MAX, I32MIN, 0, I32MAX, I32MIN, 2, -2, 300, -129, I32MAX, 40000, -40000}},
    {CT_FLOAT64, CT_INT32, {I32MAX, I32MIN, I32MIN, I32MAX, I32MIN, 2, -2, 300, -129, I32MAX, 40000, -40000}},
    {CT_FLOAT32, CT_INT64, {3000000000, -3000000000, I64MIN, I64MAX, I64MIN, 2, -2, 300, -129, I64MAX, 40000, -40000}},
    {CT_FLOAT64, CT_INT64, {3000000007, -3000000007, I64MIN, I64MAX, I64MIN, 2, -2, 300, -129, I64MAX, 40000, -40000}},
    {CT_FLOAT32, CT_UINT8, {0, 0, 0, 255, 0, 2, 254, 44, 127, 255, 64, 192}},
    {CT_FLOAT64, CT_UINT8, {7, 249, 0, 255, 0, 2, 254, 44, 127, 255, 64, 192}},
    {CT_FLOAT32, CT_BOOL, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
};

/* Casts kCastIn (as c->src, on device dev) to c->dst, 12 values and again as the tail of 4108
 * (the kernels' vectorized body and their tails), and checks every value against c->want. */
static void check_casts_(const cast_case* cases, size_t ncases, ct_device_type dev, int line) {
  enum { BIG = 4108 };
  static double in[BIG];
  for (int i = 0; i < BIG; ++i) in[i] = kCastIn[(i + CAST_N - BIG % CAST_N) % CAST_N]; /* the last 12: kCastIn */
  for (size_t k = 0; k < ncases; ++k) {
    const cast_case* c = &cases[k];
    for (int big = 0; big < 2; ++big) {
      int64_t n = big ? BIG : CAST_N;
      ct_tensor host = NULL, src = NULL, dst = NULL, back = NULL;
      int64_t got[BIG];
      if (ct_from_buffer(big ? in : kCastIn, n * 8, &n, 1, CT_FLOAT64, CT_CPU, -1, &host) != CT_OK ||
          ct_tensor_to(host, dev, -1, c->src, 0, 0, &src) != CT_OK ||
          ct_tensor_to(src, dev, -1, c->dst, 0, 0, &dst) != CT_OK ||
          ct_tensor_to(dst, CT_CPU, -1, CT_INT64, 0, 0, &back) != CT_OK ||
          ct_tensor_copy_to_buffer(back, got, n * 8) != CT_OK) {
        FAILF("line %d: case %zu: %s", line, k, ct_last_error_message());
      } else {
        for (int i = 0; i < CAST_N; ++i) {
          int64_t g = got[n - CAST_N + i];
          if (g != c->want[i]) {
            char sn[32] = "?", dn[32] = "?";
            int64_t len;
            ct_dtype_name(c->src, sn, sizeof sn, &len), ct_dtype_name(c->dst, dn, sizeof dn, &len);
            FAILF("line %d: %s -> %s of %g (n=%lld) = %lld, expected %lld", line, sn, dn, kCastIn[i],
                  (long long)n, (long long)g, (long long)c->want[i]);
            break;
          }
        }
      }
      ct_tensor all[4] = {back, dst, src, host};
      for (int j = 0; j < 4; ++j)
        if (all[j]) ct_tensor_release(all[j]);
    }
  }
}
#define CHECK_CASTS(cases, dev) check_casts_((cases), sizeof(cases) / sizeof((cases)[0]), (dev), __LINE__)
