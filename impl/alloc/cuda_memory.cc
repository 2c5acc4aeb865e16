#include "impl/alloc/cuda_memory.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::alloc {

namespace {

// Real device memory for the caching allocator.
class CudaBackend final : public DeviceBackend {
 public:
  void* malloc(int device, size_t size) override {
    void* p = nullptr;
    if (device < 0) {  // pinned host memory
      cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return nullptr;
      }
      cuda::check(err, "cudaHostAlloc");
      return p;
    }
    cuda::DeviceGuard g(device);
    cudaError_t err = cudaMalloc(&p, size);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    cuda::check(err, "cudaMalloc");
    return p;
  }
  void free(int device, void* p) override {
    if (device < 0) {
      cuda::check(cudaFreeHost(p), "cudaFreeHost");
      return;
    }
    cuda::DeviceGuard g(device);
    cuda::check(cudaFree(p), "cudaFree");
  }
  void mem_info(int device, size_t* f, size_t* t) override {
    cuda::DeviceGuard g(device);
    cuda::check(cudaMemGetInfo(f, t), "cudaMemGetInfo");
  }
  void* record_event(int device, void* stream) override {
    cuda::DeviceGuard g(device);
    cudaEvent_t ev;
    cuda::check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    cuda::check(cudaEventRecord(ev, static_cast<cudaStream_t>(stream)), "cudaEventRecord");
    return ev;
  }
  bool event_done(void* ev) override {
    cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(ev));
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    cuda::check(err, "cudaEventQuery");
    return true;
  }
  void event_wait(void* ev) override { cuda::check(cudaEventSynchronize(static_cast<cudaEvent_t>(ev)), "cudaEventSynchronize"); }
  void event_destroy(void* ev) override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(ev)); }
};

struct Setup {
  Setup() : host(&cuda_backend) {}
  std::string backend = "native";
  bool native = true;
  CachingConfig config;
  std::vector<std::unique_ptr<DeviceCachingAllocator>> per_device;
  CudaBackend cuda_backend;
  HostCachingAllocator host;
};

Setup& setup() {
  static Setup* s = [] {
    auto* st = new Setup();  // never destroyed: tensors may be freed during exit
    const char* env = std::getenv("CTORCH_CUDA_ALLOC_CONF");
    if (env) st->config = parse_alloc_conf(env, &st->backend);  // throws a clear error at first use
    st->native = st->backend == "native";
    int n = cuda::device_count();
    for (int d = 0; d < n; ++d) st->per_device.emplace_back(new DeviceCachingAllocator(d, &st->cuda_backend, st->config));
    cuda::set_stream_destroyed_hook([](int device, cudaStream_t s) {
      if (DeviceCachingAllocator* a = caching_allocator(device)) a->forget_stream(s);
    });
    return st;
  }();
  return *s;
}

}  // namespace

namespace {
std::mutex g_plug_mu;
std::unique_ptr<PluggableAllocator> g_plug;
std::atomic<bool> g_allocated{false};
}  // namespace

void set_pluggable_allocator(const PluggableAllocator& a) {
  std::lock_guard<std::mutex> g(g_plug_mu);
  CT_CHECK(!g_allocated.load(), CT_ERR_STATE,
           "the CUDA allocator can only be changed before the first CUDA allocation of the process "
           "(as torch.cuda.memory.change_current_allocator)");
  g_plug.reset(new PluggableAllocator(a));
}

const PluggableAllocator* pluggable_allocator() { return g_plug.get(); }

void note_cuda_allocation() {
  if (!g_allocated.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> g(g_plug_mu);
    g_allocated.store(true);
  }
}

const std::string& cuda_backend_name() {
  static const std::string pluggable = "pluggable";
  if (g_plug) return pluggable;
  return setup().backend;
}

HostCachingAllocator& host_allocator() { return setup().host; }

DeviceCachingAllocator* caching_allocator(int device) {
  if (g_plug) return nullptr;
  Setup& s = setup();
  if (!s.native) return nullptr;
  CT_CHECK(device >= 0 && device < static_cast<int>(s.per_device.size()), CT_ERR_INDEX, "Invalid CUDA device index ",
           device, " for the caching allocator");
  return s.per_device[device].get();
}

}  // namespace ct::alloc
