// CUDA device management through the statically linked CUDA runtime: enumeration,
// properties, the current device (per host thread, as CUDA's), guards, error checking and
// the sync debug mode. Everything here reports "unavailable" cleanly on machines without a
// GPU or a driver (Note [CUDA without a GPU] in runtime.cc).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "impl/core/device.h"

namespace ct::cuda {

bool is_available();
int device_count();               // 0 when CUDA is unavailable
void check_available();           // throws Status::CudaUnavailable with the runtime's reason
int current_device();             // throws when unavailable
int multiprocessor_count();       // SMs of the current device (cached per device)
void set_device(int device);
void check_device_index(int device);  // throws Status::Index with the visible count
// Note [Device resolution]: a negative device index means the calling thread's current device;
// any other index is checked against the visible devices (Status::Index). Every function that
// takes "a device, negative for the current one" resolves it here, in one place.
int resolve_device(int device);
// The same for a Device: (CUDA, -1) becomes the current device, (CUDA, i) is checked; CPU
// devices come back as (CPU, -1).
Device resolve_device(Device d);
std::string device_name(int device);
int64_t device_property(int device, DeviceProperty prop);
void mem_get_info(int device, int64_t* free, int64_t* total);
bool can_access_peer(int device, int peer);
std::string arch_list();          // "sm_80 sm_90 compute_90": what this build carries
std::string gencode_flags();
void synchronize(int device);     // cudaDeviceSynchronize on that device

// Throws Status::Cuda (Status::OutOfMemory for allocation failures) with CUDA's message.
void check(cudaError_t err, const char* what);
// After a kernel launch: reports launch errors at the call; with CUDA_LAUNCH_BLOCKING=1 it
// also waits for the kernel, so errors in the kernel are reported at the call that caused it.
void check_launch(const char* what, cudaStream_t stream);
bool launch_blocking();

// Note [Sync debug mode]: operations that make the host wait for the GPU call
// on_host_sync(what) first. Mode 0 is silent, 1 prints a warning, 2 throws Status::State
// (torch.cuda.set_sync_debug_mode's "default", "warn", "error").
void set_sync_debug_mode(int mode);
int sync_debug_mode();
void on_host_sync(const char* what);

// Sets the current device for a scope and restores the previous one on exit (also when an
// exception leaves the scope). A negative device leaves the current device alone.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

}  // namespace ct::cuda
