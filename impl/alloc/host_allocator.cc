#include "impl/alloc/host_allocator.h"

#include <algorithm>

#include "impl/core/error.h"
#include "impl/core/locked.h"

namespace ct::alloc {

size_t round_pow2(size_t size) {
  size_t p = 1;
  while (p < size) p <<= 1;
  return p;
}

HostCachingAllocator::~HostCachingAllocator() {
  for (auto& [ptr, b] : blocks_) delete b;  // bookkeeping only (see DeviceCachingAllocator)
}

void HostCachingAllocator::process_events() {
  while (!events_.empty()) {
    auto [ev, b] = events_.front();
    if (!backend_->event_done(ev)) break;
    backend_->event_destroy(ev);
    events_.pop_front();
    if (--b->pending == 0 && !b->allocated) free_.insert({b->size, b->ptr});
  }
}

void* HostCachingAllocator::malloc(size_t size) {
  std::lock_guard<std::mutex> g(mu_);
  process_events();
  size_t rounded = round_pow2(size == 0 ? 1 : size);
  auto it = free_.lower_bound({rounded, nullptr});
  if (it != free_.end() && it->first == rounded) {
    HBlock* b = blocks_.at(it->second);
    free_.erase(it);
    b->allocated = true;
    allocated_ += static_cast<int64_t>(b->size);
    return b->ptr;
  }
  void* p = backend_->malloc(-1, rounded);
  if (!p) {
    release_free_blocks();  // the cached blocks whose copies are done; then once more
    p = backend_->malloc(-1, rounded);
  }
  CT_CHECK(p != nullptr, Status::OutOfMemory, "out of pinned host memory: tried to allocate ", format_size(static_cast<int64_t>(rounded)));
  auto* b = new HBlock{rounded, p};
  b->allocated = true;
  blocks_[p] = b;
  allocated_ += static_cast<int64_t>(rounded);
  reserved_ += static_cast<int64_t>(rounded);
  return p;
}

void HostCachingAllocator::record_event(void* ptr, int device, void* stream) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || !it->second->allocated) return;  // not ours (e.g. a view's offset)
  for (auto& u : it->second->uses)
    if (u.first == device && u.second == stream) return;
  it->second->uses.push_back({device, stream});
}

void HostCachingAllocator::forget_stream(int device, void* stream) {
  std::lock_guard<std::mutex> g(mu_);
  for (auto& [ptr, b] : blocks_) {
    auto it = std::find(b->uses.begin(), b->uses.end(), std::make_pair(device, stream));
    if (it == b->uses.end()) continue;
    b->uses.erase(it);
    try {
      events_.emplace_back(backend_->record_event(device, stream), b);
      b->pending++;
    } catch (...) {
      // no event on a failing device: nothing more can be ordered after its copies
    }
  }
}

void HostCachingAllocator::free(void* ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> g(mu_);
  HBlock* b = blocks_.at(ptr);
  std::vector<void*> evs;
  for (auto& [dev, stream] : b->uses) evs.push_back(backend_->record_event(dev, stream));
  b->uses.clear();
  b->allocated = false;
  allocated_ -= static_cast<int64_t>(b->size);
  if (evs.empty()) {
    if (b->pending == 0) free_.insert({b->size, b->ptr});  // else when forget_stream's events are done
    return;
  }
  for (void* ev : evs) {
    events_.emplace_back(ev, b);
    b->pending++;
  }
}

void HostCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> g(mu_);
  process_events();
  release_free_blocks();
}

void HostCachingAllocator::release_free_blocks() {
  for (auto& [sz, ptr] : free_) {
    backend_->free(-1, ptr);
    HBlock* b = blocks_.at(ptr);
    reserved_ -= static_cast<int64_t>(b->size);
    blocks_.erase(ptr);
    delete b;
  }
  free_.clear();
}

int64_t HostCachingAllocator::allocated_bytes() { return read_locked(mu_, allocated_); }

int64_t HostCachingAllocator::reserved_bytes() { return read_locked(mu_, reserved_); }

}  // namespace ct::alloc
