// Unit tests of the C++ core (impl/), below the C ABI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "impl/core/device.h"
#include "impl/core/dtype.h"
#include "impl/core/error.h"
#include "impl/core/half.h"
#include "impl/core/small_vector.h"
#include "impl/ops/cpu/loops.h"
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
      EXPECT_EQ(e.code(), Status::DeviceString) << bad;
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
  Tensor r1 = ops::binary(BinaryOp::Mul, m, b);
  Tensor r2 = ops::binary(BinaryOp::Mul, ops::clone(m), ops::clone(ops::expand(b, {6, 4})));
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

// Note [Tensor allocation]: SmallVec keeps up to N values inline and spills to the heap.
TEST(SmallVec, InlineAndHeapBehaveAsVector) {
  using V = SmallVec<int64_t, 6>;
  V a{1, 2, 3};
  V b = a;
  EXPECT_EQ(b, a);
  b.resize(5);
  EXPECT_EQ(b, (V{1, 2, 3, 0, 0}));
  b.resize(9, 7);  // spills
  EXPECT_EQ(b, (V{1, 2, 3, 0, 0, 7, 7, 7, 7}));
  V c(b);
  EXPECT_EQ(c, b);
  V d(std::move(c));
  EXPECT_EQ(d, b);
  EXPECT_TRUE(c.empty());
  c = d;
  EXPECT_EQ(c, d);
  c = V{4};
  EXPECT_EQ(c, (V{4}));
  c.insert(c.begin(), 9);
  c.insert(c.begin() + 1, d.begin(), d.end());
  EXPECT_EQ(c.size(), 11u);
  EXPECT_EQ(c[1], 1);
  EXPECT_EQ(c[10], 4);
  c.erase(c.begin() + 1, c.begin() + 10);
  EXPECT_EQ(c, (V{9, 4}));
  V e(3, 5);
  EXPECT_EQ(e, (V{5, 5, 5}));
  e.assign(8, 2);
  e.insert(e.begin(), e.begin(), e.end());  // a range of the vector itself
  EXPECT_EQ(e, V(16, 2));
  std::vector<int64_t> sv{1, 2, 3};
  V h = sv;
  EXPECT_EQ(h, a);
  EXPECT_EQ(h.vec(), sv);
  V big(10);
  big = V{1};  // a heap vector assigned a short one
  EXPECT_EQ(big, (V{1}));
  V m;
  m = V(12, 3);
  V n = std::move(m);
  EXPECT_EQ(n, V(12, 3));
  EXPECT_TRUE(m.empty());
  m.push_back(4);
  EXPECT_EQ(m, (V{4}));
  m.swap(n);
  EXPECT_EQ(m, V(12, 3));
  EXPECT_EQ(n, (V{4}));
  EXPECT_TRUE((V{1, 2}) < (V{1, 3}));
  EXPECT_NE((V{1, 2}), (V{1, 2, 0}));
}

// Note [Tensor allocation]: a fresh tensor holds its storage; views keep it alive after the
// tensor is gone, and storage_ref does too.
TEST(TensorAllocation, ViewsAndStorageRefKeepTheStorage) {
  Tensor t = ops::arange(0, 24, 1, f4, Device{});
  Storage* st = t->storage;
  EXPECT_FALSE(t->storage_owner);
  Tensor v = ops::view(t, {2, 3, 4});
  Tensor w = ops::select(v, 0, 1);  // a view of a view
  EXPECT_EQ(v->storage, st);
  EXPECT_EQ(w->storage, st);
  std::shared_ptr<Storage> ref = storage_ref(w);
  EXPECT_EQ(ref.get(), st);
  std::weak_ptr<TensorImpl> base = t;
  t.reset();
  v.reset();
  EXPECT_FALSE(base.expired());  // w keeps its base alive, and with it the storage
  EXPECT_EQ(reinterpret_cast<const float*>(w->data())[5], 17.0f);
  w.reset();
  EXPECT_FALSE(base.expired());  // and so does ref
  EXPECT_EQ(static_cast<const float*>(ref->data())[23], 23.0f);
  ref.reset();
  EXPECT_TRUE(base.expired());
  // more dims than kept inline
  Tensor big = empty_tensor(Shape(9, 2), f4, Device{});
  EXPECT_EQ(big->numel(), 512);
  EXPECT_EQ(big->strides, (Shape{256, 128, 64, 32, 16, 8, 4, 2, 1}));
  Tensor p = ops::permute(big, {8, 7, 6, 5, 4, 3, 2, 1, 0});
  EXPECT_EQ(ops::contiguous(p)->strides, big->strides);
}

