// kill -9 of crawl-frontier in the middle of a stream of adds and dones, then
// a restart on the same data directory. The durability contract
// (ARCHITECTURE.md 8 and 9): an acknowledged add survives (FRONTIER.SEEN 1
// and, unless done, it is leased again), an acknowledged DONE is final (its
// URL is never leased again).

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::Daemon;
using testutil::TempDir;

constexpr int kHosts = 64;
constexpr int kBatch = 20;

class CrashTest : public ::testing::Test {
 protected:
  bool Start() {
    std::string err;
    bool ok = testutil::StartFrontier(
        &frontier_, dir_, dir_ / "data",
        {"--set", "crawl.default_delay=0ms", "--set", "crawl.respect_robots=false",
         "--set", "crawl.lease_timeout=2s", "--set", "crawl.lease_check_interval=100ms"},
        &err);
    EXPECT_TRUE(ok) << err;
    return ok;
  }

  // Adds batches of unique URLs until the frontier goes away (or `stop_`);
  // records each URL whose add was acknowledged as new.
  void Adder() {
    auto client = integ::ConnectTo(frontier_.Port("resp"));
    for (int b = 0; client && !stop_ && b < 100'000; ++b) {
      std::vector<std::string> args = {"FRONTIER.ADD"};
      for (int i = 0; i < kBatch; ++i) {
        args.push_back("http://crash-h" + std::to_string((b * kBatch + i) % kHosts) +
                       ".test/b" + std::to_string(b) + "/u" + std::to_string(i));
      }
      RespValue r = integ::Call(*client, args);
      if (r.is_error()) return;  // the frontier was killed
      std::lock_guard lock(mu_);
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (r.elements[i].type == RespType::kInteger && r.elements[i].integer == 1) {
          added_.insert(args[i + 1]);
        } else {
          anomalies_.push_back(args[i + 1] + " -> " + r.elements[i].ToDebugString());
        }
      }
    }
  }

  // Leases and reports DONE until the frontier goes away; records the URLs
  // whose DONE was acknowledged, and those whose DONE had no reply.
  void Leaser() {
    auto client = integ::ConnectTo(frontier_.Port("resp"));
    for (int n = 0; client && !stop_ && n < 1'000'000; ++n) {
      RespValue r =
          integ::Call(*client, {"FRONTIER.LEASE", "crash-w", "16", "BLOCK", "100"});
      if (r.is_error()) return;
      for (const RespValue& lease : r.elements) {
        const std::string& url = lease.elements[1].str;
        RespValue d =
            integ::Call(*client, {"FRONTIER.DONE", "crash-w", lease.elements[0].str,
                                  "fetched", "STATUS", "200"});
        std::lock_guard lock(mu_);
        if (d.is_error()) {
          in_doubt_.insert(url);
          return;
        }
        if (d.integer == 1) done_.insert(url);
      }
    }
  }

  size_t Count(const std::set<std::string>& s) {
    std::lock_guard lock(mu_);
    return s.size();
  }

  TempDir dir_;
  Daemon frontier_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::set<std::string> added_, done_, in_doubt_;
  std::vector<std::string> anomalies_;
};

TEST_F(CrashTest, AcknowledgedAddsAndDonesSurviveKill9) {
  ASSERT_TRUE(Start());
  std::thread adder([this] { Adder(); });
  std::thread leaser([this] { Leaser(); });
  // Let both streams get going, then kill at a random moment.
  bool going = integ::WaitFor([&] { return Count(added_) >= 400 && Count(done_) >= 40; },
                              std::chrono::seconds(60));
  unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  int extra_ms = std::uniform_int_distribution<int>(0, 500)(rng);
  std::this_thread::sleep_for(std::chrono::milliseconds(extra_ms));
  frontier_.Kill9();
  stop_ = true;
  adder.join();
  leaser.join();
  ASSERT_TRUE(going) << "the streams did not start:\n" << testutil::Tail(frontier_.log());
  RecordProperty("kill_after_extra_ms", extra_ms);
  std::printf("killed after +%d ms: %zu adds and %zu dones acknowledged\n", extra_ms,
              added_.size(), done_.size());
  EXPECT_TRUE(anomalies_.empty()) << anomalies_.front();

  ASSERT_TRUE(Start());
  auto client = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(client);
  std::vector<std::string> all(added_.begin(), added_.end());
  for (size_t i = 0; i < all.size(); i += 500) {
    std::vector<std::vector<std::string>> cmds;
    for (size_t j = i; j < std::min(all.size(), i + 500); ++j) {
      cmds.push_back({"FRONTIER.SEEN", all[j]});
    }
    auto replies = client->Pipeline(cmds);
    ASSERT_TRUE(replies.ok()) << replies.status().ToString();
    for (size_t j = 0; j < replies->size(); ++j) {
      ASSERT_EQ((*replies)[j].integer, 1) << "acknowledged add lost: " << cmds[j][1];
    }
  }

  // Drain: every lease after the restart must be a URL not acknowledged done.
  std::set<std::string> drained;
  auto deadline = Clock::now() + std::chrono::seconds(90);
  int empty_in_a_row = 0;
  while (Clock::now() < deadline && empty_in_a_row < 3) {
    RespValue r =
        integ::Call(*client, {"FRONTIER.LEASE", "drain", "200", "BLOCK", "300"});
    ASSERT_EQ(r.type, RespType::kArray) << r.ToDebugString();
    empty_in_a_row = r.elements.empty() ? empty_in_a_row + 1 : 0;
    for (const RespValue& lease : r.elements) {
      const std::string& url = lease.elements[1].str;
      EXPECT_EQ(done_.count(url), 0u)
          << "leased again after an acknowledged DONE: " << url;
      drained.insert(url);
      RespValue d = integ::Call(*client, {"FRONTIER.DONE", "drain", lease.elements[0].str,
                                          "fetched", "STATUS", "200"});
      ASSERT_EQ(d.integer, 1) << d.ToDebugString();
    }
  }
  EXPECT_EQ(integ::InfoField(*client, "urls_queued"), 0);
  EXPECT_EQ(integ::InfoField(*client, "urls_inflight"), 0);
  // No URL lost: each acknowledged add was either done before the crash
  // (acknowledged, or reported without a reply) or leased in the drain.
  size_t missing = 0;
  for (const auto& url : added_) {
    if (!done_.count(url) && !in_doubt_.count(url) && !drained.count(url)) {
      if (++missing <= 5) ADD_FAILURE() << "never leased again: " << url;
    }
  }
  EXPECT_EQ(missing, 0u);
}

}  // namespace
}  // namespace crawlfront
