// Queue heads in RAM: their accounting, and crawl.queue_heads_bytes as the
// bound on what often-leased hosts read beyond head_buffer.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

constexpr int kHosts = 20, kPerHost = 300;
constexpr uint32_t kHeadBuffer = 4;

class HeadsTest : public CrawlFixture {
 protected:
  void OpenWithBudget(uint64_t budget, std::string_view crawl = kDefaultCrawl) {
    CrawlOptions o = NoRobotsOptions(0);
    o.head_buffer = kHeadBuffer;
    o.queue_heads_bytes = budget;
    Open(o);
    // URLs of one length, so every head costs the same RAM.
    std::vector<std::string> urls;
    char buf[64];
    for (int i = 0; i < kPerHost; ++i) {
      for (int h = 0; h < kHosts; ++h) {
        std::snprintf(buf, sizeof buf, "http://h%02d.test/page%04d", h, i);
        urls.push_back(buf);
      }
    }
    AddUrls(urls, crawl);
  }
  // Leases one URL per host per round (no politeness, one in flight per
  // host), 250 ms of fake time apart, until every URL is done; returns the
  // largest usage seen, field by field.
  CrawlCore::HeadsUsage DrainAll() {
    CrawlCore::HeadsUsage most;
    std::set<std::string> leased;
    for (int round = 0; round < 2 * kPerHost && leased.size() < kHosts * kPerHost; ++round) {
      for (const auto& l : LeaseN(kHosts)) {
        EXPECT_TRUE(leased.insert(l.url).second) << l.url << " leased twice";
        EXPECT_TRUE(Done(l, Fetched()));
      }
      const CrawlCore::HeadsUsage u = core_->heads_usage();
      EXPECT_LE(u.hosts, uint64_t{kHosts});
      most.bytes = std::max(most.bytes, u.bytes);
      most.entries = std::max(most.entries, u.entries);
      most.hosts = std::max(most.hosts, u.hosts);
      most.refills = u.refills;  // counted since the core opened
      most.refilled = u.refilled;
      clock_.Advance(250);
    }
    EXPECT_EQ(leased.size(), size_t{kHosts * kPerHost});
    return most;
  }
  void ExpectNoHeadsLeft() {
    const CrawlCore::HeadsUsage u = core_->heads_usage();
    EXPECT_EQ(u.bytes, 0u);
    EXPECT_EQ(u.entries, 0u);
    EXPECT_EQ(u.hosts, 0u);
  }
};

TEST_F(HeadsTest, WithoutABudgetEveryHostKeepsItsHeadBuffer) {
  OpenWithBudget(0);
  EXPECT_EQ(core_->heads_usage().entries, uint64_t{kHosts * kHeadBuffer});
  EXPECT_EQ(core_->heads_usage().hosts, uint64_t{kHosts});
  const CrawlCore::HeadsUsage most = DrainAll();
  EXPECT_LE(most.entries, uint64_t{kHosts * kHeadBuffer});
  // The adds placed the first heads; refills read every other URL once, at
  // most kHeadBuffer per RocksDB seek.
  EXPECT_EQ(most.refilled, uint64_t{kHosts * (kPerHost - kHeadBuffer)});
  EXPECT_GE(most.refills, most.refilled / kHeadBuffer);
  ExpectNoHeadsLeft();
}

TEST_F(HeadsTest, OftenLeasedHostsReadMoreHeadsWithinTheBudget) {
  OpenWithBudget(0, "base");
  const CrawlCore::HeadsUsage base = DrainAll();
  ASSERT_GT(base.bytes, 0u);
  Close();
  // A budget of twice the buffers' bytes; with the buffers every host keeps
  // beyond it, up to three times theirs in all. Hosts leased every 250 ms
  // ask for 16 times theirs (64 heads, under the cap of 256), so only the
  // budget stops them.
  const uint64_t budget = 2 * base.bytes;
  OpenWithBudget(budget, "budget");
  const CrawlCore::HeadsUsage most = DrainAll();
  EXPECT_GT(most.entries, 2 * base.entries) << "the budget was not used";
  EXPECT_LE(most.bytes, budget + base.bytes);
  EXPECT_LT(most.refills, base.refills) << "more heads, yet as many seeks";
  ExpectNoHeadsLeft();
}

TEST_F(HeadsTest, ALargeBudgetLetsEachHostReadUpToItsCap) {
  OpenWithBudget(uint64_t{1} << 30);
  const CrawlCore::HeadsUsage most = DrainAll();
  EXPECT_GT(most.entries, uint64_t{kHosts * kHeadBuffer * 8});
  EXPECT_LE(most.entries, uint64_t{kHosts * 256});  // kMaxHeadBuffer (host_sched.cc)
  ExpectNoHeadsLeft();
}

