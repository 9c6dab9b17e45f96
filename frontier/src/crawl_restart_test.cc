// Restarts: a clean close and a SIGKILLed process both keep queues, host
// controls and counters; a clean close keeps leases in flight open, a crash
// queues them again.

#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "crash_test_util.h"
#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

// http://HOST/FROM .. http://HOST/(TO - 1)
std::vector<std::string> Urls(const std::string& host, int from, int to) {
  std::vector<std::string> urls;
  for (int i = from; i < to; ++i) urls.push_back("http://" + host + "/" + std::to_string(i));
  return urls;
}

// Two leases as a crashed child passes them to the test: "id url id url".
std::string LeasePair(const LeasedUrl& a, const LeasedUrl& b) {
  return a.lease_id + " " + a.url + " " + b.lease_id + " " + b.url;
}
void ReadLeasePair(const std::string& text, LeasedUrl* a, LeasedUrl* b) {
  std::istringstream in(text);
  in >> a->lease_id >> a->url >> b->lease_id >> b->url;
}

class CrawlRestartTest : public CrawlFixture {
 protected:
  // Adds `url` and waits until it and every earlier write are on disk.
  bool AddDurably(const std::string& url, AddResult* result = nullptr) {
    uint64_t ticket = 0;
    std::vector<AddResult> out;
    if (!core_->Add("", std::vector<AddRequest>{{url, 0, 0, "", 0}}, &out, &ticket).ok() ||
        !core_->Sync(ticket).ok()) {
      return false;
    }
    if (result) *result = out[0];
    return true;
  }
};

