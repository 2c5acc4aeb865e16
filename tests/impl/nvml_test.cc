// CUDA_VISIBLE_DEVICES read as torch reads it (Note [CUDA_VISIBLE_DEVICES] in impl/cuda/nvml.h:
// torch.cuda._parse_visible_devices, _transform_uuid_to_ordinals and the cut of
// _device_count_nvml; cases from torch's test_cuda.py where they exist), the text of
// list_gpu_processes, and the NVML queries' errors on a machine without the driver's NVML.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "impl/cuda/nvml.h"
#include "tests/impl/error_of.h"

using namespace ct;
using namespace ct::cuda::nvml;
using Ordinals = std::vector<int64_t>;
using Strings = std::vector<std::string>;
using Indices = std::vector<int>;

namespace {

Ordinals ordinals(const char* var) {
  VisibleDevices v = parse_visible_devices(var);
  EXPECT_FALSE(v.uuid_form) << var;
  return v.ordinals;
}

Strings uuids(const char* var) {
  VisibleDevices v = parse_visible_devices(var);
  EXPECT_TRUE(v.uuid_form) << var;
  return v.uuids;
}

// NVML's UUIDs in torch's test_partial_uuid_resolver
const Strings kUuids = {
    "GPU-9942190a-aa31-4ff1-4aa9-c388d80f85f1", "GPU-9e8d35e3-a134-0fdd-0e01-23811fdbd293",
    "GPU-e429a63e-c61c-4795-b757-5132caeb8e70", "GPU-eee1dfbc-0a0f-6ad8-5ff6-dc942a8b9d98",
    "GPU-bbcd6503-5150-4e92-c266-97cc4390d04e", "GPU-472ea263-58d7-410d-cc82-f7fdece5bd28",
    "GPU-e56257c4-947f-6a5b-7ec9-0f45567ccf4e", "GPU-1c20e77d-1c1a-d9ed-fe37-18b8466a78ad"};

Indices from_uuids(const Strings& candidates) {
  VisibleDevices v;
  v.uuid_form = true;
  v.uuids = candidates;
  return visible_indices(v, 0, kUuids);
}

// Sets CUDA_VISIBLE_DEVICES (nullptr: unsets it) for a scope.
class VisibleEnv {
 public:
  explicit VisibleEnv(const char* value) {
    const char* old = std::getenv("CUDA_VISIBLE_DEVICES");
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) setenv("CUDA_VISIBLE_DEVICES", value, 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
  }
  ~VisibleEnv() {
    if (had_) setenv("CUDA_VISIBLE_DEVICES", old_.c_str(), 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
  }

 private:
  bool had_ = false;
  std::string old_;
};

bool nvml_loadable() {
  // A device count of -1 with CUDA_VISIBLE_DEVICES unset: NVML could not be used.
  VisibleEnv env(nullptr);
  return device_count() >= 0;
}

}  // namespace

TEST(VisibleDevices, UnsetIsEveryGpu) {
  Ordinals all;
  for (int i = 0; i < 64; ++i) all.push_back(i);
  EXPECT_EQ(ordinals(nullptr), all);
}

TEST(VisibleDevices, Ordinals) {
  EXPECT_EQ(ordinals("1,0"), (Ordinals{1, 0}));
  EXPECT_EQ(ordinals(" 1 , 0 "), (Ordinals{1, 0}));   // each element stripped
  EXPECT_EQ(ordinals("\t2\n"), (Ordinals{2}));
  EXPECT_EQ(ordinals("1gpu2,2ampere"), (Ordinals{1, 2}));  // the leading digits, as strtoul
  EXPECT_EQ(ordinals("+3,007"), (Ordinals{3, 7}));    // a sign at the start; leading zeros
  EXPECT_EQ(ordinals("-0,1"), (Ordinals{0, 1}));      // Python's int("-0") is 0
  EXPECT_EQ(ordinals("12"), (Ordinals{12}));
}

TEST(VisibleDevices, NegativeOrNonNumericEndsTheList) {
  EXPECT_EQ(ordinals("0,-1,2"), (Ordinals{0}));
  EXPECT_EQ(ordinals("0, 1, -1, 2"), (Ordinals{0, 1}));
  EXPECT_EQ(ordinals("0,gpu1,2"), (Ordinals{0}));    // no digit: -1
  EXPECT_EQ(ordinals("0,,2"), (Ordinals{0}));        // empty element: -1
  EXPECT_EQ(ordinals("1,+,2"), (Ordinals{1}));       // a lone sign (torch: ValueError)
  EXPECT_EQ(ordinals("3,1-2"), (Ordinals{3, 1}));    // the sign only at the start
  EXPECT_EQ(ordinals(""), (Ordinals{}));
  EXPECT_EQ(ordinals("-1"), (Ordinals{}));
  EXPECT_TRUE(parse_visible_devices("").empty());
}

TEST(VisibleDevices, RepeatedOrdinalHidesEverything) {
  EXPECT_EQ(ordinals("0,1,0"), (Ordinals{}));
  EXPECT_EQ(ordinals("1, 1"), (Ordinals{}));
  EXPECT_EQ(ordinals("7,007"), (Ordinals{}));        // one ordinal written twice
  EXPECT_EQ(ordinals("0,-1,0"), (Ordinals{0}));      // the list ended before the repeat
  EXPECT_EQ(ordinals("2,x,2"), (Ordinals{2}));
  // values beyond int64 stay distinct by their digits
  EXPECT_EQ(ordinals("0,99999999999999999999,99999999999999999998").size(), 3u);
}

TEST(VisibleDevices, UuidForms) {
  EXPECT_EQ(uuids("GPU-9e8d35e3,GPU-47"), (Strings{"GPU-9e8d35e3", "GPU-47"}));
  EXPECT_EQ(uuids("MIG-a,MIG-b"), (Strings{"MIG-a", "MIG-b"}));
  EXPECT_EQ(uuids("GPU-a,1,GPU-b"), (Strings{"GPU-a"}));        // the first other element ends it
  EXPECT_EQ(uuids("GPU-a, GPU-b"), (Strings{"GPU-a"}));         // not stripped, as torch
  EXPECT_EQ(uuids("GPU-a,MIG-b"), (Strings{"GPU-a"}));          // one prefix for the list
  EXPECT_EQ(uuids("GPU-a,GPU-b,GPU-a"), (Strings{}));           // repeated: nothing visible
  EXPECT_EQ(uuids("MIG-a,MIG-a"), (Strings{}));
  EXPECT_FALSE(parse_visible_devices("gpu-a").uuid_form);       // case matters: an ordinal list
  EXPECT_EQ(ordinals("gpu-a"), (Ordinals{}));
}

TEST(VisibleDevices, OrdinalsCutAtNvmlCount) {
  VisibleDevices v = parse_visible_devices("1,0");
  EXPECT_EQ(visible_indices(v, 2, {}), (Indices{1, 0}));
  v = parse_visible_devices("1,5,0");  // torch: _device_count_nvml("1, 5, 0") == 1 with 2 GPUs
  EXPECT_EQ(visible_indices(v, 2, {}), (Indices{1}));
  EXPECT_EQ(visible_indices(parse_visible_devices(nullptr), 3, {}), (Indices{0, 1, 2}));
  EXPECT_EQ(visible_indices(parse_visible_devices(nullptr), 0, {}), (Indices{}));
}

TEST(VisibleDevices, UuidPrefixesMatchNvmlUuids) {
  // torch's test_partial_uuid_resolver
  EXPECT_EQ(from_uuids({"GPU-9e8d35e3"}), (Indices{1}));
  EXPECT_EQ(from_uuids({"GPU-e4", "GPU-9e8d35e3"}), (Indices{2, 1}));
  EXPECT_EQ(from_uuids({"GPU-9e8d35e3", "GPU-1", "GPU-47"}), (Indices{1, 7, 5}));
  EXPECT_EQ(from_uuids({"GPU-123", "GPU-9e8d35e3"}), (Indices{}));          // no match ends it
  EXPECT_EQ(from_uuids({"GPU-9e8d35e3", "GPU-123", "GPU-47"}), (Indices{1}));
  EXPECT_EQ(from_uuids({"GPU-9e8d35e3", "GPU-e", "GPU-47"}), (Indices{1}));  // ambiguous ends it
  EXPECT_EQ(from_uuids({"GPU-9e8d35e3", "GPU-47", "GPU-9e8"}), (Indices{}));  // one GPU twice
  EXPECT_EQ(from_uuids({kUuids[3]}), (Indices{3}));                          // a whole UUID
  EXPECT_EQ(from_uuids({"MIG-9e8d35e3"}), (Indices{}));                     // MIG is never a GPU's
}

TEST(VisibleDevices, FormatsAsPython) {
  EXPECT_EQ(format_index_list({}), "[]");
  EXPECT_EQ(format_index_list({3}), "[3]");
  EXPECT_EQ(format_index_list({1, 0, 2}), "[1, 0, 2]");
}

TEST(ListGpuProcesses, TorchText) {
  EXPECT_EQ(format_gpu_processes(0, {}), "GPU:0\nno processes are running");
  // f"process {pid:>10d} uses {used / (1024 * 1024):>12.3f} MB GPU memory"
  EXPECT_EQ(format_gpu_processes(3, {{12345, 1234ull * 1024 * 1024, true}, {7, 1536 * 1024 + 512, true}}),
            "GPU:3\n"
            "process      12345 uses     1234.000 MB GPU memory\n"
            "process          7 uses        1.500 MB GPU memory");
  EXPECT_EQ(format_gpu_processes(1, {{4294967295u, 0, true}}),
            "GPU:1\nprocess 4294967295 uses        0.000 MB GPU memory");
  EXPECT_EQ(format_gpu_processes(0, {{42, 0, false}}), "GPU:0\nprocess         42 uses          N/A MB GPU memory");
  // wider than the field: Python widens it too
  EXPECT_EQ(format_gpu_processes(0, {{1, 1ull << 50, true}}),
            "GPU:0\nprocess          1 uses 1073741824.000 MB GPU memory");
}

TEST(NvmlQueries, CountIsZeroWhenNothingIsVisible) {
  // before NVML is asked anything, as torch
  for (const char* var : {"", "-1", "0,0", "GPU-a,GPU-a"}) {
    VisibleEnv env(var);
    EXPECT_EQ(device_count(), 0) << var;
  }
  VisibleEnv env("MIG-a");
  EXPECT_EQ(device_count(), -1);  // torch does not parse MIG UUIDs
}

TEST(NvmlQueries, WithoutNvmlEachQueryNamesTheLibrary) {
  if (nvml_loadable()) GTEST_SKIP() << "libnvidia-ml.so.1 loads here: the GPU suites check the values";
  VisibleEnv env(nullptr);
  EXPECT_EQ(device_count(), -1);
  for (auto query : {utilization, memory_usage, temperature, power_draw, clock_rate}) {
    for (int device : {-1, 0, 3}) {
      auto [code, msg] = error_of([&] { query(device); });
      EXPECT_EQ(code, Status::NotSupported);
      EXPECT_NE(msg.find("libnvidia-ml.so.1"), std::string::npos) << msg;
      EXPECT_NE(msg.find("could not be loaded"), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(error_of([] { device_memory_used(0); }).first, Status::NotSupported);
  EXPECT_EQ(error_of([] { list_gpu_processes(0); }).first, Status::NotSupported);
  EXPECT_EQ(error_of([] { device_index(0); }).first, Status::NotSupported);
}
