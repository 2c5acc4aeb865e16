// Unit tests of the C++ core (impl/), below the C ABI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "impl/core/device.h"
#include "impl/core/dtype.h"
#include "impl/core/error.h"
#include "impl/core/half.h"
#include "impl/ops/ops.h"

using namespace ct;

namespace {
constexpr DType u1 = DType::UInt8, i1 = DType::Int8, i2 = DType::Int16, i4 = DType::Int32, i8 = DType::Int64,
                f2 = DType::Float16, f4 = DType::Float32, f8 = DType::Float64, c4 = DType::Complex64,
                c8 = DType::Complex128, b1 = DType::Bool, bf = DType::BFloat16;
}

// PyTorch's promotion table (c10/core/ScalarType.cpp), restricted to our 12 dtypes.
TEST(DType, PromotionTableMatchesPyTorch) {
  const DType order[12] = {u1, i1, i2, i4, i8, f2, f4, f8, c4, c8, b1, bf};
  const DType table[12][12] = {
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c4, c8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c4, c8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c4, c8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c4, c8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c4, c8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c4, c8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, f8, f8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c8, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c4, c8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c8, bf, bf},
  };
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      EXPECT_EQ(promote_types(order[a], order[b]), table[a][b]) << dtype_name(order[a]) << " + " << dtype_name(order[b]);
}

TEST(DType, CanCast) {
  EXPECT_TRUE(can_cast(i8, f4));
  EXPECT_FALSE(can_cast(f4, i8));
  EXPECT_FALSE(can_cast(c4, f8));
  EXPECT_FALSE(can_cast(i4, b1));
  EXPECT_TRUE(can_cast(b1, u1));
  EXPECT_TRUE(can_cast(f8, f2));
}

TEST(Half, RoundTripsEveryHalfValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = Half::to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half::from_float(f), h) << std::hex << h;
  }
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go to even (1).
  EXPECT_EQ(Half::from_float(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(Half::from_float(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(Half::from_float(65520.0f), 0x7c00);  // rounds to inf
  EXPECT_EQ(Half::from_float(65519.0f), 0x7bff);
  EXPECT_EQ(Half::from_float(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(Half::from_float(std::ldexp(1.0f, -25)), 0x0000);  // tie -> even (0)
  EXPECT_EQ(Half::from_float(-0.0f), 0x8000);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16::from_float(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16::from_float(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie -> even
  EXPECT_EQ(BFloat16::from_float(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie -> even
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(NAN))));
}

TEST(Device, ParseAndPrint) {
  EXPECT_EQ(parse_device("cuda:3").index, 3);
  EXPECT_EQ(parse_device("cuda").str(), "cuda");
  EXPECT_EQ(parse_device("cpu").str(), "cpu");
  EXPECT_EQ(parse_device("cuda:10").str(), "cuda:10");
  for (const char* bad : {"cuda:", "cuda:+1", "cuda:1:2", "tpu", "cpu:3", "cuda:99999999999"}) {
    try {
      parse_device(bad);
      ADD_FAILURE() << bad << " parsed";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), CT_ERR_DEVICE_STRING) << bad;
    }
  }
}

TEST(ResultType, WrappedNumbersAndZeroDim) {
  Tensor i32 = empty_tensor({3}, i4, Device{});
  Tensor f16 = empty_tensor({3}, f2, Device{});
  Tensor z64 = empty_tensor({}, f8, Device{});
  Tensor zi64 = empty_tensor({}, i8, Device{});
  EXPECT_EQ(ops::result_type({i32, wrapped_scalar_double(2.5)}), f4);
  EXPECT_EQ(ops::result_type({i32, wrapped_scalar_int(2)}), i4);
  EXPECT_EQ(ops::result_type({f16, wrapped_scalar_double(2.5)}), f2);
  EXPECT_EQ(ops::result_type({i32, z64}), f8);
  EXPECT_EQ(ops::result_type({i32, zi64}), i4);
  EXPECT_EQ(ops::result_type({f16, z64}), f2);
  EXPECT_EQ(ops::result_type({z64, wrapped_scalar_int(1)}), f8);
  EXPECT_EQ(ops::result_type({zi64, wrapped_scalar_double(1.5)}), f4);
}

TEST(Views, ViewStridesFollowPyTorch) {
  Tensor t = empty_tensor({2, 3, 4}, f4, Device{});
  Tensor p = ops::permute(t, {1, 0, 2});  // (3, 2, 4), strides (4, 12, 1)
  Tensor v = ops::view(p, {3, 2, 2, 2});  // splitting the last dim is fine
  EXPECT_EQ(v->strides, (Shape{4, 12, 2, 1}));
  EXPECT_THROW(ops::view(p, {6, 4}), Error);  // merging dims 0 and 1 is not
  Tensor r = ops::reshape(p, {6, 4});
  EXPECT_NE(r->storage, t->storage);
  Tensor e = ops::expand(ops::unsqueeze(ops::select(t, 0, 0), 0), {5, 3, 4});
  EXPECT_EQ(e->strides, (Shape{0, 4, 1}));
}

TEST(Elementwise, NonContiguousAndBroadcastMatchContiguous) {
  // a strided (transposed) operand and a broadcast operand give the same result as copies
  Tensor a = ops::arange(0, 24, 1, f8, Device{});
  Tensor m = ops::transpose(ops::view(a, {4, 6}), 0, 1);  // (6, 4) non-contiguous
  Tensor b = ops::arange(0, 4, 1, f8, Device{});
  Tensor r1 = ops::binary(CT_MUL, m, b);
  Tensor r2 = ops::binary(CT_MUL, ops::clone(m), ops::clone(ops::expand(b, {6, 4})));
  ASSERT_EQ(r1->sizes, r2->sizes);
  // laid out as the first operand is iterated (PyTorch's TensorIterator: (m * b).stride() == (1, 6))
  EXPECT_EQ(r1->strides, (Shape{1, 6}));
  EXPECT_EQ(r2->strides, (Shape{4, 1}));
  Tensor c1 = ops::contiguous(r1);
  const double* x = reinterpret_cast<const double*>(c1->data());
  const double* y = reinterpret_cast<const double*>(r2->data());
  for (int i = 0; i < 24; ++i) {
    int row = i / 4, col = i % 4;
    EXPECT_EQ(x[i], y[i]);
    EXPECT_EQ(x[i], static_cast<double>((col * 6 + row) * col));
  }
}
