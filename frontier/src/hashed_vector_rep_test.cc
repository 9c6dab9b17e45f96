// HashedVectorRep behind a real RocksDB: point reads (Get, MultiGet, with
// snapshots, overwrites and deletes) from the mutable memtable, the
// immutable one and the flushed file; flushed order; iterator positioning
// against a model, with and without the hash index, under bytewise and
// reverse comparators; reads racing the writer.
#include "crawlfront/frontier/hashed_vector_rep.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "test_dir_util.h"

namespace crawlfront {
namespace {

class HashedVectorRepTest : public ::testing::Test {
 protected:
  // `buckets` small makes long chains (many keys per bucket).
  void Open(size_t buckets, bool hash_index = true,
            const rocksdb::Comparator* comparator = rocksdb::BytewiseComparator()) {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.allow_concurrent_memtable_write = false;
    o.comparator = comparator;
    o.memtable_factory.reset(
        new HashedVectorRepFactory(buckets, o.comparator, hash_index));
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir_.path(), &raw).ok());
    db_.reset(raw);
  }
  std::string Get(const std::string& k, const rocksdb::Snapshot* snap = nullptr) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snap;
    std::string v;
    rocksdb::Status s = db_->Get(ro, k, &v);
    return s.ok() ? v : s.IsNotFound() ? "<none>" : s.ToString();
  }
  testing::TestDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
};

std::string RandomKey(std::mt19937_64& rng) {
  std::string k(18, '\0');
  const uint64_t a = rng(), b = rng(), c = rng();
  std::memcpy(k.data(), &a, 2);
  std::memcpy(k.data() + 2, &b, 8);
  std::memcpy(k.data() + 10, &c, 8);
  return k;
}

TEST_F(HashedVectorRepTest, PointReadsSeeTheVersionTheirSnapshotSees) {
  Open(1024);
  rocksdb::WriteOptions wo;
  ASSERT_TRUE(db_->Put(wo, "a", "1").ok());
  ASSERT_TRUE(db_->Put(wo, "b", "x").ok());
  const rocksdb::Snapshot* snap = db_->GetSnapshot();
  ASSERT_TRUE(db_->Put(wo, "a", "2").ok());
  ASSERT_TRUE(db_->Delete(wo, "b").ok());
  ASSERT_TRUE(db_->Put(wo, "ab", "3").ok());  // a longer key sharing a prefix
  // Mutable memtable, immutable memtable (background work paused, so the
  // switched memtable waits unflushed), then the flushed file.
  for (const char* phase : {"mutable", "immutable", "flushed"}) {
    SCOPED_TRACE(phase);
    if (std::string(phase) == "immutable") {
      ASSERT_TRUE(db_->PauseBackgroundWork().ok());
      rocksdb::FlushOptions no_wait;
      no_wait.wait = false;
      ASSERT_TRUE(db_->Flush(no_wait).ok());
      uint64_t immutable = 0;
      ASSERT_TRUE(db_->GetIntProperty("rocksdb.num-immutable-mem-table", &immutable));
      ASSERT_EQ(immutable, 1u);
    } else if (std::string(phase) == "flushed") {
      ASSERT_TRUE(db_->ContinueBackgroundWork().ok());
      ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
      std::string files;
      ASSERT_TRUE(db_->GetProperty("rocksdb.num-files-at-level0", &files));
      ASSERT_EQ(files, "1");
    }
    EXPECT_EQ(Get("a"), "2");
    EXPECT_EQ(Get("a", snap), "1");
    EXPECT_EQ(Get("b"), "<none>");
    EXPECT_EQ(Get("b", snap), "x");
    EXPECT_EQ(Get("ab"), "3");
    EXPECT_EQ(Get("ab", snap), "<none>");
    EXPECT_EQ(Get("c"), "<none>");
    std::vector<rocksdb::Slice> keys = {"c", "ab", "a", "b"};
    std::vector<std::string> values;
    auto st = db_->MultiGet(rocksdb::ReadOptions(), keys, &values);
    EXPECT_TRUE(st[0].IsNotFound());
    EXPECT_EQ(values[1], "3");
    EXPECT_EQ(values[2], "2");
    EXPECT_TRUE(st[3].IsNotFound());
  }
  db_->ReleaseSnapshot(snap);
}

