#include "impl/core/tensor.h"

#include <cstring>
#include <sstream>

#include "impl/core/error.h"

namespace ct {

bool TensorImpl::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes[i] == 1) continue;
    if (sizes[i] == 0) return true;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    // an empty tensor may have huge sizes (0 x 2^62 x 4): its strides must still fit, as in
    // PyTorch ("Stride calculation overflowed")
    CT_CHECK(i == 0 || !__builtin_mul_overflow(acc, sizes[i] > 0 ? sizes[i] : 1, &acc), Status::Shape,
             "stride calculation overflowed for shape ", shape_str(sizes));
  }
  return st;
}

int64_t numel_of(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    CT_CHECK(s >= 0, Status::Shape, "Trying to create tensor with negative dimension ", s, ": ",
             shape_str(sizes));
    CT_CHECK(!__builtin_mul_overflow(n, s, &n), Status::Shape, "shape ", shape_str(sizes),
             " has more elements than fit in int64");
  }
  return n;
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

namespace {
// A fresh tensor: the TensorImpl and its storage in one object (Note [Tensor allocation]).
// The storage member is destroyed (its memory freed) when the last reference to this object
// goes: the tensor's own, and those that views hold through storage_owner.
struct TensorWithStorage final : TensorImpl {
  Storage own;
  TensorWithStorage(int64_t nbytes, Device device, bool pinned)
      : own(allocate_bytes(nbytes, device, pinned), nbytes) {
    storage = &own;
  }
};
}  // namespace

std::shared_ptr<Storage> storage_ref(const Tensor& t) {
  if (t->storage_owner) return std::shared_ptr<Storage>(t->storage_owner, t->storage);
  return std::shared_ptr<Storage>(t, t->storage);
}

Tensor empty_tensor(Shape sizes, DType dtype, Device device, bool pinned) {
  int64_t nbytes;
  CT_CHECK(!__builtin_mul_overflow(numel_of(sizes), itemsize(dtype), &nbytes), Status::OutOfMemory, "shape ",
           shape_str(sizes), " needs more bytes than fit in int64");
  Shape strides = contiguous_strides(sizes);
  int64_t span;  // the kernels step in bytes: the largest stride must fit in bytes too
  CT_CHECK(strides.empty() || !__builtin_mul_overflow(strides[0], itemsize(dtype), &span), Status::Shape,
           "stride calculation overflowed for shape ", shape_str(sizes), " of ", dtype_name(dtype));
  Tensor t = std::make_shared<TensorWithStorage>(nbytes, device, pinned);
  t->strides = std::move(strides);
  t->sizes = std::move(sizes);
  t->dtype = dtype;
  return t;
}

Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset) {
  auto t = std::make_shared<TensorImpl>();
  t->storage = base->storage;
  t->storage_owner = base->storage_owner ? base->storage_owner : std::shared_ptr<void>(base);
  t->sizes = std::move(sizes);
  t->strides = std::move(strides);
  t->offset = offset;
  t->dtype = base->dtype;
  return t;
}

Tensor wrapped_scalar_double(double v) {
  Tensor t = empty_tensor({}, DType::Float64, Device{});
  std::memcpy(t->data(), &v, sizeof v);
  t->wrapped_number = true;
  return t;
}

Tensor wrapped_scalar_int(int64_t v) {
  Tensor t = empty_tensor({}, DType::Int64, Device{});
  std::memcpy(t->data(), &v, sizeof v);
  t->wrapped_number = true;
  return t;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;  // scalars accept dims -1 and 0, as in PyTorch
  CT_CHECK(dim >= -n && dim < n, Status::Index, "Dimension out of range (expected to be in range of [",
           -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

}  // namespace ct
