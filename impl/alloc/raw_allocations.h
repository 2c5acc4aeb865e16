// Note [Raw allocations]: torch.cuda.caching_allocator_alloc / caching_allocator_delete hand
// out memory as a bare address. The registry keeps each such allocation (its DataPtr) by
// address until it is deleted, so only those addresses can be deleted, each once.
#pragma once
#include <cstddef>
#include <mutex>
#include <unordered_map>

#include "impl/core/data_ptr.h"

namespace ct::alloc {

class RawAllocations {
 public:
  // Keeps p; returns its address.
  void* add(DataPtr p);
  // Frees the memory at ptr; Status::Argument unless ptr came from add() and was not removed.
  void remove(void* ptr);
  size_t size();

 private:
  std::mutex mu_;
  std::unordered_map<void*, DataPtr> live_;
};

RawAllocations& raw_allocations();  // the process's (never destroyed)

}  // namespace ct::alloc
