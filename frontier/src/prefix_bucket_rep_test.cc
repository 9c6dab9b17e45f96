// PrefixBucketRep behind a real RocksDB with the queue's key layout:
// iterators (full scans both ways, Seek, SeekForPrev) and point reads
// against a model while writes land before, between and after readers, from
// the mutable memtable, the immutable one and the flushed file; readers
// racing the writer within one host.
#include "crawlfront/frontier/prefix_bucket_rep.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "crawlfront/frontier/store.h"
#include "test_dir_util.h"

namespace crawlfront {
namespace {

std::string QueueKey(uint16_t part, const std::string& crawl, const std::string& host,
                     const std::string& rest) {
  std::string k;
  AppendBe16(&k, part);
  AppendBe16(&k, static_cast<uint16_t>(crawl.size()));
  k += crawl;
  AppendBe16(&k, static_cast<uint16_t>(host.size()));
  k += host;
  return k + rest;
}

class PrefixBucketRepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.allow_concurrent_memtable_write = false;
    o.memtable_factory.reset(new PrefixBucketRepFactory(QueueHostPrefixLen));
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir_.path(), &raw).ok());
    db_.reset(raw);
  }
  void Put(const std::string& k, const std::string& v) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), k, v).ok());
    want_[k] = v;
  }
  void Delete(const std::string& k) {
    ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), k).ok());
    want_.erase(k);
  }
  static std::string Position(const rocksdb::Iterator& it) {
    return it.Valid() ? it.key().ToString() : "<invalid>";
  }
  // Targets: every key, each key's neighbours, each host's prefix and
  // prefixes of it, keys of hosts that hold nothing.
  std::vector<std::string> Targets() const {
    std::vector<std::string> t = {"", std::string(1, '\0'), "\xff\xff\xff",
                                  QueueKey(7, "", "absent.example", ""),
                                  QueueKey(7, "", "absent.example", "x"),
                                  QueueKey(0xffff, "", "z", "z")};
    for (const auto& [k, v] : want_) {
      t.push_back(k);
      t.push_back(k + '\0');
      t.push_back(k.substr(0, k.size() - 1));
      const size_t n = QueueHostPrefixLen(k);
      if (n > 0) {
        t.push_back(k.substr(0, n));
        t.push_back(k.substr(0, n - 1));
        t.push_back(k.substr(0, n) + '\xff');
      }
    }
    return t;
  }
  void Check() {
    std::vector<std::string> order;
    for (const auto& kv : want_) order.push_back(kv.first);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    size_t i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
      ASSERT_LT(i, order.size());
      ASSERT_EQ(it->key().ToString(), order[i]);
      ASSERT_EQ(it->value().ToString(), want_.at(order[i]));
    }
    ASSERT_EQ(i, order.size());
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      ASSERT_GT(i, 0u);
      ASSERT_EQ(it->key().ToString(), order[--i]);
    }
    ASSERT_EQ(i, 0u);
    for (const auto& t : Targets()) {
      SCOPED_TRACE(::testing::PrintToString(t));
      auto ge = want_.lower_bound(t);
      it->Seek(t);
      ASSERT_EQ(Position(*it), ge == want_.end() ? "<invalid>" : ge->first);
      if (it->Valid()) {  // and one step back from there
        it->Prev();
        ASSERT_EQ(Position(*it), ge == want_.begin() ? "<invalid>" : std::prev(ge)->first);
      }
      auto gt = want_.upper_bound(t);
      it->SeekForPrev(t);
      ASSERT_EQ(Position(*it), gt == want_.begin() ? "<invalid>" : std::prev(gt)->first);
      if (it->Valid()) {
        it->Next();
        ASSERT_EQ(Position(*it), gt == want_.end() ? "<invalid>" : gt->first);
      }
      std::string v;
      rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), t, &v);
      ASSERT_EQ(s.ok() ? v : "<none>", want_.count(t) ? want_.at(t) : "<none>");
    }
    EXPECT_TRUE(it->status().ok());
  }

  ::crawlfront::testing::TestDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::map<std::string, std::string> want_;  // bytewise, like the column family
};

