// Leases against the real daemon: an unreported lease expires and its URL
// comes back with the next attempt number; DONE removes a URL for good; a URL
// that keeps failing is marked failed after crawl.max_attempts.

#include <gtest/gtest.h>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using testutil::Daemon;
using testutil::TempDir;

constexpr int kLeaseTimeoutMs = 300;
constexpr int kMaxAttempts = 2;

struct Lease {
  std::string id, url;
  int64_t attempt = 0;
};

class LeaseExpiryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    ASSERT_TRUE(testutil::StartFrontier(
        &frontier_, dir_, dir_ / "data",
        {"--set", "crawl.lease_timeout=" + std::to_string(kLeaseTimeoutMs) + "ms",
         "--set", "crawl.lease_check_interval=50ms", "--set",
         "crawl.max_attempts=" + std::to_string(kMaxAttempts), "--set",
         "crawl.default_delay=0ms", "--set", "crawl.retry_backoff_base=0ms", "--set",
         "crawl.respect_robots=false"},
        &err))
        << err;
    client_ = integ::ConnectTo(frontier_.Port("resp"));
    ASSERT_TRUE(client_);
  }

  void Add(const std::string& url) {
    RespValue r = integ::Call(*client_, {"FRONTIER.ADD", url});
    ASSERT_EQ(r.ToDebugString(),
              RespValue::Array({RespValue::Integer(1)}).ToDebugString());
  }

  // Leases one URL, waiting up to `block_ms` (long enough to cover an expiry
  // on a slow machine, below the client's 10 s timeout). An empty id means
  // nothing came.
  Lease LeaseOne(int block_ms) {
    RespValue r = integ::Call(
        *client_, {"FRONTIER.LEASE", "w", "1", "BLOCK", std::to_string(block_ms)});
    EXPECT_EQ(r.type, RespType::kArray) << r.ToDebugString();
    if (r.elements.empty()) return {};
    const auto& e = r.elements[0].elements;
    return {e[0].str, e[1].str, e[3].integer};
  }

  int64_t Done(const Lease& l, const std::string& outcome) {
    RespValue r =
        integ::Call(*client_, {"FRONTIER.DONE", "w", l.id, outcome, "STATUS", "200"});
    EXPECT_EQ(r.type, RespType::kInteger) << r.ToDebugString();
    return r.integer;
  }

  TempDir dir_;
  Daemon frontier_;
  std::unique_ptr<RespClient> client_;
};

TEST_F(LeaseExpiryTest, ExpiredLeaseIsRedeliveredWithTheNextAttempt) {
  const std::string url = "http://expire.test/a";
  Add(url);
  Lease first = LeaseOne(5000);
  ASSERT_EQ(first.url, url);
  EXPECT_EQ(first.attempt, 1);
  // Not reported: after the lease timeout the same URL comes back.
  Lease second = LeaseOne(8000);
  ASSERT_EQ(second.url, url);
  EXPECT_EQ(second.attempt, 2);
  EXPECT_NE(second.id, first.id);
  // The expired lease's late report is ignored (0), the live one counts.
  EXPECT_EQ(Done(first, "fetched"), 0);
  EXPECT_EQ(Done(second, "fetched"), 1);
  EXPECT_GE(integ::InfoField(*client_, "leases_expired"), 1);
  EXPECT_EQ(integ::InfoField(*client_, "urls_done"), 1);
}

TEST_F(LeaseExpiryTest, DoneRemovesTheUrlForGood) {
  const std::string url = "http://done.test/a";
  Add(url);
  Lease l = LeaseOne(5000);
  ASSERT_EQ(l.url, url);
  EXPECT_EQ(Done(l, "fetched"), 1);
  // Wait several lease timeouts: nothing may come back.
  Lease again = LeaseOne(4 * kLeaseTimeoutMs);
  EXPECT_TRUE(again.id.empty()) << "re-delivered " << again.url;
  EXPECT_EQ(integ::InfoField(*client_, "urls_queued"), 0);
  EXPECT_EQ(integ::InfoField(*client_, "urls_inflight"), 0);
  EXPECT_EQ(integ::InfoField(*client_, "finished"), 1);
  // Adding it again is a duplicate, not new work.
  RespValue r = integ::Call(*client_, {"FRONTIER.ADD", url});
  EXPECT_EQ(r.ToDebugString(), RespValue::Array({RespValue::Integer(0)}).ToDebugString());
}

TEST_F(LeaseExpiryTest, ExpiringMaxAttemptsTimesFailsTheUrl) {
  const std::string url = "http://fail.test/a";
  Add(url);
  int64_t failed_before = integ::InfoField(*client_, "urls_failed");
  for (int attempt = 1; attempt <= kMaxAttempts; ++attempt) {
    Lease l = LeaseOne(8000);
    ASSERT_EQ(l.url, url) << "attempt " << attempt;
    EXPECT_EQ(l.attempt, attempt);
    // Never reported: let it expire.
  }
  ASSERT_TRUE(integ::WaitFor(
      [&] { return integ::InfoField(*client_, "urls_failed") == failed_before + 1; },
      std::chrono::seconds(20)))
      << "INFO crawl:\n"
      << integ::Call(*client_, {"INFO", "crawl"}).str;
  EXPECT_EQ(integ::InfoField(*client_, "urls_queued"), 0);
  EXPECT_TRUE(LeaseOne(2 * kLeaseTimeoutMs).id.empty());
}

TEST_F(LeaseExpiryTest, RetryOutcomeFailsTheUrlAfterMaxAttempts) {
  const std::string url = "http://retry.test/a";
  Add(url);
  for (int attempt = 1; attempt <= kMaxAttempts; ++attempt) {
    Lease l = LeaseOne(8000);
    ASSERT_EQ(l.url, url) << "attempt " << attempt;
    EXPECT_EQ(l.attempt, attempt);
    EXPECT_EQ(Done(l, "retry"), 1);
  }
  EXPECT_EQ(integ::InfoField(*client_, "urls_failed"), 1);
  EXPECT_EQ(integ::InfoField(*client_, "urls_queued"), 0);
  EXPECT_TRUE(LeaseOne(2 * kLeaseTimeoutMs).id.empty());
}

}  // namespace
}  // namespace crawlfront
