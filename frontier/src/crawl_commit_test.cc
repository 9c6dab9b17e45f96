// Group commit in the crawl core: calls with a ticket change RAM at once but
// reach RocksDB only with Sync (or the next write of anyone), and a crash
// before that loses exactly those calls.

#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class CrawlCommitTest : public CrawlFixture {
 protected:
  // Lease records in RocksDB (what a restart would re-queue).
  int StoredLeases() {
    std::unique_ptr<rocksdb::Iterator> it(
        store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kLease)));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
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
  EXPECT_EQ(StoredLeases(), 0);  // in RAM only so far
  ASSERT_TRUE(core_->Sync(lease_ticket).ok());
  EXPECT_EQ(StoredLeases(), 3);
  uint64_t ticket = 0, last = 0;
  for (const LeasedUrl& l : leased) {
    ASSERT_TRUE(DoneWithTicket(l, &ticket));
    last = std::max(last, ticket);
  }
  EXPECT_EQ(StoredLeases(), 3);
  EXPECT_TRUE(core_->Finished(""));  // RAM already has every DONE
  ASSERT_TRUE(core_->Sync(last).ok());
  EXPECT_EQ(StoredLeases(), 0);
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
  EXPECT_EQ(StoredLeases(), 1);
  AddUrls({"http://a.test/2"});
  EXPECT_EQ(StoredLeases(), 0);
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
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Open(NoRobotsOptions());
    AddUrls({"http://a.test/kept", "http://b.test/lost"});
    auto l = LeaseN(10);
    if (l.size() != 2) _exit(3);
    if (l[0].url != "http://a.test/kept") std::swap(l[0], l[1]);
    uint64_t kept = 0, lost = 0;
    if (!DoneWithTicket(l[0], &kept) || !core_->Sync(kept).ok()) _exit(4);
    if (!DoneWithTicket(l[1], &lost)) _exit(5);
    _exit(0);  // no destructors: the pending write of "lost" is dropped
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  Open(NoRobotsOptions());
  std::set<std::string> urls;
  for (const LeasedUrl& x : LeaseN(10)) urls.insert(x.url);
  EXPECT_EQ(urls, (std::set<std::string>{"http://b.test/lost"}));
}

}  // namespace
}  // namespace crawlfront
