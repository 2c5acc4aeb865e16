// Note [CPU SIMD kernels] in simd.h.
#include "impl/ops/cpu/simd.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/simd_convert.h"

#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ct::cpu {

namespace {

// Bodies shared by both versions: inlined into the avx2:: wrappers, they are compiled for AVX2
// there.
#define CT_SHARED inline __attribute__((always_inline))

constexpr int kLanes = 16;

// The lanes of sum_n combined: lane j += lane j + s for s = 8, 4, 2, 1.
CT_SHARED double combine(double* lanes) {
  for (int s = kLanes / 2; s > 0; s /= 2)
    for (int j = 0; j < s; ++j) lanes[j] += lanes[j + s];
  return lanes[0];
}

// Elements from `from` to n into lanes i % 16 (from is a multiple of 16).
template <typename T>
CT_SHARED double tail_and_combine(double* lanes, const T* x, int64_t from, int64_t n) {
  for (int64_t i = from; i < n; ++i) lanes[i - from] += static_cast<double>(static_cast<float>(x[i]));
  return combine(lanes);
}

// glibc's expf data (sysdeps/ieee754/flt-32/e_exp2f_data.c, N = 32).
alignas(32) constexpr uint64_t kExpTable[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
    0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
    0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
    0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
constexpr double kInvLn2N = 0x1.71547652b82fep+5;  // 32 / ln 2
constexpr double kShift = 0x1.8p+52;                // adding it rounds to an integer
constexpr double kC0 = 0x1.c6af84b912394p-20, kC1 = 0x1.ebfce50fac4f3p-13, kC2 = 0x1.62e42ff0c52d6p-6;

}  // namespace

// ---------------------------------------------------------------------------------------------
// generic

namespace generic {

void convert_n(const Half* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
}
void convert_n(const float* x, Half* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = Half(x[i]);
}
void convert_n(const BFloat16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
}
void convert_n(const float* x, BFloat16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = BFloat16(x[i]);
}

// Note [Float to narrow integer casts]: convert()'s scalar rules, the reference.
#define CT_TO_INT_KERNEL(F, I) \
  void convert_n(const F* x, I* y, int64_t n) { for (int64_t i = 0; i < n; ++i) y[i] = convert<I>(x[i]); }
#define CT_TO_INT_KERNELS_OF(F) \
  CT_TO_INT_KERNEL(F, bool) CT_TO_INT_KERNEL(F, uint8_t) CT_TO_INT_KERNEL(F, int8_t) CT_TO_INT_KERNEL(F, int16_t) CT_TO_INT_KERNEL(F, int32_t)
CT_TO_INT_KERNELS_OF(float)
CT_TO_INT_KERNELS_OF(Half)
CT_TO_INT_KERNELS_OF(BFloat16)
#undef CT_TO_INT_KERNEL

template <typename T>
double sum_lanes(const T* x, int64_t n) {
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(static_cast<float>(x[i + j]));
  return tail_and_combine(lanes, x, i, n);
}
double sum_n(const float* x, int64_t n) { return sum_lanes(x, n); }
double sum_n(const Half* x, int64_t n) { return sum_lanes(x, n); }
double sum_n(const BFloat16* x, int64_t n) { return sum_lanes(x, n); }

void exp_n(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

}  // namespace generic

// ---------------------------------------------------------------------------------------------
// The loops of the vector versions, written once: templates over an ISA's pieces (avx2:: and
// avx512:: below, member functions compiled for that ISA), instantiated in kernels compiled for
// it with __attribute__((flatten)), which inlines every call in them, the loop and the pieces
// included, so each kernel runs its ISA's instructions only. (The loops themselves have no
// target: GCC inlines no function compiled for a wider ISA into them, always_inline or not,
// until they are inlined into the kernel; flatten does it all in the kernel.)

namespace {

// y[i] = To(x[i]): Blocks::kWidth at a time (simd_convert.h), the rest element by element.
template <typename Blocks, typename From, typename To>
CT_SHARED void convert_loop(const From* x, To* y, int64_t n) {
  int64_t i = 0;
  for (; i + Blocks::kWidth <= n; i += Blocks::kWidth) {
    if constexpr (std::is_same_v<To, float>) Blocks::to_float(x + i, y + i);
    else Blocks::from_float(x + i, y + i);
  }
  for (; i < n; ++i) y[i] = To(x[i]);
}

// Note [CPU SIMD kernels]'s sum_n: Sum's accumulators take blocks of 16 elements (add16: element
// i into lane i % 16); finish adds the rest and combines the lanes as generic:: does. (finish
// declares the lanes' array, in a function compiled for the ISA: under ASan (-O1) an array of
// 64-byte alignment declared here did not get it.)
template <typename Sum, typename T>
CT_SHARED double sum_loop(const T* x, int64_t n) {
  Sum sum;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) sum.add16(x + i);
  return sum.finish(x, i, n);
}

// 16 elements to sum as two vectors of 8 floats, elements 0-7 (a) and 8-15 (b), in both ISAs
// (AVX-512 included: its 512-bit widening to double takes 8 floats). float16 by plain F16C: a
// signaling NaN comes out quiet, as the double add would make it anyway.
CT_TARGET_AVX2 CT_SHARED void widen16(const float* x, __m256& a, __m256& b) {
  a = _mm256_loadu_ps(x);
  b = _mm256_loadu_ps(x + 8);
}
CT_TARGET_AVX2 CT_SHARED void widen16(const Half* x, __m256& a, __m256& b) {
  a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)));
  b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 8)));
}

}  // namespace

