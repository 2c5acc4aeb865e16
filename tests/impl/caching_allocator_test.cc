// The caching allocator's policy and statistics against a fake device (no GPU needed).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "impl/alloc/caching_allocator.h"
#include "impl/core/error.h"
#include "tests/impl/error_of.h"

using namespace ct;
using namespace ct::alloc;

namespace {

constexpr size_t MiB = 1 << 20;

// A device with `capacity` bytes; addresses are fake; events complete when the test says so.
class FakeDevice : public DeviceBackend {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  void* malloc(int, size_t size) override {
    if (used_ + size > capacity_) return nullptr;
    used_ += size;
    char* p = reinterpret_cast<char*>(next_);
    next_ += size + (1 << 24);  // gaps: segments never touch
    sizes_[p] = size;
    mallocs++;
    return p;
  }
  void free(int, void* p) override {
    used_ -= sizes_.at(p);
    sizes_.erase(p);
    frees++;
  }
  void mem_info(int, size_t* f, size_t* t) override {
    *f = capacity_ - used_;
    *t = capacity_;
  }
  void* record_event(int, void* stream) override {
    auto* e = new Ev{stream, false};
    live_events.insert(e);
    recorded_on.push_back(stream);
    return e;
  }
  // Captures (Note [Graph private pools]): the test says which stream takes part in which one.
  uint64_t capture_id(void* stream) override {
    ++capture_queries;
    auto it = capturing.find(stream);
    return it == capturing.end() ? 0 : it->second;
  }
  void* malloc_for_capture(int device, size_t size) override {
    ++capture_mallocs;
    return malloc(device, size);
  }
  std::map<void*, uint64_t> capturing;  // stream -> capture id
  int capture_queries = 0, capture_mallocs = 0, event_queries = 0;
  std::vector<void*> recorded_on;  // the stream of each recorded event
  void* vm_reserve(int, size_t size) override {
    char* p = reinterpret_cast<char*>(next_);
    next_ += size + (1 << 24);
    reserved_ranges[p] = size;
    return p;
  }
  bool vm_map(int, void* p, size_t page) override {
    if (used_ + page > capacity_ || mapped_pages.count(p)) return false;
    used_ += page;
    mapped_pages.insert(p);
    return true;
  }
  void vm_unmap(int, void* p, size_t page) override {
    EXPECT_EQ(mapped_pages.erase(p), 1u);
    used_ -= page;
    syncs_before_unmap += synced ? 1 : 0;
  }
  void vm_release(int, void* p, size_t size) override {
    EXPECT_EQ(reserved_ranges.at(p), size);
    reserved_ranges.erase(p);
  }
  void synchronize(int) override { synced = true; }
  std::set<void*> mapped_pages;
  std::map<void*, size_t> reserved_ranges;
  bool synced = false;
  int syncs_before_unmap = 0;
  bool event_done(void* e) override {
    ++event_queries;
    return static_cast<Ev*>(e)->done || finished.count(static_cast<Ev*>(e)->stream);
  }
  void event_wait(void* e) override { static_cast<Ev*>(e)->done = true; }
  void event_destroy(void* e) override {
    live_events.erase(static_cast<Ev*>(e));
    delete static_cast<Ev*>(e);
  }
  struct Ev {
    void* stream;
    bool done;
  };
  std::set<void*> finished;  // streams whose recorded work is done
  std::set<Ev*> live_events;
  int mallocs = 0, frees = 0;
  size_t used_ = 0;

 private:
  size_t capacity_;
  uintptr_t next_ = 1 << 30;
  std::map<void*, size_t> sizes_;
};

void* const S1 = reinterpret_cast<void*>(0x100);
void* const S2 = reinterpret_cast<void*>(0x200);
void* const S3 = reinterpret_cast<void*>(0x300);
void* const S4 = reinterpret_cast<void*>(0x400);

struct Fixture : ::testing::Test {
  FakeDevice dev{1024 * MiB};
  CachingConfig cfg;
  std::unique_ptr<DeviceCachingAllocator> a{new DeviceCachingAllocator(0, &dev, cfg)};
  void reset(size_t capacity, CachingConfig c = CachingConfig()) {
    dev.~FakeDevice();
    new (&dev) FakeDevice(capacity);
    a.reset(new DeviceCachingAllocator(0, &dev, c));
  }
  DeviceStats st() { return a->stats(); }
  int64_t stat(const std::string& key) { return stats_map(a->stats(), a->config()).at(key); }
  void TearDown() override { clear_oom_hooks(); }
};

}  // namespace

TEST(CachingAllocatorSizes, RoundingAndSegments) {
  CachingConfig c;
  EXPECT_EQ(DeviceCachingAllocator::round_size(1, c), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(512, c), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(513, c), 1024u);
  EXPECT_EQ(DeviceCachingAllocator::allocation_size(1 * MiB), 2 * MiB);
  EXPECT_EQ(DeviceCachingAllocator::allocation_size(1 * MiB + 512), 20 * MiB);
  EXPECT_EQ(DeviceCachingAllocator::allocation_size(10 * MiB), 10 * MiB);
  EXPECT_EQ(DeviceCachingAllocator::allocation_size(10 * MiB + 1), 12 * MiB);
  EXPECT_EQ(format_size(1024), "1024 bytes");
  EXPECT_EQ(format_size(2 * MiB), "2.00 MiB");
  EXPECT_EQ(format_size(1536), "1.50 KiB");
}

TEST_F(Fixture, SmallAllocationSplitsA2MiBSegmentAndMergesBack) {
  CBlock* b = a->malloc(100, S1, nullptr);
  void* pb = block_ptr(b);  // blocks may be merged (deleted) once freed: keep the address
  DeviceStats s = st();
  EXPECT_EQ(s.allocated_bytes[kAll].current, 512);
  EXPECT_EQ(s.requested_bytes[kAll].current, 100);
  EXPECT_EQ(s.reserved_bytes[kAll].current, int64_t(2 * MiB));
  EXPECT_EQ(s.reserved_bytes[kSmallPool].current, int64_t(2 * MiB));
  EXPECT_EQ(s.reserved_bytes[kLargePool].current, 0);
  EXPECT_EQ(s.segment[kAll].current, 1);
  EXPECT_EQ(s.inactive_split[kAll].current, 1);
  EXPECT_EQ(s.inactive_split_bytes[kAll].current, int64_t(2 * MiB - 512));
  CBlock* c = a->malloc(600, S1, nullptr);  // carved from the same segment, right after b
  EXPECT_EQ(static_cast<char*>(block_ptr(c)), static_cast<char*>(block_ptr(b)) + 512);
  EXPECT_EQ(st().segment[kAll].current, 1);
  EXPECT_EQ(st().inactive_split_bytes[kAll].current, int64_t(2 * MiB - 512 - 1024));
  a->free(b);
  a->free(c);
  s = st();
  EXPECT_EQ(s.allocated_bytes[kAll].current, 0);
  EXPECT_EQ(s.allocated_bytes[kAll].peak, 1536);
  EXPECT_EQ(s.allocated_bytes[kAll].allocated, 1536);
  EXPECT_EQ(s.allocated_bytes[kAll].freed, 1536);
  EXPECT_EQ(s.reserved_bytes[kAll].current, int64_t(2 * MiB));  // cached, not returned
  EXPECT_EQ(s.inactive_split[kAll].current, 0);                   // merged into one block
  EXPECT_EQ(s.active[kAll].current, 0);
  EXPECT_EQ(dev.frees, 0);
  CBlock* d = a->malloc(2000, S1, nullptr);  // reuses the cached segment
  EXPECT_EQ(block_ptr(d), pb);
  EXPECT_EQ(dev.mallocs, 1);
  a->free(d);
}

