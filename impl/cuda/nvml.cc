// Note [NVML loads on first use]: NVML (libnvidia-ml.so.1) comes with the NVIDIA driver, not
// with the CUDA toolkit, so libctorch.so does not link it (as cuBLAS and NCCL, Note [BLAS
// libraries load on first use]): it is opened with dlopen the first time a query needs it, by
// the name torch opens (never the toolkit's stub, whose functions only fail), and initialized
// once with nvmlInit_v2 (never shut down, as torch). There is no nvml.h on a build machine
// without the driver's development files, so the few types and functions used are declared
// here, from NVML's API (version 13); the suffixed symbols (_v2, _v3) are the ones nvml.h's
// macros select (the bare nvmlInit is the old one that initializes every GPU).
#include "impl/cuda/nvml.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

#include "impl/core/dynlib.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"

namespace ct::cuda::nvml {

namespace {

// ---- NVML's declarations (nvml.h)
using nvmlReturn_t = int;  // an enum in nvml.h (int-sized)
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu;     // % of the last sample period during which a kernel ran
  unsigned int memory;  // % of it during which device memory was read or written
};
struct nvmlMemory_t {  // version 1: used = reserved + allocated
  unsigned long long total, free, used;
};
struct nvmlProcessInfo_t {  // nvmlProcessInfo_v2_t, what the _v3 process queries fill
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
constexpr nvmlReturn_t kSuccess = 0;
constexpr nvmlReturn_t kNotSupported = 3;
constexpr nvmlReturn_t kNoPermission = 4;
constexpr nvmlReturn_t kInsufficientSize = 7;
constexpr nvmlReturn_t kDriverNotLoaded = 9;
constexpr nvmlReturn_t kLibraryNotFound = 12;
constexpr nvmlReturn_t kFunctionNotFound = 13;
constexpr unsigned int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU: the GPU die
constexpr unsigned int kClockSm = 1;         // NVML_CLOCK_SM
constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE
constexpr unsigned int kUuidBufferSize = 96;              // NVML_DEVICE_UUID_V2_BUFFER_SIZE

#define CT_NVML_FUNCTIONS(X)                                                                       \
  X(init, nvmlInit_v2, nvmlReturn_t (*)())                                                         \
  X(error_string, nvmlErrorString, const char* (*)(nvmlReturn_t))                                 \
  X(count, nvmlDeviceGetCount_v2, nvmlReturn_t (*)(unsigned int*))                                 \
  X(handle_by_index, nvmlDeviceGetHandleByIndex_v2, nvmlReturn_t (*)(unsigned int, nvmlDevice_t*)) \
  X(uuid, nvmlDeviceGetUUID, nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int))                   \
  X(utilization, nvmlDeviceGetUtilizationRates, nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*)) \
  X(temperature, nvmlDeviceGetTemperature, nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int*)) \
  X(power_usage, nvmlDeviceGetPowerUsage, nvmlReturn_t (*)(nvmlDevice_t, unsigned int*))           \
  X(clock_info, nvmlDeviceGetClockInfo, nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int*)) \
  X(memory_info, nvmlDeviceGetMemoryInfo, nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*))           \
  X(compute_processes, nvmlDeviceGetComputeRunningProcesses_v3,                                    \
    nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*))
CT_LIBRARY_TABLE(Nvml, CT_NVML_FUNCTIONS);

const LazyLibrary<Nvml>& library() {
  static const LazyLibrary<Nvml> lib({"libnvidia-ml.so.1"},
                                     "torch.cuda's device monitoring (utilization, temperature, power_draw, "
                                     "clock_rate, memory_usage, device_memory_used, list_gpu_processes) needs "
                                     "the NVIDIA driver's NVML (libnvidia-ml.so.1), which could not be loaded:");
  return lib;
}

// Throws for r (not kSuccess): the status by kind, NVML's text and the function.
[[noreturn]] void fail_nvml(const Nvml& n, nvmlReturn_t r, const char* what) {
  const char* text = n.error_string(r);
  std::string msg = str_cat("NVML error in ", what, ": ", text ? text : "unknown error", " (nvmlReturn_t ", r, ")");
  switch (r) {
    case kDriverNotLoaded: fail(Status::CudaUnavailable, "cuda driver can't be loaded, is cuda enabled? (", msg, ")");
    case kNotSupported:
    case kNoPermission:
    case kFunctionNotFound:
    case kLibraryNotFound: fail(Status::NotSupported, msg);
    default: fail(Status::Cuda, msg);
  }
}

void check(const Nvml& n, nvmlReturn_t r, const char* what) {
  if (r != kSuccess) fail_nvml(n, r, what);
}

// The loaded and initialized NVML (throws as library().get() and nvmlInit_v2 do).
const Nvml& ready() {
  const Nvml& n = library().get();
  static std::mutex mu;
  static bool initialized = false;
  std::lock_guard<std::mutex> lock(mu);
  if (!initialized) {
    check(n, n.init(), "nvmlInit_v2");
    initialized = true;
  }
  return n;
}