TEST_F(HeadsTest, AddsGrowTheBuffersOfHostsThatHoldTheirWholeQueue) {
  OpenWithBudget(uint64_t{1} << 30);
  // kPerHost URLs per host, at most kMaxHeadBuffer (256, host_sched.cc) held.
  const CrawlCore::HeadsUsage added = core_->heads_usage();
  EXPECT_EQ(added.entries, uint64_t{kHosts * 256});
  EXPECT_EQ(added.refills, 0u);
  const CrawlCore::HeadsUsage most = DrainAll();
  // Only what did not fit was read back from RocksDB.
  EXPECT_EQ(most.refilled, uint64_t{kHosts * (kPerHost - 256)});
  ExpectNoHeadsLeft();
}

TEST_F(HeadsTest, AddsGrowBuffersOnlyWithinTheBudget) {
  OpenWithBudget(0, "base");
  const CrawlCore::HeadsUsage base = core_->heads_usage();
  EXPECT_EQ(base.entries, uint64_t{kHosts * kHeadBuffer});
  Close();
  const uint64_t budget = 8 * base.bytes;
  OpenWithBudget(budget, "budget");
  // The reopened core holds the first crawl's head buffers too (beyond the
  // budget, as every host's head_buffer may be).
  const CrawlCore::HeadsUsage added = core_->heads_usage();
  EXPECT_GT(added.entries, 4 * base.entries) << "the budget was not used";
  EXPECT_LE(added.bytes, budget + base.bytes);
}

TEST_F(HeadsTest, DroppingAHostReleasesItsHeads) {
  OpenWithBudget(uint64_t{1} << 30);
  const CrawlCore::HeadsUsage before = core_->heads_usage();
  uint64_t dropped = 0;
  ASSERT_TRUE(core_->DropHost("", "h03.test", &dropped).ok());
  EXPECT_EQ(dropped, uint64_t{kPerHost});
  const CrawlCore::HeadsUsage after = core_->heads_usage();
  EXPECT_EQ(after.hosts, before.hosts - 1);
  // Every host holds as many heads (its whole queue or its cap).
  ASSERT_EQ(before.entries % before.hosts, 0u);
  EXPECT_EQ(after.entries, before.entries - before.entries / before.hosts);
  // URLs of one length: every host's buffer holds the same bytes.
  EXPECT_EQ(after.bytes, before.bytes - before.bytes / before.hosts);
}

// A full buffer (after a refill it holds exactly its records) taking a head
// that sorts before its back drops the back: no growth for a head that is
// then dropped, even while the budget would let buffers double.
TEST_F(HeadsTest, AFullBufferTakesAnEarlierHeadWithoutGrowing) {
  CrawlOptions o = NoRobotsOptions(0);
  o.head_buffer = 2;
  o.queue_heads_bytes = uint64_t{1} << 30;
  Open(o);
  // URLs of one length, so every record has the same size.
  auto url = [](int i) { return "http://one.test/page" + std::to_string(1000 + i); };
  std::vector<std::string> urls;
  for (int i = 0; i < 20; ++i) urls.push_back(url(i));
  AddUrls(urls);
  Reopen();  // no heads held: the lease refills head_buffer of them
  std::vector<LeasedUrl> first = LeaseN(1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].url, url(0));
  EXPECT_TRUE(Done(first[0], Fetched()));
  auto add_first = [&](int i, int32_t priority) {
    const std::vector<AddRequest> reqs{AddRequest{url(i), 0, priority, "", 0}};
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add(kDefaultCrawl, reqs, &out).ok());
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].kind, AddResult::Kind::kNew);
  };
  add_first(100, 5);  // fills the buffer's popped room
  const CrawlCore::HeadsUsage full = core_->heads_usage();
  ASSERT_EQ(full.entries, 2u);
  add_first(101, 9);  // sorts first: the back is dropped
  const CrawlCore::HeadsUsage after = core_->heads_usage();
  EXPECT_EQ(after.entries, 2u);
  EXPECT_EQ(after.bytes, full.bytes) << "a full buffer grew for a head it dropped";
  // The queue's order is unchanged by which heads RAM holds.
  std::vector<std::string> order;
  for (int i = 0; i < 30 && order.size() < 21; ++i) {
    for (const auto& l : LeaseN(1)) {
      order.push_back(l.url);
      EXPECT_TRUE(Done(l, Fetched()));
    }
  }
  ASSERT_EQ(order.size(), 21u);
  EXPECT_EQ(order[0], url(101));
  EXPECT_EQ(order[1], url(100));
  for (int i = 1; i < 20; ++i) EXPECT_EQ(order[i + 1], url(i));
}

}  // namespace
}  // namespace crawlfront
