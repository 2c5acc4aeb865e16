// Loading optional shared libraries at first use (Note [BLAS libraries load on first use]).
#pragma once
#include <string>
#include <vector>

namespace ct {

// dlopen (RTLD_NOW | RTLD_LOCAL) of the first of names that loads; nullptr when none does,
// with *tried listing every name and the loader's message ("\n  name: message" each).
void* open_library(const std::vector<std::string>& names, std::string* tried);

// Where a CUDA library is looked for: its soname (the loader's path), the same under
// $CUDA_HOME/lib64 (default /usr/local/cuda), then the unversioned development name.
std::vector<std::string> cuda_library_names(const std::string& soname, const std::string& unversioned);

}  // namespace ct
