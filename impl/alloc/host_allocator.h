// Pinned host memory from its own caching allocator, as PyTorch's CachingHostAllocator.
//
// Note [Pinned memory reuse]: sizes round up to a power of two; a freed block is cached (no
// cudaFreeHost, which would synchronize the device) and reused for a later request of its
// size class, but only after the asynchronous copies that used it have finished: each
// non_blocking copy from or into a pinned block records an event on its stream, and a freed
// block with pending events waits for them (polled, never waited on, at the next allocation).
// A user stream destroyed while a block it copied with is still allocated gets its event then
// (forget_stream, called before cudaStreamDestroy): a block never names a destroyed stream.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "impl/alloc/caching_allocator.h"

namespace ct::alloc {

class HostCachingAllocator {
 public:
  // backend: malloc/free with device -1 allocate pinned host memory; events as for devices.
  explicit HostCachingAllocator(DeviceBackend* backend) : backend_(backend) {}
  ~HostCachingAllocator();
  void* malloc(size_t size);  // throws Status::OutOfMemory
  void free(void* ptr);       // no synchronization
  // An asynchronous copy on `stream` of `device` used the block that holds ptr.
  void record_event(void* ptr, int device, void* stream);
  // `stream` of `device` is about to be destroyed: its uses become recorded events.
  void forget_stream(int device, void* stream);
  void empty_cache();         // returns free blocks whose copies are done
  int64_t allocated_bytes();  // held by tensors
  int64_t reserved_bytes();   // held from CUDA (allocated + cached)

 private:
  struct HBlock {
    size_t size;
    void* ptr;
    bool allocated = false;
    int pending = 0;  // events not yet completed (of the block's uses, recorded at free or at forget_stream)
    std::vector<std::pair<int, void*>> uses;  // (device, stream) recorded while allocated
  };
  void process_events();
  void release_free_blocks();  // back to the backend; mu_ held

  DeviceBackend* backend_;
  std::mutex mu_;
  std::unordered_map<void*, HBlock*> blocks_;       // every block, by address
  std::set<std::pair<size_t, void*>> free_;         // available blocks by (size, address)
  std::deque<std::pair<void*, HBlock*>> events_;    // (event, block) of freed blocks
  int64_t allocated_ = 0, reserved_ = 0;
};

size_t round_pow2(size_t size);

}  // namespace ct::alloc
