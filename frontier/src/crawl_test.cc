// Adding URLs: dedup, reject reasons, crawl ids, budgets, recrawls, stats.

#include "crawlfront/frontier/crawl.h"

#include <gtest/gtest.h>

#include "crawl_test_util.h"

namespace crawlfront {
namespace {

using Kind = AddResult::Kind;

class CrawlAddTest : public CrawlFixture {};

TEST_F(CrawlAddTest, ReportsNewSeenAndRejectReasons) {
  CrawlOptions o = TestOptions();
  o.deny_regexes = {"/private/"};
  o.deny_host_suffixes = {"bad.test"};
  Open(o);
  struct Case {
    std::string url;
    Kind kind;
    std::string reason_part;
  };
  const std::vector<Case> cases = {
      {"http://a.test/x", Kind::kNew, ""},
      {"HTTP://A.TEST:80/x#frag", Kind::kSeen, ""},  // same canonical URL
      {"http://a.test/y", Kind::kNew, ""},
      {"ftp://a.test/", Kind::kRejected, "bad url"},
      {"not a url", Kind::kRejected, "bad url"},
      {"http://a.test/private/1", Kind::kRejected, "denied by pattern"},
      {"http://www.bad.test/", Kind::kRejected, "host denied"},
      {"http://a.test/" + std::string(1100, 'x'), Kind::kRejected, "url too long"},
      {"http://a.test/s/s/s/s", Kind::kRejected, "repeated path segment"},
  };
  for (const auto& c : cases) {
    auto r = AddUrls({c.url});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].kind, c.kind) << c.url;
    EXPECT_NE(r[0].reason.find(c.reason_part), std::string::npos)
        << c.url << " reason: " << r[0].reason;
  }
  EXPECT_EQ(AddUrls({"not a url"})[0].reason, "bad url: no scheme (relative URL without a base)");
  CrawlStats s = core_->Stats("");
  EXPECT_EQ(s.urls_seen, 2u);
  EXPECT_EQ(s.urls_queued, 2u);
  EXPECT_EQ(s.urls_rejected, 7u);
  EXPECT_EQ(s.hosts, 1u);
}

TEST_F(CrawlAddTest, DuplicatesWithinOneCallCountOnce) {
  Open();
  auto r = AddUrls({"http://a.test/1", "http://a.test/1", "http://a.test/2"});
  EXPECT_EQ(r[0].kind, Kind::kNew);
  EXPECT_EQ(r[1].kind, Kind::kSeen);
  EXPECT_EQ(r[2].kind, Kind::kNew);
  EXPECT_EQ(core_->Stats("").urls_queued, 2u);
}

// A call longer than kAddChunk is added in pieces (other clients get the
// lock between them) but answers as one call: a result per URL in order,
// and a URL listed again in a later piece is seen, with one recrawl.
TEST_F(CrawlAddTest, ALongCallIsAnsweredAsOne) {
  Open(NoRobotsOptions());
  const size_t n = 2 * CrawlCore::kAddChunk + 100;
  const int64_t due = clock_.NowMs() + 5000;
  std::vector<AddRequest> req;
  for (size_t i = 0; i < n; ++i) {
    if (i % 500 == 7) {
      req.push_back(AddRequest{"ftp://bad/" + std::to_string(i), 0, 0, "", 0});
    } else if (i >= CrawlCore::kAddChunk + 50) {  // repeats of the first piece's URLs
      req.push_back(AddRequest{"http://a.test/" + std::to_string(i - CrawlCore::kAddChunk - 50),
                               0, 0, "", i % 2 ? due : 0});
    } else {
      req.push_back(AddRequest{"http://a.test/" + std::to_string(i), 0, 0, "", i % 2 ? due : 0});
    }
  }
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("", req, &out).ok());
  ASSERT_EQ(out.size(), n);
  size_t added = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool bad = req[i].url.starts_with("ftp:");
    const size_t first = i - CrawlCore::kAddChunk - 50;  // the repeated URL's index
    const bool repeat = i >= CrawlCore::kAddChunk + 50 && first % 500 != 7;
    const Kind want = bad ? Kind::kRejected : repeat ? Kind::kSeen : Kind::kNew;
    ASSERT_EQ(out[i].kind, want) << i << " " << req[i].url;
    added += want == Kind::kNew;
  }
  EXPECT_EQ(core_->Stats("").urls_seen, added);
  EXPECT_EQ(core_->Stats("").urls_queued, added) << "a repeated recrawl is queued once";
}

