// The CPU bulk kernels (impl/ops/cpu/simd.h): the AVX2 and AVX-512 versions give the generic
// versions' bits (Note [CPU SIMD kernels]), so do the elementwise ops and sums built on them at
// every SIMD level the CPU has (cpu::cap_simd_level forces the lower ones, the generic fallback
// included), and the reductions do not depend on the number of threads or on the input's dtype
// beyond its values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "impl/core/half.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/simd.h"
#include "impl/ops/cpu/threads.h"
#include "impl/ops/ops.h"

using namespace ct;

namespace {

// Floats over the whole bit range (a stride through all 2^32 patterns) plus the edges of the
// float16 range, subnormals, ties and NaNs with payloads.
std::vector<float> float_samples() {
  std::vector<float> v;
  for (uint64_t u = 0; u < (1ull << 32); u += 65521) v.push_back(f32_from_bits(static_cast<uint32_t>(u)));
  const uint32_t special[] = {0x7f800000u, 0xff800000u, 0x7f800001u, 0x7fc00000u, 0xffc12345u, 0x7fa00001u,
                              0x477ff000u, 0x477fefffu, 0x38800000u, 0x387fffffu, 0x33800000u, 0x33800001u,
                              0x3f808000u, 0x3f818000u, 0x80000000u, 0x00000001u};
  for (uint32_t u : special) v.push_back(f32_from_bits(u));
  for (float x = -110.0f; x < 110.0f; x += 0.0137f) v.push_back(x);  // exp's whole range
  while (v.size() % 8 != 3) v.push_back(1.5f);                          // a scalar tail too
  return v;
}

template <typename T>
std::vector<T> every_16_bit_value() {
  std::vector<T> v(1 << 16);
  for (uint32_t i = 0; i < v.size(); ++i) v[i].x = static_cast<uint16_t>(i);
  return v;
}

// float_samples() plus what float -> float16 rounding hinges on: for every finite half, the
// float halfway to the next one (a tie: round half to even), and the floats just below and above
// it; the largest half (65504), the overflow boundary (65520 rounds to inf, the float below it
// to 65504), the smallest subnormal half and the ties around it, -0, +-inf, NaNs of both signs.
std::vector<float> conversion_samples() {
  std::vector<float> v = float_samples();
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    Half a, b;
    a.x = static_cast<uint16_t>(h);
    b.x = static_cast<uint16_t>(h + 1);
    const float mid = static_cast<float>((static_cast<double>(static_cast<float>(a)) + static_cast<float>(b)) / 2);
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  for (uint32_t u : {0x477fe000u, 0x477ff000u, 0x477fefffu, 0x33000000u, 0x33000001u, 0x32ffffffu, 0x80000000u,
                     0xff800000u, 0x7f800000u, 0xffc00000u, 0x7fbfffffu, 0xff800001u})
    v.push_back(f32_from_bits(u));
  return v;
}

// The SIMD levels this CPU has beyond generic.
std::vector<cpu::SimdLevel> vector_levels() {
  std::vector<cpu::SimdLevel> v;
  if (cpu::avx2_enabled()) v.push_back(cpu::SimdLevel::kAvx2);
  if (cpu::avx512_enabled()) v.push_back(cpu::SimdLevel::kAvx512);
  return v;
}

// Caps the dispatch at one level for a scope (then lifts the cap).
struct SimdCap {
  explicit SimdCap(cpu::SimdLevel l) { cpu::cap_simd_level(l); }
  ~SimdCap() { cpu::cap_simd_level(cpu::SimdLevel::kAvx512); }
};

const char* level_name(cpu::SimdLevel l) {
  return l == cpu::SimdLevel::kAvx512 ? "avx512" : l == cpu::SimdLevel::kAvx2 ? "avx2" : "generic";
}

}  // namespace

TEST(CpuSimd, GenericConversionsMatchHalfAndBFloat16) {
  std::vector<float> x = float_samples(), y(x.size());
  std::vector<Half> h(x.size());
  std::vector<BFloat16> b(x.size());
  cpu::generic::convert_n(x.data(), h.data(), static_cast<int64_t>(x.size()));
  cpu::generic::convert_n(x.data(), b.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(h[i].x, Half(x[i]).x) << std::hex << f32_bits(x[i]);
    ASSERT_EQ(b[i].x, BFloat16(x[i]).x) << std::hex << f32_bits(x[i]);
  }
  std::vector<Half> hs = every_16_bit_value<Half>();
  std::vector<BFloat16> bs = every_16_bit_value<BFloat16>();
  y.resize(hs.size());
  cpu::generic::convert_n(hs.data(), y.data(), static_cast<int64_t>(hs.size()));
  for (size_t i = 0; i < hs.size(); ++i) ASSERT_EQ(f32_bits(y[i]), f32_bits(static_cast<float>(hs[i]))) << i;
  cpu::generic::convert_n(bs.data(), y.data(), static_cast<int64_t>(bs.size()));
  for (size_t i = 0; i < bs.size(); ++i) ASSERT_EQ(f32_bits(y[i]), f32_bits(static_cast<float>(bs[i]))) << i;
}