TEST_F(CrawlRestartTest, ReopenRestoresQueuesLeasesControlsAndCounters) {
  Open(TestOptions());
  std::vector<std::string> urls = Urls("a.test", 0, 50);
  urls.push_back("http://b.test/1");
  AddUrls(urls);
  AddUrls({"http://c.test/1"}, "c2");
  AddUrls({"ftp://rejected/"});
  ASSERT_TRUE(core_->SetHostDelay("", "a.test", 5).ok());
  ASSERT_TRUE(core_->BlockHostUntil("", "b.test", clock_.NowMs() + 100'000).ok());
  ASSERT_TRUE(core_->SetHostRobots("", "a.test", "User-agent: *\nDisallow: /4\n").ok());
  ASSERT_TRUE(core_->Pause("c2").ok());
  std::set<std::string> leased;
  for (int i = 0; i < 20; ++i) {
    for (auto& l : LeaseN(1)) {
      leased.insert(l.url);
      EXPECT_TRUE(Done(l, Fetched()));
    }
    clock_.Advance(5);
  }
  auto open_lease = LeaseN(1);  // in flight at the restart
  ASSERT_EQ(open_lease.size(), 1u);
  CrawlStats before = core_->Stats("");
  EXPECT_EQ(before.urls_inflight, 1u);

  Reopen();
  CrawlStats after = core_->Stats("");
  EXPECT_EQ(after.urls_seen, before.urls_seen);
  EXPECT_EQ(after.urls_done, before.urls_done);
  EXPECT_EQ(after.urls_rejected, before.urls_rejected);
  EXPECT_EQ(after.urls_robots_blocked, before.urls_robots_blocked);
  EXPECT_EQ(after.fetched_2xx, before.fetched_2xx);
  EXPECT_EQ(after.urls_queued, before.urls_queued);
  EXPECT_EQ(after.urls_inflight, 1u) << "the open lease is still open";
  EXPECT_TRUE(Done(open_lease[0], Fetched())) << "its result counts";
  leased.insert(open_lease[0].url);
  auto hosts = core_->ListHosts("default", 0);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "a.test");
  EXPECT_EQ(hosts[0].delay_ms, 5);
  EXPECT_EQ(hosts[0].robots_state, "manual");
  EXPECT_EQ(hosts[1].blocked_until_ms, clock_.NowMs() + 100'000 - 100);

  // Drain: every URL not yet done comes out exactly once, paused c2 none.
  clock_.Advance(1'000);
  size_t pages = 0;
  for (int i = 0; i < 200 && !core_->Finished("default"); ++i) {  // 2 s < block
    for (auto& l : LeaseN(10)) {
      EXPECT_NE(l.crawl, "c2");
      if (l.kind == LeaseKind::kPage) {
        EXPECT_TRUE(leased.insert(l.url).second) << "leased twice: " << l.url;
        ++pages;
      }
      EXPECT_TRUE(Done(l, l.kind == LeaseKind::kRobots ? RobotsBody("") : Fetched()));
    }
    clock_.Advance(10);
  }
  EXPECT_FALSE(core_->Finished("default")) << "b.test is still blocked";
  clock_.Advance(100'000);
  for (int i = 0; i < 10; ++i) {
    for (auto& l : LeaseN(10)) {
      EXPECT_TRUE(Done(l, l.kind == LeaseKind::kRobots ? RobotsBody("") : Fetched()));
    }
    clock_.Advance(1'000);
  }
  EXPECT_TRUE(core_->Finished("default"));
  EXPECT_FALSE(core_->Finished("c2"));
  EXPECT_EQ(core_->Stats("default").urls_robots_blocked, 11u);  // /4, /40../49
  EXPECT_EQ(core_->Stats("default").urls_done, 51u);
}

// A clean close keeps the leases in flight: after the restart they hold
// their host (max_inflight_per_host, robots.txt first), take their results,
// renew, and expire after the time they had left at the close; the
// downtime does not count against them.
TEST_F(CrawlRestartTest, CleanRestartKeepsLeasesWithTheTimeTheyHadLeft) {
  Open(TestOptions());  // lease_timeout 10 s, delay 100 ms
  AddUrls({"http://a.test/1", "http://a.test/2", "http://b.test/1", "http://c.test/1"});
  std::vector<LeasedUrl> robots = LeaseN(3);
  ASSERT_EQ(robots.size(), 3u);
  for (auto& l : robots) ASSERT_EQ(l.kind, LeaseKind::kRobots) << l.url;
  EXPECT_TRUE(Done(robots[0], RobotsBody("")));
  EXPECT_TRUE(Done(robots[1], RobotsBody("")));
  const LeasedUrl open_robots = robots[2];
  clock_.Advance(100);
  std::vector<LeasedUrl> pages = LeaseN(3);
  ASSERT_EQ(pages.size(), 2u) << "the third host waits for its robots.txt";
  clock_.Advance(4'000);  // 6 s left on the pages, 5.9 s on robots.txt

  Close();
  clock_.Advance(60'000);  // the frontier is down for a minute
  Open(TestOptions());
  EXPECT_EQ(core_->Stats("").urls_inflight, 2u);
  EXPECT_EQ(core_->Stats("").urls_queued, 2u);
  EXPECT_TRUE(LeaseN(10).empty()) << "every host has a lease open";
  EXPECT_TRUE(Done(pages[0], Fetched())) << pages[0].url;
  EXPECT_TRUE(Done(open_robots, RobotsBody(""))) << open_robots.url;
  bool known = false;
  ASSERT_TRUE(core_->Renew("w1", pages[1].lease_id, 0, &known).ok());
  EXPECT_TRUE(known) << pages[1].url;
  EXPECT_FALSE(Done(pages[1], Fetched(), "w2")) << "another worker's lease";
  EXPECT_EQ(core_->Stats("").urls_done, 1u);

  const int64_t renewed_at = clock_.NowMs();

  // The other two pages come out once, with new ids; the renewed one not.
  std::set<std::string> rest;
  for (int i = 0; i < 20; ++i) {
    clock_.Advance(200);
    for (const LeasedUrl& l : LeaseN(10)) {
      EXPECT_EQ(l.kind, LeaseKind::kPage) << l.url;
      EXPECT_NE(l.lease_id, pages[0].lease_id);
      EXPECT_NE(l.lease_id, pages[1].lease_id);
      EXPECT_NE(l.url, pages[1].url) << "still leased";
      EXPECT_TRUE(rest.insert(l.url).second) << "leased twice: " << l.url;
      EXPECT_TRUE(Done(l, Fetched()));
    }
  }
  EXPECT_EQ(rest.size(), 2u);
  // The renewed lease expires lease_timeout after its renewal.
  size_t expired = 0;
  clock_.Set(renewed_at + 10'000);
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 0u);
  clock_.Advance(1);
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 1u);
  std::vector<LeasedUrl> again = LeaseN(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url, pages[1].url);
  EXPECT_EQ(again[0].attempt, 2u);
  EXPECT_TRUE(Done(again[0], Fetched()));
  EXPECT_TRUE(core_->Finished(""));
}

// Left unrenewed, a kept lease expires when the time it had left at the
// close is over, counted from the reopen.
TEST_F(CrawlRestartTest, KeptLeaseExpiresAfterTheTimeItHadLeft) {
  Open(NoRobotsOptions());  // lease_timeout 10 s
  AddUrls({"http://a.test/1"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  clock_.Advance(7'000);
  Close();
  clock_.Advance(3'600'000);
  Open(options_);
  size_t expired = 0;
  clock_.Advance(2'999);
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 0u);
  EXPECT_TRUE(LeaseN(1).empty());
  clock_.Advance(2);
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 1u);
  auto again = LeaseN(1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempt, 2u);
  EXPECT_FALSE(Done(l[0], Fetched())) << "expired";
  EXPECT_TRUE(Done(again[0], Fetched()));
  EXPECT_TRUE(core_->Finished(""));
}

// A kept lease whose page left kQueue behind the frontier's back: the open
// keeps no lease of that stop and counts the queues as after a crash.
TEST_F(CrawlRestartTest, KeptLeaseWithoutItsPageQueuesEveryLeaseAgain) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1", "http://b.test/1", "http://c.test/1"});
  auto leases = LeaseN(2);
  ASSERT_EQ(leases.size(), 2u);
  core_.reset();  // a clean close: both leases kept
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kLease)));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  StoredLease first;
  ASSERT_TRUE(DecodeStoredLease(it->value().ToStringView(), &first).ok());
  ASSERT_TRUE(store_->db()
                  ->Delete(rocksdb::WriteOptions(), store_->cf(Cf::kQueue), first.queue_key)
                  .ok());
  it.reset();
  Close();
  Open(NoRobotsOptions());
  EXPECT_EQ(core_->Stats("").urls_inflight, 0u);
  EXPECT_EQ(core_->Stats("").urls_queued, 2u) << "the missing page is gone";
  for (const LeasedUrl& l : leases) EXPECT_FALSE(Done(l, Fetched())) << l.url;
  std::set<std::string> again;
  for (const LeasedUrl& l : LeaseN(10)) {
    again.insert(l.url);
    EXPECT_TRUE(Done(l, Fetched()));
  }
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(again.count(first.rec.item.url), 0u);
  EXPECT_TRUE(core_->Finished(""));
}

// A crash keeps no lease made since the last lease check: the next open
// queues the page again, with its attempt unchanged, and the old lease id is
// unknown.
TEST_F(CrawlRestartTest, CrashQueuesLeasesAgain) {
  std::string lease_id;
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    AddUrls({"http://a.test/1"});
    auto l = LeaseN(1);
    if (l.size() != 1) child.Exit(4);
    if (!AddDurably("http://b.test/1")) child.Exit(5);
    child.Exit(0);
  });
  ASSERT_EQ(code, 0);
  Open(NoRobotsOptions());
  EXPECT_EQ(core_->Stats("").urls_inflight, 0u);
  auto again = LeaseN(10);
  ASSERT_EQ(again.size(), 2u);
  for (const LeasedUrl& l : again) EXPECT_EQ(l.attempt, 1u) << l.url;
  bool known = true;
  ASSERT_TRUE(core_->Done("w1", "L0000000000000001", Fetched(), &known).ok());
  EXPECT_FALSE(known);
}

// A lease check writes the leases still open; after a crash they are open
// again with the time they had left (their results count, their pages are
// not leased twice), while a lease made after the check is queued again, and
// one the check saved but a DONE then closed stays closed.
TEST_F(CrawlRestartTest, CrashKeepsTheLeasesTheLastCheckSaved) {
  const int64_t start = clock_.NowMs();
  std::string ids;
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    AddUrls({"http://a.test/1", "http://b.test/1", "http://c.test/1"});
    auto saved = LeaseN(2);
    if (saved.size() != 2) child.Exit(4);
    clock_.Advance(4000);  // 6 s of the 10 s lease_timeout left
    if (!core_->ExpireLeases().ok()) child.Exit(5);
    if (!Done(saved[1], Fetched())) child.Exit(6);
    auto later = LeaseN(1);
    if (later.size() != 1) child.Exit(7);
    if (!AddDurably("http://d.test/1")) child.Exit(8);
    child.Exit(0, LeasePair(saved[0], later[0]));
  }, &ids);
  ASSERT_EQ(code, 0);
  LeasedUrl kept, lost;
  ReadLeasePair(ids, &kept, &lost);
  clock_.Set(start + 4000);
  Open(NoRobotsOptions());
  EXPECT_EQ(core_->Stats("").urls_inflight, 1u);
  EXPECT_EQ(core_->Stats("").urls_done, 1u) << "the DONE after the check stays";
  auto again = LeaseN(10);
  std::set<std::string> urls;
  for (const LeasedUrl& l : again) urls.insert(l.url);
  EXPECT_EQ(urls, (std::set<std::string>{lost.url, "http://d.test/1"}));
  for (const LeasedUrl& l : again) EXPECT_EQ(l.attempt, 1u) << l.url;
  EXPECT_FALSE(Done(lost, Fetched())) << "made after the check";
  clock_.Advance(5900);
  ASSERT_TRUE(core_->ExpireLeases().ok());
  EXPECT_EQ(core_->Stats("").urls_inflight, 3u) << "the kept lease has 6 s";
  EXPECT_TRUE(Done(kept, Fetched()));
  for (const LeasedUrl& l : again) EXPECT_TRUE(Done(l, Fetched())) << l.url;
  EXPECT_TRUE(core_->Finished(""));
}

