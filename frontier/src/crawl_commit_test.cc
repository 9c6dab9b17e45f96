// Group commit in the crawl core: calls with a ticket change RAM at once but
// reach RocksDB only with Sync (or the next write of anyone), and a crash
// before that loses exactly those calls.

#include <set>

#include <gtest/gtest.h>

#include "crash_test_util.h"
#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class CrawlCommitTest : public CrawlFixture {
 protected:
  // URLs of the queue entries in RocksDB (leased ones stay until DONE).
  std::multiset<std::string> StoredUrls() {
    std::unique_ptr<rocksdb::Iterator> it(
        store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kQueue)));
    std::multiset<std::string> urls;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      QueueItem item;
      EXPECT_TRUE(DecodeItem(it->value().ToStringView(), &item).ok());
      urls.insert(item.url);
    }
    return urls;
  }
  // Sum of the host records' leased counters in RocksDB.
  uint64_t StoredLeased() {
    std::unique_ptr<rocksdb::Iterator> it(
        store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kHost)));
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().ToStringView().back() != 'H') continue;
      HostRecord r;
      EXPECT_TRUE(DecodeHostRecord(it->value().ToStringView(), &r).ok());
      n += r.leased;
    }
    return n;
  }
  bool DoneWithTicket(const LeasedUrl& l, uint64_t* ticket) {
    bool known = false;
    Status s = core_->Done("w1", l.lease_id, Fetched(), &known, ticket);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return known;
  }
};

TEST_F(CrawlCommitTest, TicketCallsReachTheDiskWithSync) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1", "http://b.test/1", "http://c.test/1"});
  std::vector<LeasedUrl> leased;
  uint64_t lease_ticket = 0;
  ASSERT_TRUE(core_->Lease("w1", 10, "", &leased, &lease_ticket).ok());
  ASSERT_EQ(leased.size(), 3u);
  ASSERT_TRUE(core_->Sync(lease_ticket).ok());
  // A lease writes nothing: its entry stays queued on disk.
  EXPECT_EQ(StoredLeased(), 0u);
  EXPECT_EQ(StoredUrls().size(), 3u);
  uint64_t ticket = 0, last = 0;
  for (const LeasedUrl& l : leased) {
    ASSERT_TRUE(DoneWithTicket(l, &ticket));
    last = std::max(last, ticket);
  }
  EXPECT_EQ(StoredUrls().size(), 3u);
  EXPECT_TRUE(core_->Finished(""));  // RAM already has every DONE
  ASSERT_TRUE(core_->Sync(last).ok());
  EXPECT_TRUE(StoredUrls().empty());
  EXPECT_EQ(StoredLeased(), 0u);
  EXPECT_TRUE(core_->Sync(lease_ticket).ok());  // an old ticket: nothing to do
  Reopen();
  EXPECT_TRUE(core_->Finished(""));
  EXPECT_TRUE(LeaseN(10).empty());
}

// The seen-set's write carries host records of the current RAM state, so an
// Add first writes what earlier ticket calls left pending.
TEST_F(CrawlCommitTest, AddWritesPendingChangesFirst) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  uint64_t ticket = 0;
  ASSERT_TRUE(DoneWithTicket(l[0], &ticket));
  EXPECT_EQ(StoredUrls(), std::multiset<std::string>{"http://a.test/1"});
  AddUrls({"http://a.test/2"});
  EXPECT_EQ(StoredUrls(), std::multiset<std::string>{"http://a.test/2"});
  ASSERT_TRUE(core_->Sync(ticket).ok());
  Reopen();
  auto again = LeaseN(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url, "http://a.test/2");
  EXPECT_EQ(core_->Stats("").urls_done, 1u);
}

// A child reports two URLs done with tickets and syncs only one before
// exiting like a crash: the unsynced one is leased again after a restart,
// the synced one never is.
TEST_F(CrawlCommitTest, CrashLosesOnlyUnsyncedCalls) {
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    AddUrls({"http://a.test/kept", "http://b.test/lost"});
    auto l = LeaseN(10);
    if (l.size() != 2) child.Exit(3);
    if (l[0].url != "http://a.test/kept") std::swap(l[0], l[1]);
    uint64_t kept = 0, lost = 0;
    if (!DoneWithTicket(l[0], &kept) || !core_->Sync(kept).ok()) child.Exit(4);
    if (!DoneWithTicket(l[1], &lost)) child.Exit(5);
    child.Exit(0);  // no destructors: the pending write of "lost" is dropped
  });
  ASSERT_EQ(code, 0);
  Open(NoRobotsOptions());
  std::set<std::string> urls;
  for (const LeasedUrl& x : LeaseN(10)) urls.insert(x.url);
  EXPECT_EQ(urls, (std::set<std::string>{"http://b.test/lost"}));
}

}  // namespace
}  // namespace crawlfront