TEST(CpuSimd, Avx2ConversionsAndExpGiveTheGenericBits) {
  if (!cpu::avx2_enabled()) GTEST_SKIP() << "no AVX2/FMA/F16C";
  std::vector<float> x = float_samples();
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<Half> h1(n), h2(n);
  std::vector<BFloat16> b1(n), b2(n);
  std::vector<float> e1(n), e2(n);
  cpu::avx2::convert_n(x.data(), h1.data(), n);
  cpu::generic::convert_n(x.data(), h2.data(), n);
  cpu::avx2::convert_n(x.data(), b1.data(), n);
  cpu::generic::convert_n(x.data(), b2.data(), n);
  cpu::avx2::exp_n(x.data(), e1.data(), n);
  cpu::generic::exp_n(x.data(), e2.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(h1[i].x, h2[i].x) << std::hex << f32_bits(x[i]);
    ASSERT_EQ(b1[i].x, b2[i].x) << std::hex << f32_bits(x[i]);
    ASSERT_EQ(f32_bits(e1[i]), f32_bits(e2[i])) << std::hex << f32_bits(x[i]);
  }
  std::vector<Half> hs = every_16_bit_value<Half>();
  std::vector<BFloat16> bs = every_16_bit_value<BFloat16>();
  std::vector<float> y1(hs.size()), y2(hs.size());
  cpu::avx2::convert_n(hs.data(), y1.data(), static_cast<int64_t>(hs.size()));
  cpu::generic::convert_n(hs.data(), y2.data(), static_cast<int64_t>(hs.size()));
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)), 0);
  cpu::avx2::convert_n(bs.data(), y1.data(), static_cast<int64_t>(bs.size()));
  cpu::generic::convert_n(bs.data(), y2.data(), static_cast<int64_t>(bs.size()));
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)), 0);
}

// Through the dispatching entry points capped at each level: special values, ties, overflow,
// subnormals, every 16-bit pattern, and every length to 40 from unaligned starts (the vector
// bodies' tails), nothing written past the end.
TEST(CpuSimd, VectorConversionsGiveTheGenericBitsAtEveryLevel) {
  const std::vector<float> x = conversion_samples();
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<Half> h0(n), h1(n);
  std::vector<BFloat16> b0(n), b1(n);
  cpu::generic::convert_n(x.data(), h0.data(), n);
  cpu::generic::convert_n(x.data(), b0.data(), n);
  const std::vector<Half> hs = every_16_bit_value<Half>();
  const std::vector<BFloat16> bs = every_16_bit_value<BFloat16>();
  std::vector<float> fh0(hs.size()), fb0(bs.size()), y(hs.size());
  cpu::generic::convert_n(hs.data(), fh0.data(), static_cast<int64_t>(hs.size()));
  cpu::generic::convert_n(bs.data(), fb0.data(), static_cast<int64_t>(bs.size()));
  for (cpu::SimdLevel level : vector_levels()) {
    SimdCap cap(level);
    ASSERT_EQ(cpu::simd_level(), level) << "CT_CPU_SIMD caps the level below " << level_name(level);
    SCOPED_TRACE(level_name(level));
    cpu::convert_n(x.data(), h1.data(), n);
    cpu::convert_n(x.data(), b1.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(h1[i].x, h0[i].x) << std::hex << f32_bits(x[i]);
      ASSERT_EQ(b1[i].x, b0[i].x) << std::hex << f32_bits(x[i]);
    }
    cpu::convert_n(hs.data(), y.data(), static_cast<int64_t>(hs.size()));
    EXPECT_EQ(std::memcmp(y.data(), fh0.data(), y.size() * sizeof(float)), 0);
    cpu::convert_n(bs.data(), y.data(), static_cast<int64_t>(bs.size()));
    EXPECT_EQ(std::memcmp(y.data(), fb0.data(), y.size() * sizeof(float)), 0);
    for (int64_t len = 0; len <= 40; ++len) {
      for (int64_t off = 0; off < 4; ++off) {
        // halves 0x7bf0.. (large, then inf and NaNs: signaling ones among them) as the input
        const int64_t from = 0x7bf0 + 7 * len + off;
        std::vector<Half> ho(len + 1, Half(-7.0f));
        std::vector<BFloat16> bo(len + 1, BFloat16(-7.0f));
        std::vector<float> fo(len + 1, -7.0f);
        cpu::convert_n(x.data() + 1000 + off, ho.data(), len);
        cpu::convert_n(x.data() + 1000 + off, bo.data(), len);
        for (int64_t i = 0; i < len; ++i) {
          ASSERT_EQ(ho[i].x, h0[1000 + off + i].x) << len << " " << off;
          ASSERT_EQ(bo[i].x, b0[1000 + off + i].x) << len << " " << off;
        }
        ASSERT_EQ(ho[len].x, Half(-7.0f).x);
        ASSERT_EQ(bo[len].x, BFloat16(-7.0f).x);
        cpu::convert_n(hs.data() + from, fo.data(), len);
        for (int64_t i = 0; i < len; ++i) ASSERT_EQ(f32_bits(fo[i]), f32_bits(fh0[from + i])) << len << " " << off;
        ASSERT_EQ(fo[len], -7.0f);
        cpu::convert_n(bs.data() + from, fo.data(), len);
        for (int64_t i = 0; i < len; ++i) ASSERT_EQ(f32_bits(fo[i]), f32_bits(fb0[from + i])) << len << " " << off;
        ASSERT_EQ(fo[len], -7.0f);
      }
    }
  }
}

