// One allocation interface for every device.
//
// CPU memory is 64-byte aligned host memory; pinned host memory comes from cudaHostAlloc.
// CUDA memory comes from the caching allocator (Note [Caching allocator policy]) on the
// device's current stream, or, with CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, from
// CUDA's stream-ordered allocator (cudaMallocAsync on the current stream, from the device's
// default pool, whose release threshold is raised so freed memory stays cached).
//
// Note [Stream-ordered free] (cudaMallocAsync backend): a block is freed with cudaFreeAsync on the stream it was
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
  std::vector<std::shared_ptr<void>> used_on;  // streams from record_stream (cudaMallocAsync backend)
  void* cblock = nullptr;                      // the caching allocator's block (native backend)
  bool pluggable = false;                      // from the user's allocator (Note [Pluggable allocator])
};

Block allocate(int64_t nbytes, Device device, bool pinned = false);  // throws OOM / CUDA errors
void deallocate(Block& b) noexcept;
void record_stream(Block& b, std::shared_ptr<void> stream);

}  // namespace ct::alloc