TEST_F(Fixture, BlocksAreNotSharedAcrossStreams) {
  CBlock* b = a->malloc(4096, S1, nullptr);
  void* pb = block_ptr(b);
  a->free(b);
  CBlock* c = a->malloc(4096, S2, nullptr);
  EXPECT_NE(block_ptr(c), pb);
  EXPECT_EQ(dev.mallocs, 2);
  a->free(c);
}

TEST_F(Fixture, LargePoolSegmentsAndSplitRule) {
  CBlock* b = a->malloc(5 * MiB, S1, nullptr);  // 1..10 MiB: a 20 MiB segment, split
  EXPECT_EQ(st().reserved_bytes[kLargePool].current, int64_t(20 * MiB));
  EXPECT_EQ(st().inactive_split_bytes[kLargePool].current, int64_t(15 * MiB));
  // best fit: the 15 MiB rest of that segment serves a 12 MiB request (split again: 3 MiB left)
  CBlock* c = a->malloc(12 * MiB + 1, S1, nullptr);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(20 * MiB));
  EXPECT_EQ(st().segment[kLargePool].current, 1);
  EXPECT_EQ(st().inactive_split_bytes[kAll].current, int64_t(3 * MiB - 512));
  CBlock* d = a->malloc(5 * MiB + MiB / 2, S1, nullptr);  // does not fit: a second 20 MiB segment
  EXPECT_EQ(st().segment[kAll].current, 2);
  EXPECT_EQ(st().inactive_split[kAll].current, 2);
  // 14.5 MiB free block, 14 MiB request: the 0.5 MiB remainder is not worth a split
  CBlock* e = a->malloc(14 * MiB, S1, nullptr);
  EXPECT_EQ(st().allocated_bytes[kLargePool].current,
            int64_t(5 * MiB + 12 * MiB + 512 + 5 * MiB + MiB / 2 + 14 * MiB + MiB / 2));
  EXPECT_EQ(st().inactive_split[kAll].current, 1);
  // a request of 10 MiB or more that fits nowhere gets its own segment, rounded to 2 MiB
  CBlock* f = a->malloc(12 * MiB + 1, S1, nullptr);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(54 * MiB));
  for (CBlock* x : {b, c, d, e, f}) a->free(x);
  EXPECT_EQ(st().allocated_bytes[kAll].current, 0);
  EXPECT_EQ(st().inactive_split[kAll].current, 0);
  EXPECT_EQ(st().requested_bytes[kAll].current, 0);
}

TEST_F(Fixture, BestFitPicksTheSmallestBlockThatFits) {
  CBlock* big = a->malloc(30 * MiB, S1, nullptr);
  CBlock* mid = a->malloc(16 * MiB, S1, nullptr);
  void* pmid = block_ptr(mid);
  a->free(big);
  a->free(mid);
  CBlock* r = a->malloc(15 * MiB, S1, nullptr);  // fits both: the 16 MiB segment wins
  EXPECT_EQ(block_ptr(r), pmid);
  a->free(r);
}

TEST_F(Fixture, RecordStreamDelaysReuseUntilTheEventCompletes) {
  CBlock* b = a->malloc(4096, S1, nullptr);
  void* pb = block_ptr(b);
  a->record_stream(b, S2);
  a->record_stream(b, S1);  // the allocation stream needs nothing
  a->free(b);
  EXPECT_EQ(dev.live_events.size(), 1u);
  EXPECT_EQ(st().active[kAll].current, 1);  // pending free
  CBlock* c = a->malloc(4096, S1, nullptr);  // S2's work is not done: another block
  void* pc = block_ptr(c);
  EXPECT_NE(pc, pb);
  dev.finished.insert(S2);
  a->free(c);
  CBlock* d = a->malloc(4096, S1, nullptr);  // events polled at malloc: b is back
  EXPECT_EQ(dev.live_events.size(), 0u);
  EXPECT_TRUE(block_ptr(d) == pb || block_ptr(d) == pc);
  a->free(d);
  EXPECT_EQ(st().active[kAll].current, 0);
}

TEST_F(Fixture, OutOfMemoryFreesTheCacheAndRetries) {
  reset(40 * MiB);
  CBlock* b = a->malloc(20 * MiB, S1, nullptr);
  a->free(b);  // 20 MiB cached
  CBlock* c = a->malloc(30 * MiB, S1, nullptr);  // needs the cache released first
  EXPECT_EQ(st().num_alloc_retries, 1);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(30 * MiB));
  EXPECT_EQ(dev.frees, 1);
  try {
    a->malloc(20 * MiB, S1, nullptr);
    FAIL() << "expected out of memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Status::OutOfMemory);
    std::string m = e.what();
    EXPECT_NE(m.find("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 40.00 MiB of which 10.00 MiB is free."), std::string::npos) << m;
    EXPECT_NE(m.find("30.00 MiB is allocated by ctorch"), std::string::npos) << m;
  }
  EXPECT_EQ(st().num_ooms, 1);
  a->free(c);
}

TEST_F(Fixture, OutOfMemoryHooksRecoverDroppedBlocks) {
  reset(40 * MiB);
  CBlock* leaked = a->malloc(30 * MiB, S1, nullptr);  // "dropped without closing"
  int calls = 0;
  size_t asked = 0;
  add_oom_hook([&](int device, size_t bytes) {
    ++calls;
    asked = bytes;
    EXPECT_EQ(device, 0);
    // The collector's finalizer runs on another thread: the allocator's lock must be free.
    std::thread finalizer([&] { a->free(leaked); });
    finalizer.join();
    leaked = nullptr;
  });
  CBlock* c = a->malloc(30 * MiB - 100, S1, nullptr);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(asked, 30 * MiB - 100);
  EXPECT_EQ(st().num_ooms, 0);
  EXPECT_EQ(st().allocated_bytes[kAll].current, static_cast<int64_t>(30 * MiB));
  a->free(c);
}

TEST_F(Fixture, OutOfMemoryHooksRunInOrderOnceAndCanBeRemoved) {
  reset(40 * MiB);
  CBlock* held = a->malloc(30 * MiB, S1, nullptr);
  std::vector<int> order;
  int64_t h1 = add_oom_hook([&](int, size_t) { order.push_back(1); });
  int64_t h2 = add_oom_hook([&](int, size_t) {
    order.push_back(2);
    // An allocation inside a hook that runs out of memory fails without running the hooks again.
    EXPECT_THROW(a->malloc(30 * MiB, S1, nullptr), Error);
  });
  EXPECT_NE(h1, h2);
  EXPECT_THROW(a->malloc(30 * MiB, S1, nullptr), Error);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(st().num_ooms, 2);
  EXPECT_TRUE(remove_oom_hook(h2));
  EXPECT_FALSE(remove_oom_hook(h2));
  order.clear();
  EXPECT_THROW(a->malloc(30 * MiB, S1, nullptr), Error);
  EXPECT_EQ(order, (std::vector<int>{1}));
  EXPECT_TRUE(remove_oom_hook(h1));
  EXPECT_FALSE(run_oom_hooks(0, 1));  // none left
  a->free(held);
}

