#include "impl/core/dynlib.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ct {

void* open_library(const std::string& name, std::string* error) {
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *error = e ? e : "not found";
  }
  return h;
}

void* open_library(const std::vector<std::string>& names, std::string* tried) {
  for (const std::string& name : names) {
    std::string error;
    if (void* h = open_library(name, &error)) return h;
    *tried += "\n  " + name + ": " + error;
  }
  return nullptr;
}

void close_library(void* handle) {
  if (handle) dlclose(handle);
}

void* Symbols::find(const std::string& name) {
  void* p = dlsym(handle_, name.c_str());
  if (!p && missing_.empty()) missing_ = name;
  return p;
}

std::vector<std::string> cuda_library_names(const std::string& soname, const std::string& unversioned) {
  const char* home = std::getenv("CUDA_HOME");
  return {soname, std::string(home ? home : "/usr/local/cuda") + "/lib64/" + soname, unversioned};
}

}  // namespace ct
