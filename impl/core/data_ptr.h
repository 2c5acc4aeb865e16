// A pointer to a device's memory together with what frees it, as c10::DataPtr.
//
// Note [DataPtr]: core owns no allocator. A Storage holds a DataPtr: the data address, a
// context (what the allocator needs to free it: the address itself for host memory, the
// caching allocator's block, ...), the function that frees that context, and the device. The
// allocators in impl/alloc produce DataPtrs and register themselves here at load time (Note
// [Allocator hook]), so core depends on nothing above it while empty_tensor still allocates
// on any device. The allocator that made a DataPtr recognizes it by its deleter (as c10's
// CachingHostAllocator does), e.g. for record_stream or "is this memory pinned?".
#pragma once
#include <cstdint>
#include <memory>

#include "impl/core/device.h"

namespace ct {

using DeleterFn = void (*)(void* context);

inline void delete_nothing(void*) {}

class DataPtr {
 public:
  DataPtr() : ctx_(nullptr, &delete_nothing) {}
  // Memory owned elsewhere (nothing is freed).
  DataPtr(void* data, Device device) : data_(data), ctx_(nullptr, &delete_nothing), device_(device) {}
  // Memory freed by deleter(context) when the DataPtr goes (a null context frees nothing).
  DataPtr(void* data, void* context, DeleterFn deleter, Device device)
      : data_(data), ctx_(context, deleter ? deleter : &delete_nothing), device_(device) {}

  void* get() const { return data_; }
  void* context() const { return ctx_.get(); }
  DeleterFn deleter() const { return ctx_.get_deleter(); }
  const Device& device() const { return device_; }
  explicit operator bool() const { return data_ != nullptr; }

 private:
  void* data_ = nullptr;
  std::unique_ptr<void, DeleterFn> ctx_;
  Device device_;
};

// Note [Allocator hook]: the memory of a device type comes from the function set here;
// impl/alloc sets it for CPU (plain and pinned host memory) and CUDA when it is loaded (a
// static initializer; the library target is alwayslink). Throws Status::Internal when no
// allocator is set for the device type.
using AllocatorFn = DataPtr (*)(int64_t nbytes, Device device, bool pinned);
void set_allocator(DeviceType type, AllocatorFn fn);
DataPtr allocate_bytes(int64_t nbytes, Device device, bool pinned = false);

}  // namespace ct
