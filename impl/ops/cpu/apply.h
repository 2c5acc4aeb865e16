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
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/simd.h"

namespace ct::cpu {

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

}  // namespace detail

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
