// Leasing: robots first, politeness, inflight limits, fairness, expiry,
// retries, Finished().

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class LeaseTest : public CrawlFixture {};

TEST_F(LeaseTest, RobotsLeaseComesFirstThenPages) {
  Open();
  AddUrls({"http://a.test/1", "http://a.test/2"});
  auto l = LeaseN(10);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].kind, LeaseKind::kRobots);
  EXPECT_EQ(l[0].url, "http://a.test/robots.txt");
  clock_.Advance(1000);
  EXPECT_TRUE(LeaseN(10).empty()) << "no page before the robots result";
  EXPECT_TRUE(Done(l[0], RobotsBody("User-agent: *\nDisallow:\n")));
  clock_.Advance(100);  // the delay after the robots fetch, reported as 0 ms long
  auto pages = LeaseN(10);
  ASSERT_EQ(pages.size(), 1u);
  EXPECT_EQ(pages[0].kind, LeaseKind::kPage);
  EXPECT_EQ(pages[0].url, "http://a.test/1");
  EXPECT_EQ(pages[0].attempt, 1u);
  EXPECT_EQ(core_->ListHosts("", 10)[0].robots_state, "ok");
}

TEST_F(LeaseTest, DisallowedPagesAreNeverLeasedAndCounted) {
  CrawlOptions o = TestOptions();
  o.default_delay = std::chrono::milliseconds(0);
  Open(o);
  AddUrls({"http://a.test/private/1", "http://a.test/ok", "http://a.test/private/2",
           "http://a.test/ok2"});
  auto r = LeaseN(1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(Done(r[0], RobotsBody("User-agent: crawlfront\nDisallow: /private/\n")));
  std::set<std::string> leased;
  for (int i = 0; i < 10; ++i) {
    for (auto& l : LeaseN(10)) {
      leased.insert(l.url);
      EXPECT_TRUE(Done(l, Fetched()));
    }
  }
  EXPECT_EQ(leased, (std::set<std::string>{"http://a.test/ok", "http://a.test/ok2"}));
  CrawlStats s = core_->Stats("");
  EXPECT_EQ(s.urls_robots_blocked, 2u);
  EXPECT_EQ(s.urls_done, 4u);
  EXPECT_TRUE(core_->Finished(""));
}

// A robots.txt whose every rule must be tried before its last one blocks a
// page: one Lease call does a bounded amount of that matching under the
// crawl lock, then gives the other hosts their turn, and later calls finish
// the host's pages.
TEST_F(LeaseTest, HostileRobotsCostsEachLeaseCallBoundedWork) {
  CrawlOptions o = TestOptions();
  o.default_delay = std::chrono::milliseconds(0);
  Open(o);
  std::string text = "User-agent: *\n";
  for (int i = 0; i < 50; ++i) {
    text += "Disallow: /*" + std::string(2000, 'a') + std::to_string(i) + "\n";
  }
  text += "Disallow: /\n";
  ASSERT_TRUE(core_->SetHostRobots("", "hostile.test", text).ok());
  ASSERT_TRUE(core_->SetHostRobots("", "b.test", "User-agent: *\nDisallow:\n").ok());
  constexpr int kPages = 300;
  std::vector<std::string> urls;
  for (int i = 0; i < kPages; ++i) urls.push_back("http://hostile.test/p" + std::to_string(100 + i));
  AddUrls(urls);
  AddUrls({"http://b.test/page"});
  const size_t cost = ParseRobots(text, "crawlfront").MatchCost(std::string_view("/p100").size());
  const uint64_t per_call = (kRobotsWorkPerLease + cost - 1) / cost;
  ASSERT_LT(per_call, uint64_t{kPages}) << "the rules must be costly enough to hit the bound";

  bool b_leased = false;
  for (int call = 0; call < 2 * kPages && core_->Stats("").urls_robots_blocked < kPages; ++call) {
    for (const auto& l : LeaseN(10)) {
      EXPECT_EQ(l.url, "http://b.test/page");
      b_leased = true;
      EXPECT_TRUE(Done(l, Fetched()));
    }
    // Each call does its share of the matching, the last one what is left.
    EXPECT_EQ(core_->Stats("").urls_robots_blocked,
              std::min<uint64_t>(kPages, per_call * (call + 1)))
        << "call " << call;
  }
  EXPECT_TRUE(b_leased) << "the hostile host must not starve the other one";
  EXPECT_EQ(core_->Stats("").urls_robots_blocked, uint64_t{kPages});
  EXPECT_TRUE(core_->Finished(""));
}

TEST_F(LeaseTest, UnreachableRobotsHoldsPagesUntilRetry) {
  CrawlOptions o = TestOptions();
  o.robots_error_retry = std::chrono::milliseconds(60'000);
  Open(o);
  AddUrls({"http://a.test/1"});
  auto r = LeaseN(1);
  EXPECT_TRUE(Done(r[0], RobotsBody("", 503)));
  clock_.Advance(30'000);
  EXPECT_TRUE(LeaseN(5).empty());
  EXPECT_EQ(core_->Stats("").urls_queued, 1u) << "pages wait, they are not dropped";
  const HostInfo waiting = core_->ListHosts("", 1).at(0);
  EXPECT_EQ(waiting.robots_state, "error");
  EXPECT_EQ(waiting.ready_in_ms, 30'000) << "the host shows its wait for the robots retry";
  clock_.Advance(30'000);
  r = LeaseN(5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, LeaseKind::kRobots);
  EXPECT_TRUE(Done(r[0], RobotsBody("", 404)));  // 4xx: allow all
  clock_.Advance(1000);
  r = LeaseN(5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].url, "http://a.test/1");
}

TEST_F(LeaseTest, RobotsFailingMaxAttemptsTimesBlocksThePages) {
  CrawlOptions o = TestOptions();
  o.robots_error_retry = std::chrono::milliseconds(1000);
  o.max_attempts = 3;
  Open(o);
  AddUrls({"http://a.test/1", "http://a.test/2"});
  for (uint32_t attempt = 1; attempt <= o.max_attempts; ++attempt) {
    auto r = LeaseN(5);
    ASSERT_EQ(r.size(), 1u) << "attempt " << attempt;
    EXPECT_EQ(r[0].kind, LeaseKind::kRobots);
    EXPECT_TRUE(Done(r[0], RobotsBody("", 500)));
    EXPECT_EQ(core_->Stats("").urls_robots_blocked, 0u) << "pages wait between retries";
    clock_.Advance(attempt < o.max_attempts ? 1000 : 100);  // retry wait, then politeness
  }
  EXPECT_TRUE(LeaseN(5).empty()) << "robots given up: every page is disallowed";
  CrawlStats s = core_->Stats("");
  EXPECT_EQ(s.urls_robots_blocked, 2u);
  EXPECT_EQ(s.urls_queued, 0u);
  EXPECT_TRUE(core_->Finished(""));
}

// The wait after the n-th failed robots.txt in a row: robots_error_backoff
// doubled n-1 times, at most robots_error_retry, at least a Retry-After; a
// robots.txt that answers starts the count again.
TEST_F(LeaseTest, RobotsRetriesBackOffAndASuccessStartsAgain) {
  CrawlOptions o = TestOptions();
  o.robots_error_backoff = std::chrono::milliseconds(1000);
  o.robots_error_retry = std::chrono::milliseconds(3000);
  o.robots_ttl = std::chrono::milliseconds(60'000);
  o.max_attempts = 10;
  Open(o);
  AddUrls({"http://a.test/1", "http://a.test/2"});
  // Leases robots.txt, reports `report`, and checks the host waits `want` ms.
  auto fail_and_wait = [&](DoneReport report, int64_t want) {
    auto r = LeaseN(5);
    ASSERT_EQ(r.size(), 1u) << "wait " << want;
    ASSERT_EQ(r[0].kind, LeaseKind::kRobots);
    EXPECT_TRUE(Done(r[0], std::move(report)));
    const HostInfo h = core_->ListHosts("", 1).at(0);
    EXPECT_EQ(h.robots_state, "error");
    EXPECT_EQ(h.ready_in_ms, want);
    clock_.Advance(want - 1);
    EXPECT_TRUE(LeaseN(5).empty()) << "1 ms before the retry of wait " << want;
    clock_.Advance(1);
  };
  fail_and_wait(RobotsBody("", 500), 1000);
  fail_and_wait(RobotsBody("", 503), 2000);
  fail_and_wait(RobotsBody("", 500), 3000);  // 4000, capped
  DoneReport later = RobotsBody("", 503);
  later.retry_delay_ms = 7000;  // Retry-After beyond the cap: honoured
  fail_and_wait(later, 7000);
  auto r = LeaseN(5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(Done(r[0], RobotsBody("User-agent: *\nDisallow: /2\n")));
  EXPECT_EQ(core_->Stats("").urls_robots_blocked, 0u) << "no page was given up";
  clock_.Advance(100);
  r = LeaseN(5);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].url, "http://a.test/1");
  EXPECT_TRUE(Done(r[0], Fetched()));
  AddUrls({"http://a.test/3"});
  clock_.Advance(60'000);  // rules expired: robots.txt again, failing again
  fail_and_wait(RobotsBody("", 500), 1000);
}

// The count of failures in a row is stored with the origin's robots record:
// a restart does not send a failing host back to the first, shortest wait.
TEST_F(LeaseTest, RobotsBackoffSurvivesARestart) {
  CrawlOptions o = TestOptions();
  o.robots_error_backoff = std::chrono::milliseconds(1000);
  o.robots_error_retry = std::chrono::milliseconds(60'000);
  o.max_attempts = 10;
  Open(o);
  AddUrls({"http://a.test/1"});
  for (int64_t want : {1000, 2000, 4000}) {
    auto r = LeaseN(5);
    ASSERT_EQ(r.size(), 1u) << "wait " << want;
    ASSERT_EQ(r[0].kind, LeaseKind::kRobots);
    EXPECT_TRUE(Done(r[0], RobotsBody("", 500)));
    EXPECT_EQ(core_->ListHosts("", 1).at(0).ready_in_ms, want);
    Reopen();
    EXPECT_EQ(core_->ListHosts("", 1).at(0).robots_state, "error");
    clock_.Advance(want);
  }
}

// Simulated crawl of several hosts: lease times of one host are never closer
// than its delay (configured, robots Crawl-delay, or operator override).
TEST_F(LeaseTest, PolitenessDelaysHoldOverASimulatedCrawl) {
  CrawlOptions o = TestOptions();
  o.default_delay = std::chrono::milliseconds(200);
  Open(o);
  std::vector<std::string> urls;
  for (const char* h : {"a.test", "b.test", "c.test"}) {
    for (int i = 0; i < 20; ++i) urls.push_back("http://" + std::string(h) + "/" + std::to_string(i));
  }
  AddUrls(urls);
  ASSERT_TRUE(core_->SetHostDelay("", "c.test", 350).ok());
  const std::map<std::string, int64_t> want = {
      {"a.test", 200}, {"b.test", 1500}, {"c.test", 350}};
  std::map<std::string, std::vector<int64_t>> times;
  size_t done = 0;
  for (int step = 0; step < 20'000 && done < urls.size(); ++step) {
    for (auto& l : LeaseN(10)) {
      std::string host = l.url.substr(7, 6);
      if (l.kind == LeaseKind::kRobots) {
        EXPECT_TRUE(Done(l, RobotsBody(host == "b.test" ? "User-agent: *\nCrawl-delay: 1.5\n" : "")));
      } else {
        times[host].push_back(clock_.NowMs());
        EXPECT_TRUE(Done(l, Fetched()));
        ++done;
      }
    }
    clock_.Advance(7);
  }
  EXPECT_EQ(done, urls.size());
  for (const auto& [host, t] : times) {
    ASSERT_EQ(t.size(), 20u) << host;
    for (size_t i = 1; i < t.size(); ++i) {
      EXPECT_GE(t[i] - t[i - 1], want.at(host)) << host << " fetch " << i;
    }
  }
}

TEST_F(LeaseTest, DelayFactorUsesResponseTime) {
  CrawlOptions o = NoRobotsOptions(10);
  o.delay_factor = 2.0;
  Open(o);
  AddUrls({"http://a.test/1", "http://a.test/2"});
  auto l = LeaseN(1);
  int64_t start = clock_.NowMs();
  clock_.Advance(300);
  DoneReport r = Fetched();
  r.fetch_ms = 300;
  EXPECT_TRUE(Done(l[0], r));
  // delay_factor x response time, after the response (Heritrix's rule).
  EXPECT_EQ(core_->NextReadyMs(), start + 300 + 600);
  clock_.Set(start + 899);
  EXPECT_TRUE(LeaseN(1).empty());
  clock_.Set(start + 900);
  EXPECT_EQ(LeaseN(1).size(), 1u);
}

// A worker may send a request well after its lease (a new connection, a
// busy machine); the next lease of the host waits a full delay after the
// page is reported done, so the server never sees two requests closer.
TEST_F(LeaseTest, PolitenessCountsFromTheReport) {
  Open(NoRobotsOptions(100));
  AddUrls({"http://a.test/1", "http://a.test/2"});
  auto l = LeaseN(1);
  int64_t leased = clock_.NowMs();
  clock_.Advance(80);  // the request left 70 ms after the lease
  DoneReport r = Fetched();
  r.fetch_ms = 10;
  EXPECT_TRUE(Done(l[0], r));
  EXPECT_EQ(core_->NextReadyMs(), leased + 80 + 100);
  clock_.Set(leased + 179);
  EXPECT_TRUE(LeaseN(1).empty());
  clock_.Set(leased + 180);
  EXPECT_EQ(LeaseN(1).size(), 1u);
}

TEST_F(LeaseTest, MaxInflightPerHostHoldsOverManyLeaseCalls) {
  CrawlOptions o = NoRobotsOptions(0);
  o.max_inflight_per_host = 2;
  Open(o);
  std::vector<std::string> urls;
  for (int i = 0; i < 30; ++i) urls.push_back("http://a.test/" + std::to_string(i));
  for (int i = 0; i < 30; ++i) urls.push_back("http://b.test/" + std::to_string(i));
  AddUrls(urls);
  std::vector<LeasedUrl> open;
  size_t done = 0;
  for (int round = 0; round < 200 && done < urls.size(); ++round) {
    for (int call = 0; call < 5; ++call) {
      for (auto& l : LeaseN(7)) open.push_back(l);
    }
    std::map<std::string, int> per_host;
    for (auto& l : open) ++per_host[l.url.substr(7, 6)];
    for (auto& [h, n] : per_host) EXPECT_LE(n, 2) << h;
    if (!open.empty()) {  // finish the oldest one
      EXPECT_TRUE(Done(open.front(), Fetched()));
      open.erase(open.begin());
      ++done;
    }
  }
  EXPECT_EQ(done, urls.size());
}

TEST_F(LeaseTest, SmallHostIsNotStarvedByBigHost) {
  Open(NoRobotsOptions(0));
  std::vector<std::string> urls;
  for (int i = 0; i < 1000; ++i) urls.push_back("http://big.test/" + std::to_string(i));
  for (int i = 0; i < 10; ++i) urls.push_back("http://small.test/" + std::to_string(i));
  AddUrls(urls);
  int small_done = 0, leases = 0;
  while (small_done < 10 && leases < 1010) {
    auto l = LeaseN(1);
    ASSERT_EQ(l.size(), 1u);
    ++leases;
    if (l[0].url.find("small.test") != std::string::npos) ++small_done;
    EXPECT_TRUE(Done(l[0], Fetched()));
  }
  EXPECT_EQ(small_done, 10);
  EXPECT_LE(leases, 21) << "round-robin alternates the two hosts";
}

TEST_F(LeaseTest, PriorityThenDepthThenArrivalWithinHost) {
  Open(NoRobotsOptions(0));
  std::vector<AddRequest> reqs = {
      {"http://a.test/first-low", 0, 0, "", 0}, {"http://a.test/deep-high", 2, 5, "", 0},
      {"http://a.test/shallow-high", 1, 5, "", 0}, {"http://a.test/second-low", 0, 0, "", 0}};
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("", reqs, &out).ok());
  std::vector<std::string> order;
  for (int i = 0; i < 4; ++i) {
    auto l = LeaseN(1);
    ASSERT_EQ(l.size(), 1u);
    order.push_back(l[0].url.substr(14));
    EXPECT_TRUE(Done(l[0], Fetched()));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"shallow-high", "deep-high", "first-low",
                                             "second-low"}));
}

// Refills start after the last leased entry (past its tombstone); an entry
// added later that sorts before that point must still come out first.
TEST_F(LeaseTest, EntryAddedBelowLeasedOnesIsLeasedNext) {
  CrawlOptions o = NoRobotsOptions(0);
  o.head_buffer = 4;
  Open(o);
  std::vector<std::string> deep;
  for (int i = 0; i < 10; ++i) deep.push_back("http://a.test/deep" + std::to_string(i));
  AddUrls(deep, kDefaultCrawl, 5);
  std::vector<std::string> order;
  auto lease_one = [&] {
    auto l = LeaseN(1);
    ASSERT_EQ(l.size(), 1u);
    order.push_back(l[0].url.substr(14));
    EXPECT_TRUE(Done(l[0], Fetched()));
  };
  for (int i = 0; i < 4; ++i) lease_one();  // empties the RAM head buffer
  AddUrls({"http://a.test/shallow"}, kDefaultCrawl, 0);
  for (int i = 0; i < 7; ++i) lease_one();
  EXPECT_TRUE(LeaseN(1).empty());
  std::vector<std::string> want = {"deep0", "deep1", "deep2", "deep3", "shallow"};
  for (int i = 4; i < 10; ++i) want.push_back("deep" + std::to_string(i));
  EXPECT_EQ(order, want);
}

// Leased entries stay in the queue until DONE. A refill from a floor that
// a new entry lowered below them must not lease them a second time.
TEST_F(LeaseTest, InFlightEntriesAreNotLeasedTwice) {
  CrawlOptions o = NoRobotsOptions(0);
  o.head_buffer = 4;
  o.max_inflight_per_host = 100;
  Open(o);
  std::vector<std::string> deep;
  for (int i = 0; i < 10; ++i) deep.push_back("http://a.test/deep" + std::to_string(i));
  AddUrls(deep, kDefaultCrawl, 5);
  std::vector<LeasedUrl> held = LeaseN(4);  // not done yet
  ASSERT_EQ(held.size(), 4u);
  AddUrls({"http://a.test/shallow"}, kDefaultCrawl, 0);
  std::vector<std::string> order;
  for (const auto& l : LeaseN(100)) order.push_back(l.url.substr(14));
  std::vector<std::string> want = {"shallow"};
  for (int i = 4; i < 10; ++i) want.push_back("deep" + std::to_string(i));
  EXPECT_EQ(order, want);
  for (const auto& l : held) EXPECT_TRUE(Done(l, Fetched()));
  EXPECT_EQ(core_->Stats("").urls_inflight, 7u);
}

// The head buffer grows while a host drains it fast and shrinks when it is
// slow; at every size, leases come out in (priority, depth, arrival) order
// of what is queued, also when new URLs land in or before the buffer.
TEST_F(LeaseTest, OrderHoldsWhileTheHeadBufferGrowsAndShrinks) {
  CrawlOptions o = NoRobotsOptions(0);
  o.head_buffer = 2;
  o.max_inflight_per_host = 1000;
  Open(o);
  std::mt19937 rng(7);
  // Model of the queue: (-priority, depth, arrival) -> URL.
  std::map<std::tuple<int, uint32_t, int>, std::string> model;
  int arrival = 0;
  auto add = [&](int n) {
    std::vector<AddRequest> reqs;
    for (int i = 0; i < n; ++i) {
      AddRequest r{"http://a.test/u" + std::to_string(arrival + i),
                   static_cast<uint32_t>(rng() % 3), static_cast<int32_t>(rng() % 4), "",
                   0};
      reqs.push_back(r);
      model[{-r.priority, r.depth, arrival + i}] = r.url;
    }
    arrival += n;
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add("", reqs, &out).ok());
  };
  add(300);
  size_t leased = 0;
  for (int round = 0; !model.empty() && round < 2000; ++round) {
    if (round % 7 == 3) add(1 + static_cast<int>(rng() % 5));
    // Slow stretches let the buffer shrink again.
    clock_.Advance(round % 50 < 40 ? 0 : 31'000);
    auto l = LeaseN(1 + rng() % 3);
    ASSERT_FALSE(l.empty()) << "round " << round;
    for (const LeasedUrl& u : l) {
      ASSERT_EQ(u.url, model.begin()->second) << "round " << round;
      model.erase(model.begin());
      EXPECT_TRUE(Done(u, Fetched()));
      ++leased;
    }
  }
  EXPECT_TRUE(model.empty());
  EXPECT_GT(leased, 300u);
  EXPECT_TRUE(LeaseN(1).empty());
}

TEST_F(LeaseTest, ExpiredLeaseIsRedeliveredWithNextAttempt) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/1"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  clock_.Advance(5'000);
  bool known = false;
  ASSERT_TRUE(core_->Renew("w1", l[0].lease_id, 8'000, &known).ok());
  EXPECT_TRUE(known);
  clock_.Advance(7'000);  // within the renewed deadline
  size_t expired = 99;
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 0u);
  clock_.Advance(1'001);
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 1u);
  EXPECT_FALSE(Done(l[0], Fetched())) << "expired lease is unknown";
  auto again = LeaseN(1, "w2");
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url, "http://a.test/1");
  EXPECT_EQ(again[0].attempt, 2u);
  EXPECT_NE(again[0].lease_id, l[0].lease_id);
  EXPECT_EQ(core_->Stats("").leases_expired, 1u);
}

TEST_F(LeaseTest, LeaseExpiringMaxAttemptsTimesFails) {
  CrawlOptions o = NoRobotsOptions(0);
  o.max_attempts = 2;
  Open(o);
  AddUrls({"http://a.test/1"});
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(LeaseN(1).size(), 1u);
    clock_.Advance(o.lease_timeout.count() + 1);
    ASSERT_TRUE(core_->ExpireLeases().ok());
  }
  EXPECT_TRUE(LeaseN(1).empty());
  EXPECT_EQ(core_->Stats("").urls_failed, 1u);
  EXPECT_TRUE(core_->Finished(""));
}

TEST_F(LeaseTest, RetryBacksOffThenFailsAfterMaxAttempts) {
  CrawlOptions o = NoRobotsOptions(0);
  o.max_attempts = 3;
  o.retry_backoff_base = std::chrono::milliseconds(1'000);
  Open(o);
  AddUrls({"http://a.test/1"});
  int64_t backoff = 1'000;
  for (uint32_t attempt = 1; attempt <= 2; ++attempt) {
    auto l = LeaseN(1);
    ASSERT_EQ(l.size(), 1u);
    EXPECT_EQ(l[0].attempt, attempt);
    DoneReport r;
    r.outcome = DoneOutcome::kRetry;
    r.reason = "timeout";
    EXPECT_TRUE(Done(l[0], r));
    clock_.Advance(backoff - 1);
    EXPECT_TRUE(LeaseN(1).empty()) << "attempt " << attempt;
    clock_.Advance(1);
    backoff *= 2;
  }
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 3u);
  DoneReport r;
  r.outcome = DoneOutcome::kRetry;
  EXPECT_TRUE(Done(l[0], r));
  EXPECT_EQ(core_->Stats("").urls_failed, 1u);
  EXPECT_TRUE(core_->Finished(""));
}

TEST_F(LeaseTest, Status429WithDelayBlocksWholeHost) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/1", "http://a.test/2", "http://b.test/1"});
  auto l = LeaseN(2);
  ASSERT_EQ(l.size(), 2u);
  const LeasedUrl& a = l[0].url.find("a.test") != std::string::npos ? l[0] : l[1];
  DoneReport r;
  r.outcome = DoneOutcome::kRetry;
  r.http_status = 429;
  r.retry_delay_ms = 30'000;
  EXPECT_TRUE(Done(a, r));
  clock_.Advance(29'999);
  EXPECT_TRUE(LeaseN(5).empty()) << "a.test blocked, b.test in flight";
  EXPECT_EQ(core_->ListHosts("", 1)[0].blocked_until_ms, clock_.NowMs() + 1);
  clock_.Advance(1);
  auto next = LeaseN(5);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].url, "http://a.test/1");
}