// Hosts whose prefixes sort in every relation to each other (same host in
// two crawls and partitions, a host name that extends another's), prefixes
// and suffixes too long for a bucket's inline copies, keys
// without a host prefix, appends, inserts in the middle, overwrites and
// deletes, each read back before the next round of writes; then from the
// immutable memtable and the flushed file.
TEST_F(PrefixBucketRepTest, IteratorsAgreeWithAModelAcrossWritesAndFlush) {
  const std::vector<std::string> prefixes = {
      QueueKey(1, "", "a.example", ""), QueueKey(1, "", "a.example.org", ""),
      QueueKey(1, "c2", "a.example", ""), QueueKey(2, "", "a.example", ""),
      QueueKey(1, "", "b", ""), QueueKey(0x100, "", "a.example", ""),
      // Longer than the copies a bucket holds: compared through the arena.
      QueueKey(1, "", std::string(60, 'h') + ".example", ""),
      QueueKey(1, "", std::string(60, 'h') + ".example.org", "")};
  const std::vector<std::string> loose = {"", "x", std::string(3, '\0'),
                                          prefixes[0].substr(0, 6), prefixes[0]};
  std::mt19937 rng(3);
  int version = 0;
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(round);
    for (int i = 0; i < 40; ++i) {
      const std::string& p = prefixes[rng() % prefixes.size()];
      // Mostly growing suffixes (a queue's arrivals), some in between.
      const int n = rng() % 4 == 0 ? static_cast<int>(rng() % 300) : 300 * round + i;
      std::string suffix(1, static_cast<char>(rng() % 2));
      suffix += std::to_string(100000 + n);
      if (rng() % 5 == 0) suffix += std::string(45, 's');  // past the inline copy
      Put(p + suffix, std::to_string(++version));
    }
    Put(loose[round % loose.size()], std::to_string(++version));
    for (int i = 0; i < 8 && !want_.empty(); ++i) {
      auto victim = want_.begin();
      std::advance(victim, rng() % want_.size());
      if (i % 2 == 0) {
        Delete(victim->first);
      } else {
        Put(victim->first, std::to_string(++version));  // a newer version
      }
    }
    ASSERT_NO_FATAL_FAILURE(Check());
  }
  ASSERT_TRUE(db_->PauseBackgroundWork().ok());
  rocksdb::FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_TRUE(db_->Flush(no_wait).ok());
  {
    SCOPED_TRACE("immutable");
    ASSERT_NO_FATAL_FAILURE(Check());
  }
  ASSERT_TRUE(db_->ContinueBackgroundWork().ok());
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  SCOPED_TRACE("flushed");
  ASSERT_NO_FATAL_FAILURE(Check());
}

// A long host queue gets a few entries in between (deletes of its head,
// moved recrawls): merged into the run by binary search; then many (a
// plain merge). Both read back like the model, overwritten keys included.
TEST_F(PrefixBucketRepTest, FewAndManyEntriesMergedIntoALongRun) {
  const std::string p = QueueKey(7, "", "long.example", "");
  for (int i = 0; i < 3000; ++i) Put(p + std::to_string(100000 + 2 * i), "v");
  std::mt19937 rng(11);
  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE(round);
    const int writes = round < 6 ? 1 + round : 1500;  // 1-6: binary search; 1500: merge
    for (int i = 0; i < writes; ++i) {
      const int n = static_cast<int>(rng() % 6000);
      if (i % 3 == 2) {
        Delete(p + std::to_string(100000 + n));  // odd n: a key never written
      } else {
        Put(p + std::to_string(100000 + n), "r" + std::to_string(round));
      }
    }
    Put(p + "0", "first");  // before every entry
    ASSERT_NO_FATAL_FAILURE(Check());
  }
}

// An iterator opened before writes to its bucket sees exactly what it saw
// (RocksDB hides the newer sequence numbers) while an append lands in place
// in the run it holds and inserts in between go to the bucket's tail; a new
// iterator sees them all.
TEST_F(PrefixBucketRepTest, WritesWhileAnIteratorHoldsTheBucket) {
  const std::string p = QueueKey(3, "", "held.example", "");
  for (int i = 0; i < 10; ++i) Put(p + std::to_string(10 + 2 * i), "old");
  std::unique_ptr<rocksdb::Iterator> held(db_->NewIterator(rocksdb::ReadOptions()));
  held->Seek(p);
  ASSERT_TRUE(held->Valid());
  const std::map<std::string, std::string> before = want_;
  for (int i = 0; i < 10; ++i) Put(p + std::to_string(11 + 2 * i), "new");  // in between
  Put(p + "99", "new");                                                      // an append
  Delete(p + "10");
  std::map<std::string, std::string> seen;
  for (; held->Valid(); held->Next()) seen[held->key().ToString()] = held->value().ToString();
  EXPECT_EQ(seen, before);
  ASSERT_NO_FATAL_FAILURE(Check());
}

// Readers of one host's range, on other threads, find every key whose
// write was acknowledged before they looked, in order, while the writer
// appends to and inserts into that host's bucket.
TEST_F(PrefixBucketRepTest, ReadersRacingTheWriterMissNothingAcknowledged) {
  const std::string p = QueueKey(9, "", "race.example", "");
  constexpr int kKeys = 6000;
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) {
    // Every third key sorts before the appended ones.
    const int n = i % 3 == 2 ? 3 * (i / 3) : 3 * i + 1000000;
    keys.push_back(p + std::to_string(1000000 + n));
  }
  std::atomic<int> acked{0};
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      const std::string end = p + '\xff';
      while (!done.load()) {
        const int n = acked.load(std::memory_order_acquire);
        rocksdb::ReadOptions ro;
        rocksdb::Slice upper(end);
        ro.iterate_upper_bound = &upper;
        std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
        std::map<std::string, int> found;
        std::string last;
        for (it->Seek(p); it->Valid(); it->Next()) {
          std::string k = it->key().ToString();
          if (!last.empty() && !(last < k)) failures.fetch_add(1);
          last = k;
          found[k] = 1;
        }
        for (int i = 0; i < n; ++i) {
          if (found.count(keys[i]) == 0) failures.fetch_add(1);
        }
      }
    });
  }
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), keys[i], "v").ok());
    acked.store(i + 1, std::memory_order_release);
  }
  done.store(true);
  for (auto& r : readers) r.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace crawlfront