// A stream object whose destruction calls back into the allocator (as ctorch's streams do,
// through forget_stream) must not be destroyed under the allocator's lock.
TEST_F(Fixture, StreamDestroyedByTheAllocatorCallsBackWithoutDeadlock) {
  int destroyed = 0;
  {
    std::shared_ptr<void> stream_obj(reinterpret_cast<void*>(0x1), [&](void*) {
      a->forget_stream(S2);
      ++destroyed;
    });
    CBlock* b = a->malloc(1000, S2, stream_obj);
    CBlock* c = a->malloc(1000, S1, nullptr);
    a->record_stream(c, S2, stream_obj);
    a->free(b);
    a->free(c);  // an event for S2: c keeps stream_obj until the event is polled
  }
  EXPECT_EQ(destroyed, 0);  // cached blocks keep the stream alive
  a->empty_cache();         // drops the last references
  EXPECT_EQ(destroyed, 1);
}

TEST_F(Fixture, PerStreamStatisticsCountEachStreamsBlocksAndSegments) {
  CBlock* a1 = a->malloc(1000, S1, nullptr);     // 1024 bytes, new 2 MiB segment on S1
  CBlock* a2 = a->malloc(3 * MiB, S1, nullptr);  // 20 MiB segment on S1
  CBlock* b1 = a->malloc(512, S2, nullptr);      // 2 MiB segment on S2
  StreamStats s1 = a->stream_stats(S1), s2 = a->stream_stats(S2);
  EXPECT_EQ(s1.allocation.current, 2);
  EXPECT_EQ(s1.allocated_bytes.current, static_cast<int64_t>(1024 + 3 * MiB));
  EXPECT_EQ(s1.requested_bytes.current, static_cast<int64_t>(1000 + 3 * MiB));
  EXPECT_EQ(s1.segment.current, 2);
  EXPECT_EQ(s1.reserved_bytes.current, static_cast<int64_t>(22 * MiB));
  EXPECT_EQ(s2.allocation.current, 1);
  EXPECT_EQ(s2.allocated_bytes.current, 512);
  EXPECT_EQ(s2.reserved_bytes.current, static_cast<int64_t>(2 * MiB));
  // A block used on S2 stays active (not allocated) on S1 until S2's work is done.
  a->record_stream(a1, S2);
  a->free(a1);
  a->free(a2);
  s1 = a->stream_stats(S1);
  EXPECT_EQ(s1.allocation.current, 0);
  EXPECT_EQ(s1.allocation.peak, 2);
  EXPECT_EQ(s1.allocated_bytes.freed, static_cast<int64_t>(1024 + 3 * MiB));
  EXPECT_EQ(s1.active.current, 1);
  EXPECT_EQ(s1.active_bytes.current, 1024);
  a->free(b1);
  a->empty_cache();
  s1 = a->stream_stats(S1);
  s2 = a->stream_stats(S2);
  EXPECT_EQ(s1.active.current, 0);
  EXPECT_EQ(s1.segment.current, 0);
  EXPECT_EQ(s1.reserved_bytes.current, 0);
  EXPECT_EQ(s1.reserved_bytes.peak, static_cast<int64_t>(22 * MiB));
  EXPECT_EQ(s2.reserved_bytes.freed, static_cast<int64_t>(2 * MiB));
  a->reset_peak_stats();
  EXPECT_EQ(a->stream_stats(S1).reserved_bytes.peak, 0);
  a->reset_accumulated_stats();
  EXPECT_EQ(a->stream_stats(S2).reserved_bytes.freed, 0);
  // The per-stream figures add up to the device's.
  EXPECT_EQ(a->stream_stats(reinterpret_cast<void*>(0x300)).allocation.allocated, 0);
  a->forget_stream(S1);
  EXPECT_EQ(a->stream_stats(S1).reserved_bytes.peak, 0);
}

CachingConfig expandable() {
  CachingConfig c;
  c.expandable_segments = true;
  return c;
}

TEST_F(Fixture, ExpandableSegmentsGrowOneSegmentInPlace) {
  reset(1000 * MiB, expandable());
  CBlock* a1 = a->malloc(5 * MiB, S1, nullptr);  // maps one 20 MiB page of a new large segment
  EXPECT_EQ(dev.reserved_ranges.size(), 1u);
  EXPECT_EQ(dev.reserved_ranges.begin()->second, 1140 * MiB);  // 9/8 of the device, in 20 MiB pages
  EXPECT_EQ(st().reserved_bytes[kLargePool].current, static_cast<int64_t>(20 * MiB));
  EXPECT_EQ(st().segment[kAll].current, 0);  // as PyTorch: mapping is not a segment
  EXPECT_EQ(st().num_device_alloc, 1);
  CBlock* a2 = a->malloc(18 * MiB, S1, nullptr);  // the 15 MiB free after a1 plus one more page
  EXPECT_EQ(block_ptr(a2), static_cast<char*>(block_ptr(a1)) + 5 * MiB);
  EXPECT_EQ(st().reserved_bytes[kAll].current, static_cast<int64_t>(40 * MiB));
  EXPECT_EQ(st().num_device_alloc, 2);
  EXPECT_EQ(st().inactive_split[kAll].current, 0);  // expandable blocks are not counted there
  CBlock* s1 = a->malloc(1000, S1, nullptr);  // small pool: its own segment with 2 MiB pages
  EXPECT_EQ(dev.reserved_ranges.size(), 2u);
  EXPECT_EQ(st().reserved_bytes[kSmallPool].current, static_cast<int64_t>(2 * MiB));
  CBlock* s2 = a->malloc(1000, S2, nullptr);  // another stream: another segment
  EXPECT_EQ(dev.reserved_ranges.size(), 3u);
  void* p1 = block_ptr(a1);
  a->free(a1);
  CBlock* a3 = a->malloc(4 * MiB, S1, nullptr);  // reuses a1's place (best fit)
  EXPECT_EQ(block_ptr(a3), p1);
  EXPECT_EQ(st().reserved_bytes[kAll].current, static_cast<int64_t>(44 * MiB));
  std::vector<DeviceCachingAllocator::SegmentInfo> snap = a->snapshot();
  ASSERT_EQ(snap.size(), 3u);  // one mapped run per expandable segment
  size_t total = 0;
  for (auto& seg : snap) total += seg.total_size;
  EXPECT_EQ(total, 44 * MiB);
  for (CBlock* b : {a2, a3, s1, s2}) a->free(b);
  EXPECT_EQ(st().reserved_bytes[kAll].current, static_cast<int64_t>(44 * MiB));  // cached
  a->empty_cache();  // unmaps every page and gives the address ranges back
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_EQ(st().num_device_free, 3);
  EXPECT_TRUE(dev.mapped_pages.empty());
  EXPECT_TRUE(dev.reserved_ranges.empty());
  EXPECT_GT(dev.syncs_before_unmap, 0);
  EXPECT_EQ(dev.used_, 0u);
  EXPECT_EQ(st().allocated_bytes[kAll].current, 0);
}

TEST_F(Fixture, ExpandableSegmentsOutOfMemoryUnmapsFreePagesAndRetries) {
  reset(60 * MiB, expandable());
  CBlock* a1 = a->malloc(30 * MiB, S1, nullptr);  // two 20 MiB pages
  EXPECT_EQ(st().reserved_bytes[kAll].current, static_cast<int64_t>(40 * MiB));
  a->free(a1);  // cached: the pages stay mapped
  EXPECT_EQ(dev.used_, 40 * MiB);
  // Another stream needs two pages of its own: only after S1's free pages are unmapped (and
  // S1's emptied address range given back) do they fit.
  CBlock* b1 = a->malloc(30 * MiB, S2, nullptr);
  EXPECT_EQ(st().num_alloc_retries, 1);
  EXPECT_EQ(st().num_ooms, 0);
  EXPECT_EQ(dev.used_, 40 * MiB);
  EXPECT_EQ(dev.reserved_ranges.size(), 1u);
  EXPECT_EQ(st().reserved_bytes[kAll].current, static_cast<int64_t>(40 * MiB));
  CBlock* b2 = a->malloc(30 * MiB, S2, nullptr);  // the 10 MiB left plus one more page
  EXPECT_EQ(block_ptr(b2), static_cast<char*>(block_ptr(b1)) + 30 * MiB);
  EXPECT_EQ(dev.used_, 60 * MiB);
  EXPECT_THROW(a->malloc(1000, S2, nullptr), Error);  // a 2 MiB small page does not fit
  EXPECT_EQ(st().num_ooms, 1);
  a->free(b1);
  a->free(b2);
  a->empty_cache();
  EXPECT_TRUE(dev.mapped_pages.empty());
  EXPECT_TRUE(dev.reserved_ranges.empty());
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
}

