// The counters STATS reads without walking the hosts (urls_queued,
// urls_inflight, hosts_ready, Finished) must equal a walk after any mix of
// calls. TestOptions() sets check_live_counts, so every Stats call below
// compares the two and counts a mismatch.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/url_pattern.h"

namespace crawlfront {
namespace {

class CrawlLiveTest : public CrawlFixture {
 protected:
  std::string Host() { return "h" + std::to_string(rng_() % 6) + ".test"; }
  std::string Crawl() { return rng_() % 3 == 0 ? "c2" : std::string(kDefaultCrawl); }
  std::string Url() { return "http://" + Host() + "/p" + std::to_string(rng_() % 40); }

  void AddSome() {
    std::vector<AddRequest> reqs;
    for (uint32_t i = 0, n = 1 + rng_() % 5; i < n; ++i) {
      AddRequest r{Url(), static_cast<uint32_t>(rng_() % 3), static_cast<int32_t>(rng_() % 3), "", 0};
      // Some recrawls of seen URLs, now or later.
      if (rng_() % 4 == 0) r.refetch_at_ms = clock_.NowMs() + (rng_() % 3) * 500;
      reqs.push_back(std::move(r));
    }
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add(Crawl(), reqs, &out).ok());
  }

  DoneReport AnyReport(const LeasedUrl& l) {
    DoneReport r;
    if (l.kind == LeaseKind::kRobots) {
      const int kind = rng_() % 4;
      r.outcome = DoneOutcome::kRobots;
      r.http_status = kind == 0 ? 0 : kind == 1 ? 503 : 200;
      r.body = kind == 3 ? "User-agent: *\nDisallow: /p1\nCrawl-delay: 0.2\n" : "";
      return r;
    }
    switch (rng_() % 5) {
      case 0: r.outcome = DoneOutcome::kRetry, r.http_status = 503, r.retry_delay_ms = 300; break;
      case 1: r.outcome = DoneOutcome::kFailed, r.reason = "test"; break;
      case 2: r.outcome = DoneOutcome::kDisallowed, r.reason = "test"; break;
      default:
        r.outcome = DoneOutcome::kFetched;
        r.http_status = rng_() % 2 ? 200 : 404;
        for (int i = 0; i < 3; ++i) r.links.push_back(Url());
    }
    return r;
  }

  void DoneOne() {
    if (held_.empty()) return;
    const size_t i = rng_() % held_.size();
    bool known = false;
    ASSERT_TRUE(core_->Done("w1", held_[i].lease_id, AnyReport(held_[i]), &known).ok());
    held_.erase(held_.begin() + static_cast<ptrdiff_t>(i));
  }

  void ControlOne() {
    uint64_t n = 0;
    switch (rng_() % 9) {
      case 0: ASSERT_TRUE(core_->SetHostDelay(Crawl(), Host(), rng_() % 400).ok()); break;
      case 1: ASSERT_TRUE(core_->BlockHostUntil(Crawl(), Host(), clock_.NowMs() + 300).ok()); break;
      case 2: ASSERT_TRUE(core_->SetHostBudget(Crawl(), Host(), rng_() % 4).ok()); break;
      case 3:
        ASSERT_TRUE(core_->SetHostRobots(Crawl(), Host(), "User-agent: *\nDisallow: /p2\n").ok());
        break;
      case 4: ASSERT_TRUE(core_->DropHost(Crawl(), Host(), &n).ok()); break;
      case 5:
        ASSERT_TRUE(core_->DropHostMatching(Crawl(), Host(), UrlPattern::Compile("p3").value(), &n)
                        .ok());
        break;
      case 6: ASSERT_TRUE((rng_() % 2 ? core_->Pause(Crawl()) : core_->Pause("")).ok()); break;
      case 7: ASSERT_TRUE((rng_() % 2 ? core_->Resume(Crawl()) : core_->Resume("")).ok()); break;
      default: ASSERT_TRUE(core_->DropCrawl("c2", &n).ok());
    }
  }

  void LeaseOrEnd() {
    size_t n = 0;
    switch (rng_() % 6) {
      case 0: {
        std::vector<LeasedUrl> got;
        ASSERT_TRUE(core_->Lease("w1", 1 + rng_() % 4, rng_() % 4 ? "" : Crawl(), &got).ok());
        held_.insert(held_.end(), got.begin(), got.end());
        break;
      }
      case 1:
        clock_.Advance(11'000);  // past TestOptions' lease timeout
        ASSERT_TRUE(core_->ExpireLeases(&n).ok());
        held_.clear();  // expired: their DONEs would be ignored
        break;
      case 2:
        ASSERT_TRUE(core_->ReleaseLeases("w1", {}, &n).ok());
        held_.clear();
        break;
      default: DoneOne();
    }
  }

  void Check(int step) {
    core_->Stats("");
    core_->Stats(kDefaultCrawl);
    core_->Stats("c2");
    core_->ListCrawls();
    core_->Finished(kDefaultCrawl);
    ASSERT_EQ(core_->live_count_errors(), 0u) << "after step " << step;
    for (std::string_view crawl : {std::string_view(kDefaultCrawl), std::string_view("c2")}) {
      const bool ready = core_->Stats(crawl).hosts_ready > 0;
      EXPECT_EQ(core_->NextReadyMs(crawl) == clock_.NowMs(), ready) << crawl << " step " << step;
    }
    // The top 3 (a heap over the packed counts) lead the full ranking.
    const std::vector<HostInfo> all = core_->ListHosts("", 0), top = core_->ListHosts("", 3);
    ASSERT_EQ(top.size(), std::min<size_t>(3, all.size()));
    for (size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].host + " " + top[i].crawl, all[i].host + " " + all[i].crawl);
    }
    for (size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i - 1].queued, all[i].queued);
  }

  std::mt19937 rng_{12345};
  std::vector<LeasedUrl> held_;
};

TEST_F(CrawlLiveTest, SumsEqualAWalkAfterAnyMixOfCalls) {
  Open();
  uint64_t leased_steps = 0, ready_steps = 0, queued_max = 0;
  for (int step = 0; step < 3000; ++step) {
    const uint32_t op = rng_() % 20;
    if (op < 6) {
      AddSome();
    } else if (op < 15) {
      LeaseOrEnd();
    } else if (op < 18) {
      clock_.Advance(rng_() % 400);
    } else if (op < 19) {
      ControlOne();
    } else if (rng_() % 3 == 0) {
      Reopen();  // a clean restart keeps the leases with the time they had left
    }
    ASSERT_NO_FATAL_FAILURE(Check(step));
    const CrawlStats s = core_->Stats("");
    leased_steps += s.urls_inflight > 0;
    ready_steps += s.hosts_ready > 0;
    queued_max = std::max(queued_max, s.urls_queued);
  }
  // The mix reached the states the sums count.
  EXPECT_GT(leased_steps, 100u);
  EXPECT_GT(ready_steps, 100u);
  EXPECT_GT(queued_max, 10u);
}

}  // namespace
}  // namespace crawlfront
