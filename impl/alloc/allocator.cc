#include "impl/alloc/allocator.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "impl/core/csan.h"
#include "impl/alloc/cuda_memory.h"
#include "impl/core/error.h"
#include "impl/cuda/capture.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::alloc {

namespace {

constexpr int64_t kAlign = 64;

void* cpu_alloc(int64_t nbytes) {
  // checked before rounding up: nbytes + kAlign - 1 past int64 is undefined, not negative
  CT_CHECK(nbytes <= std::numeric_limits<int64_t>::max() - kAlign, Status::OutOfMemory,
           "CPU out of memory: tried to allocate ", nbytes, " bytes");
  int64_t rounded = nbytes <= 0 ? kAlign : (nbytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, static_cast<size_t>(rounded));
  CT_CHECK(p != nullptr, Status::OutOfMemory, "CPU out of memory: tried to allocate ", nbytes, " bytes (",
           static_cast<double>(nbytes) / (1 << 20), " MiB)");
  return p;
}

void keep_pool_cached(int device) {
  static std::once_flag flags[64];
  static std::atomic<bool> done[64];  // Note [Once on hot paths]: no call_once per allocation
  if (done[device].load(std::memory_order_acquire)) return;
  std::call_once(flags[device], [device] {
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t never = UINT64_MAX;
      (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &never);
    }
    (void)cudaGetLastError();
  });
  done[device].store(true, std::memory_order_release);
}

std::string gib(int64_t b) { return str_cat(static_cast<double>(b) / (1LL << 30), " GiB"); }

void* cuda_alloc(int64_t nbytes, int device, cudaStream_t stream) {
  keep_pool_cached(device);
  void* p = nullptr;
  if (nbytes == 0) return nullptr;
  cudaError_t err = cudaMallocAsync(&p, static_cast<size_t>(nbytes), stream);
  cudaMemPool_t pool;
  if (err == cudaErrorMemoryAllocation) {
    // Free the cached memory of the pool and try once more (as PyTorch's allocator does).
    (void)cudaGetLastError();
    cuda::check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    cuda::check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
    err = cudaMallocAsync(&p, static_cast<size_t>(nbytes), stream);
  }
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    if (run_oom_hooks(device, static_cast<size_t>(nbytes))) {  // Note [Out-of-memory hooks]
      cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      cuda::check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
      err = cudaMallocAsync(&p, static_cast<size_t>(nbytes), stream);
    }
  }
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t f = 0, t = 0;
    (void)cudaMemGetInfo(&f, &t);
    fail(Status::OutOfMemory, "CUDA out of memory. Tried to allocate ", gib(nbytes), ". GPU ", device,
         " has a total capacity of ", gib(static_cast<int64_t>(t)), " of which ", gib(static_cast<int64_t>(f)),
         " is free.");
  }
  cuda::check(err, "cudaMallocAsync");
  return p;
}

// The deleters of the DataPtrs made here; each identifies where its memory came from.
void free_host(void* p) { std::free(p); }

void free_pinned(void* p) {
  try {
    host_allocator().free(p);  // cached; reused after its copies (Note [Pinned memory reuse])
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctorch: error while freeing pinned memory: %s\n", e.what());
  }
}

void free_cached(void* ctx) {
  // Runs in a destructor: an error (a CUDA failure while recording the events of
  // record_stream) cannot propagate; it is reported, and the block stays allocated.
  auto* cb = static_cast<CBlock*>(ctx);
  try {
    if (csan::on()) csan::memory_freed(block_ptr(cb));
    caching_allocator(block_device(cb))->free(cb);  // cached, no sync
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctorch: error while freeing CUDA memory: %s\n", e.what());
  }
}

// Memory of the pluggable allocator and of the cudaMallocAsync backend: freed on the stream it
// was allocated on.
struct StreamMemory {
  void* ptr;
  int64_t nbytes;
  int device;
  cuda::Stream stream;
  std::vector<cuda::Stream> used_on;  // from record_stream (cudaMallocAsync backend)
};

void free_pluggable(void* ctx) {
  std::unique_ptr<StreamMemory> m(static_cast<StreamMemory*>(ctx));
  if (csan::on()) csan::memory_freed(m->ptr);
  const PluggableAllocator* p = pluggable_allocator();
  int64_t st = static_cast<int64_t>(reinterpret_cast<intptr_t>(m->stream->stream));
  if (p->free) p->free(m->ptr, m->nbytes, m->device, st, p->ctx);
  else p->torch_free(m->ptr, static_cast<size_t>(m->nbytes), m->device, m->stream->stream);
}

void free_async(void* ctx) {
  std::unique_ptr<StreamMemory> m(static_cast<StreamMemory*>(ctx));
  if (csan::on()) csan::memory_freed(m->ptr);
  cudaStream_t own = m->stream->stream;
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(m->device);
  for (const cuda::Stream& u : m->used_on) {
    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) == cudaSuccess) {
      (void)cudaEventRecord(ev, u->stream);
      (void)cudaStreamWaitEvent(own, ev, 0);
      (void)cudaEventDestroy(ev);
    }
  }
  (void)cudaFreeAsync(m->ptr, own);
  (void)cudaGetLastError();
  if (prev >= 0) (void)cudaSetDevice(prev);
}

