#pragma once
// Shared fixture of the crawl core tests: a real Store and SeenSet in a temp
// directory and a ManualClock.

#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crawlfront/common/clock.h"
#include "crawlfront/frontier/crawl.h"
#include "test_dir_util.h"

namespace crawlfront {

using CrawlTempDir = testing::TestDir;

// The host records ('H') on disk, by host key (of any crawl).
inline std::map<std::string, HostRecord> StoredHostRecords(Store& store) {
  std::unique_ptr<rocksdb::Iterator> it(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.cf(Cf::kHost)));
  std::map<std::string, HostRecord> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    uint16_t part;
    std::string crawl, host;
    size_t plen;
    if (!ParseHostPrefix(key, &part, &crawl, &host, &plen) || key.substr(plen) != "H") continue;
    EXPECT_TRUE(DecodeHostRecord(it->value().ToStringView(), &out[host]).ok());
  }
  return out;
}

inline CrawlOptions TestOptions() {
  CrawlOptions o;
  o.default_delay = std::chrono::milliseconds(100);
  o.lease_timeout = std::chrono::milliseconds(10'000);
  o.retry_backoff_base = std::chrono::milliseconds(1'000);
  o.check_live_counts = true;
  return o;
}

// Opens store, seen-set and core; Reopen() closes and opens them again.
class CrawlFixture : public ::testing::Test {
 protected:
  void Open(const CrawlOptions& o = TestOptions()) {
    options_ = o;
    auto store = Store::Open(dir_.path(), store_options_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    SeenSetOptions so;
    so.partitions = 16;
    so.expected_urls = 1 << 14;
    so.snapshot_interval = std::chrono::milliseconds(0);
    auto seen = SeenSet::Open(store_.get(), so);
    ASSERT_TRUE(seen.ok()) << seen.status().ToString();
    seen_ = std::move(seen).value();
    auto core = CrawlCore::Open(store_.get(), seen_.get(), o, &clock_);
    ASSERT_TRUE(core.ok()) << core.status().ToString();
    core_ = std::move(core).value();
  }
  void Close() {
    if (core_) {
      EXPECT_EQ(core_->live_count_errors(), 0u) << "live sums differ from a walk";
    }
    core_.reset();
    seen_.reset();
    store_.reset();
  }
  void TearDown() override { Close(); }
  void Reopen() {
    Close();
    Open(options_);
  }

  std::vector<AddResult> AddUrls(const std::vector<std::string>& urls,
                                 std::string_view crawl = kDefaultCrawl, uint32_t depth = 0) {
    std::vector<AddRequest> reqs;
    for (const auto& u : urls) reqs.push_back(AddRequest{u, depth, 0, "", 0});
    std::vector<AddResult> out;
    Status s = core_->Add(crawl, reqs, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  std::vector<LeasedUrl> LeaseN(size_t n, std::string_view worker = "w1",
                                std::string_view crawl = "") {
    std::vector<LeasedUrl> out;
    Status s = core_->Lease(worker, n, crawl, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  bool Done(const LeasedUrl& l, DoneReport r, std::string_view worker = "w1") {
    bool known = false;
    Status s = core_->Done(worker, l.lease_id, r, &known);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return known;
  }
  static DoneReport Fetched(int status = 200, std::vector<std::string> links = {}) {
    DoneReport r;
    r.outcome = DoneOutcome::kFetched;
    r.http_status = status;
    r.links = std::move(links);
    return r;
  }
  static DoneReport RobotsBody(std::string body, int status = 200) {
    DoneReport r;
    r.outcome = DoneOutcome::kRobots;
    r.http_status = status;
    r.body = std::move(body);
    return r;
  }

  CrawlTempDir dir_;
  ManualClock clock_;
  CrawlOptions options_;
  StoreOptions store_options_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<SeenSet> seen_;
  std::unique_ptr<CrawlCore> core_;
};

inline CrawlOptions NoRobotsOptions(int64_t delay_ms = 0) {
  CrawlOptions o = TestOptions();
  o.respect_robots = false;
  o.default_delay = std::chrono::milliseconds(delay_ms);
  return o;
}

}  // namespace crawlfront