// RENEW writes its lease before it answers: a crash right after keeps the
// new deadline, for a lease a check had saved with the old one as for a
// lease no check saw.
TEST_F(CrawlRestartTest, CrashKeepsARenewedDeadline) {
  const int64_t start = clock_.NowMs();
  std::string ids;
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    AddUrls({"http://a.test/1", "http://b.test/1"});
    auto checked = LeaseN(1);
    if (checked.size() != 1 || !core_->ExpireLeases().ok()) child.Exit(4);  // saved: 10 s
    auto fresh = LeaseN(1);
    if (fresh.size() != 1) child.Exit(5);
    for (const LeasedUrl* l : {&checked[0], &fresh[0]}) {
      bool known = false;
      if (!core_->Renew("w1", l->lease_id, 60'000, &known).ok() || !known) child.Exit(6);
    }
    child.Exit(0, LeasePair(checked[0], fresh[0]));
  }, &ids);
  ASSERT_EQ(code, 0);
  LeasedUrl checked, fresh;
  ReadLeasePair(ids, &checked, &fresh);
  clock_.Set(start);
  Open(NoRobotsOptions());
  EXPECT_EQ(core_->Stats("").urls_inflight, 2u);
  EXPECT_TRUE(LeaseN(10).empty()) << "both hosts have their lease open";
  clock_.Advance(30'000);  // past the 10 s lease_timeout, within the renewal
  ASSERT_TRUE(core_->ExpireLeases().ok());
  EXPECT_EQ(core_->Stats("").urls_inflight, 2u);
  EXPECT_TRUE(Done(checked, Fetched())) << checked.url;
  EXPECT_TRUE(Done(fresh, Fetched())) << fresh.url;
  EXPECT_TRUE(core_->Finished(""));
}

// Sum of the queue counts in the host records on disk.
uint64_t StoredQueued(Store& store) {
  uint64_t n = 0;
  for (const auto& [host, r] : StoredHostRecords(store)) n += r.queued + r.scheduled + r.leased;
  return n;
}

// Adds rewrite no host record; a clean close writes them all and marks the
// close, which the next open takes back.
TEST_F(CrawlRestartTest, CleanCloseWritesTheCountsAndMarksIt) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1", "http://a.test/2", "http://b.test/1"});
  EXPECT_EQ(StoredQueued(*store_), 0u) << "an add writes no host record";
  EXPECT_FALSE(store_->GetMeta(kMetaClosedClean).ok());
  core_.reset();
  EXPECT_EQ(StoredQueued(*store_), 3u);
  EXPECT_TRUE(store_->GetMeta(kMetaClosedClean).ok());
  Close();
  Open(NoRobotsOptions());
  EXPECT_FALSE(store_->GetMeta(kMetaClosedClean).ok()) << "a crash from now on is not clean";
  EXPECT_EQ(core_->Stats("").urls_queued, 3u);
}

