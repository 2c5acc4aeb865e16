// The CUDA caching allocator: PyTorch's policy (c10/cuda/CUDACachingAllocator.cpp) over a
// device-memory backend, so the policy runs the same against real CUDA memory and against
// the fake backend of the CPU tests.
//
// Note [Caching allocator policy]:
//  - Requests are rounded up to multiples of 512 bytes. Requests of at most 1 MiB come from the
//    small pool, whose segments are 2 MiB; larger ones from the large pool, whose segments are
//    20 MiB for requests under 10 MiB and the request rounded up to 2 MiB otherwise.
//  - A request takes the smallest cached free block of its pool on the same stream that fits
//    (best fit), and splits it when the rest is worth keeping (small pool: >= 512 bytes left;
//    large pool: > 1 MiB left and the request below max_split_size). Blocks of max_split_size
//    or more are not split and serve only requests within 20 MiB of their size.
//  - Freeing returns the block to its pool at once, without synchronizing, merged with free
//    neighbours of the same segment. A block used on other streams (record_stream) gets one
//    event per stream and returns to the pool only when all have completed; events are polled,
//    never waited for, at the start of each allocation.
//  - When the device has no room: free one cached segment big enough and retry, then free all
//    cached segments and retry, then run the out-of-memory callbacks (the bindings' garbage
//    collectors) and retry once more, then fail with PyTorch's message.
//  - The statistics follow PyTorch's memory_stats keys exactly. Per-stream figures (which
//    PyTorch lacks) count each block and segment on the stream it was allocated on.
//
// Note [Expandable segments] (CTORCH_CUDA_ALLOC_CONF=expandable_segments:True, as PyTorch's):
// instead of one cudaMalloc per segment, each (stream, pool) gets an address range as large as
// 9/8 of the device's memory, reserved once, into which physical pages (2 MiB for the small
// pool, 20 MiB for the large one) are mapped on demand at its end, so a growing workload keeps
// one contiguous segment instead of many fixed ones that fragment. A block may then grow into
// the unmapped space after it (best fit counts that space), blocks always split when 512 bytes
// or more remain, and empty_cache (or an out-of-memory retry) unmaps the whole pages of free
// blocks. As in PyTorch, mapping counts in reserved_bytes and num_device_alloc but not in
// "segment", and expandable blocks are left out of inactive_split.
//
// Note [Graph private pools] (PyTorch's Note [Interaction with CUDA graph capture]): a CUDA
// graph bakes the addresses its kernels used into the graph, so that memory must stay the
// graph's for as long as the graph can replay. While a capture runs, allocations on the streams
// taking part in it (DeviceBackend::capture_id(stream) == the capture's id) come from the
// graph's private pool, named by a pool id (int64 > 0) that the graph code hands out:
//  - begin_allocate_to_pool(pool, capture) creates the pool with one use, or adds a use to an
//    existing one (graphs sharing a pool, captured in order: one use per graph); until
//    end_allocate_to_pool(pool), that capture's allocations come from it. A pool gets one
//    capture at a time, a capture one pool.
//  - A private pool has its own small and large block pools with the policy above (sizes,
//    segments, best fit, splits), on plain segments: unlike PyTorch, private pools never use
//    expandable segments. A block returns to its own pool when freed, during the capture or
//    after it (tensors the capture created keep the pool's memory until they are freed), and
//    a block freed during the capture is reused only by allocations into that pool.
//  - While any capture is under way on the device (captures_underway_ not empty): malloc does
//    not poll events (cudaEventQuery is illegal in a capture); free() of a block with
//    record_stream uses records no event but defers the block until no capture is under way,
//    when its events are recorded (on the streams recorded before the capture only: work on
//    streams recorded during it was captured, not run) and polled as usual; and running out of
//    memory frees no cached segment (no cudaFree during a capture; unlike PyTorch, which
//    still frees oversize blocks with max_split_size, neither does the garbage collection
//    threshold). empty_cache then fails with Status::State. Only with no capture under way is
//    the stream's capture id asked for nothing: malloc and free make no extra call then.
//  - release_pool(pool) takes one use away (graph reset or destroyed). At 0 uses the pool is
//    freeable: empty_cache and the out-of-memory retry return its free, unsplit segments to the
//    device, and the pool object goes away once it holds no segment (at once if it holds none).
//    Segments of a pool in use are never freed. A freeable pool that a new capture begins on
//    again is in use again (PyTorch asserts there).
//  - Statistics count private-pool blocks and segments exactly like any other (memory_stats
//    keys and per-stream figures; small or large by the block's size class), as PyTorch's do;
//    snapshot_json gives each segment its "segment_pool_id" (0: the default pools); the
//    out-of-memory message, as PyTorch's, names the bytes cached free in private pools.
//
// Note [Out-of-memory hooks]: the bindings register hooks that run their language's garbage
// collector and wait for its finalizers, so tensors a program dropped without closing give
// their memory back. The hooks run on the allocating thread with the allocator's lock released
// (the finalizers free blocks on other threads), in the order they were added, at most once per
// allocation; an allocation made while this thread runs the hooks never runs them again.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "impl/core/spin_mutex.h"