// The convert_n and sum_n kernels of an ISA's namespace (its Blocks and Sum), compiled for TARGET.
#define CT_CONVERT_KERNELS(TARGET)                                                                           \
  TARGET CT_FLAT void convert_n(const Half* x, float* y, int64_t n) { convert_loop<Blocks>(x, y, n); }     \
  TARGET CT_FLAT void convert_n(const float* x, Half* y, int64_t n) { convert_loop<Blocks>(x, y, n); }     \
  TARGET CT_FLAT void convert_n(const BFloat16* x, float* y, int64_t n) { convert_loop<Blocks>(x, y, n); } \
  TARGET CT_FLAT void convert_n(const float* x, BFloat16* y, int64_t n) { convert_loop<Blocks>(x, y, n); } \
  TARGET CT_FLAT double sum_n(const float* x, int64_t n) { return sum_loop<Sum>(x, n); }                \
  TARGET CT_FLAT double sum_n(const Half* x, int64_t n) { return sum_loop<Sum>(x, n); }                 \
  TARGET CT_FLAT double sum_n(const BFloat16* x, int64_t n) { return sum_loop<Sum>(x, n); }
#define CT_FLAT __attribute__((flatten))

// ---------------------------------------------------------------------------------------------
// avx2 (AVX2 + FMA + F16C)

#define CT_AVX2 CT_TARGET_AVX2

namespace avx2 {

namespace {
// Four accumulators of 4 doubles: lanes 0-3, 4-7, 8-11, 12-15.
struct Sum {
  __m256d acc[4] = {};
  CT_AVX2 void add(__m256 a, __m256 b) {
    acc[0] = _mm256_add_pd(acc[0], _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
    acc[1] = _mm256_add_pd(acc[1], _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
    acc[2] = _mm256_add_pd(acc[2], _mm256_cvtps_pd(_mm256_castps256_ps128(b)));
    acc[3] = _mm256_add_pd(acc[3], _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)));
  }
  template <typename T>
  CT_AVX2 void add16(const T* x) {
    __m256 a, b;
    widen16(x, a, b);
    add(a, b);
  }
  CT_AVX2 void add16(const BFloat16* x) {
    __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    // interleaving with zeros puts each bfloat16 in the high half of a float: elements 0-3 and
    // 8-11 in lo, 4-7 and 12-15 in hi; the permutes restore the order
    __m256i lo = _mm256_unpacklo_epi16(_mm256_setzero_si256(), w), hi = _mm256_unpackhi_epi16(_mm256_setzero_si256(), w);
    add(_mm256_castsi256_ps(_mm256_permute2x128_si256(lo, hi, 0x20)),
        _mm256_castsi256_ps(_mm256_permute2x128_si256(lo, hi, 0x31)));
  }
  template <typename T>
  CT_AVX2 double finish(const T* x, int64_t i, int64_t n) const {
    alignas(32) double lanes[kLanes];
    for (int k = 0; k < 4; ++k) _mm256_store_pd(lanes + 4 * k, acc[k]);
    return tail_and_combine(lanes, x, i, n);
  }
};

// exp of 4 floats as glibc's FMA expf computes them (|x| < 88 or so; see exp_n).
CT_AVX2 inline __m128 exp4(__m128 xf) {
  const __m256d xd = _mm256_cvtps_pd(xf);
  const __m256d inv = _mm256_set1_pd(kInvLn2N), shift = _mm256_set1_pd(kShift);
  __m256d kd = _mm256_fmadd_pd(inv, xd, shift);
  __m256i ki = _mm256_castpd_si256(kd);
  kd = _mm256_sub_pd(kd, shift);
  __m256d r = _mm256_fmsub_pd(inv, xd, kd);
  __m256i idx = _mm256_and_si256(ki, _mm256_set1_epi64x(31));
  __m256i t = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(kExpTable), idx, 8);
  t = _mm256_add_epi64(t, _mm256_slli_epi64(ki, 47));
  __m256d s = _mm256_castsi256_pd(t);
  __m256d z = _mm256_fmadd_pd(_mm256_set1_pd(kC0), r, _mm256_set1_pd(kC1));
  __m256d r2 = _mm256_mul_pd(r, r);
  __m256d y = _mm256_fmadd_pd(_mm256_set1_pd(kC2), r, _mm256_set1_pd(1.0));
  y = _mm256_fmadd_pd(z, r2, y);
  y = _mm256_mul_pd(y, s);
  return _mm256_cvtpd_ps(y);
}
}  // namespace

