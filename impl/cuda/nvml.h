// The NVIDIA driver's management library, NVML, loaded at first use (Note [NVML loads on first
// use] in nvml.cc), behind torch.cuda's device monitoring: utilization, memory_usage,
// temperature, power_draw, clock_rate, device_memory_used, list_gpu_processes and the device
// count that does not initialize CUDA (torch.cuda._device_count_nvml); and CUDA_VISIBLE_DEVICES
// read as torch reads it (Note [CUDA_VISIBLE_DEVICES]).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ct::cuda::nvml {

// Note [CUDA_VISIBLE_DEVICES]: the CUDA runtime shows only the GPUs CUDA_VISIBLE_DEVICES names,
// in its order, while NVML numbers every GPU of the machine. torch maps a CUDA ordinal to its
// NVML index by reading the variable as CUDA does (torch.cuda._parse_visible_devices), and so
// does ctorch:
//   - unset: every GPU, in NVML's order (torch's list(range(64)));
//   - starting with "GPU-" or "MIG-": a list of UUIDs (or prefixes of them), split on ",", ended
//     by the first element without that prefix; an element written twice makes the list empty;
//   - otherwise ordinals, each element parsed as strtoul does after stripping white space (an
//     optional sign, then the leading digits: "1gpu2" is 1; no digit is -1); the first negative
//     value ends the list; an ordinal given twice makes the list empty.
// The UUID form is then matched against NVML's UUIDs, each element being a prefix of exactly one
// (no match or an ambiguous prefix ends the list; a GPU named twice empties it), and the ordinal
// form is cut at the first ordinal NVML does not have (as torch.cuda._device_count_nvml does).
// The result: the NVML index of CUDA device 0, 1, ...
struct VisibleDevices {
  bool uuid_form = false;
  std::vector<int64_t> ordinals;   // the ordinal form
  std::vector<std::string> uuids;  // the UUID form, as written ("GPU-8a3f...", "MIG-...")
  bool empty() const { return uuid_form ? uuids.empty() : ordinals.empty(); }
};
// var: the variable's value, nullptr when it is unset.
VisibleDevices parse_visible_devices(const char* var);
// The NVML index of each visible CUDA device, in CUDA's order: ordinals cut at the first one
// >= nvml_count; UUIDs matched by prefix against nvml_uuids (NVML's, index by index).
std::vector<int> visible_indices(const VisibleDevices& v, int nvml_count, const std::vector<std::string>& nvml_uuids);
// Python's form of a list of ints: "[0, 1]", "[]".
std::string format_index_list(const std::vector<int>& v);

// One process of torch.cuda.list_gpu_processes: its pid and the device memory it uses (bytes;
// used_known is false when NVML could not tell, NVML_VALUE_NOT_AVAILABLE).
struct ProcessInfo {
  uint32_t pid = 0;
  uint64_t used_bytes = 0;
  bool used_known = true;
};
// torch.cuda.list_gpu_processes's text: "GPU:<nvml index>", then "no processes are running" or
// one line a process, "process <pid, width 10> uses <MB, width 12, 3 decimals> MB GPU memory"
// (MB = 2^20 bytes; "N/A" when the memory is not known), joined by "\n".
std::string format_gpu_processes(int nvml_index, const std::vector<ProcessInfo>& procs);

// ---- the queries. device: a CUDA ordinal, negative for the calling thread's current device
// (which needs CUDA); it is mapped to NVML's index by CUDA_VISIBLE_DEVICES (Status::Index
// "device N is not visible (CUDA_VISIBLE_DEVICES=[...])" when it has none). Without
// libnvidia-ml.so.1: Status::NotSupported naming it and the loader's message. NVML failures:
// Status::CudaUnavailable for a driver that is not loaded, Status::NotSupported for a query the
// device or the driver does not support (or forbids), Status::Cuda for the rest, each with
// NVML's own text (nvmlErrorString).

// torch.cuda._device_count_nvml(): the visible devices as NVML counts them, without
// initializing CUDA; 0 when CUDA_VISIBLE_DEVICES names none, -1 when NVML cannot be used (no
// library, no driver, a failed query) and for MIG UUIDs. Never throws.
int device_count();
// torch.cuda._get_nvml_device_index(device): the NVML index of a CUDA device.
int device_index(int device);
int utilization(int device);          // % of time a kernel ran (nvmlDeviceGetUtilizationRates .gpu)
int memory_usage(int device);         // % of time memory was read or written (.memory)
int temperature(int device);          // degrees C of the GPU die
int power_draw(int device);           // milliwatts
int clock_rate(int device);           // MHz, the SM clock
int64_t device_memory_used(int device);  // bytes (nvmlDeviceGetMemoryInfo .used: reserved + allocated)
std::string list_gpu_processes(int device);

}  // namespace ct::cuda::nvml
