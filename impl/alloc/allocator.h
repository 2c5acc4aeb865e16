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
//
// Each allocation is a DataPtr (Note [DataPtr] in impl/core/data_ptr.h) whose deleter gives the
// memory back to where it came from; this file registers allocate() as core's allocator for
// both device types (Note [Allocator hook]).
#pragma once
#include <cstdint>

#include "impl/core/data_ptr.h"
#include "impl/cuda/stream.h"

namespace ct::alloc {

DataPtr allocate(int64_t nbytes, Device device, bool pinned = false);  // throws OOM / CUDA errors
// The memory stays allocated until the work queued on s so far is done (torch's
// Tensor.record_stream). Nothing for memory that is not CUDA memory of s's device.
void record_stream(const DataPtr& p, const cuda::Stream& s);
bool is_pinned(const DataPtr& p);  // host memory from the pinned allocator
// nbytes from the native caching allocator of s's device, on s (not the current stream);
// Status::NotSupported with another backend.
DataPtr allocate_on_stream(int64_t nbytes, const cuda::Stream& s);
// torch.cuda.empty_cache: every device's cached, unused segments go back to CUDA (never a live
// graph's pool), and the cached pinned host blocks whose copies are done. Refused during a
// capture that forbids it (Note [Illegal operations during capture]).
void empty_cache();

}  // namespace ct::alloc
