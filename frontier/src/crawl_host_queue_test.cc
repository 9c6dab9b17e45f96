// PeekHost (FRONTIER.QUEUE) shows a host's queue in lease order; DropHost
// (FRONTIER.DROP) deletes its ready and scheduled URLs, keeps its leases in
// flight, and counters follow, across restarts too. DropCrawl
// (FRONTIER.DROPCRAWL) does the same for every host of one crawl only.

#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

CrawlOptions DropOptions() {
  CrawlOptions o = NoRobotsOptions(0);
  o.max_inflight_per_host = 100;
  return o;
}

std::vector<std::string> Urls(const std::string& host, int n) {
  std::vector<std::string> urls;
  for (int i = 0; i < n; ++i) urls.push_back("http://" + host + "/" + std::to_string(i));
  return urls;
}

std::set<std::string> UrlSet(std::vector<std::string> urls) {
  return std::set<std::string>(urls.begin(), urls.end());
}

class CrawlHostQueueTest : public CrawlFixture {
 protected:
  // Leases everything ready (of one crawl, or all) and returns the URLs
  // (leases stay open).
  std::set<std::string> LeaseAll(std::string_view crawl = "") {
    std::set<std::string> got;
    for (int round = 0; round < 100; ++round) {
      auto leased = LeaseN(50, "w1", crawl);
      if (leased.empty()) break;
      for (const auto& l : leased) got.insert(l.url);
    }
    return got;
  }
  uint64_t Drop(std::string_view host, std::string_view crawl = "") {
    uint64_t n = 12345;
    Status s = core_->DropHost(crawl, host, &n);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return n;
  }
};

TEST_F(CrawlHostQueueTest, DropsReadyAndScheduledKeepsLeasesInFlight) {
  Open(DropOptions());
  AddUrls(Urls("a.test", 20));
  auto first = LeaseN(1);
  ASSERT_EQ(first.size(), 1u);
  DoneReport retry;
  retry.outcome = DoneOutcome::kRetry;
  retry.retry_delay_ms = 60'000;
  ASSERT_TRUE(Done(first[0], retry));  // now a scheduled entry
  auto open = LeaseN(1);               // in flight during the drop
  ASSERT_EQ(open.size(), 1u);
  AddUrls(Urls("b.test", 5));
  CrawlStats before = core_->Stats("");
  ASSERT_EQ(before.urls_queued, 18u + 1u + 5u);

  EXPECT_EQ(Drop("A.TEST"), 19u) << "18 ready and 1 scheduled; host names as typed";
  CrawlStats after = core_->Stats("");
  EXPECT_EQ(after.urls_queued, 5u);
  EXPECT_EQ(after.urls_inflight, 1u);
  EXPECT_EQ(after.urls_dropped, 19u);
  EXPECT_EQ(after.urls_done, before.urls_done + 19u);
  EXPECT_EQ(after.urls_seen, before.urls_seen);
  EXPECT_EQ(Drop("a.test"), 0u) << "nothing left to drop";

  std::set<std::string> leased = LeaseAll();
  EXPECT_EQ(leased, UrlSet(Urls("b.test", 5)));
  EXPECT_TRUE(Done(open[0], Fetched())) << "the lease in flight ends normally";
  clock_.Advance(120'000);  // past the dropped retry's due time
  EXPECT_TRUE(LeaseAll().empty()) << "the scheduled retry went too";

  auto again = AddUrls({"http://a.test/7"});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].kind, AddResult::Kind::kSeen) << "dropped URLs stay seen";
  // What docs/operations.md tells operators to do next: budget 1.
  ASSERT_TRUE(core_->SetHostBudget("", "a.test", 1).ok());
  auto fresh = AddUrls({"http://a.test/new"});
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].kind, AddResult::Kind::kRejected);
  EXPECT_EQ(fresh[0].reason, "host budget exhausted");
}