// A child adds URLs to a host with a budget and to a new host, reports one
// done, adds more and exits like a crash: its host records miss the adds.
// The next open counts the queues: every URL is queued once, and the budget
// counts every URL added.
TEST_F(CrawlRestartTest, CrashAfterAddsRecountsQueuesAndBudgets) {
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    if (!core_->SetHostBudget("", "a.test", 10).ok()) child.Exit(3);
    std::vector<std::string> urls = Urls("a.test", 0, 6);
    for (std::string& u : Urls("b.test", 0, 4)) urls.push_back(std::move(u));
    AddUrls(urls);
    auto l = LeaseN(1);
    if (l.size() != 1 || !Done(l[0], Fetched())) child.Exit(4);
    AddUrls({"http://a.test/6", "http://a.test/7"});
    if (!AddDurably("http://b.test/4")) child.Exit(5);
    child.Exit(0);  // no destructors: no clean close
  });
  ASSERT_EQ(code, 0);
  Open(NoRobotsOptions());
  EXPECT_EQ(core_->Stats("").urls_queued, 12u);  // 13 added, 1 done
  // The seen-set decides which URLs of a batch come first, so which one is
  // refused varies; how many does not.
  int fresh = 0, refused = 0;
  for (const AddResult& r : AddUrls({"http://a.test/8", "http://a.test/9", "http://a.test/10"})) {
    fresh += r.kind == AddResult::Kind::kNew;
    refused += r.reason == "host budget exhausted";
  }
  EXPECT_EQ(fresh, 2) << "8 of a.test's budget of 10 were used before the crash";
  EXPECT_EQ(refused, 1);
  std::set<std::string> leased;
  for (int i = 0; i < 20 && !core_->Finished(""); ++i) {
    for (auto& x : LeaseN(100)) {
      EXPECT_TRUE(leased.insert(x.url).second) << "leased twice: " << x.url;
      EXPECT_TRUE(Done(x, Fetched()));
    }
  }
  EXPECT_EQ(leased.size(), 14u);
  EXPECT_TRUE(core_->Finished(""));
}

