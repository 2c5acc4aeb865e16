// The random ops' element rules, shared by the CPU loop (impl/rng/cpu_random.cc) and the CUDA
// kernel (impl/rng/random.cu), so both compute every element the same way.
//
// Note [Random launch geometry]: as PyTorch's distribution_nullary_kernel, element li of a
// tensor of n elements is written by thread idx = li % T of a grid of T = 256 * grid threads,
// at draw k = li / (T * unroll), component ii = (li / T) % unroll, where thread idx starts with
// curand_init(seed, idx, offset) and makes one cuRAND call per draw. grid = min(ceil(n / 256),
// multiprocessors * (max threads per multiprocessor / 256)), unroll is 4 for float draws and
// 32-bit integers, 2 for double draws and 64-bit integers, and the generator's offset advances
// by 4 * ceil(n / (T * unroll)). The CPU uses the current CUDA device's figures, or without a
// GPU the reference geometry of an H100/H200 (132 multiprocessors, 2048 threads each).
#pragma once
#include <cstdint>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "impl/abi/tables.h"
#include "impl/rng/philox.h"
#include "impl/rng/params.h"

#if defined(__CUDACC__)
#define CT_RNG_HD __host__ __device__ __forceinline__
#else
#define CT_RNG_HD inline
#endif

namespace ct::rng {

// Storage types for the 16-bit floats with one conversion on both sides (round to nearest
// even, as c10::Half / c10::BFloat16).
struct H16 {
  uint16_t x;
};
struct B16 {
  uint16_t x;
};

// The bits of a float as uint32_t, or back (To: the other type).
template <typename To, typename From>
CT_RNG_HD To bits_as(From v) {
  static_assert(sizeof(To) == 4 && sizeof(From) == 4, "bits_as: float <-> uint32_t");
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<To, float>) return __uint_as_float(v);
  else return __float_as_uint(v);
#else
  To r;
  std::memcpy(&r, &v, 4);
  return r;
#endif
}