namespace ct::alloc {

// Device memory and stream events, as the allocator sees them.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual void* malloc(int device, size_t size) = 0;  // nullptr when out of memory
  virtual void free(int device, void* p) = 0;
  virtual void mem_info(int device, size_t* free, size_t* total) = 0;
  virtual void* record_event(int device, void* stream) = 0;
  virtual bool event_done(void* event) = 0;
  virtual void event_wait(void* event) = 0;
  virtual void event_destroy(void* event) = 0;
  // Virtual memory for expandable segments (Note [Expandable segments]): reserve an address
  // range, map and unmap physical pages of `page` bytes inside it, release the range. The
  // defaults say "not supported" (nullptr / false).
  virtual void* vm_reserve(int device, size_t size) { (void)device, (void)size; return nullptr; }
  virtual bool vm_map(int device, void* ptr, size_t page) { (void)device, (void)ptr, (void)page; return false; }
  virtual void vm_unmap(int device, void* ptr, size_t page) { (void)device, (void)ptr, (void)page; }
  virtual void vm_release(int device, void* ptr, size_t size) { (void)device, (void)ptr, (void)size; }
  virtual void synchronize(int device) { (void)device; }  // before pages are unmapped
  // The id of the CUDA stream capture that `stream` takes part in, 0 when it is not capturing
  // (cudaStreamGetCaptureInfo; the legacy default stream nullptr: 0 without asking CUDA).
  // Asked only while a capture is under way on the device (Note [Graph private pools]).
  virtual uint64_t capture_id(void* stream) { (void)stream; return 0; }
  // A new segment for a private pool, allocated while its capture runs: the real backend lets
  // this thread make the call in cudaStreamCaptureModeRelaxed (as PyTorch's
  // cudaMallocMaybeCapturing), since a global or thread-local capture forbids cudaMalloc; a
  // captured cudaMalloc gives the graph new addresses and is not replayed. nullptr when out of
  // memory.
  virtual void* malloc_for_capture(int device, size_t size) { return malloc(device, size); }
};

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t amount) {
    current += amount;
    if (current > peak) peak = current;
    if (amount > 0) allocated += amount;
    if (amount < 0) freed -= amount;
  }
};

enum StatPool { kAll = 0, kSmallPool = 1, kLargePool = 2 };
using StatArray = std::array<Stat, 3>;

struct DeviceStats {
  StatArray allocation, segment, active, inactive_split, allocated_bytes, reserved_bytes, active_bytes,
      inactive_split_bytes, requested_bytes;
  Stat oversize_allocations, oversize_segments;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_sync_all_streams = 0, num_device_alloc = 0, num_device_free = 0;
};

// Per-stream figures (allocation, allocated_bytes, requested_bytes, active, active_bytes, segment,
// reserved_bytes; no pools).
struct StreamStats {
  Stat allocation, allocated_bytes, requested_bytes, active, active_bytes, segment, reserved_bytes;
  // f(name, stat) for each figure, in one place for the reports and the resets
  template <typename Self, typename F>  // Self: StreamStats or const StreamStats
  static void for_each(Self& s, F f) {
    f("allocation", s.allocation), f("allocated_bytes", s.allocated_bytes), f("requested_bytes", s.requested_bytes);
    f("active", s.active), f("active_bytes", s.active_bytes), f("segment", s.segment);
    f("reserved_bytes", s.reserved_bytes);
  }
};
std::map<std::string, int64_t> stream_stats_map(const StreamStats& s);  // "allocated_bytes.current", ...