// Sum of the done counts in the host records on disk.
uint64_t StoredDone(Store& store) {
  uint64_t n = 0;
  for (const auto& [host, r] : StoredHostRecords(store)) n += r.done;
  return n;
}

// A DONE rewrites the host record only for an entry added since the record
// was written. The child's first DONE (of an entry added after the budget's
// record) writes it; three more DONEs of older entries do not; two adds and
// a lease follow; then it exits like a crash. The next open finds the three
// entries gone and counts them done, and the two new ones as added: the
// budget counts 12 URLs, the host 4 done, 8 queued (the lease's again).
TEST_F(CrawlRestartTest, CrashAfterDonesOfOlderEntriesCountsThemFromTheQueue) {
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    if (!core_->SetHostBudget("", "a.test", 20).ok()) child.Exit(3);
    AddUrls(Urls("a.test", 0, 10));
    for (int i = 0; i < 4; ++i) {
      auto l = LeaseN(1);
      if (l.size() != 1 || !Done(l[0], Fetched())) child.Exit(4);
    }
    if (StoredDone(*store_) != 1) child.Exit(6);  // only the first DONE wrote it
    AddUrls({"http://a.test/10", "http://a.test/11"});
    if (LeaseN(1).size() != 1) child.Exit(7);
    if (!AddDurably("http://a.test/0")) child.Exit(5);
    child.Exit(0);  // no destructors: no clean close
  });
  ASSERT_EQ(code, 0) << "3: budget, 4: lease or done, 5: add, 6: DONEs wrote records, 7: lease";
  Open(NoRobotsOptions());
  CrawlStats s = core_->Stats("");
  EXPECT_EQ(s.urls_queued, 8u);
  EXPECT_EQ(s.urls_done, 4u);
  auto hosts = core_->ListHosts("default", 0);
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].done, 4u);
  EXPECT_EQ(hosts[0].queued, 8u);
  int fresh = 0, refused = 0;
  for (const AddResult& r : AddUrls(Urls("a.test", 12, 21))) {
    fresh += r.kind == AddResult::Kind::kNew;
    refused += r.reason == "host budget exhausted";
  }
  EXPECT_EQ(fresh, 8) << "12 of a.test's budget of 20 were used before the crash";
  EXPECT_EQ(refused, 1);
  core_.reset();  // a clean close writes what the open counted
  Reopen();
  hosts = core_->ListHosts("default", 0);
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].done, 4u);
  EXPECT_EQ(hosts[0].queued, 16u);
}

