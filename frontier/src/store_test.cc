#include "crawlfront/frontier/store.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace crawlfront
