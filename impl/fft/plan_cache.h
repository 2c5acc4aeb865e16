// The LRU plan cache behind torch.backends.cuda.cufft_plan_cache[i] (Note [cuFFT plan cache] in
// fft_backend.cc). Generic over the plan type so that its policy (hits, LRU order, max_size,
// the byte budget, clear) is tested without a GPU (tests/impl/plan_cache_test.cc).
#pragma once
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <utility>

namespace ct::fft {

// Key: ordered (operator<). Plan: a value type; `destroy` releases one when it leaves the cache.
// Every member is called with `mu` held by the caller (lock()), so that a plan found by lookup()
// is not evicted and destroyed by another thread while the caller is still using it.
template <typename Key, typename Plan>
class LruPlanCache {
 public:
  explicit LruPlanCache(std::function<void(Plan&)> destroy) : destroy_(std::move(destroy)) {}
  LruPlanCache(const LruPlanCache&) = delete;
  LruPlanCache& operator=(const LruPlanCache&) = delete;

  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mu_); }

  // The cached plan for `key`, now the most recently used, or nullptr (a miss). Counts both.
  Plan* lookup(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return &it->second->plan;
  }

  // Offers a new plan of `bytes` work area for `key` (not present). Returns the cached copy, or
  // nullptr when caching is off (max_size 0) or the plan alone exceeds the byte budget: the
  // caller then owns the plan and destroys it after use. Room is made first, least recently used
  // out, so the new plan itself is never the one evicted.
  Plan* insert(const Key& key, const Plan& plan, int64_t bytes) {
    if (max_size_ == 0 || (max_bytes_ > 0 && bytes > max_bytes_)) return nullptr;
    evict_to(max_size_ - 1, max_bytes_ == 0 ? -1 : max_bytes_ - bytes);
    lru_.push_front(Entry{key, plan, bytes});
    index_[key] = lru_.begin();
    bytes_ += bytes;
    return &lru_.front().plan;
  }

  int64_t max_size() const { return max_size_; }
  void set_max_size(int64_t n) {
    max_size_ = n;
    evict_to(n, max_bytes_ == 0 ? -1 : max_bytes_);
  }
  int64_t max_bytes() const { return max_bytes_; }
  void set_max_bytes(int64_t b) {
    max_bytes_ = b;
    evict_to(max_size_, b == 0 ? -1 : b);
  }
  int64_t size() const { return static_cast<int64_t>(lru_.size()); }
  int64_t bytes() const { return bytes_; }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  void clear() { evict_to(0, -1); }

 private:
  struct Entry {
    Key key;
    Plan plan;
    int64_t bytes;
  };
  // Least recently used out until at most `size` plans and (byte_budget >= 0) at most
  // byte_budget bytes remain.
  void evict_to(int64_t size, int64_t byte_budget) {
    while (!lru_.empty() && (static_cast<int64_t>(lru_.size()) > size || (byte_budget >= 0 && bytes_ > byte_budget))) {
      Entry& e = lru_.back();
      destroy_(e.plan);
      bytes_ -= e.bytes;
      index_.erase(e.key);
      lru_.pop_back();
    }
  }

  std::mutex mu_;
  std::function<void(Plan&)> destroy_;
  int64_t max_size_ = 4096;
  int64_t max_bytes_ = 0;  // 0: no budget
  int64_t bytes_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  std::list<Entry> lru_;  // most recently used first
  std::map<Key, typename std::list<Entry>::iterator> index_;
};

}  // namespace ct::fft
