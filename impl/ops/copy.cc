#include <cmath>
#include <cstring>

#include "impl/core/error.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

template <typename To, typename From>
void cast_loop(const cpu::StridedOperands<2>& o) {
  cpu::for_each<2>(o, cpu::kGrainSize, [](std::array<char*, 2> p, const std::array<int64_t, 2>& st, int64_t n) {
    if (st[0] == sizeof(To) && st[1] == sizeof(From)) {
      To* d = reinterpret_cast<To*>(p[0]);
      const From* s = reinterpret_cast<const From*>(p[1]);
      if constexpr (std::is_same_v<To, From>) {
        std::memcpy(d, s, n * sizeof(To));
      } else {
        for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<To>(s[i]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<To*>(p[0] + i * st[0]) = cpu::convert<To>(*reinterpret_cast<const From*>(p[1] + i * st[1]));
      }
    }
  });
}

void check_cpu(const Tensor& t, const char* op) {
  CT_CHECK(t->device().is_cpu(), CT_ERR_NOT_SUPPORTED, op, ": tensors on ", t->device().str(),
           " are not supported in this version of ctorch");
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src) {
  check_cpu(dst, "copy_");
  check_cpu(src, "copy_");
  Shape b = broadcast_shapes(dst->sizes, src->sizes);
  CT_CHECK(b == dst->sizes, CT_ERR_SHAPE, "copy_: the source of shape ", shape_str(src->sizes),
           " can't be broadcast to the destination shape ", shape_str(dst->sizes));
  if (dst->numel() == 0) return;
  Tensor s = src;
  if (src->storage == dst->storage && src.get() != dst.get()) s = clone(src);  // overlapping
  if (src.get() == dst.get()) return;
  auto o = cpu::make_operands<2>(dst->sizes, {dst.get(), s.get()});
  CT_DISPATCH_ALL(dst->dtype, "copy_", [&] {
    using To = scalar_t;
    CT_DISPATCH_ALL(s->dtype, "copy_", [&] { cast_loop<To, scalar_t>(o); });
  });
}

Tensor clone(const Tensor& t) {
  Tensor out = empty_tensor(t->sizes, t->dtype, t->device());
  copy_(out, t);
  return out;
}

Tensor contiguous(const Tensor& t) { return t->is_contiguous() ? t : clone(t); }

Tensor to(const Tensor& t, Device dev, DType dtype, bool copy) {
  if (!copy && dev == t->device() && dtype == t->dtype) return t;
  Tensor out = empty_tensor(t->sizes, dtype, dev);
  copy_(out, t);
  return out;
}

void copy_to_buffer(const Tensor& t, void* data, int64_t nbytes) {
  int64_t need = t->numel() * t->itemsize();
  CT_CHECK(nbytes == need, CT_ERR_BUFFER_SIZE, "copy_to_buffer: buffer has ", nbytes,
           " bytes but the tensor of shape ", shape_str(t->sizes), " and dtype ", dtype_name(t->dtype),
           " needs exactly ", need);
  if (need == 0) return;
  CT_CHECK(data != nullptr, CT_ERR_NULL_POINTER, "copy_to_buffer: data is NULL");
  check_cpu(t, "copy_to_buffer");
  if (t->is_contiguous()) {
    std::memcpy(data, t->data(), need);
    return;
  }
  Tensor c = clone(t);
  std::memcpy(data, c->data(), need);
}

Tensor from_buffer(const void* data, int64_t nbytes, const Shape& sizes, DType dtype, Device dev) {
  int64_t n = numel_of(sizes);
  int64_t need = n * itemsize(dtype);
  CT_CHECK(nbytes == need, CT_ERR_BUFFER_SIZE, "from_buffer: buffer has ", nbytes,
           " bytes but shape ", shape_str(sizes), " of ", dtype_name(dtype), " needs exactly ", need);
  CT_CHECK(data != nullptr || need == 0, CT_ERR_NULL_POINTER, "from_buffer: data is NULL");
  Tensor out = empty_tensor(sizes, dtype, dev);
  if (need) std::memcpy(out->data(), data, need);
  return out;
}

namespace {
Tensor single(const Tensor& t, const char* what) {
  CT_CHECK(t->numel() == 1, CT_ERR_SHAPE, "a Tensor with ", t->numel(),
           " elements cannot be converted to Scalar (", what, ")");
  return t;
}
}  // namespace

double item_double(const Tensor& t) {
  single(t, "item");
  double v = 0;
  Tensor out = empty_tensor({}, DType::Float64, Device{});
  copy_(out, t->dim() == 0 ? t : make_view(t, {}, {}, t->offset));
  std::memcpy(&v, out->data(), sizeof v);
  return v;
}

int64_t item_int64(const Tensor& t) {
  single(t, "item");
  Tensor src = t->dim() == 0 ? t : make_view(t, {}, {}, t->offset);
  if (is_floating(t->dtype) || is_complex(t->dtype)) {
    double v = item_double(src);
    CT_CHECK(std::isfinite(v), CT_ERR_ARGUMENT, "item: cannot convert ", v, " to an integer");
    CT_CHECK(v > -9.3e18 && v < 9.3e18, CT_ERR_ARGUMENT, "item: value ", v, " does not fit in int64");
    return static_cast<int64_t>(v);
  }
  Tensor out = empty_tensor({}, DType::Int64, Device{});
  copy_(out, src);
  int64_t v = 0;
  std::memcpy(&v, out->data(), sizeof v);
  return v;
}

std::pair<double, double> item_complex(const Tensor& t) {
  single(t, "item");
  Tensor out = empty_tensor({}, DType::Complex128, Device{});
  copy_(out, t->dim() == 0 ? t : make_view(t, {}, {}, t->offset));
  double v[2];
  std::memcpy(v, out->data(), sizeof v);
  return {v[0], v[1]};
}

}  // namespace ct::ops
