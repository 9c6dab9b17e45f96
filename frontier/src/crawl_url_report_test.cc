// CrawlCore::Explain (FRONTIER.URL): one URL's state as the queue, the
// lease table, the seen-set, scope and robots rules have it, also while a
// long host queue is read in chunks and changes between them.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class CrawlUrlReportTest : public CrawlFixture {
 protected:
  UrlReport Explain(const std::string& url, std::string_view crawl = "") {
    UrlReport r;
    Status s = core_->Explain(crawl, url, &r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }
  void AddOne(const std::string& url, int32_t priority, int64_t refetch_at_ms = 0) {
    std::vector<AddRequest> req{AddRequest{url, 0, priority, "", refetch_at_ms}};
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add("", req, &out).ok());
  }
};

TEST_F(CrawlUrlReportTest, AUrlOfAHostNeverAddedIsUnseen) {
  Open();
  UrlReport r = Explain("http://NEW.test/a");
  EXPECT_EQ(r.url, "http://new.test/a");
  EXPECT_EQ(r.crawl, kDefaultCrawl);
  EXPECT_EQ(r.state, "unseen");
  EXPECT_FALSE(r.seen);
  EXPECT_FALSE(r.host_known);
  EXPECT_EQ(r.entries, 0u);
  EXPECT_EQ(r.scope, "");
  EXPECT_EQ(r.robots, "unknown");
}

TEST_F(CrawlUrlReportTest, RefusesABadUrlOrCrawlId) {
  Open();
  UrlReport bad;
  EXPECT_EQ(core_->Explain("", "no scheme", &bad).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(core_->Explain("bad crawl!", "http://a.test/", &bad).code(),
            Status::Code::kInvalidArgument);
}

TEST_F(CrawlUrlReportTest, ReportsItQueuedThenLeasedThenDone) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/0", "http://a.test/1", "http://a.test/2"});
  UrlReport r = Explain("http://a.test/2");
  EXPECT_EQ(r.state, "ready");
  EXPECT_TRUE(r.seen);
  EXPECT_EQ(r.entries, 1u);
  EXPECT_EQ(r.ahead, 2u);
  EXPECT_EQ(r.robots, "off");
  ASSERT_TRUE(r.host_known);
  EXPECT_EQ(r.host.host, "a.test");
  EXPECT_EQ(r.host.queued, 3u);

  auto leased = LeaseN(1);
  ASSERT_EQ(leased.size(), 1u);
  r = Explain(leased[0].url);
  EXPECT_EQ(r.state, "leased");
  EXPECT_EQ(r.worker, "w1");
  EXPECT_EQ(r.lease_id, leased[0].lease_id);
  EXPECT_EQ(r.lease_left_ms, options_.lease_timeout.count());
  EXPECT_EQ(r.entries, 1u);  // its entry stays queued until DONE
  EXPECT_EQ(r.host.inflight, 1u);

  ASSERT_TRUE(Done(leased[0], Fetched()));
  r = Explain(leased[0].url);
  EXPECT_EQ(r.state, "done");
  EXPECT_TRUE(r.seen);
  EXPECT_EQ(r.entries, 0u);
  EXPECT_TRUE(r.worker.empty());
}

TEST_F(CrawlUrlReportTest, ShowsARecrawlAndItsDueTime) {
  Open(NoRobotsOptions(0));
  const int64_t due = clock_.NowMs() + 60'000;
  AddOne("http://a.test/later", 0, due);  // new, queued for then
  UrlReport r = Explain("http://a.test/later");
  EXPECT_EQ(r.state, "scheduled");
  EXPECT_EQ(r.entry.due_ms, due);
  EXPECT_EQ(r.entries, 1u);

  // A recrawl queued while the first fetch still waits sits beside it.
  AddUrls({"http://a.test/1"});
  AddOne("http://a.test/1", 0, due);
  r = Explain("http://a.test/1");
  EXPECT_EQ(r.state, "ready");
  EXPECT_EQ(r.entries, 2u);
  EXPECT_EQ(r.entry.due_ms, 0);
}

TEST_F(CrawlUrlReportTest, SaysWhatScopeAndRobotsMakeOfIt) {
  Open();  // robots.txt respected
  AddUrls({"http://a.test/ok", "http://a.test/private/x"});
  EXPECT_EQ(Explain("http://a.test/ok").robots, "unknown");
  auto robots = LeaseN(1);
  ASSERT_EQ(robots.size(), 1u);
  ASSERT_EQ(robots[0].kind, LeaseKind::kRobots);
  UrlReport r = Explain("http://a.test/robots.txt");
  EXPECT_EQ(r.state, "leased");
  EXPECT_EQ(r.lease_id, robots[0].lease_id);
  EXPECT_EQ(Explain("http://a.test/ok").robots, "fetching");

  ASSERT_TRUE(Done(robots[0], RobotsBody("User-agent: *\nDisallow: /private\n")));
  EXPECT_EQ(Explain("http://a.test/ok").robots, "allowed");
  EXPECT_EQ(Explain("http://a.test/private/x").robots, "disallowed");
  EXPECT_EQ(Explain("http://a.test/private/x").host.robots_state, "ok");

  bool added = false;
  ASSERT_TRUE(core_->AddDenyPattern("", "/private/", &added).ok());
  EXPECT_EQ(Explain("http://a.test/private/x").scope, "denied by pattern");
  EXPECT_EQ(Explain("http://a.test/ok").scope, "");
  // Another crawl has its own patterns and its own seen namespace.
  r = Explain("http://a.test/private/x", "other");
  EXPECT_EQ(r.scope, "");
  EXPECT_EQ(r.state, "unseen");
}

// The host's queue is read 4096 entries per hold of the lock; between the
// chunks URLs are leased and done, and one is queued below the cursor.
TEST_F(CrawlUrlReportTest, SeesChangesMadeWhileItReadsALongQueue) {
  Open(NoRobotsOptions(0));
  std::vector<std::string> urls;
  for (int i = 0; i < 9000; ++i) urls.push_back("http://a.test/" + std::to_string(i));
  AddUrls(urls);
  // Leases the host's next URL and reports it done; returns it.
  auto finish_next = [&] {
    auto leased = LeaseN(1);
    EXPECT_EQ(leased.size(), 1u);
    if (leased.empty()) return std::string();
    EXPECT_TRUE(Done(leased[0], Fetched()));
    return leased[0].url;
  };
  int calls = 0;
  core_->SetBetweenDropChunksForTest([&] {
    if (++calls > 1) return;
    EXPECT_EQ(finish_next(), "http://a.test/0");
    AddOne("http://a.test/late", 10);  // priority 10 sorts before every entry
  });
  UrlReport r = Explain("http://a.test/late");
  EXPECT_GE(calls, 1);
  EXPECT_EQ(r.state, "ready");
  EXPECT_EQ(r.entries, 1u);
  EXPECT_TRUE(r.seen);

  calls = 0;
  core_->SetBetweenDropChunksForTest([&] {
    if (++calls > 1) return;
    EXPECT_EQ(finish_next(), "http://a.test/late");
    EXPECT_EQ(finish_next(), "http://a.test/1");
  });
  r = Explain("http://a.test/1");  // read in the first chunk, done after it
  EXPECT_GE(calls, 1);
  EXPECT_EQ(r.state, "done");
  EXPECT_EQ(r.entries, 0u);

  core_->SetBetweenDropChunksForTest(nullptr);
  r = Explain("http://a.test/8999");
  EXPECT_EQ(r.state, "ready");
  EXPECT_EQ(r.ahead, 8997u);  // /2 ... /8998
}

}  // namespace
}  // namespace crawlfront
