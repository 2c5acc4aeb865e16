// The process-wide CUDA memory setup: which backend serves device memory ("native", the
// caching allocator of caching_allocator.h, or "cudaMallocAsync", CUDA's stream-ordered pool),
// chosen once from CTORCH_CUDA_ALLOC_CONF at the first CUDA allocation, and one caching
// allocator per device.
#pragma once
#include <string>

#include "impl/alloc/caching_allocator.h"
#include "impl/alloc/host_allocator.h"

namespace ct::alloc {

const std::string& cuda_backend_name();            // "native", "cudaMallocAsync" or "pluggable"

// Note [Pluggable allocator]: a user's allocate/free pair replaces the CUDA allocator, as
// torch.cuda.memory.CUDAPluggableAllocator + change_current_allocator: every CUDA tensor's
// memory then comes from it (no caching, no statistics). It can be set only before the first
// CUDA allocation of the process.
struct PluggableAllocator {
  void* (*alloc)(int64_t size, int32_t device, int64_t stream, void* ctx) = nullptr;
  void (*free)(void* ptr, int64_t size, int32_t device, int64_t stream, void* ctx) = nullptr;
  void* ctx = nullptr;
  // functions loaded from a shared library use PyTorch's signatures (no ctx):
  void* (*torch_alloc)(size_t size, int device, void* stream) = nullptr;
  void (*torch_free)(void* ptr, size_t size, int device, void* stream) = nullptr;
};
void set_pluggable_allocator(const PluggableAllocator& a);  // Status::State after the first allocation
// Sets the pluggable allocator to the functions alloc_symbol and free_symbol (PyTorch's
// signatures) of the shared library at path, which stays loaded for the life of the process.
// Status::Argument when it does not load or lacks a function.
void load_pluggable_allocator(const std::string& path, const std::string& alloc_symbol,
                              const std::string& free_symbol);
const PluggableAllocator* pluggable_allocator();             // nullptr when none
void note_cuda_allocation();                                 // the first one freezes the choice
DeviceCachingAllocator* caching_allocator(int device);  // nullptr with cudaMallocAsync
// The caching allocator of device (negative: the current one, Note [Device resolution]);
// Status::NotSupported with another backend (statistics need the native allocator).
DeviceCachingAllocator& native_allocator(int device);
HostCachingAllocator& host_allocator();                 // pinned host memory (Note [Pinned memory reuse])

}  // namespace ct::alloc
