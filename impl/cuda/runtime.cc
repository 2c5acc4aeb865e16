// Note [CUDA without a GPU]: the CUDA runtime is linked statically (libcudart_static.a), so
// libctorch.so needs no libcudart.so and loads anywhere. The first call asks the runtime for
// the device count once; on a machine without a driver that fails (e.g. error 35, "CUDA
// driver version is insufficient" or 100, "no CUDA-capable device is detected"), and the
// reason is kept and reported by every call that needs a GPU.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "impl/abi/tables.h"
#include "impl/core/csan.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"

namespace ct::cuda {

namespace {

struct InitState {
  int count = 0;
  std::string reason;  // empty when available
};

// Note [Once on hot paths]: state() runs several times per CUDA op. std::call_once costs a
// pthread_once call and four thread-local accesses each time (libstdc++ publishes the callable
// through TLS, __tls_get_addr from a shared library): about 6% of creating and freeing a small
// CUDA tensor (sampling profile on the GPU host). A function-local static costs one load.
const InitState& state() {
  static const InitState s = [] {
    InitState st;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      st.reason = str_cat("CUDA is not available: ", cudaGetErrorString(err), " (cudaGetDeviceCount returned ",
                          static_cast<int>(err), ": ", cudaGetErrorName(err), ")");
      (void)cudaGetLastError();
    } else if (n == 0) {
      st.reason = "CUDA is not available: no CUDA-capable device is visible (check CUDA_VISIBLE_DEVICES)";
    } else {
      st.count = n;
    }
    return st;
  }();
  return s;
}

std::atomic<int> g_sync_debug{0};

// Note [CUDA initialization] (init.h): set once check_available has passed.
std::atomic<bool> g_initialized{false};

}  // namespace

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();  // clear non-sticky errors so the next call starts clean
  if (err == cudaErrorMemoryAllocation) {
    fail(Status::OutOfMemory, "CUDA out of memory (", what, "): ", cudaGetErrorString(err));
  }
  fail(Status::Cuda, "CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), " in ", what, ")");
}

bool launch_blocking() {
  static const bool b = [] {
    const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
    return v && v[0] == '1';
  }();
  return b;
}

void check_launch(const char* what, cudaStream_t stream) {
  check(cudaGetLastError(), what);
  if (!launch_blocking()) return;
  // A kernel captured into a graph does not run now: nothing to wait for (and waiting on a
  // capturing stream is illegal, Note [Illegal operations during capture] in capture.h).
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  if (stream && cudaStreamIsCapturing(stream, &st) == cudaSuccess && st != cudaStreamCaptureStatusNone) return;
  check(cudaStreamSynchronize(stream), what);
}

bool is_available() { return state().count > 0; }
int device_count() { return state().count; }

void check_available() {
  const InitState& s = state();
  if (s.count == 0) fail(Status::CudaUnavailable, s.reason);
  // one relaxed load on the hot path; the store happens once
  if (!g_initialized.load(std::memory_order_relaxed)) g_initialized.store(true, std::memory_order_release);
}

// Declared in init.h (//impl/cuda), which this nvcc-built target cannot include (see there).
void init();
bool initialized();
void init() { check_available(); }
bool initialized() { return g_initialized.load(std::memory_order_acquire); }