TEST(CachingAllocatorConfig, ExpandableSegmentsParse) {
  std::string backend;
  EXPECT_TRUE(parse_alloc_conf("expandable_segments:True", &backend).expandable_segments);
  EXPECT_FALSE(parse_alloc_conf("expandable_segments:False", &backend).expandable_segments);
  EXPECT_THROW(parse_alloc_conf("expandable_segments:yes", &backend), Error);
}

TEST_F(Fixture, MemoryFractionLimitsReservedMemory) {
  reset(100 * MiB);
  a->set_memory_fraction(0.5);
  CBlock* b = a->malloc(40 * MiB, S1, nullptr);
  EXPECT_THROW(a->malloc(20 * MiB, S1, nullptr), Error);
  EXPECT_THROW(a->set_memory_fraction(1.5), Error);
  a->free(b);
  CBlock* c = a->malloc(48 * MiB, S1, nullptr);  // the cached 40 MiB is released to make room
  a->free(c);
}

TEST_F(Fixture, MaxSplitSizeKeepsOversizeBlocksWhole) {
  CachingConfig c;
  c.max_split_size = 64 * MiB;
  reset(1024 * MiB, c);
  CBlock* big = a->malloc(100 * MiB, S1, nullptr);
  void* pbig = block_ptr(big);
  EXPECT_EQ(st().oversize_allocations.current, 1);
  EXPECT_EQ(st().oversize_segments.current, 1);
  a->free(big);
  CBlock* small = a->malloc(30 * MiB, S1, nullptr);  // below max_split_size: not from the oversize block
  EXPECT_NE(block_ptr(small), pbig);
  CBlock* near = a->malloc(90 * MiB, S1, nullptr);   // within 20 MiB of it: takes it whole
  EXPECT_EQ(block_ptr(near), pbig);
  EXPECT_EQ(st().inactive_split[kAll].current, 0);
  a->free(small);
  a->free(near);
}

TEST_F(Fixture, EmptyCacheReleasesUnusedSegmentsOnly) {
  CBlock* keep = a->malloc(4096, S1, nullptr);
  CBlock* drop = a->malloc(30 * MiB, S1, nullptr);
  a->free(drop);
  a->empty_cache();
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(2 * MiB));  // the small segment is in use
  EXPECT_EQ(st().num_device_free, 1);
  a->free(keep);
  a->empty_cache();
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_EQ(st().reserved_bytes[kAll].peak, int64_t(32 * MiB));
  a->reset_peak_stats();
  EXPECT_EQ(st().reserved_bytes[kAll].peak, 0);
  a->reset_accumulated_stats();
  EXPECT_EQ(st().reserved_bytes[kAll].allocated, 0);
  EXPECT_EQ(st().num_device_alloc, 0);
}

TEST_F(Fixture, SnapshotListsSegmentsAndBlocks) {
  CBlock* b = a->malloc(1000, S1, nullptr);
  auto snap = a->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].total_size, 2 * MiB);
  EXPECT_EQ(snap[0].allocated_size, 1024u);
  ASSERT_EQ(snap[0].blocks.size(), 2u);
  EXPECT_TRUE(snap[0].blocks[0].allocated);
  EXPECT_FALSE(snap[0].blocks[1].allocated);
  std::string j = a->snapshot_json();
  EXPECT_NE(j.find("\"segment_type\": \"small\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"state\": \"active_allocated\""), std::string::npos) << j;
  a->free(b);
}

TEST(AllocConf, ParsesPyTorchSyntaxAndRejectsBadValues) {
  std::string backend;
  CachingConfig c = parse_alloc_conf("max_split_size_mb:128, garbage_collection_threshold:0.6,roundup_power2_divisions:4", &backend);
  EXPECT_EQ(backend, "native");
  EXPECT_EQ(c.max_split_size, 128 * MiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  ASSERT_EQ(c.roundup_power2_divisions.size(), 1u);
  EXPECT_EQ(c.roundup_power2_divisions[0], 4u);
  parse_alloc_conf("backend:cudaMallocAsync", &backend);
  EXPECT_EQ(backend, "cudaMallocAsync");
  c = parse_alloc_conf("roundup_power2_divisions:[256:1,512:2,>:4],expandable_segments:False", &backend);
  EXPECT_EQ(c.roundup_power2_divisions.size(), 3u);
  for (const char* bad : {"max_split_size_mb:10", "garbage_collection_threshold:1.5", "foo:1", "max_split_size_mb",
                          "roundup_power2_divisions:3", "backend:other", "max_split_size_mb:abc"}) {
    try {
      parse_alloc_conf(bad, &backend);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Status::Argument) << bad;
      EXPECT_NE(std::string(e.what()).find("CTORCH_CUDA_ALLOC_CONF"), std::string::npos);
    }
  }
}

TEST_F(Fixture, MemorySummaryTableAsPyTorchs) {
  CBlock* b = a->malloc(5 * MiB, S1, nullptr);
  std::string s = memory_summary(stats_map(a->stats(), a->config()), 0, false);
  EXPECT_EQ(s.substr(0, 77), "|" + std::string(75, '=') + "|");
  EXPECT_NE(s.find("|                   ctorch CUDA memory summary, device ID 0                 |\n"), std::string::npos) << s;
  EXPECT_NE(s.find("|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n"), std::string::npos) << s;
  EXPECT_NE(s.find("|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"), std::string::npos) << s;
  // Units step up while the row's "all" value is at least 768 of them (torch's _format_size):
  // 5 MiB is "5120 KiB", 20 MiB "20480 KiB".
  EXPECT_NE(s.find("| Allocated memory      |   5120 KiB |   5120 KiB |   5120 KiB |      0 B   |\n"), std::string::npos) << s;
  EXPECT_NE(s.find("|       from small pool |      0 KiB |      0 KiB |      0 KiB |      0 B   |\n"), std::string::npos) << s;
  EXPECT_NE(s.find("| GPU reserved memory   |  20480 KiB |  20480 KiB |  20480 KiB |      0 B   |\n"), std::string::npos) << s;
  EXPECT_NE(s.find("| Allocations           |       1    |       1    |       1    |       0    |\n"), std::string::npos) << s;
  for (size_t pos = 0, next; (next = s.find('\n', pos)) != std::string::npos; pos = next + 1)
    EXPECT_EQ(next - pos, 77u) << s.substr(pos, next - pos);  // every line is 75 wide plus the bars
  std::string ab = memory_summary(stats_map(a->stats(), a->config()), 0, true);
  EXPECT_EQ(ab.find("from large pool"), std::string::npos);
  a->free(b);
}

// ---- CUDA graphs' private pools (Note [Graph private pools])

namespace {
// The pool id of the segment that starts at p (-1: no such segment).
int64_t pool_of_segment(DeviceCachingAllocator& a, void* p) {
  for (const auto& seg : a.snapshot())
    if (seg.address == p) return seg.pool_id;
  return -1;
}
}  // namespace