// The ready time a DONE sets reaches disk only with a later host record. A
// host fetched just before a crash waits its delay after the restart, not
// just what its last written record says.
TEST_F(CrawlRestartTest, CrashKeepsPolitenessOfDonesTheRecordMissed) {
  const int64_t start = clock_.NowMs();
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions(1000));
    AddUrls({"http://a.test/1", "http://a.test/2", "http://a.test/3"});
    auto first = LeaseN(1);  // its DONE writes the record: ready at start + 1000
    if (first.size() != 1 || !Done(first[0], Fetched())) child.Exit(4);
    clock_.Advance(1000);
    auto second = LeaseN(1);  // its DONE (ready at start + 2000) writes none
    if (second.size() != 1 || !Done(second[0], Fetched())) child.Exit(4);
    child.Exit(0);
  });
  ASSERT_EQ(code, 0);
  clock_.Set(start + 1001);
  Open(NoRobotsOptions(1000));
  EXPECT_TRUE(LeaseN(1).empty()) << "fetched 1 ms before the crash";
  clock_.Advance(999);
  EXPECT_TRUE(LeaseN(1).empty());
  clock_.Advance(1);
  EXPECT_EQ(LeaseN(1).size(), 1u);
}

// A child runs a random mix of adds, leases, DONEs (fetched, failed,
// retried), leases left open, expiries and clock steps over five hosts,
// makes it durable, reports each host's done, queued (+ in flight) and
// added counts, and exits like a crash. The next open must count the same.
TEST_F(CrawlRestartTest, CrashAfterRandomWorkRecountsEveryHost) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const int64_t start = clock_.NowMs();
    std::string expected;
    int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
      Open(NoRobotsOptions());
      std::mt19937 rng(seed);
      std::map<std::string, uint64_t> added;
      std::vector<LeasedUrl> open;
      int next_url = 0;
      for (int step = 0; step < 400; ++step) {
        const uint32_t op = rng() % 10;
        if (op < 4) {
          const std::string host = "h" + std::to_string(rng() % 5) + ".test";
          std::vector<std::string> urls;
          for (uint32_t k = 0; k <= rng() % 4; ++k) {
            urls.push_back("http://" + host + "/" + std::to_string(next_url++));
          }
          for (const AddResult& r : AddUrls(urls)) added[host] += r.kind == AddResult::Kind::kNew;
        } else if (op < 8) {
          for (LeasedUrl& l : LeaseN(1 + rng() % 3)) {
            const uint32_t r = rng() % 10;
            DoneReport report = Fetched();
            if (r == 6) report.outcome = DoneOutcome::kFailed;
            if (r == 7) report.outcome = DoneOutcome::kRetry;
            if (r >= 8) {
              open.push_back(std::move(l));
            } else {
              Done(l, report);
            }
          }
        } else if (op == 8) {
          for (size_t i = 0; i < open.size(); i += 2) Done(open[i], Fetched());
          open.clear();  // the rest expire or stay in flight
        } else {
          clock_.Advance(1500);  // retries come due; old leases expire
          size_t expired = 0;
          if (!core_->ExpireLeases(&expired).ok()) child.Exit(4);
        }
      }
      AddResult last;
      if (!AddDurably("http://h0.test/last", &last)) child.Exit(5);
      added["h0.test"] += last.kind == AddResult::Kind::kNew;
      std::string report = std::to_string(clock_.NowMs() - start) + "\n";
      for (const HostInfo& h : core_->ListHosts("default", 0)) {
        report += h.host + " " + std::to_string(h.done) + " " +
                  std::to_string(h.queued + h.inflight) + " " + std::to_string(added[h.host]) +
                  "\n";
      }
      child.Exit(0, report);
    }, &expected);
    ASSERT_EQ(code, 0) << "seed " << seed;
    std::istringstream in(expected);
    int64_t elapsed = 0;
    in >> elapsed;
    clock_.Set(start + elapsed);
    Open(NoRobotsOptions());
    std::map<std::string, HostInfo> found;
    for (const HostInfo& h : core_->ListHosts("default", 0)) found[h.host] = h;
    core_.reset();  // a clean close writes the counted records
    const std::map<std::string, HostRecord> stored = StoredHostRecords(*store_);
    size_t hosts = 0;
    std::string host;
    uint64_t done, queued, added;
    while (in >> host >> done >> queued >> added) {
      ++hosts;
      ASSERT_TRUE(found.count(host)) << "seed " << seed << " " << host;
      EXPECT_EQ(found[host].done, done) << "seed " << seed << " " << host;
      // Leases the last check saved are open again, the rest queued again.
      EXPECT_EQ(found[host].queued + found[host].inflight, queued)
          << "seed " << seed << " " << host;
      ASSERT_TRUE(stored.count(host)) << "seed " << seed << " " << host;
      EXPECT_EQ(stored.at(host).added, added) << "seed " << seed << " " << host;
    }
    EXPECT_EQ(hosts, 5u) << "seed " << seed;
    Close();
    std::filesystem::remove_all(dir_.path());  // the next seed starts empty
  }
}