// Many keys over few buckets (chains of ~50), read from the mutable
// memtable, then in sorted order from the flushed file and an iterator over
// the next memtable.
TEST_F(HashedVectorRepTest, ManyKeysAreFoundAndFlushInOrder) {
  Open(1024);
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> want;
  for (int batch = 0; batch < 500; ++batch) {
    rocksdb::WriteBatch wb;
    for (int i = 0; i < 100; ++i) {
      std::string k = RandomKey(rng);
      std::string v = std::to_string(batch * 100 + i);
      wb.Put(k, v);
      want[k] = v;
    }
    ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &wb).ok());
  }
  size_t checked = 0;
  for (const auto& [k, v] : want) {
    if (++checked % 7 != 0) continue;
    ASSERT_EQ(Get(k), v);
  }
  std::mt19937_64 other(8);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(Get(RandomKey(other)), "<none>");
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  std::string extra = RandomKey(rng);  // in the new memtable
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), extra, "e").ok());
  want[extra] = "e";
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  auto w = want.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++w) {
    ASSERT_NE(w, want.end());
    ASSERT_EQ(it->key().ToString(), w->first);
    ASSERT_EQ(it->value().ToString(), w->second);
  }
  EXPECT_TRUE(it->status().ok());
  EXPECT_EQ(w, want.end());
}

// Keys that stress the prefix sort: equal 16-byte prefixes, keys shorter
// than 16 bytes, keys that differ only by trailing zero bytes (equal once
// zero-padded), bytes >= 0x80 (unsigned order).
std::vector<std::string> TrickyKeys() {
  std::vector<std::string> keys = {"",
                                   "a",
                                   std::string("a\0", 2),
                                   std::string("a\0\0", 3),
                                   "ab",
                                   "b",
                                   "\xff",
                                   "\x80zz",
                                   "0123456789abcdef",
                                   "0123456789abcdef0",
                                   "0123456789abcdef\xff",
                                   "0123456789abcdeg",
                                   "0123456789abcde"};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 300; ++i) {
    std::string k = "0123456789abcdef";  // shared prefix, random tails
    k.resize(rng() % 24);
    for (size_t j = 0; j < k.size(); ++j) {
      if (rng() % 4 == 0) k[j] = static_cast<char>(rng());
    }
    keys.push_back(k);
  }
  return keys;
}

struct IterCase {
  bool hash_index;
  bool reverse;
};

class HashedVectorRepIterTest : public HashedVectorRepTest,
                                public ::testing::WithParamInterface<IterCase> {
 protected:
  const rocksdb::Comparator* Cmp() const {
    return GetParam().reverse ? rocksdb::ReverseBytewiseComparator()
                              : rocksdb::BytewiseComparator();
  }
  // The model: keys in the column family's order.
  std::vector<std::string> Sorted(std::map<std::string, std::string> m) const {
    std::vector<std::string> v;
    for (const auto& kv : m) v.push_back(kv.first);
    if (GetParam().reverse) std::reverse(v.begin(), v.end());
    return v;
  }
  static std::string Position(const rocksdb::Iterator& it) {
    return it.Valid() ? it.key().ToString() : "<invalid>";
  }
  // Full scans both ways, then Seek and SeekForPrev to every model key and
  // to keys between them, against the model.
  void Check(const std::map<std::string, std::string>& want) {
    const std::vector<std::string> order = Sorted(want);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    size_t i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
      ASSERT_LT(i, order.size());
      ASSERT_EQ(it->key().ToString(), order[i]);
      ASSERT_EQ(it->value().ToString(), want.at(order[i]));
    }
    ASSERT_EQ(i, order.size());
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      ASSERT_GT(i, 0u);
      ASSERT_EQ(it->key().ToString(), order[--i]);
    }
    ASSERT_EQ(i, 0u);
    std::vector<std::string> targets = TrickyKeys();
    for (const auto& k : order) targets.push_back(k + "!");
    for (const auto& t : targets) {
      SCOPED_TRACE(::testing::PrintToString(t));
      const auto ge = std::find_if(order.begin(), order.end(), [&](const std::string& k) {
        return Cmp()->Compare(k, t) >= 0;
      });
      it->Seek(t);
      EXPECT_EQ(Position(*it), ge == order.end() ? "<invalid>" : *ge);
      const auto le =
          std::find_if(order.rbegin(), order.rend(),
                       [&](const std::string& k) { return Cmp()->Compare(k, t) <= 0; });
      it->SeekForPrev(t);
      EXPECT_EQ(Position(*it), le == order.rend() ? "<invalid>" : *le);
      ASSERT_EQ(Get(t), want.count(t) ? want.at(t) : "<none>");
    }
    EXPECT_TRUE(it->status().ok());
  }
};