TEST_F(Fixture, CaptureAllocatesFromThePrivatePoolOnItsStreamsOnly) {
  CBlock* z = a->malloc(1000, S1, nullptr);  // default pool: a 2 MiB segment on S1, then cached
  void* pz = block_ptr(z);
  a->free(z);
  EXPECT_EQ(dev.capture_queries, 0);  // no capture: the stream is never asked
  EXPECT_FALSE(a->capture_underway());
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  EXPECT_TRUE(a->capture_underway());
  CBlock* x = a->malloc(1000, S1, nullptr);  // S1 captures: the pool's own segment, not the cached one
  EXPECT_NE(block_ptr(x), pz);
  EXPECT_EQ(dev.mallocs, 2);
  EXPECT_EQ(dev.capture_mallocs, 1);
  CBlock* y = a->malloc(1000, S2, nullptr);  // S2 does not capture: the default pool
  EXPECT_EQ(dev.mallocs, 3);
  EXPECT_EQ(dev.capture_mallocs, 1);
  EXPECT_EQ(dev.capture_queries, 2);
  ASSERT_EQ(a->snapshot().size(), 3u);
  EXPECT_EQ(pool_of_segment(*a, block_ptr(x)), 1);
  EXPECT_EQ(pool_of_segment(*a, block_ptr(y)), 0);
  EXPECT_EQ(pool_of_segment(*a, pz), 0);
  a->end_allocate_to_pool(1);
  EXPECT_FALSE(a->capture_underway());
  CBlock* w = a->malloc(1000, S1, nullptr);  // capture over: S1's cached default block again
  EXPECT_EQ(block_ptr(w), pz);
  EXPECT_EQ(dev.capture_queries, 2);
  for (CBlock* b : {x, y, w}) a->free(b);
}

TEST_F(Fixture, BlocksFreedDuringACaptureAreReusedOnlyByThatPool) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  CBlock* x = a->malloc(4096, S1, nullptr);
  void* px = block_ptr(x);
  a->free(x);                                 // cached in pool 1
  CBlock* x2 = a->malloc(4096, S1, nullptr);  // the same capture: reused
  EXPECT_EQ(block_ptr(x2), px);
  a->free(x2);
  a->end_allocate_to_pool(1);
  dev.capturing[S1] = 9;  // another capture on the same stream, into another pool
  a->begin_allocate_to_pool(2, 9);
  CBlock* y = a->malloc(4096, S1, nullptr);
  void* py = block_ptr(y);
  EXPECT_NE(py, px);
  EXPECT_EQ(dev.mallocs, 2);
  a->free(y);
  a->end_allocate_to_pool(2);
  dev.capturing.clear();
  CBlock* d = a->malloc(4096, S1, nullptr);  // no capture: neither pool's block
  EXPECT_NE(block_ptr(d), px);
  EXPECT_NE(block_ptr(d), py);
  EXPECT_EQ(dev.mallocs, 3);
  EXPECT_EQ(dev.capture_mallocs, 2);
  a->free(d);
}

TEST_F(Fixture, ABlockFreedAfterItsCaptureReturnsToThePrivatePool) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  CBlock* x = a->malloc(1000, S1, nullptr);  // a tensor the capture created
  void* px = block_ptr(x);
  a->end_allocate_to_pool(1);
  dev.capturing.clear();
  a->free(x);
  auto snap = a->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].pool_id, 1);
  EXPECT_EQ(snap[0].total_size, 2 * MiB);
  EXPECT_EQ(snap[0].allocated_size, 0u);
  CBlock* d = a->malloc(1000, S1, nullptr);  // the default pool does not see it
  EXPECT_NE(block_ptr(d), px);
  EXPECT_EQ(dev.mallocs, 2);
  dev.capturing[S1] = 8;  // the next capture into the pool does
  a->begin_allocate_to_pool(1, 8);
  CBlock* y = a->malloc(1000, S1, nullptr);
  EXPECT_EQ(block_ptr(y), px);
  EXPECT_EQ(dev.mallocs, 2);
  a->end_allocate_to_pool(1);
  a->free(y);
  a->free(d);
}

TEST_F(Fixture, EmptyCacheFreesAPoolOnlyOnceReleasedAndUnused) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  CBlock* x = a->malloc(5 * MiB, S1, nullptr);  // pool 1: a 20 MiB large segment
  CBlock* y = a->malloc(1000, S1, nullptr);     // pool 1: a 2 MiB small segment
  a->end_allocate_to_pool(1);
  a->free(y);
  CBlock* z = a->malloc(1000, S2, nullptr);  // the default pool: a 2 MiB segment, cached
  a->free(z);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(24 * MiB));
  a->empty_cache();  // the default pool's segment only: pool 1 is live
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(22 * MiB));
  EXPECT_EQ(st().segment[kAll].current, 2);
  a->release_pool(1);  // freeable now; nothing goes until the next empty_cache
  EXPECT_EQ(dev.frees, 1);
  a->empty_cache();  // the free small segment goes; x still holds the large one
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(20 * MiB));
  auto snap = a->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].pool_id, 1);
  EXPECT_EQ(snap[0].allocated_size, 5 * MiB);
  a->free(x);  // back to pool 1, still cached
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(20 * MiB));
  EXPECT_EQ(dev.frees, 2);
  a->empty_cache();
  EXPECT_EQ(dev.frees, 3);
  EXPECT_EQ(st().num_device_free, 3);
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_TRUE(a->snapshot().empty());
  EXPECT_EQ(dev.used_, 0u);
  EXPECT_EQ(error_of([&] { a->release_pool(1); }).first, Status::State);  // the pool is gone
}

TEST_F(Fixture, ASharedPoolKeepsOneUsePerGraph) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);  // graph 1
  CBlock* x = a->malloc(1000, S1, nullptr);
  void* px = block_ptr(x);
  a->free(x);
  a->end_allocate_to_pool(1);
  dev.capturing[S1] = 8;
  a->begin_allocate_to_pool(1, 8);  // graph 2, captured after it, shares the pool
  CBlock* y = a->malloc(1000, S1, nullptr);
  EXPECT_EQ(block_ptr(y), px);
  a->free(y);
  a->end_allocate_to_pool(1);
  EXPECT_EQ(dev.mallocs, 1);
  a->release_pool(1);  // graph 1 reset: graph 2 still uses the pool
  a->empty_cache();
  EXPECT_EQ(dev.frees, 0);
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(2 * MiB));
  a->release_pool(1);  // graph 2 reset
  a->empty_cache();
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_EQ(error_of([&] { a->release_pool(1); }).first, Status::State);
}

TEST_F(Fixture, AFreeablePoolThatACaptureBeginsOnIsLiveAgain) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  CBlock* x = a->malloc(1000, S1, nullptr);  // 1024 bytes at the start of the pool's segment
  a->end_allocate_to_pool(1);
  a->release_pool(1);  // freeable; x keeps the segment
  dev.capturing[S1] = 8;
  a->begin_allocate_to_pool(1, 8);
  CBlock* y = a->malloc(1000, S1, nullptr);  // the same pool: right after x
  EXPECT_EQ(block_ptr(y), static_cast<char*>(block_ptr(x)) + 1024);
  EXPECT_EQ(dev.mallocs, 1);
  a->end_allocate_to_pool(1);
  a->free(x);
  a->free(y);
  a->empty_cache();  // in use again: kept
  EXPECT_EQ(dev.frees, 0);
  a->release_pool(1);
  a->empty_cache();
  EXPECT_EQ(dev.frees, 1);
}

