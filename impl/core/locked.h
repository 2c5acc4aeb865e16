// A copy of a value that a mutex guards, taken under the mutex (getters of state that other
// threads change under the same mutex).
#pragma once
#include <mutex>

namespace ct {

template <typename T, typename Mutex>
T read_locked(Mutex& mu, const T& value) {
  std::lock_guard<Mutex> g(mu);
  return value;
}

}  // namespace ct