// Note [Float to narrow integer casts] by hand: x86's truncating conversion to int32 (INT32_MIN
// for NaN, the infinities and beyond int32), narrower types its low bytes, bool x != 0.
TEST(CpuSimd, FloatToNarrowIntegerCastsKeepX86sLowBytes) {
  const float nan = std::nanf(""), inf = INFINITY;
  struct Case { float x; bool b; uint8_t u8; int8_t i8; int16_t i16; int32_t i32; };
  const Case cases[] = {
      {0.0f, false, 0, 0, 0, 0},           {-0.0f, false, 0, 0, 0, 0},
      {1e-45f, true, 0, 0, 0, 0},          {-0.75f, true, 0, 0, 0, 0},
      {300.7f, true, 44, 44, 300, 300},    {-1.5f, true, 255, -1, -1, -1},
      {-129.9f, true, 127, 127, -129, -129}, {65537.5f, true, 1, 1, 1, 65537},
      {-32769.0f, true, 255, -1, 32767, -32769},
      {2147483520.0f, true, 128, -128, -128, 2147483520}, {-2147483648.0f, true, 0, 0, 0, INT32_MIN},
      {3e9f, true, 0, 0, 0, INT32_MIN},    {-1e30f, true, 0, 0, 0, INT32_MIN},
      {inf, true, 0, 0, 0, INT32_MIN},     {-inf, true, 0, 0, 0, INT32_MIN},
      {nan, true, 0, 0, 0, INT32_MIN},     {-nan, true, 0, 0, 0, INT32_MIN},
  };
  const int64_t n = sizeof(cases) / sizeof(cases[0]);
  std::vector<float> x;
  for (const Case& c : cases) x.push_back(c.x);
  std::vector<cpu::SimdLevel> levels = vector_levels();
  levels.insert(levels.begin(), cpu::SimdLevel::kGeneric);
  for (cpu::SimdLevel level : levels) {
    SimdCap cap(level);
    SCOPED_TRACE(level_name(level));
    for (int64_t rep : {1, 5}) {  // 17 and 85 elements: scalar code only, and vector bodies too
      std::vector<float> xs;
      for (int64_t r = 0; r < rep; ++r) xs.insert(xs.end(), x.begin(), x.end());
      const int64_t m = static_cast<int64_t>(xs.size());
      bool b[100];
      uint8_t u8[100];
      int8_t i8[100];
      int16_t i16[100];
      int32_t i32[100];
      cpu::convert_n(xs.data(), b, m);
      cpu::convert_n(xs.data(), u8, m);
      cpu::convert_n(xs.data(), i8, m);
      cpu::convert_n(xs.data(), i16, m);
      cpu::convert_n(xs.data(), i32, m);
      for (int64_t i = 0; i < m; ++i) {
        const Case& c = cases[i % n];
        EXPECT_EQ(b[i], c.b) << c.x;
        EXPECT_EQ(u8[i], c.u8) << c.x;
        EXPECT_EQ(i8[i], c.i8) << c.x;
        EXPECT_EQ(i16[i], c.i16) << c.x;
        EXPECT_EQ(i32[i], c.i32) << c.x;
      }
    }
  }
}

