// The NVML queries end to end against tests/impl/fake_nvml.c, a stand-in for the driver's
// libnvidia-ml.so.1 (nvml_fake_test.sh puts it first on the loader's path): the figures of the
// right NVML device through every CUDA_VISIBLE_DEVICES form, the device count, the "not visible"
// errors, NVML's failures mapped to statuses with NVML's text, a driver that is not loaded, and
// list_gpu_processes through the size protocol (a list that grows between the calls). The
// tests run in order: the first one finds NVML not initialized yet.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "impl/cuda/nvml.h"
#include "impl/cuda/runtime.h"
#include "tests/impl/error_of.h"

using namespace ct;
using namespace ct::cuda::nvml;

namespace {

void set(const char* name, const char* value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}

// Every fake's switch back to its default, CUDA_VISIBLE_DEVICES unset.
class FakeNvml : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }
  void TearDown() override { Reset(); }
  static void Reset() {
    for (const char* v : {"CUDA_VISIBLE_DEVICES", "FAKE_NVML_INIT", "FAKE_NVML_COUNT", "FAKE_NVML_TEMP_RC",
                          "FAKE_NVML_PROCS", "FAKE_NVML_NA", "FAKE_NVML_GROW"})
      unsetenv(v);
  }
};

constexpr int64_t GiB = int64_t{1} << 30;

}  // namespace

TEST_F(FakeNvml, A_DriverNotLoadedThenLoaded) {
  set("FAKE_NVML_INIT", "9");  // NVML_ERROR_DRIVER_NOT_LOADED
  auto [code, msg] = error_of([] { utilization(0); });
  EXPECT_EQ(code, Status::CudaUnavailable);
  EXPECT_EQ(msg, "cuda driver can't be loaded, is cuda enabled? (NVML error in nvmlInit_v2: Driver Not Loaded "
                 "(nvmlReturn_t 9))");
  EXPECT_EQ(device_count(), -1);
  set("FAKE_NVML_INIT", "999");
  EXPECT_EQ(error_of([] { temperature(0); }).first, Status::Cuda);
  // the next call initializes once it can
  set("FAKE_NVML_INIT", nullptr);
  EXPECT_EQ(utilization(0), 10);
  EXPECT_EQ(device_count(), 3);
  set("FAKE_NVML_INIT", "9");  // initialized once: not asked again
  EXPECT_EQ(utilization(1), 11);
}

TEST_F(FakeNvml, FiguresOfEachDevice) {
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(utilization(d), 10 + d);
    EXPECT_EQ(memory_usage(d), 20 + d);
    EXPECT_EQ(temperature(d), 30 + d);
    EXPECT_EQ(power_draw(d), 100000 + d);
    EXPECT_EQ(clock_rate(d), 1000 + d);
    EXPECT_EQ(device_memory_used(d), (d + 1) * GiB);
    EXPECT_EQ(device_index(d), d);
  }
  EXPECT_EQ(device_count(), 3);
  auto [code, msg] = error_of([] { utilization(3); });
  EXPECT_EQ(code, Status::Index);
  EXPECT_EQ(msg, "device 3 is not visible (CUDA_VISIBLE_DEVICES=[0, 1, 2])");
  // the current device needs CUDA
  if (!cuda::is_available()) EXPECT_EQ(error_of([] { temperature(-1); }).first, Status::CudaUnavailable);
}

TEST_F(FakeNvml, OrdinalsReorderAndCut) {
  set("CUDA_VISIBLE_DEVICES", "2,0");
  EXPECT_EQ(device_count(), 2);
  EXPECT_EQ(temperature(0), 32);
  EXPECT_EQ(temperature(1), 30);
  EXPECT_EQ(device_memory_used(0), 3 * GiB);
  EXPECT_EQ(error_of([] { clock_rate(2); }).second, "device 2 is not visible (CUDA_VISIBLE_DEVICES=[2, 0])");
  set("CUDA_VISIBLE_DEVICES", "1,5,0");  // cut at the first ordinal NVML does not have
  EXPECT_EQ(device_count(), 1);
  EXPECT_EQ(power_draw(0), 100001);
  EXPECT_EQ(error_of([] { power_draw(1); }).second, "device 1 is not visible (CUDA_VISIBLE_DEVICES=[1])");
  set("CUDA_VISIBLE_DEVICES", "1gpu,-1,0");
  EXPECT_EQ(device_count(), 1);
  set("CUDA_VISIBLE_DEVICES", "0,1,0");
  EXPECT_EQ(device_count(), 0);
  EXPECT_EQ(error_of([] { utilization(0); }).second, "device 0 is not visible (CUDA_VISIBLE_DEVICES=[])");
  set("FAKE_NVML_COUNT", "0");
  set("CUDA_VISIBLE_DEVICES", nullptr);
  EXPECT_EQ(device_count(), 0);
}

