// One allocation interface for every device. CPU memory is 64-byte aligned host memory;
// CUDA device memory arrives with the CUDA runtime issue (then the caching allocator).
#pragma once
#include <cstdint>

#include "impl/core/device.h"

namespace ct::alloc {

void* allocate(int64_t nbytes, Device device);  // throws CT_ERR_OUT_OF_MEMORY / NOT_SUPPORTED
void deallocate(void* p, int64_t nbytes, Device device) noexcept;

}  // namespace ct::alloc
