// Bulk kernels of the CPU engine over contiguous runs: float16/bfloat16 <-> float32
// conversion, float32/float16/bfloat16 -> bool/uint8/int8/int16/int32 conversion, float sums and float32 exp, each with AVX2 and AVX-512 versions picked at run time.
//
// Note [CPU SIMD kernels]: libctorch is built for baseline x86-64 (SSE2, no -march), so the
// compiler can neither convert float16 in hardware (F16C) nor use 256- or 512-bit vectors. Each
// kernel here therefore has up to three versions: generic:: (plain C++, the scalar
// definitions), avx2:: (intrinsics in functions compiled with
// __attribute__((target("avx2,fma,f16c"))): -O2's vectorizer takes no loop that needs a scalar
// remainder, and would not find F16C or the conversions' packing anyway) and avx512:: (the
// conversions and sums, compiled for AVX-512 F/BW/DQ/VL: 16 elements per instruction; one
// 512-bit float -> double widening where avx2 needs two 256-bit ones and an extract, the
// instructions that bound avx2's float16 sum: 35 -> 63-71 GB/s on the 2-core development VM,
// bench/NOTES.md). The conversions of 8 or 16 elements themselves are in simd_convert.h, shared
// with the elementwise ops. The CPU's level is detected once (cpu_simd_level(): CPUID
// through __builtin_cpu_supports, which also checks that the OS saves the vector registers),
// and the dispatching entry points call the highest version it has (simd_level()); a CPU
// without AVX2, FMA and F16C runs generic::. The environment variable CT_CPU_SIMD (generic,
// avx2 or avx512, read once) and cap_simd_level() (tests, benchmarks) lower the level to
// compare the versions on one machine; they never raise it. All versions return the same bits
// for every input, so results do not depend on the machine:
//  - float16 -> float32 is exact either way; F16C quiets signaling NaNs, Half keeps them, so
//    the avx2 and avx512 versions put the input's quiet bit back (in the vectors that hold a
//    NaN). It matters: glibc's powf(sNaN, 0) is NaN, powf(qNaN, 0) is 1.
//  - float32 -> float16 rounds to nearest even either way (F16C's _MM_FROUND_TO_NEAREST_INT is
//    IEEE round-half-even, subnormal halves included; MXCSR is never changed, so no DAZ/FTZ);
//    F16C keeps NaN payloads, Half gives the canonical 0x7e00 (with the sign), so the vector
//    versions do the same.
//  - bfloat16 is a shift one way and a rounding add (NaN -> 0x7fc0) the other, in all three.
//  - sum_n accumulates in double, as the reductions did before (more accurate than PyTorch's
//    float cascade sum), in 16 lanes: element i goes into lane i % 16 (in order), and the
//    lanes are combined in one fixed tree. Every version adds in exactly that order (avx2: four
//    4-double accumulators, avx512: two 8-double ones). (float16 is widened there without the
//    NaN fix: the double add quiets a signaling NaN anyway.)
//  - exp_n is glibc's expf (sysdeps/ieee754/flt-32/e_expf.c: x / ln2 * 32 rounded to an
//    integer k, 2^(k/32) from a 32-entry table, a degree-3 polynomial in double) four lanes at a
//    time. glibc picks its FMA build of expf on CPUs with FMA and AVX2, the condition under
//    which ours runs, and ours does the same operations with the same fused multiply-adds, so
//    it returns std::exp's bits; lanes glibc handles specially (|x| >= 88, inf, NaN) are
//    computed by std::exp itself. The generic version calls std::exp. (No avx512 version: the
//    avx2 one runs on AVX-512 CPUs.)
// Elementwise ops use these conversions and compile their op for the same levels: Note [CPU
// elementwise inner loops] in impl/ops/elementwise.cc, and apply.h. impl is compiled with
// -ffp-contract=off, so code compiled for FMA targets never fuses a * b + c on its own: the only
// fused multiply-adds are the intrinsics written here.
#pragma once
#include <cstdint>
#include <type_traits>

#include "impl/core/half.h"

// Function attributes of the vector versions.
#define CT_TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#define CT_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))

