// Tensor = storage + sizes + strides + offset + dtype. Storage is shared by views.
//
// Note [Tensor allocation]: a small op's host cost is dominated by making and freeing its
// result (bench/NOTES.md, "Host cost of a small op"), so a fresh tensor is one heap
// allocation: the TensorImpl, its Storage (the memory's owner, whose destructor gives the
// memory back to the allocator) and its sizes and strides. Two choices make it so:
// - Shape is SmallVec<int64_t, kInlineDims> (impl/core/small_vector.h): sizes and strides of
//   up to kInlineDims dims live inside the TensorImpl (PyTorch keeps 5 inline), and so do the
//   shapes an op computes on the way (broadcast shape, collapsed strides of the elementwise
//   engine); more dims spill to the heap.
// - empty_tensor makes one object, a TensorImpl with its Storage as a member (TensorWithStorage
//   in tensor.cc), with std::make_shared, so object, storage and reference counts share one
//   block. TensorImpl::storage is therefore a plain pointer, and storage_owner is what keeps
//   the storage alive when it is not the tensor's own: a view holds a reference to the tensor
//   whose storage it uses (or to that tensor's owner, when the base is a view itself). The
//   memory is freed, as before, when the last tensor using it goes away; a view only also keeps
//   its base's metadata (a few hundred bytes) until then. Code that keeps a storage beyond the
//   tensor it came from takes storage_ref(t), never the raw pointer.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "impl/core/data_ptr.h"
#include "impl/core/device.h"
#include "impl/core/dtype.h"
#include "impl/core/small_vector.h"

namespace ct {

// Dims kept inline by Shape (Note [Tensor allocation]).
constexpr size_t kInlineDims = 6;
using Shape = SmallVec<int64_t, kInlineDims>;

// A block of memory on one device. Freed (by its DataPtr, Note [DataPtr]) when the last tensor
// using it goes away.
struct Storage {
  DataPtr data_ptr;
  int64_t nbytes = 0;
  Storage(DataPtr d, int64_t n) : data_ptr(std::move(d)), nbytes(n) {}
  void* data() const { return data_ptr.get(); }
  const Device& device() const { return data_ptr.device(); }
};

struct TensorImpl {
  Storage* storage = nullptr;           // never null in a tensor made by the functions below
  std::shared_ptr<void> storage_owner;  // keeps *storage alive; empty when it is this object's own
  Shape sizes;
  Shape strides;  // in elements
  int64_t offset = 0;  // in elements
  DType dtype = DType::Float32;
  // A 0-dim tensor made from a Python-style scalar: takes part in type promotion with lower
  // priority than any real tensor (PyTorch's "wrapped number").
  bool wrapped_number = false;

  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  const Device& device() const { return storage->device(); }
  int64_t itemsize() const { return ct::itemsize(dtype); }
  char* data() const { return static_cast<char*>(storage->data()) + offset * itemsize(); }
  bool is_contiguous() const;
};

using Tensor = std::shared_ptr<TensorImpl>;

// An owning reference to t's storage (aliasing whatever keeps it alive).
std::shared_ptr<Storage> storage_ref(const Tensor& t);

Shape contiguous_strides(const Shape& sizes);
int64_t numel_of(const Shape& sizes);  // checks sizes >= 0 and overflow
std::string shape_str(const Shape& s);  // "[2, 3]"

// A new contiguous tensor with uninitialized data, its memory from the allocator registered for
// the device (Note [Allocator hook]). device must be resolved.
Tensor empty_tensor(Shape sizes, DType dtype, Device device, bool pinned = false);
// A view of base's storage.
Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset);
// A 0-dim "wrapped number" scalar tensor on the CPU.
Tensor wrapped_scalar_double(double v);
Tensor wrapped_scalar_int(int64_t v);

// Wraps a possibly negative dim into [0, ndim); throws Status::Index with PyTorch's message.
int64_t wrap_dim(int64_t dim, int64_t ndim);

}  // namespace ct