TEST_F(CrawlHostQueueTest, SurvivesRestartWithTheLeaseInFlightKept) {
  Open(DropOptions());
  AddUrls(Urls("a.test", 30));
  AddUrls(Urls("b.test", 4));
  auto open = LeaseN(1);
  ASSERT_EQ(open.size(), 1u);
  const std::string host = open[0].url.substr(7, 6);  // "a.test" or "b.test"
  const uint64_t expect = host == "a.test" ? 29u : 3u;
  EXPECT_EQ(Drop(host), expect);
  CrawlStats before = core_->Stats("");
  // The range deletion and the kept entry go to an SST file, not only the WAL.
  ASSERT_TRUE(store_->db()->Flush(rocksdb::FlushOptions(), store_->cf(Cf::kQueue)).ok());

  Reopen();  // the lease is still open, its entry kept; nothing else is back
  CrawlStats after = core_->Stats("");
  EXPECT_EQ(after.urls_dropped, expect);
  EXPECT_EQ(after.urls_done, before.urls_done);
  EXPECT_EQ(after.urls_queued, before.urls_queued);
  EXPECT_EQ(after.urls_inflight, 1u);
  const std::string other = host == "a.test" ? "b.test" : "a.test";
  EXPECT_EQ(LeaseAll(), UrlSet(Urls(other, other == "a.test" ? 30 : 4)));
  EXPECT_TRUE(Done(open[0], Fetched())) << open[0].url;
  EXPECT_EQ(core_->Stats("").urls_done, before.urls_done + 1);
}

TEST_F(CrawlHostQueueTest, DropsUncommittedAddsOfTheSameGroupCommit) {
  Open(DropOptions());
  std::vector<AddRequest> reqs;
  for (const auto& u : Urls("a.test", 10)) reqs.push_back(AddRequest{u, 0, 0, "", 0});
  std::vector<AddResult> out;
  uint64_t ticket = 0;
  ASSERT_TRUE(core_->Add("default", reqs, &out, &ticket).ok());  // not yet synced
  EXPECT_EQ(Drop("a.test"), 10u);
  ASSERT_TRUE(core_->Sync(ticket).ok());
  Reopen();
  EXPECT_EQ(core_->Stats("").urls_queued, 0u);
  EXPECT_TRUE(LeaseAll().empty());
  EXPECT_TRUE(core_->Finished("default"));
}

TEST_F(CrawlHostQueueTest, PeekShowsLeaseOrderStatesAndDueTimes) {
  Open(DropOptions());
  std::vector<AddRequest> reqs = {
      {"http://a.test/plain", 0, 0, "http://seed.test/", 0},
      {"http://a.test/deep", 3, 0, "", 0},
      {"http://a.test/urgent", 1, 7, "", 0},
      {"http://a.test/later", 0, 0, "", 0},
  };
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("default", reqs, &out).ok());
  auto urgent = LeaseN(1);  // priority 7 goes first
  ASSERT_EQ(urgent.size(), 1u);
  ASSERT_EQ(urgent[0].url, "http://a.test/urgent");
  auto plain = LeaseN(1);
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(plain[0].url, "http://a.test/plain");
  DoneReport retry;
  retry.outcome = DoneOutcome::kRetry;
  retry.retry_delay_ms = 60'000;
  const int64_t retried_at = clock_.NowMs();
  ASSERT_TRUE(Done(plain[0], retry));

  std::vector<QueuedUrl> q;
  ASSERT_TRUE(core_->PeekHost("", "a.test", 100, &q).ok());
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0].url, "http://a.test/urgent");
  EXPECT_EQ(q[0].state, QueuedUrl::State::kLeased);
  EXPECT_EQ(q[0].priority, 7);
  EXPECT_EQ(q[1].url, "http://a.test/later") << "depth 0 before depth 3";
  EXPECT_EQ(q[1].state, QueuedUrl::State::kReady);
  EXPECT_EQ(q[2].url, "http://a.test/deep");
  EXPECT_EQ(q[2].depth, 3u);
  EXPECT_EQ(q[3].url, "http://a.test/plain");
  EXPECT_EQ(q[3].state, QueuedUrl::State::kScheduled);
  EXPECT_EQ(q[3].attempt, 2u);
  EXPECT_EQ(q[3].parent, "http://seed.test/");
  EXPECT_GE(q[3].due_ms, retried_at + 60'000);

  ASSERT_TRUE(core_->PeekHost("", "a.test", 2, &q).ok());
  EXPECT_EQ(q.size(), 2u);
  ASSERT_TRUE(core_->PeekHost("", "b.test", 100, &q).ok());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(core_->ListHosts("", 0).size(), 1u) << "peeking creates no host";
}

