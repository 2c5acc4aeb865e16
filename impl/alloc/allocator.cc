#include "impl/alloc/allocator.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "impl/alloc/cuda_memory.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::alloc {

namespace {

constexpr int64_t kAlign = 64;

void* cpu_alloc(int64_t nbytes) {
  int64_t rounded = nbytes <= 0 ? kAlign : (nbytes + kAlign - 1) / kAlign * kAlign;
  CT_CHECK(rounded >= nbytes, Status::OutOfMemory, "CPU out of memory: tried to allocate ", nbytes, " bytes");
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

}  // namespace

Block allocate(int64_t nbytes, Device device, bool pinned) {
  Block b;
  b.nbytes = nbytes;
  b.device = device;
  if (device.is_cpu()) {
    if (pinned) {
      cuda::check_available();
      if (nbytes > 0) b.ptr = host_allocator().malloc(static_cast<size_t>(nbytes));
      b.pinned = true;
    } else {
      b.ptr = cpu_alloc(nbytes);
    }
    return b;
  }
  // No device guard on the caching allocator's fast path: a cached block needs no CUDA call,
  // and the backend sets the device itself when it has to call cudaMalloc.
  const cuda::Stream& s = cuda::current_stream(device.index);
  b.stream = s;
  note_cuda_allocation();
  if (DeviceCachingAllocator* ca = caching_allocator(device.index)) {
    if (nbytes == 0) return b;  // no block for empty tensors (as PyTorch)
    CBlock* cb = ca->malloc(static_cast<size_t>(nbytes), s->stream, s);
    b.cblock = cb;
    b.ptr = block_ptr(cb);
    return b;
  }
  cuda::DeviceGuard g(device.index);
  if (const PluggableAllocator* p = pluggable_allocator()) {
    b.pluggable = true;
    if (nbytes == 0) return b;
    int64_t st = static_cast<int64_t>(reinterpret_cast<intptr_t>(s->stream));
    b.ptr = p->alloc ? p->alloc(nbytes, device.index, st, p->ctx)
                     : p->torch_alloc(static_cast<size_t>(nbytes), device.index, s->stream);
    CT_CHECK(b.ptr != nullptr, Status::OutOfMemory, "CUDA out of memory: the pluggable allocator returned NULL for ",
             format_size(nbytes), " on cuda:", device.index);
    return b;
  }
  b.ptr = cuda_alloc(nbytes, device.index, s->stream);
  return b;
}

void record_stream(Block& b, std::shared_ptr<void> stream) {
  if (!b.device.is_cuda() || !stream || stream == b.stream) return;
  if (b.cblock) {
    void* raw = static_cast<cuda::StreamImpl*>(stream.get())->stream;
    caching_allocator(b.device.index)->record_stream(static_cast<CBlock*>(b.cblock), raw, std::move(stream));
    return;
  }
  for (const auto& s : b.used_on)
    if (s == stream) return;
  b.used_on.push_back(std::move(stream));
}

void deallocate(Block& b) noexcept {
  if (b.device.is_cpu()) {
    if (b.pinned) {
      try {
        host_allocator().free(b.ptr);  // cached; reused after its copies (Note [Pinned memory reuse])
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ctorch: error while freeing pinned memory: %s\n", e.what());
      }
    } else {
      std::free(b.ptr);
    }
    return;
  }
  if (b.pluggable) {
    if (!b.ptr) return;
    const PluggableAllocator* p = pluggable_allocator();
    auto* own = static_cast<cuda::StreamImpl*>(b.stream.get());
    int64_t st = static_cast<int64_t>(reinterpret_cast<intptr_t>(own->stream));
    if (p->free) p->free(b.ptr, b.nbytes, b.device.index, st, p->ctx);
    else p->torch_free(b.ptr, static_cast<size_t>(b.nbytes), b.device.index, own->stream);
    return;
  }
  if (b.cblock) {
    // Runs in a destructor: an error (a CUDA failure while recording the events of
    // record_stream) cannot propagate; it is reported, and the block stays allocated.
    try {
      caching_allocator(b.device.index)->free(static_cast<CBlock*>(b.cblock));  // cached, no sync
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ctorch: error while freeing CUDA memory: %s\n", e.what());
    }
    return;
  }
  if (!b.ptr) return;
  auto* own = static_cast<cuda::StreamImpl*>(b.stream.get());
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(b.device.index);
  for (const auto& u : b.used_on) {
    auto* us = static_cast<cuda::StreamImpl*>(u.get());
    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) == cudaSuccess) {
      (void)cudaEventRecord(ev, us->stream);
      (void)cudaStreamWaitEvent(own->stream, ev, 0);
      (void)cudaEventDestroy(ev);
    }
  }
  (void)cudaFreeAsync(b.ptr, own->stream);
  (void)cudaGetLastError();
  if (prev >= 0) (void)cudaSetDevice(prev);
}

}  // namespace ct::alloc