TEST_F(CrawlAddTest, CrawlIdsAreIsolated) {
  Open(NoRobotsOptions());
  EXPECT_EQ(AddUrls({"http://a.test/1"})[0].kind, Kind::kNew);
  EXPECT_EQ(AddUrls({"http://a.test/1"}, "c2")[0].kind, Kind::kNew);
  EXPECT_EQ(AddUrls({"http://a.test/1"}, "c2")[0].kind, Kind::kSeen);
  EXPECT_EQ(AddUrls({"http://a.test/2"}, "c2")[0].kind, Kind::kNew);
  EXPECT_TRUE(*core_->Seen("c2", "http://a.test/2"));
  EXPECT_FALSE(*core_->Seen("default", "http://a.test/2"));
  EXPECT_TRUE(*core_->Seen("", "http://a.test/1"));
  EXPECT_EQ(core_->Stats("default").urls_seen, 1u);
  EXPECT_EQ(core_->Stats("c2").urls_seen, 2u);
  EXPECT_EQ(core_->Stats("").urls_seen, 3u);
  // A filtered lease only returns that crawl's URLs.
  auto leases = LeaseN(10, "w1", "c2");
  ASSERT_EQ(leases.size(), 1u);  // one host, inflight 1
  EXPECT_EQ(leases[0].crawl, "c2");
  std::vector<AddResult> out;
  EXPECT_FALSE(core_->Add("bad crawl!", std::vector<AddRequest>{}, &out).ok());
}

TEST_F(CrawlAddTest, HostBudgetRejectsBeyondLimit) {
  CrawlOptions o = TestOptions();
  o.max_urls_per_host = 3;
  Open(o);
  auto r = AddUrls({"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4",
                    "http://b.test/1"});
  // Which URL of one call exceeds the budget is unspecified; the count is not.
  int new_a = 0, rejected_a = 0;
  for (int i = 0; i < 4; ++i) {
    new_a += r[i].kind == Kind::kNew;
    if (r[i].kind == Kind::kRejected) {
      ++rejected_a;
      EXPECT_EQ(r[i].reason, "host budget exhausted");
    }
  }
  EXPECT_EQ(new_a, 3);
  EXPECT_EQ(rejected_a, 1);
  EXPECT_EQ(r[4].kind, Kind::kNew);
  r = AddUrls({"http://a.test/5"});
  EXPECT_EQ(r[0].reason, "host budget exhausted");
  ASSERT_TRUE(core_->SetHostBudget("", "a.test", 0).ok());  // unlimited
  EXPECT_EQ(AddUrls({"http://a.test/5"})[0].kind, Kind::kNew);
}

// URLs found in the seen-set as given skip canonicalization (crawl_add.cc,
// KnownAsGiven) but not the rules: scope and host budgets still reject
// them, as they reject other spellings.
TEST_F(CrawlAddTest, KnownUrlsAsGivenKeepScopeAndBudgetRules) {
  CrawlOptions o = NoRobotsOptions();
  o.max_depth = 1;
  o.max_urls_per_host = 2;
  Open(o);
  auto add = [&](std::string url, uint32_t depth) {
    std::vector<AddRequest> req{AddRequest{std::move(url), depth, 0, "", 0}};
    std::vector<AddResult> out;
    EXPECT_TRUE(core_->Add("", req, &out).ok());
    return out.at(0);
  };
  EXPECT_EQ(add("http://a.test:8080/p", 0).kind, Kind::kNew);
  EXPECT_EQ(add("http://a.test:8080/p", 0).kind, Kind::kSeen);
  AddResult deep = add("http://a.test:8080/p", 2);
  EXPECT_EQ(deep.kind, Kind::kRejected);
  EXPECT_NE(deep.reason.find("depth"), std::string::npos) << deep.reason;
  EXPECT_EQ(add("http://a.test/q", 0).kind, Kind::kNew);  // a.test's budget: 2 of 2
  AddResult over = add("http://a.test/q", 0);
  EXPECT_EQ(over.kind, Kind::kRejected);
  EXPECT_EQ(over.reason, "host budget exhausted");
  EXPECT_EQ(core_->Stats("").urls_rejected, 2u);
  EXPECT_EQ(core_->Stats("").urls_seen, 2u);
}

