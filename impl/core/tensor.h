// Tensor = storage + sizes + strides + offset + dtype. Storage is shared by views.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "impl/alloc/allocator.h"
#include "impl/core/device.h"
#include "impl/core/dtype.h"

namespace ct {

using Shape = std::vector<int64_t>;

// A block of memory on one device. Freed when the last tensor using it goes away.
struct Storage {
  void* data = nullptr;
  int64_t nbytes = 0;
  Device device;
  alloc::Block block;
  Storage(int64_t nbytes, Device device, bool pinned = false);  // allocates (throws CT_ERR_OUT_OF_MEMORY)
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;  // in elements
  int64_t offset = 0;  // in elements
  DType dtype = DType::Float32;
  // A 0-dim tensor made from a Python-style scalar: takes part in type promotion with lower
  // priority than any real tensor (PyTorch's "wrapped number").
  bool wrapped_number = false;

  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  int64_t numel() const;
  const Device& device() const { return storage->device; }
  int64_t itemsize() const { return ct::itemsize(dtype); }
  char* data() const { return static_cast<char*>(storage->data) + offset * itemsize(); }
  bool is_contiguous() const;
};

using Tensor = std::shared_ptr<TensorImpl>;

Shape contiguous_strides(const Shape& sizes);
int64_t numel_of(const Shape& sizes);  // checks sizes >= 0 and overflow
std::string shape_str(const Shape& s);  // "[2, 3]"

// A new contiguous tensor with uninitialized data. device must be resolved.
Tensor empty_tensor(Shape sizes, DType dtype, Device device, bool pinned = false);
// A view of base's storage.
Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset);
// A 0-dim "wrapped number" scalar tensor on the CPU.
Tensor wrapped_scalar_double(double v);
Tensor wrapped_scalar_int(int64_t v);

// Wraps a possibly negative dim into [0, ndim); throws CT_ERR_INDEX with PyTorch's message.
int64_t wrap_dim(int64_t dim, int64_t ndim);

}  // namespace ct
