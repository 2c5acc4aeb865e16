// float16 and bfloat16 storage types with round-to-nearest-even conversion from float, as
// c10::Half / c10::BFloat16 do. Arithmetic happens in float (see Note [Compute dtype]).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace ct {

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float f32_from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(from_float(f)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return to_float(x); }

  static uint16_t from_float(float f) {
    uint32_t u = f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t au = u & 0x7fffffffu;
    if (au >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | (au > 0x7f800000u ? 0x7e00u : 0x7c00u));
    }
    if (au >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (au < 0x38800000u) {  // subnormal half (or zero)
      // value = au as float; half subnormal unit is 2^-24
      float af = f32_from_bits(au);
      float scaled = af * 16777216.0f;  // exact: multiply by 2^24
      // round half to even
      float r = std::nearbyint(scaled);
      return static_cast<uint16_t>(sign | static_cast<uint32_t>(r));
    }
    uint32_t mant_odd = (au >> 13) & 1u;
    au += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (au >> 13));
  }
  static float to_float(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
      float v = static_cast<float>(mant) / 16777216.0f;  // mant * 2^-24
      return (sign ? -v : v);
    }
    if (exp == 31) return f32_from_bits(sign | 0x7f800000u | (mant << 13));
    return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(from_float(f)) {}  // NOLINT
  operator float() const { return f32_from_bits(static_cast<uint32_t>(x) << 16); }
  static uint16_t from_float(float f) {
    if (std::isnan(f)) return 0x7fc0u;
    uint32_t u = f32_bits(f);
    uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>((u + rounding_bias) >> 16);
  }
};

}  // namespace ct