// The same data read from the mutable memtable (copied and sorted per
// iterator), then from the immutable one (sorted once), then from the
// flushed file (written in the order the memtable iterator gave).
TEST_P(HashedVectorRepIterTest, IteratorsAgreeWithAModel) {
  Open(1024, GetParam().hash_index, Cmp());
  std::map<std::string, std::string> want;
  rocksdb::WriteBatch wb;
  int n = 0;
  for (const auto& k : TrickyKeys()) {
    wb.Put(k, std::to_string(n));
    want[k] = std::to_string(n++);
  }
  ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &wb).ok());
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), "ab", "over").ok());  // a newer version
  want["ab"] = "over";
  ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), "b").ok());
  want.erase("b");
  {
    SCOPED_TRACE("mutable");
    Check(want);
  }
  ASSERT_TRUE(db_->PauseBackgroundWork().ok());
  rocksdb::FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_TRUE(db_->Flush(no_wait).ok());
  {
    SCOPED_TRACE("immutable");
    Check(want);
  }
  ASSERT_TRUE(db_->ContinueBackgroundWork().ok());
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  {
    SCOPED_TRACE("flushed");
    Check(want);
  }
}

INSTANTIATE_TEST_SUITE_P(Reps, HashedVectorRepIterTest,
                         ::testing::Values(IterCase{true, false}, IterCase{false, false},
                                           IterCase{true, true}, IterCase{false, true}),
                         [](const ::testing::TestParamInfo<IterCase>& info) {
                           return std::string(info.param.hash_index ? "Indexed"
                                                                    : "Unindexed") +
                                  (info.param.reverse ? "Reverse" : "Bytewise");
                         });

