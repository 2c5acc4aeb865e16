#include "impl/core/data_ptr.h"

#include "impl/core/error.h"

namespace ct {

namespace {
// Set by static initializers before any tensor exists, read on every allocation.
AllocatorFn g_allocators[2] = {nullptr, nullptr};

int slot(DeviceType type) { return type == DeviceType::CUDA ? 1 : 0; }
}  // namespace

void set_allocator(DeviceType type, AllocatorFn fn) { g_allocators[slot(type)] = fn; }

DataPtr allocate_bytes(int64_t nbytes, Device device, bool pinned) {
  AllocatorFn fn = g_allocators[slot(device.type)];
  CT_CHECK(fn != nullptr, Status::Internal, "no allocator is registered for ", device.str(),
           " memory (link //impl/alloc)");
  return fn(nbytes, device, pinned);
}

}  // namespace ct
