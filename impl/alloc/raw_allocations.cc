#include "impl/alloc/raw_allocations.h"

#include <ios>

#include "impl/core/error.h"

namespace ct::alloc {

void* RawAllocations::add(DataPtr p) {
  void* ptr = p.get();
  CT_CHECK(ptr != nullptr, Status::Internal, "raw allocation without memory");
  std::lock_guard<std::mutex> g(mu_);
  live_.emplace(ptr, std::move(p));
  return ptr;
}

void RawAllocations::remove(void* ptr) {
  DataPtr freed;  // freed after the lock is dropped
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = live_.find(ptr);
    CT_CHECK(it != live_.end(), Status::Argument, "caching_allocator_delete: ", ptr,
             " is not memory from ct_cuda_caching_allocator_alloc (or it was freed already)");
    freed = std::move(it->second);
    live_.erase(it);
  }
}

size_t RawAllocations::size() {
  std::lock_guard<std::mutex> g(mu_);
  return live_.size();
}

RawAllocations& raw_allocations() {
  static auto* r = new RawAllocations();
  return *r;
}

}  // namespace ct::alloc
