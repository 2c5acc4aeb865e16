#include "impl/core/dynlib.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ct {

void* open_library(const std::vector<std::string>& names, std::string* tried) {
  for (const std::string& name : names) {
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    *tried += "\n  " + name + ": " + (e ? e : "not found");
  }
  return nullptr;
}

std::vector<std::string> cuda_library_names(const std::string& soname, const std::string& unversioned) {
  const char* home = std::getenv("CUDA_HOME");
  return {soname, std::string(home ? home : "/usr/local/cuda") + "/lib64/" + soname, unversioned};
}

}  // namespace ct
