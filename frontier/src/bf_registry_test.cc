#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bf_store.h"
#include "crash_test_util.h"
#include "crawlfront/frontier/bf_commands.h"
#include "test_dir_util.h"

namespace crawlfront {
namespace {

using TempDir = testing::TestDir;

struct Db {
  std::unique_ptr<Store> store;
  std::unique_ptr<UserBloomRegistry> reg;
};

Db OpenOrDie(const std::string& dir, UserBloomOptions o = {}) {
  Db db;
  auto store = Store::Open(dir, StoreOptions{});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return db;
  db.store = std::move(store).value();
  auto reg = UserBloomRegistry::Open(db.store.get(), o);
  EXPECT_TRUE(reg.ok()) << reg.status().ToString();
  if (reg.ok()) db.reg = std::move(reg).value();
  return db;
}

// A writer child's database, snapshots every 20 ms so they land between its
// writes; null when it cannot be opened. Shared: the child's step owns it.
std::shared_ptr<Db> OpenForWriter(const std::string& dir) {
  UserBloomOptions o;
  o.snapshot_interval = std::chrono::milliseconds(20);
  auto store = Store::Open(dir, StoreOptions{});
  if (!store.ok()) return nullptr;
  auto db = std::make_shared<Db>();
  db->store = std::move(store).value();
  auto reg = UserBloomRegistry::Open(db->store.get(), o);
  if (!reg.ok()) return nullptr;
  db->reg = std::move(reg).value();
  return db;
}

std::vector<std::string> Items(int from, int to) {
  std::vector<std::string> v;
  for (int i = from; i < to; ++i) v.push_back("http://example.com/" + std::to_string(i));
  return v;
}

void ExpectAllPresent(UserBloomRegistry& reg, std::string_view name,
                      const std::vector<std::string>& items) {
  std::vector<uint8_t> found;
  reg.Exists(name, items, &found);
  for (size_t i = 0; i < items.size(); ++i) ASSERT_EQ(found[i], 1) << items[i];
}

// Runs write(db, 0), write(db, 1), ... in a child on `dir` (OpenForWriter)
// and SIGKILLs it after at least `kill_after` acknowledged writes, then
// reopens `dir` into *db. *acked: the writes the child acknowledged.
void KillWriterAndReopen(const std::string& dir, int kill_after,
                         const std::function<bool(Db&, int)>& write, int* acked, Db* db) {
  auto make_step = [&]() -> testing::CrashStep {
    std::shared_ptr<Db> opened = OpenForWriter(dir);
    if (!opened) return {};
    return [opened, write](uint64_t b) { return write(*opened, static_cast<int>(b)); };
  };
  testing::KilledChild child = testing::RunUntilKilled(make_step, kill_after);
  ASSERT_TRUE(child.killed) << child.error;
  *acked = static_cast<int>(child.acked);
  ASSERT_GT(*acked, 0);
  *db = OpenOrDie(dir);
  ASSERT_NE(db->reg, nullptr);
}

// A snapshot copies into memory mapped before the filter is locked; when
// the filter outgrew it, into new memory. Either way the image is the one a
// capture into fresh memory makes.
TEST(BfStoreTest, CaptureIntoPreparedMemoryMatchesAFreshCapture) {
  auto chain = BfChain::Create(BfParams{0.01, 1000000, 2, false}, uint64_t{1} << 30);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  UserBloomRegistry::Filter f("f", std::move(chain).value());
  std::mt19937_64 rng(5);
  for (int i = 0; i < 3000; ++i) f.chain.Add(rng());
  const uint64_t first_link_bytes = f.chain.bytes();
  ASSERT_TRUE(f.chain.AddLink().ok());
  for (int i = 0; i < 3000; ++i) f.chain.Add(rng());
  f.counter = 77;
  std::lock_guard lock(f.mu);
  const BfSnapshotImage fresh = BfCaptureSnapshot(f);
  ASSERT_GT(fresh.chunks.size(), 2u);
  BfSnapshotImage fits = BfPrepareSnapshot(f.chain.bytes());
  const char* fits_data = fits.data;
  BfSnapshotImage outgrown = BfPrepareSnapshot(first_link_bytes);
  for (BfSnapshotImage* prepared : {&fits, &outgrown}) {
    const BfSnapshotImage image = BfCaptureSnapshot(f, std::move(*prepared));
    EXPECT_EQ(image.name, "f");
    EXPECT_EQ(image.counter, 77u);
    EXPECT_EQ(image.header, fresh.header);
    EXPECT_GE(image.data_bytes, f.chain.bytes());
    ASSERT_EQ(image.chunks.size(), fresh.chunks.size());
    for (size_t i = 0; i < image.chunks.size(); ++i) {
      EXPECT_EQ(image.chunks[i].key, fresh.chunks[i].key) << i;
      EXPECT_EQ(image.chunks[i].bits, fresh.chunks[i].bits) << i;
    }
    if (prepared == &fits) {
      EXPECT_EQ(image.data, fits_data);
    }
  }
}

TEST(UserBloomRegistryTest, ReserveTwiceAndMissingNames) {
  TempDir dir;
  Db db = OpenOrDie(dir.path());
  ASSERT_TRUE(db.reg->Reserve("a", BfParams{}).ok());
  Status again = db.reg->Reserve("a", BfParams{});
  EXPECT_EQ(again.message(), "ERR item exists");
  EXPECT_EQ(db.reg->Info("nope").status().message(), "ERR not found");
  EXPECT_EQ(db.reg->Card("nope"), 0u);
  std::vector<BfAddOutcome> out;
  EXPECT_EQ(db.reg->Add("nope", Items(0, 1), nullptr, &out).message(), "ERR not found");
  EXPECT_EQ(db.reg->filter_count(), 1u);
}

// The batch path (older sub-filters probed once for the whole batch) must
// answer exactly as adding and checking one item at a time, through link
// growth, repeats within a batch, false positives and a full filter.
TEST(UserBloomRegistryTest, BatchAddsAndExistsAgreeWithSingleOnes) {
  TempDir dir;
  Db db = OpenOrDie(dir.path());
  for (bool nonscaling : {false, true}) {
    BfParams p;
    p.capacity = nonscaling ? 2000 : 50;
    p.error_rate = 0.05;
    p.nonscaling = nonscaling;
    const std::string one = nonscaling ? "one-fixed" : "one";
    const std::string many = nonscaling ? "many-fixed" : "many";
    std::vector<std::string> seq;  // 6000 adds of 3500 distinct items
    for (int i = 0; i < 6000; ++i) {
      int id = (i * 7919) % 3500;
      seq.push_back(Items(id, id + 1)[0]);
    }
    std::vector<BfAddOutcome> single, batched, out;
    for (const std::string& item : seq) {
      ASSERT_TRUE(db.reg->Add(one, std::span(&item, 1), &p, &out).ok());
      single.push_back(out.at(0));
    }
    for (size_t at = 0; at < seq.size(); at += 37) {
      std::span<const std::string> part(seq.data() + at,
                                        std::min<size_t>(37, seq.size() - at));
      ASSERT_TRUE(db.reg->Add(many, part, &p, &out).ok());
      batched.insert(batched.end(), out.begin(), out.end());
      if (out.size() < part.size()) {  // stopped after the full filter's answer
        for (size_t i = out.size(), n = part.size(); i < n; ++i) {
          ASSERT_TRUE(db.reg->Add(many, part.subspan(i, 1), &p, &out).ok());
          batched.push_back(out.at(0));
        }
      }
    }
    EXPECT_EQ(batched, single);
    EXPECT_EQ(db.reg->Card(many), db.reg->Card(one));
    EXPECT_EQ(db.reg->Info(many)->filters, db.reg->Info(one)->filters);
    if (nonscaling) {
      EXPECT_NE(std::count(single.begin(), single.end(), BfAddOutcome::kFull), 0);
    } else {
      EXPECT_GT(db.reg->Info(one)->filters, 5u);  // the batch path skipped links
    }
    std::vector<std::string> probe = Items(3000, 4500);  // 500 added, 1000 never
    std::vector<uint8_t> batch_found, found;
    db.reg->Exists(many, probe, &batch_found);
    std::vector<uint8_t> singles;
    for (const std::string& item : probe) {
      db.reg->Exists(many, std::span(&item, 1), &found);
      singles.push_back(found.at(0));
    }
    EXPECT_EQ(batch_found, singles);
    if (!nonscaling) {
      EXPECT_EQ(std::count(singles.begin(), singles.begin() + 500, 1), 500);
    }
  }
}

TEST(UserBloomRegistryTest, MemoryCapRefusesReserveAndGrowth) {
  TempDir dir;
  UserBloomOptions o;
  o.max_total_bytes = 64 << 10;
  Db db = OpenOrDie(dir.path(), o);
  Status big = db.reg->Reserve("big", BfParams{0.001, 1'000'000, 2, false});
  EXPECT_NE(big.message().find("exceeds max memory for Bloom filters"), std::string::npos)
      << big.ToString();
  EXPECT_EQ(db.reg->bytes_in_use(), 0u);
  ASSERT_TRUE(db.reg->Reserve("grow", BfParams{0.01, 1000, 4, false}).ok());
  std::vector<BfAddOutcome> out;
  ASSERT_TRUE(db.reg->Add("grow", Items(0, 200'000), nullptr, &out).ok());
  EXPECT_EQ(out.back(), BfAddOutcome::kNoMemory);
  EXPECT_LE(db.reg->bytes_in_use(), o.max_total_bytes);
}

// Scaled filters come back with the same shape and every item, both from
// a snapshot (close) and from the log alone (no snapshot since the adds).
TEST(UserBloomRegistryTest, RestartRestoresFiltersExactly) {
  TempDir dir;
  UserBloomOptions o;
  o.snapshot_interval = std::chrono::milliseconds(0);
  // The adds run in a child that exits without destructors, like a crash:
  // no snapshot on close, so "log" comes back from the log alone.
  std::string bytes;
  int code = testing::RunLikeCrash(
      [&](const testing::ChildExit& child) {
        Db db = OpenOrDie(dir.path(), o);
        std::vector<BfAddOutcome> out;
        BfParams p{0.01, 100, 2, false};
        bool ok = db.reg->Add("snap", Items(0, 1000), &p, &out).ok() &&
                  db.reg->SnapshotNow().ok() &&
                  db.reg->Add("snap", Items(1000, 1500), &p, &out).ok() &&  // log only
                  db.reg->Add("log", Items(0, 700), &p, &out).ok();
        if (!ok) child.Exit(3);
        BfInfo infos[2] = {*db.reg->Info("snap"), *db.reg->Info("log")};
        child.Exit(0,
                   std::string_view(reinterpret_cast<const char*>(infos), sizeof infos));
      },
      &bytes);
  ASSERT_EQ(code, 0);
  BfInfo before[2];
  ASSERT_EQ(bytes.size(), sizeof before);
  std::memcpy(before, bytes.data(), sizeof before);
  BfInfo before_snap = before[0], before_log = before[1];
  Db db = OpenOrDie(dir.path(), o);
  for (auto [name, before, n] :
       {std::tuple{"snap", before_snap, 1500}, std::tuple{"log", before_log, 700}}) {
    auto info = db.reg->Info(name);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->items, before.items) << name;
    EXPECT_EQ(info->filters, before.filters) << name;
    EXPECT_EQ(info->capacity, before.capacity) << name;
    EXPECT_EQ(info->bytes, before.bytes) << name;
    ExpectAllPresent(*db.reg, name, Items(0, n));
  }
  EXPECT_GT(before_snap.filters, 1u);
}

// A child adds batches and reports each acknowledged one on a pipe; it is
// SIGKILLed at a random moment. Every acknowledged item must be present
// after reopening (snapshot + log replay).
TEST(UserBloomRegistryTest, KilledWriterLosesNoAckedAdd) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3; ++round) {
    TempDir dir;
    int acked = 0;
    Db db;
    auto write = [](Db& w, int b) {
      std::vector<BfAddOutcome> out;
      BfParams p{0.01, 500, 2, false};
      return w.reg->Add("k", Items(b * 50, b * 50 + 50), &p, &out).ok();
    };
    ASSERT_NO_FATAL_FAILURE(KillWriterAndReopen(
        dir.path(), 20 + static_cast<int>(rng() % 200), write, &acked, &db));
    ExpectAllPresent(*db.reg, "k", Items(0, acked * 50));
    EXPECT_GE(db.reg->Card("k"), static_cast<uint64_t>(acked * 50) * 95 / 100);
  }
}

// Log records of filter `name` in the store.
int LogRecords(Store& store, std::string_view name) {
  std::string prefix = BfLogPrefix(name);
  std::unique_ptr<rocksdb::Iterator> it(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.cf(Cf::kUserBloom)));
  int n = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++n;
  return n;
}

// Group commit: the adds of several calls become one log record, written by
// the group's Commit, and come back after a restart.
TEST(UserBloomRegistryTest, GroupLogsOneRecordPerCommit) {
  TempDir dir;
  UserBloomOptions o;
  o.snapshot_interval = std::chrono::milliseconds(0);
  {
    Db db = OpenOrDie(dir.path(), o);
    BfParams p{0.01, 10'000, 2, false};
    std::vector<BfAddOutcome> out;
    WriteGroup group(db.store.get());
    for (int b = 0; b < 3; ++b) {
      ASSERT_TRUE(db.reg->Add("g", Items(b * 10, b * 10 + 10), &p, &out, &group).ok());
    }
    EXPECT_EQ(LogRecords(*db.store, "g"), 0);  // nothing written before Commit
    ASSERT_TRUE(group.Commit().ok());
    EXPECT_EQ(LogRecords(*db.store, "g"), 1);
    EXPECT_EQ(db.reg->Card("g"), 30u);
  }  // the close snapshot replaces the log
  Db db = OpenOrDie(dir.path(), o);
  ExpectAllPresent(*db.reg, "g", Items(0, 30));
  EXPECT_EQ(db.reg->Card("g"), 30u);
}

// A child adds in groups of three calls, acknowledging a group on a pipe
// once its Commit returned, while snapshots run every 20 ms (so they land
// between a group's adds and its commit); it is SIGKILLed at a random
// moment. Every acknowledged item must be back after reopening, and items
// of a group never committed must not be (beyond false positives).
TEST(UserBloomRegistryTest, KilledGroupWriterLosesNoAckedAdd) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 3; ++round) {
    TempDir dir;
    int acked = 0;
    Db db;
    auto write = [](Db& w, int b) {  // one group of three adds
      std::vector<BfAddOutcome> out;
      BfParams p{0.01, 500, 2, false};
      WriteGroup group(w.store.get());
      for (int i = 0; i < 3; ++i) {
        int first = (b * 3 + i) * 20;
        if (!w.reg->Add("k", Items(first, first + 20), &p, &out, &group).ok())
          return false;
      }
      return group.Commit().ok();
    };
    ASSERT_NO_FATAL_FAILURE(KillWriterAndReopen(
        dir.path(), 20 + static_cast<int>(rng() % 200), write, &acked, &db));
    ExpectAllPresent(*db.reg, "k", Items(0, acked * 60));
  }
}

