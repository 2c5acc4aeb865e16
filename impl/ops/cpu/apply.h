// An elementwise op's function over buffers of op-math values, compiled for each SIMD level
// (Note [CPU elementwise inner loops] in impl/ops/elementwise.cc).
//
// Note [CPU elementwise apply]: the buffered path of the CPU engine computes f over
// kRun-element buffers, in blocks of 16 over offset pointers. For float op-math (float16 and
// bfloat16 ops, float32 ops whose runs take the buffers: mixed dtypes, strided) the block's loop is an OpenMP simd loop (`#pragma omp simd`; impl is built with -fopenmp):
// GCC 12's -O2, whose vectorizer runs with the "very cheap" cost model, vectorizes no form of
// it on its own. Built for baseline x86-64 that is SSE2, 4 floats at a time; apply_n also
// instantiates the same loop in functions compiled for AVX2 and AVX-512 (CT_TARGET_AVX2/512,
// simd.h: 8 and 16 floats at a time) and calls the one of simd_level() (Note [CPU SIMD
// kernels]), the level the conversions around it run at. f is the same function (a lambda,
// inlined) in every version, and vectorized code keeps IEEE semantics (no -ffast-math; impl is
// compiled with -ffp-contract=off, so no a * b + c becomes a fused multiply-add on an FMA
// target): every version gives the same results, but for the sign and payload of a NaN made
// from two NaN inputs, which depends on the order the compiler gives an add's operands, in any
// version. Other op-math types (integers, whose f may throw, double, complex) keep the plain
// loop.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/simd.h"
#include "impl/ops/cpu/simd_convert.h"