namespace {

// convert_n(x, To*) at every level against convert<To> element by element: the whole input (the
// vector bodies), then every length to 67 from 4 unaligned starts (bodies and tails), nothing
// written past the end.
template <typename To, typename From>
void check_to_int(const std::vector<From>& x) {
  SCOPED_TRACE(testing::Message() << "to a " << sizeof(To) << "-byte " << (std::is_same_v<To, bool> ? "bool" : "int"));
  const int64_t n = static_cast<int64_t>(x.size());
  // arrays, not vectors: std::vector<bool> has no bool elements to write to
  std::unique_ptr<To[]> y0(new To[n]), y(new To[n]);
  for (int64_t i = 0; i < n; ++i) y0[i] = cpu::convert<To>(x[i]);
  std::vector<cpu::SimdLevel> levels = vector_levels();
  levels.insert(levels.begin(), cpu::SimdLevel::kGeneric);
  for (cpu::SimdLevel level : levels) {
    SimdCap cap(level);
    SCOPED_TRACE(level_name(level));
    cpu::convert_n(x.data(), y.get(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::memcmp(&y[i], &y0[i], sizeof(To)), 0)
          << "element " << i << " = " << static_cast<float>(x[i]) << ": " << +y[i] << " != " << +y0[i];
    }
    for (int64_t len = 0; len <= 67; ++len) {
      for (int64_t off = 0; off < 4; ++off) {
        const int64_t from = (len * 7919 + off * 104729) % (n - 80) + off;
        std::unique_ptr<To[]> out(new To[len + 1]);
        std::fill(out.get(), out.get() + len + 1, To(1));
        cpu::convert_n(x.data() + from, out.get(), len);
        for (int64_t i = 0; i < len; ++i)
          ASSERT_EQ(std::memcmp(&out[i], &y0[from + i], sizeof(To)), 0) << len << " " << off << " " << i;
        ASSERT_EQ(out[len], To(1)) << "written past the end: " << len << " " << off;
      }
    }
  }
}

template <typename From>
void check_to_ints(const std::vector<From>& x) {
  check_to_int<bool>(x);
  check_to_int<uint8_t>(x);
  check_to_int<int8_t>(x);
  check_to_int<int16_t>(x);
  check_to_int<int32_t>(x);
}

}  // namespace

// Note [Float to narrow integer casts]: the vector versions give convert()'s bits for floats of
// every exponent (each top 16 bits with random low ones), random bit patterns, the integer-range
// edges of every width and values around them, conversion_samples(); every float16 and bfloat16.
TEST(CpuSimd, FloatToNarrowIntegerCastsGiveConvertsBitsAtEveryLevel) {
  std::vector<float> x = conversion_samples();
  std::mt19937 g(21);
  for (uint32_t hi = 0; hi < (1u << 16); ++hi)
    for (int k = 0; k < 2; ++k) x.push_back(f32_from_bits(hi << 16 | (g() & 0xffff)));
  for (int k = 0; k < (1 << 17); ++k) x.push_back(f32_from_bits(static_cast<uint32_t>(g())));
  std::uniform_real_distribution<float> u(-70000.0f, 70000.0f);
  for (int k = 0; k < (1 << 16); ++k) x.push_back(u(g));
  for (double e : {0x1p7, 0x1p8, 0x1p15, 0x1p16, 0x1p31, 0x1p32, 0x1p63, 0x1p64}) {
    for (double s : {1.0, -1.0}) {
      const float f = static_cast<float>(s * e);
      float lo = f, hi = f;
      for (int k = 0; k < 4; ++k) {
        x.push_back(lo), x.push_back(hi);
        lo = std::nextafter(lo, -INFINITY), hi = std::nextafter(hi, INFINITY);
      }
      for (float d : {-1.0f, -0.5f, 0.5f, 1.0f}) x.push_back(f + d);
    }
  }
  for (uint32_t bits : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u, 0x00000001u,
                        0x80000001u, 0x007fffffu, 0x7f7fffffu, 0xff7fffffu, 0x80000000u, 0x00000000u})
    x.push_back(f32_from_bits(bits));
  while (x.size() % 32 != 29) x.push_back(-2.5f);  // a tail after the last vector body
  check_to_ints(x);
  check_to_ints(every_16_bit_value<Half>());
  check_to_ints(every_16_bit_value<BFloat16>());
}