CT_CONVERT_KERNELS(CT_AVX2)

// Note [Float to narrow integer casts].
namespace {
// 8 elements as 8 floats (float16 by plain F16C: every NaN gives the same integer).
CT_AVX2 CT_SHARED __m256 widen8(const float* x) { return _mm256_loadu_ps(x); }
CT_AVX2 CT_SHARED __m256 widen8(const Half* x) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)));
}
CT_AVX2 CT_SHARED __m256 widen8(const BFloat16* x) { return load8(x); }

// 8 floats -> To's values in 8 int32 lanes: 0/1 for bool, else the truncated int32 (INT32_MIN
// for NaN, the infinities and beyond int32) masked to To's width (so that the unsigned saturating
// packs below keep exactly those low bytes).
template <typename To>
CT_AVX2 CT_SHARED __m256i int_lanes(__m256 f) {
  if constexpr (std::is_same_v<To, bool>) {
    return _mm256_srli_epi32(_mm256_castps_si256(_mm256_cmp_ps(f, _mm256_setzero_ps(), _CMP_NEQ_UQ)), 31);
  } else {
    const __m256i i = _mm256_cvttps_epi32(f);
    if constexpr (sizeof(To) == 1) return _mm256_and_si256(i, _mm256_set1_epi32(0xff));
    else if constexpr (sizeof(To) == 2) return _mm256_and_si256(i, _mm256_set1_epi32(0xffff));
    else return i;
  }
}

template <typename To, typename From>
CT_AVX2 CT_SHARED __m256i lanes8(const From* x) { return int_lanes<To>(widen8(x)); }

// y[i] = convert<To>(x[i]): 32 (1-byte To), 16 (int16) or 8 (int32) at a time, the rest element by
// element. The packs work within 128-bit halves; the permutes put the elements back in order.
template <typename From, typename To>
CT_AVX2 CT_SHARED void to_int_loop(const From* x, To* y, int64_t n) {
  int64_t i = 0;
  if constexpr (sizeof(To) == 1) {
    // packus_epi32 then packus_epi16 leave dwords a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
      const __m256i ab = _mm256_packus_epi32(lanes8<To>(x + i), lanes8<To>(x + i + 8));
      const __m256i cd = _mm256_packus_epi32(lanes8<To>(x + i + 16), lanes8<To>(x + i + 24));
      const __m256i b = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), b);
    }
  } else if constexpr (sizeof(To) == 2) {
    // packus_epi32 leaves quadwords a0-3 b0-3 | a4-7 b4-7
    for (; i + 16 <= n; i += 16) {
      const __m256i ab = _mm256_packus_epi32(lanes8<To>(x + i), lanes8<To>(x + i + 8));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm256_permute4x64_epi64(ab, 0xd8));
    }
  } else {
    for (; i + 8 <= n; i += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), lanes8<To>(x + i));
  }
  for (; i < n; ++i) y[i] = convert<To>(x[i]);
}
}  // namespace

#define CT_TO_INT_KERNEL(F, I) \
  CT_AVX2 void convert_n(const F* x, I* y, int64_t n) { to_int_loop(x, y, n); }
CT_TO_INT_KERNELS_OF(float)
CT_TO_INT_KERNELS_OF(Half)
CT_TO_INT_KERNELS_OF(BFloat16)
#undef CT_TO_INT_KERNEL

CT_AVX2 void exp_n(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    // glibc's special cases: top 12 bits of |x| above 0x42a (|x| >= 88, inf, NaN)
    __m256i top = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 20), _mm256_set1_epi32(0x7ff));
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(top, _mm256_set1_epi32(0x42a))) != 0) {
      for (int k = 0; k < 8; ++k) y[i + k] = std::exp(x[i + k]);
      continue;
    }
    _mm_storeu_ps(y + i, exp4(_mm256_castps256_ps128(v)));
    _mm_storeu_ps(y + i + 4, exp4(_mm256_extractf128_ps(v, 1)));
  }
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}

}  // namespace avx2

// ---------------------------------------------------------------------------------------------
// avx512 (AVX-512 F/BW/DQ/VL, with AVX2, FMA and F16C)

