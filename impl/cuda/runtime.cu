// Note [CUDA without a GPU]: the CUDA runtime is linked statically (libcudart_static.a), so
// libctorch.so needs no libcudart.so and loads anywhere. The first call asks the runtime for
// the device count once; on a machine without a driver that fails (e.g. error 35, "CUDA
// driver version is insufficient" or 100, "no CUDA-capable device is detected"), and the
// reason is kept and reported by every call that needs a GPU.
#include <cuda_runtime.h>

#include <mutex>

#include "capi/ctorch.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"

namespace ct::cuda {

namespace {

struct InitState {
  int count = 0;
  std::string reason;  // empty when available
};

const InitState& state() {
  static InitState s;
  static std::once_flag once;
  std::call_once(once, [] {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      s.count = 0;
      s.reason = str_cat("CUDA is not available: ", cudaGetErrorString(err), " (cudaGetDeviceCount returned ",
                         static_cast<int>(err), ": ", cudaGetErrorName(err), ")");
      (void)cudaGetLastError();  // clear the sticky-free error state
    } else if (n == 0) {
      s.reason = "CUDA is not available: no CUDA-capable device is visible (check CUDA_VISIBLE_DEVICES)";
    } else {
      s.count = n;
    }
  });
  return s;
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    fail(CT_ERR_CUDA, "CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), " in ", what, ")");
  }
}

}  // namespace

bool is_available() { return state().count > 0; }
int device_count() { return state().count; }

void check_available() {
  const InitState& s = state();
  if (s.count == 0) fail(CT_ERR_CUDA_UNAVAILABLE, s.reason);
}

int current_device() {
  check_available();
  int d = 0;
  check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

void check_device_index(int device) {
  check_available();
  int n = device_count();
  CT_CHECK(device >= 0 && device < n, CT_ERR_INDEX, "Invalid CUDA device index ", device,
           " (expected 0 <= index < ", n, ", the number of visible CUDA devices)");
}

std::string device_name(int device) {
  check_device_index(device);
  cudaDeviceProp p;
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  return p.name;
}

int64_t device_property(int device, int32_t prop) {
  check_device_index(device);
  cudaDeviceProp p;
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  switch (prop) {
    case CT_PROP_MAJOR: return p.major;
    case CT_PROP_MINOR: return p.minor;
    case CT_PROP_TOTAL_MEMORY: return static_cast<int64_t>(p.totalGlobalMem);
    case CT_PROP_MULTIPROCESSOR_COUNT: return p.multiProcessorCount;
    case CT_PROP_L2_CACHE_SIZE: return p.l2CacheSize;
    case CT_PROP_WARP_SIZE: return p.warpSize;
    case CT_PROP_MAX_THREADS_PER_MULTIPROCESSOR: return p.maxThreadsPerMultiProcessor;
    case CT_PROP_IS_INTEGRATED: return p.integrated;
    case CT_PROP_PCI_BUS_ID: return p.pciBusID;
    default:
      fail(CT_ERR_ARGUMENT, "unknown device property ", prop,
           " (expected one of the CT_PROP_* constants, 0..8)");
  }
}

}  // namespace ct::cuda