TEST_F(LeaseTest, DoneRemovesAndUnknownLeasesAreIgnored) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/1"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  // "L" and 16 lower-case hex digits (docs/protocol.md).
  ASSERT_EQ(l[0].lease_id.size(), 17u);
  EXPECT_EQ(l[0].lease_id[0], 'L');
  EXPECT_EQ(l[0].lease_id.find_first_not_of("0123456789abcdef", 1), std::string::npos);
  EXPECT_FALSE(Done(l[0], Fetched(), "other-worker"));
  bool known = true;
  ASSERT_TRUE(core_->Done("w1", "nonsense", Fetched(), &known).ok());
  EXPECT_FALSE(known);
  EXPECT_FALSE(core_->Done("w1", l[0].lease_id, RobotsBody(""), &known).ok())
      << "robots outcome for a page lease is malformed";
  EXPECT_TRUE(Done(l[0], Fetched()));
  EXPECT_FALSE(Done(l[0], Fetched())) << "closed twice";
  EXPECT_EQ(core_->Stats("").urls_done, 1u);
  EXPECT_EQ(core_->Stats("").urls_queued, 0u);
}

TEST_F(LeaseTest, FinishedTurnsTrueExactlyWhenAllWorkIsDone) {
  Open();
  EXPECT_FALSE(core_->Finished(""));
  AddUrls({"http://a.test/1", "http://b.test/1"});
  size_t handled = 0;
  for (int step = 0; step < 1000 && !core_->Finished(""); ++step) {
    EXPECT_LT(handled, 4u) << "finished must turn true right after the last done";
    for (auto& l : LeaseN(1)) {
      EXPECT_FALSE(core_->Finished(""));
      EXPECT_TRUE(Done(l, l.kind == LeaseKind::kRobots ? RobotsBody("") : Fetched()));
      ++handled;
    }
    clock_.Advance(50);
  }
  EXPECT_EQ(handled, 4u);  // 2 robots + 2 pages
  EXPECT_TRUE(core_->Finished(""));
}

TEST_F(LeaseTest, PauseStopsLeasingAndResumeRestarts) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/1"});
  AddUrls({"http://a.test/1"}, "c2");
  ASSERT_TRUE(core_->Pause("c2").ok());
  auto l = LeaseN(5);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].crawl, "default");
  ASSERT_TRUE(core_->Pause("").ok());
  EXPECT_TRUE(Done(l[0], Fetched()));
  AddUrls({"http://a.test/2"});
  EXPECT_TRUE(LeaseN(5).empty());
  EXPECT_EQ(core_->NextReadyMs(), kNever);
  ASSERT_TRUE(core_->Resume("").ok());
  EXPECT_EQ(LeaseN(5).size(), 2u);
}

}  // namespace
}  // namespace crawlfront
