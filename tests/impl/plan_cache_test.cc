// The cuFFT plan cache's policy (impl/fft/plan_cache.h) with fake plans: hits and misses, LRU
// eviction at max_size, the byte budget, clear, and concurrent use. The same cache on a GPU is
// tested through the C API in tests/capi/fft_test.c.
#include "impl/fft/plan_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

struct FakePlan {
  int id;
};

struct Fixture {
  std::vector<int> destroyed;
  ct::fft::LruPlanCache<std::string, FakePlan> cache{[this](FakePlan& p) { destroyed.push_back(p.id); }};
  int next = 0;
  // One "execution": a hit, or a new plan offered to the cache. Returns whether it was a hit.
  bool use(const std::string& key, int64_t bytes = 0) {
    auto g = cache.lock();
    if (cache.lookup(key)) return true;
    FakePlan p{next++};
    if (!cache.insert(key, p, bytes)) destroyed.push_back(p.id);  // the caller's own plan
    return false;
  }
};

TEST(PlanCache, SecondUseIsAHit) {
  Fixture f;
  EXPECT_FALSE(f.use("a"));
  EXPECT_TRUE(f.use("a"));
  EXPECT_TRUE(f.use("a"));
  EXPECT_FALSE(f.use("b"));
  EXPECT_EQ(f.cache.hits(), 2);
  EXPECT_EQ(f.cache.misses(), 2);
  EXPECT_EQ(f.cache.size(), 2);
  EXPECT_TRUE(f.destroyed.empty());
}

TEST(PlanCache, EvictsTheLeastRecentlyUsedAtMaxSize) {
  Fixture f;
  f.cache.set_max_size(2);
  f.use("a");                 // plan 0
  f.use("b");                 // plan 1
  EXPECT_TRUE(f.use("a"));    // a is now the most recent
  EXPECT_FALSE(f.use("c"));   // plan 2; b (least recent) goes, not a
  EXPECT_EQ(f.destroyed, std::vector<int>({1}));
  EXPECT_EQ(f.cache.size(), 2);
  EXPECT_TRUE(f.use("a"));
  EXPECT_TRUE(f.use("c"));
  EXPECT_FALSE(f.use("b"));   // made again (plan 3); a is now the least recent and goes
  EXPECT_EQ(f.destroyed, std::vector<int>({1, 0}));
  EXPECT_FALSE(f.use("a"));
}

TEST(PlanCache, ShrinkingMaxSizeEvictsOldestFirst) {
  Fixture f;
  for (const char* k : {"a", "b", "c", "d"}) f.use(k);  // plans 0..3, d most recent
  f.use("a");                                          // order now a d c b
  f.cache.set_max_size(2);
  EXPECT_EQ(f.destroyed, std::vector<int>({1, 2}));    // b then c
  EXPECT_TRUE(f.use("a"));
  EXPECT_TRUE(f.use("d"));
}

TEST(PlanCache, MaxSizeZeroCachesNothing) {
  Fixture f;
  f.use("a");
  f.cache.set_max_size(0);
  EXPECT_EQ(f.cache.size(), 0);
  EXPECT_FALSE(f.use("a"));
  EXPECT_FALSE(f.use("a"));
  EXPECT_EQ(f.cache.size(), 0);
  EXPECT_EQ(f.destroyed, std::vector<int>({0, 1, 2}));  // the cached one, then each per-call plan
  EXPECT_EQ(f.cache.misses(), 3);
}

TEST(PlanCache, ClearDestroysEveryPlanAndKeepsSettings) {
  Fixture f;
  f.cache.set_max_size(7);
  f.use("a", 10);
  f.use("b", 20);
  EXPECT_EQ(f.cache.bytes(), 30);
  f.cache.clear();
  EXPECT_EQ(f.cache.size(), 0);
  EXPECT_EQ(f.cache.bytes(), 0);
  EXPECT_EQ(f.cache.max_size(), 7);
  EXPECT_EQ(std::set<int>(f.destroyed.begin(), f.destroyed.end()), std::set<int>({0, 1}));
  EXPECT_FALSE(f.use("a", 10));
}

TEST(PlanCache, ByteBudget) {
  Fixture f;
  f.cache.set_max_bytes(100);
  f.use("a", 40);            // 0
  f.use("b", 40);            // 1
  f.use("a", 40);            // hit: a most recent
  f.use("c", 40);            // 2: 120 > 100, so b goes
  EXPECT_EQ(f.destroyed, std::vector<int>({1}));
  EXPECT_EQ(f.cache.bytes(), 80);
  EXPECT_FALSE(f.use("huge", 101));  // 3: larger than the budget alone: used once, never cached
  EXPECT_EQ(f.destroyed, std::vector<int>({1, 3}));
  EXPECT_EQ(f.cache.size(), 2);
  f.cache.set_max_bytes(50);  // c is the most recent and stays; a goes
  EXPECT_EQ(f.destroyed, std::vector<int>({1, 3, 0}));
  EXPECT_EQ(f.cache.bytes(), 40);
  f.cache.set_max_bytes(0);   // no budget
  f.use("d", 1000);
  EXPECT_EQ(f.cache.bytes(), 1040);
}

TEST(PlanCache, ConcurrentUseKeepsCountsAndBoundsExact) {
  std::atomic<int> destroyed{0};
  std::atomic<int> made{0};
  ct::fft::LruPlanCache<int, FakePlan> cache{[&](FakePlan&) { destroyed++; }};
  cache.set_max_size(8);
  constexpr int kThreads = 8, kIters = 20000;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        int key = (i * 7 + t) % 12;
        auto g = cache.lock();
        FakePlan* p = cache.lookup(key);
        if (!p) {
          made++;
          p = cache.insert(key, FakePlan{key}, 1);
          ASSERT_NE(p, nullptr);
        }
        ASSERT_EQ(p->id, key);  // the plan found is the one made for this key
        ASSERT_LE(cache.size(), 8);
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(cache.hits() + cache.misses(), kThreads * kIters);
  EXPECT_EQ(cache.misses(), made.load());
  EXPECT_EQ(made.load() - destroyed.load(), cache.size());
  EXPECT_EQ(cache.size(), 8);
  EXPECT_EQ(cache.bytes(), 8);
}

}  // namespace
