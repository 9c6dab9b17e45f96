// The worker against a fake frontier (worker_test_util.h) and a local HTTP
// server. Everything stays on 127.0.0.1.

#include "crawlfront/worker/worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "worker_internal.h"
#include "worker_test_util.h"

namespace crawlfront {
namespace {

using namespace worker_test;
namespace fs = std::filesystem;

using Args = std::vector<std::string>;

TEST_F(WorkerTest, FetchesReportsAndArchives) {
  frontier_.Add("R1", "http://site.test/robots.txt", "robots");
  frontier_.Add("P1", "http://site.test/index.html", "page");
  frontier_.Add("P2", "http://site.test/moved", "page");
  frontier_.Add("P3", "http://site.test/busy", "page");
  frontier_.Add("P4", "http://site.test/missing", "page");
  auto server = frontier_.Start(0);
  WorkerOptions o = Options(server->port());
  o.exit_when_idle = std::chrono::milliseconds(500);
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  std::atomic<bool> stop{false};
  ASSERT_TRUE((*worker)->Run(stop).ok());

  std::lock_guard<std::mutex> lock(frontier_.mu);
  ASSERT_EQ(frontier_.done.size(), 5u);
  const auto& robots = frontier_.done["R1"];
  ASSERT_GE(robots.size(), 3u);
  EXPECT_EQ(robots[0], "robots");
  EXPECT_EQ(robots[2], "200");
  EXPECT_EQ(robots.back(), "User-agent: *\nDisallow: /private\n");
  // Drop the measured MS value: it is the only non-deterministic part.
  auto without_ms = [](Args a) {
    for (size_t i = 0; i + 1 < a.size(); ++i) {
      if (a[i] == "MS") a.erase(a.begin() + i, a.begin() + i + 2);
    }
    return a;
  };
  EXPECT_EQ(without_ms(frontier_.done["P1"]),
            (Args{"fetched", "STATUS", "200", "LINKS", "http://site.test/a.html",
                  "http://other.test/c"}));
  EXPECT_EQ(without_ms(frontier_.done["P2"]),
            (Args{"fetched", "STATUS", "302", "LINKS", "http://site.test/index.html"}));
  EXPECT_EQ(without_ms(frontier_.done["P3"]),
            (Args{"retry", "STATUS", "503", "DELAY", "3000", "REASON", "http 503"}));
  EXPECT_EQ(without_ms(frontier_.done["P4"]), (Args{"fetched", "STATUS", "404"}));
  EXPECT_TRUE(frontier_.open.empty());
  EXPECT_EQ((*worker)->stats().fetched, 3u);
  EXPECT_EQ((*worker)->stats().pending_done, 0u);

  const std::string warc = ReadWarcs(dir_ / "warc");
  EXPECT_EQ(Count(warc, "WARC-Type: response"), 5u);
  EXPECT_EQ(Count(warc, "WARC-Type: request"), 5u);
  EXPECT_NE(warc.find("WARC-Target-URI: http://site.test/index.html"), std::string::npos);
  EXPECT_NE(warc.find("http://other.test/c"), std::string::npos);  // metadata outlink
  EXPECT_NE(warc.find("WARC-IP-Address: 127.0.0.1"), std::string::npos);
}

TEST_F(WorkerTest, ResultsAreResentAfterFrontierRestart) {
  frontier_.Add("S1", "http://site.test/slow", "page");
  auto server = frontier_.Start(0);
  const uint16_t port = server->port();
  auto worker = Worker::Open(Options(port));
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  RunningWorker running(**worker);

  // The fetch is held by the HTTP server; take the frontier away meanwhile.
  ASSERT_TRUE(WaitFor([&] { return !http_.requests().empty(); }));
  server->Stop();
  server.reset();
  http_.OpenGate();
  EXPECT_TRUE(WaitFor([&] { return (*worker)->stats().fetched == 1; }));
  EXPECT_EQ(frontier_.done_count(), 0u);  // nobody could hear it

  server = frontier_.Start(port);
  EXPECT_TRUE(WaitFor([&] { return frontier_.done_count() == 1; }));
  EXPECT_TRUE(WaitFor([&] { return (*worker)->stats().pending_done == 0; }));
  Status run_status = running.Join();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
  EXPECT_GE((*worker)->stats().reconnects, 1u);
  std::lock_guard<std::mutex> lock(frontier_.mu);
  ASSERT_EQ(frontier_.done.count("S1"), 1u);
  EXPECT_EQ(frontier_.done["S1"][0], "fetched");
  EXPECT_EQ(frontier_.done["S1"][2], "200");
}

// A configured id releases that id's earlier leases once, before its first
// LEASE; after a reconnect the id's leases are this process's own.
TEST_F(WorkerTest, ConfiguredIdReleasesEarlierLeasesOnlyOnFirstConnect) {
  auto server = frontier_.Start(0);
  const uint16_t port = server->port();
  auto worker = Worker::Open(Options(port));  // id "w1"
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  RunningWorker running(**worker);
  ASSERT_TRUE(WaitFor([&] { return frontier_.CallsOf("LEASE") > 0; }));
  server->Stop();
  server.reset();
  server = frontier_.Start(port);
  ASSERT_TRUE(WaitFor([&] { return (*worker)->stats().reconnects >= 1; }));
  const size_t leases_before = frontier_.CallsOf("LEASE");
  ASSERT_TRUE(WaitFor([&] { return frontier_.CallsOf("LEASE") > leases_before; }));
  running.Join().IgnoreError();
  std::lock_guard<std::mutex> lock(frontier_.mu);
  const auto& calls = frontier_.calls;
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "RELEASE w1"), 1) << ::testing::PrintToString(calls);
  const auto release = std::find(calls.begin(), calls.end(), "RELEASE w1");
  const auto lease = std::find(calls.begin(), calls.end(), "LEASE");
  EXPECT_LT(release, lease) << "released after leasing";
}