// URL j (of 50, over 7 hosts) of the killed child's batch b.
std::string BatchUrl(uint64_t b, int j) {
  return "http://h" + std::to_string(j % 7) + ".test/" + std::to_string(b) + "/" +
         std::to_string(j);
}

// No snapshot timer: what the child acked after its open comes back from the log.
SeenSetOptions NoTimerSeenOptions() {
  SeenSetOptions so;
  so.partitions = 16;
  so.snapshot_interval = std::chrono::milliseconds(0);
  return so;
}

// Opens a crawl core in `dir` and returns a step that adds batch b and
// leases 3 URLs; empty when the open failed.
testing::CrashStep AddAndLeaseStep(const std::string& dir) {
  auto store = Store::Open(dir, StoreOptions{});
  if (!store.ok()) return {};
  auto seen = SeenSet::Open(store->get(), NoTimerSeenOptions());
  if (!seen.ok()) return {};
  auto core =
      CrawlCore::Open(store->get(), seen->get(), NoRobotsOptions(0), Clock::Real());
  if (!core.ok()) return {};
  std::shared_ptr<Store> store_owner = std::move(store).value();
  std::shared_ptr<SeenSet> seen_owner = std::move(seen).value();
  std::shared_ptr<CrawlCore> owner = std::move(core).value();
  return [store_owner, seen_owner, owner](uint64_t b) {
    std::vector<AddRequest> reqs;
    for (int j = 0; j < 50; ++j) reqs.push_back({BatchUrl(b, j), 0, 0, "", 0});
    std::vector<AddResult> out;
    std::vector<LeasedUrl> leases;
    return owner->Add("", reqs, &out).ok() && owner->Lease("w", 3, "", &leases).ok();
  };
}