TEST(CpuSimd, SumsAddInTheSameOrderInBothVersions) {
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(1000);
  for (float& v : x) v = u(g) * std::ldexp(1.0f, static_cast<int>(u(g) * 30));
  std::vector<Half> h(x.size());
  std::vector<BFloat16> b(x.size());
  for (size_t i = 0; i < x.size(); ++i) h[i] = Half(x[i]), b[i] = BFloat16(x[i]);
  for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100, 999}) {
    for (int64_t off : {0, 1}) {
      const double f = cpu::generic::sum_n(x.data() + off, n);
      // 16 lanes, i % 16, combined 8-4-2-1: the reference order spelled out
      double lanes[16] = {};
      for (int64_t i = 0; i < n; ++i) lanes[i % 16] += static_cast<double>(x[off + i]);
      for (int s = 8; s > 0; s /= 2)
        for (int j = 0; j < s; ++j) lanes[j] += lanes[j + s];
      EXPECT_EQ(f, lanes[0]) << n;
      auto same = [](double a, double c) { return std::memcmp(&a, &c, sizeof a) == 0; };
      for (cpu::SimdLevel level : vector_levels()) {
        SimdCap cap(level);
        ASSERT_EQ(cpu::simd_level(), level);
        EXPECT_TRUE(same(cpu::sum_n(x.data() + off, n), f)) << n << " " << level_name(level);
        EXPECT_TRUE(same(cpu::sum_n(h.data() + off, n), cpu::generic::sum_n(h.data() + off, n))) << n << " " << level_name(level);
        EXPECT_TRUE(same(cpu::sum_n(b.data() + off, n), cpu::generic::sum_n(b.data() + off, n))) << n << " " << level_name(level);
      }
    }
  }
}

// Sums over special values at every level: every float16 and bfloat16 pattern (infinities of
// both signs, NaNs, -0, subnormals) and floats with them, in runs of every length to 80 from
// unaligned starts; the same bits as generic::, NaN for NaN (which of two NaNs a double add
// keeps is the compiler's choice of operand order, in either version).
TEST(CpuSimd, SumsOfSpecialValuesMatchAtEveryLevel) {
  const std::vector<Half> hs = every_16_bit_value<Half>();
  const std::vector<BFloat16> bs = every_16_bit_value<BFloat16>();
  std::vector<float> fs(hs.size());
  for (size_t i = 0; i < hs.size(); ++i) fs[i] = static_cast<float>(hs[i]);
  auto same = [](double a, double c) { return std::memcmp(&a, &c, sizeof a) == 0 || (std::isnan(a) && std::isnan(c)); };
  // starts: finite values only, subnormals and zeros, then runs reaching the infinities/NaNs
  const int64_t starts[] = {0x0001, 0x8000, 0x3c00, 0x7bd0, 0xfbe0, 0x7c00 - 40, 0xfc00 - 20};
  for (cpu::SimdLevel level : vector_levels()) {
    SimdCap cap(level);
    ASSERT_EQ(cpu::simd_level(), level);
    for (int64_t from : starts) {
      for (int64_t len = 0; len <= 80; ++len) {
        if (from + len > static_cast<int64_t>(hs.size())) break;
        ASSERT_TRUE(same(cpu::sum_n(hs.data() + from, len), cpu::generic::sum_n(hs.data() + from, len)))
            << level_name(level) << " " << from << " " << len;
        ASSERT_TRUE(same(cpu::sum_n(bs.data() + from, len), cpu::generic::sum_n(bs.data() + from, len)))
            << level_name(level) << " " << from << " " << len;
        ASSERT_TRUE(same(cpu::sum_n(fs.data() + from, len), cpu::generic::sum_n(fs.data() + from, len)))
            << level_name(level) << " " << from << " " << len;
      }
    }
    // every positive finite half at once
    EXPECT_TRUE(same(cpu::sum_n(hs.data(), 0x7c00), cpu::generic::sum_n(hs.data(), 0x7c00)));
  }
}

namespace {
float sum_of(const Tensor& t, std::vector<int64_t> dims, int64_t i) {
  Tensor r = ops::reduce(ReduceOp::Sum, t, dims, false, true, DType::Float32);  // sum(dtype=float32)
  return reinterpret_cast<const float*>(r->data())[i];
}
}  // namespace

