#include "crawlfront/frontier/seen_set.h"

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <random>
#include <thread>
#include <unordered_set>

#include <gtest/gtest.h>

#include "crash_test_util.h"
#include "crawlfront/common/url.h"
#include "test_dir_util.h"

namespace crawlfront {
namespace {

using TempDir = testing::TestDir;

// Random keys spread over many "hosts" (host hash = key index / 64).
SeenKey RandomKey(std::mt19937_64& rng) {
  SeenKey k;
  k.host_hash = rng();
  k.fingerprint.hi = rng();
  k.fingerprint.lo = rng();
  return k;
}

// The i-th key of a deterministic stream: tests regenerate it after restarts.
SeenKey KeyAt(uint64_t i) {
  std::mt19937_64 rng(i * 0x9e3779b97f4a7c15ull + 1);
  return RandomKey(rng);
}

SeenSetOptions SmallOptions() {
  SeenSetOptions o;
  o.partitions = 16;
  o.expected_urls = 16 * 1024;  // tiny filters: inserts force rebuilds
  o.snapshot_interval = std::chrono::milliseconds(0);
  return o;
}

struct Opened {
  std::unique_ptr<Store> store;
  std::unique_ptr<SeenSet> seen;
};

Opened OpenOrDie(const std::string& dir, const SeenSetOptions& o) {
  Opened out;
  auto store = Store::Open(dir, StoreOptions{});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  out.store = std::move(store.value());
  auto seen = SeenSet::Open(out.store.get(), o);
  EXPECT_TRUE(seen.ok()) << seen.status().ToString();
  out.seen = std::move(seen.value());
  return out;
}

void Close(Opened& o) {
  o.seen.reset();
  o.store.reset();
}

// Inserts keys [begin, end) in batches; every one must be reported new.
void InsertRange(SeenSet& seen, uint64_t begin, uint64_t end, size_t batch = 500) {
  std::vector<SeenKey> keys;
  std::vector<SeenResult> out;
  for (uint64_t i = begin; i < end; i += batch) {
    keys.clear();
    for (uint64_t j = i; j < std::min(end, i + batch); ++j) keys.push_back(KeyAt(j));
    ASSERT_TRUE(seen.InsertIfNew(keys, &out).ok());
    for (size_t j = 0; j < out.size(); ++j) {
      ASSERT_EQ(out[j], SeenResult::kNew) << "key " << i + j;
    }
  }
}

// Every key in [begin, end) must now be seen (no false negatives).
void ExpectAllSeen(SeenSet& seen, uint64_t begin, uint64_t end, size_t batch = 1000) {
  std::vector<SeenKey> keys;
  std::vector<SeenResult> out;
  for (uint64_t i = begin; i < end; i += batch) {
    keys.clear();
    for (uint64_t j = i; j < std::min(end, i + batch); ++j) keys.push_back(KeyAt(j));
    ASSERT_TRUE(seen.InsertIfNew(keys, &out).ok());
    for (size_t j = 0; j < out.size(); ++j) {
      ASSERT_EQ(out[j], SeenResult::kSeen) << "false negative for key " << i + j;
    }
  }
}

TEST(SeenSetTest, FirstInsertNewSecondSeenWithinAndAcrossBatches) {
  TempDir dir;
  auto db = OpenOrDie(dir.path(), SmallOptions());
  std::vector<SeenKey> keys = {KeyAt(1), KeyAt(2), KeyAt(1), KeyAt(3), KeyAt(2)};
  std::vector<SeenResult> out;
  ASSERT_TRUE(db.seen->InsertIfNew(keys, &out).ok());
  EXPECT_EQ(out, (std::vector<SeenResult>{SeenResult::kNew, SeenResult::kNew,
                                          SeenResult::kSeen, SeenResult::kNew,
                                          SeenResult::kSeen}));
  ASSERT_TRUE(db.seen->InsertIfNew(keys, &out).ok());
  for (auto r : out) EXPECT_EQ(r, SeenResult::kSeen);
  EXPECT_TRUE(db.seen->Contains(KeyAt(3)).value());
  EXPECT_FALSE(db.seen->Contains(KeyAt(4)).value());
  EXPECT_EQ(db.seen->GetStats().items, 3u);
}

TEST(SeenSetTest, EmptyBatchIsFine) {
  TempDir dir;
  auto db = OpenOrDie(dir.path(), SmallOptions());
  std::vector<SeenResult> out{SeenResult::kNew};
  ASSERT_TRUE(db.seen->InsertIfNew({}, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(SeenSetTest, OnNewWritesCommitAtomicallyWithTheKey) {
  TempDir dir;
  auto db = OpenOrDie(dir.path(), SmallOptions());
  std::vector<SeenKey> keys = {KeyAt(10), KeyAt(11), KeyAt(10)};
  std::vector<SeenResult> out;
  std::vector<size_t> called;
  ASSERT_TRUE(db.seen
                  ->InsertIfNew(keys, &out,
                                [&](size_t i, rocksdb::WriteBatch& b) {
                                  called.push_back(i);
                                  b.Put(db.store->cf(Cf::kQueue), "q" + std::to_string(i), "x");
                                })
                  .ok());
  std::sort(called.begin(), called.end());
  EXPECT_EQ(called, (std::vector<size_t>{0, 1}));
  std::string v;
  EXPECT_TRUE(db.store->db()->Get({}, db.store->cf(Cf::kQueue), "q0", &v).ok());
  EXPECT_TRUE(db.store->db()->Get({}, db.store->cf(Cf::kQueue), "q2", &v).IsNotFound());
}

TEST(SeenSetTest, RejectsBadOptionsAndPartitionChange) {
  TempDir dir;
  SeenSetOptions bad = SmallOptions();
  bad.partitions = 12;
  auto store = Store::Open(dir.path(), StoreOptions{});
  ASSERT_TRUE(store.ok());
  auto s1 = SeenSet::Open(store->get(), bad);
  ASSERT_FALSE(s1.ok());
  EXPECT_NE(s1.status().message().find("power of two"), std::string::npos);
  {
    auto ok = SeenSet::Open(store->get(), SmallOptions());
    ASSERT_TRUE(ok.ok());
  }
  SeenSetOptions other = SmallOptions();
  other.partitions = 32;
  auto s2 = SeenSet::Open(store->get(), other);
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.status().message().find("cannot change"), std::string::npos);
}

// Exact mode agrees with std::unordered_set over a million URLs with
// duplicates (real URL strings, canonical fingerprints and host hashes).
TEST(SeenSetTest, ExactModeAgreesWithUnorderedSet) {
  TempDir dir;
  SeenSetOptions o = SmallOptions();
  o.partitions = 64;
  o.expected_urls = 64 * 2048;
  auto db = OpenOrDie(dir.path(), o);
  std::mt19937_64 rng(42);
  std::unordered_set<std::string> truth;
  std::vector<std::string> urls;
  std::vector<SeenKey> keys;
  std::vector<SeenResult> out;
  uint64_t disagreements = 0, news = 0;
  const int kTotal = 1'000'000, kBatch = 1000;
  for (int b = 0; b < kTotal / kBatch; ++b) {
    urls.clear();
    keys.clear();
    for (int i = 0; i < kBatch; ++i) {
      // ~600k distinct URLs: duplicates come from the narrow page range.
      std::string host = "h" + std::to_string(rng() % 3000) + ".example.com";
      urls.push_back("http://" + host + "/p/" + std::to_string(rng() % 200));
      keys.push_back({HostHash(host), FingerprintOf(urls.back())});
    }
    ASSERT_TRUE(db.seen->InsertIfNew(keys, &out).ok());
    for (int i = 0; i < kBatch; ++i) {
      bool fresh = truth.insert(urls[i]).second;
      news += fresh;
      if (fresh != (out[i] == SeenResult::kNew)) ++disagreements;
    }
  }
  EXPECT_EQ(disagreements, 0u);
  EXPECT_EQ(db.seen->GetStats().items, truth.size());
  EXPECT_EQ(news, truth.size());
  EXPECT_GT(db.seen->GetStats().rebuilds_done, 0u) << "test should exercise rebuilds";
}

TEST(SeenSetTest, BloomOnlyNeverReportsAKnownUrlAsNew) {
  TempDir dir;
  SeenSetOptions o = SmallOptions();
  o.mode = SeenMode::kBloomOnly;
  auto db = OpenOrDie(dir.path(), o);
  std::vector<SeenKey> keys, reported;
  std::vector<SeenResult> out;
  for (uint64_t i = 0; i < 50'000; i += 500) {
    keys.clear();
    for (uint64_t j = i; j < i + 500; ++j) keys.push_back(KeyAt(j));
    ASSERT_TRUE(db.seen->InsertIfNew(keys, &out).ok());
    for (size_t j = 0; j < out.size(); ++j) {
      if (out[j] == SeenResult::kNew) reported.push_back(keys[j]);
    }
  }
  // Some new URLs are lost to false positives (the mode's trade-off; more
  // while a partition waits for its rebuild), but only a few percent.
  EXPECT_GT(reported.size(), 50'000u * 90 / 100);
  // A URL once reported new is never reported new again (no double crawl).
  for (size_t i = 0; i < reported.size(); i += 500) {
    std::span<const SeenKey> part(reported.data() + i, std::min<size_t>(500, reported.size() - i));
    ASSERT_TRUE(db.seen->InsertIfNew(part, &out).ok());
    for (auto r : out) ASSERT_EQ(r, SeenResult::kSeen);
  }
}

// No false negatives across rebuilds and restarts; snapshot + replay gives
// exactly the state before the restart.
TEST(SeenSetTest, NoFalseNegativesAcrossRebuildAndRestart) {
  TempDir dir;
  SeenSetOptions o = SmallOptions();
  constexpr uint64_t kN = 2'000'000;
  std::vector<PartitionStats> before;
  {
    auto db = OpenOrDie(dir.path(), o);
    InsertRange(*db.seen, 0, kN / 2);
    ASSERT_TRUE(db.seen->SnapshotNow().ok());
    InsertRange(*db.seen, kN / 2, kN);  // after the snapshot: replayed from the log
    EXPECT_GT(db.seen->GetStats().rebuilds_done, 0u);
    ExpectAllSeen(*db.seen, 0, kN);
    for (uint32_t p = 0; p < o.partitions; ++p) before.push_back(db.seen->GetPartitionStats(p));
    Close(db);  // snapshots on close; the replay path is KilledWriterLosesNoAckedInsert's
  }
  auto db = OpenOrDie(dir.path(), o);
  for (uint32_t p = 0; p < o.partitions; ++p) {
    PartitionStats s = db.seen->GetPartitionStats(p);
    EXPECT_EQ(s.items, before[p].items) << "partition " << p;
    EXPECT_EQ(s.capacity, before[p].capacity);
    EXPECT_DOUBLE_EQ(s.fill_ratio, before[p].fill_ratio);
  }
  ExpectAllSeen(*db.seen, 0, kN);
  EXPECT_EQ(db.seen->GetStats().false_positives, 0u)
      << "seen keys must never be confirmed absent";
}

TEST(SeenSetTest, RebuildUnderConcurrentInsertsLosesNothing) {
  TempDir dir;
  SeenSetOptions o = SmallOptions();
  o.partitions = 2;
  o.expected_urls = 2048;
  auto db = OpenOrDie(dir.path(), o);
  InsertRange(*db.seen, 0, 200'000);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    InsertRange(*db.seen, 200'000, 600'000, 100);
    done = true;
  });
  uint64_t forced = 0;
  while (!done && forced < 50) {
    for (uint32_t p = 0; p < o.partitions; ++p) ASSERT_TRUE(db.seen->RebuildNow(p).ok());
    ++forced;
  }
  writer.join();
  EXPECT_GT(forced, 0u);
  for (uint32_t p = 0; p < o.partitions; ++p) {
    PartitionStats ps = db.seen->GetPartitionStats(p);
    EXPECT_LE(ps.capacity, 2 * ps.items + 1024) << "forced rebuilds must not inflate filters";
  }
  ExpectAllSeen(*db.seen, 0, 600'000);
  EXPECT_EQ(db.seen->GetStats().items, 600'000u);
}

// Threads insert overlapping keys at once: every key is reported new exactly
// once overall. A high false-positive rate and no cache send many keys to
// the RocksDB check while other threads claim and commit the same keys, so
// the pending-claim and recheck paths race for real.
void ExpectEachKeyNewOnce(SeenMode mode) {
  TempDir dir;
  SeenSetOptions o = SmallOptions();
  o.mode = mode;
  o.partitions = 4;
  o.false_positive_rate = 0.3;
  o.cache_bytes = 0;
  auto db = OpenOrDie(dir.path(), o);
  constexpr int kThreads = 4;
  constexpr uint64_t kKeys = 20'000;
  std::vector<std::vector<uint32_t>> news(kThreads, std::vector<uint32_t>(kKeys, 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t + 1);
      std::vector<uint64_t> ids;
      std::vector<SeenKey> keys;
      std::vector<SeenResult> out;
      for (int round = 0; round < 4; ++round) {
        for (uint64_t b = 0; b < kKeys; b += 50) {
          ids.clear();
          keys.clear();
          // Every thread walks the same keys in a similar order, shuffled.
          for (uint64_t j = b; j < b + 50; ++j) ids.push_back((j + rng() % 7) % kKeys);
          for (uint64_t id : ids) keys.push_back(KeyAt(id));
          ASSERT_TRUE(db.seen->InsertIfNew(keys, &out).ok());
          for (size_t j = 0; j < ids.size(); ++j) news[t][ids[j]] += out[j] == SeenResult::kNew;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  uint64_t wrong = 0;
  for (uint64_t id = 0; id < kKeys; ++id) {
    uint32_t total = 0;
    for (int t = 0; t < kThreads; ++t) total += news[t][id];
    // Bloom-only may call a key seen that never was (a false positive), but
    // never reports it new twice. Exact mode: exactly once.
    if (total > 1 || (mode == SeenMode::kExact && total == 0)) ++wrong;
  }
  EXPECT_EQ(wrong, 0u);
  SeenSetStats stats = db.seen->GetStats();
  if (mode == SeenMode::kExact) {
    EXPECT_EQ(stats.items, kKeys);
    EXPECT_GT(stats.disk_lookups, 0u) << "the RocksDB check must have been exercised";
    EXPECT_GT(stats.false_positives, 0u) << "claims after the RocksDB check must occur";
  }
}

TEST(SeenSetTest, ConcurrentBatchesReportEachKeyNewOnceExact) {
  ExpectEachKeyNewOnce(SeenMode::kExact);
}

TEST(SeenSetTest, ConcurrentBatchesReportEachKeyNewOnceBloomOnly) {
  ExpectEachKeyNewOnce(SeenMode::kBloomOnly);
}

TEST(SeenSetTest, SnapshotRestoresSameStateAfterRestart) {
  TempDir dir;
  SeenSetOptions o = SmallOptions();
  {
    auto db = OpenOrDie(dir.path(), o);
    InsertRange(*db.seen, 0, 100'000);
    ASSERT_TRUE(db.seen->SnapshotNow().ok());
    EXPECT_GT(db.seen->GetPartitionStats(0).last_snapshot_unix_ms, 0);
  }
  auto db = OpenOrDie(dir.path(), o);
  EXPECT_EQ(db.seen->GetStats().items, 100'000u);
  ExpectAllSeen(*db.seen, 0, 100'000);
  InsertRange(*db.seen, 100'000, 110'000);
}

// Keys [0, n) inserted, then the set reopened: its cache is empty.
Opened ReopenedAfterInserting(const std::string& dir, uint64_t n) {
  {
    auto db = OpenOrDie(dir, SmallOptions());
    InsertRange(*db.seen, 0, n);
  }
  return OpenOrDie(dir, SmallOptions());
}

// After a restart the cache is empty: the first Contains of a known key reads
// RocksDB and caches it, the second is answered from the cache. A new key
// stays new (Bloom negative or a false positive the disk read corrects).
TEST(SeenSetTest, ContainsCachesWhatItConfirmsOnDisk) {
  TempDir dir;
  auto db = ReopenedAfterInserting(dir.path(), 1000);
  for (uint64_t i = 0; i < 1000; ++i) {
    auto first = db.seen->Contains(KeyAt(i));
    ASSERT_TRUE(first.ok() && *first) << i;
  }
  const SeenSetStats after_first = db.seen->GetStats();
  EXPECT_EQ(after_first.disk_lookups, 1000u);
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(*db.seen->Contains(KeyAt(i))) << i;
  const SeenSetStats after_second = db.seen->GetStats();
  // Direct-mapped: two of the keys may share a slot and evict each other.
  const uint64_t reread = after_second.disk_lookups - after_first.disk_lookups;
  EXPECT_LE(reread, 10u) << "repeats must come from the cache";
  EXPECT_EQ(after_second.cache_hits - after_first.cache_hits + reread, 1000u);
  for (uint64_t i = 1000; i < 2000; ++i) ASSERT_FALSE(*db.seen->Contains(KeyAt(i))) << i;
}

// ContainsMany answers as Contains does, key by key, with a cold cache
// (known keys read from RocksDB, some unknown ones Bloom false positives)
// and a warm one; every known key is read from disk once.
TEST(SeenSetTest, ContainsManyAnswersAsContains) {
  TempDir dir;
  auto db = ReopenedAfterInserting(dir.path(), 1000);
  std::vector<SeenKey> keys;
  std::vector<uint8_t> want;
  for (uint64_t i = 0; i < 2000; ++i) {
    const bool old = i % 2 == 0;
    keys.push_back(KeyAt(old ? i / 2 : 1000 + i / 2));
    want.push_back(old ? 1 : 0);
  }
  std::vector<uint8_t> known;
  ASSERT_TRUE(db.seen->ContainsMany(keys, &known).ok());
  EXPECT_EQ(known, want);
  const SeenSetStats cold = db.seen->GetStats();
  EXPECT_EQ(cold.lookups, 2000u);
  EXPECT_EQ(cold.disk_lookups, 1000u + cold.false_positives);
  EXPECT_EQ(cold.bloom_negatives + cold.false_positives, 1000u);
  ASSERT_TRUE(db.seen->ContainsMany(keys, &known).ok());
  EXPECT_EQ(known, want);
  const SeenSetStats warm = db.seen->GetStats();
  // Direct-mapped cache: two keys may share a slot and evict each other.
  EXPECT_LE(warm.disk_lookups - cold.disk_lookups, 10u + cold.false_positives);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto one = db.seen->Contains(keys[i]);
    ASSERT_TRUE(one.ok());
    ASSERT_EQ(*one, want[i] != 0) << i;
  }
  std::vector<SeenKey> none;
  ASSERT_TRUE(db.seen->ContainsMany(none, &known).ok());
  EXPECT_TRUE(known.empty());
}

// A child process inserts batches and reports each acknowledged batch on a
// pipe; it is SIGKILLed at a random moment. Reopening must show every
// acknowledged key as seen (log replay after the last snapshot, or a scan).
TEST(SeenSetTest, KilledWriterLosesNoAckedInsert) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3; ++round) {
    TempDir dir;
    auto make_step = [&]() -> testing::CrashStep {
      SeenSetOptions o = SmallOptions();
      o.snapshot_interval = std::chrono::milliseconds(50);
      auto store = Store::Open(dir.path(), StoreOptions{});
      if (!store.ok()) return {};
      auto opened = SeenSet::Open(store->get(), o);
      if (!opened.ok()) return {};
      std::shared_ptr<Store> owner = std::move(store).value();
      std::shared_ptr<SeenSet> seen = std::move(opened).value();
      return [owner, seen](uint64_t b) {  // batch b: keys [b * 200, b * 200 + 200)
        std::vector<SeenKey> keys;
        std::vector<SeenResult> out;
        for (uint64_t j = b * 200; j < b * 200 + 200; ++j) keys.push_back(KeyAt(j));
        return seen->InsertIfNew(keys, &out).ok();
      };
    };
    uint64_t kill_after = 50 + rng() % 400;  // batches
    testing::KilledChild child = testing::RunUntilKilled(make_step, kill_after);
    ASSERT_TRUE(child.killed) << child.error;
    ASSERT_GT(child.acked, 0u);
    auto db = OpenOrDie(dir.path(), SmallOptions());
    ExpectAllSeen(*db.seen, 0, child.acked * 200);
    EXPECT_GE(db.seen->GetStats().items, child.acked * 200);
  }
}

}  // namespace
}  // namespace crawlfront
