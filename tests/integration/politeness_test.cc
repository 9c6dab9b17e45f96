// Politeness against the real daemon: 8 concurrent leasing clients on two
// hosts with a 200 ms delay. The frontier must space the leases of one host
// at least 200 ms apart and never hand out more than max_inflight_per_host
// (1) of a host's URLs at once.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::Daemon;
using testutil::TempDir;

constexpr int kDelayMs = 200;
constexpr int kClients = 8;
constexpr int kUrlsPerHost = 5;
// Longer than the delay, so that a frontier allowing 2 leases per host would
// hand out the next one while this one is still held: the in-flight check
// then has something to catch.
constexpr int kHoldMs = kDelayMs + 100;
const std::vector<std::string> kHosts = {"polite-a.test", "polite-b.test"};

// One lease as a client saw it. The frontier grants a lease at some moment
// between `sent` (request written) and `received` (reply read).
struct Observed {
  std::string url;
  Clock::time_point sent;
  Clock::time_point received;
};

std::string HostOf(const std::string& url) {
  size_t start = url.find("://") + 3;
  return url.substr(start, url.find('/', start) - start);
}

class PolitenessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    ASSERT_TRUE(testutil::StartFrontier(
        &frontier_, dir_, dir_ / "data",
        {"--set", "crawl.default_delay=" + std::to_string(kDelayMs) + "ms", "--set",
         "crawl.respect_robots=false", "--set", "crawl.max_inflight_per_host=1"},
        &err))
        << err;
  }

  // One leasing client: lease, hold the URL for kHoldMs, report it done, until
  // every URL was leased or the (generous) deadline passes.
  void Worker(int id, Clock::time_point deadline) {
    auto client = integ::ConnectTo(frontier_.Port("resp"));
    if (!client) {
      errors_++;
      return;
    }
    std::string name = "w" + std::to_string(id);
    while (leased_ < total_ && Clock::now() < deadline) {
      auto sent = Clock::now();
      RespValue r = integ::Call(*client, {"FRONTIER.LEASE", name, "1", "BLOCK", "300"});
      auto received = Clock::now();
      if (r.is_error() || r.type != RespType::kArray) {
        errors_++;
        return;
      }
      for (const RespValue& lease : r.elements) {
        const std::string& url = lease.elements[1].str;
        std::string host = HostOf(url);
        NoteOutstanding(host, +1);
        {
          std::lock_guard lock(mu_);
          seen_[host].push_back({url, sent, received});
        }
        leased_++;
        std::this_thread::sleep_for(std::chrono::milliseconds(kHoldMs));
        // Decrement before sending DONE: the client's view of "held" is then
        // inside the frontier's, so an overlap here is a real overlap.
        NoteOutstanding(host, -1);
        RespValue done = integ::Call(
            *client,
            {"FRONTIER.DONE", name, lease.elements[0].str, "fetched", "STATUS", "200"});
        if (done.type != RespType::kInteger || done.integer != 1) errors_++;
      }
    }
  }

  void NoteOutstanding(const std::string& host, int delta) {
    std::lock_guard lock(mu_);
    int& n = outstanding_[host];
    n += delta;
    max_outstanding_[host] = std::max(max_outstanding_[host], n);
  }

  TempDir dir_;
  Daemon frontier_;
  int total_ = 0;
  std::atomic<int> leased_{0};
  std::atomic<int> errors_{0};
  std::mutex mu_;
  std::map<std::string, std::vector<Observed>> seen_;
  std::map<std::string, int> outstanding_;
  std::map<std::string, int> max_outstanding_;
};

TEST_F(PolitenessTest, LeasesOfAHostAreSpacedAndNeverOverlap) {
  auto client = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(client);
  std::vector<std::string> add = {"FRONTIER.ADD"};
  for (const auto& host : kHosts) {
    for (int i = 0; i < kUrlsPerHost; ++i)
      add.push_back("http://" + host + "/p" + std::to_string(i));
  }
  total_ = static_cast<int>(add.size()) - 1;
  RespValue added = integ::Call(*client, add);
  ASSERT_EQ(added.elements.size(), static_cast<size_t>(total_)) << added.ToDebugString();

  auto deadline = Clock::now() + std::chrono::seconds(60);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i)
    threads.emplace_back([this, i, deadline] { Worker(i, deadline); });
  for (auto& t : threads) t.join();

  EXPECT_EQ(errors_.load(), 0);
  EXPECT_EQ(leased_.load(), total_);
  for (const auto& host : kHosts) {
    auto& leases = seen_[host];
    ASSERT_EQ(leases.size(), static_cast<size_t>(kUrlsPerHost)) << host;
    EXPECT_EQ(max_outstanding_[host], 1) << host;
    std::set<std::string> urls;
    for (const auto& l : leases) urls.insert(l.url);
    EXPECT_EQ(urls.size(), leases.size()) << host << ": a URL was leased twice";

    // With one lease in flight, lease k+1 is granted after DONE k, so reply
    // order is grant order. Grant k lies after sent[k] and grant k+1 before
    // received[k+1]: that span must hold the 200 ms, whatever the machine's
    // load. The frontier's clock has 1 ms resolution (a grant at 10.9 ms is
    // stored as 10 ms), hence 2 ms of slack for rounding.
    std::sort(leases.begin(), leases.end(), [](const Observed& a, const Observed& b) {
      return a.received < b.received;
    });
    for (size_t k = 1; k < leases.size(); ++k) {
      auto span = std::chrono::duration_cast<std::chrono::microseconds>(
          leases[k].received - leases[k - 1].sent);
      EXPECT_GE(span.count(), (kDelayMs - 2) * 1000)
          << host << ": leases " << leases[k - 1].url << " and " << leases[k].url;
    }
  }
}

}  // namespace
}  // namespace crawlfront
