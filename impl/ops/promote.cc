// Note [Type promotion]: torch.result_type. Operands fall in three priority classes: tensors
// with dims, 0-dim tensors, and wrapped numbers (Python scalars). Within a class dtypes
// promote with promote_types; a lower class only matters when its category (bool < integral
// < floating < complex) is higher than the higher class's. Wrapped numbers count with the
// default dtype of their category (float -> float32, complex -> complex64, int -> int64).
#include "impl/core/error.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

int category(DType d) {
  if (d == DType::Bool) return 0;
  if (is_integral(d, false)) return 1;
  if (is_floating(d)) return 2;
  return 3;
}

struct State {
  bool has = false;
  DType d = DType::Bool;
  void add(DType x) {
    d = has ? promote_types(d, x) : x;
    has = true;
  }
};

// PyTorch's combine_categories(higher, lower)
State combine(State higher, State lower) {
  if (!higher.has) return lower;
  if (!lower.has) return higher;
  if (category(higher.d) >= category(lower.d)) {
    // same or lower category below: the higher class wins, except that a complex lower class
    // is handled below and a bool higher class promotes
    if (is_complex(higher.d)) return higher;
    if (is_floating(higher.d)) return higher;
    if (higher.d == DType::Bool) { higher.d = promote_types(higher.d, lower.d); return higher; }
    return higher;
  }
  // lower class has a higher category
  if (is_complex(lower.d)) {
    if (is_floating(higher.d)) { higher.d = to_complex(higher.d); return higher; }
    return lower;
  }
  if (is_floating(lower.d)) {
    // higher is bool or integral: the float of the lower class wins
    return lower;
  }
  // lower is integral, higher is bool
  higher.d = promote_types(higher.d, lower.d);
  return higher;
}

// Over a range of Tensors or TensorImpl pointers.
template <typename It>
DType result_type_of(It first, It last) {
  State dim, zero, wrapped;
  for (It it = first; it != last; ++it) {
    const TensorImpl& t = **it;
    if (t.wrapped_number) {
      DType d = t.dtype;
      if (is_floating(d)) d = kDefaultFloat;
      else if (is_complex(d)) d = kDefaultComplex;
      wrapped.add(d);
    } else if (t.dim() == 0) {
      zero.add(t.dtype);
    } else {
      dim.add(t.dtype);
    }
  }
  State r = combine(dim, combine(zero, wrapped));
  CT_CHECK(r.has, Status::Internal, "result_type of no operands");
  return r.d;
}

template <typename It>
Device common_device_of(It first, It last, const char* op) {
  // 0-dim CPU tensors act as scalars and may mix with tensors on any device.
  const TensorImpl* found = nullptr;
  for (It it = first; it != last; ++it) {
    const TensorImpl& t = **it;
    if (t.device().is_cpu() && t.dim() == 0) continue;
    if (!found) { found = &t; continue; }
    if (t.device() != found->device()) {
      fail(Status::Device, op, ": Expected all tensors to be on the same device, but found at least two devices, ",
           found->device().str(), " and ", t.device().str(), "!");
    }
  }
  return found ? found->device() : Device{};
}

}  // namespace

DType result_type(const std::vector<Tensor>& ts) { return result_type_of(ts.begin(), ts.end()); }
DType result_type(std::initializer_list<const TensorImpl*> ts) { return result_type_of(ts.begin(), ts.end()); }

Device common_device(const std::vector<Tensor>& ts, const char* op) { return common_device_of(ts.begin(), ts.end(), op); }
Device common_device(std::initializer_list<const TensorImpl*> ts, const char* op) {
  return common_device_of(ts.begin(), ts.end(), op);
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else
      fail(Status::Shape, "The size of tensor a (", da, ") must match the size of tensor b (", db,
           ") at non-singleton dimension ", i, " (shapes ", shape_str(a), " and ", shape_str(b),
           " cannot be broadcast together)");
  }
  return out;
}

}  // namespace ct::ops
