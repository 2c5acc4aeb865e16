#include "impl/alloc/cuda_memory.h"

#include <cuda.h>  // driver API types only (Note [Expandable segments])
#include <cuda_runtime_api.h>

#include <cstring>
#include <unordered_map>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "impl/core/dynlib.h"
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
  // Note [Graph private pools]: a segment for a private pool, allocated during its capture.
  void* malloc_for_capture(int device, size_t size) override {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cuda::check(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
    struct Restore {
      cudaStreamCaptureMode mode;
      ~Restore() { (void)cudaThreadExchangeStreamCaptureMode(&mode); }
    } restore{mode};
    return malloc(device, size);
  }
  uint64_t capture_id(void* stream) override {
    if (stream == nullptr) return 0;  // the legacy default stream never captures
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    cuda::check(cudaStreamGetCaptureInfo(static_cast<cudaStream_t>(stream), &status, &id), "cudaStreamGetCaptureInfo");
    return status == cudaStreamCaptureStatusActive ? static_cast<uint64_t>(id) : 0;
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

  // Expandable segments through the driver's virtual memory API, reached through the runtime's
  // entry-point query, so libctorch.so still has no link-time dependency on libcuda.
  void* vm_reserve(int device, size_t size) override {
    const Vmm& v = vmm();
    cuda::DeviceGuard g(device);
    cuda::check(cudaFree(nullptr), "cudaFree(0)");  // the device's context exists and is current
    CUdeviceptr p = 0;
    drv(v.reserve(&p, size, 0, 0, 0), "cuMemAddressReserve");
    return reinterpret_cast<void*>(p);
  }
  bool vm_map(int device, void* ptr, size_t page) override {
    const Vmm& v = vmm();
    cuda::DeviceGuard g(device);
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    CUmemGenericAllocationHandle h = 0;
    CUresult r = v.create(&h, page, &prop, 0);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return false;
    drv(r, "cuMemCreate");
    CUdeviceptr p = reinterpret_cast<CUdeviceptr>(ptr);
    r = v.map(p, page, 0, h, 0);
    if (r != CUDA_SUCCESS) {
      (void)v.release(h);
      if (r == CUDA_ERROR_OUT_OF_MEMORY) return false;
      drv(r, "cuMemMap");
    }
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    r = v.set_access(p, page, &access, 1);
    if (r != CUDA_SUCCESS) {
      (void)v.unmap(p, page);
      (void)v.release(h);
      if (r == CUDA_ERROR_OUT_OF_MEMORY) return false;
      drv(r, "cuMemSetAccess");
    }
    std::lock_guard<std::mutex> lk(vm_mu_);
    handles_[ptr] = h;
    return true;
  }
  void vm_unmap(int device, void* ptr, size_t page) override {
    const Vmm& v = vmm();
    cuda::DeviceGuard g(device);
    CUmemGenericAllocationHandle h;
    {
      std::lock_guard<std::mutex> lk(vm_mu_);
      auto it = handles_.find(ptr);
      CT_CHECK(it != handles_.end(), Status::Internal, "expandable segment page not mapped");
      h = it->second;
      handles_.erase(it);
    }
    drv(v.unmap(reinterpret_cast<CUdeviceptr>(ptr), page), "cuMemUnmap");
    drv(v.release(h), "cuMemRelease");
  }
  void vm_release(int device, void* ptr, size_t size) override {
    cuda::DeviceGuard g(device);
    drv(vmm().address_free(reinterpret_cast<CUdeviceptr>(ptr), size), "cuMemAddressFree");
  }
  void synchronize(int device) override {
    cuda::DeviceGuard g(device);
    cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

 private:
  struct Vmm {
    CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*address_free)(CUdeviceptr, size_t);
    CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
    CUresult (*error_string)(CUresult, const char**);
  };
  static const Vmm& vmm() {
    static const Vmm v = [] {
      Vmm x{};
      auto get = [](const char* name, void* slot) {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        cuda::check(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q),
                    "cudaGetDriverEntryPointByVersion");
        CT_CHECK(q == cudaDriverEntryPointSuccess && fn, Status::NotSupported,
                 "expandable_segments: the CUDA driver does not provide ", name);
        std::memcpy(slot, &fn, sizeof fn);
      };
      get("cuMemAddressReserve", &x.reserve);
      get("cuMemAddressFree", &x.address_free);
      get("cuMemCreate", &x.create);
      get("cuMemRelease", &x.release);
      get("cuMemMap", &x.map);
      get("cuMemUnmap", &x.unmap);
      get("cuMemSetAccess", &x.set_access);
      get("cuGetErrorString", &x.error_string);
      return x;
    }();
    return v;
  }
  static void drv(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* msg = nullptr;
    if (vmm().error_string) (void)vmm().error_string(r, &msg);
    fail(Status::Cuda, "CUDA driver error: ", msg ? msg : "unknown", " (", static_cast<int>(r), " in ", what,
         ", expandable_segments)");
  }
  std::mutex vm_mu_;
  std::unordered_map<void*, CUmemGenericAllocationHandle> handles_;
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
      setup().host.forget_stream(device, s);
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
  CT_CHECK(!g_allocated.load(), Status::State,
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

void load_pluggable_allocator(const std::string& path, const std::string& alloc_symbol,
                              const std::string& free_symbol) {
  std::string error;
  void* h = open_library(path, &error);
  CT_CHECK(h != nullptr, Status::Argument, "cannot load the allocator library '", path, "': ", error);
  PluggableAllocator p;
  Symbols s(h);
  s.bind(p.torch_alloc, alloc_symbol);
  s.bind(p.torch_free, free_symbol);
  try {
    CT_CHECK(s.missing().empty(), Status::Argument, "the allocator library '", path, "' has no function '",
             s.missing(), "'");
    set_pluggable_allocator(p);
  } catch (...) {
    close_library(h);
    throw;
  }
}

DeviceCachingAllocator& native_allocator(int device) {
  DeviceCachingAllocator* a = caching_allocator(cuda::resolve_device(device));
  CT_CHECK(a != nullptr, Status::NotSupported, "memory statistics need the native caching allocator; the backend is '",
           cuda_backend_name(), "' (CTORCH_CUDA_ALLOC_CONF)");
  return *a;
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
  CT_CHECK(device >= 0 && device < static_cast<int>(s.per_device.size()), Status::Index, "Invalid CUDA device index ",
           device, " for the caching allocator");
  return s.per_device[device].get();
}

}  // namespace ct::alloc