// The out-of-memory hooks (process-wide, all devices). add returns the hook's id.
using OomHook = std::function<void(int device, size_t bytes)>;
int64_t add_oom_hook(OomHook hook);
bool remove_oom_hook(int64_t id);  // false: no such hook
void clear_oom_hooks();
// Runs the hooks for a failed request of `bytes` on `device`; false when none ran (none
// registered, or this thread is already running them).
bool run_oom_hooks(int device, size_t bytes);

struct CachingConfig {
  size_t max_split_size = SIZE_MAX;             // max_split_size_mb
  double garbage_collection_threshold = 0.0;    // 0: off
  std::vector<size_t> roundup_power2_divisions;  // per power-of-two interval (empty: off)
  bool expandable_segments = false;              // Note [Expandable segments]
};

struct CBlock;
void* block_ptr(const CBlock* b);  // the device address of a block
int block_device(const CBlock* b);  // the device it lies on

// One device's allocator. Thread-safe.
class DeviceCachingAllocator {
 public:
  DeviceCachingAllocator(int device, DeviceBackend* backend, const CachingConfig& config);
  ~DeviceCachingAllocator();

  // Returns the block for `size` bytes on `stream`; stream_ref keeps the stream object alive
  // while blocks are cached on it. Throws Status::OutOfMemory with PyTorch's message.
  CBlock* malloc(size_t size, void* stream, const std::shared_ptr<void>& stream_ref);
  void free(CBlock* block);
  // Marks block as used on stream (stream_ref keeps that stream alive until the free).
  void record_stream(CBlock* block, void* stream, std::shared_ptr<void> stream_ref = nullptr);
  void empty_cache();
  void set_memory_fraction(double fraction);
  DeviceStats stats();
  void reset_peak_stats();
  void reset_accumulated_stats();
  std::string snapshot_json();
  CBlock* find_allocated(void* ptr);  // nullptr when ptr is not an allocated block's address (linear)
  // (size, allocated, stream, segment start) of every block, segment by segment (for tests).
  struct BlockInfo {
    size_t size;
    bool allocated;
    bool active;
    void* ptr;
  };
  struct SegmentInfo {
    void* address;
    size_t total_size, allocated_size, active_size;
    bool is_large;
    void* stream;
    int64_t pool_id;  // the private pool it belongs to; 0: the default pools
    std::vector<BlockInfo> blocks;
  };
  std::vector<SegmentInfo> snapshot();

  // CUDA graphs (Note [Graph private pools]). Pool ids are int64 > 0, handed out by the graph
  // code; capture ids are DeviceBackend::capture_id's (never 0). Errors: Status::Argument for a
  // pool id <= 0 or capture id 0, Status::State for a call out of turn (each says which).
  // Creates the private pool `pool` with one use, or adds a use to an existing one; from now
  // on allocations on streams whose backend capture_id(stream) == capture_id come from it.
  // State: the pool or the capture is already allocating to a pool.
  void begin_allocate_to_pool(int64_t pool, uint64_t capture_id);
  // Allocations stop going to `pool` (its capture ended or was discarded). State: no capture
  // allocates to it.
  void end_allocate_to_pool(int64_t pool);
  // One use fewer (a graph using the pool was reset or destroyed). At 0 uses the pool becomes
  // freeable: its free, unsplit segments go back to the device at the next empty_cache or
  // out-of-memory retry, and the pool object goes away when it holds no segment. State: the
  // pool has no use, or its last use is still being captured into (end it first).
  void release_pool(int64_t pool);
  // Whether a capture allocates to a pool on this device (a begin without its end).
  bool capture_underway();
  // The figures of one stream (zero for a stream that never allocated).
  StreamStats stream_stats(void* stream);
  // An owned stream was destroyed (no block can be cached on it): its figures go.
  void forget_stream(void* stream);

  const CachingConfig& config() const { return config_; }
  struct ExpSeg;  // an expandable segment (Note [Expandable segments])
  struct Pool;     // the cached free blocks of one size class (small or large)
  struct PrivatePool;  // a graph's pool (Note [Graph private pools])
  static size_t round_size(size_t size, const CachingConfig& config);
  static size_t allocation_size(size_t size);