TEST_F(Fixture, PoolCallsOutOfTurnFailWithClearErrors) {
  auto check = [](std::pair<Status, std::string> e, Status code, const std::string& text) {
    EXPECT_EQ(e.first, code) << e.second;
    EXPECT_NE(e.second.find(text), std::string::npos) << e.second;
  };
  check(error_of([&] { a->begin_allocate_to_pool(0, 7); }), Status::Argument, "pool ids are positive (got 0)");
  check(error_of([&] { a->begin_allocate_to_pool(-3, 7); }), Status::Argument, "pool ids are positive (got -3)");
  check(error_of([&] { a->begin_allocate_to_pool(1, 0); }), Status::Argument, "capture id 0 names no capture");
  EXPECT_FALSE(a->capture_underway());
  a->begin_allocate_to_pool(1, 7);
  check(error_of([&] { a->begin_allocate_to_pool(1, 8); }), Status::State,
        "a capture already allocates to pool 1 on device 0");
  check(error_of([&] { a->begin_allocate_to_pool(2, 7); }), Status::State, "capture 7 already allocates to pool 1");
  check(error_of([&] { a->end_allocate_to_pool(2); }), Status::State, "no capture allocates to pool 2 on device 0");
  check(error_of([&] { a->release_pool(2); }), Status::State, "pool 2 is not in use on device 0");
  check(error_of([&] { a->release_pool(1); }), Status::State, "is still being captured into");
  check(error_of([&] { a->empty_cache(); }), Status::State, "empty_cache is not allowed while a CUDA graph capture");
  a->end_allocate_to_pool(1);
  check(error_of([&] { a->end_allocate_to_pool(1); }), Status::State, "no capture allocates to pool 1");
  a->release_pool(1);  // no segment: the pool goes at once
  check(error_of([&] { a->release_pool(1); }), Status::State, "pool 1 is not in use");
  EXPECT_FALSE(a->capture_underway());
  a->empty_cache();
}

TEST_F(Fixture, PrivatePoolStatisticsDuringAndAfterTheCapture) {
  CBlock* d = a->malloc(3 * MiB, S2, nullptr);  // default large: a 20 MiB segment, 17 MiB left split off
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  CBlock* a1 = a->malloc(1000, S1, nullptr);     // pool small: a 2 MiB segment, 1024 allocated
  CBlock* a2 = a->malloc(5 * MiB, S1, nullptr);  // pool large: a 20 MiB segment, 15 MiB left split off
  EXPECT_EQ(stat("allocation.all.current"), 3);
  EXPECT_EQ(stat("allocation.small_pool.current"), 1);
  EXPECT_EQ(stat("allocation.large_pool.current"), 2);
  EXPECT_EQ(stat("allocated_bytes.all.current"), int64_t(8 * MiB + 1024));
  EXPECT_EQ(stat("allocated_bytes.small_pool.current"), 1024);
  EXPECT_EQ(stat("allocated_bytes.large_pool.current"), int64_t(8 * MiB));
  EXPECT_EQ(stat("requested_bytes.all.current"), int64_t(8 * MiB + 1000));
  EXPECT_EQ(stat("reserved_bytes.all.current"), int64_t(42 * MiB));
  EXPECT_EQ(stat("reserved_bytes.small_pool.current"), int64_t(2 * MiB));
  EXPECT_EQ(stat("reserved_bytes.large_pool.current"), int64_t(40 * MiB));
  EXPECT_EQ(stat("segment.all.current"), 3);
  EXPECT_EQ(stat("segment.small_pool.current"), 1);
  EXPECT_EQ(stat("segment.large_pool.current"), 2);
  EXPECT_EQ(stat("inactive_split.all.current"), 3);
  EXPECT_EQ(stat("inactive_split_bytes.all.current"), int64_t(17 * MiB + (2 * MiB - 1024) + 15 * MiB));
  EXPECT_EQ(stat("active.all.current"), 3);
  EXPECT_EQ(stat("num_device_alloc"), 3);
  StreamStats s1 = a->stream_stats(S1);
  EXPECT_EQ(s1.allocation.current, 2);
  EXPECT_EQ(s1.allocated_bytes.current, int64_t(5 * MiB + 1024));
  EXPECT_EQ(s1.segment.current, 2);
  EXPECT_EQ(s1.reserved_bytes.current, int64_t(22 * MiB));
  a->free(a1);  // during the capture: back into the pool's small segment, whole again
  EXPECT_EQ(stat("allocated_bytes.small_pool.current"), 0);
  EXPECT_EQ(stat("active.small_pool.current"), 0);
  EXPECT_EQ(stat("inactive_split.small_pool.current"), 0);
  EXPECT_EQ(stat("inactive_split_bytes.small_pool.current"), 0);
  EXPECT_EQ(stat("reserved_bytes.small_pool.current"), int64_t(2 * MiB));
  a->end_allocate_to_pool(1);
  a->free(a2);
  EXPECT_EQ(stat("allocated_bytes.all.current"), int64_t(3 * MiB));
  EXPECT_EQ(stat("allocated_bytes.all.peak"), int64_t(8 * MiB + 1024));
  EXPECT_EQ(stat("inactive_split.all.current"), 1);  // d's rest
  EXPECT_EQ(stat("reserved_bytes.all.current"), int64_t(42 * MiB));
  a->release_pool(1);
  a->empty_cache();  // both pool segments go; d's stays
  EXPECT_EQ(stat("reserved_bytes.all.current"), int64_t(20 * MiB));
  EXPECT_EQ(stat("reserved_bytes.all.freed"), int64_t(22 * MiB));
  EXPECT_EQ(stat("segment.all.current"), 1);
  EXPECT_EQ(stat("segment.small_pool.current"), 0);
  EXPECT_EQ(stat("segment.large_pool.current"), 1);
  EXPECT_EQ(stat("num_device_free"), 2);
  s1 = a->stream_stats(S1);
  EXPECT_EQ(s1.segment.current, 0);
  EXPECT_EQ(s1.reserved_bytes.current, 0);
  EXPECT_EQ(s1.reserved_bytes.peak, int64_t(22 * MiB));
  EXPECT_EQ(s1.allocated_bytes.freed, int64_t(5 * MiB + 1024));
  a->free(d);
}

TEST_F(Fixture, NoEventQueriesDuringACaptureAndDeferredFreesAfterIt) {
  CBlock* e = a->malloc(4096, S1, nullptr);
  void* pe = block_ptr(e);
  a->record_stream(e, S2);
  a->free(e);  // before the capture: an event on S2 at once
  EXPECT_EQ(dev.recorded_on, std::vector<void*>{S2});
  CBlock* b = a->malloc(4096, S1, nullptr);  // e waits for S2: the next 4096 bytes
  void* pb = block_ptr(b);
  EXPECT_EQ(pb, static_cast<char*>(pe) + 4096);
  a->record_stream(b, S2);
  dev.capturing[S3] = 7;
  a->begin_allocate_to_pool(1, 7);
  const int queries = dev.event_queries;
  a->free(b);  // during the capture: no event recorded, b waits
  EXPECT_EQ(dev.recorded_on.size(), 1u);
  EXPECT_EQ(dev.live_events.size(), 1u);
  EXPECT_EQ(st().allocation[kAll].current, 0);
  EXPECT_EQ(st().active[kAll].current, 2);  // e and b, both pending
  CBlock* c = a->malloc(4096, S3, nullptr);  // the capture's stream
  CBlock* f = a->malloc(4096, S1, nullptr);  // another stream, during the capture
  EXPECT_EQ(dev.event_queries, queries);     // no event was polled
  EXPECT_EQ(block_ptr(f), static_cast<char*>(pb) + 4096);  // neither e nor b is reused
  dev.finished.insert(S2);
  a->end_allocate_to_pool(1);
  CBlock* h = a->malloc(4096, S1, nullptr);  // no capture: b's event is recorded, all are polled
  EXPECT_EQ(dev.recorded_on, (std::vector<void*>{S2, S2}));
  EXPECT_GT(dev.event_queries, queries);
  EXPECT_EQ(dev.live_events.size(), 0u);
  EXPECT_EQ(block_ptr(h), pe);  // e and b merged into one 8 KiB block: the best fit
  EXPECT_EQ(st().active[kAll].current, 3);  // c, f, h
  for (CBlock* x : {c, f, h}) a->free(x);
}