TEST(CpuSums, SameBitsForAnyThreadCountAndFromFloat16) {
  // one long row (several chunks) and rows, of float16 values, summed from float16 and from
  // float32 copies of the same values, with 1 and 2 threads
  const int64_t n = 3 * 32768 + 1234;
  Tensor h = empty_tensor({n}, DType::Float16, Device{});
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  Half* hp = reinterpret_cast<Half*>(h->data());
  for (int64_t i = 0; i < n; ++i) hp[i] = Half(u(g));
  Tensor f = ops::to(h, Device{}, DType::Float32, true);
  Tensor hm = ops::reshape(ops::narrow(h, 0, 0, 98304), {96, 1024});
  Tensor fm = ops::reshape(ops::narrow(f, 0, 0, 98304), {96, 1024});
  const int saved = cpu::num_threads();
  std::vector<float> got;
  for (int threads : {1, 2}) {
    cpu::set_num_threads(threads);
    got.push_back(sum_of(h, {}, 0));
    got.push_back(sum_of(f, {}, 0));
    got.push_back(sum_of(hm, {1}, 77));
    got.push_back(sum_of(fm, {1}, 77));
    got.push_back(sum_of(ops::transpose(fm, 0, 1), {0}, 5));  // rows of the transposed view: in place
  }
  // and at every SIMD level (generic too), 2 threads, from an unaligned start with a tail
  std::vector<cpu::SimdLevel> levels = vector_levels();
  levels.push_back(cpu::SimdLevel::kGeneric);
  Tensor h1 = ops::narrow(h, 0, 1, n - 1), f1 = ops::narrow(f, 0, 1, n - 1);
  const float odd = sum_of(h1, {}, 0);
  for (cpu::SimdLevel level : levels) {
    SimdCap cap(level);
    ASSERT_EQ(cpu::simd_level(), level);
    EXPECT_EQ(f32_bits(sum_of(h, {}, 0)), f32_bits(got[0])) << level_name(level);
    EXPECT_EQ(f32_bits(sum_of(hm, {1}, 77)), f32_bits(got[2])) << level_name(level);
    EXPECT_EQ(f32_bits(sum_of(h1, {}, 0)), f32_bits(odd)) << level_name(level);
    EXPECT_EQ(f32_bits(sum_of(f1, {}, 0)), f32_bits(odd)) << level_name(level);
  }
  cpu::set_num_threads(saved);
  for (float v : {got[1], got[5]}) EXPECT_EQ(f32_bits(got[0]), f32_bits(v));
  for (float v : {got[3], got[7]}) EXPECT_EQ(f32_bits(got[2]), f32_bits(v));
  double ref = 0;
  for (int64_t i = 0; i < n; ++i) ref += static_cast<float>(hp[i]);
  EXPECT_NEAR(got[0], ref, 1e-6 * std::fabs(ref) + 1e-3);
  double row = 0;
  for (int64_t i = 77 * 1024; i < 78 * 1024; ++i) row += static_cast<float>(hp[i]);
  EXPECT_EQ(got[2], static_cast<float>(row));  // 1024 values: exact in double, one rounding
  double col = 0;
  for (int64_t i = 5 * 1024; i < 6 * 1024; ++i) col += static_cast<float>(hp[i]);
  EXPECT_EQ(got[4], static_cast<float>(col));
}

