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

TEST(SeenCacheTest, HoldsWhatWasPutUntilFourNewerEntriesShareItsSet) {
  SeenCache cache(16 * 8);  // two sets of four
  const Fingerprint a{1, 10}, b{3, 11}, c{5, 12}, d{7, 13}, e{9, 14}, other_set{2, 20};
  EXPECT_FALSE(cache.Contains(a));
  for (const Fingerprint& fp : {a, b, c, d, other_set}) cache.Put(fp);
  for (const Fingerprint& fp : {a, b, c, d, other_set}) EXPECT_TRUE(cache.Contains(fp));
  EXPECT_FALSE(cache.Contains(Fingerprint{1, 11})) << "both halves must match";
  cache.Put(e);
  EXPECT_FALSE(cache.Contains(a)) << "the set's oldest entry leaves";
  for (const Fingerprint& fp : {b, c, d, e, other_set}) EXPECT_TRUE(cache.Contains(fp));
  cache.Put(b);  // held already: nothing leaves
  for (const Fingerprint& fp : {b, c, d, e}) EXPECT_TRUE(cache.Contains(fp));
  EXPECT_FALSE(cache.Contains(Fingerprint{})) << "an empty entry matches nothing";
}

TEST(SeenCacheTest, TinyCachesUseEveryEntry) {
  SeenCache one(16), two(32);
  one.Put(Fingerprint{1, 1});
  EXPECT_TRUE(one.Contains(Fingerprint{1, 1}));
  one.Put(Fingerprint{2, 2});
  EXPECT_FALSE(one.Contains(Fingerprint{1, 1}));
  EXPECT_TRUE(one.Contains(Fingerprint{2, 2}));
  two.Put(Fingerprint{1, 1});
  two.Put(Fingerprint{2, 2});
  EXPECT_TRUE(two.Contains(Fingerprint{1, 1}));
  EXPECT_TRUE(two.Contains(Fingerprint{2, 2}));
}

TEST(SeenCacheTest, DisabledCacheHoldsNothing) {
  SeenCache cache(0);
  cache.Put(Fingerprint{1, 2});
  EXPECT_FALSE(cache.Contains(Fingerprint{1, 2}));
}

// Writers keep putting {4i, i+1} of eight kinds into one set of four, so
// entries keep moving; readers ask for every mixed pair {4i, j+1}, i != j.
// A read that took one half from each of two writes would report one of
// them: it must never happen.
TEST(SeenCacheTest, ConcurrentReadsNeverMixTwoEntries) {
  SeenCache cache(16 * 4);
  constexpr uint64_t kKinds = 8;
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
