// What moved from the C ABI glue into impl (issue 13): device resolution (Note [Device
// resolution]), the device exchange, the stream guard (Note [Stream guard]), the raw-allocation
// registry (Note [Raw allocations]) and loading a pluggable allocator. Without a GPU the CUDA paths
// check their errors; with one they also check the values.
#include <gtest/gtest.h>

#include <string>

#include "impl/alloc/allocator.h"
#include "impl/alloc/cuda_memory.h"
#include "impl/alloc/raw_allocations.h"
#include "impl/core/error.h"
#include "impl/cuda/exchange.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"
#include "tests/impl/error_of.h"

using namespace ct;

namespace {

int g_freed = 0;
void count_free(void* p) {
  ++g_freed;
  std::free(p);
}

DataPtr counted(size_t n) {
  void* p = std::malloc(n);
  return DataPtr(p, p, &count_free, Device{});
}

}  // namespace

TEST(DeviceResolution, CpuNeedsNoGpu) {
  EXPECT_EQ(cuda::resolve_device(Device{DeviceType::CPU, 0}), (Device{DeviceType::CPU, -1}));
  EXPECT_EQ(cuda::resolve_device(Device{DeviceType::CPU, -1}), (Device{DeviceType::CPU, -1}));
}

TEST(DeviceResolution, NegativeMeansCurrentAndEveryIndexIsChecked) {
  if (!cuda::is_available()) {
    for (int d : {-1, 0, 7}) {
      EXPECT_EQ(error_of([d] { cuda::resolve_device(d); }).first, Status::CudaUnavailable) << d;
      EXPECT_EQ(error_of([d] { cuda::resolve_device(Device{DeviceType::CUDA, d}); }).first, Status::CudaUnavailable);
    }
    return;
  }
  int n = cuda::device_count();
  EXPECT_EQ(cuda::resolve_device(-1), cuda::current_device());
  EXPECT_EQ(cuda::resolve_device(Device{DeviceType::CUDA, -1}), (Device{DeviceType::CUDA, cuda::current_device()}));
  EXPECT_EQ(cuda::resolve_device(n - 1), n - 1);
  auto [code, msg] = error_of([n] { cuda::resolve_device(n); });
  EXPECT_EQ(code, Status::Index);
  EXPECT_NE(msg.find("Invalid CUDA device index " + std::to_string(n)), std::string::npos) << msg;
  EXPECT_EQ(error_of([n] { cuda::resolve_device(Device{DeviceType::CUDA, n}); }).first, Status::Index);
}

TEST(ExchangeDevice, NegativeChangesNothing) {
  if (!cuda::is_available()) {
    EXPECT_EQ(cuda::exchange_device(-1), -1);
    EXPECT_EQ(error_of([] { cuda::exchange_device(0); }).first, Status::CudaUnavailable);
    return;
  }
  int cur = cuda::current_device();
  EXPECT_EQ(cuda::exchange_device(-1), cur);
  EXPECT_EQ(cuda::exchange_device(cur), cur);
  EXPECT_EQ(cuda::current_device(), cur);
  EXPECT_EQ(error_of([] { cuda::exchange_device(cuda::device_count()); }).first, Status::Index);
}

TEST(StreamGuard, SwitchesAndRestores) {
  if (!cuda::is_available()) {
    auto s = std::make_shared<cuda::StreamImpl>();
    EXPECT_EQ(error_of([&] { cuda::stream_guard_enter(s); }).first, Status::CudaUnavailable);
    return;
  }
  int dev = cuda::current_device();
  cuda::Stream before = cuda::current_stream(dev);
  cuda::Stream s = cuda::create_stream(dev, 0);
  cuda::SavedStream saved = cuda::stream_guard_enter(s);
  EXPECT_EQ(saved.stream, before);
  EXPECT_EQ(saved.device, dev);
  EXPECT_EQ(cuda::current_stream(dev), s);
  cuda::stream_guard_exit(saved);
  EXPECT_EQ(cuda::current_stream(dev), before);
  EXPECT_EQ(cuda::current_device(), dev);
}

TEST(RawAllocations, DeletesEachAddressOnce) {
  alloc::RawAllocations r;
  g_freed = 0;
  void* a = r.add(counted(16));
  void* b = r.add(counted(32));
  EXPECT_NE(a, b);
  EXPECT_EQ(r.size(), 2u);
  r.remove(a);
  EXPECT_EQ(g_freed, 1);
  EXPECT_EQ(r.size(), 1u);
  auto [code, msg] = error_of([&] { r.remove(a); });
  EXPECT_EQ(code, Status::Argument);
  EXPECT_NE(msg.find("is not memory from ct_cuda_caching_allocator_alloc (or it was freed already)"),
            std::string::npos)
      << msg;
  int local = 0;
  EXPECT_EQ(error_of([&] { r.remove(&local); }).first, Status::Argument);
  EXPECT_EQ(g_freed, 1);
  EXPECT_EQ(error_of([&] { r.add(DataPtr()); }).first, Status::Internal);
  r.remove(b);
  EXPECT_EQ(g_freed, 2);
  EXPECT_EQ(r.size(), 0u);
}

TEST(Allocator, HostMemoryIsADataPtr) {
  DataPtr p = alloc::allocate(100, Device{});
  ASSERT_NE(p.get(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % 64, 0u);
  EXPECT_TRUE(p.device().is_cpu());
  EXPECT_FALSE(alloc::is_pinned(p));
  if (!cuda::is_available()) {
    EXPECT_EQ(error_of([] { alloc::allocate(100, Device{}, true); }).first, Status::CudaUnavailable);
  } else {
    DataPtr pinned = alloc::allocate(100, Device{}, true);
    EXPECT_TRUE(alloc::is_pinned(pinned));
  }
}

TEST(PluggableAllocator, LoadErrorsNameTheLibraryAndFunction) {
  auto [code, msg] = error_of([] { alloc::load_pluggable_allocator("/nonexistent/liballoc.so", "a", "f"); });
  EXPECT_EQ(code, Status::Argument);
  EXPECT_NE(msg.find("cannot load the allocator library '/nonexistent/liballoc.so': "), std::string::npos) << msg;
  std::tie(code, msg) = error_of([] { alloc::load_pluggable_allocator("libm.so.6", "cos", "no_such_free"); });
  EXPECT_EQ(code, Status::Argument);
  EXPECT_EQ(msg, "the allocator library 'libm.so.6' has no function 'no_such_free'");
  EXPECT_EQ(alloc::pluggable_allocator(), nullptr);  // nothing was set
}
