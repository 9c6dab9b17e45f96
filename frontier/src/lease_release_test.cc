// Releasing a worker's leases before their deadlines (FRONTIER.RELEASE) and
// counting leases per worker (FRONTIER.WORKERS).

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class LeaseReleaseTest : public CrawlFixture {
 protected:
  void SetUp() override { Open(NoRobotsOptions()); }
  size_t Release(std::string_view worker, std::vector<std::string> ids = {}) {
    size_t n = 0;
    EXPECT_TRUE(core_->ReleaseLeases(worker, ids, &n).ok());
    return n;
  }
};

TEST_F(LeaseReleaseTest, AWorkersLeasesGoBackToTheirQueuesAtOnce) {
  AddUrls({"http://a.test/1", "http://b.test/1", "http://c.test/1"});
  auto gone = LeaseN(2, "gone");
  auto live = LeaseN(1, "live");
  ASSERT_EQ(gone.size(), 2u);
  ASSERT_EQ(live.size(), 1u);
  clock_.Advance(500);
  auto by = core_->LeasesByWorker();
  ASSERT_EQ(by.size(), 2u);
  EXPECT_EQ(by[0].worker, "gone");
  EXPECT_EQ(by[0].leases, 2u);
  EXPECT_EQ(by[0].next_deadline_in_ms, options_.lease_timeout.count() - 500);
  EXPECT_EQ(by[1].worker, "live");
  EXPECT_EQ(by[1].leases, 1u);

  EXPECT_EQ(Release("nobody"), 0u);
  EXPECT_EQ(Release("gone"), 2u);
  EXPECT_EQ(core_->Stats("").urls_inflight, 1u);
  by = core_->LeasesByWorker();
  ASSERT_EQ(by.size(), 1u);
  EXPECT_EQ(by[0].worker, "live");
  EXPECT_FALSE(Done(gone[0], Fetched(), "gone")) << "a released lease is no longer open";
  // Long before the deadline, another worker gets them, as after an expiry.
  auto again = LeaseN(10, "new");
  std::set<std::string> urls;
  for (const auto& l : again) {
    urls.insert(l.url);
    EXPECT_EQ(l.attempt, 2u) << l.url;
  }
  EXPECT_EQ(urls, (std::set<std::string>{gone[0].url, gone[1].url}));
  EXPECT_TRUE(Done(live[0], Fetched(), "live")) << "other workers' leases are untouched";
}

TEST_F(LeaseReleaseTest, OnlyTheNamedLeasesOfThatWorker) {
  AddUrls({"http://a.test/1", "http://b.test/1"});
  auto l = LeaseN(2, "w");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(Release("other", {l[0].lease_id}), 0u) << "not its lease";
  EXPECT_EQ(Release("w", {"not-a-lease-id"}), 0u) << "naming only bad ids is not 'all'";
  EXPECT_EQ(Release("w", {"not-a-lease-id", "L0000000000000000"}), 0u);
  EXPECT_EQ(Release("w", {l[0].lease_id}), 1u);
  EXPECT_EQ(Release("w", {l[0].lease_id}), 0u) << "already released";
  EXPECT_FALSE(Done(l[0], Fetched(), "w"));
  EXPECT_TRUE(Done(l[1], Fetched(), "w"));
  EXPECT_EQ(core_->Stats("").leases_expired, 1u);
}

// A URL whose fetches keep killing workers ends failed, as with expiries.
TEST_F(LeaseReleaseTest, ReleasesCountTowardsMaxAttempts) {
  AddUrls({"http://a.test/poison"});
  for (uint32_t attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    auto l = LeaseN(1, "w" + std::to_string(attempt));
    ASSERT_EQ(l.size(), 1u) << attempt;
    EXPECT_EQ(l[0].attempt, attempt);
    EXPECT_EQ(Release("w" + std::to_string(attempt)), 1u);
  }
  EXPECT_TRUE(LeaseN(1, "next").empty());
  EXPECT_EQ(core_->Stats("").urls_failed, 1u);
  EXPECT_TRUE(core_->Finished(""));
}

}  // namespace
}  // namespace crawlfront
