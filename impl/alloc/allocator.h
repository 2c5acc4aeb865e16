// One allocation interface for every device.
//
// CPU memory is 64-byte aligned host memory; pinned host memory comes from cudaHostAlloc.
// CUDA memory is stream-ordered (cudaMallocAsync on the current stream of the device, from the
// device's default memory pool, which keeps freed memory cached: its release threshold is
// raised to "never"). The caching allocator of the next issue replaces this behind the same
// interface.
//
// Note [Stream-ordered free]: a block is freed with cudaFreeAsync on the stream it was
// allocated on, so later work on that stream can reuse it at once. Streams passed to
// record_stream get an event each, which the allocation stream waits for before the free, so
// the memory is not reused while work on those streams may still read it.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "impl/core/device.h"

namespace ct::alloc {

struct Block {
  void* ptr = nullptr;
  int64_t nbytes = 0;
  Device device;
  bool pinned = false;                         // CPU block from cudaHostAlloc
  std::shared_ptr<void> stream;                // cuda::StreamImpl the block was allocated on
  std::vector<std::shared_ptr<void>> used_on;  // streams from record_stream
};

Block allocate(int64_t nbytes, Device device, bool pinned = false);  // throws OOM / CUDA errors
void deallocate(Block& b) noexcept;
void record_stream(Block& b, std::shared_ptr<void> stream);

}  // namespace ct::alloc
