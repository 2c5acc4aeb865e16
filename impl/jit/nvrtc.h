// NVRTC, the CUDA runtime compiler, loaded on first use (Note [NVRTC] in nvrtc.cc): the
// jiterator's compiler (issue 18). Compiling needs no GPU.
#pragma once
#include <string>
#include <vector>

namespace ct::jit {

// NVRTC's version (nvrtcVersion), e.g. {13, 0}. Throws Status::NotSupported when NVRTC cannot
// be loaded (naming the library and the loader's reason).
struct NvrtcVersion {
  int major = 0, minor = 0;
};
NvrtcVersion nvrtc_version();

// The GPU architectures NVRTC compiles for (nvrtcGetSupportedArchs: 75, 80, 86, 89, 90, ...).
std::vector<int> nvrtc_archs();

// The CUBIN of source (one translation unit, its name in messages file_name) for the GPU
// architecture sm_<arch> (the device's compute capability, major * 10 + minor), compiled with
// -std=c++17 -default-device. A source that does not compile throws Status::Argument with NVRTC's log (line
// numbers of file_name); an architecture NVRTC does not know throws Status::NotSupported.
std::string compile_cubin(const std::string& source, const std::string& file_name, int arch);

}  // namespace ct::jit