TEST_F(Fixture, DeferredFreesRecordEventsOnlyOnStreamsRecordedBeforeTheCapture) {
  CBlock* x = a->malloc(4096, S1, nullptr);
  CBlock* y = a->malloc(4096, S1, nullptr);
  void* py = block_ptr(y);
  a->record_stream(x, S2);  // before the capture
  dev.capturing[S3] = 7;
  a->begin_allocate_to_pool(1, 7);
  a->record_stream(x, S4);  // during it: S4's work is in the graph, not run
  a->record_stream(y, S4);
  a->free(x);
  a->free(y);
  EXPECT_TRUE(dev.recorded_on.empty());
  a->end_allocate_to_pool(1);
  CBlock* z = a->malloc(100, S1, nullptr);  // the deferred frees: x waits for S2, y is free at once
  EXPECT_EQ(dev.recorded_on, std::vector<void*>{S2});
  EXPECT_EQ(dev.live_events.size(), 1u);
  EXPECT_EQ(block_ptr(z), py);            // y, merged with the free rest of the segment
  EXPECT_EQ(st().active[kAll].current, 2);  // x (pending) and z
  dev.finished.insert(S2);
  a->free(z);
  a->empty_cache();
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_EQ(dev.live_events.size(), 0u);
}

TEST_F(Fixture, NothingIsFreedToTheDeviceDuringACapture) {
  {  // out of memory: the cached default segment stays
    reset(40 * MiB);
    CBlock* z = a->malloc(20 * MiB, S1, nullptr);
    a->free(z);
    dev.capturing[S1] = 7;
    a->begin_allocate_to_pool(1, 7);
    CBlock* p = a->malloc(10 * MiB, S1, nullptr);  // pool 1: a 10 MiB segment
    a->free(p);
    auto e = error_of([&] { a->malloc(25 * MiB, S1, nullptr); });  // 26 MiB; 10 MiB free
    EXPECT_EQ(e.first, Status::OutOfMemory);
    EXPECT_NE(e.second.find("CUDA out of memory. Tried to allocate 26.00 MiB. GPU 0 has a total capacity of "
                            "40.00 MiB of which 10.00 MiB is free. Of the allocated memory 10.00 MiB is allocated "
                            "by ctorch, with 10.00 MiB allocated in private pools (e.g., CUDA Graphs), and 20.00 MiB "
                            "is reserved by ctorch but unallocated."),
              std::string::npos)
        << e.second;
    EXPECT_EQ(dev.frees, 0);
    EXPECT_EQ(st().num_alloc_retries, 0);
    EXPECT_EQ(st().num_ooms, 1);
    EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(30 * MiB));
    a->end_allocate_to_pool(1);
    a->release_pool(1);
    CBlock* q = a->malloc(30 * MiB, S1, nullptr);  // no capture: both cached segments go, then it fits
    EXPECT_EQ(dev.frees, 2);
    EXPECT_EQ(st().num_alloc_retries, 1);
    EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(30 * MiB));
    a->free(q);
  }
  {  // max_split_size: the pool's cached oversize block is not freed for a bigger request
    CachingConfig c;
    c.max_split_size = 64 * MiB;
    reset(200 * MiB, c);
    dev.capturing[S1] = 7;
    a->begin_allocate_to_pool(1, 7);
    CBlock* p = a->malloc(100 * MiB, S1, nullptr);
    a->free(p);
    EXPECT_EQ(error_of([&] { a->malloc(150 * MiB, S1, nullptr); }).first, Status::OutOfMemory);
    EXPECT_EQ(dev.frees, 0);
    EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(100 * MiB));
    a->end_allocate_to_pool(1);
    a->release_pool(1);
    a->empty_cache();
    EXPECT_EQ(dev.frees, 1);
  }
  {  // garbage_collection_threshold: no collection while capturing
    CachingConfig c;
    c.garbage_collection_threshold = 0.5;
    reset(100 * MiB, c);
    a->set_memory_fraction(1.0);
    CBlock* z = a->malloc(60 * MiB, S2, nullptr);
    a->free(z);  // 60 MiB cached: over the threshold
    dev.capturing[S1] = 7;
    a->begin_allocate_to_pool(1, 7);
    CBlock* p = a->malloc(1000, S1, nullptr);
    EXPECT_EQ(dev.frees, 0);
    a->end_allocate_to_pool(1);
    CBlock* q = a->malloc(1000, S2, nullptr);  // no capture: collected
    EXPECT_EQ(dev.frees, 1);
    a->free(p);
    a->free(q);
  }
}

TEST_F(Fixture, SnapshotJsonNamesEachSegmentsPool) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(5, 7);
  CBlock* x = a->malloc(1000, S1, nullptr);  // pool 5's segment (the lower address)
  a->end_allocate_to_pool(5);
  CBlock* y = a->malloc(1000, S2, nullptr);  // a default segment
  std::string j = a->snapshot_json();
  size_t p5 = j.find("\"segment_pool_id\": 5"), p0 = j.find("\"segment_pool_id\": 0");
  ASSERT_NE(p5, std::string::npos) << j;
  ASSERT_NE(p0, std::string::npos) << j;
  EXPECT_LT(p5, p0);
  EXPECT_EQ(j.find("\"segment_pool_id\"", p0 + 1), std::string::npos) << j;  // two segments, two ids
  a->free(x);
  a->free(y);
}

TEST_F(Fixture, PrivatePoolsUsePlainSegmentsUnderExpandableSegments) {
  reset(1000 * MiB, expandable());
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  CBlock* x = a->malloc(5 * MiB, S1, nullptr);  // a 20 MiB cudaMalloc'd segment, not a mapping
  EXPECT_TRUE(dev.reserved_ranges.empty());
  EXPECT_EQ(dev.capture_mallocs, 1);
  EXPECT_EQ(st().segment[kAll].current, 1);
  EXPECT_EQ(st().inactive_split[kAll].current, 1);  // plain segments count there
  // The plain split rule: 19.5 MiB takes a 20 MiB segment whole (0.5 MiB is not worth a split).
  CBlock* x2 = a->malloc(19 * MiB + MiB / 2, S1, nullptr);
  EXPECT_EQ(st().allocated_bytes[kLargePool].current, int64_t(25 * MiB));
  a->end_allocate_to_pool(1);
  CBlock* y = a->malloc(5 * MiB, S2, nullptr);  // the default pool: expandable
  EXPECT_EQ(dev.reserved_ranges.size(), 1u);
  EXPECT_EQ(st().segment[kAll].current, 2);  // mapping is not a segment
  EXPECT_EQ(st().reserved_bytes[kAll].current, int64_t(60 * MiB));
  for (CBlock* b : {x, x2, y}) a->free(b);
  a->release_pool(1);
  a->empty_cache();
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_TRUE(dev.reserved_ranges.empty());
  EXPECT_TRUE(dev.mapped_pages.empty());
  EXPECT_EQ(dev.used_, 0u);
}

