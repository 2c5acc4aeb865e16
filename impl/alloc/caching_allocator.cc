#include "impl/alloc/caching_allocator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "impl/core/error.h"

namespace ct::alloc {

namespace {
constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = 1 << 20;         // largest "small" request
constexpr size_t kSmallBuffer = 2 << 20;       // small pool segment
constexpr size_t kLargeBuffer = 20 << 20;      // large pool segment for 1-10 MiB requests
constexpr size_t kMinLargeAlloc = 10 << 20;
constexpr size_t kRoundLarge = 2 << 20;

std::mutex g_hook_mu;
int64_t g_next_hook_id = 1;
std::vector<std::pair<int64_t, OomHook>>& oom_hooks() {
  static auto* v = new std::vector<std::pair<int64_t, OomHook>>();
  return *v;
}
thread_local bool t_in_hooks = false;
}  // namespace

int64_t add_oom_hook(OomHook hook) {
  std::lock_guard<std::mutex> g(g_hook_mu);
  int64_t id = g_next_hook_id++;
  oom_hooks().emplace_back(id, std::move(hook));
  return id;
}

bool remove_oom_hook(int64_t id) {
  std::lock_guard<std::mutex> g(g_hook_mu);
  auto& v = oom_hooks();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->first == id) {
      v.erase(it);
      return true;
    }
  }
  return false;
}

void clear_oom_hooks() {
  std::lock_guard<std::mutex> g(g_hook_mu);
  oom_hooks().clear();
}

bool run_oom_hooks(int device, size_t bytes) {
  if (t_in_hooks) return false;
  std::vector<std::pair<int64_t, OomHook>> hooks;
  {
    std::lock_guard<std::mutex> g(g_hook_mu);
    hooks = oom_hooks();
  }
  if (hooks.empty()) return false;
  t_in_hooks = true;
  struct Reset {
    ~Reset() { t_in_hooks = false; }
  } reset;
  for (auto& [id, hook] : hooks) {
    try {
      hook(device, bytes);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ctorch: an out-of-memory hook failed: %s\n", e.what());
    }
  }
  return true;
}

struct CBlock {
  CBlock(int d, void* st, std::shared_ptr<void> ref, size_t sz, void* p, bool sm, StreamStats* s = nullptr)
      : device(d), stream(st), stream_ref(std::move(ref)), size(sz), ptr(p), small(sm), ss(s) {}
  int device;
  void* stream;
  std::shared_ptr<void> stream_ref;
  size_t size;
  size_t requested = 0;
  void* ptr;
  bool small;
  DeviceCachingAllocator::Pool* pool = nullptr;  // the pool it belongs to (default or private)
  StreamStats* ss;  // the figures of the block's stream
  bool allocated = false;
  bool mapped = true;                          // false: unmapped space of an expandable segment
  DeviceCachingAllocator::ExpSeg* es = nullptr;  // the expandable segment it lies in, if any
  int event_count = 0;
  // streams from record_stream (each kept alive until the free); usually empty
  std::vector<std::pair<void*, std::shared_ptr<void>>> stream_uses;
  CBlock* prev = nullptr;  // neighbours in the segment
  CBlock* next = nullptr;
  CBlock* all_prev = nullptr;  // every live block of the allocator (snapshots, destructor)
  CBlock* all_next = nullptr;
  bool is_split() const { return prev || next; }
};

namespace {
// Note [Allocator bookkeeping without malloc]: a create+free of a small tensor splits a cached
// segment and merges it back, which costs a block object and two tree nodes. Both are recycled
// through free lists kept under the allocator's lock, so the steady state calls no malloc.
struct FreeList {
  std::vector<void*> chunks;
  size_t chunk_size = 0;
  ~FreeList() {
    for (void* p : chunks) ::operator delete(p);
  }
};
constexpr size_t kMaxFree = 4096;

template <typename T>
struct NodeAlloc {
  using value_type = T;
  FreeList* fl;
  explicit NodeAlloc(FreeList* f) : fl(f) {}
  template <typename U>
  NodeAlloc(const NodeAlloc<U>& o) : fl(o.fl) {}
  T* allocate(size_t n) {
    if (n == 1 && (fl->chunk_size == 0 || fl->chunk_size == sizeof(T))) {
      fl->chunk_size = sizeof(T);
      if (!fl->chunks.empty()) {
        void* p = fl->chunks.back();
        fl->chunks.pop_back();
        return static_cast<T*>(p);
      }
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1 && fl->chunk_size == sizeof(T) && fl->chunks.size() < kMaxFree) {
      fl->chunks.push_back(p);
      return;
    }
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const NodeAlloc<U>& o) const { return fl == o.fl; }
  template <typename U>
  bool operator!=(const NodeAlloc<U>& o) const { return fl != o.fl; }
};
}  // namespace

void* block_ptr(const CBlock* b) { return b->ptr; }
int block_device(const CBlock* b) { return b->device; }

struct DeviceCachingAllocator::Pool {
  struct Less {
    bool operator()(const CBlock* a, const CBlock* b) const {
      if (a->stream != b->stream) return reinterpret_cast<uintptr_t>(a->stream) < reinterpret_cast<uintptr_t>(b->stream);
      if (a->size != b->size) return a->size < b->size;
      return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
    }
  };
  explicit Pool(bool s, PrivatePool* o = nullptr)
      : small(s), owner(o), blocks(Less(), NodeAlloc<CBlock*>(&nodes)), unmapped(Less(), NodeAlloc<CBlock*>(&nodes)) {}
  bool small;
  PrivatePool* owner;  // the graph's pool it belongs to; nullptr: a default pool
  FreeList nodes;  // declared before the sets: destroyed after them
  std::set<CBlock*, Less, NodeAlloc<CBlock*>> blocks;
  std::set<CBlock*, Less, NodeAlloc<CBlock*>> unmapped;  // unmapped space of expandable segments
};

// Note [Graph private pools]
struct DeviceCachingAllocator::PrivatePool {
  explicit PrivatePool(int64_t i) : id(i), small(true, this), large(false, this) {}
  int64_t id;
  int use_count = 1;     // graphs using it; 0: freeable
  int64_t segments = 0;  // segments allocated for it and not yet freed
  Pool small, large;
};

struct DeviceCachingAllocator::ExpSeg {
  char* base;
  size_t page;    // bytes per mapped page
  size_t npages;  // the reserved range is npages * page bytes
  std::vector<bool> mapped;
  size_t size() const { return page * npages; }
};

