// Vector float16/bfloat16 <-> float conversions with the bits of Half and BFloat16 (Note [CPU
// SIMD kernels] in simd.h): 8 elements at a time for AVX2 + F16C, 16 for AVX-512. Each function
// is compiled for its target, so it may only be called from functions compiled for the same one
// (CT_TARGET_AVX2 / CT_TARGET_AVX512), on a CPU that has it.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "impl/core/half.h"
#include "impl/ops/cpu/simd.h"

#define CT_SIMD_INLINE inline __attribute__((always_inline))

namespace ct::cpu {

namespace avx2 {

// 8 halves -> 8 floats, signaling NaNs kept signaling (as Half::to_float): F16C sets every NaN's
// quiet bit (0x400000 in the float); it is taken from the half's (0x200) again, in the rare
// vectors that hold a NaN (a branch that is cheaper than the fix on this path).
CT_TARGET_AVX2 CT_SIMD_INLINE __m256 load8(const Half* x) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
  const __m256 f0 = _mm256_cvtph_ps(h);
  const __m128i nan16 = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
  if (__builtin_expect(_mm_testz_si128(nan16, nan16), 1)) return f0;
  __m256i f = _mm256_castps_si256(f0);
  __m256i w = _mm256_cvtepu16_epi32(h);
  __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x7fff)), _mm256_set1_epi32(0x7c00));
  __m256i qbit = _mm256_and_si256(nan, _mm256_set1_epi32(0x400000));
  __m256i from_h = _mm256_and_si256(_mm256_slli_epi32(w, 13), qbit);
  return _mm256_castsi256_ps(_mm256_or_si256(_mm256_andnot_si256(qbit, f), from_h));
}

// 8 bfloat16 -> 8 floats (a shift).
CT_TARGET_AVX2 CT_SIMD_INLINE __m256 load8(const BFloat16* x) {
  __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

// 8 floats -> 8 halves, rounded to nearest even, NaNs as sign | 0x7e00 (as Half::from_float).
CT_TARGET_AVX2 CT_SIMD_INLINE void store8(Half* y, __m256 f) {
  __m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan), _mm256_extracti128_si256(nan, 1));
  __m128i canon = _mm_or_si128(_mm_and_si128(h, _mm_set1_epi16(static_cast<int16_t>(0x8000))), _mm_set1_epi16(0x7e00));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm_blendv_epi8(h, canon, nan16));
}

// 8 floats -> 8 bfloat16 as BFloat16::from_float: round to nearest even, NaN -> 0x7fc0.
CT_TARGET_AVX2 CT_SIMD_INLINE void store8(BFloat16* y, __m256 f) {
  __m256i v = _mm256_castps_si256(f);
  __m256i odd = _mm256_and_si256(_mm256_srli_epi32(v, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(v, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
  __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7fc0), nan);
  // pack within each 128-bit half, then gather the two halves' low quadwords
  __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm256_castsi256_si128(p));
}

}  // namespace avx2

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() (`__m512 __Y = __Y;`), which its
// -Wmaybe-uninitialized reports once inlined (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace avx512 {

// 16 halves -> 16 floats, signaling NaNs kept signaling (as avx2::load8; the test for NaNs in
// AVX2 form: a mask register's compare and test cost more here).
CT_TARGET_AVX512 CT_SIMD_INLINE __m512 load16(const Half* x) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  const __m512 f0 = _mm512_cvtph_ps(h);
  const __m256i nan16 = _mm256_cmpgt_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00));
  if (__builtin_expect(_mm256_testz_si256(nan16, nan16), 1)) return f0;
  __m512i f = _mm512_castps_si512(f0);
  __mmask16 nan = _mm256_cmpgt_epi16_mask(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00));
  __mmask16 snan = _mm256_mask_testn_epi16_mask(nan, h, _mm256_set1_epi16(0x0200));
  return _mm512_castsi512_ps(_mm512_mask_and_epi32(f, snan, f, _mm512_set1_epi32(~0x400000)));
}

CT_TARGET_AVX512 CT_SIMD_INLINE __m512 load16(const BFloat16* x) {
  __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

CT_TARGET_AVX512 CT_SIMD_INLINE void store16(Half* y, __m512 f) {
  __m256i h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
  __m256i canon = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(static_cast<int16_t>(0x8000))), _mm256_set1_epi16(0x7e00));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm256_mask_blend_epi16(nan, h, canon));
}

CT_TARGET_AVX512 CT_SIMD_INLINE void store16(BFloat16* y, __m512 f) {
  __m512i v = _mm512_castps_si512(f);
  __m512i odd = _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(v, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
  __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  r = _mm512_mask_mov_epi32(r, nan, _mm512_set1_epi32(0x7fc0));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm512_cvtepi32_epi16(r));
}

}  // namespace avx512

// Blocks of kWidth elements of D <-> kWidth floats, the one shape of both ISAs' loops (simd.cc,
// apply.h), written once: in namespace avx2 (CT_TARGET_AVX2, 8 floats, _mm256_ intrinsics,
// load8/store8) and in avx512 (CT_TARGET_AVX512, 16, _mm512_, load16/store16). to_float/from_float
// take unaligned floats, *_aligned 64-byte aligned ones. Compiled for the target and not
// always_inline (GCC would refuse to inline them into a loop template that has no target): a
// loop inlined into a function compiled for the target inlines them there.
#define CT_SIMD_BLOCKS(TARGET, W, MM)                                                       \
  struct Blocks {                                                                           \
    static constexpr int kWidth = W;                                                        \
    template <typename D>                                                                   \
    TARGET static void to_float(const D* p, float* x) { MM##_storeu_ps(x, load##W(p)); }         \
    template <typename D>                                                                   \
    TARGET static void from_float(const float* x, D* p) { store##W(p, MM##_loadu_ps(x)); }       \
    template <typename D>                                                                   \
    TARGET static void to_float_aligned(const D* p, float* x) { MM##_store_ps(x, load##W(p)); }  \
    template <typename D>                                                                   \
    TARGET static void from_float_aligned(const float* x, D* p) { store##W(p, MM##_load_ps(x)); } \
  };
namespace avx2 {
CT_SIMD_BLOCKS(CT_TARGET_AVX2, 8, _mm256)
}  // namespace avx2
namespace avx512 {
CT_SIMD_BLOCKS(CT_TARGET_AVX512, 16, _mm512)
}  // namespace avx512
#undef CT_SIMD_BLOCKS

#pragma GCC diagnostic pop

}  // namespace ct::cpu