// A child adds URLs in batches and leases some, reporting each acknowledged
// batch on a pipe, and is SIGKILLed at a random moment. After reopening,
// every acknowledged URL is seen and comes out of the queue exactly once.
TEST_F(CrawlRestartTest, KilledProcessLosesNoAckedUrl) {
  for (int round = 0; round < 3; ++round) {
    CrawlTempDir dir;
    testing::KilledChild child = testing::RunUntilKilled(
        [&] { return AddAndLeaseStep(dir.path()); }, 20 + 37 * round);
    ASSERT_TRUE(child.killed) << child.error;
    const uint64_t acked = child.acked;

    auto store = Store::Open(dir.path(), StoreOptions{});
    ASSERT_TRUE(store.ok());
    auto seen = SeenSet::Open(store->get(), NoTimerSeenOptions());
    ASSERT_TRUE(seen.ok());
    clock_.Set(Clock::Real()->NowMs() + 1000);  // past the child's real-time leases
    auto core = CrawlCore::Open(store->get(), seen->get(), NoRobotsOptions(0), &clock_);
    ASSERT_TRUE(core.ok()) << core.status().ToString();
    CrawlStats s = (*core)->Stats("");
    EXPECT_GE(s.urls_seen, acked * 50);
    EXPECT_EQ(s.urls_inflight, 0u);
    EXPECT_EQ(s.urls_queued, s.urls_seen) << "nothing was done, everything waits";
    std::set<std::string> out;
    for (int i = 0; i < 100'000 && out.size() < s.urls_seen; ++i) {
      std::vector<LeasedUrl> leases;
      ASSERT_TRUE((*core)->Lease("w", 100, "", &leases).ok());
      if (leases.empty()) break;
      for (auto& l : leases) {
        EXPECT_TRUE(out.insert(l.url).second) << "duplicate " << l.url;
        bool known;
        ASSERT_TRUE((*core)->Done("w", l.lease_id, Fetched(), &known).ok());
      }
    }
    EXPECT_EQ(out.size(), s.urls_seen);
    for (uint64_t b = 0; b < acked; ++b) {
      for (int j = 0; j < 50; j += 13) {
        EXPECT_TRUE(out.count(BatchUrl(b, j))) << "lost acked URL " << BatchUrl(b, j);
      }
    }
    EXPECT_TRUE((*core)->Finished(""));
  }
}

// An open whose count fails (a queue key no version writes) fails, and its
// close marks nothing: the next open counts again instead of trusting
// records the failed one left half done.
TEST_F(CrawlRestartTest, FailedCountLeavesNoCleanMark) {
  int code = testing::RunLikeCrash([&](const testing::ChildExit& child) {
    Open(NoRobotsOptions());
    AddUrls({"http://a.test/1"});
    child.Exit(0);  // no clean close
  });
  ASSERT_EQ(code, 0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto store = Store::Open(dir_.path(), StoreOptions{});
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->db()->Put(rocksdb::WriteOptions(), (*store)->cf(Cf::kQueue),
                                    std::string("\xff\xff", 2), "x").ok());
    auto seen = SeenSet::Open(store->get(), NoTimerSeenOptions());
    ASSERT_TRUE(seen.ok());
    auto core = CrawlCore::Open(store->get(), seen->get(), NoRobotsOptions(), &clock_);
    EXPECT_EQ(core.status().code(), Status::Code::kCorruption) << "attempt " << attempt;
    EXPECT_FALSE((*store)->GetMeta(kMetaClosedClean).ok()) << "attempt " << attempt;
  }
}

}  // namespace
}  // namespace crawlfront