CBlock* DeviceCachingAllocator::new_block(void* stream, const std::shared_ptr<void>& ref, size_t size, void* ptr,
                                          Pool& pool, StreamStats* ss) {
  const bool small = pool.small;
  CBlock* b;
  if (!free_blocks_.empty()) {
    b = free_blocks_.back();
    free_blocks_.pop_back();
    b->stream = stream;
    b->stream_ref = ref;
    b->size = size;
    b->requested = 0;
    b->ptr = ptr;
    b->small = small;
    b->ss = ss;
    b->allocated = false;
    b->event_count = 0;
    b->mapped = true;
    b->es = nullptr;
    b->prev = b->next = nullptr;
  } else {
    b = new CBlock(device_, stream, ref, size, ptr, small, ss);
  }
  b->pool = &pool;
  b->all_prev = nullptr;
  b->all_next = all_blocks_;
  if (all_blocks_) all_blocks_->all_prev = b;
  all_blocks_ = b;
  return b;
}

void DeviceCachingAllocator::delete_block(CBlock* b) {
  if (b->all_prev) b->all_prev->all_next = b->all_next;
  else all_blocks_ = b->all_next;
  if (b->all_next) b->all_next->all_prev = b->all_prev;
  // Note [Stream references]: dropping the last reference to a stream destroys it, and that
  // calls back into the allocator (forget_stream); so references are only dropped after the
  // lock is released (graveyard_ is emptied by the public entry points). One block of each
  // segment holds the reference (the segment's first block; a merge hands it on), so a split
  // and a merge, the create+free path, touch no reference count.
  if (b->stream_ref) graveyard_.push_back(std::move(b->stream_ref));
  for (auto& u : b->stream_uses) graveyard_.push_back(std::move(u.second));
  b->stream_uses.clear();
  if (free_blocks_.size() < kMaxFree) free_blocks_.push_back(b);
  else delete b;
}

std::string format_size(int64_t size) {
  char buf[64];
  if (size <= 1024) std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(size));
  else if (size <= 1048576) std::snprintf(buf, sizeof buf, "%.2f KiB", size / 1024.0);
  else if (size <= 1073741824) std::snprintf(buf, sizeof buf, "%.2f MiB", size / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", size / 1073741824.0);
  return buf;
}

DeviceCachingAllocator::DeviceCachingAllocator(int device, DeviceBackend* backend, const CachingConfig& config)
    : device_(device), backend_(backend), config_(config), small_(new Pool(true)), large_(new Pool(false)) {}

// Frees the allocator's own bookkeeping only: device memory is not returned (the process-wide
// allocators live until exit; tests destroy theirs with the fake device).
DeviceCachingAllocator::~DeviceCachingAllocator() {
  for (CBlock* b = all_blocks_; b;) {
    CBlock* n = b->all_next;
    delete b;
    b = n;
  }
  for (CBlock* b : free_blocks_) delete b;
}

StreamStats* DeviceCachingAllocator::stream_stats_for(void* stream) {
  auto& p = stream_stats_[stream];
  if (!p) p.reset(new StreamStats());
  return p.get();
}

StreamStats DeviceCachingAllocator::stream_stats(void* stream) {
  std::lock_guard<SpinMutex> g(mu_);
  auto it = stream_stats_.find(stream);
  return it == stream_stats_.end() ? StreamStats{} : *it->second;
}

void DeviceCachingAllocator::forget_stream(void* stream) {
  std::lock_guard<SpinMutex> g(mu_);
  auto it = stream_stats_.find(stream);
  if (it != stream_stats_.end() && it->second->segment.current == 0) stream_stats_.erase(it);
}

std::map<std::string, int64_t> stream_stats_map(const StreamStats& s) {
  std::map<std::string, int64_t> m;
  StreamStats::for_each(s, [&m](const std::string& n, const Stat& st) {
    m[n + ".current"] = st.current;
    m[n + ".peak"] = st.peak;
    m[n + ".allocated"] = st.allocated;
    m[n + ".freed"] = st.freed;
  });
  return m;
}