namespace {
// The general computations of strides_for and make_operands (before Note [Dense operands
// shortcut]), as a reference for the shortcut.
Shape general_strides_for(const Shape& shape, const std::vector<const TensorImpl*>& ins) {
  std::vector<Shape> st;
  std::vector<const Shape*> ptrs;
  st.reserve(ins.size());
  for (const TensorImpl* t : ins) {
    if (t->dim() == 0) continue;
    st.push_back(cpu::broadcast_strides(shape, t));
    ptrs.push_back(&st.back());
  }
  if (ptrs.empty()) return contiguous_strides(shape);
  // Dims in iteration order, fastest first: each stride is the product of the sizes (0 read
  // as 1) of the dims before it in that order.
  Shape perm = cpu::iteration_order(shape, ptrs.data(), ptrs.size());
  Shape out(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out[perm[i]] = 1;
    for (size_t j = 0; j < i; ++j) out[perm[i]] *= std::max<int64_t>(shape[perm[j]], 1);
  }
  return out;
}

cpu::StridedOperands<3> general_operands(const Shape& shape, const std::array<const TensorImpl*, 3>& ts) {
  cpu::StridedOperands<3> ops;
  const int64_t nd = static_cast<int64_t>(shape.size());
  std::array<Shape, 3> full;
  std::array<const Shape*, 3> ptrs;
  for (size_t k = 0; k < 3; ++k) {
    full[k] = cpu::broadcast_strides(shape, ts[k]);
    ptrs[k] = &full[k];
  }
  Shape perm = cpu::iteration_order(shape, ptrs.data(), 3);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t d = perm[i];
    if (shape[d] == 1) continue;
    if (!ops.shape.empty()) {
      bool merge = true;
      for (size_t k = 0; k < 3; ++k) merge = merge && ops.strides[k].back() == full[k][d] * shape[d];
      if (merge) {
        ops.shape.back() *= shape[d];
        for (size_t k = 0; k < 3; ++k) ops.strides[k].back() = full[k][d];
        continue;
      }
    }
    ops.shape.push_back(shape[d]);
    for (size_t k = 0; k < 3; ++k) ops.strides[k].push_back(full[k][d]);
  }
  if (ops.shape.empty()) {
    ops.shape.push_back(1);
    for (size_t k = 0; k < 3; ++k) ops.strides[k].push_back(0);
  }
  return ops;
}
}  // namespace

// Note [Dense operands shortcut]: on contiguous operands (any sizes of 1 included, broadcast
// or not) the shortcut gives what the general computation gives.
TEST(Elementwise, DenseShortcutMatchesGeneralComputation) {
  std::mt19937 rng(12);
  for (int iter = 0; iter < 3000; ++iter) {
    int nd = static_cast<int>(rng() % 5);
    Shape shape(nd);
    for (auto& s : shape) s = rng() % 3 == 0 ? 1 : 1 + rng() % 3;
    auto operand = [&](bool same) {
      Shape sz = shape;
      if (!same) {
        int drop = nd > 0 ? static_cast<int>(rng() % (nd + 1)) : 0;
        sz.erase(sz.begin(), sz.begin() + drop);
        for (auto& s : sz)
          if (rng() % 3 == 0) s = 1;
      }
      return empty_tensor(sz, rng() % 2 ? f4 : f8, Device{});
    };
    Tensor a = operand(iter % 4 == 0), b = operand(iter % 4 == 0);
    EXPECT_EQ(cpu::strides_for(shape, {a.get(), b.get()}), general_strides_for(shape, {a.get(), b.get()}))
        << shape_str(shape) << " " << shape_str(a->sizes) << " " << shape_str(b->sizes);
    Tensor out = empty_tensor(shape, f4, Device{});
    auto o = cpu::make_operands<3>(shape, {out.get(), a.get(), b.get()});
    auto g = general_operands(shape, {out.get(), a.get(), b.get()});
    EXPECT_EQ(o.shape, g.shape) << shape_str(shape) << " " << shape_str(a->sizes) << " " << shape_str(b->sizes);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(o.strides[k], g.strides[k]) << shape_str(shape) << " operand " << k;
  }
}