// A default id (<hostname>-<pid>) is new with each process: nothing to release.
TEST_F(WorkerTest, DefaultIdReleasesNothing) {
  auto server = frontier_.Start(0);
  WorkerOptions o = Options(server->port());
  o.id = "";
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  RunningWorker running(**worker);
  ASSERT_TRUE(WaitFor([&] { return frontier_.CallsOf("LEASE") > 0; }));
  running.Join().IgnoreError();
  std::lock_guard<std::mutex> lock(frontier_.mu);
  for (const std::string& call : frontier_.calls) EXPECT_NE(call.rfind("RELEASE", 0), 0u) << call;
}

// A frontier that crashed forgets open leases (docs/worker.md): the re-sent
// DONE is answered 0. It must still go out before the next LEASE, and count as
// late, not acknowledged.
TEST_F(WorkerTest, ResultsAreResentBeforeLeasingAgainAndLateOnesCounted) {
  frontier_.Add("S1", "http://site.test/slow", "page");
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  const uint16_t port = server->port();
  auto worker = Worker::Open(Options(port));
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  LogCapture logs;
  RunningWorker running(**worker);

  ASSERT_TRUE(WaitFor([&] { return !http_.requests().empty(); }));
  server->Stop();
  server.reset();
  size_t calls_before_restart = 0;
  {
    std::lock_guard<std::mutex> lock(frontier_.mu);
    frontier_.open.clear();  // the restarted frontier forgot S1's lease
    frontier_.leases.push_back({"S1b", "http://site.test/slow", "page"});
    frontier_.open.insert("S1b");
  }
  http_.OpenGate();
  EXPECT_TRUE(WaitFor([&] { return (*worker)->stats().fetched == 1; }));
  {
    std::lock_guard<std::mutex> lock(frontier_.mu);
    calls_before_restart = frontier_.calls.size();
  }
  server = frontier_.Start(port);
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(WaitFor([&] { return frontier_.done_count() == 2; }));
  Status run_status = running.Join();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
  std::lock_guard<std::mutex> lock(frontier_.mu);
  const std::vector<std::string> after(frontier_.calls.begin() + calls_before_restart,
                                       frontier_.calls.end());
  const auto first_done = std::find(after.begin(), after.end(), "DONE");
  const auto first_lease = std::find(after.begin(), after.end(), "LEASE");
  EXPECT_LT(first_done - after.begin(), first_lease - after.begin());
  EXPECT_EQ((*worker)->stats().late, 1u);
  EXPECT_EQ((*worker)->stats().acked, 1u);  // S1b
  EXPECT_EQ(logs.Lines(spdlog::level::info, "came too late: lease S1 "), 1u) << logs.All();
}