namespace {
// The elements of t (any layout) in logical order, read as its storage type (one contiguous
// copy, made once: a copy per element took minutes under ASan).
template <typename T>
std::vector<T> elements(const Tensor& t) {
  Tensor c = ops::contiguous(t);
  const T* p = reinterpret_cast<const T*>(c->data());
  return std::vector<T>(p, p + c->numel());
}

// A [rows, cols] tensor of dtype D with every 16-bit pattern, starting at `first`.
template <typename D>
Tensor patterns(DType dt, int64_t rows, int64_t cols, uint32_t first) {
  Tensor t = empty_tensor({rows, cols}, dt, Device{});
  D* p = reinterpret_cast<D*>(t->data());
  for (int64_t i = 0; i < rows * cols; ++i) p[i].x = static_cast<uint16_t>(first + 7919u * static_cast<uint32_t>(i));
  return t;
}

// Every element of ops on float16/bfloat16 operands (contiguous, transposed, broadcast, in
// place into a transposed view) as the per-element definition gives it: inputs widened to
// float, one float op, one rounding (Note [CPU elementwise inner loops]), bit for bit but for
// NaNs.
template <typename D>
void check_reduced_float_ops(DType dt) {
  const int64_t r = 300, c = 257;  // runs longer and shorter than the buffers, odd tails
  Tensor a = patterns<D>(dt, r, c, 1), b = patterns<D>(dt, r, c, 12345), row = patterns<D>(dt, 1, c, 999);
  auto f = [](D x) { return static_cast<float>(x); };
  // a NaN's sign and payload are unspecified (an op of two NaNs may return either): NaN is NaN
  auto bits = [](D x) { return std::isnan(static_cast<float>(x)) ? 0x7fff : x.x; };
  Tensor sum = ops::binary(BinaryOp::Add, a, b);
  Tensor tsum = ops::binary(BinaryOp::Add, ops::transpose(a, 0, 1), ops::transpose(b, 0, 1));
  Tensor bsum = ops::binary(BinaryOp::Mul, a, row);
  Tensor e = ops::unary(UnaryOp::Exp, a), te = ops::unary(UnaryOp::Exp, ops::transpose(a, 0, 1));
  Tensor inpl = ops::clone(b);
  ops::binary_(BinaryOp::Sub, ops::transpose(inpl, 0, 1), ops::transpose(a, 0, 1));
  const std::vector<D> va = elements<D>(a), vb = elements<D>(b), vrow = elements<D>(row), vsum = elements<D>(sum),
                       vtsum = elements<D>(tsum), vbsum = elements<D>(bsum), ve = elements<D>(e),
                       vte = elements<D>(te), vinpl = elements<D>(inpl);
  for (int64_t i = 0; i < r * c; ++i) {
    const int64_t ti = (i % c) * r + i / c;  // element i of a in a.t()'s order
    const D x = va[i], y = vb[i];
    ASSERT_EQ(bits(vsum[i]), bits(D(f(x) + f(y)))) << i;
    ASSERT_EQ(bits(vtsum[ti]), bits(D(f(x) + f(y)))) << i;
    ASSERT_EQ(bits(vbsum[i]), bits(D(f(x) * f(vrow[i % c])))) << i;
    ASSERT_EQ(bits(ve[i]), bits(D(std::exp(f(x))))) << i;
    ASSERT_EQ(bits(vte[ti]), bits(D(std::exp(f(x))))) << i;
    ASSERT_EQ(bits(vinpl[i]), bits(D(f(y) - f(x)))) << i;
  }
}
}  // namespace

TEST(CpuElementwise, Float16OpsRoundOnceFromFloat) { check_reduced_float_ops<Half>(DType::Float16); }
TEST(CpuElementwise, BFloat16OpsRoundOnceFromFloat) { check_reduced_float_ops<BFloat16>(DType::BFloat16); }

