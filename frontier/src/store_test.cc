#include "crawlfront/frontier/store.h"
#include "crawlfront/frontier/commit_pipeline.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include <gtest/gtest.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/write_batch.h>

namespace crawlfront {
namespace {

TEST(StoreTest, KeyEncodingSortsNumerically) {
  std::string a, b;
  AppendBe64(&a, 255);
  AppendBe64(&b, 256);
  EXPECT_LT(a, b);
  EXPECT_EQ(ReadBe64(b.data()), 256u);
  std::string bytes;  // the on-disk format: most significant byte first
  AppendBe64(&bytes, 0x0102030405060708ull);
  EXPECT_EQ(bytes, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  std::string c;
  AppendBe16(&c, 0xabcd);
  AppendBe32(&c, 0x01020304);
  EXPECT_EQ(ReadBe16(c.data()), 0xabcd);
  EXPECT_EQ(ReadBe32(c.data() + 2), 0x01020304u);
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff\xff", 2)), "");
}

TEST(StoreTest, MetaRoundTripAndCheckpoint) {
  auto dir = std::filesystem::temp_directory_path() / ("store_test." + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  {
    auto store = Store::Open(dir.string(), StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ((*store)->GetMeta("x").status().code(), Status::Code::kNotFound);
    ASSERT_TRUE((*store)->PutMeta("x", "42").ok());
    EXPECT_EQ((*store)->GetMeta("x").value(), "42");
    ASSERT_TRUE((*store)->Checkpoint((dir / "ckpt").string()).ok());
    EXPECT_FALSE((*store)->Checkpoint((dir / "ckpt").string()).ok()) << "target exists";
  }
  auto copy = Store::Open((dir / "ckpt").string(), StoreOptions{});
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ((*copy)->GetMeta("x").value(), "42");
  copy->reset();
  std::filesystem::remove_all(dir);
}

TEST(StoreTest, OpenFailsClearlyOnUnwritableDir) {
  auto r = Store::Open("/proc/crawlfront-cannot-exist", StoreOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.status().message().empty());
}

class StoreDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("store_test." + std::to_string(getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    auto store = Store::Open(dir_.string(), StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::map<std::string, std::string> Scan(Cf which) {
    std::map<std::string, std::string> out;
    std::unique_ptr<rocksdb::Iterator> it(
        store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(which)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out[it->key().ToString()] = it->value().ToString();
    }
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
};

// A memtable switched out while background work is paused waits for its
// flush, and the store says so; once flushed, nothing is left.
TEST_F(StoreDirTest, BackgroundWorkShowsAPendingFlush) {
  EXPECT_EQ(store_->background_work().immutable_memtables, 0u);
  EXPECT_FALSE(store_->background_work().flush_pending);
  ASSERT_TRUE(store_->db()->PauseBackgroundWork().ok());
  ASSERT_TRUE(store_->db()->Put(store_->write_options(), store_->cf(Cf::kMeta), "k", "v").ok());
  rocksdb::FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_TRUE(store_->db()->Flush(no_wait, store_->cf(Cf::kMeta)).ok());
  BackgroundWork b = store_->background_work();
  EXPECT_EQ(b.immutable_memtables, 1u);
  EXPECT_TRUE(b.flush_pending);
  EXPECT_EQ(b.flushes_running, 0u);
  ASSERT_TRUE(store_->db()->ContinueBackgroundWork().ok());
  ASSERT_TRUE(store_->db()->Flush(rocksdb::FlushOptions(), store_->cf(Cf::kMeta)).ok());
  b = store_->background_work();
  EXPECT_EQ(b.immutable_memtables, 0u);
  EXPECT_FALSE(b.flush_pending);
}

void CountCall(void* arg) { ++*static_cast<int*>(arg); }

TEST_F(StoreDirTest, WriteGroupWritesOnceWithMergedRecords) {
  WriteGroup group(store_.get());
  int failures = 0;
  group.batch()->Put(store_->cf(Cf::kMeta), "a", "1");
  WriteGroup::Merged& m = group.MergedRecord(&failures, store_->cf(Cf::kMeta));
  m.value += "x";
  EXPECT_EQ(&group.MergedRecord(&failures, store_->cf(Cf::kMeta)), &m);  // one per owner
  m.value += "y";
  m.key = "log";
  group.MergedRecord(&dir_, store_->cf(Cf::kMeta)).value = "no key: not written";
  group.OnFailure(CountCall, &failures);
  EXPECT_TRUE(Scan(Cf::kMeta).empty());
  ASSERT_TRUE(group.Commit().ok());
  EXPECT_EQ(Scan(Cf::kMeta),
            (std::map<std::string, std::string>{{"a", "1"}, {"log", "xy"}}));
  EXPECT_EQ(failures, 0);
}

// Host-prefixed key: be16 partition | be16 len | crawl | be16 len | host | tail.
std::string HostKey(uint16_t part, const std::string& host, const std::string& tail) {
  std::string k;
  AppendBe16(&k, part);
  AppendBe16(&k, 7);
  k += "default";
  AppendBe16(&k, static_cast<uint16_t>(host.size()));
  k += host;
  return k + tail;
}

// A read of a large table loads one small index partition, not the file's
// whole index: with 10^7 queued URLs a queue file's single index block was
// megabytes, evicted by head refills and read again for each (lease + done
// fell to ~500 URLs/s, docs/benchmarks.md, session 29). Checked on the
// files the store writes for the two large column families: the index
// comes in partitions of about 4 KiB, with a small top level.
TEST_F(StoreDirTest, LargeTablesHaveSmallIndexPartitions) {
  std::mt19937_64 rng(11);
  for (Cf which : {Cf::kQueue, Cf::kSeen}) {
    rocksdb::WriteBatch batch;
    for (int i = 0; i < 200'000; ++i) {
      std::string tail(1, '\0');
      AppendBe64(&tail, rng());
      const std::string host = "h" + std::to_string(i % 1000) + ".example";
      batch.Put(store_->cf(which), HostKey(static_cast<uint16_t>(i % 64), host, tail),
                "http://" + host + "/page/" + std::to_string(rng() % 100000));
    }
    ASSERT_TRUE(store_->db()->Write(store_->write_options(), &batch).ok());
    ASSERT_TRUE(store_->db()->Flush(rocksdb::FlushOptions(), store_->cf(which)).ok());
    rocksdb::CompactRangeOptions bottom;
    bottom.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(store_->db()->CompactRange(bottom, store_->cf(which), nullptr, nullptr).ok());
    rocksdb::TablePropertiesCollection tables;
    ASSERT_TRUE(store_->db()->GetPropertiesOfAllTables(store_->cf(which), &tables).ok());
    ASSERT_FALSE(tables.empty());
    for (const auto& [file, props] : tables) {
      SCOPED_TRACE(file);
      // Large enough that one index block would cost: thousands of data blocks.
      ASSERT_GT(props->index_size, 48u << 10);
      ASSERT_GT(props->index_partitions, 0u) << "one index block of " << props->index_size;
      EXPECT_LE(props->index_size / props->index_partitions, 8u << 10);
      EXPECT_LE(props->top_level_index_size, props->index_size / 8);
    }
  }
}

// The column families with memtable insert hints keep exact contents under
// writes that go forwards, backwards and over the same keys within each
// prefix, and range deletions elsewhere do not disturb them (RocksDB 7.8
// aborts when a hinted column family gets one).
TEST_F(StoreDirTest, HintedColumnFamiliesKeepExactContents) {
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> model[3];
  const Cf cfs[3] = {Cf::kQueue, Cf::kHost, Cf::kLease};
  for (int round = 0; round < 50; ++round) {
    rocksdb::WriteBatch batch;
    for (int op = 0; op < 200; ++op) {
      int c = static_cast<int>(rng() % 3);
      std::string tail;
      AppendBe64(&tail, rng() % 64);
      std::string key = cfs[c] == Cf::kLease
                            ? tail.substr(6) + tail  // 2-byte partition, then an id
                            : HostKey(rng() % 4, "h" + std::to_string(rng() % 8), tail);
      if (rng() % 3 == 0) {
        batch.Delete(store_->cf(cfs[c]), key);
        model[c].erase(key);
      } else {
        std::string value = std::to_string(rng());
        batch.Put(store_->cf(cfs[c]), key, value);
        model[c][key] = value;
      }
    }
    batch.Put(store_->cf(Cf::kSeenLog), std::string("\0\1", 2) + std::to_string(round),
              "v");
    batch.DeleteRange(store_->cf(Cf::kSeenLog), std::string("\0\1", 2),
                      std::string("\0\2", 2));
    std::string log = "L";  // a user filter's log key: 'L' | be32 len | name | be64
    AppendBe32(&log, 4);
    log += "name";
    std::string from = log, to = log;
    AppendBe64(&log, round);
    AppendBe64(&from, 0);
    AppendBe64(&to, 1000);
    batch.Put(store_->cf(Cf::kUserBloom), log, "v");
    batch.DeleteRange(store_->cf(Cf::kUserBloom), from, to);
    ASSERT_TRUE(store_->Write(&batch).ok());
  }
  for (int c = 0; c < 3; ++c) EXPECT_EQ(Scan(cfs[c]), model[c]) << c;
  EXPECT_TRUE(Scan(Cf::kSeenLog).empty());
  EXPECT_TRUE(Scan(Cf::kUserBloom).empty());
}

// The queue's memtable flushes on its entries, not on its per-host buckets:
// with 10^5 hosts the buckets filled 80% of it and each flush carried 12 MB
// of entries. Many hosts with one small entry each stay in the memtable;
// entries past write_buffer_bytes switch it (synchronously, so the active
// memtable holds fewer entries right after the write), and nothing is lost.
TEST_F(StoreDirTest, QueueMemtableFlushesOnEntriesNotBuckets) {
  store_.reset();
  StoreOptions o;
  o.write_buffer_bytes = 1 << 20;
  auto opened = Store::Open(dir_.string(), o);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store_ = std::move(opened).value();
  auto active_entries = [&] {
    uint64_t n = 0;
    EXPECT_TRUE(store_->db()->GetIntProperty(
        store_->cf(Cf::kQueue), rocksdb::DB::Properties::kNumEntriesActiveMemTable, &n));
    return n;
  };
  std::string tail(1, '\0');
  AppendBe64(&tail, 1);
  // ~1.2 MiB of buckets (over write_buffer_bytes), ~0.3 MiB of entries.
  constexpr int kHosts = 2500;
  for (int i = 0; i < kHosts; i += 100) {
    rocksdb::WriteBatch batch;
    for (int j = i; j < i + 100; ++j) {
      const std::string host = "h" + std::to_string(j) + ".example";
      batch.Put(store_->cf(Cf::kQueue), HostKey(1, host, tail), "http://" + host + "/");
    }
    ASSERT_TRUE(store_->Write(&batch).ok());
  }
  EXPECT_EQ(active_entries(), uint64_t{kHosts}) << "the buckets flushed the memtable";
  // ~1.5 MiB of entries in one host: past write_buffer_bytes, yet all
  // together under the 4x that RocksDB itself would flush at.
  constexpr int kPages = 1500;
  const std::string page(1000, 'p');
  for (int i = 0; i < kPages; i += 100) {
    rocksdb::WriteBatch batch;
    for (int j = i; j < i + 100; ++j) {
      std::string t(1, '\0');
      AppendBe64(&t, 100 + j);
      batch.Put(store_->cf(Cf::kQueue), HostKey(1, "big.example", t), page);
    }
    ASSERT_TRUE(store_->Write(&batch).ok());
  }
  EXPECT_LT(active_entries(), uint64_t{kHosts + kPages}) << "entries did not flush it";
  EXPECT_EQ(Scan(Cf::kQueue).size(), size_t{kHosts + kPages});
}

}  // namespace
}  // namespace crawlfront

namespace crawlfront {
namespace {

// Fails Sync and Fsync of WAL files while `fail` is set.
class FailingWalSyncFs : public rocksdb::FileSystemWrapper {
 public:
  explicit FailingWalSyncFs(std::shared_ptr<rocksdb::FileSystem> target)
      : FileSystemWrapper(std::move(target)) {}
  static const char* kClassName() { return "FailingWalSyncFs"; }
  const char* Name() const override { return kClassName(); }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(name, options, result, dbg);
    if (s.ok() && name.ends_with(".log")) {
      *result = std::make_unique<File>(std::move(*result), this);
    }
    return s;
  }

  std::atomic<bool> fail{false};
  std::atomic<bool> hold{false};  // a WAL sync waits while set
  std::atomic<int> syncs{0};      // WAL syncs begun

 private:
  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(std::unique_ptr<rocksdb::FSWritableFile> t, FailingWalSyncFs* fs)
        : FSWritableFileOwnerWrapper(std::move(t)), fs_(fs) {}
    rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
      rocksdb::IOStatus s = Begin();
      return s.ok() ? target()->Sync(o, d) : s;
    }
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
      rocksdb::IOStatus s = Begin();
      return s.ok() ? target()->Fsync(o, d) : s;
    }

   private:
    rocksdb::IOStatus Begin() {
      ++fs_->syncs;
      while (fs_->hold) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (fs_->fail) return rocksdb::IOStatus::IOError("injected WAL sync failure");
      return rocksdb::IOStatus::OK();
    }
    FailingWalSyncFs* fs_;
  };
};

std::filesystem::path FreshDir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("store_test." + std::to_string(getpid()) + "." + name);
  std::filesystem::remove_all(dir);
  return dir;
}

Status PutOne(Store& store, const std::string& key) {
  rocksdb::WriteBatch batch;
  batch.Put(store.cf(Cf::kMeta), key, "v");
  return store.Write(&batch);
}

// A store of `durability` that syncs every 20 ms; null if it cannot open.
std::unique_ptr<Store> OpenSyncing(const std::filesystem::path& dir, Durability durability,
                                   std::shared_ptr<rocksdb::Env> env = nullptr) {
  StoreOptions o;
  o.durability = durability;
  o.wal_sync_interval = std::chrono::milliseconds(20);
  o.env = std::move(env);
  auto store = Store::Open(dir.string(), o);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

// Waits (at most 10 s) until pred() holds.
template <class Pred>
bool WaitFor(Pred pred) {
  for (int i = 0; i < 1000 && !pred(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

// An everysec store over `fs`, which fails WAL syncs on demand.
std::unique_ptr<Store> OpenOverFailingFs(const std::filesystem::path& dir,
                                         const std::shared_ptr<FailingWalSyncFs>& fs) {
  return OpenSyncing(dir, Durability::kEverySec,
                     std::shared_ptr<rocksdb::Env>(rocksdb::NewCompositeEnv(fs)));
}

// Writes `key` and makes the WAL sync after it fail: the store then refuses
// writes until reopened. Leaves `fs` working again.
bool BreakWalSync(Store& s, FailingWalSyncFs& fs, const std::string& key) {
  fs.fail = true;
  bool broken = PutOne(s, key).ok() && WaitFor([&] { return s.wal_sync_stats().failing; });
  fs.fail = false;
  return broken;
}

TEST(StoreWalSyncTest, EverySecSyncsOnlyAfterWrites) {
  auto dir = FreshDir("everysec");
  auto store = OpenSyncing(dir, Durability::kEverySec);
  ASSERT_NE(store, nullptr);
  Store& s = *store;
  ASSERT_TRUE(PutOne(s, "a").ok());
  ASSERT_TRUE(WaitFor([&] { return s.wal_sync_stats().syncs >= 1; }));
  // Nothing written since: ten more intervals add no sync.
  const uint64_t synced = s.wal_sync_stats().syncs;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(s.wal_sync_stats().syncs, synced);
  ASSERT_TRUE(PutOne(s, "b").ok());
  EXPECT_TRUE(WaitFor([&] { return s.wal_sync_stats().syncs > synced; }));
  EXPECT_EQ(s.wal_sync_stats().errors, 0u);
  store.reset();
  std::filesystem::remove_all(dir);
}

TEST(StoreWalSyncTest, WalModeHasNoSyncer) {
  auto dir = FreshDir("wal");
  auto store = OpenSyncing(dir, Durability::kWal);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(PutOne(*store, "a").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(store->wal_sync_stats().syncs, 0u);
  store.reset();
  std::filesystem::remove_all(dir);
}

// After a failed WAL sync writes are refused with the reason, although the
// disk works again (RocksDB refuses them until the database is reopened);
// nothing acknowledged before is lost.
TEST(StoreWalSyncTest, FailedSyncRefusesWritesAndLosesNothingAcknowledged) {
  auto dir = FreshDir("failing");
  auto fs = std::make_shared<FailingWalSyncFs>(rocksdb::FileSystem::Default());
  {
    auto store = OpenOverFailingFs(dir, fs);
    ASSERT_NE(store, nullptr);
    Store& s = *store;
    ASSERT_TRUE(PutOne(s, "before").ok());
    ASSERT_TRUE(BreakWalSync(s, *fs, "unsynced"));
    EXPECT_GE(s.wal_sync_stats().errors, 1u);
    Status refused = PutOne(s, "refused");
    EXPECT_EQ(refused.code(), Status::Code::kIoError);
    EXPECT_NE(refused.message().find("WAL fsync failed"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("injected"), std::string::npos) << refused.message();
    EXPECT_FALSE(s.PutMeta("refused", "v").ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // five more intervals
    EXPECT_TRUE(s.wal_sync_stats().failing);
    EXPECT_EQ(PutOne(s, "refused").code(), Status::Code::kIoError);
    rocksdb::WriteBatch batch;  // RocksDB refuses it too
    batch.Put(s.cf(Cf::kMeta), "refused", "v");
    EXPECT_FALSE(s.db()->Write(rocksdb::WriteOptions(), &batch).ok());
  }
  auto reopened = Store::Open(dir.string(), StoreOptions{});
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  for (const char* key : {"before", "unsynced"}) {
    EXPECT_TRUE((*reopened)->GetMeta(key).ok()) << key;
  }
  EXPECT_FALSE((*reopened)->GetMeta("refused").ok());
  reopened->reset();
  std::filesystem::remove_all(dir);
}


// ---- CommitPipeline -------------------------------------------------------

rocksdb::WriteBatch MetaBatch(Store& s, const std::string& key, const std::string& value) {
  rocksdb::WriteBatch b;
  b.Put(s.cf(Cf::kMeta), key, value);
  b.Put(s.cf(Cf::kMeta), "last", value);  // the last batch written wins
  return b;
}

// Batches reach the disk in submission order; each one's AfterWrite runs
// before anyone waiting on it hears that it is written.
TEST(CommitPipelineTest, WritesInOrderAndTellsWaitersAfterRetiring) {
  auto dir = FreshDir("pipeline-order");
  auto store = OpenSyncing(dir, Durability::kWal);
  ASSERT_NE(store, nullptr);
  constexpr uint64_t kBatches = 300;
  std::atomic<uint64_t> retired{0};
  std::atomic<int> out_of_order{0}, early{0}, told{0};
  {
    CommitPipeline pipeline(store.get());
    for (uint64_t i = 1; i <= kBatches; ++i) {
      rocksdb::WriteBatch b = MetaBatch(*store, "k" + std::to_string(i), std::to_string(i));
      uint64_t epoch = pipeline.Submit(&b, [&, i](const Status& st) {
        if (!st.ok() || retired.fetch_add(1) + 1 != i) ++out_of_order;
      });
      ASSERT_EQ(epoch, i);
      EXPECT_EQ(b.Count(), 0u);  // taken
      if (i % 7 == 0) {
        pipeline.OnWritten(i, [&, i](const Status& st) {
          if (!st.ok() || retired.load() < i) ++early;
          ++told;
        });
      }
    }
    ASSERT_TRUE(pipeline.Wait(kBatches).ok());
    EXPECT_EQ(retired.load(), kBatches);
    EXPECT_EQ(pipeline.written(), kBatches + 1);
    bool inline_call = false;  // already written: told at once, here
    pipeline.OnWritten(5, [&](const Status& st) { inline_call = st.ok(); });
    EXPECT_TRUE(inline_call);
    EXPECT_TRUE(pipeline.Wait(0).ok());
  }
  EXPECT_EQ(out_of_order.load(), 0);
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(told.load(), static_cast<int>(kBatches / 7));
  EXPECT_EQ(*store->GetMeta("last"), std::to_string(kBatches));
  EXPECT_TRUE(store->GetMeta("k1").ok());
  store.reset();
  std::filesystem::remove_all(dir);
}

// Holds the pipeline's first write in its WAL sync (fsync durability),
// queues one batch per entry of `value_bytes` (key "k<i>", value that many
// bytes; the middle one also deletes the first write's key), releases the
// sync and returns how many WAL syncs the queued batches took. Checks that
// every record landed.
int SyncsForQueuedBatches(const char* name, const std::vector<size_t>& value_bytes) {
  auto dir = FreshDir(name);
  auto fs = std::make_shared<FailingWalSyncFs>(rocksdb::FileSystem::Default());
  auto store = OpenSyncing(dir, Durability::kFsync,
                           std::shared_ptr<rocksdb::Env>(rocksdb::NewCompositeEnv(fs)));
  if (store == nullptr) return -1;
  int syncs = -1;
  {
    CommitPipeline pipeline(store.get());
    fs->hold = true;
    const int before_first = fs->syncs;
    rocksdb::WriteBatch b = MetaBatch(*store, "first", "0");
    pipeline.Submit(&b);
    EXPECT_TRUE(WaitFor([&] { return fs->syncs > before_first; }));  // held in its sync
    const int before_queued = fs->syncs;
    uint64_t last = 0;
    for (size_t i = 0; i < value_bytes.size(); ++i) {
      rocksdb::WriteBatch q =
          MetaBatch(*store, "k" + std::to_string(i), std::string(value_bytes[i], 'v'));
      if (i == value_bytes.size() / 2) q.Delete(store->cf(Cf::kMeta), "first");
      last = pipeline.Submit(&q);
    }
    fs->hold = false;
    EXPECT_TRUE(pipeline.Wait(last).ok());
    syncs = fs->syncs - before_queued;
  }
  for (size_t i = 0; i < value_bytes.size(); ++i) {
    auto v = store->GetMeta("k" + std::to_string(i));
    EXPECT_TRUE(v.ok() && v->size() == value_bytes[i]) << i;
  }
  auto last = store->GetMeta("last");
  EXPECT_TRUE(last.ok() && last->size() == value_bytes.back());
  EXPECT_FALSE(store->GetMeta("first").ok());
  store.reset();
  std::filesystem::remove_all(dir);
  return syncs;
}

// Batches queued while the writer waits on a write go out together as the
// next one: one WAL sync covers them all (group commit), and every record
// of every batch lands in order.
TEST(CommitPipelineTest, BatchesQueuedDuringAWriteShareTheNextWrite) {
  EXPECT_EQ(SyncsForQueuedBatches("pipeline-group", std::vector<size_t>(50, 1)), 1);
}

// A group stops before a batch that would take it past 1 MiB: that batch is
// written on its own rather than copied into the others'.
TEST(CommitPipelineTest, ALargeBatchIsNotCopiedIntoAGroup) {
  const size_t large = size_t{3} << 19;  // 1.5 MiB
  EXPECT_EQ(SyncsForQueuedBatches("pipeline-large", {10, 10, 10, large, 10, 10}), 3);
}

// Destroying the pipeline writes what was submitted.
TEST(CommitPipelineTest, DestructionWritesEverythingSubmitted) {
  auto dir = FreshDir("pipeline-drain");
  auto store = OpenSyncing(dir, Durability::kWal);
  ASSERT_NE(store, nullptr);
  {
    CommitPipeline pipeline(store.get());
    for (int i = 1; i <= 100; ++i) {
      rocksdb::WriteBatch b = MetaBatch(*store, "k" + std::to_string(i), std::to_string(i));
      pipeline.Submit(&b);
    }
  }
  EXPECT_EQ(*store->GetMeta("last"), "100");
  store.reset();
  std::filesystem::remove_all(dir);
}

// After a failed write nothing more is written: the failed batch and every
// later one report the error, earlier ones stay acknowledged.
TEST(CommitPipelineTest, AfterAFailedWriteLaterBatchesFailToo) {
  auto dir = FreshDir("pipeline-fail");
  auto fs = std::make_shared<FailingWalSyncFs>(rocksdb::FileSystem::Default());
  auto store = OpenOverFailingFs(dir, fs);
  ASSERT_NE(store, nullptr);
  {
    CommitPipeline pipeline(store.get());
    rocksdb::WriteBatch b = MetaBatch(*store, "before", "1");
    const uint64_t good = pipeline.Submit(&b);
    ASSERT_TRUE(pipeline.Wait(good).ok());
    ASSERT_TRUE(BreakWalSync(*store, *fs, "unsynced"));
    std::vector<Status> after(3);
    uint64_t first_bad = 0;
    for (int i = 0; i < 3; ++i) {
      rocksdb::WriteBatch bad = MetaBatch(*store, "refused" + std::to_string(i), "x");
      uint64_t e = pipeline.Submit(&bad, [&after, i](const Status& st) { after[i] = st; });
      if (i == 0) first_bad = e;
    }
    Status waited = pipeline.Wait(first_bad + 2);
    EXPECT_EQ(waited.code(), Status::Code::kIoError) << waited.ToString();
    for (int i = 0; i < 3; ++i) EXPECT_FALSE(after[i].ok()) << i;
    EXPECT_FALSE(pipeline.failure().ok());
    EXPECT_TRUE(pipeline.Wait(good).ok());  // written before the failure
    Status told;
    pipeline.OnWritten(first_bad + 1, [&](const Status& st) { told = st; });
    EXPECT_FALSE(told.ok());
  }
  store.reset();
  auto reopened = Store::Open(dir.string(), StoreOptions{});
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_TRUE((*reopened)->GetMeta("before").ok());
  for (const char* key : {"refused0", "refused1", "refused2"}) {
    EXPECT_FALSE((*reopened)->GetMeta(key).ok()) << key;
  }
  reopened->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace crawlfront
