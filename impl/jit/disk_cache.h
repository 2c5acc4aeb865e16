// The jiterator's kernels on disk (Note [Jiterator disk cache] in disk_cache.cc).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ct::jit {

class DiskCache {
 public:
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}
  // The process's cache: CTORCH_KERNEL_CACHE_PATH, else $XDG_CACHE_HOME/ctorch/kernels, else
  // $HOME/.cache/ctorch/kernels (created when missing); none when USE_CTORCH_KERNEL_CACHE is "0",
  // or when no directory can be made or written (a warning on stderr, once). Read once.
  static DiskCache* process();
  const std::string& dir() const { return dir_; }
  // The image stored for this source, name, architecture, NVRTC major and driver version; nothing when
  // there is none, or the file is not one this cache wrote for exactly this source.
  std::optional<std::string> load(const std::string& source, const std::string& name, int arch, int nvrtc,
                                  int driver) const;
  // Stores it (a temporary file renamed over the final one: readers see whole files only).
  // Failures are silent: the cache is an optimization.
  void store(const std::string& source, const std::string& name, int arch, int nvrtc, int driver,
             const std::string& cubin) const;
  // The file of a kernel (for tests).
  std::string path(const std::string& source, const std::string& name, int arch, int nvrtc, int driver) const;

 private:
  std::string dir_;
};

}  // namespace ct::jit
