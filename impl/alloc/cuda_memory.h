// The process-wide CUDA memory setup: which backend serves device memory ("native", the
// caching allocator of caching_allocator.h, or "cudaMallocAsync", CUDA's stream-ordered pool),
// chosen once from CTORCH_CUDA_ALLOC_CONF at the first CUDA allocation, and one caching
// allocator per device.
#pragma once
#include <string>

#include "impl/alloc/caching_allocator.h"
#include "impl/alloc/host_allocator.h"

namespace ct::alloc {

const std::string& cuda_backend_name();            // "native" or "cudaMallocAsync"
DeviceCachingAllocator* caching_allocator(int device);  // nullptr with cudaMallocAsync
HostCachingAllocator& host_allocator();                 // pinned host memory (Note [Pinned memory reuse])

}  // namespace ct::alloc