// With no default budget, a known URL skips its host's state (crawl_add.cc)
// unless some host has its own budget: set now, or restored at start-up.
TEST_F(CrawlAddTest, KnownUrlsMeetAHostsOwnBudgetAlsoAfterRestart) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1", "http://a.test/2", "http://b.test/1"});
  EXPECT_EQ(AddUrls({"http://a.test/1"})[0].kind, Kind::kSeen);
  ASSERT_TRUE(core_->SetHostBudget("", "a.test", 2).ok());
  auto check = [&] {
    auto r = AddUrls({"http://a.test/1", "http://b.test/1"});
    EXPECT_EQ(r[0].kind, Kind::kRejected);
    EXPECT_EQ(r[0].reason, "host budget exhausted");
    EXPECT_EQ(r[1].kind, Kind::kSeen);
  };
  check();
  Reopen();
  check();
}

TEST_F(CrawlAddTest, RefetchRequeuesKnownUrlAtItsTime) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(Done(l[0], Fetched()));
  EXPECT_TRUE(core_->Finished(""));
  std::vector<AddRequest> req{AddRequest{"http://a.test/1", 0, 0, "", clock_.NowMs() + 5000}};
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("", req, &out).ok());
  EXPECT_EQ(out[0].kind, Kind::kRecrawl);
  EXPECT_FALSE(core_->Finished(""));
  EXPECT_TRUE(LeaseN(1).empty());
  EXPECT_EQ(core_->NextReadyMs(), clock_.NowMs() + 5000);
  clock_.Advance(5000);
  l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].url, "http://a.test/1");
}

// A URL listed twice in one recrawl call (a seed file with a repeated line)
// is queued once, whether it was seen before or is new in this call.
TEST_F(CrawlAddTest, RefetchQueuesAUrlListedTwiceInOneCallOnce) {
  Open(NoRobotsOptions());
  AddUrls({"http://a.test/1"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(Done(l[0], Fetched()));
  ASSERT_EQ(core_->Stats("").urls_queued, 0u);
  const int64_t due = clock_.NowMs() + 5000;
  std::vector<AddRequest> req{
      AddRequest{"http://a.test/1", 0, 0, "", due},  // seen
      AddRequest{"http://a.test/2", 0, 0, "", due},  // new
      AddRequest{"http://A.TEST/1", 0, 0, "", due},  // the first again
      AddRequest{"http://a.test/2", 0, 0, "", due},  // the new one again
      AddRequest{"http://a.test/3", 0, 0, "", 0},     // new, no recrawl
      AddRequest{"http://a.test/3", 0, 0, "", 0}};
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("", req, &out).ok());
  EXPECT_EQ(out[0].kind, Kind::kRecrawl);
  EXPECT_EQ(out[1].kind, Kind::kNew);
  EXPECT_EQ(out[2].kind, Kind::kSeen);  // queued once: the first listing's
  EXPECT_EQ(out[3].kind, Kind::kSeen);
  EXPECT_EQ(out[4].kind, Kind::kNew);
  EXPECT_EQ(out[5].kind, Kind::kSeen);
  EXPECT_EQ(core_->Stats("").urls_queued, 3u);
  // A second call for the same URL finds its waiting entry
  // (crawl_refetch_test.cc has the rest).
  ASSERT_TRUE(core_->Add("", std::span(req).first(1), &out).ok());
  EXPECT_EQ(out[0].kind, Kind::kSeen);
  EXPECT_EQ(core_->Stats("").urls_queued, 3u);
  l = LeaseN(10);  // only the URL without a recrawl time is ready now
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].url, "http://a.test/3");
}

TEST_F(CrawlAddTest, LinksGetDepthPlusOneAndMaxDepthApplies) {
  CrawlOptions o = NoRobotsOptions();
  o.max_depth = 1;
  Open(o);
  AddUrls({"http://a.test/"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(Done(l[0], Fetched(200, {"http://a.test/child", "http://b.test/x"})));
  l = LeaseN(10);
  ASSERT_EQ(l.size(), 2u);  // one per host
  for (auto& x : l) {
    EXPECT_EQ(x.depth, 1u);
    EXPECT_TRUE(Done(x, Fetched(200, {"http://c.test/too-deep"})));
  }
  EXPECT_EQ(core_->Stats("").urls_rejected, 2u);  // depth 2 > max_depth 1
  EXPECT_TRUE(core_->Finished(""));
  EXPECT_EQ(core_->Stats("").fetched_2xx, 3u);
}

TEST_F(CrawlAddTest, WorkCallbackFiresOnNewUrls) {
  Open();
  int calls = 0;
  core_->SetWorkCallback([&] { ++calls; });
  AddUrls({"http://a.test/1"});
  EXPECT_EQ(calls, 1);
  AddUrls({"http://a.test/1"});  // nothing new
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace crawlfront
