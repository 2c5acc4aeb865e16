#include "impl/ops/cpu/threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "impl/core/error.h"

namespace ct::cpu {

namespace {
// The most threads ct_set_num_threads and CT_NUM_THREADS take (capi/ctorch.h says why).
constexpr int kMaxThreads = 4096;

int initial_threads() {
  if (const char* env = std::getenv("CT_NUM_THREADS")) {
    int v = std::atoi(env);
    if (v >= 1 && v <= kMaxThreads) return v;
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(std::min<unsigned>(hc, kMaxThreads));
}
std::atomic<int> g_threads{initial_threads()};
}  // namespace

int num_threads() { return g_threads.load(std::memory_order_relaxed); }

void set_num_threads(int n) {
  CT_CHECK(n >= 1, Status::Argument, "set_num_threads: expected a positive number of threads, got ", n);
  CT_CHECK(n <= kMaxThreads, Status::Argument, "set_num_threads: expected at most ", kMaxThreads, " threads, got ", n);
  g_threads.store(n, std::memory_order_relaxed);
}

}  // namespace ct::cpu
