// Note [NVRTC]: libnvrtc.so.13 is opened at the first compile, like cuBLAS and cuFFT (Note [BLAS
// libraries load on first use]): libctorch.so keeps no link to it, and a machine without it
// gets Status::NotSupported naming it. Kernels are compiled to CUBIN for the device's exact
// architecture (no PTX left for the driver to compile at load), with -std=c++17, -default-device
// (unannotated functions are device functions, as torch compiles them) and no include
// paths: the generated source carries every type it uses (codegen.cc), so nothing of the CUDA
// toolkit's headers is needed where the program runs.
#include "impl/jit/nvrtc.h"

#include <nvrtc.h>

#include <algorithm>

#include "impl/core/dynlib.h"
#include "impl/core/error.h"

namespace ct::jit {

namespace {

#define CT_NVRTC_FUNCTIONS(X)                                                                          \
  X(version, nvrtcVersion, nvrtcResult (*)(int*, int*))                                                \
  X(num_archs, nvrtcGetNumSupportedArchs, nvrtcResult (*)(int*))                                       \
  X(archs, nvrtcGetSupportedArchs, nvrtcResult (*)(int*))                                              \
  X(create, nvrtcCreateProgram,                                                                        \
    nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*)) \
  X(destroy, nvrtcDestroyProgram, nvrtcResult (*)(nvrtcProgram*))                                      \
  X(compile, nvrtcCompileProgram, nvrtcResult (*)(nvrtcProgram, int, const char* const*))              \
  X(log_size, nvrtcGetProgramLogSize, nvrtcResult (*)(nvrtcProgram, size_t*))                          \
  X(log, nvrtcGetProgramLog, nvrtcResult (*)(nvrtcProgram, char*))                                     \
  X(cubin_size, nvrtcGetCUBINSize, nvrtcResult (*)(nvrtcProgram, size_t*))                             \
  X(cubin, nvrtcGetCUBIN, nvrtcResult (*)(nvrtcProgram, char*))                                        \
  X(error_string, nvrtcGetErrorString, const char* (*)(nvrtcResult))
CT_LIBRARY_TABLE(Nvrtc, CT_NVRTC_FUNCTIONS);

const Nvrtc& nvrtc() {
  static const LazyLibrary<Nvrtc> lib(cuda_library_names("libnvrtc.so.13", "libnvrtc.so"),
                                      "the jiterator needs NVRTC (libnvrtc.so.13, CUDA 13), which could not be loaded:");
  return lib.get();
}

void check(const Nvrtc& n, nvrtcResult r, const char* what) {
  if (r == NVRTC_SUCCESS) return;
  CT_CHECK(r != NVRTC_ERROR_OUT_OF_MEMORY, Status::OutOfMemory, "out of host memory in NVRTC (", what, ")");
  fail(Status::Internal, "NVRTC error in ", what, ": ", n.error_string(r));
}

// Destroys the program on every path.
struct Program {
  const Nvrtc& n;
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) n.destroy(&p);
  }
};

}  // namespace

NvrtcVersion nvrtc_version() {
  const Nvrtc& n = nvrtc();
  NvrtcVersion v;
  check(n, n.version(&v.major, &v.minor), "nvrtcVersion");
  return v;
}

std::vector<int> nvrtc_archs() {
  const Nvrtc& n = nvrtc();
  int count = 0;
  check(n, n.num_archs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<size_t>(std::max(count, 0)));
  if (count > 0) check(n, n.archs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

std::string compile_cubin(const std::string& source, const std::string& file_name, int arch) {
  std::vector<int> archs = nvrtc_archs();
  if (std::find(archs.begin(), archs.end(), arch) == archs.end()) {
    std::string known;
    for (int a : archs) known += str_cat(known.empty() ? "" : ", ", "sm_", a);
    NvrtcVersion v = nvrtc_version();
    fail(Status::NotSupported, "NVRTC ", v.major, ".", v.minor, " cannot compile for sm_", arch, " (it knows ", known, ")");
  }
  const Nvrtc& n = nvrtc();
  Program prog{n};
  check(n, n.create(&prog.p, source.c_str(), file_name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  std::string arch_opt = str_cat("-arch=sm_", arch);
  // -default-device: the user's functions need no __device__ (as torch compiles them)
  const char* opts[] = {arch_opt.c_str(), "-std=c++17", "-default-device", "-DNDEBUG"};
  nvrtcResult r = n.compile(prog.p, 4, opts);
  if (r == NVRTC_ERROR_COMPILATION) {
    size_t size = 0;
    check(n, n.log_size(prog.p, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size > 0) check(n, n.log(prog.p, &log[0]), "nvrtcGetProgramLog");
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    fail(Status::Argument, "the jiterator's kernel did not compile (NVRTC, sm_", arch, "):\n", log);
  }
  check(n, r, "nvrtcCompileProgram");
  size_t size = 0;
  check(n, n.cubin_size(prog.p, &size), "nvrtcGetCUBINSize");
  std::string cubin(size, '\0');
  if (size > 0) check(n, n.cubin(prog.p, &cubin[0]), "nvrtcGetCUBIN");
  return cubin;
}

}  // namespace ct::jit