namespace ct::cpu {

enum class SimdLevel : int {
  kGeneric = 0,
  kAvx2 = 1,    // AVX2, FMA and F16C
  kAvx512 = 2,  // kAvx2 and AVX-512 F, BW, DQ and VL
};

// What this CPU (and OS) supports, detected once.
SimdLevel cpu_simd_level();
// The level the dispatching entry points use: cpu_simd_level(), or lower under CT_CPU_SIMD or
// cap_simd_level().
SimdLevel simd_level();
// Tests and benchmarks only: use at most `level` from now on (the CPU's level when it is lower);
// cap_simd_level(SimdLevel::kAvx512) lifts the cap (CT_CPU_SIMD still applies).
void cap_simd_level(SimdLevel level);
// true when the CPU has what the avx2:: (avx512::) versions need: they may be called directly.
inline bool avx2_enabled() { return cpu_simd_level() >= SimdLevel::kAvx2; }
inline bool avx512_enabled() { return cpu_simd_level() >= SimdLevel::kAvx512; }

#define CT_CPU_CONVERT_KERNELS                               \
  void convert_n(const Half* x, float* y, int64_t n);       \
  void convert_n(const float* x, Half* y, int64_t n);       \
  void convert_n(const BFloat16* x, float* y, int64_t n);   \
  void convert_n(const float* x, BFloat16* y, int64_t n);   \
  double sum_n(const float* x, int64_t n);                  \
  double sum_n(const Half* x, int64_t n);                   \
  double sum_n(const BFloat16* x, int64_t n);
// Note [Float to narrow integer casts]: float32, float16 and bfloat16 to bool, uint8, int8,
// int16 and int32 (copy_/to's contiguous casts), with convert()'s bits (Note [Float to integer
// casts] in convert.h), which one truncating conversion to int32 gives for all of them:
// cvttps2dq is the vector form of the scalar cvttss2si (toward zero; NaN, the infinities and
// anything outside int32's range give INT32_MIN), and narrower types keep its low bytes. float ->
// uint8 goes through int64 in convert(), and that too is int32's low byte: a float of magnitude
// 2^31 or more is a multiple of 2^8 (24 significant bits), so its int64 value, or the int64
// indefinite beyond int64, ends in a zero byte, as INT32_MIN does. float16 and bfloat16 widen to
// float exactly first (any NaN gives the same integer, so F16C's quieting does not matter).
// bool is x != 0 with NaN true (an unordered compare). No avx512 version: avx2's runs there.
#define CT_CPU_TO_INT_KERNELS_OF(F)                   \
  void convert_n(const F* x, bool* y, int64_t n);     \
  void convert_n(const F* x, uint8_t* y, int64_t n);  \
  void convert_n(const F* x, int8_t* y, int64_t n);   \
  void convert_n(const F* x, int16_t* y, int64_t n);  \
  void convert_n(const F* x, int32_t* y, int64_t n);
#define CT_CPU_SIMD_KERNELS               \
  CT_CPU_CONVERT_KERNELS                  \
  CT_CPU_TO_INT_KERNELS_OF(float)         \
  CT_CPU_TO_INT_KERNELS_OF(Half)          \
  CT_CPU_TO_INT_KERNELS_OF(BFloat16)      \
  void exp_n(const float* x, float* y, int64_t n);

// The dispatching entry points (the version of simd_level()).
CT_CPU_SIMD_KERNELS
namespace generic {
CT_CPU_SIMD_KERNELS
}  // namespace generic
namespace avx2 {  // only to be called when avx2_enabled()
CT_CPU_SIMD_KERNELS
}  // namespace avx2
namespace avx512 {  // only to be called when avx512_enabled()
CT_CPU_CONVERT_KERNELS
}  // namespace avx512

#undef CT_CPU_SIMD_KERNELS
#undef CT_CPU_TO_INT_KERNELS_OF
#undef CT_CPU_CONVERT_KERNELS

// Whether convert_n(const From*, To*, n) exists.
template <typename To, typename From>
constexpr bool has_convert_n_v =
    (std::is_same_v<To, float> && (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>)) ||
    (std::is_same_v<From, float> && (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>)) ||
    ((std::is_same_v<From, float> || std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) &&
     (std::is_same_v<To, bool> || std::is_same_v<To, uint8_t> || std::is_same_v<To, int8_t> ||
      std::is_same_v<To, int16_t> || std::is_same_v<To, int32_t>));

}  // namespace ct::cpu