// Robots groups are chosen by the frontier for its crawl.user_agent; a
// worker sending another product token must not fetch (exit code 2).
TEST_F(WorkerTest, RobotsTokenMustMatchTheFrontiers) {
  struct Case {
    std::string line;
    bool runs;
  };
  const Case cases[] = {
      {"robots_user_agent:CRAWLFRONT", true},  // case-insensitive
      {"robots_user_agent:", true},            // the frontier ignores robots.txt
      {"robots_user_agent:mybot", false},
      {"", false},  // a frontier that does not say
  };
  for (const Case& c : cases) {
    FakeFrontier frontier;
    frontier.robots_line = c.line;
    frontier.Add("P1", "http://site.test/index.html", "page");
    auto server = frontier.Start(0);
    ASSERT_NE(server, nullptr);
    WorkerOptions o = Options(server->port());
    o.user_agent = "crawlfront/0.1 (+https://example.invalid/)";
    o.exit_when_idle = std::chrono::milliseconds(300);
    o.warc_enabled = false;
    auto worker = Worker::Open(o);
    ASSERT_TRUE(worker.ok());
    std::atomic<bool> stop{false};
    Status st = (*worker)->Run(stop);
    EXPECT_EQ(st.ok(), c.runs) << c.line << ": " << st.ToString();
    EXPECT_EQ(frontier.lease_calls > 0, c.runs) << c.line;
    if (!c.runs) {
      EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
      EXPECT_NE(st.message().find(c.line.empty() ? "robots_user_agent" : "crawl.user_agent"),
                std::string::npos) << st.message();
    }
  }
  size_t fetched_index = 0;
  for (const std::string& r : http_.requests()) {
    fetched_index += r.find("/index.html") != std::string::npos;
  }
  EXPECT_EQ(fetched_index, 2u);  // only by the two workers that ran
}

// At the end of the grace period running transfers are given back (RENEW
// with a 1 ms deadline) instead of holding their hosts until lease_timeout.
TEST_F(WorkerTest, AbandonedTransfersAreGivenBack) {
  frontier_.Add("S1", "http://site.test/slow", "page");
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  WorkerOptions o = Options(server->port());
  o.shutdown_grace = std::chrono::milliseconds(100);
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok());
  LogCapture logs;
  RunningWorker running(**worker);
  ASSERT_TRUE(WaitFor([&] { return !http_.requests().empty(); }));
  Status run_status = running.Join();
  http_.OpenGate();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
  EXPECT_EQ(logs.Lines(spdlog::level::info, "finishing 1 transfer, grace 100 ms"), 1u)
      << logs.All();
  EXPECT_EQ(logs.Lines(spdlog::level::warn, "abandoned 1 transfer; 1 returned"), 1u)
      << logs.All();
  std::lock_guard<std::mutex> lock(frontier_.mu);
  EXPECT_EQ(frontier_.renewed, (std::map<std::string, std::string>{{"S1", "1"}}));
  EXPECT_TRUE(frontier_.done.empty());
}

// One event, one warning: a lost connection is not also reported by the
// LEASE that found it, nor by the first reconnect attempts.
TEST_F(WorkerTest, LostFrontierIsOneWarning) {
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  const std::string address = "127.0.0.1:" + std::to_string(server->port());
  auto worker = Worker::Open(Options(server->port()));
  ASSERT_TRUE(worker.ok());
  LogCapture logs;
  RunningWorker running(**worker);
  ASSERT_TRUE(WaitFor([&] { return frontier_.CallsOf("LEASE") > 0; }));
  server->Stop();
  server.reset();
  ASSERT_TRUE(WaitFor([&] { return logs.Lines(spdlog::level::debug, "cannot connect") >= 3; }));
  running.Join().IgnoreError();
  EXPECT_EQ(logs.Lines(spdlog::level::warn, address), 1u) << logs.All();
  EXPECT_EQ(logs.Lines(spdlog::level::warn, "connection lost"), 1u) << logs.All();
}

