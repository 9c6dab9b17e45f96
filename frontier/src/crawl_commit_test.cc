// Group commit in the crawl core: calls with a ticket change RAM at once but
// reach RocksDB only with Sync (or the next write of anyone), and a crash
// before that loses exactly those calls.

#include <set>
#include <thread>

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
    uint64_t n = 0;
    for (const auto& [host, r] : StoredHostRecords(*store_)) n += r.leased;
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

// Eight threads lease, report and sync at once, so one thread's Sync often
// writes another's changes. A Sync returns only once its changes are in
// RocksDB, whoever wrote them; afterwards the disk holds what RAM holds: the
// queue entries of the URLs not done, and counters that survive a reopen.
TEST_F(CrawlCommitTest, ConcurrentSyncsKeepTheDiskEqualToRam) {
  store_options_.durability = Durability::kFsync;  // slow writes: wide races
  Open(NoRobotsOptions());
  std::vector<std::string> urls;
  for (int h = 0; h < 40; ++h) {
    for (int i = 0; i < 10; ++i) {
      urls.push_back("http://h" + std::to_string(h) + ".test/" + std::to_string(i));
    }
  }
  AddUrls(urls);
  constexpr int kThreads = 8, kDonePerThread = 40;
  std::vector<std::set<std::string>> done(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string worker = "w" + std::to_string(t);
      for (int round = 0; round < 1000 && done[t].size() < kDonePerThread; ++round) {
        std::vector<LeasedUrl> leased;
        uint64_t ticket = 0;
        size_t want = std::min<size_t>(2, kDonePerThread - done[t].size());
        ASSERT_TRUE(core_->Lease(worker, want, "", &leased, &ticket).ok());
        ASSERT_TRUE(core_->Sync(ticket).ok());
        uint64_t last = 0;
        for (const LeasedUrl& l : leased) {
          bool known = false;
          ASSERT_TRUE(core_->Done(worker, l.lease_id, Fetched(), &known, &ticket).ok());
          ASSERT_TRUE(known);
          last = std::max(last, ticket);
          done[t].insert(l.url);
        }
        if (last == 0) continue;
        std::this_thread::yield();  // lets another thread's Sync take this batch
        ASSERT_TRUE(core_->Sync(last).ok());
        // Acknowledged: the entries are gone from RocksDB, whoever wrote them.
        std::multiset<std::string> stored = StoredUrls();
        for (const LeasedUrl& l : leased) ASSERT_EQ(stored.count(l.url), 0u) << l.url;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::multiset<std::string> left(urls.begin(), urls.end());
  size_t done_count = 0;
  for (const auto& d : done) {
    done_count += d.size();
    for (const std::string& u : d) left.erase(u);
  }
  ASSERT_EQ(done_count, kThreads * kDonePerThread);
  EXPECT_EQ(StoredUrls(), left);
  EXPECT_EQ(StoredLeased(), 0u);
  EXPECT_EQ(core_->Stats("").urls_done, done_count);
  Reopen();
  EXPECT_EQ(core_->Stats("").urls_done, done_count);
  std::multiset<std::string> again;
  for (int round = 0; round < 100 && again.size() < left.size(); ++round) {
    for (const LeasedUrl& l : LeaseN(1000)) {
      again.insert(l.url);
      bool known = false;
      ASSERT_TRUE(core_->Done("w1", l.lease_id, Fetched(), &known).ok());
    }
  }
  EXPECT_EQ(again, left);
}

// An add's batch is written by the writer thread after Add returns. A
// lease that reads the host's queue from RocksDB (a RAM head of one entry
// here) must wait for that batch, or it would find the queue short and lose
// the URLs until a restart. Slow fsynced writes keep the writer behind.
TEST_F(CrawlCommitTest, LeasesReadingTheQueueWaitForUnwrittenAdds) {
  store_options_.durability = Durability::kFsync;
  CrawlOptions o = NoRobotsOptions();
  o.head_buffer = 1;
  o.max_inflight_per_host = 1000;
  Open(o);
  std::set<std::string> added;
  uint64_t last = 0;
  for (int batch = 0; batch < 20; ++batch) {
    std::vector<AddRequest> reqs;
    for (int i = 0; i < 10; ++i) {
      std::string url = "http://a.test/" + std::to_string(batch) + "/" + std::to_string(i);
      reqs.push_back(AddRequest{url, 0, 0, "", 0});
      added.insert(url);
    }
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add("", reqs, &out, &last).ok());
  }
  std::set<std::string> leased;
  for (int round = 0; round < 300 && leased.size() < added.size(); ++round) {
    std::vector<LeasedUrl> got;
    uint64_t ticket = 0;
    ASSERT_TRUE(core_->Lease("w1", 7, "", &got, &ticket).ok());
    for (const LeasedUrl& l : got) leased.insert(l.url);
  }
  EXPECT_EQ(leased, added);
  ASSERT_TRUE(core_->Sync(last).ok());
  EXPECT_EQ(core_->Stats("").urls_seen, added.size());
}

}  // namespace
}  // namespace crawlfront