// FRONTIER.HOSTS and the status page: larger queues first, ties in the
// order the hosts appeared, only the crawl asked for, at most top_n.
TEST_F(CrawlHostQueueTest, ListHostsRanksByQueueSize) {
  Open(DropOptions());
  const std::vector<std::pair<std::string, int>> sizes = {
      {"a.test", 3}, {"b.test", 5}, {"c.test", 3}, {"d.test", 1}, {"e.test", 5}};
  for (const auto& [host, n] : sizes) AddUrls(Urls(host, n));
  AddUrls(Urls("big.test", 6), "other");
  auto names = [](const std::vector<HostInfo>& hosts) {
    std::vector<std::string> out;
    for (const HostInfo& h : hosts) out.push_back(h.host + "=" + std::to_string(h.queued));
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(core_->ListHosts(kDefaultCrawl, 0)),
            (Names{"b.test=5", "e.test=5", "a.test=3", "c.test=3", "d.test=1"}));
  EXPECT_EQ(names(core_->ListHosts(kDefaultCrawl, 3)),
            (Names{"b.test=5", "e.test=5", "a.test=3"}));
  EXPECT_EQ(names(core_->ListHosts("", 2)), (Names{"big.test=6", "b.test=5"}));
  EXPECT_EQ(names(core_->ListHosts("other", 10)), (Names{"big.test=6"}));
}