int current_device() {
  check_available();
  int d = 0;
  check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

void check_device_index(int device) {
  check_available();
  int n = device_count();
  CT_CHECK(device >= 0 && device < n, Status::Index, "Invalid CUDA device index ", device,
           " (expected 0 <= index < ", n, ", the number of visible CUDA devices)");
}

int resolve_device(int device) {
  if (device < 0) return current_device();
  check_device_index(device);
  return device;
}

Device resolve_device(Device d) {
  if (d.is_cpu()) return Device{DeviceType::CPU, -1};
  d.index = resolve_device(d.index);
  return d;
}

void set_device(int device) {
  check_device_index(device);
  check(cudaSetDevice(device), "cudaSetDevice");
}

std::string device_name(int device) {
  check_device_index(device);
  cudaDeviceProp p;
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  return p.name;
}

int multiprocessor_count() {
  const int device = current_device();
  static std::atomic<int> cached[64];  // 0: not asked yet
  if (device < 64)
    if (int v = cached[device].load(std::memory_order_relaxed)) return v;
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  if (sms < 1) sms = 1;
  if (device < 64) cached[device].store(sms, std::memory_order_relaxed);
  return sms;
}

int64_t device_property(int device, DeviceProperty prop) {
  check_device_index(device);
  cudaDeviceProp p;
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  switch (prop) {
    case DeviceProperty::Major: return p.major;
    case DeviceProperty::Minor: return p.minor;
    case DeviceProperty::TotalMemory: return static_cast<int64_t>(p.totalGlobalMem);
    case DeviceProperty::MultiprocessorCount: return p.multiProcessorCount;
    case DeviceProperty::L2CacheSize: return p.l2CacheSize;
    case DeviceProperty::WarpSize: return p.warpSize;
    case DeviceProperty::MaxThreadsPerMultiprocessor: return p.maxThreadsPerMultiProcessor;
    case DeviceProperty::IsIntegrated: return p.integrated;
    case DeviceProperty::PciBusId: return p.pciBusID;
    default:
      fail(Status::Argument, "unknown device property ", prop,
           " (expected one of the CT_PROP_* constants, 0..8)");
  }
}

void mem_get_info(int device, int64_t* free, int64_t* total) {
  DeviceGuard g(resolve_device(device));
  size_t f = 0, t = 0;
  check(cudaMemGetInfo(&f, &t), "cudaMemGetInfo");
  *free = static_cast<int64_t>(f);
  *total = static_cast<int64_t>(t);
}

bool can_access_peer(int device, int peer) {
  check_device_index(device);
  check_device_index(peer);
  if (device == peer) return false;  // torch.cuda.can_device_access_peer(d, d) is False
  int v = 0;
  check(cudaDeviceCanAccessPeer(&v, device, peer), "cudaDeviceCanAccessPeer");
  return v != 0;
}

// What the device code was built for: tools/cuda.bzl's ARCHS (SANITIZER_ARCHS in the sanitizer
// configs), passed as -DCT_CUDA_ARCHS=sm_80:sm_90:compute_90 (impl/cuda/BUILD).
#ifndef CT_CUDA_ARCHS
#error "CT_CUDA_ARCHS is set by impl/cuda/BUILD (tools/cuda.bzl's cuda_archs_define)"
#endif
#define CT_STRINGIFY_ALL(...) #__VA_ARGS__
#define CT_STRINGIFY(...) CT_STRINGIFY_ALL(__VA_ARGS__)
namespace {
std::vector<std::string> built_archs() {
  std::vector<std::string> out;
  std::string all = CT_STRINGIFY(CT_CUDA_ARCHS);
  size_t at = 0;
  while (at <= all.size()) {
    size_t comma = all.find(':', at);
    if (comma == std::string::npos) comma = all.size();
    if (comma > at) out.push_back(all.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}
}  // namespace

std::string arch_list() {  // torch.cuda.get_arch_list(), space-separated: "sm_80 sm_90 compute_90"
  std::string s;
  for (const std::string& a : built_archs()) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string gencode_flags() {  // torch.cuda.get_gencode_flags(): "-gencode compute=compute_80,code=sm_80 ..."
  std::string s;
  for (const std::string& a : built_archs())
    s += (s.empty() ? "" : " ") + ("-gencode compute=compute_" + a.substr(a.find('_') + 1) + ",code=" + a);
  return s;
}

void synchronize(int device) {
  // Not reported by the sync debug mode: an explicit synchronize is the point (as PyTorch's
  // device_synchronize, which does not warn either).
  device = resolve_device(device);
  DeviceGuard g(device);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (csan::on()) csan::device_synchronize(device);
}

void set_sync_debug_mode(int mode) {
  CT_CHECK(mode >= 0 && mode <= 2, Status::Argument, "invalid sync debug mode ", mode,
           " (expected 0 = default, 1 = warn, 2 = error)");
  g_sync_debug.store(mode);
}

int sync_debug_mode() { return g_sync_debug.load(); }

void on_host_sync(const char* what) {
  int m = g_sync_debug.load(std::memory_order_relaxed);
  if (m == 0) return;
  if (m == 1) {
    std::fprintf(stderr, "ctorch warning: called a synchronizing CUDA operation (%s)\n", what);
    return;
  }
  fail(Status::State, "called a synchronizing CUDA operation (", what, ") while the sync debug mode is 'error'");
}

DeviceGuard::DeviceGuard(int device) {
  if (device < 0) return;
  int cur = current_device();
  if (cur != device) {
    set_device(device);
    prev_ = cur;  // restored on exit only when it was changed
  }
}

DeviceGuard::~DeviceGuard() {
  if (prev_ >= 0) (void)cudaSetDevice(prev_);
}

}  // namespace ct::cuda