nvmlDevice_t handle_of(const Nvml& n, unsigned int index) {
  nvmlDevice_t h = nullptr;
  check(n, n.handle_by_index(index, &h), "nvmlDeviceGetHandleByIndex_v2");
  return h;
}

// NVML's UUID of every GPU, by NVML index (torch.cuda._raw_device_uuid_nvml).
std::vector<std::string> all_uuids(const Nvml& n) {
  unsigned int count = 0;
  check(n, n.count(&count), "nvmlDeviceGetCount_v2");
  std::vector<std::string> uuids;
  for (unsigned int i = 0; i < count; ++i) {
    char buf[kUuidBufferSize] = {};
    check(n, n.uuid(handle_of(n, i), buf, kUuidBufferSize), "nvmlDeviceGetUUID");
    uuids.emplace_back(buf);
  }
  return uuids;
}

// The NVML index of every visible CUDA device (Note [CUDA_VISIBLE_DEVICES]).
std::vector<int> visible(const Nvml& n, const VisibleDevices& v) {
  if (v.uuid_form) return visible_indices(v, 0, all_uuids(n));
  unsigned int count = 0;
  check(n, n.count(&count), "nvmlDeviceGetCount_v2");
  return visible_indices(v, static_cast<int>(count > INT_MAX ? INT_MAX : count), {});
}

VisibleDevices visible_from_environment() { return parse_visible_devices(std::getenv("CUDA_VISIBLE_DEVICES")); }

// Python's str.strip(): ASCII white space at both ends.
std::string strip(const std::string& s) {
  const char* ws = " \t\n\r\v\f";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// torch's _strtoul: an optional sign at the start, then the leading digits; -1 when there is no
// digit (torch's own parse fails with ValueError on a lone sign: here it is -1, which ends the
// list). *key gets the value's canonical digits (so that "007" and "7" are one ordinal, as
// Python's int compares them, however long). Values beyond int64 saturate.
int64_t strtoul_like(const std::string& s, std::string* key) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  size_t digits = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == digits) return -1;
  size_t first = s.find_first_not_of('0', digits);
  std::string canon = first == std::string::npos || first >= i ? "0" : s.substr(first, i - first);
  int64_t v = 0;
  for (char c : canon) v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (c - '0');
  if (negative && v != 0) return -1;  // any negative value ends the list; "-0" is 0
  *key = canon;
  return v;
}

std::vector<std::string> parse_uuid_list(const std::string& var, const std::string& prefix) {
  std::vector<std::string> ids;
  for (const std::string& e : split_commas(var)) {
    for (const std::string& seen : ids)
      if (seen == e) return {};  // a repeated id: nothing is visible
    if (!starts_with(e, prefix)) break;
    ids.push_back(e);
  }
  return ids;
}

int uuid_to_index(const std::string& candidate, const std::vector<std::string>& uuids) {
  int match = -1;
  for (size_t i = 0; i < uuids.size(); ++i) {
    if (!starts_with(uuids[i], candidate)) continue;
    if (match != -1) return -1;  // ambiguous
    match = static_cast<int>(i);
  }
  return match;
}

int to_int(unsigned int v, const char* what) {
  CT_CHECK(v <= static_cast<unsigned int>(INT_MAX), Status::Cuda, "NVML reported ", v, " for ", what,
           ", which does not fit an int32");
  return static_cast<int>(v);
}

// The NVML device of a CUDA device (torch.cuda._get_pynvml_handler).
nvmlDevice_t device_handle(const Nvml& n, int device) {
  return handle_of(n, static_cast<unsigned int>(device_index(device)));
}

// One unsigned figure of a device: query(n, handle, &value), NVML's function `what`.
template <typename Query>
int device_figure(int device, const char* what, const char* figure, Query query) {
  const Nvml& n = ready();
  unsigned int v = 0;
  check(n, query(n, device_handle(n, device), &v), what);
  return to_int(v, figure);
}

nvmlUtilization_t utilization_rates(int device) {
  const Nvml& n = ready();
  nvmlUtilization_t u{};
  check(n, n.utilization(device_handle(n, device), &u), "nvmlDeviceGetUtilizationRates");
  return u;
}

}  // namespace

VisibleDevices parse_visible_devices(const char* var) {
  VisibleDevices v;
  if (!var) {
    for (int i = 0; i < 64; ++i) v.ordinals.push_back(i);
    return v;
  }
  std::string s(var);
  for (const char* prefix : {"GPU-", "MIG-"}) {
    if (starts_with(s, prefix)) {
      v.uuid_form = true;
      v.uuids = parse_uuid_list(s, prefix);
      return v;
    }
  }
  std::set<std::string> seen;
  for (const std::string& e : split_commas(s)) {
    std::string key;
    int64_t x = strtoul_like(strip(e), &key);
    if (x >= 0 && !seen.insert(key).second) return VisibleDevices{};  // a repeated ordinal
    if (x < 0) break;
    v.ordinals.push_back(x);
  }
  return v;
}