DataPtr stream_memory(void* ptr, int64_t nbytes, Device device, const cuda::Stream& s, DeleterFn deleter) {
  auto m = std::make_unique<StreamMemory>(StreamMemory{ptr, nbytes, device.index, s, {}});
  return DataPtr(ptr, m.release(), deleter, device);
}

DataPtr allocate_cuda(int64_t nbytes, Device device) {
  // No device guard on the caching allocator's fast path: a cached block needs no CUDA call,
  // and the backend sets the device itself when it has to call cudaMalloc.
  const cuda::Stream& s = cuda::current_stream(device.index);
  note_cuda_allocation();
  if (nbytes == 0) return DataPtr(nullptr, device);  // no memory for empty tensors (as PyTorch)
  if (DeviceCachingAllocator* ca = caching_allocator(device.index)) {
    CBlock* cb = ca->malloc(static_cast<size_t>(nbytes), s->stream, s);
    return DataPtr(block_ptr(cb), cb, &free_cached, device);
  }
  cuda::DeviceGuard g(device.index);
  if (const PluggableAllocator* p = pluggable_allocator()) {
    // Its memory cannot be kept in a graph's pool (Note [Illegal operations during capture]).
    cuda::check_capture_safe("an allocation from the pluggable CUDA allocator", s->stream);
    int64_t st = static_cast<int64_t>(reinterpret_cast<intptr_t>(s->stream));
    void* ptr = p->alloc ? p->alloc(nbytes, device.index, st, p->ctx)
                         : p->torch_alloc(static_cast<size_t>(nbytes), device.index, s->stream);
    CT_CHECK(ptr != nullptr, Status::OutOfMemory, "CUDA out of memory: the pluggable allocator returned NULL for ",
             format_size(nbytes), " on cuda:", device.index);
    return stream_memory(ptr, nbytes, device, s, &free_pluggable);
  }
  return stream_memory(cuda_alloc(nbytes, device.index, s->stream), nbytes, device, s, &free_async);
}

// Core's allocator for both device types (Note [Allocator hook]).
[[maybe_unused]] const bool g_registered = [] {
  set_allocator(DeviceType::CPU, &allocate);
  set_allocator(DeviceType::CUDA, &allocate);
  return true;
}();

}  // namespace

DataPtr allocate(int64_t nbytes, Device device, bool pinned) {
  if (device.is_cuda()) {
    DataPtr p = allocate_cuda(nbytes, device);
    if (csan::on()) csan::memory_allocated(p.get());  // Note [Stream sanitizer]: a new history
    return p;
  }
  if (!pinned) {
    void* p = cpu_alloc(nbytes);
    return DataPtr(p, p, &free_host, device);
  }
  cuda::check_available();
  cuda::check_capture_safe("a pinned host memory allocation (cudaHostAlloc)");
  void* p = nbytes > 0 ? host_allocator().malloc(static_cast<size_t>(nbytes)) : nullptr;
  return DataPtr(p, p, &free_pinned, device);  // an empty one has no memory but is pinned (as PyTorch's)
}

void record_stream(const DataPtr& p, const cuda::Stream& s) {
  if (!p.device().is_cuda() || !s || !p.context()) return;
  if (p.deleter() == &free_cached) {
    caching_allocator(p.device().index)->record_stream(static_cast<CBlock*>(p.context()), s->stream, s);
  } else if (p.deleter() == &free_async) {
    auto* m = static_cast<StreamMemory*>(p.context());
    if (s == m->stream) return;
    for (const cuda::Stream& u : m->used_on)
      if (u == s) return;
    m->used_on.push_back(s);
  }  // the pluggable allocator's memory: the user's allocator owns its reuse
}

bool is_pinned(const DataPtr& p) { return p.deleter() == &free_pinned; }

void empty_cache() {
  cuda::check_available();
  cuda::check_capture_safe("empty_cache");  // it would cudaFree and wait for events
  for (int d = 0; d < cuda::device_count(); ++d) {
    if (DeviceCachingAllocator* a = caching_allocator(d)) a->empty_cache();
  }
  host_allocator().empty_cache();
}

DataPtr allocate_on_stream(int64_t nbytes, const cuda::Stream& s) {
  DeviceCachingAllocator& a = native_allocator(s->device);
  note_cuda_allocation();
  CBlock* cb = a.malloc(static_cast<size_t>(nbytes), s->stream, s);
  if (csan::on()) csan::memory_allocated(block_ptr(cb));
  return DataPtr(block_ptr(cb), cb, &free_cached, Device{DeviceType::CUDA, s->device});
}

}  // namespace ct::alloc