// The mutable memtable's iterator sorts one 2-byte key prefix at a time:
// random walks (seeks both ways, then runs of Next and Prev that cross
// prefixes, empty gaps between them and both ends) against a model, with an
// iterator opened before later writes still showing only what it was
// opened on (prefixes it enters afterwards have newer entries too).
TEST_F(HashedVectorRepTest, WalksAcrossKeyPrefixesAgreeWithAModel) {
  Open(1024);
  const std::vector<std::string> prefixes = {std::string("\0\0", 2), std::string("\0\1", 2),
                                             std::string("\0\xff", 2), "\1", "\x01\x01",
                                             "\x05\x00", "\x80", "\xff\xfe", "\xff\xff"};
  std::mt19937_64 rng(11);
  std::map<std::string, std::string> model;
  auto write = [&](int n) {
    rocksdb::WriteBatch wb;
    for (int i = 0; i < n; ++i) {
      std::string k = prefixes[rng() % prefixes.size()];
      k.resize(k.size() + rng() % 4);  // keys of 1-5 bytes: ties past the prefix
      for (size_t j = 2; j < k.size(); ++j) k[j] = static_cast<char>(rng() % 4);
      const std::string v = std::to_string(rng() % 1000);
      wb.Put(k, v);
      model[k] = v;
    }
    ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &wb).ok());
  };
  // `it` was last positioned by Seek(first).
  auto walk = [&](rocksdb::Iterator& it, const std::map<std::string, std::string>& want,
                  const std::string& first) {
    auto pos = want.lower_bound(first);  // the model's position; end() = invalid
    for (int step = 0; step < 400; ++step) {
      const int op = static_cast<int>(rng() % 8);
      std::string t = prefixes[rng() % prefixes.size()];
      t.resize(rng() % 4);
      if (op == 0) {
        it.Seek(t);
        pos = want.lower_bound(t);
      } else if (op == 1) {
        it.SeekForPrev(t);
        pos = want.upper_bound(t);
        pos = pos == want.begin() ? want.end() : std::prev(pos);
      } else if (op == 2) {
        it.SeekToFirst();
        pos = want.begin();
      } else if (op == 3) {
        it.SeekToLast();
        pos = want.empty() ? want.end() : std::prev(want.end());
      } else if (pos != want.end() && op < 6) {
        it.Next();
        ++pos;
      } else if (pos != want.end()) {
        it.Prev();
        pos = pos == want.begin() ? want.end() : std::prev(pos);
      }
      ASSERT_EQ(it.Valid(), pos != want.end()) << "step " << step << " op " << op;
      if (pos != want.end()) {
        ASSERT_EQ(it.key().ToString(), pos->first) << "step " << step << " op " << op;
        ASSERT_EQ(it.value().ToString(), pos->second);
      }
    }
    ASSERT_TRUE(it.status().ok());
  };
  write(300);
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE(round);
    const std::map<std::string, std::string> before = model;
    std::unique_ptr<rocksdb::Iterator> early(db_->NewIterator(rocksdb::ReadOptions()));
    early->Seek(prefixes[round]);  // enters one prefix before the writes
    write(200);
    std::unique_ptr<rocksdb::Iterator> late(db_->NewIterator(rocksdb::ReadOptions()));
    late->Seek(prefixes[round]);
    walk(*early, before, prefixes[round]);
    walk(*late, model, prefixes[round]);
  }
}

// Readers on other threads find every key whose write was acknowledged
// before they looked, by point reads and by seeks, while the writer keeps
// inserting into the same buckets.
TEST_F(HashedVectorRepTest, ReadersRacingTheWriterMissNothingAcknowledged) {
  Open(1024);
  constexpr int kBatches = 400;
  std::vector<std::string> keys;
  std::mt19937_64 rng(11);
  for (int i = 0; i < kBatches * 50; ++i) keys.push_back(RandomKey(rng));
  std::atomic<int> acked{0};
  std::atomic<int> misses{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 pick(t);
      while (!done.load()) {
        const int n = acked.load(std::memory_order_acquire);
        if (n == 0) continue;
        const std::string& k = keys[pick() % n];
        std::string v;
        if (!db_->Get(rocksdb::ReadOptions(), k, &v).ok()) misses.fetch_add(1);
      }
    });
  }
  // A scanner: each new iterator lists the entries added since the last
  // (the prefix lists grow while the writer appends).
  readers.emplace_back([&] {
    std::mt19937 pick(2);
    while (!done.load()) {
      const int n = acked.load(std::memory_order_acquire);
      if (n == 0) continue;
      const std::string& k = keys[pick() % n];
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
      it->Seek(k);
      if (!it->Valid() || it->key() != k) misses.fetch_add(1);
      it->Next();
      if (it->Valid() && it->key().compare(k) <= 0) misses.fetch_add(1);
    }
  });
  for (int b = 0; b < kBatches; ++b) {
    rocksdb::WriteBatch wb;
    for (int i = 0; i < 50; ++i) wb.Put(keys[b * 50 + i], "v");
    ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &wb).ok());
    acked.store((b + 1) * 50, std::memory_order_release);
  }
  done.store(true);
  for (auto& r : readers) r.join();
  EXPECT_EQ(misses.load(), 0);
}

}  // namespace
}  // namespace crawlfront
