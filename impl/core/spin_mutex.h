// A small mutex for short critical sections on hot paths (handle tables, the caching
// allocator).
//
// Note [Spin mutex]: creating and freeing a small CUDA tensor takes four locks (the handle
// table twice, the allocator twice). With std::mutex each lock and each unlock is an atomic
// read-modify-write plus a call into libpthread; here the lock is one exchange and the unlock
// a plain release store. Waiters spin briefly, then yield, so a holder that is descheduled
// (or the allocator calling cudaMalloc) does not burn a core: after a while they sleep between
// tries. It is not fair and not recursive.
#pragma once
#include <atomic>
#include <chrono>
#include <thread>

namespace ct {

class SpinMutex {
 public:
  void lock() noexcept {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); ++spins) {
      while (locked_.load(std::memory_order_relaxed)) {
        ++spins;
        if (spins > 4096) std::this_thread::sleep_for(std::chrono::microseconds(20));  // a long hold (cudaMalloc)
        else if (spins > 64) std::this_thread::yield();
      }
    }
  }
  bool try_lock() noexcept { return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire); }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace ct