TEST_F(Fixture, CaptureAndEagerThreadsShareTheAllocatorSafely) {
  dev.capturing[S1] = 7;
  a->begin_allocate_to_pool(1, 7);
  auto work = [&](void* stream) {
    for (int i = 0; i < 2000; ++i) {
      CBlock* b = a->malloc(512 * static_cast<size_t>(1 + i % 7), stream, nullptr);
      CBlock* c = a->malloc(3 * MiB, stream, nullptr);
      a->free(b);
      a->free(c);
    }
  };
  std::thread capturing(work, S1), eager(work, S2);
  capturing.join();
  eager.join();
  a->end_allocate_to_pool(1);
  EXPECT_EQ(st().allocated_bytes[kAll].current, 0);
  for (const auto& seg : a->snapshot()) EXPECT_EQ(seg.pool_id, seg.stream == S1 ? 1 : 0);
  EXPECT_EQ(a->snapshot().size(), 4u);  // one small and one large segment per stream
  EXPECT_EQ(dev.capture_mallocs, 2);
}

// Eight threads on one allocator (the allocator half of tests/capi/stress_test.c, run under
// ThreadSanitizer by --config=tsan): each allocates small and large blocks on its own stream and
// on a shared one, marks each small block as used on another thread's stream, hands its large
// block to the next thread to free (up to 4 waiting), reads statistics, snapshots and its
// stream's figures while the others work; one thread empties the cache now and then.
// Afterwards nothing is allocated, every allocation was counted, and emptying the cache gives
// every byte, event and stream reference back.
TEST_F(Fixture, EightThreadsShareOneAllocator) {
  constexpr int kThreads = 8, kIters = 1500;
  reset(2048 * MiB);
  void* streams[kThreads];
  std::shared_ptr<void> refs[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    streams[i] = reinterpret_cast<void*>(uintptr_t(0x1000) * uintptr_t(i + 1));
    refs[i] = std::make_shared<int>(i);
    dev.finished.insert(streams[i]);  // recorded work is done when the allocator next looks
  }
  struct Box {
    std::mutex mu;
    std::vector<CBlock*> blocks;
  } boxes[kThreads];
  auto take = [&](int id) {
    std::vector<CBlock*> got;
    std::lock_guard<std::mutex> g(boxes[id].mu);
    got.swap(boxes[id].blocks);
    return got;
  };
  std::atomic<int> ready{0};
  auto work = [&](int id) {
    for (ready++; ready < kThreads;) std::this_thread::yield();  // all start together
    void* mine = streams[id];
    int other = (id + 3) % kThreads;
    for (int k = 0; k < kIters; ++k) {
      CBlock* b = a->malloc(512 * size_t(1 + (id + k) % 9), mine, refs[id]);
      CBlock* c = a->malloc(MiB * size_t(1 + (id * 3 + k) % 12) + 512 * size_t(k % 5), k % 3 ? mine : S1, nullptr);
      a->record_stream(b, streams[other], refs[other]);
      a->free(b);
      {  // at most 4 blocks wait for a thread that lags behind; beyond that, c is freed here
        Box& next = boxes[(id + 1) % kThreads];
        std::lock_guard<std::mutex> g(next.mu);
        if (next.blocks.size() < 4) next.blocks.push_back(c), c = nullptr;
      }
      if (c) a->free(c);
      for (CBlock* x : take(id)) a->free(x);
      if (k % 50 == id) {  // each report is consistent in itself while the others work
        DeviceStats now = st();
        EXPECT_GE(now.reserved_bytes[kAll].current, now.allocated_bytes[kAll].current);
        for (const auto& seg : a->snapshot()) {
          size_t sum = 0, allocated = 0;
          for (const auto& blk : seg.blocks) sum += blk.size, allocated += blk.allocated ? blk.size : 0;
          EXPECT_EQ(sum, seg.total_size);
          EXPECT_EQ(allocated, seg.allocated_size);
        }
        StreamStats ss = a->stream_stats(mine);
        EXPECT_GE(ss.reserved_bytes.current, ss.allocated_bytes.current);
      }
      if (id == 0 && k % 40 == 0) a->empty_cache();
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(work, i);
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i)
    for (CBlock* x : take(i)) a->free(x);
  DeviceStats s = st();
  EXPECT_EQ(s.allocation[kAll].allocated, 2 * kThreads * kIters);
  EXPECT_EQ(s.allocation[kAll].freed, 2 * kThreads * kIters);
  EXPECT_EQ(s.allocated_bytes[kAll].current, 0);
  EXPECT_EQ(s.requested_bytes[kAll].current, 0);
  a->empty_cache();  // waits for the events still pending, then frees every segment
  EXPECT_EQ(st().reserved_bytes[kAll].current, 0);
  EXPECT_EQ(st().active[kAll].current, 0);
  EXPECT_EQ(dev.used_, 0u);
  EXPECT_EQ(dev.mallocs, dev.frees);
  EXPECT_TRUE(dev.live_events.empty());
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(refs[i].use_count(), 1) << "stream " << i;
}

#include "impl/alloc/host_allocator.h"

// A user stream destroyed while a pinned block it copied with is still allocated: its event is
// recorded at once (the stream still exists), and freeing the block later never names the
// destroyed stream; the block is reused only after that event.
TEST(HostCachingAllocator, StreamDestroyedBeforeTheBlockIsFreed) {
  FakeDevice dev(1024 * MiB);
  HostCachingAllocator h(&dev);
  void* p = h.malloc(1024);
  h.record_event(p, 0, S1);
  h.forget_stream(0, S1);                 // S1 is about to be destroyed
  EXPECT_EQ(dev.live_events.size(), 1u);  // recorded now, on S1
  h.free(p);
  EXPECT_EQ(dev.live_events.size(), 1u);  // nothing recorded at free
  void* q = h.malloc(1024);               // S1's copy is not done: a new block
  EXPECT_NE(q, p);
  dev.finished.insert(S1);
  void* r = h.malloc(1024);               // done: p again
  EXPECT_EQ(r, p);
  h.free(q);
  h.free(r);
  h.empty_cache();
  EXPECT_EQ(h.reserved_bytes(), 0);
  EXPECT_EQ(dev.live_events.size(), 0u);
}

TEST(HostCachingAllocator, ReusesBlocksOnlyAfterTheirCopiesFinish) {
  FakeDevice dev(1024 * MiB);
  HostCachingAllocator h(&dev);
  EXPECT_EQ(round_pow2(1000), 1024u);
  EXPECT_EQ(round_pow2(1024), 1024u);
  void* p = h.malloc(1000);  // a 1024-byte block
  EXPECT_EQ(h.reserved_bytes(), 1024);
  EXPECT_EQ(h.allocated_bytes(), 1024);
  h.free(p);                 // no copy used it: cached at once
  EXPECT_EQ(h.allocated_bytes(), 0);
  void* q = h.malloc(600);   // same size class: the same block
  EXPECT_EQ(q, p);
  h.record_event(q, 0, S1);  // a non_blocking copy on S1 used it
  h.free(q);
  void* r = h.malloc(1024);  // S1's copy is not done: a new block
  EXPECT_NE(r, p);
  EXPECT_EQ(h.reserved_bytes(), 2048);
  dev.finished.insert(S1);
  void* s = h.malloc(700);   // events are polled: p is free again
  EXPECT_EQ(s, p);
  EXPECT_EQ(dev.mallocs, 2);
  h.free(r);
  h.free(s);
  h.empty_cache();
  EXPECT_EQ(h.reserved_bytes(), 0);
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(dev.live_events.size(), 0u);
}