 private:
  Pool& pool_for(size_t size, void* stream);
  bool get_free_block(size_t size, void* stream, Pool& pool, CBlock** out);
  CBlock* alloc_block(size_t size, size_t alloc_size, void* stream, const std::shared_ptr<void>& ref, Pool& pool,
                      bool* oom);
  CBlock* new_block(void* stream, const std::shared_ptr<void>& ref, size_t size, void* ptr, Pool& pool,
                    StreamStats* ss);
  void delete_block(CBlock* b);
  void release_block(CBlock* b);
  bool release_available_cached_blocks(size_t size, void* stream, Pool& pool);
  void release_cached_blocks();
  void release_pool_segments(Pool& pool);  // its free, unsplit segments (or free pages)
  std::vector<void*> record_events(CBlock* b);  // one per stream use (throws: none left recorded)
  void insert_events(CBlock* b, const std::vector<void*>& evs);  // b waits for evs; none: free_block
  void insert_deferred_events();  // the frees deferred by captures (Note [Graph private pools])
  void free_block(CBlock* b);
  size_t try_merge(CBlock* dst, CBlock* src, Pool& pool);
  bool should_split(const CBlock* b, size_t size) const;
  void process_events();
  void synchronize_and_free_events();
  void garbage_collect();
  int64_t total_reserved() const;

  int device_;
  DeviceBackend* backend_;
  CachingConfig config_;
  CBlock* try_allocate_expandable(size_t size, void* stream, const std::shared_ptr<void>& ref, Pool& pool);
  CBlock* find_expandable_block(size_t size, void* stream, const std::shared_ptr<void>& ref, Pool& pool);
  bool map_block(CBlock* b, size_t size, Pool& pool);
  void unmap_block(CBlock* b, Pool& pool);
  void release_expandable_segment(CBlock* b, Pool& pool);
  std::vector<std::unique_ptr<ExpSeg>> expandable_;
  StreamStats* stream_stats_for(void* stream);
  void stat_block(CBlock* b, int64_t sign);  // allocation/allocated/requested ± for b

  mutable SpinMutex mu_;  // Note [Spin mutex]
  std::unordered_map<void*, std::unique_ptr<StreamStats>> stream_stats_;
  std::unique_ptr<Pool> small_, large_;
  CBlock* all_blocks_ = nullptr;       // intrusive list of every live block
  std::vector<std::shared_ptr<void>> graveyard_;  // Note [Stream references]
  std::vector<CBlock*> free_blocks_;  // recycled block objects (Note [Allocator bookkeeping without malloc])
  std::deque<std::pair<void*, CBlock*>> events_;
  DeviceStats stats_;
  bool set_fraction_ = false;
  size_t allowed_max_ = SIZE_MAX;
  uint64_t gc_clock_ = 0;
  // CUDA graphs (Note [Graph private pools])
  std::map<int64_t, std::unique_ptr<PrivatePool>> graph_pools_;
  std::vector<std::pair<uint64_t, PrivatePool*>> captures_underway_;  // (capture id, its pool)
  std::vector<CBlock*> deferred_frees_;  // freed during a capture with stream uses: no event yet
  std::unordered_map<CBlock*, std::vector<void*>> capture_stream_uses_;  // recorded during a capture
};

// Parses PyTorch's allocator configuration syntax ("max_split_size_mb:128,
// garbage_collection_threshold:0.6,roundup_power2_divisions:4,backend:native"). Throws
// Status::Argument with the offending key. `backend` gets "native" or "cudaMallocAsync".
CachingConfig parse_alloc_conf(const std::string& conf, std::string* backend);

std::string format_size(int64_t bytes);  // PyTorch's format_size ("2.00 MiB")

// torch.cuda.memory_summary's table for these statistics ("ctorch" where PyTorch says
// "PyTorch").
std::string memory_summary(const std::map<std::string, int64_t>& stats, int device, bool abbreviated);

// memory_stats as PyTorch names them ("allocated_bytes.all.current", ...), sorted by key.
std::map<std::string, int64_t> stats_map(const DeviceStats& s, const CachingConfig& config);

}  // namespace ct::alloc
