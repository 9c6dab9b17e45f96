#include "seen_cache.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

TEST(SeenCacheTest, SizeIsAPowerOfTwoWithinTheBudget) {
  EXPECT_EQ(SeenCache(0).entries(), 0u);
  EXPECT_EQ(SeenCache(15).entries(), 0u);
  EXPECT_EQ(SeenCache(16).entries(), 1u);
  EXPECT_EQ(SeenCache(16 * 1000).entries(), 512u);
  EXPECT_EQ(SeenCache(16 << 20).bytes(), uint64_t{16} << 20);
}

TEST(SeenCacheTest, HoldsWhatWasPutUntilItsSlotIsTaken) {
  SeenCache cache(16 * 8);
  const Fingerprint a{3, 100}, same_slot{3 + 8, 200}, other_slot{4, 300};
  EXPECT_FALSE(cache.Contains(a));
  cache.Put(a);
  cache.Put(other_slot);
  EXPECT_TRUE(cache.Contains(a));
  EXPECT_TRUE(cache.Contains(other_slot));
  EXPECT_FALSE(cache.Contains(Fingerprint{3, 101})) << "both halves must match";
  cache.Put(same_slot);
  EXPECT_FALSE(cache.Contains(a));
  EXPECT_TRUE(cache.Contains(same_slot));
  EXPECT_FALSE(cache.Contains(Fingerprint{})) << "an empty slot matches nothing";
}

TEST(SeenCacheTest, DisabledCacheHoldsNothing) {
  SeenCache cache(0);
  cache.Put(Fingerprint{1, 2});
  EXPECT_FALSE(cache.Contains(Fingerprint{1, 2}));
}

// Writers keep replacing one slot's entry with {4i, i+1}; readers ask for
// every mixed pair {4i, j+1}, i != j. A read that took one half from each
// of two writes would report one of them: it must never happen.
TEST(SeenCacheTest, ConcurrentReadsNeverMixTwoEntries) {
  SeenCache cache(16 * 4);
  constexpr uint64_t kKinds = 4;
  constexpr int kRounds = 2'000'000;
  std::atomic<uint64_t> mixed{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int r = 0; r < kRounds; ++r) {
        const uint64_t i = (r + w) % kKinds;
        cache.Put(Fingerprint{4 * i, i + 1});
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        const uint64_t i = r % kKinds, j = (r / kKinds) % kKinds;
        if (i != j) mixed += cache.Contains(Fingerprint{4 * i, j + 1});
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mixed.load(), 0u);
  cache.Put(Fingerprint{4, 2});
  EXPECT_TRUE(cache.Contains(Fingerprint{4, 2})) << "with no writer running, a put is seen";
}

}  // namespace
}  // namespace crawlfront
