// Note [Jiterator disk cache]: as torch's kernel cache (PYTORCH_KERNEL_CACHE_PATH,
// ~/.cache/torch/kernels), with ctorch's names: the image (CUBIN, or PTX for a GPU newer than
// NVRTC: Note [NVRTC]) of each generated source is kept in a file named after the kernel, the
// device's architecture, NVRTC's major version (the library's name, libnvrtc.so.13), the
// driver's version, the source's length and a 128-bit hash of it (a long name cut). Not NVRTC's
// minor version, which torch's names carry: asking it loads NVRTC (6 to 19 ms), which a hit
// must not cost; a newer NVRTC 13.x compiles new kernels only (clear the directory to redo all). The file holds a magic line, the
// lengths, a hash of the CUBIN, the whole source and the CUBIN, so that a file is used only for
// exactly its source and intact bytes (no hash collision can load a
// wrong kernel) and a truncated or foreign file is simply not a hit (torch's fails instead).
// Writes go to a temporary file in the same directory, closed and synced before it is renamed
// over the final name: processes compiling the same kernel at once each write whole files and
// the last rename wins, both correct. A driver or GPU change gives other names; old files stay
// (nothing is evicted, as torch's).
#include "impl/jit/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "impl/core/error.h"

namespace ct::jit {

namespace {

const char kMagic[] = "ctorch jiterator kernel v2\n";

uint64_t fnv1a(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// mkdir -p; true when dir exists (or was made) and is a writable directory
bool make_dirs(const std::string& dir) {
  std::string cur;
  std::stringstream ss(dir);
  std::string part;
  if (!dir.empty() && dir[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (::mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  return ::access(dir.c_str(), W_OK | R_OK | X_OK) == 0;
}

}  // namespace

DiskCache* DiskCache::process() {
  static DiskCache* cache = []() -> DiskCache* {
    const char* use = std::getenv("USE_CTORCH_KERNEL_CACHE");
    if (use && std::strcmp(use, "0") == 0) return nullptr;
    std::string dir;
    auto var = [](const char* name) {  // an empty variable counts as unset
      const char* v = std::getenv(name);
      return v && *v ? v : nullptr;
    };
    if (const char* p = var("CTORCH_KERNEL_CACHE_PATH")) dir = p;
    else if (const char* x = var("XDG_CACHE_HOME")) dir = std::string(x) + "/ctorch/kernels";
    else if (const char* h = var("HOME")) dir = std::string(h) + "/.cache/ctorch/kernels";
    if (dir.empty() || !make_dirs(dir)) {
      std::fprintf(stderr,
                   "ctorch warning: the jiterator's kernel cache directory %s cannot be made or written; kernels are "
                   "compiled in every process (CTORCH_KERNEL_CACHE_PATH chooses another)\n",
                   dir.empty() ? "(no HOME)" : dir.c_str());
      return nullptr;
    }
    return new DiskCache(dir);
  }();
  return cache;
}

std::string DiskCache::path(const std::string& source, const std::string& name, int arch, int nvrtc,
                            int driver) const {
  char hash[40];
  std::snprintf(hash, sizeof hash, "%016llx%016llx", static_cast<unsigned long long>(fnv1a(source, 0)),
                static_cast<unsigned long long>(fnv1a(source, 0x9e3779b97f4a7c15ull)));
  // (a long name is cut: the hash and the stored source tell kernels apart, and a file name must
  // stay under NAME_MAX)
  return str_cat(dir_, "/", name.substr(0, 64), "_sm", arch, "_nvrtc", nvrtc, "_driver", driver, "_", source.size(), "_", hash,
                 ".cubin");
}

std::optional<std::string> DiskCache::load(const std::string& source, const std::string& name, int arch, int nvrtc,
                                           int driver) const {
  std::ifstream in(path(source, name, arch, nvrtc, driver), std::ios::binary);
  if (!in) return std::nullopt;
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t magic = sizeof kMagic - 1;
  if (all.size() < magic + 32 || all.compare(0, magic, kMagic) != 0) return std::nullopt;
  uint64_t src_len = 0, bin_len = 0, h0 = 0, h1 = 0;
  std::memcpy(&src_len, all.data() + magic, 8);
  std::memcpy(&bin_len, all.data() + magic + 8, 8);
  std::memcpy(&h0, all.data() + magic + 16, 8);
  std::memcpy(&h1, all.data() + magic + 24, 8);
  size_t at = magic + 32;
  if (src_len != source.size() || all.size() != at + src_len + bin_len || bin_len == 0) return std::nullopt;
  if (all.compare(at, src_len, source) != 0) return std::nullopt;
  std::string cubin = all.substr(at + src_len);
  if (fnv1a(cubin, 0) != h0 || fnv1a(cubin, 0x9e3779b97f4a7c15ull) != h1) return std::nullopt;  // damaged bytes
  return cubin;
}

void DiskCache::store(const std::string& source, const std::string& name, int arch, int nvrtc, int driver,
                      const std::string& cubin) const {
  std::string final_path = path(source, name, arch, nvrtc, driver);
  std::ostringstream tid;
  tid << std::this_thread::get_id();
  std::string tmp = str_cat(final_path, ".tmp.", ::getpid(), ".", tid.str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return;
  std::string head(kMagic);
  uint64_t src_len = source.size(), bin_len = cubin.size(), h0 = fnv1a(cubin, 0),
           h1 = fnv1a(cubin, 0x9e3779b97f4a7c15ull);
  head.append(reinterpret_cast<const char*>(&src_len), 8);
  head.append(reinterpret_cast<const char*>(&bin_len), 8);
  head.append(reinterpret_cast<const char*>(&h0), 8);
  head.append(reinterpret_cast<const char*>(&h1), 8);
  bool ok = true;
  for (const std::string* part : {static_cast<const std::string*>(&head), &source, &cubin}) {
    size_t done = 0;
    while (ok && done < part->size()) {
      ssize_t w = ::write(fd, part->data() + done, part->size() - done);
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      if (ok) done += static_cast<size_t>(w);
    }
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), final_path.c_str()) != 0) ::unlink(tmp.c_str());
}

}  // namespace ct::jit