// Adds of a group that was never committed are not in the log: after a
// crash (no snapshot) they are gone, while a committed group's are back.
TEST(UserBloomRegistryTest, UncommittedGroupIsNotDurable) {
  TempDir dir;
  UserBloomOptions o;
  o.snapshot_interval = std::chrono::milliseconds(0);
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Db db = OpenOrDie(dir.path(), o);
    BfParams p{0.01, 10'000, 2, false};
    std::vector<BfAddOutcome> out;
    WriteGroup kept(db.store.get()), lost(db.store.get());
    if (!db.reg->Add("u", Items(0, 100), &p, &out, &kept).ok()) child.Exit(3);
    if (!db.reg->Add("u", Items(100, 200), &p, &out, &lost).ok()) child.Exit(4);
    if (!kept.Commit().ok()) child.Exit(5);
    child.Exit(0);  // like a crash: no snapshot on close
  });
  ASSERT_EQ(code, 0);
  Db db = OpenOrDie(dir.path(), o);
  ExpectAllPresent(*db.reg, "u", Items(0, 100));
  std::vector<std::string> never = Items(100, 200);
  std::vector<uint8_t> found;
  db.reg->Exists("u", never, &found);
  EXPECT_LT(std::count(found.begin(), found.end(), 1), 20);  // p = 1%: about 1
}

}  // namespace
}  // namespace crawlfront
