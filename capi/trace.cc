// Note [Call trace]: which entry points a process called, for the coverage check.
//
// The standard asks that every public function be tested from C and from at least one binding.
// Rather than trust a hand-kept list, libctorch.so can record the entry points a test run really
// reaches: with CTORCH_TRACE_CALLS=<file> in the environment (read once, at load), the first
// call of each ct_ function in the process appends its name, one per line, to <file> (O_APPEND,
// so the processes of a suite may share one file, and nothing is lost when a runtime leaves
// without running atexit handlers, as Go's os.Exit does). tools/abi/coverage.py compares the
// names with the library's exports. Without the variable the cost is one load of a global
// and a predicted branch per call (CT_TRACE_CALL in capi/api.h).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

#include "capi/api.h"

namespace ct::capi {

namespace {
const char* trace_path() {
  const char* p = std::getenv("CTORCH_TRACE_CALLS");
  return (p != nullptr && *p != '\0') ? p : nullptr;
}
}  // namespace

const bool g_trace_calls = trace_path() != nullptr;

void trace_call(const char* fn) {
  static std::mutex mu;
  static auto* seen = new std::unordered_set<std::string>();  // never freed: callable at exit
  std::lock_guard<std::mutex> lock(mu);
  if (!seen->insert(fn).second) return;
  const char* path = trace_path();
  if (path == nullptr) return;
  int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string line = std::string(fn) + "\n";
  ssize_t r = ::write(fd, line.data(), line.size());
  (void)r;
  ::close(fd);
}

}  // namespace ct::capi