namespace ct::cpu {

// Note [Fused float16/bfloat16 runs]: a run of an op on float16 (or bfloat16) operands that are
// all contiguous or one broadcast value, with a contiguous result of that dtype (or bool), needs
// no kRun-element buffers: fused_n converts 16 elements of each input to float (simd_convert.h,
// exact), computes f on them (apply_body, an OpenMP simd loop) and rounds the 16 results back,
// all in one pass over the data, with the conversions inlined. It runs at the AVX2 and AVX-512
// levels; the results are the buffered path's: the same conversions (Half/BFloat16's bits,
// Note [CPU SIMD kernels]), the same f on the same floats, the last partial block converted
// element by element by Half/BFloat16 themselves.
template <typename D, size_t NIN>
struct FusedRun {
  std::array<const D*, NIN> in{};  // contiguous inputs; nullptr: input k is val[k] everywhere
  std::array<float, NIN> val{};
};

namespace detail {

// res[i] = f(in[0][i], ...) for i < m (m <= K).
template <typename U, typename T, size_t NIN, size_t K, typename F>
inline __attribute__((always_inline)) void apply_body(const F& f, const T (&in)[NIN][K], U* res, int64_t m) {
  constexpr int kB = 16;
  auto block = [&](int64_t i, int len) {
    U* __restrict r = res + i;
    const T* x0 = in[0] + i;
    const T* x1 = in[NIN > 1 ? 1 : 0] + i;
    const T* x2 = in[NIN > 2 ? 2 : 0] + i;
    auto one = [&](int j) {
      if constexpr (NIN == 1) r[j] = convert<U>(f(x0[j]));
      else if constexpr (NIN == 2) r[j] = convert<U>(f(x0[j], x1[j]));
      else r[j] = convert<U>(f(x0[j], x1[j], x2[j]));
    };
    if constexpr (std::is_same_v<T, float>) {
      // GCC 12's -O2 vectorizes neither form on its own; float ops do not throw (an exception
      // may not leave a simd loop: integer division checks its divisor in f)
#pragma omp simd
      for (int j = 0; j < len; ++j) one(j);
    } else {
      for (int j = 0; j < len; ++j) one(j);
    }
  };
  int64_t i = 0;
  for (; i + kB <= m; i += kB) block(i, kB);
  block(i, static_cast<int>(m - i));
}

template <typename U, typename T, size_t NIN, size_t K, typename F>
void apply_generic(const F& f, const T (&in)[NIN][K], U* res, int64_t m) {
  apply_body(f, in, res, m);
}
template <typename U, typename T, size_t NIN, size_t K, typename F>
CT_TARGET_AVX2 void apply_avx2(const F& f, const T (&in)[NIN][K], U* res, int64_t m) {
  apply_body(f, in, res, m);
}
template <typename U, typename T, size_t NIN, size_t K, typename F>
CT_TARGET_AVX512 void apply_avx512(const F& f, const T (&in)[NIN][K], U* res, int64_t m) {
  apply_body(f, in, res, m);
}

// y[j] = convert<U>(f(x[0][j], ...)) for j < 16.
template <typename U, size_t NIN, typename F>
CT_SIMD_INLINE void apply16(const F& f, const float (&x)[NIN][16], U* __restrict y) {
#pragma omp simd
  for (int j = 0; j < 16; ++j) {
    if constexpr (NIN == 1) y[j] = convert<U>(f(x[0][j]));
    else if constexpr (NIN == 2) y[j] = convert<U>(f(x[0][j], x[1][j]));
    else y[j] = convert<U>(f(x[0][j], x[1][j], x[2][j]));
  }
}

// out[i] = R(f(float(in[0][i]), ...)) for i < n, 16 at a time: Blocks' conversions of its kWidth
// elements (simd_convert.h) inlined by the target functions below; the last partial block
// through Half/BFloat16 element by element.
template <typename Blocks, typename D, typename R, size_t NIN, typename F>
CT_SIMD_INLINE void fused_body(const F& f, const FusedRun<D, NIN>& r, R* out, int64_t n) {
  constexpr int kB = 16, W = Blocks::kWidth;
  alignas(64) float x[NIN][kB];
  alignas(64) float y[kB];
  for (size_t k = 0; k < NIN; ++k)
    if (!r.in[k]) std::fill(x[k], x[k] + kB, r.val[k]);
  int64_t i = 0;
  for (; i + kB <= n; i += kB) {
    for (size_t k = 0; k < NIN; ++k)
      if (r.in[k])
        for (int j = 0; j < kB; j += W) Blocks::to_float_aligned(r.in[k] + i + j, x[k] + j);
    if constexpr (std::is_same_v<R, D>) {
      apply16(f, x, y);
      for (int j = 0; j < kB; j += W) Blocks::from_float_aligned(y + j, out + i + j);
    } else {
      apply16(f, x, out + i);  // bool results
    }
  }
  if (i == n) return;
  const int len = static_cast<int>(n - i);
  for (size_t k = 0; k < NIN; ++k)
    if (r.in[k])
      for (int j = 0; j < len; ++j) x[k][j] = static_cast<float>(r.in[k][i + j]);
  if constexpr (std::is_same_v<R, D>) {
    apply_body(f, x, y, len);
    for (int j = 0; j < len; ++j) out[i + j] = D(y[j]);
  } else {
    apply_body(f, x, out + i, len);
  }
}

template <typename D, typename R, size_t NIN, typename F>
CT_TARGET_AVX2 void fused_avx2(const F& f, const FusedRun<D, NIN>& r, R* out, int64_t n) {
  fused_body<avx2::Blocks>(f, r, out, n);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12, see simd_convert.h
template <typename D, typename R, size_t NIN, typename F>
CT_TARGET_AVX512 void fused_avx512(const F& f, const FusedRun<D, NIN>& r, R* out, int64_t n) {
  fused_body<avx512::Blocks>(f, r, out, n);
}
#pragma GCC diagnostic pop

}  // namespace detail

// Note [Fused float16/bfloat16 runs]; only for level kAvx2 or kAvx512 (simd_level()).
template <typename D, typename R, size_t NIN, typename F>
void fused_n(SimdLevel level, const F& f, const FusedRun<D, NIN>& r, R* out, int64_t n) {
  if (level == SimdLevel::kAvx512) detail::fused_avx512(f, r, out, n);
  else detail::fused_avx2(f, r, out, n);
}

// res[i] = convert<U>(f(in[0][i], ...)) for i < m, by the version of `level` (simd_level(),
// read once by the caller). Only float op-math (float16, bfloat16, float32 with other dtypes)
// has the vector versions; other types take the generic loop.
template <typename U, typename T, size_t NIN, size_t K, typename F>
void apply_n(SimdLevel level, const F& f, const T (&in)[NIN][K], U* res, int64_t m) {
  if constexpr (std::is_same_v<T, float>) {
    switch (level) {
      case SimdLevel::kAvx512: detail::apply_avx512(f, in, res, m); return;
      case SimdLevel::kAvx2: detail::apply_avx2(f, in, res, m); return;
      default: break;
    }
  }
  detail::apply_generic(f, in, res, m);
}

}  // namespace ct::cpu