#define CT_AVX512 CT_TARGET_AVX512

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() (`__m512 __Y = __Y;`), which its
// -Wmaybe-uninitialized reports once inlined (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace avx512 {

namespace {
// Two accumulators of 8 doubles: lanes 0-7 and 8-15; one 512-bit widening of 8 floats each.
struct Sum {
  __m512d acc[2] = {};
  CT_AVX512 void add(__m256 a, __m256 b) {
    acc[0] = _mm512_add_pd(acc[0], _mm512_cvtps_pd(a));
    acc[1] = _mm512_add_pd(acc[1], _mm512_cvtps_pd(b));
  }
  template <typename T>
  CT_AVX512 void add16(const T* x) {
    __m256 a, b;
    widen16(x, a, b);
    add(a, b);
  }
  CT_AVX512 void add16(const BFloat16* x) { add(avx2::load8(x), avx2::load8(x + 8)); }  // AVX2 code inlines here
  template <typename T>
  CT_AVX512 double finish(const T* x, int64_t i, int64_t n) const {
    alignas(64) double lanes[kLanes];
    _mm512_store_pd(lanes, acc[0]);
    _mm512_store_pd(lanes + 8, acc[1]);
    return tail_and_combine(lanes, x, i, n);
  }
};
}  // namespace

CT_CONVERT_KERNELS(CT_AVX512)

}  // namespace avx512

#pragma GCC diagnostic pop

// ---------------------------------------------------------------------------------------------

namespace {
SimdLevel detect() {
  __builtin_cpu_init();
  // F16C through CPUID (leaf 1, ECX bit 29): clang's __builtin_cpu_supports has no "f16c"
  // (the fuzzing build, README.md "Fuzzing", compiles this with clang).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c))
    return SimdLevel::kGeneric;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return SimdLevel::kAvx512;
  return SimdLevel::kAvx2;
}

// CT_CPU_SIMD=generic|avx2|avx512: at most that level (anything else: no cap).
SimdLevel env_cap() {
  const char* e = std::getenv("CT_CPU_SIMD");
  if (e && std::strcmp(e, "generic") == 0) return SimdLevel::kGeneric;
  if (e && std::strcmp(e, "avx2") == 0) return SimdLevel::kAvx2;
  return SimdLevel::kAvx512;
}

std::atomic<int> g_cap{static_cast<int>(SimdLevel::kAvx512)};
}  // namespace

SimdLevel cpu_simd_level() {
  static const SimdLevel level = detect();
  return level;
}

SimdLevel simd_level() {
  static const int fixed = std::min(static_cast<int>(cpu_simd_level()), static_cast<int>(env_cap()));
  return static_cast<SimdLevel>(std::min(fixed, g_cap.load(std::memory_order_relaxed)));
}

void cap_simd_level(SimdLevel level) { g_cap.store(static_cast<int>(level), std::memory_order_relaxed); }

#define CT_DISPATCH3(call)                                 \
  switch (simd_level()) {                                  \
    case SimdLevel::kAvx512: return avx512::call;          \
    case SimdLevel::kAvx2: return avx2::call;              \
    default: return generic::call;                         \
  }

void convert_n(const Half* x, float* y, int64_t n) { CT_DISPATCH3(convert_n(x, y, n)) }
void convert_n(const float* x, Half* y, int64_t n) { CT_DISPATCH3(convert_n(x, y, n)) }
void convert_n(const BFloat16* x, float* y, int64_t n) { CT_DISPATCH3(convert_n(x, y, n)) }
void convert_n(const float* x, BFloat16* y, int64_t n) { CT_DISPATCH3(convert_n(x, y, n)) }
double sum_n(const float* x, int64_t n) { CT_DISPATCH3(sum_n(x, n)) }
double sum_n(const Half* x, int64_t n) { CT_DISPATCH3(sum_n(x, n)) }
double sum_n(const BFloat16* x, int64_t n) { CT_DISPATCH3(sum_n(x, n)) }
void exp_n(const float* x, float* y, int64_t n) {
  simd_level() >= SimdLevel::kAvx2 ? avx2::exp_n(x, y, n) : generic::exp_n(x, y, n);
}
#define CT_TO_INT_KERNEL(F, I)                                                                   \
  void convert_n(const F* x, I* y, int64_t n) {                                                \
    simd_level() >= SimdLevel::kAvx2 ? avx2::convert_n(x, y, n) : generic::convert_n(x, y, n); \
  }
CT_TO_INT_KERNELS_OF(float)
CT_TO_INT_KERNELS_OF(Half)
CT_TO_INT_KERNELS_OF(BFloat16)
#undef CT_TO_INT_KERNEL
#undef CT_TO_INT_KERNELS_OF

#undef CT_DISPATCH3
#undef CT_CONVERT_KERNELS
#undef CT_FLAT

}  // namespace ct::cpu
