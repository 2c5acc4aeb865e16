// Note [NVRTC]: libnvrtc.so.13 is opened at the first compile, like cuBLAS and cuFFT (Note [BLAS
// libraries load on first use]): libctorch.so keeps no link to it, and a machine without it
// gets Status::NotSupported naming it. Kernels are compiled to CUBIN for the device's exact
// architecture (no PTX left for the driver to compile at load); a device newer than every
// architecture NVRTC knows gets PTX for the newest one, which the driver compiles at load
// (torch's jiterator does the same). Compiled with -std=c++17, -default-device
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
  X(ptx_size, nvrtcGetPTXSize, nvrtcResult (*)(nvrtcProgram, size_t*))                                 \
  X(ptx, nvrtcGetPTX, nvrtcResult (*)(nvrtcProgram, char*))                                            \
  X(error_string, nvrtcGetErrorString, const char* (*)(nvrtcResult))
CT_LIBRARY_TABLE(Nvrtc, CT_NVRTC_FUNCTIONS);

const Nvrtc& nvrtc() {
  static const LazyLibrary<Nvrtc> lib(cuda_library_names(str_cat("libnvrtc.so.", kNvrtcMajor), "libnvrtc.so"),
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

Target target_for(int arch, const std::vector<int>& known) {
  if (std::find(known.begin(), known.end(), arch) != known.end()) return {arch, false};
  int newest = 0;
  for (int a : known) newest = std::max(newest, a);
  if (newest > 0 && arch > newest) return {newest, true};
  return {0, false};
}

namespace {

std::string compile_for(const std::string& source, const std::string& file_name, int arch, bool cubin_only) {
  std::vector<int> archs = nvrtc_archs();
  Target t = target_for(arch, archs);
  if (t.arch == 0 || (cubin_only && t.ptx)) {
    std::string known;
    for (int a : archs) known += str_cat(known.empty() ? "" : ", ", "sm_", a);
    NvrtcVersion v = nvrtc_version();
    fail(Status::NotSupported, "NVRTC ", v.major, ".", v.minor, " cannot compile for sm_", arch, " (it knows ", known, ")");
  }
  const Nvrtc& n = nvrtc();
  Program prog{n};
  check(n, n.create(&prog.p, source.c_str(), file_name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  const char* kind = t.ptx ? "compute_" : "sm_";
  std::string arch_opt = str_cat("-arch=", kind, t.arch);
  // -default-device: the user's functions need no __device__ (as torch compiles them)
  const char* opts[] = {arch_opt.c_str(), "-std=c++17", "-default-device", "-DNDEBUG"};
  nvrtcResult r = n.compile(prog.p, 4, opts);
  if (r == NVRTC_ERROR_COMPILATION) {
    size_t size = 0;
    check(n, n.log_size(prog.p, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size > 0) check(n, n.log(prog.p, &log[0]), "nvrtcGetProgramLog");
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    fail(Status::Argument, "the jiterator's kernel did not compile (NVRTC, ", kind, t.arch, "):\n", log);
  }
  check(n, r, "nvrtcCompileProgram");
  size_t size = 0;
  if (t.ptx) {
    check(n, n.ptx_size(prog.p, &size), "nvrtcGetPTXSize");
  } else {
    check(n, n.cubin_size(prog.p, &size), "nvrtcGetCUBINSize");
  }
  std::string image(size, '\0');
  if (size > 0) {
    if (t.ptx) {
      check(n, n.ptx(prog.p, &image[0]), "nvrtcGetPTX");
    } else {
      check(n, n.cubin(prog.p, &image[0]), "nvrtcGetCUBIN");
    }
  }
  return image;
}

}  // namespace

std::string compile_image(const std::string& source, const std::string& file_name, int arch) {
  return compile_for(source, file_name, arch, false);
}

std::string compile_cubin(const std::string& source, const std::string& file_name, int arch) {
  return compile_for(source, file_name, arch, true);
}

}  // namespace ct::jit