CT_RNG_HD uint16_t half_from_float(float f) {
  uint32_t u = bits_as<uint32_t>(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t au = u & 0x7fffffffu;
  if (au >= 0x7f800000u) return static_cast<uint16_t>(sign | (au > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (au >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (au < 0x38800000u) {  // a half subnormal (or zero)
    if (au < 0x33000000u) return static_cast<uint16_t>(sign);
    uint32_t e = au >> 23, m = (au & 0x7fffffu) | 0x800000u, shift = 126u - e;
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  au += 0xc8000fffu + ((au >> 13) & 1u);
  return static_cast<uint16_t>(sign | (au >> 13));
}
CT_RNG_HD float half_to_float(uint16_t h) {
  uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (exp == 31) return bits_as<float>(sign | 0x7f800000u | (mant << 13));
  return bits_as<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}
CT_RNG_HD uint16_t bf16_from_float(float f) {
  uint32_t u = bits_as<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
CT_RNG_HD float bf16_to_float(uint16_t b) { return bits_as<float>(static_cast<uint32_t>(b) << 16); }

// Output element types: whether a float type and its significand's digits (0 for integers and
// bool), rounding of a float (as the dtype, back in float) and storing any value.
template <typename S>
struct Out {
  static constexpr int digits = std::is_same_v<S, double> ? 53
                                : std::is_same_v<S, float> ? 24
                                : std::is_same_v<S, H16>   ? 11
                                : std::is_same_v<S, B16>   ? 8
                                                           : 0;
  static constexpr bool is_float = digits > 0;
  CT_RNG_HD static float round(float v) {
    if constexpr (std::is_same_v<S, H16>) return half_to_float(half_from_float(v));
    else if constexpr (std::is_same_v<S, B16>) return bf16_to_float(bf16_from_float(v));
    else return v;
  }
  template <typename V>
  CT_RNG_HD static void put(S* p, V v) {
    if constexpr (std::is_same_v<S, bool>) *p = v != 0;
    else if constexpr (std::is_same_v<S, H16>) p->x = half_from_float(static_cast<float>(v));
    else if constexpr (std::is_same_v<S, B16>) p->x = bf16_from_float(static_cast<float>(v));
    else *p = static_cast<S>(v);
  }
};

// a * b + c rounded once (float or double).
template <typename T>
CT_RNG_HD T fma_rn(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return __fmaf_rn(a, b, c);
  else return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// A float value from a float draw (PyTorch's UniformFunctor / NormalFunctor / bernoulli; nvcc
// contracts their `rand * range + from` into one fused multiply-add, as here).
template <typename S>
CT_RNG_HD void put_from_float(S* out, const Params& p, float r) {
  if constexpr (Out<S>::is_float && Out<S>::digits < 53) {
    if (p.mode == kModeUniform) {
      float from = static_cast<float>(p.b), to = static_cast<float>(p.c);
      float v = Out<S>::round(fma_rn(r, static_cast<float>(p.a), from));
      Out<S>::put(out, v == to ? from : v);  // (0, 1] -> [0, 1), as PyTorch
      return;
    }
    if (p.mode == kModeNormal) {
      Out<S>::put(out, fma_rn(r, static_cast<float>(p.a), static_cast<float>(p.b)));
      return;
    }
  }
  // bernoulli (any dtype, float draw)
  Out<S>::put(out, int64_t{r < static_cast<float>(p.a) ? 1 : 0});
}

template <typename S>
CT_RNG_HD void put_from_double(S* out, const Params& p, double r) {
  if constexpr (Out<S>::digits == 53) {
    if (p.mode == kModeUniform) {
      double v = fma_rn(r, p.a, p.b);
      Out<S>::put(out, v == p.c ? p.b : v);
      return;
    }
    if (p.mode == kModeNormal) {
      Out<S>::put(out, fma_rn(r, p.a, p.b));
      return;
    }
  }
  Out<S>::put(out, int64_t{r < p.a ? 1 : 0});
}

// An integer value from raw bits (PyTorch's uniform_int_from_to / uniform_int).
template <typename S, typename V>
CT_RNG_HD void put_from_bits(S* out, const Params& p, V r) {
  if (p.mode == kModeIntFromTo) {
    Out<S>::put(out, static_cast<int64_t>((static_cast<uint64_t>(r) % p.range) + static_cast<uint64_t>(p.base)));
    return;
  }
  // full range of the dtype
  if constexpr (Out<S>::is_float) {
    Out<S>::put(out, static_cast<uint64_t>(r) % ((1ULL << Out<S>::digits) + 1));
  } else if constexpr (std::is_same<S, bool>::value) {
    Out<S>::put(out, static_cast<uint64_t>(r) & 1u);  // bool
  } else {
    uint64_t mx = std::is_same<S, uint8_t>::value ? 255u
                  : sizeof(S) == 1                ? 127u
                  : sizeof(S) == 2                ? 32767u
                  : sizeof(S) == 4                ? 2147483647u
                                                  : 9223372036854775807ull;
    Out<S>::put(out, static_cast<uint64_t>(r) % (mx + 1));
  }
}

// One element from one value of a draw: a float, a double or raw bits.
template <typename S, typename V>
CT_RNG_HD void put_value(S* out, const Params& p, V r) {
  if constexpr (std::is_same_v<V, float>) put_from_float<S>(out, p, r);
  else if constexpr (std::is_same_v<V, double>) put_from_double<S>(out, p, r);
  else put_from_bits<S, V>(out, p, r);
}

// The elements of the K values of one cuRAND call: value ii goes to element base + threads * ii.
template <typename S, typename V, int K>
CT_RNG_HD void put_draw(S* out, int64_t numel, int64_t base, int64_t threads, const Params& p, const V (&v)[K]) {
  for (int ii = 0; ii < K; ++ii) {
    int64_t li = base + threads * ii;
    if (li < numel) put_value<S>(out + li, p, v[ii]);
  }
}

// The work of one thread of the grid-stride loop (Note [Random launch geometry]).
template <typename S, int D>
CT_RNG_HD void thread_work(S* out, int64_t numel, int64_t idx, int64_t threads, const Params& p, uint64_t seed,
                           uint64_t offset) {
  constexpr int U = unroll_of(D);
  curandStatePhilox4_32_10_t st;
  curand_init(seed, static_cast<unsigned long long>(idx), offset, &st);
  const int64_t step = threads * U;
  for (int64_t base = idx; base < numel; base += step) {
    if constexpr (D == kUniform4 || D == kNormal4) {
      float4 r = D == kUniform4 ? curand_uniform4(&st) : curand_normal4(&st);
      const float v[4] = {r.x, r.y, r.z, r.w};
      put_draw(out, numel, base, threads, p, v);
    } else if constexpr (D == kUniform2Double || D == kNormal2Double) {
      double2 r = D == kUniform2Double ? curand_uniform2_double(&st) : curand_normal2_double(&st);
      const double v[2] = {r.x, r.y};
      put_draw(out, numel, base, threads, p, v);
    } else {
      uint4 r = curand4(&st);
      if constexpr (D == kBits32x4) {
        const uint32_t v[4] = {r.x, r.y, r.z, r.w};
        put_draw(out, numel, base, threads, p, v);
      } else {
        const uint64_t v[2] = {(static_cast<uint64_t>(r.x) << 32) | r.y, (static_cast<uint64_t>(r.z) << 32) | r.w};
        put_draw(out, numel, base, threads, p, v);
      }
    }
  }
}

// Calls f.template run<S, D>() for the storage type of dtype and the draw (only the pairs the
// ops use are instantiated).
template <typename S, int D>
constexpr bool valid_pair() {
  if (D == kBits32x4 || D == kBits64x2) return true;
  if (D == kUniform2Double || D == kNormal2Double) return std::is_same<S, double>::value;
  if (D == kNormal4) return std::is_same<S, float>::value || std::is_same<S, H16>::value || std::is_same<S, B16>::value;
  return !std::is_same<S, double>::value;  // kUniform4: floats and (bernoulli) integers
}

template <typename S, typename F>
bool run_draw(int draw, F& f) {
  switch (draw) {
#define CT_RNG_CASE(D)                  \
  case D:                               \
    if constexpr (valid_pair<S, D>()) { \
      f.template run<S, D>();           \
      return true;                      \
    }                                   \
    return false;
    CT_RNG_CASE(kUniform4)
    CT_RNG_CASE(kUniform2Double)
    CT_RNG_CASE(kNormal4)
    CT_RNG_CASE(kNormal2Double)
    CT_RNG_CASE(kBits32x4)
    CT_RNG_CASE(kBits64x2)
#undef CT_RNG_CASE
  }
  return false;
}

// dtype: a DType value (as int32_t). False for a combination no op uses (a bug in the caller).
template <typename F>
bool dispatch(int32_t dtype, int draw, F& f) {
  switch (static_cast<DType>(dtype)) {
    case DType::Float32: return run_draw<float>(draw, f);
    case DType::Float64: return run_draw<double>(draw, f);
    case DType::Float16: return run_draw<H16>(draw, f);
    case DType::BFloat16: return run_draw<B16>(draw, f);
    case DType::Bool: return run_draw<bool>(draw, f);
    case DType::UInt8: return run_draw<uint8_t>(draw, f);
    case DType::Int8: return run_draw<int8_t>(draw, f);
    case DType::Int16: return run_draw<int16_t>(draw, f);
    case DType::Int32: return run_draw<int32_t>(draw, f);
    case DType::Int64: return run_draw<int64_t>(draw, f);
    default: return false;
  }
}

}  // namespace ct::rng
