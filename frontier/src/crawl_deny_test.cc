// Deny patterns added at run time (FRONTIER.DENY) reject new URLs and
// discovered links of their crawl only, persist, and can be removed.

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class CrawlDenyTest : public CrawlFixture {
 protected:
  bool Deny(std::string_view pattern, std::string_view crawl = "") {
    bool added = false;
    Status s = core_->AddDenyPattern(crawl, pattern, &added);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return added;
  }
};

TEST_F(CrawlDenyTest, RejectsMatchingAddsAndLinksOfItsCrawlOnly) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/"});
  EXPECT_TRUE(Deny("/calendar/\\d{4}"));
  EXPECT_FALSE(Deny("/calendar/\\d{4}")) << "already there";
  auto r = AddUrls({"http://a.test/calendar/2031/01", "http://a.test/calendar/x",
                    "http://a.test/"});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].kind, AddResult::Kind::kRejected);
  EXPECT_EQ(r[0].reason, "denied by pattern");
  EXPECT_EQ(r[1].kind, AddResult::Kind::kNew);
  EXPECT_EQ(r[2].kind, AddResult::Kind::kSeen);
  auto other = AddUrls({"http://a.test/calendar/2031/01"}, "other");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].kind, AddResult::Kind::kNew) << "another crawl's scope";

  auto leased = LeaseN(1, "w1", "default");
  ASSERT_EQ(leased.size(), 1u);
  ASSERT_TRUE(Done(leased[0], Fetched(200, {"http://a.test/calendar/2032/05",
                                            "http://a.test/news"})));
  EXPECT_FALSE(core_->Seen("default", "http://a.test/calendar/2032/05").value());
  EXPECT_TRUE(core_->Seen("default", "http://a.test/news").value());
  EXPECT_EQ(core_->Stats("default").urls_rejected, 2u);
}

TEST_F(CrawlDenyTest, SurvivesRestartAndCanBeRemoved) {
  Open(NoRobotsOptions(0));
  EXPECT_TRUE(Deny("\\?sort="));
  EXPECT_TRUE(Deny("/print/"));
  Reopen();
  EXPECT_EQ(core_->ListDenyPatterns(""),
            (std::vector<std::string>{"\\?sort=", "/print/"}));
  auto r = AddUrls({"http://a.test/p?sort=1", "http://a.test/print/1"});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, AddResult::Kind::kRejected);
  EXPECT_EQ(r[1].kind, AddResult::Kind::kRejected);

  bool removed = false;
  ASSERT_TRUE(core_->RemoveDenyPattern("", "/print/", &removed).ok());
  EXPECT_TRUE(removed);
  ASSERT_TRUE(core_->RemoveDenyPattern("", "/print/", &removed).ok());
  EXPECT_FALSE(removed);
  ASSERT_TRUE(core_->RemoveDenyPattern("", "\\?sort=", &removed).ok());
  Reopen();
  EXPECT_TRUE(core_->ListDenyPatterns("").empty());
  r = AddUrls({"http://a.test/p?sort=1", "http://a.test/print/1"});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, AddResult::Kind::kNew) << "rejected before, so not seen";
  EXPECT_EQ(r[1].kind, AddResult::Kind::kNew);
}

// "^..." anchors at the URL's start only; with a '|' the '^' binds one
// alternative, and the other may match anywhere.
TEST_F(CrawlDenyTest, AnchoredPatternsAndAlternatives) {
  Open(NoRobotsOptions(0));
  EXPECT_TRUE(Deny("^http://a\\.test/x/"));
  EXPECT_TRUE(Deny("^http://nowhere\\.test/|/y/"));
  auto r = AddUrls({"http://a.test/x/1", "http://b.test/http://a.test/x/", "http://b.test/y/1",
                    "http://b.test/z"});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].kind, AddResult::Kind::kRejected);
  EXPECT_EQ(r[1].kind, AddResult::Kind::kNew) << "'^' anchors at the start only";
  EXPECT_EQ(r[2].kind, AddResult::Kind::kRejected) << "the unanchored alternative";
  EXPECT_EQ(r[3].kind, AddResult::Kind::kNew);
}

// Each edit compiles its set outside the lock and publishes it only if no
// other edit came first; otherwise it starts again. None may be lost.
TEST_F(CrawlDenyTest, ConcurrentEditsAreAllKept) {
  Open(NoRobotsOptions(0));
  constexpr int kThreads = 4, kEach = 25;
  EXPECT_TRUE(Deny("/gone/"));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        bool added = false;
        const std::string p = "/t" + std::to_string(t) + "/p" + std::to_string(i) + "/";
        EXPECT_TRUE(core_->AddDenyPattern("", p, &added).ok());
        EXPECT_TRUE(added) << p;
      }
      bool removed = false;
      if (t == 0) {
        EXPECT_TRUE(core_->RemoveDenyPattern("", "/gone/", &removed).ok());
        EXPECT_TRUE(removed);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(core_->ListDenyPatterns("").size(), size_t{kThreads * kEach});
  Reopen();
  EXPECT_EQ(core_->ListDenyPatterns("").size(), size_t{kThreads * kEach});
  for (int t = 0; t < kThreads; ++t) {
    auto r = AddUrls({"http://a.test/t" + std::to_string(t) + "/p24/x", "http://a.test/gone/"});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].kind, AddResult::Kind::kRejected);
    if (t == 0) {
      EXPECT_EQ(r[1].kind, AddResult::Kind::kNew) << "removed meanwhile";
    }
  }
}

TEST_F(CrawlDenyTest, BadPatternsAndCrawlIdsAreErrors) {
  Open(NoRobotsOptions(0));
  bool added = true;
  EXPECT_EQ(core_->AddDenyPattern("", "(", &added).code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(added);
  EXPECT_EQ(core_->AddDenyPattern("", "", &added).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(core_->AddDenyPattern("", std::string(4097, 'a'), &added).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(core_->AddDenyPattern("bad id", "x", &added).code(),
            Status::Code::kInvalidArgument);
  EXPECT_TRUE(core_->ListDenyPatterns("").empty());
  auto r = AddUrls({"http://a.test/("});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, AddResult::Kind::kNew);
}

}  // namespace
}  // namespace crawlfront
