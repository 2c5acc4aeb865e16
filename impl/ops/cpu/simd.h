// Bulk kernels of the CPU engine over contiguous runs: float16/bfloat16 <-> float32
// conversion, float sums and float32 exp, each with an AVX2 version picked at run time.
//
// Note [CPU SIMD kernels]: libctorch is built for baseline x86-64 (SSE2, no -march), so the
// compiler can neither convert float16 in hardware (F16C) nor use 256-bit vectors. Each kernel
// here therefore has two versions: generic:: (plain C++, the scalar definitions) and avx2::
// (intrinsics in functions compiled with __attribute__((target("avx2,fma,f16c"))): -O2's
// vectorizer takes no loop that needs a scalar remainder, and would not find F16C or the
// conversions' packing anyway). The avx2 ones run when the CPU has all three
// (checked once, avx2_enabled()). The two versions return the same bits for every input, so
// results do not depend on the machine:
//  - float16 -> float32 is exact either way; F16C quiets signaling NaNs, Half keeps them, so
//    the avx2 version puts the input's quiet bit back.
//  - float32 -> float16 rounds to nearest even either way; F16C keeps NaN payloads, Half gives
//    the canonical 0x7e00 (with the sign), so the avx2 version does the same.
//  - bfloat16 is a shift one way and a rounding add (NaN -> 0x7fc0) the other, in both.
//  - sum_n accumulates in double, as the reductions did before (more accurate than PyTorch's
//    float cascade sum), in 16 lanes: element i goes into lane i % 16 (in order), and the
//    lanes are combined in one fixed tree. Both versions add in exactly that order. (float16
//    is widened there without the NaN fix: the double add quiets a signaling NaN anyway.)
//  - exp_n is glibc's expf (sysdeps/ieee754/flt-32/e_expf.c: x / ln2 * 32 rounded to an
//    integer k, 2^(k/32) from a 32-entry table, a degree-3 polynomial in double) four lanes at a
//    time. glibc picks its FMA build of expf on CPUs with FMA and AVX2, the condition under
//    which ours runs, and ours does the same operations with the same fused multiply-adds, so
//    it returns std::exp's bits; lanes glibc handles specially (|x| >= 88, inf, NaN) are
//    computed by std::exp itself. The generic version calls std::exp.
#pragma once
#include <cstdint>
#include <type_traits>

#include "impl/core/half.h"

namespace ct::cpu {

// true when the avx2:: versions run (AVX2, FMA and F16C present).
bool avx2_enabled();

#define CT_CPU_SIMD_KERNELS                                  \
  void convert_n(const Half* x, float* y, int64_t n);       \
  void convert_n(const float* x, Half* y, int64_t n);       \
  void convert_n(const BFloat16* x, float* y, int64_t n);   \
  void convert_n(const float* x, BFloat16* y, int64_t n);   \
  double sum_n(const float* x, int64_t n);                  \
  double sum_n(const Half* x, int64_t n);                   \
  double sum_n(const BFloat16* x, int64_t n);               \
  void exp_n(const float* x, float* y, int64_t n);

// The dispatching entry points (avx2:: when avx2_enabled(), else generic::).
CT_CPU_SIMD_KERNELS
namespace generic {
CT_CPU_SIMD_KERNELS
}  // namespace generic
namespace avx2 {  // only to be called when avx2_enabled()
CT_CPU_SIMD_KERNELS
}  // namespace avx2

#undef CT_CPU_SIMD_KERNELS

// Whether convert_n(const From*, To*, n) exists.
template <typename To, typename From>
constexpr bool has_convert_n_v =
    (std::is_same_v<To, float> && (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>)) ||
    (std::is_same_v<From, float> && (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>));

}  // namespace ct::cpu