// FRONTIER.SCAN pages through one crawl's queues across partitions (the
// fixture has 16): every entry once, with its state and host, whatever the
// page size, and no entry of another crawl; a URL queued between pages is
// listed at most once.
TEST_F(CrawlHostQueueTest, ScanListsEveryQueuedUrlOfOneCrawlOnce) {
  Open(DropOptions());
  std::set<std::string> want;
  for (int h = 0; h < 40; ++h) {
    const std::string host = "h" + std::to_string(h) + ".test";
    auto urls = Urls(host, 1 + h % 5);
    AddUrls(urls);
    AddUrls(Urls(host, 3), "other");
    want.insert(urls.begin(), urls.end());
    // Half the hosts in table files, half in the memtable: a scan reads both.
    if (h == 20) {
      ASSERT_TRUE(store_->db()->Flush({}, store_->cf(Cf::kQueue)).ok());
    }
  }
  std::vector<AddRequest> later{
      AddRequest{"http://h0.test/later", 0, 0, "", clock_.NowMs() + 60'000}};
  std::vector<AddResult> res;
  ASSERT_TRUE(core_->Add("", later, &res).ok());
  want.insert("http://h0.test/later");
  auto leased = LeaseN(1);
  ASSERT_EQ(leased.size(), 1u);
  for (size_t page : {1, 7, 10000}) {
    std::map<std::string, ScannedUrl> got;
    std::string cursor;
    int calls = 0;
    do {
      std::vector<ScannedUrl> out;
      std::string next;
      ASSERT_TRUE(core_->ScanQueues("", cursor, page, nullptr, &out, &next).ok());
      ASSERT_LE(out.size(), page);
      for (ScannedUrl& e : out) {
        const std::string url = e.entry.url;
        EXPECT_TRUE(got.emplace(url, std::move(e)).second) << url << " listed twice";
      }
      if (calls++ == 3) AddUrls({"http://h1.test/between"});  // listed or not: not checked
      cursor = next;
    } while (!cursor.empty() && calls < 10000);
    got.erase("http://h1.test/between");
    std::set<std::string> urls;
    for (const auto& [url, e] : got) urls.insert(url);
    EXPECT_EQ(urls, want) << "page " << page;
    EXPECT_EQ(got.at(leased[0].url).entry.state, QueuedUrl::State::kLeased);
    EXPECT_EQ(got.at("http://h0.test/later").entry.state, QueuedUrl::State::kScheduled);
    EXPECT_EQ(got.at("http://h3.test/2").host, "h3.test");
  }
  std::vector<ScannedUrl> out;
  std::string next;
  EXPECT_TRUE(core_->ScanQueues("nocrawl", "", 10, nullptr, &out, &next).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(next.empty());
  ASSERT_TRUE(core_->ScanQueues("", "", 3, nullptr, &out, &next).ok());
  ASSERT_FALSE(next.empty());
  EXPECT_EQ(core_->ScanQueues("other", next, 3, nullptr, &out, &next).code(),
            Status::Code::kInvalidArgument)
      << "a cursor of another crawl";
  EXPECT_EQ(core_->ScanQueues("", "\x01", 3, nullptr, &out, &next).code(),
            Status::Code::kInvalidArgument);

  // MATCH: pages of 7 entries read, only the matching ones returned.
  auto match = UrlPattern::Compile("^http://h1[0-9]\\.test/[13]$");
  ASSERT_TRUE(match.ok()) << match.status().ToString();
  std::set<std::string> matched, want_matched;
  for (const std::string& url : want) {
    if (match->Search(url)) want_matched.insert(url);
  }
  ASSERT_FALSE(want_matched.empty());
  std::string cursor;
  size_t empty_pages = 0;
  do {
    ASSERT_TRUE(core_->ScanQueues("", cursor, 7, &*match, &out, &next).ok());
    empty_pages += out.empty() && !next.empty();
    for (const ScannedUrl& e : out) EXPECT_TRUE(matched.insert(e.entry.url).second);
    cursor = next;
  } while (!cursor.empty());
  EXPECT_EQ(matched, want_matched);
  EXPECT_GT(empty_pages, 0u) << "pages count entries read, not matches";
}

TEST_F(CrawlHostQueueTest, UnknownHostOrCrawlDropsNothingAndCreatesNothing) {
  Open(DropOptions());
  AddUrls(Urls("a.test", 3));
  EXPECT_EQ(Drop("nowhere.test"), 0u);
  EXPECT_EQ(Drop("a.test", "othercrawl"), 0u);
  EXPECT_EQ(core_->ListHosts("", 0).size(), 1u);
  EXPECT_EQ(core_->Crawls().size(), 1u);
  uint64_t n = 0;
  EXPECT_EQ(core_->DropHost("", "a b", &n).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(core_->DropHost("bad crawl!", "a.test", &n).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(core_->Stats("").urls_queued, 3u);
}

// 6000 entries: the scan runs in two chunks. Matching entries go whether in
// the RAM heads, ready on disk or scheduled; a leased one stays.
TEST_F(CrawlHostQueueTest, DropMatchingDeletesOnlyMatchingUrlsOfTheHost) {
  CrawlOptions o = DropOptions();
  o.head_buffer = 64;  // trap URLs wait in the RAM heads during the drop
  Open(o);
  std::vector<std::string> trap, good;
  for (int i = 0; i < 3000; ++i) {
    trap.push_back("http://a.test/cal/" + std::to_string(i));
    good.push_back("http://a.test/page/" + std::to_string(i));
  }
  std::vector<std::string> mixed;
  for (int i = 0; i < 3000; ++i) {
    mixed.push_back(trap[i]);
    mixed.push_back(good[i]);
  }
  AddUrls(mixed);
  auto to_retry = LeaseN(1);  // cal/0, leased first: the heads are filled now
  auto open = LeaseN(1);      // page/0, a good one in flight
  auto leased_trap = LeaseN(1);  // cal/1, a trap entry in flight
  ASSERT_EQ(to_retry.size() + open.size() + leased_trap.size(), 3u);
  ASSERT_EQ(to_retry[0].url, trap[0]);
  ASSERT_EQ(open[0].url, good[0]);
  ASSERT_EQ(leased_trap[0].url, trap[1]);
  DoneReport retry;
  retry.outcome = DoneOutcome::kRetry;
  retry.retry_delay_ms = 60'000;
  ASSERT_TRUE(Done(to_retry[0], retry));  // a scheduled trap entry
  AddUrls({"http://b.test/cal/1"});

  uint64_t n = 0;
  ASSERT_TRUE(core_->DropHostMatching("", "a.test", UrlPattern::Compile("/cal/[0-9]+$").value(), &n).ok());
  EXPECT_EQ(n, 2999u) << "3000 trap URLs but the one in flight";
  CrawlStats st = core_->Stats("");
  EXPECT_EQ(st.urls_queued, 2999u + 1u) << "the good ones but the one in flight, and b.test's";
  EXPECT_EQ(st.urls_dropped, 2999u);

  ASSERT_TRUE(Done(leased_trap[0], Fetched()));
  ASSERT_TRUE(Done(open[0], Fetched()));
  std::set<std::string> rest;
  for (const auto& l : LeaseN(50)) {  // from the RAM heads, refilled
    EXPECT_EQ(l.url.find("a.test/cal/"), std::string::npos) << l.url;
    rest.insert(l.url);
    ASSERT_TRUE(Done(l, Fetched()));
  }
  ASSERT_TRUE(store_->db()->Flush(rocksdb::FlushOptions(), store_->cf(Cf::kQueue)).ok());
  Reopen();
  clock_.Advance(120'000);  // past the dropped retry's due time
  for (int round = 0; round < 1000; ++round) {
    auto leased = LeaseN(100);
    if (leased.empty()) break;
    for (const auto& l : leased) {
      rest.insert(l.url);
      ASSERT_TRUE(Done(l, Fetched()));
    }
  }
  std::set<std::string> want(good.begin() + 1, good.end());  // page/0 was done
  want.insert("http://b.test/cal/1");
  EXPECT_EQ(rest, want) << "good URLs and the other host's trap-like one";
  EXPECT_TRUE(core_->Finished("default"));
}

// Every entry is read once across the scan's chunks (4096 entries each).
TEST_F(CrawlHostQueueTest, DropMatchingReadsEveryEntryAcrossChunks) {
  Open(DropOptions());
  AddUrls(Urls("a.test", 9000));
  uint64_t n = 0;
  ASSERT_TRUE(core_->DropHostMatching("", "a.test", UrlPattern::Compile("/[0-9]+$").value(), &n).ok());
  EXPECT_EQ(n, 9000u);
  EXPECT_EQ(core_->Stats("").urls_queued, 0u);
  EXPECT_TRUE(LeaseAll().empty());
  ASSERT_TRUE(core_->DropHostMatching("", "nowhere.test", UrlPattern::Compile(".").value(), &n).ok());
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(core_->DropHostMatching("", "a b", UrlPattern::Compile(".").value(), &n).code(),
            Status::Code::kInvalidArgument);
}

// URLs queued while the scan runs, at keys it has already passed (a higher
// priority; a retried lease keeping its place), are dropped too: when the
// call returns no queued URL of the host matches. Fails without the log of
// keys queued during the scan.
TEST_F(CrawlHostQueueTest, DropMatchingCatchesUrlsQueuedDuringTheScan) {
  Open(DropOptions());
  std::vector<std::string> urls;
  for (int i = 0; i < 9000; ++i) urls.push_back("http://a.test/drop/" + std::to_string(i));
  AddUrls(urls);
  auto leased = LeaseN(1);  // drop/0, the first key: skipped by the scan
  ASSERT_EQ(leased.size(), 1u);
  int calls = 0;
  std::vector<std::string> keep;
  core_->SetBetweenDropChunksForTest([&] {
    if (calls++ > 0) return;
    std::vector<AddRequest> late;
    for (int i = 0; i < 50; ++i) {
      late.push_back(AddRequest{"http://a.test/drop/late" + std::to_string(i), 0, 10, "", 0});
      keep.push_back("http://a.test/keep/" + std::to_string(i));
      late.push_back(AddRequest{keep.back(), 0, 10, "", 0});
    }
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add("", late, &out).ok());
    DoneReport retry;
    retry.outcome = DoneOutcome::kRetry;
    retry.retry_delay_ms = 0;
    ASSERT_TRUE(Done(leased[0], retry));  // requeued behind the cursor
  });
  uint64_t n = 0;
  ASSERT_TRUE(core_->DropHostMatching("", "a.test", UrlPattern::Compile("/drop/").value(), &n).ok());
  core_->SetBetweenDropChunksForTest(nullptr);
  EXPECT_EQ(calls, 2) << "9000 entries: three chunks";
  EXPECT_EQ(n, 9050u) << "the 9000 (the retried one too) and the 50 late ones";
  CrawlStats st = core_->Stats("");
  EXPECT_EQ(st.urls_queued, 50u);
  EXPECT_EQ(st.urls_dropped, 9050u);
  clock_.Advance(3'600'000);  // past any retry backoff
  EXPECT_EQ(LeaseAll(), std::set<std::string>(keep.begin(), keep.end()));
}

// Crawl ids that share a prefix ("a", "aa") and hosts that share names
// across crawls: the drop's per-partition ranges must cover exactly one
// crawl's queue keys.
TEST_F(CrawlHostQueueTest, DropCrawlDeletesOneCrawlsQueuesAcrossPartitions) {
  Open(DropOptions());
  std::vector<std::string> a_urls, aa_urls;
  for (int h = 0; h < 40; ++h) {  // 40 hosts over the fixture's 16 partitions
    for (const auto& u : Urls("h" + std::to_string(h) + ".test", 3)) {
      a_urls.push_back(u);
      aa_urls.push_back(u + "?aa");
    }
  }
  AddUrls(a_urls, "a");
  AddUrls(aa_urls, "aa");
  AddUrls(Urls("h0.test", 2));  // the default crawl
  auto open = LeaseN(1, "w1", "a");
  ASSERT_EQ(open.size(), 1u);
  DoneReport retry;
  retry.outcome = DoneOutcome::kRetry;
  retry.retry_delay_ms = 60'000;
  auto retried = LeaseN(1, "w1", "a");
  ASSERT_EQ(retried.size(), 1u);
  ASSERT_TRUE(Done(retried[0], retry));  // a scheduled entry of crawl a
  const CrawlStats aa_before = core_->Stats("aa");

  uint64_t n = 0;
  ASSERT_TRUE(core_->DropCrawl("a", &n).ok());
  EXPECT_EQ(n, 119u) << "120 URLs, one in flight";
  CrawlStats a = core_->Stats("a");
  EXPECT_EQ(a.urls_queued, 0u);
  EXPECT_EQ(a.urls_inflight, 1u);
  EXPECT_EQ(a.urls_dropped, 119u);
  EXPECT_EQ(a.urls_seen, 120u);
  CrawlStats aa = core_->Stats("aa");
  EXPECT_EQ(aa.urls_queued, aa_before.urls_queued);
  EXPECT_EQ(aa.urls_dropped, 0u);
  ASSERT_TRUE(core_->DropCrawl("nope", &n).ok());
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(core_->Crawls().size(), 3u) << "an unknown crawl is not created";
  EXPECT_EQ(core_->DropCrawl("bad id!", &n).code(), Status::Code::kInvalidArgument);

  EXPECT_TRUE(Done(open[0], Fetched())) << "the lease in flight ends normally";
  clock_.Advance(120'000);  // past the dropped retry's due time
  EXPECT_TRUE(LeaseAll("a").empty());
  EXPECT_TRUE(core_->Finished("a"));
  auto again = AddUrls({a_urls[5]}, "a");
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].kind, AddResult::Kind::kSeen) << "dropped URLs stay seen";

  ASSERT_TRUE(store_->db()->Flush(rocksdb::FlushOptions(), store_->cf(Cf::kQueue)).ok());
  Reopen();
  EXPECT_EQ(core_->Stats("a").urls_queued, 0u);
  EXPECT_EQ(core_->Stats("a").urls_dropped, 119u);
  EXPECT_TRUE(LeaseAll("a").empty());
  EXPECT_EQ(LeaseAll("aa"), UrlSet(aa_urls)) << "the other crawl keeps every URL";
  EXPECT_EQ(LeaseAll(), UrlSet(Urls("h0.test", 2)));
}

TEST_F(CrawlHostQueueTest, DropCrawlKeepsTheLeaseInFlightAcrossARestart) {
  Open(DropOptions());
  AddUrls(Urls("a.test", 10), "c");
  AddUrls(Urls("b.test", 10), "c");
  auto open = LeaseN(1, "w1", "c");
  ASSERT_EQ(open.size(), 1u);
  uint64_t n = 0;
  ASSERT_TRUE(core_->DropCrawl("c", &n).ok());
  EXPECT_EQ(n, 19u);
  ASSERT_TRUE(store_->db()->Flush(rocksdb::FlushOptions(), store_->cf(Cf::kQueue)).ok());
  Reopen();  // the lease is still open; nothing else is back
  EXPECT_TRUE(LeaseAll("c").empty());
  EXPECT_FALSE(core_->Finished("c"));
  EXPECT_TRUE(Done(open[0], Fetched())) << open[0].url;
  EXPECT_TRUE(core_->Finished("c"));
}

TEST_F(CrawlHostQueueTest, ListCrawlsShowsEachCrawlsStateAndCounters) {
  Open(DropOptions());
  AddUrls(Urls("a.test", 3), "x");
  AddUrls(Urls("a.test", 2), "y");
  ASSERT_TRUE(core_->Pause("y").ok());
  auto l = LeaseN(1, "w1", "x");
  ASSERT_EQ(l.size(), 1u);
  auto crawls = core_->ListCrawls();
  ASSERT_EQ(crawls.size(), 2u);
  EXPECT_EQ(crawls[0].id, "x");
  EXPECT_FALSE(crawls[0].paused);
  EXPECT_EQ(crawls[0].stats.urls_queued, 2u);
  EXPECT_EQ(crawls[0].stats.urls_inflight, 1u);
  EXPECT_EQ(crawls[1].id, "y");
  EXPECT_TRUE(crawls[1].paused);
  EXPECT_EQ(crawls[1].stats.urls_seen, 2u);
  EXPECT_FALSE(crawls[1].finished);
  ASSERT_TRUE(core_->Pause("").ok());
  EXPECT_TRUE(core_->ListCrawls()[0].paused) << "a pause of every crawl counts";
}

}  // namespace
}  // namespace crawlfront