namespace {
// Ops on float16/bfloat16 operands at every SIMD level give the generic level's bits: a holds
// every 16-bit pattern (NaNs, infinities, -0, subnormals, the largest values, whose sums and
// products overflow), b the same patterns in another order; contiguous operands, views starting
// one element in (unaligned) with odd lengths, a broadcast scalar, in place. Only a NaN from two
// NaN inputs may differ, in its sign (which operand an add keeps is the compiler's choice).
template <typename D>
void check_levels(DType dt) {
  const int64_t n = 1 << 16;
  Tensor a = patterns<D>(dt, 1, n, 0), b = patterns<D>(dt, 1, n, 40503);
  a = ops::reshape(a, {n});
  b = ops::reshape(b, {n});
  Tensor a1 = ops::narrow(a, 0, 1, n - 3), b1 = ops::narrow(b, 0, 2, n - 3);  // unaligned, odd length
  Tensor two = wrapped_scalar_double(2.5);
  // NaNs, signaling and quiet, of both signs, among ordinary values (37: a tail after 32)
  const uint16_t nan_bits = dt == DType::Float16 ? 0x7c00 : 0x7f80, quiet = dt == DType::Float16 ? 0x200 : 0x40;
  Tensor nans = empty_tensor({37}, dt, Device{}), zeros = empty_tensor({37}, dt, Device{}),
         ones = empty_tensor({37}, dt, Device{});
  for (int64_t i = 0; i < 37; ++i) {
    D* p = reinterpret_cast<D*>(nans->data()) + i;
    *p = D(static_cast<float>(i));
    if (i % 3 == 0) p->x = static_cast<uint16_t>(nan_bits | (i % 2 ? quiet : 0) | 1 | (i % 4 == 0 ? 0x8000 : 0));
    reinterpret_cast<D*>(zeros->data())[i] = D(0.0f);
    reinterpret_cast<D*>(ones->data())[i] = D(1.0f);
  }
  // results, and whether a NaN's sign may differ (arithmetic on two tensors that both hold NaNs)
  std::vector<bool> two_nans;
  auto run = [&] {
    std::vector<Tensor> r;
    two_nans.clear();
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Maximum, BinaryOp::Lt, BinaryOp::Eq, BinaryOp::Pow}) {
      r.push_back(ops::binary(op, a, b));
      r.push_back(ops::binary(op, a1, b1));
      two_nans.insert(two_nans.end(), 2, op != BinaryOp::Maximum);
    }
    // glibc's powf tells a signaling NaN from a quiet one (pow(sNaN, 0) is NaN, pow(qNaN, 0) is
    // 1): the vector loads must keep them apart
    r.push_back(ops::binary(BinaryOp::Pow, nans, zeros));
    r.push_back(ops::binary(BinaryOp::Pow, ones, nans));
    r.push_back(ops::binary(BinaryOp::Pow, nans, wrapped_scalar_double(0.0)));
    two_nans.insert(two_nans.end(), 3, false);
    r.push_back(ops::binary(BinaryOp::Mul, a1, two));
    r.push_back(ops::binary(BinaryOp::Add, ops::narrow(a, 0, 5, 1), b1));  // a 1-element tensor broadcast
    two_nans.insert(two_nans.end(), {false, false});
    for (UnaryOp op : {UnaryOp::Exp, UnaryOp::Sqrt, UnaryOp::Neg, UnaryOp::Sigmoid, UnaryOp::Relu}) {
      r.push_back(ops::unary(op, a1));
      two_nans.push_back(false);
    }
    Tensor inpl = ops::clone(b1);
    ops::binary_(BinaryOp::Sub, inpl, a1);
    r.push_back(inpl);
    two_nans.push_back(true);
    return r;
  };
  std::vector<Tensor> ref;
  {
    SimdCap cap(cpu::SimdLevel::kGeneric);
    ref = run();
  }
  for (cpu::SimdLevel level : vector_levels()) {
    std::vector<Tensor> got;
    {
      SimdCap cap(level);
      ASSERT_EQ(cpu::simd_level(), level);
      got = run();
    }
    ASSERT_EQ(got.size(), ref.size());
    for (size_t k = 0; k < ref.size(); ++k) {
      ASSERT_EQ(got[k]->dtype, ref[k]->dtype);
      ASSERT_EQ(got[k]->numel(), ref[k]->numel());
      const int64_t m = ref[k]->numel();
      if (ref[k]->dtype == DType::Bool) {
        EXPECT_EQ(std::memcmp(got[k]->data(), ref[k]->data(), m), 0) << level_name(level) << " result " << k;
        continue;
      }
      const D* g = reinterpret_cast<const D*>(got[k]->data());
      const D* e = reinterpret_cast<const D*>(ref[k]->data());
      for (int64_t i = 0; i < m; ++i) {
        if (g[i].x == e[i].x) continue;
        const bool both_nan = two_nans[k] && std::isnan(static_cast<float>(g[i])) &&
                              std::isnan(static_cast<float>(e[i])) && (g[i].x & 0x7fff) == (e[i].x & 0x7fff);
        ASSERT_TRUE(both_nan) << level_name(level) << " result " << k << " element " << i << std::hex << ": "
                              << g[i].x << " vs " << e[i].x;
      }
    }
  }
}
}  // namespace

TEST(CpuElementwise, Float16OpsGiveTheSameBitsAtEverySimdLevel) { check_levels<Half>(DType::Float16); }
TEST(CpuElementwise, BFloat16OpsGiveTheSameBitsAtEverySimdLevel) { check_levels<BFloat16>(DType::BFloat16); }

TEST(CpuElementwise, Float32ExpIsStdExp) {
  std::vector<float> x = float_samples();
  const int64_t n = static_cast<int64_t>(x.size());
  Tensor t = ops::from_buffer(x.data(), n * 4, {n}, DType::Float32, Device{});
  Tensor e = ops::unary(UnaryOp::Exp, t);
  const float* y = reinterpret_cast<const float*>(e->data());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(f32_bits(y[i]), f32_bits(std::exp(x[i]))) << std::hex << f32_bits(x[i]);
}