// An unreachable frontier shows at the default level: a warning at once,
// then one per warn_interval, the other attempts at debug.
TEST(FrontierLinkTest, UnreachableFrontierWarnsAtOnceThenPeriodically) {
  worker_internal::FrontierLinkOptions o;
  o.backoff_min = std::chrono::milliseconds(1);
  o.backoff_max = std::chrono::milliseconds(2);
  o.warn_interval = std::chrono::milliseconds(300);
  o.user_agent = "crawlfront";
  worker_internal::FrontierLink link("127.0.0.1:" + std::to_string(testutil::UnusedLoopbackPort()), o);
  LogCapture logs;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
  while (std::chrono::steady_clock::now() < end) {  // about 1 s of attempts
    EXPECT_FALSE(link.EnsureConnected());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const size_t warned = logs.Lines(spdlog::level::warn, "cannot connect");
  EXPECT_GE(warned, 3u) << logs.All();
  EXPECT_LE(warned, 5u) << logs.All();
  EXPECT_EQ(logs.Lines(spdlog::level::warn, "next try in"), warned);
  EXPECT_EQ(logs.Lines(spdlog::level::warn, "still cannot connect after"), warned - 1);
  EXPECT_GT(logs.Lines(spdlog::level::debug, "cannot connect"), 10u);
}

// A frontier where a running worker uses the configured id answers BUSY:
// the link logs an error, stays unusable (so nothing is leased under the id)
// and asks again after its backoff until the release is accepted.
TEST_F(WorkerTest, ReleaseRefusedAsBusyIsRetriedBeforeLeasing) {
  frontier_.release_errors = {"BUSY worker id 'w1' is in use by another open connection (from "
                              "127.0.0.1:9, last used 0 s ago); give each worker its own id",
                              "BUSY"};  // bare: still refused, nothing to quote
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  worker_internal::FrontierLinkOptions o;
  o.backoff_min = std::chrono::milliseconds(1);
  o.backoff_max = std::chrono::milliseconds(2);
  o.warn_interval = std::chrono::milliseconds(0);
  o.user_agent = "crawlfront";
  o.release_id = "w1";
  worker_internal::FrontierLink link("127.0.0.1:" + std::to_string(server->port()), o);
  LogCapture logs;
  int refused = 0;
  for (int i = 0; i < 1000 && !link.EnsureConnected(); ++i) {
    ++refused;
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  EXPECT_TRUE(link.connected());
  EXPECT_EQ(refused, 2);
  EXPECT_EQ(frontier_.CallsOf("RELEASE w1"), 3u);
  EXPECT_EQ(logs.Lines(spdlog::level::err, "will not lease"), 2u) << logs.All();
  EXPECT_EQ(logs.Lines(spdlog::level::err, "(busy: worker id 'w1' is in use by another open "
                                           "connection (from 127.0.0.1:9"),
            1u)
      << logs.All();
}

// Without allow_private_networks the site (on 127.0.0.1) is refused: each
// result line says why, and one warning per host names the setting.
TEST_F(WorkerTest, PrivateAddressIsLoggedWithItsReason) {
  frontier_.Add("R1", "http://site.test/robots.txt", "robots");
  frontier_.Add("P1", "http://site.test/index.html", "page");
  frontier_.Add("P2", "http://site.test/moved", "page");
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  WorkerOptions o = Options(server->port());
  o.allow_private_networks = false;
  o.exit_when_idle = std::chrono::milliseconds(300);
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok());
  LogCapture logs;
  std::atomic<bool> stop{false};
  ASSERT_TRUE((*worker)->Run(stop).ok());
  EXPECT_EQ(logs.Lines(spdlog::level::info, ": private address"), 3u) << logs.All();
  EXPECT_EQ(logs.Lines(spdlog::level::warn, "host site.test: not fetched, private address"), 1u)
      << logs.All();
  std::lock_guard<std::mutex> lock(frontier_.mu);
  EXPECT_EQ(frontier_.done["R1"], (Args{"disallowed", "REASON", "private address"}));
  EXPECT_TRUE(http_.requests().empty());
  EXPECT_TRUE(fs::is_empty(dir_ / "warc"));  // no file holding only a warcinfo
}

TEST_F(WorkerTest, MaxPagesLimitsLeases) {
  for (int i = 0; i < 5; ++i) {
    frontier_.Add("P" + std::to_string(i), "http://site.test/p" + std::to_string(i), "page");
  }
  auto server = frontier_.Start(0);
  WorkerOptions o = Options(server->port());
  o.max_pages = 2;
  o.warc_enabled = false;
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok());
  std::atomic<bool> stop{false};
  ASSERT_TRUE((*worker)->Run(stop).ok());
  std::lock_guard<std::mutex> lock(frontier_.mu);
  EXPECT_EQ(frontier_.done.size(), 2u);
  EXPECT_EQ(frontier_.leases.size(), 3u);
  EXPECT_FALSE(fs::exists(dir_ / "warc"));
}

TEST_F(WorkerTest, BadOptionsAreRejected) {
  WorkerOptions o = Options(1);
  o.frontiers = {"no-port"};
  EXPECT_EQ(Worker::Open(o).status().code(), Status::Code::kInvalidArgument);
  o = Options(1);
  o.frontiers.clear();
  EXPECT_EQ(Worker::Open(o).status().code(), Status::Code::kInvalidArgument);
  o = Options(1);
  o.connect_to = {"bad"};
  EXPECT_EQ(Worker::Open(o).status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace crawlfront