size_t DeviceCachingAllocator::round_size(size_t size, const CachingConfig& config) {
  if (size < kMinBlockSize) return kMinBlockSize;
  if (!config.roundup_power2_divisions.empty() && size > kMinBlockSize) {
    // Round up to the next of `divisions` equal steps between two powers of two.
    size_t pow2 = 1;
    int idx = 0;
    while (pow2 * 2 <= size) {
      pow2 *= 2;
      ++idx;
    }
    size_t divisions = config.roundup_power2_divisions[std::min<size_t>(
        std::max(0, idx - 20), config.roundup_power2_divisions.size() - 1)];
    if (divisions > 1 && size > pow2) {
      size_t step = pow2 / divisions;
      if (step >= kMinBlockSize) return (size + step - 1) / step * step;
    }
  }
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

size_t DeviceCachingAllocator::allocation_size(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

DeviceCachingAllocator::Pool& DeviceCachingAllocator::pool_for(size_t size, void* stream) {
  // Only while a capture is under way is the stream asked which capture it takes part in
  // (Note [Graph private pools]): the usual path makes no extra call.
  if (__builtin_expect(!captures_underway_.empty(), 0)) {
    uint64_t id = backend_->capture_id(stream);
    if (id != 0)
      for (auto& [capture, pp] : captures_underway_)
        if (capture == id) return size <= kSmallSize ? pp->small : pp->large;
  }
  return size <= kSmallSize ? *small_ : *large_;
}

namespace {
__attribute__((always_inline)) inline void update(StatArray& a, bool small, int64_t amount) {
  a[kAll].add(amount);
  a[small ? kSmallPool : kLargePool].add(amount);
}
}  // namespace

int64_t DeviceCachingAllocator::total_reserved() const { return stats_.reserved_bytes[kAll].current; }

bool DeviceCachingAllocator::get_free_block(size_t size, void* stream, Pool& pool, CBlock** out) {
  if (config_.garbage_collection_threshold > 0 && set_fraction_ && captures_underway_.empty() &&
      static_cast<double>(total_reserved()) > config_.garbage_collection_threshold * static_cast<double>(allowed_max_)) {
    garbage_collect();
  }
  CBlock key(device_, stream, nullptr, size, nullptr, pool.small);
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != stream) return false;
  if ((*it)->es) {
    // In an expandable segment, a block's size for best fit is what it can grow to: its size
    // plus the unmapped space right after it.
    auto expandable_size = [](const CBlock* b) { return b->size + (b->next && !b->next->mapped ? b->next->size : 0); };
    auto next = std::next(it);
    while ((*it)->es && next != pool.blocks.end() && (*next)->stream == stream &&
           expandable_size(*next) < expandable_size(*it))
      it = next++;
  }
  // no oversize block for a request below max_split_size; oversize blocks only for requests
  // within kLargeBuffer of their size
  if (size < config_.max_split_size && (*it)->size >= config_.max_split_size) return false;
  if (size >= config_.max_split_size && (*it)->size >= size + kLargeBuffer) return false;
  *out = *it;
  pool.blocks.erase(it);
  return true;
}

CBlock* DeviceCachingAllocator::alloc_block(size_t size, size_t alloc_size, void* stream, const std::shared_ptr<void>& ref,
                                            Pool& pool, bool* oom) {
  if (set_fraction_ && static_cast<size_t>(total_reserved()) + alloc_size > allowed_max_) {
    *oom = true;
    return nullptr;
  }
  if (config_.expandable_segments && !pool.owner) {  // private pools: plain segments
    CBlock* b = try_allocate_expandable(size, stream, ref, pool);
    if (!b) *oom = true;
    return b;
  }
  void* p = pool.owner ? backend_->malloc_for_capture(device_, alloc_size) : backend_->malloc(device_, alloc_size);
  if (!p) {
    *oom = true;
    return nullptr;
  }
  if (pool.owner) pool.owner->segments++;
  stats_.num_device_alloc++;
  CBlock* b = new_block(stream, ref, alloc_size, p, pool, stream_stats_for(stream));
  b->ss->segment.add(1);
  b->ss->reserved_bytes.add(static_cast<int64_t>(alloc_size));
  update(stats_.segment, pool.small, 1);
  update(stats_.reserved_bytes, pool.small, static_cast<int64_t>(alloc_size));
  if (alloc_size >= config_.max_split_size) stats_.oversize_segments.add(1);
  return b;
}

void DeviceCachingAllocator::release_block(CBlock* b) {
  backend_->free(device_, b->ptr);
  stats_.num_device_free++;
  Pool& pool = *b->pool;
  pool.blocks.erase(b);
  if (pool.owner) pool.owner->segments--;
  update(stats_.segment, b->small, -1);
  update(stats_.reserved_bytes, b->small, -static_cast<int64_t>(b->size));
  b->ss->segment.add(-1);
  b->ss->reserved_bytes.add(-static_cast<int64_t>(b->size));
  if (b->size >= config_.max_split_size) stats_.oversize_segments.add(-1);
  delete_block(b);
}

bool DeviceCachingAllocator::release_available_cached_blocks(size_t size, void* stream, Pool& pool) {
  // Free one whole cached segment big enough for the request (or several oversize ones).
  if (config_.max_split_size == SIZE_MAX) return false;
  CBlock* best = nullptr;
  for (CBlock* b : pool.blocks) {
    if (b->stream != stream || b->es || b->is_split() || b->size < config_.max_split_size) continue;
    if (b->size >= size && (!best || b->size < best->size)) best = b;
  }
  if (best) {
    release_block(best);
    return true;
  }
  size_t freed = 0;
  std::vector<CBlock*> big;
  for (CBlock* b : pool.blocks)
    if (b->stream == stream && !b->es && !b->is_split() && b->size >= config_.max_split_size) big.push_back(b);
  std::sort(big.begin(), big.end(), [](CBlock* a, CBlock* c) { return a->size > c->size; });
  for (CBlock* b : big) {
    if (freed >= size) break;
    freed += b->size;
    release_block(b);
  }
  return freed >= size;
}

void DeviceCachingAllocator::release_cached_blocks() {
  synchronize_and_free_events();
  release_pool_segments(*large_);
  release_pool_segments(*small_);
  // Private pools only once freeable (no graph uses them); one holding no segment goes.
  for (auto it = graph_pools_.begin(); it != graph_pools_.end();) {
    PrivatePool& pp = *it->second;
    if (pp.use_count == 0) {
      release_pool_segments(pp.small);
      release_pool_segments(pp.large);
      if (pp.segments == 0) {
        it = graph_pools_.erase(it);
        continue;
      }
    }
    ++it;
  }
}

void DeviceCachingAllocator::release_pool_segments(Pool& pool) {
  std::vector<CBlock*> whole, to_unmap;
  for (CBlock* b : pool.blocks) {
    if (b->es) to_unmap.push_back(b);
    else if (!b->is_split()) whole.push_back(b);
  }
  for (CBlock* b : whole) release_block(b);
  for (CBlock* b : to_unmap) unmap_block(b, pool);
  // Address ranges with nothing mapped go back too (also one whose first mapping failed).
  std::vector<CBlock*> empty;
  for (CBlock* b : pool.unmapped)
    if (!b->prev && !b->next) empty.push_back(b);
  for (CBlock* b : empty) release_expandable_segment(b, pool);
}

void DeviceCachingAllocator::garbage_collect() {
  // Free cached, unsplit segments until reserved memory is under the threshold.
  double target = config_.garbage_collection_threshold * static_cast<double>(allowed_max_);
  std::vector<CBlock*> whole;
  for (Pool* pool : {large_.get(), small_.get()})
    for (CBlock* b : pool->blocks)
      if (!b->es && !b->is_split()) whole.push_back(b);
  std::sort(whole.begin(), whole.end(), [](CBlock* a, CBlock* b) { return a->size > b->size; });
  for (CBlock* b : whole) {
    if (static_cast<double>(total_reserved()) <= target) break;
    release_block(b);
  }
}

// ---- expandable segments (Note [Expandable segments])

namespace {
// Links b between prev and next (either may be null).
void splice(CBlock* b, CBlock* prev, CBlock* next) {
  b->prev = prev;
  b->next = next;
  if (prev) prev->next = b;
  if (next) next->prev = b;
}
bool allocatable(const CBlock* b) { return b && !b->allocated && b->event_count == 0 && b->stream_uses.empty(); }
}  // namespace

CBlock* DeviceCachingAllocator::find_expandable_block(size_t size, void* stream, const std::shared_ptr<void>& ref,
                                                      Pool& pool) {
  auto has_room = [size](const CBlock* b) {
    size_t bytes = 0;
    while (bytes < size && allocatable(b)) {
      bytes += b->size;
      b = b->next;
    }
    return bytes >= size;
  };
  CBlock key(device_, stream, nullptr, 0, nullptr, pool.small);
  for (auto it = pool.unmapped.lower_bound(&key); it != pool.unmapped.end() && (*it)->stream == stream; ++it) {
    CBlock* c = *it;
    if (allocatable(c->prev)) c = c->prev;  // a free mapped block right before the unmapped space
    if (has_room(c)) return c;
  }
  // A new segment: address space for 9/8 of the device's memory, mapped page by page.
  size_t dev_free = 0, dev_total = 0;
  backend_->mem_info(device_, &dev_free, &dev_total);
  size_t page = pool.small ? kSmallBuffer : kLargeBuffer;
  size_t want = dev_total + dev_total / 8;
  size_t npages = std::max<size_t>(1, (want + page - 1) / page);
  void* base = backend_->vm_reserve(device_, npages * page);
  CT_CHECK(base != nullptr, Status::Cuda, "expandable_segments: could not reserve ", format_size(static_cast<int64_t>(npages * page)),
           " of virtual address space on device ", device_, " (CTORCH_CUDA_ALLOC_CONF)");
  expandable_.emplace_back(new ExpSeg{static_cast<char*>(base), page, npages, std::vector<bool>(npages, false)});
  ExpSeg* es = expandable_.back().get();
  CBlock* c = new_block(stream, ref, es->size(), base, pool, stream_stats_for(stream));
  c->mapped = false;
  c->es = es;
  pool.unmapped.insert(c);
  return c;
}

bool DeviceCachingAllocator::map_block(CBlock* b, size_t size, Pool& pool) {
  ExpSeg* es = b->es;
  size_t off = static_cast<size_t>(static_cast<char*>(b->ptr) - es->base);
  size_t first = off / es->page, last = (off + size + es->page - 1) / es->page;
  for (size_t i = first; i < last; ++i) {
    if (!backend_->vm_map(device_, es->base + i * es->page, es->page)) {
      for (size_t j = first; j < i; ++j) backend_->vm_unmap(device_, es->base + j * es->page, es->page);
      return false;
    }
    es->mapped[i] = true;
  }
  size_t mapped_size = (last - first) * es->page;
  pool.unmapped.erase(b);
  b->mapped = true;
  if (mapped_size < b->size) {
    // b -> rest (unmapped) -> b->next
    CBlock* rest = new_block(b->stream, nullptr, b->size - mapped_size, static_cast<char*>(b->ptr) + mapped_size,
                             pool, b->ss);
    rest->mapped = false;
    rest->es = es;
    splice(rest, b, b->next);
    pool.unmapped.insert(rest);
    b->size = mapped_size;
  }
  try_merge(b, b->prev, pool);
  try_merge(b, b->next, pool);
  pool.blocks.insert(b);
  update(stats_.reserved_bytes, pool.small, static_cast<int64_t>(mapped_size));
  b->ss->reserved_bytes.add(static_cast<int64_t>(mapped_size));
  stats_.num_device_alloc++;
  return true;
}

CBlock* DeviceCachingAllocator::try_allocate_expandable(size_t size, void* stream, const std::shared_ptr<void>& ref,
                                                        Pool& pool) {
  // The candidate starts a run of free and unmapped blocks with room for size bytes:
  // unmapped | unmapped -> free -> ... | free -> unmapped -> ...
  CBlock* c = find_expandable_block(size, stream, ref, pool);
  if (!c->mapped && !map_block(c, std::min(c->size, size), pool)) return nullptr;
  while (c->size < size) {
    CBlock* n = c->next;  // unmapped: mapping it merges c into it
    if (!map_block(n, std::min(size - c->size, n->size), pool)) return nullptr;
    c = n;
  }
  pool.blocks.erase(c);
  return c;
}

void DeviceCachingAllocator::unmap_block(CBlock* b, Pool& pool) {
  ExpSeg* es = b->es;
  size_t off = static_cast<size_t>(static_cast<char*>(b->ptr) - es->base);
  size_t first = (off + es->page - 1) / es->page, last = (off + b->size) / es->page;  // whole pages inside b
  if (first >= last) return;
  pool.blocks.erase(b);
  char* uptr = es->base + first * es->page;
  size_t usize = (last - first) * es->page;
  size_t before = static_cast<size_t>(uptr - static_cast<char*>(b->ptr));
  if (before > 0) {  // prev -> before -> b
    CBlock* bf = new_block(b->stream, nullptr, before, b->ptr, pool, b->ss);
    bf->es = es;
    splice(bf, b->prev, b);
    pool.blocks.insert(bf);
  }
  size_t after = b->size - before - usize;
  if (after > 0) {  // b -> after -> next
    CBlock* af = new_block(b->stream, nullptr, after, uptr + usize, pool, b->ss);
    af->es = es;
    splice(af, b, b->next);
    pool.blocks.insert(af);
  }
  b->ptr = uptr;
  b->size = usize;
  b->mapped = false;
  backend_->synchronize(device_);  // unmapping does not wait for the work that used the pages
  for (size_t i = first; i < last; ++i) {
    backend_->vm_unmap(device_, es->base + i * es->page, es->page);
    es->mapped[i] = false;
  }
  try_merge(b, b->prev, pool);
  try_merge(b, b->next, pool);
  pool.unmapped.insert(b);
  update(stats_.reserved_bytes, pool.small, -static_cast<int64_t>(usize));
  b->ss->reserved_bytes.add(-static_cast<int64_t>(usize));
  stats_.num_device_free++;
}

void DeviceCachingAllocator::release_expandable_segment(CBlock* b, Pool& pool) {
  ExpSeg* es = b->es;
  pool.unmapped.erase(b);
  backend_->vm_release(device_, es->base, es->size());
  for (auto it = expandable_.begin(); it != expandable_.end(); ++it) {
    if (it->get() == es) {
      expandable_.erase(it);
      break;
    }
  }
  delete_block(b);
}

bool DeviceCachingAllocator::should_split(const CBlock* b, size_t size) const {
  size_t remaining = b->size - size;
  if (b->small || (config_.expandable_segments && !b->pool->owner)) return remaining >= kMinBlockSize;
  return size < config_.max_split_size && remaining > kSmallSize;
}

void DeviceCachingAllocator::process_events() {
  insert_deferred_events();
  while (!events_.empty()) {
    auto& [ev, block] = events_.front();
    if (!backend_->event_done(ev)) break;  // events complete in order per stream: good enough
    backend_->event_destroy(ev);
    CBlock* b = block;
    events_.pop_front();
    if (--b->event_count == 0) free_block(b);
  }
}

void DeviceCachingAllocator::synchronize_and_free_events() {
  stats_.num_sync_all_streams++;
  insert_deferred_events();
  for (auto& [ev, b] : events_) {
    backend_->event_wait(ev);
    backend_->event_destroy(ev);
    if (--b->event_count == 0) free_block(b);
  }
  events_.clear();
}

CBlock* DeviceCachingAllocator::malloc(size_t orig_size, void* stream, const std::shared_ptr<void>& stream_ref) {
  std::vector<std::shared_ptr<void>> dead;  // dropped after the lock (Note [Stream references])
  std::unique_lock<SpinMutex> g(mu_);
  // While a capture is under way: no event queries, no cudaFree (Note [Graph private pools]).
  if (captures_underway_.empty()) process_events();
  size_t size = round_size(orig_size, config_);
  Pool* from = &pool_for(size, stream);
  size_t alloc_size = allocation_size(size);
  CBlock* block = nullptr;
  bool oom = false;
  bool found = get_free_block(size, stream, *from, &block);
  if (!found) block = alloc_block(size, alloc_size, stream, stream_ref, *from, &oom), found = block != nullptr;
  if (!found && captures_underway_.empty()) {
    oom = false;
    if (release_available_cached_blocks(size, stream, *from)) {
      block = alloc_block(size, alloc_size, stream, stream_ref, *from, &oom);
      found = block != nullptr;
    }
  }
  if (!found && captures_underway_.empty()) {
    release_cached_blocks();
    stats_.num_alloc_retries++;
    block = alloc_block(size, alloc_size, stream, stream_ref, *from, &oom);
    found = block != nullptr;
  }
  if (!found) {
    // Tensors the program dropped without closing them may still hold memory until their
    // language's collector runs: run the hooks (Note [Out-of-memory hooks]) without the lock,
    // then try everything once more.
    g.unlock();
    bool ran = run_oom_hooks(device_, orig_size);
    g.lock();
    if (ran) {
      // Captures may have begun or ended meanwhile (and a private pool gone): ask again.
      const bool capturing = !captures_underway_.empty();
      if (!capturing) process_events();
      from = &pool_for(size, stream);
      found = get_free_block(size, stream, *from, &block);
      if (!found) {
        if (!capturing) release_cached_blocks();
        block = alloc_block(size, alloc_size, stream, stream_ref, *from, &oom);
        found = block != nullptr;
      }
    }
  }
  if (!found) {
    stats_.num_ooms++;
    size_t dev_free = 0, dev_total = 0;
    backend_->mem_info(device_, &dev_free, &dev_total);
    std::string allowed = set_fraction_ ? format_size(static_cast<int64_t>(allowed_max_)) + " allowed; " : "";
    int64_t allocated = stats_.allocated_bytes[kAll].current;
    int64_t reserved = stats_.reserved_bytes[kAll].current;
    // As PyTorch's message: the bytes of the free blocks cached in private pools count as
    // allocated (they cannot serve other allocations), and are named.
    int64_t in_private = 0;
    for (auto& [id, pp] : graph_pools_)
      for (Pool* p : {&pp->small, &pp->large})
        for (CBlock* b : p->blocks) in_private += static_cast<int64_t>(b->size);
    std::string private_msg =
        in_private > 0 ? "with " + format_size(in_private) + " allocated in private pools (e.g., CUDA Graphs), " : "";
    fail(Status::OutOfMemory, "CUDA out of memory. Tried to allocate ", format_size(static_cast<int64_t>(alloc_size)),
         ". GPU ", device_, " has a total capacity of ", format_size(static_cast<int64_t>(dev_total)), " of which ",
         format_size(static_cast<int64_t>(dev_free)), " is free. ", allowed, "Of the allocated memory ",
         format_size(allocated + in_private), " is allocated by ctorch, ", private_msg, "and ",
         format_size(reserved - allocated - in_private), " is reserved by ctorch but unallocated.");
  }
  Pool& pool = *from;

  const bool already_split = block->is_split();
  if (should_split(block, size)) {
    CBlock* remaining = block;
    block = new_block(stream, nullptr, size, remaining->ptr, pool, remaining->ss);
    block->prev = remaining->prev;
    if (block->prev) block->prev->next = block;
    block->next = remaining;
    remaining->prev = block;
    remaining->ptr = static_cast<char*>(remaining->ptr) + size;
    remaining->size -= size;
    block->es = remaining->es;
    pool.blocks.insert(remaining);
    if (block->es) {
      // expandable blocks are left out of inactive_split (Note [Expandable segments])
    } else if (already_split) {
      update(stats_.inactive_split_bytes, pool.small, -static_cast<int64_t>(block->size));
    } else {
      update(stats_.inactive_split_bytes, pool.small, static_cast<int64_t>(remaining->size));
      update(stats_.inactive_split, pool.small, 1);
    }
  } else if (already_split && !block->es) {
    update(stats_.inactive_split_bytes, pool.small, -static_cast<int64_t>(block->size));
    update(stats_.inactive_split, pool.small, -1);
  }
  block->allocated = true;
  block->requested = orig_size;
  update(stats_.allocation, pool.small, 1);
  update(stats_.allocated_bytes, pool.small, static_cast<int64_t>(block->size));
  update(stats_.active, pool.small, 1);
  update(stats_.active_bytes, pool.small, static_cast<int64_t>(block->size));
  update(stats_.requested_bytes, pool.small, static_cast<int64_t>(orig_size));
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.add(1);
  StreamStats* ss = block->ss;
  ss->allocation.add(1);
  ss->allocated_bytes.add(static_cast<int64_t>(block->size));
  ss->requested_bytes.add(static_cast<int64_t>(orig_size));
  ss->active.add(1);
  ss->active_bytes.add(static_cast<int64_t>(block->size));
  if (!graveyard_.empty()) dead.swap(graveyard_);
  return block;
}

void DeviceCachingAllocator::free(CBlock* b) {
  std::vector<std::shared_ptr<void>> dead;  // dropped after the lock (Note [Stream references])
  std::lock_guard<SpinMutex> g(mu_);
  // During a capture, a block used on other streams records no event: it waits until no
  // capture is under way (Note [Graph private pools]).
  const bool defer = !b->stream_uses.empty() && !captures_underway_.empty();
  // Record the events first: if that fails, the block is left as it was.
  std::vector<void*> evs;
  if (!defer && !b->stream_uses.empty()) {
    evs = record_events(b);
    capture_stream_uses_.erase(b);  // freed after the capture: every use counts
  }
  b->allocated = false;
  update(stats_.allocation, b->small, -1);
  update(stats_.allocated_bytes, b->small, -static_cast<int64_t>(b->size));
  update(stats_.requested_bytes, b->small, -static_cast<int64_t>(b->requested));
  if (b->size >= config_.max_split_size) stats_.oversize_allocations.add(-1);
  b->ss->allocation.add(-1);
  b->ss->allocated_bytes.add(-static_cast<int64_t>(b->size));
  b->ss->requested_bytes.add(-static_cast<int64_t>(b->requested));
  if (defer) deferred_frees_.push_back(b);
  else insert_events(b, evs);
  if (!graveyard_.empty()) dead.swap(graveyard_);
}

std::vector<void*> DeviceCachingAllocator::record_events(CBlock* b) {
  std::vector<void*> evs;
  try {
    for (auto& [s, ref] : b->stream_uses) evs.push_back(backend_->record_event(device_, s));
  } catch (...) {
    for (void* ev : evs) backend_->event_destroy(ev);
    throw;
  }
  return evs;
}

void DeviceCachingAllocator::insert_events(CBlock* b, const std::vector<void*>& evs) {
  if (evs.empty()) {
    free_block(b);
    return;
  }
  for (void* ev : evs) {
    events_.emplace_back(ev, b);
    b->event_count++;
  }
  for (auto& u : b->stream_uses) graveyard_.push_back(std::move(u.second));  // the events are recorded:
  b->stream_uses.clear();                                                    // the streams may go now
}

void DeviceCachingAllocator::insert_deferred_events() {
  while (__builtin_expect(!deferred_frees_.empty(), 0)) {
    CBlock* b = deferred_frees_.front();
    // As PyTorch: events only on the streams recorded before the capture; the work queued
    // during it on streams recorded then was captured, not run.
    auto it = capture_stream_uses_.find(b);
    if (it != capture_stream_uses_.end()) {
      for (void* st : it->second) {
        for (auto u = b->stream_uses.begin(); u != b->stream_uses.end(); ++u) {
          if (u->first == st) {
            graveyard_.push_back(std::move(u->second));
            b->stream_uses.erase(u);
            break;
          }
        }
      }
      capture_stream_uses_.erase(it);
    }
    std::vector<void*> evs = record_events(b);  // throws: b stays deferred
    deferred_frees_.erase(deferred_frees_.begin());
    insert_events(b, evs);
  }
}

void DeviceCachingAllocator::record_stream(CBlock* b, void* stream, std::shared_ptr<void> stream_ref) {
  std::lock_guard<SpinMutex> g(mu_);
  if (stream == b->stream) return;  // uses on the allocation stream need nothing
  for (auto& [s, ref] : b->stream_uses)
    if (s == stream) return;
  b->stream_uses.emplace_back(stream, std::move(stream_ref));
  // A stream first used during a capture (Note [Graph private pools]; unlike PyTorch, a stream
  // recorded before the capture too keeps its event).
  if (!captures_underway_.empty()) capture_stream_uses_[b].push_back(stream);
}

size_t DeviceCachingAllocator::try_merge(CBlock* dst, CBlock* src, Pool& pool) {
  if (!src || src->allocated || src->event_count > 0 || !src->stream_uses.empty() || src->mapped != dst->mapped) return 0;
  if (dst->prev == src) {
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  size_t subsumed = src->size;
  dst->size += subsumed;
  if (src->mapped) pool.blocks.erase(src);
  else pool.unmapped.erase(src);
  if (src->stream_ref) dst->stream_ref = std::move(src->stream_ref);  // the segment's reference
  delete_block(src);
  return subsumed;
}

void DeviceCachingAllocator::free_block(CBlock* b) {
  Pool& pool = *b->pool;
  size_t original = b->size;
  int64_t d_blocks = 0, d_bytes = 0;
  for (CBlock* cand : {b->prev, b->next}) {
    size_t subsumed = try_merge(b, cand, pool);
    if (subsumed > 0) {
      d_blocks -= 1;
      d_bytes -= static_cast<int64_t>(subsumed);
    }
  }
  pool.blocks.insert(b);
  if (b->is_split()) {
    d_blocks += 1;
    d_bytes += static_cast<int64_t>(b->size);
  }
  if (!b->es) {
    update(stats_.inactive_split, pool.small, d_blocks);
    update(stats_.inactive_split_bytes, pool.small, d_bytes);
  }
  update(stats_.active, pool.small, -1);
  update(stats_.active_bytes, pool.small, -static_cast<int64_t>(original));
  b->ss->active.add(-1);
  b->ss->active_bytes.add(-static_cast<int64_t>(original));
}

void DeviceCachingAllocator::empty_cache() {
  std::vector<std::shared_ptr<void>> dead;  // dropped after the lock (Note [Stream references])
  std::lock_guard<SpinMutex> g(mu_);
  CT_CHECK(captures_underway_.empty(), Status::State, "empty_cache is not allowed while a CUDA graph capture is under way on device ",
           device_, " (it would synchronize and cudaFree during the capture)");
  release_cached_blocks();
  dead.swap(graveyard_);
}

// ---- CUDA graphs (Note [Graph private pools])

void DeviceCachingAllocator::begin_allocate_to_pool(int64_t pool, uint64_t capture_id) {
  CT_CHECK(pool > 0, Status::Argument, "begin_allocate_to_pool: pool ids are positive (got ", pool, ")");
  CT_CHECK(capture_id != 0, Status::Argument, "begin_allocate_to_pool: capture id 0 names no capture");
  std::lock_guard<SpinMutex> g(mu_);
  for (auto& [capture, pp] : captures_underway_) {
    CT_CHECK(pp->id != pool, Status::State, "begin_allocate_to_pool: a capture already allocates to pool ", pool,
             " on device ", device_);
    CT_CHECK(capture != capture_id, Status::State, "begin_allocate_to_pool: capture ", capture_id,
             " already allocates to pool ", pp->id, " on device ", device_);
  }
  std::unique_ptr<PrivatePool>& pp = graph_pools_[pool];
  if (!pp) pp.reset(new PrivatePool(pool));
  else pp->use_count++;  // shared with earlier graphs (or in use again once freeable)
  captures_underway_.emplace_back(capture_id, pp.get());
}

void DeviceCachingAllocator::end_allocate_to_pool(int64_t pool) {
  std::lock_guard<SpinMutex> g(mu_);
  for (auto it = captures_underway_.begin(); it != captures_underway_.end(); ++it) {
    if (it->second->id == pool) {
      captures_underway_.erase(it);
      return;
    }
  }
  fail(Status::State, "end_allocate_to_pool: no capture allocates to pool ", pool, " on device ", device_);
}

void DeviceCachingAllocator::release_pool(int64_t pool) {
  std::lock_guard<SpinMutex> g(mu_);
  auto it = graph_pools_.find(pool);
  CT_CHECK(it != graph_pools_.end() && it->second->use_count > 0, Status::State, "release_pool: pool ", pool,
           " is not in use on device ", device_);
  PrivatePool& pp = *it->second;
  if (pp.use_count == 1)
    for (auto& [capture, p] : captures_underway_)
      CT_CHECK(p != &pp, Status::State, "release_pool: pool ", pool, " on device ", device_,
               " is still being captured into (end_allocate_to_pool first)");
  if (--pp.use_count == 0 && pp.segments == 0) graph_pools_.erase(it);
}

bool DeviceCachingAllocator::capture_underway() {
  std::lock_guard<SpinMutex> g(mu_);
  return !captures_underway_.empty();
}

void DeviceCachingAllocator::set_memory_fraction(double fraction) {
  CT_CHECK(fraction >= 0.0 && fraction <= 1.0, Status::Argument, "Invalid fraction ", fraction,
           " for set_per_process_memory_fraction: it must be between 0 and 1");
  std::lock_guard<SpinMutex> g(mu_);
  size_t f = 0, t = 0;
  backend_->mem_info(device_, &f, &t);
  allowed_max_ = static_cast<size_t>(fraction * static_cast<double>(t));
  set_fraction_ = true;
}

DeviceStats DeviceCachingAllocator::stats() {
  std::lock_guard<SpinMutex> g(mu_);
  return stats_;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<SpinMutex> g(mu_);
  for (StatArray* a : {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
                       &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
                       &stats_.inactive_split_bytes, &stats_.requested_bytes})
    for (Stat& s : *a) s.peak = s.current;
  stats_.oversize_allocations.peak = stats_.oversize_allocations.current;
  stats_.oversize_segments.peak = stats_.oversize_segments.current;
  for (auto& [st, ss] : stream_stats_) StreamStats::for_each(*ss, [](const char*, Stat& x) { x.peak = x.current; });
}

void DeviceCachingAllocator::reset_accumulated_stats() {
  std::lock_guard<SpinMutex> g(mu_);
  for (StatArray* a : {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
                       &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
                       &stats_.inactive_split_bytes, &stats_.requested_bytes})
    for (Stat& s : *a) s.allocated = s.freed = 0;
  stats_.oversize_allocations.allocated = stats_.oversize_allocations.freed = 0;
  stats_.oversize_segments.allocated = stats_.oversize_segments.freed = 0;
  stats_.num_alloc_retries = stats_.num_ooms = stats_.num_sync_all_streams = 0;
  stats_.num_device_alloc = stats_.num_device_free = 0;
  for (auto& [st, ss] : stream_stats_) StreamStats::for_each(*ss, [](const char*, Stat& x) { x.allocated = x.freed = 0; });
}

std::vector<DeviceCachingAllocator::SegmentInfo> DeviceCachingAllocator::snapshot() {
  std::lock_guard<SpinMutex> g(mu_);
  std::vector<SegmentInfo> out;
  for (CBlock* head = all_blocks_; head; head = head->all_next) {
    // A segment starts at a block with no mapped predecessor: the head of a cudaMalloc'd
    // segment, or the first mapped block of a run inside an expandable segment.
    if (!head->mapped || (head->prev && head->prev->mapped)) continue;
    SegmentInfo s{head->ptr, 0, 0, 0, !head->small, head->stream, head->pool->owner ? head->pool->owner->id : 0, {}};
    for (CBlock* b = head; b && b->mapped; b = b->next) {
      bool active = b->allocated || b->event_count > 0 || !b->stream_uses.empty();
      s.blocks.push_back({b->size, b->allocated, active, b->ptr});
      s.total_size += b->size;
      if (b->allocated) s.allocated_size += b->size;
      if (active) s.active_size += b->size;
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const SegmentInfo& a, const SegmentInfo& b) {
    return reinterpret_cast<uintptr_t>(a.address) < reinterpret_cast<uintptr_t>(b.address);
  });
  return out;
}

std::string DeviceCachingAllocator::snapshot_json() {
  std::ostringstream os;
  os << "{\"device\": " << device_ << ", \"segments\": [";
  bool first = true;
  for (const SegmentInfo& s : snapshot()) {
    os << (first ? "" : ", ") << "{\"address\": " << reinterpret_cast<uintptr_t>(s.address)
       << ", \"total_size\": " << s.total_size << ", \"allocated_size\": " << s.allocated_size
       << ", \"active_size\": " << s.active_size << ", \"segment_type\": \"" << (s.is_large ? "large" : "small")
       << "\", \"stream\": " << reinterpret_cast<uintptr_t>(s.stream) << ", \"segment_pool_id\": " << s.pool_id
       << ", \"blocks\": [";
    first = false;
    bool fb = true;
    for (const BlockInfo& b : s.blocks) {
      os << (fb ? "" : ", ") << "{\"address\": " << reinterpret_cast<uintptr_t>(b.ptr) << ", \"size\": " << b.size
         << ", \"state\": \"" << (b.allocated ? "active_allocated" : (b.active ? "active_pending_free" : "inactive"))
         << "\"}";
      fb = false;
    }
    os << "]}";
  }
  os << "]}";
  return os.str();
}

CBlock* DeviceCachingAllocator::find_allocated(void* ptr) {
  std::lock_guard<SpinMutex> g(mu_);
  for (CBlock* b = all_blocks_; b; b = b->all_next)
    if (b->ptr == ptr && b->allocated) return b;
  return nullptr;
}

std::map<std::string, int64_t> stats_map(const DeviceStats& s, const CachingConfig& config) {
  std::map<std::string, int64_t> m;
  const char* pools[3] = {"all", "small_pool", "large_pool"};
  auto put = [&](const std::string& name, const Stat& st) {
    m[name + ".current"] = st.current;
    m[name + ".peak"] = st.peak;
    m[name + ".allocated"] = st.allocated;
    m[name + ".freed"] = st.freed;
  };
  std::pair<const char*, const StatArray*> arrays[] = {
      {"allocation", &s.allocation}, {"segment", &s.segment}, {"active", &s.active},
      {"inactive_split", &s.inactive_split}, {"allocated_bytes", &s.allocated_bytes},
      {"reserved_bytes", &s.reserved_bytes}, {"active_bytes", &s.active_bytes},
      {"inactive_split_bytes", &s.inactive_split_bytes}, {"requested_bytes", &s.requested_bytes}};
  for (auto& [name, arr] : arrays)
    for (int p = 0; p < 3; ++p) put(std::string(name) + "." + pools[p], (*arr)[p]);
  put("oversize_allocations", s.oversize_allocations);
  put("oversize_segments", s.oversize_segments);
  m["num_alloc_retries"] = s.num_alloc_retries;
  m["num_ooms"] = s.num_ooms;
  m["num_sync_all_streams"] = s.num_sync_all_streams;
  m["num_device_alloc"] = s.num_device_alloc;
  m["num_device_free"] = s.num_device_free;
  m["max_split_size"] = config.max_split_size == SIZE_MAX ? -1 : static_cast<int64_t>(config.max_split_size);
  return m;
}

namespace {
// torch/cuda/memory.py's _format_size and _format_count
// v in the unit that suits its reference figure pref: divided by base (and the next of the n
// prefixes taken) while pref is at least threshold.
std::string scaled(int64_t v, double pref, int64_t base, double threshold, const char* const* prefixes, int n,
                   const char* format) {
  int p = 0;
  for (int i = 1; i < n && pref >= threshold; ++i) {
    p = i;
    v /= base;
    pref /= static_cast<double>(base);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, format, static_cast<long long>(v), prefixes[p]);
  return buf;
}
std::string summary_size(int64_t sz, double pref) {
  static const char* const prefixes[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  return scaled(sz, pref, 1024, 768 * 1024, prefixes, 6, "%6lld %s");
}
std::string summary_count(int64_t cnt, double pref) {
  static const char* const prefixes[] = {" ", "K", "M"};
  return scaled(cnt, pref, 1000, 750 * 1000, prefixes, 3, "%7lld %s ");
}
std::string pad_right(const std::string& s, size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }
}  // namespace

std::string memory_summary(const std::map<std::string, int64_t>& st, int device, bool abbreviated) {
  auto get = [&](const std::string& k) {
    auto it = st.find(k);
    return it == st.end() ? int64_t{0} : it->second;
  };
  std::vector<std::string> lines;
  const std::string eq(75, '='), dash(75, '-');
  lines.push_back(eq);
  lines.push_back(" " + std::string(17, ' ') + " ctorch CUDA memory summary, device ID " + pad_right(std::to_string(device), 17) + " ");
  lines.push_back(dash);
  lines.push_back("  " + std::string(9, ' ') + " CUDA OOMs: " + pad_right(std::to_string(get("num_ooms")), 12) + " | " +
                  std::string(6, ' ') + " cudaMalloc retries: " + pad_right(std::to_string(get("num_alloc_retries")), 8) + "  ");
  lines.push_back(eq);
  lines.push_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");
  struct M {
    const char* key;
    const char* name;
    bool size;
  };
  const M metrics[] = {{"allocated_bytes", "Allocated memory", true},
                       {"active_bytes", "Active memory", true},
                       {"requested_bytes", "Requested memory", true},
                       {"reserved_bytes", "GPU reserved memory", true},
                       {"inactive_split_bytes", "Non-releasable memory", true},
                       {"allocation", "Allocations", false},
                       {"active", "Active allocs", false},
                       {"segment", "GPU reserved segments", false},
                       {"inactive_split", "Non-releasable allocs", false}};
  for (const M& m : metrics) {
    lines.push_back(dash);
    std::vector<std::pair<std::string, std::string>> subs = {{"all", m.name}};
    if (!abbreviated) {
      subs.push_back({"large_pool", "      from large pool"});
      subs.push_back({"small_pool", "      from small pool"});
    }
    double pc = 0, pp = 0, pa = 0, pf = 0;
    bool first = true;
    for (auto& [sk, sname] : subs) {
      std::string prefix = std::string(m.key) + "." + sk + ".";
      int64_t c = get(prefix + "current"), p = get(prefix + "peak"), a = get(prefix + "allocated"), f = get(prefix + "freed");
      if (first) {
        pc = static_cast<double>(c), pp = static_cast<double>(p), pa = static_cast<double>(a), pf = static_cast<double>(f);
        first = false;
      }
      auto fmt = [&](int64_t v, double pref) { return m.size ? summary_size(v, pref) : summary_count(v, pref); };
      lines.push_back(" " + pad_right(sname, 21) + " | " + fmt(c, pc) + " | " + fmt(p, pp) + " | " + fmt(a, pa) + " | " +
                      fmt(f, pf) + " ");
    }
  }
  const M over[] = {{"oversize_allocations", "Oversize allocations", false}, {"oversize_segments", "Oversize GPU segments", false}};
  for (const M& m : over) {
    lines.push_back(dash);
    std::string prefix = std::string(m.key) + ".";
    int64_t c = get(prefix + "current"), p = get(prefix + "peak"), a = get(prefix + "allocated"), f = get(prefix + "freed");
    lines.push_back(" " + pad_right(m.name, 21) + " | " + summary_count(c, static_cast<double>(c)) + " | " +
                    summary_count(p, static_cast<double>(p)) + " | " + summary_count(a, static_cast<double>(a)) + " | " +
                    summary_count(f, static_cast<double>(f)) + " ");
  }
  lines.push_back(eq);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "|\n|" : "|") + lines[i];
  return out + "|\n";
}

CachingConfig parse_alloc_conf(const std::string& conf, std::string* backend) {
  CachingConfig c;
  if (backend) *backend = "native";
  std::string item;
  std::istringstream in(conf);
  auto bad = [&](const std::string& key, const std::string& why) {
    fail(Status::Argument, "CTORCH_CUDA_ALLOC_CONF: ", why, " in '", key, "' (in \"", conf, "\")");
  };
  // items are separated by commas, except inside [...] lists
  std::vector<std::string> items;
  {
    std::string cur;
    int depth = 0;
    for (char ch : conf) {
      if (ch == '[') depth++;
      if (ch == ']') depth--;
      if (ch == ',' && depth == 0) {
        items.push_back(cur);
        cur.clear();
      } else if (ch != ' ') {
        cur += ch;
      }
    }
    if (!cur.empty()) items.push_back(cur);
  }
  for (const std::string& it : items) {
    auto colon = it.find(':');
    if (colon == std::string::npos) bad(it, "expected key:value");
    std::string key = it.substr(0, colon), val = it.substr(colon + 1);
    try {
      if (key == "max_split_size_mb") {
        double mb = std::stod(val);
        if (mb <= 20) bad(it, "max_split_size_mb must be > 20");
        c.max_split_size = static_cast<size_t>(mb * 1048576.0);
      } else if (key == "garbage_collection_threshold") {
        double t = std::stod(val);
        if (!(t > 0.0 && t < 1.0)) bad(it, "garbage_collection_threshold must be in (0.0, 1.0)");
        c.garbage_collection_threshold = t;
      } else if (key == "roundup_power2_divisions") {
        std::vector<size_t> v;
        if (!val.empty() && val[0] == '[') {
          std::string inner = val.substr(1, val.size() - 2);
          std::istringstream ls(inner);
          std::string part;
          while (std::getline(ls, part, ',')) {
            auto c2 = part.find(':');
            v.push_back(static_cast<size_t>(std::stoul(c2 == std::string::npos ? part : part.substr(c2 + 1))));
          }
        } else {
          v.push_back(static_cast<size_t>(std::stoul(val)));
        }
        for (size_t d : v)
          if (d != 0 && (d & (d - 1)) != 0) bad(it, "roundup_power2_divisions must be powers of 2");
        c.roundup_power2_divisions = v;
      } else if (key == "backend") {
        if (val != "native" && val != "cudaMallocAsync") bad(it, "backend must be 'native' or 'cudaMallocAsync'");
        if (backend) *backend = val;
      } else if (key == "expandable_segments") {
        if (val != "True" && val != "False") bad(it, "expandable_segments must be True or False");
        c.expandable_segments = val == "True";
      } else {
        bad(it, "unknown key (expected max_split_size_mb, garbage_collection_threshold, "
                "roundup_power2_divisions, expandable_segments or backend)");
      }
    } catch (const std::invalid_argument&) {
      bad(it, "the value is not a number");
    } catch (const std::out_of_range&) {
      bad(it, "the value is out of range");
    }
  }
  return c;
}

}  // namespace ct::alloc
