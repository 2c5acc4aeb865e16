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

CT_RNG_HD uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
CT_RNG_HD float f32_from(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

CT_RNG_HD uint16_t half_from_float(float f) {
  uint32_t u = f32_bits(f);
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
  if (exp == 31) return f32_from(sign | 0x7f800000u | (mant << 13));
  return f32_from(sign | ((exp + 112u) << 23) | (mant << 13));
}
CT_RNG_HD uint16_t bf16_from_float(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
CT_RNG_HD float bf16_to_float(uint16_t b) { return f32_from(static_cast<uint32_t>(b) << 16); }

// Output element types: rounding of a float (as the dtype, back in float) and storing.
template <typename S>
struct Out {
  static constexpr bool is_float = false;
  static constexpr int digits = 0;
  CT_RNG_HD static void put_float(S* p, double v) { *p = static_cast<S>(v); }
  CT_RNG_HD static void put_int(S* p, int64_t v) { *p = static_cast<S>(v); }
  CT_RNG_HD static void put_u64(S* p, uint64_t v) { *p = static_cast<S>(v); }
};
template <>
struct Out<bool> {
  static constexpr bool is_float = false;
  static constexpr int digits = 0;
  CT_RNG_HD static void put_float(bool* p, double v) { *p = v != 0; }
  CT_RNG_HD static void put_int(bool* p, int64_t v) { *p = v != 0; }
  CT_RNG_HD static void put_u64(bool* p, uint64_t v) { *p = v != 0; }
};
template <>
struct Out<float> {
  static constexpr bool is_float = true;
  static constexpr int digits = 24;
  CT_RNG_HD static float round(float v) { return v; }
  CT_RNG_HD static void put_float(float* p, float v) { *p = v; }
  CT_RNG_HD static void put_int(float* p, int64_t v) { *p = static_cast<float>(v); }
  CT_RNG_HD static void put_u64(float* p, uint64_t v) { *p = static_cast<float>(v); }
};
template <>
struct Out<double> {
  static constexpr bool is_float = true;
  static constexpr int digits = 53;
  CT_RNG_HD static void put_float(double* p, double v) { *p = v; }
  CT_RNG_HD static void put_int(double* p, int64_t v) { *p = static_cast<double>(v); }
  CT_RNG_HD static void put_u64(double* p, uint64_t v) { *p = static_cast<double>(v); }
};
template <>
struct Out<H16> {
  static constexpr bool is_float = true;
  static constexpr int digits = 11;
  CT_RNG_HD static float round(float v) { return half_to_float(half_from_float(v)); }
  CT_RNG_HD static void put_float(H16* p, float v) { p->x = half_from_float(v); }
  CT_RNG_HD static void put_int(H16* p, int64_t v) { p->x = half_from_float(static_cast<float>(v)); }
  CT_RNG_HD static void put_u64(H16* p, uint64_t v) { p->x = half_from_float(static_cast<float>(v)); }
};
template <>
struct Out<B16> {
  static constexpr bool is_float = true;
  static constexpr int digits = 8;
  CT_RNG_HD static float round(float v) { return bf16_to_float(bf16_from_float(v)); }
  CT_RNG_HD static void put_float(B16* p, float v) { p->x = bf16_from_float(v); }
  CT_RNG_HD static void put_int(B16* p, int64_t v) { p->x = bf16_from_float(static_cast<float>(v)); }
  CT_RNG_HD static void put_u64(B16* p, uint64_t v) { p->x = bf16_from_float(static_cast<float>(v)); }
};

CT_RNG_HD float fma_f(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}
CT_RNG_HD double fma_d(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return __builtin_fma(a, b, c);
#endif
}

// A float value from a float draw (PyTorch's UniformFunctor / NormalFunctor / bernoulli; nvcc
// contracts their `rand * range + from` into one fused multiply-add, as here).
template <typename S>
CT_RNG_HD void put_from_float(S* out, const Params& p, float r) {
  if constexpr (Out<S>::is_float && Out<S>::digits < 53) {
    if (p.mode == kModeUniform) {
      float from = static_cast<float>(p.b), to = static_cast<float>(p.c);
      float v = Out<S>::round(fma_f(r, static_cast<float>(p.a), from));
      Out<S>::put_float(out, v == to ? from : v);  // (0, 1] -> [0, 1), as PyTorch
      return;
    }
    if (p.mode == kModeNormal) {
      Out<S>::put_float(out, fma_f(r, static_cast<float>(p.a), static_cast<float>(p.b)));
      return;
    }
  }
  // bernoulli (any dtype, float draw)
  Out<S>::put_int(out, r < static_cast<float>(p.a) ? 1 : 0);
}

template <typename S>
CT_RNG_HD void put_from_double(S* out, const Params& p, double r) {
  if constexpr (Out<S>::digits == 53) {
    if (p.mode == kModeUniform) {
      double v = fma_d(r, p.a, p.b);
      Out<S>::put_float(out, v == p.c ? p.b : v);
      return;
    }
    if (p.mode == kModeNormal) {
      Out<S>::put_float(out, fma_d(r, p.a, p.b));
      return;
    }
  }
  Out<S>::put_int(out, r < p.a ? 1 : 0);
}

// An integer value from raw bits (PyTorch's uniform_int_from_to / uniform_int).
template <typename S, typename V>
CT_RNG_HD void put_from_bits(S* out, const Params& p, V r) {
  if (p.mode == kModeIntFromTo) {
    Out<S>::put_int(out, static_cast<int64_t>((static_cast<uint64_t>(r) % p.range) + static_cast<uint64_t>(p.base)));
    return;
  }
  // full range of the dtype
  if constexpr (Out<S>::is_float) {
    Out<S>::put_u64(out, static_cast<uint64_t>(r) % ((1ULL << Out<S>::digits) + 1));
  } else if constexpr (std::is_same<S, bool>::value) {
    Out<S>::put_u64(out, static_cast<uint64_t>(r) & 1u);  // bool
  } else {
    uint64_t mx = std::is_same<S, uint8_t>::value ? 255u
                  : sizeof(S) == 1                ? 127u
                  : sizeof(S) == 2                ? 32767u
                  : sizeof(S) == 4                ? 2147483647u
                                                  : 9223372036854775807ull;
    Out<S>::put_u64(out, static_cast<uint64_t>(r) % (mx + 1));
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
      for (int ii = 0; ii < 4; ++ii) {
        int64_t li = base + threads * ii;
        if (li < numel) put_from_float<S>(out + li, p, v[ii]);
      }
    } else if constexpr (D == kUniform2Double || D == kNormal2Double) {
      double2 r = D == kUniform2Double ? curand_uniform2_double(&st) : curand_normal2_double(&st);
      const double v[2] = {r.x, r.y};
      for (int ii = 0; ii < 2; ++ii) {
        int64_t li = base + threads * ii;
        if (li < numel) put_from_double<S>(out + li, p, v[ii]);
      }
    } else if constexpr (D == kBits32x4) {
      uint4 r = curand4(&st);
      const uint32_t v[4] = {r.x, r.y, r.z, r.w};
      for (int ii = 0; ii < 4; ++ii) {
        int64_t li = base + threads * ii;
        if (li < numel) put_from_bits<S, uint32_t>(out + li, p, v[ii]);
      }
    } else {
      uint4 r = curand4(&st);
      const uint64_t v[2] = {(static_cast<uint64_t>(r.x) << 32) | r.y, (static_cast<uint64_t>(r.z) << 32) | r.w};
      for (int ii = 0; ii < 2; ++ii) {
        int64_t li = base + threads * ii;
        if (li < numel) put_from_bits<S, uint64_t>(out + li, p, v[ii]);
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