std::vector<int> visible_indices(const VisibleDevices& v, int nvml_count, const std::vector<std::string>& nvml_uuids) {
  std::vector<int> out;
  if (v.uuid_form) {
    for (const std::string& c : v.uuids) {
      int i = uuid_to_index(c, nvml_uuids);
      if (i < 0) break;
      for (int seen : out)
        if (seen == i) return {};  // one GPU named twice
      out.push_back(i);
    }
    return out;
  }
  for (int64_t o : v.ordinals) {
    if (o >= nvml_count) break;
    out.push_back(static_cast<int>(o));
  }
  return out;
}

std::string format_index_list(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string format_gpu_processes(int nvml_index, const std::vector<ProcessInfo>& procs) {
  std::string s = str_cat("GPU:", nvml_index);
  if (procs.empty()) s += "\nno processes are running";
  for (const ProcessInfo& p : procs) {
    char line[128];
    if (p.used_known) {
      std::snprintf(line, sizeof line, "\nprocess %10u uses %12.3f MB GPU memory", p.pid,
                    static_cast<double>(p.used_bytes) / (1024.0 * 1024.0));
    } else {
      std::snprintf(line, sizeof line, "\nprocess %10u uses %12s MB GPU memory", p.pid, "N/A");
    }
    s += line;
  }
  return s;
}

int device_count() {
  VisibleDevices v = visible_from_environment();
  if (v.empty()) return 0;
  if (v.uuid_form && starts_with(v.uuids[0], "MIG-")) return -1;  // as torch: MIG is not parsed
  try {
    return static_cast<int>(visible(ready(), v).size());
  } catch (const Error&) {
    return -1;
  }
}

int device_index(int device) {
  const Nvml& n = ready();
  if (device < 0) device = current_device();
  std::vector<int> vis = visible(n, visible_from_environment());
  CT_CHECK(static_cast<size_t>(device) < vis.size(), Status::Index, "device ", device,
           " is not visible (CUDA_VISIBLE_DEVICES=", format_index_list(vis), ")");
  return vis[device];
}

int utilization(int device) { return to_int(utilization_rates(device).gpu, "the utilization"); }

int memory_usage(int device) { return to_int(utilization_rates(device).memory, "the memory usage"); }

int temperature(int device) {
  return device_figure(device, "nvmlDeviceGetTemperature", "the temperature",
                       [](const Nvml& n, nvmlDevice_t h, unsigned int* v) { return n.temperature(h, kTemperatureGpu, v); });
}

int power_draw(int device) {
  return device_figure(device, "nvmlDeviceGetPowerUsage", "the power draw",
                       [](const Nvml& n, nvmlDevice_t h, unsigned int* v) { return n.power_usage(h, v); });
}

int clock_rate(int device) {
  return device_figure(device, "nvmlDeviceGetClockInfo", "the SM clock",
                       [](const Nvml& n, nvmlDevice_t h, unsigned int* v) { return n.clock_info(h, kClockSm, v); });
}

int64_t device_memory_used(int device) {
  const Nvml& n = ready();
  nvmlMemory_t m{};
  check(n, n.memory_info(device_handle(n, device), &m), "nvmlDeviceGetMemoryInfo");
  CT_CHECK(m.used <= static_cast<unsigned long long>(INT64_MAX), Status::Cuda, "NVML reported ", m.used,
           " bytes of used memory, which does not fit an int64");
  return static_cast<int64_t>(m.used);
}

std::string list_gpu_processes(int device) {
  const Nvml& n = ready();
  int index = device_index(device);
  nvmlDevice_t h = handle_of(n, static_cast<unsigned int>(index));
  // The count first (none: success at once), then the list; processes may start in between,
  // so a few spare entries and a few tries.
  std::vector<nvmlProcessInfo_t> infos;
  unsigned int count = 0;
  nvmlReturn_t r = n.compute_processes(h, &count, nullptr);
  for (int tries = 0; r == kInsufficientSize && tries < 8; ++tries) {
    infos.resize(count + 8);
    count = static_cast<unsigned int>(infos.size());
    r = n.compute_processes(h, &count, infos.data());
  }
  check(n, r, "nvmlDeviceGetComputeRunningProcesses_v3");
  infos.resize(infos.empty() ? 0 : count);
  std::vector<ProcessInfo> procs;
  for (const nvmlProcessInfo_t& p : infos)
    procs.push_back(ProcessInfo{p.pid, p.usedGpuMemory, p.usedGpuMemory != kValueNotAvailable});
  return format_gpu_processes(index, procs);
}

}  // namespace ct::cuda::nvml
