// NVRTC, the CUDA runtime compiler, loaded on first use (Note [NVRTC] in nvrtc.cc): the
// jiterator's compiler (issue 18). Compiling needs no GPU.
#pragma once
#include <string>
#include <vector>

namespace ct::jit {

// The major version of the NVRTC ctorch loads (libnvrtc.so.<kNvrtcMajor>).
constexpr int kNvrtcMajor = 13;

// NVRTC's version (nvrtcVersion), e.g. {13, 0}. Throws Status::NotSupported when NVRTC cannot
// be loaded (naming the library and the loader's reason).
struct NvrtcVersion {
  int major = 0, minor = 0;
};
NvrtcVersion nvrtc_version();

// The GPU architectures NVRTC compiles for (nvrtcGetSupportedArchs: 75, 80, 86, 89, 90, ...).
std::vector<int> nvrtc_archs();

// What to compile for a device of architecture `arch` (major * 10 + minor) given the
// architectures NVRTC knows (Note [NVRTC]): `arch` itself (a CUBIN) when known; for a device
// newer than every known one, the newest known as PTX (the driver compiles it at load, as
// torch's jiterator does); 0 for a device older than every known one (not supported).
struct Target {
  int arch = 0;
  bool ptx = false;
};
Target target_for(int arch, const std::vector<int>& known);

// The image of source (one translation unit, its name in messages file_name) for a device of
// architecture `arch`: a CUBIN for sm_<arch>, or PTX (target_for), compiled with -std=c++17
// -default-device. A source that does not compile throws Status::Argument with NVRTC's log
// (line numbers of file_name); a device older than NVRTC knows throws Status::NotSupported.
std::string compile_image(const std::string& source, const std::string& file_name, int arch);

// compile_image for exactly sm_<arch> (a CUBIN); Status::NotSupported when NVRTC does not know it.
std::string compile_cubin(const std::string& source, const std::string& file_name, int arch);

}  // namespace ct::jit
