// Section 15 of ctorch.h: the caching allocator's statistics and controls.
#include "capi/api.h"
#include "capi/handles.h"
#include "impl/alloc/allocator.h"
#include "impl/alloc/cuda_memory.h"
#include "impl/alloc/raw_allocations.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

using namespace ct;
using namespace ct::capi;
using ct::alloc::DeviceCachingAllocator;

namespace {

DeviceCachingAllocator* allocator_of(int32_t device) { return &alloc::native_allocator(device); }

int64_t stat(int32_t device, const char* key) {
  DeviceCachingAllocator* a = allocator_of(device);
  auto m = alloc::stats_map(a->stats(), a->config());
  auto it = m.find(key);
  CT_CHECK(it != m.end(), CT_ERR_ARGUMENT, "unknown memory_stats key '", key,
           "' (expected a PyTorch key such as 'allocated_bytes.all.current'; ct_cuda_memory_stats_keys lists them)");
  return it->second;
}

}  // namespace

extern "C" {

CT_API ct_status ct_cuda_memory_allocated(int32_t device, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = stat(device, "allocated_bytes.all.current");
  CT_API_END
}

CT_API ct_status ct_cuda_max_memory_allocated(int32_t device, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = stat(device, "allocated_bytes.all.peak");
  CT_API_END
}

CT_API ct_status ct_cuda_memory_reserved(int32_t device, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = stat(device, "reserved_bytes.all.current");
  CT_API_END
}

CT_API ct_status ct_cuda_max_memory_reserved(int32_t device, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = stat(device, "reserved_bytes.all.peak");
  CT_API_END
}

CT_API ct_status ct_cuda_reset_peak_memory_stats(int32_t device) {
  CT_API_BEGIN
  allocator_of(device)->reset_peak_stats();
  CT_API_END
}

CT_API ct_status ct_cuda_reset_max_memory_allocated(int32_t device) {
  CT_API_BEGIN
  allocator_of(device)->reset_peak_stats();
  CT_API_END
}

CT_API ct_status ct_cuda_reset_accumulated_memory_stats(int32_t device) {
  CT_API_BEGIN
  allocator_of(device)->reset_accumulated_stats();
  CT_API_END
}

CT_API ct_status ct_cuda_memory_stat(int32_t device, const char* key, int64_t* out) {
  CT_API_BEGIN
  need(key, "key");
  need(out, "out");
  *out = stat(device, key);
  CT_API_END
}

CT_API ct_status ct_cuda_memory_stats_keys(int32_t device, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  DeviceCachingAllocator* a = allocator_of(device);
  std::string keys;
  for (auto& [k, v] : alloc::stats_map(a->stats(), a->config())) keys += k + "\n";
  write_string(keys, buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_memory_snapshot(int32_t device, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(allocator_of(device)->snapshot_json(), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_memory_summary(int32_t device, int32_t abbreviated, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  int d = cuda::resolve_device(device);
  DeviceCachingAllocator* a = allocator_of(d);
  write_string(alloc::memory_summary(alloc::stats_map(a->stats(), a->config()), d, abbreviated != 0), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_empty_cache(void) {
  CT_API_BEGIN
  alloc::empty_cache();
  CT_API_END
}

CT_API ct_status ct_cuda_set_per_process_memory_fraction(double fraction, int32_t device) {
  CT_API_BEGIN
  allocator_of(device)->set_memory_fraction(fraction);
  CT_API_END
}

CT_API ct_status ct_cuda_caching_allocator_alloc(int64_t size, int32_t device, ct_stream stream, int64_t* ptr) {
  CT_API_BEGIN
  need(ptr, "ptr");
  CT_CHECK(size > 0, CT_ERR_ARGUMENT, "caching_allocator_alloc: size must be positive, got ", size);
  int d = cuda::resolve_device(device);
  cuda::Stream s = optional_stream(stream);
  if (!s) s = cuda::current_stream(d);
  CT_CHECK(s->device == d, CT_ERR_DEVICE, "caching_allocator_alloc: the stream is on cuda:", s->device,
           " but the memory is for cuda:", d);
  void* p = alloc::raw_allocations().add(alloc::allocate_on_stream(size, s));
  *ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(p));
  CT_API_END
}

CT_API ct_status ct_cuda_caching_allocator_delete(int64_t ptr) {
  CT_API_BEGIN
  alloc::raw_allocations().remove(reinterpret_cast<void*>(static_cast<intptr_t>(ptr)));
  CT_API_END
}

CT_API ct_status ct_cuda_set_allocator(ct_cuda_alloc_fn alloc_fn, ct_cuda_free_fn free_fn, void* ctx) {
  CT_API_BEGIN
  CT_CHECK(alloc_fn != nullptr, CT_ERR_NULL_POINTER, "argument 'alloc' is NULL (expected a function)");
  CT_CHECK(free_fn != nullptr, CT_ERR_NULL_POINTER, "argument 'free_fn' is NULL (expected a function)");
  alloc::PluggableAllocator p;
  p.alloc = alloc_fn;
  p.free = free_fn;
  p.ctx = ctx;
  alloc::set_pluggable_allocator(p);
  CT_API_END
}

CT_API ct_status ct_cuda_load_allocator(const char* path, const char* alloc_symbol, const char* free_symbol) {
  CT_API_BEGIN
  need(path, "path");
  need(alloc_symbol, "alloc_symbol");
  need(free_symbol, "free_symbol");
  alloc::load_pluggable_allocator(path, alloc_symbol, free_symbol);
  CT_API_END
}

CT_API ct_status ct_cuda_get_allocator_backend(void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(alloc::cuda_backend_name(), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_add_oom_hook(ct_oom_hook_fn hook, void* ctx, int64_t* id) {
  CT_API_BEGIN
  need(reinterpret_cast<const void*>(hook), "hook");
  need(id, "id");
  *id = alloc::add_oom_hook([hook, ctx](int device, size_t bytes) {
    hook(static_cast<int32_t>(device), static_cast<int64_t>(bytes), ctx);
  });
  CT_API_END
}

CT_API ct_status ct_cuda_remove_oom_hook(int64_t id) {
  CT_API_BEGIN
  CT_CHECK(alloc::remove_oom_hook(id), CT_ERR_ARGUMENT, "remove_oom_hook: no out-of-memory hook has id ", id,
           " (expected an id from ct_cuda_add_oom_hook that was not removed yet)");
  CT_API_END
}

CT_API ct_status ct_cuda_memory_stream_stat(ct_stream stream, const char* key, int64_t* out) {
  CT_API_BEGIN
  need(key, "key");
  need(out, "out");
  cuda::Stream s = StreamTable::get().lookup(stream, "stream");
  DeviceCachingAllocator* a = allocator_of(s->device);
  auto m = alloc::stream_stats_map(a->stream_stats(s->stream));
  auto it = m.find(key);
  CT_CHECK(it != m.end(), CT_ERR_ARGUMENT, "unknown per-stream memory statistic '", key,
           "' (expected allocation, allocated_bytes, requested_bytes, active, active_bytes, segment or "
           "reserved_bytes followed by .current, .peak, .allocated or .freed)");
  *out = it->second;
  CT_API_END
}

}  // extern "C"