TEST_F(FakeNvml, UuidsAndPrefixes) {
  set("CUDA_VISIBLE_DEVICES", "GPU-12345678-aaaa-bbbb-cccc-000000000002,GPU-2");
  EXPECT_EQ(device_count(), 2);
  EXPECT_EQ(clock_rate(0), 1002);
  EXPECT_EQ(clock_rate(1), 1001);
  set("CUDA_VISIBLE_DEVICES", "GPU-1");  // GPU-11111111 and GPU-12345678: ambiguous
  EXPECT_EQ(device_count(), 0);
  EXPECT_EQ(error_of([] { utilization(0); }).first, Status::Index);
  set("CUDA_VISIBLE_DEVICES", "GPU-11,GPU-9,GPU-22");  // no match ends the list
  EXPECT_EQ(device_count(), 1);
  EXPECT_EQ(utilization(0), 10);
  set("CUDA_VISIBLE_DEVICES", "GPU-22,GPU-2222");  // one GPU twice
  EXPECT_EQ(device_count(), 0);
  set("CUDA_VISIBLE_DEVICES", "MIG-11111111");
  EXPECT_EQ(device_count(), -1);  // as torch, MIG is not parsed
  EXPECT_EQ(error_of([] { utilization(0); }).second, "device 0 is not visible (CUDA_VISIBLE_DEVICES=[])");
}

TEST_F(FakeNvml, FailuresCarryNvmlsText) {
  set("FAKE_NVML_TEMP_RC", "3");
  auto [code, msg] = error_of([] { temperature(1); });
  EXPECT_EQ(code, Status::NotSupported);
  EXPECT_EQ(msg, "NVML error in nvmlDeviceGetTemperature: Not Supported (nvmlReturn_t 3)");
  set("FAKE_NVML_TEMP_RC", "4");
  EXPECT_EQ(error_of([] { temperature(1); }).first, Status::NotSupported);
  set("FAKE_NVML_TEMP_RC", "15");
  std::tie(code, msg) = error_of([] { temperature(1); });
  EXPECT_EQ(code, Status::Cuda);
  EXPECT_EQ(msg, "NVML error in nvmlDeviceGetTemperature: GPU is lost (nvmlReturn_t 15)");
  EXPECT_EQ(utilization(1), 11);  // the other queries are not affected
}

TEST_F(FakeNvml, ListGpuProcesses) {
  set("CUDA_VISIBLE_DEVICES", "2");
  EXPECT_EQ(list_gpu_processes(0), "GPU:2\nno processes are running");
  set("FAKE_NVML_PROCS", "2");
  EXPECT_EQ(list_gpu_processes(0),
            "GPU:2\n"
            "process        100 uses        1.000 MB GPU memory\n"
            "process        101 uses        2.000 MB GPU memory");
  set("FAKE_NVML_NA", "1");
  EXPECT_EQ(list_gpu_processes(0),
            "GPU:2\n"
            "process        100 uses        1.000 MB GPU memory\n"
            "process        101 uses          N/A MB GPU memory");
  set("FAKE_NVML_NA", nullptr);
  // 9 processes start between the size query and the list, more than the 8 spare entries
  set("FAKE_NVML_GROW", "1");
  std::string text = list_gpu_processes(0);
  int lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 11) << text;
  EXPECT_NE(text.find("\nprocess        110 uses       11.000 MB GPU memory"), std::string::npos) << text;
  EXPECT_EQ(error_of([] { list_gpu_processes(1); }).second, "device 1 is not visible (CUDA_VISIBLE_DEVICES=[2])");
}
