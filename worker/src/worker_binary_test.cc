// The crawl-worker binary: command-line and configuration errors, signals.
// Against the fake frontier and test site of worker_test_util.h.

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "worker_test_util.h"

namespace crawlfront {
namespace {

using namespace worker_test;
namespace fs = std::filesystem;

// Bad flags and configuration exit 2 at once, saying which flag or key.
TEST_F(WorkerTest, BinaryRejectsBadCommandLinesAndConfiguration) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      // A trailing flag without a value once took the rewritten --set as
      // its value, and the worker ran against the default frontier.
      {{"--frontier", "127.0.0.1:1", "--worker-id"}, "'--worker-id' needs a value"},
      {{"--connect-to", "::127.0.0.1:1", "--warc-dir"}, "'--warc-dir' needs a value"},
      {{"--worker-id", "--exit-when-idle", "1"}, "'--worker-id' needs a value"},
      {{"--frontier", "127.0.0.1:1", "foo"}, "unexpected argument 'foo'"},
      {{"--set", "frontier.reconnect_min=5s", "--set", "frontier.reconnect_max=1s"},
       "frontier.reconnect_max (1000 ms) is below frontier.reconnect_min (5000 ms)"},
      {{"--set", "fetch.resolve=[\"bad\"]"},
       "key 'fetch.resolve': expected HOST:PORT:ADDRESS entries ('bad' needs at least 2"},
      {{"--connect-to", "bad"},
       "key 'fetch.connect_to': expected HOST:PORT:CONNECT-HOST:CONNECT-PORT entries ('bad' "
       "needs at least 3"},
      {{"--set", "warc.dir="}, "warc.dir is empty"},
      {{"--set", "fetch.tls_ca_file=/nonexistent.pem"},
       "key 'fetch.tls_ca_file': expected a readable file or \"\" (No such file or directory), "
       "got \"/nonexistent.pem\""},
      {{"--set", "fetch.user_agent="}, "key 'fetch.user_agent': expected the crawler's name"},
      {{"--frontier", "no-port"},
       "key 'frontier.addresses': expected host:port entries (frontier address 'no-port'"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string out = (dir_ / ("out" + std::to_string(n++))).string();
    // Anything but the case's own flags points at nothing that could work.
    std::vector<std::string> args = {"--frontier", "127.0.0.1:" + std::to_string(testutil::UnusedLoopbackPort()),
                                     "--warc-dir", (dir_ / "warc").string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const pid_t pid = SpawnWorker(args, out);
    ASSERT_GT(pid, 0);
    EXPECT_EQ(WaitExit(pid, std::chrono::seconds(10)), 2) << c.message;
    EXPECT_NE(ReadFile(out).find(c.message), std::string::npos)
        << c.message << "\n" << ReadFile(out);
  }
  EXPECT_FALSE(fs::exists(dir_ / "warc"));
}

// The same rules hold in a config file, and the error names its line.
TEST_F(WorkerTest, BinaryNamesTheConfigLineOfABadValue) {
  const fs::path config = dir_ / "worker.toml";
  {
    std::ofstream f(config);
    f << "[fetch]\nmax_transfers = 4\nuser_agent = \"(compatible; nobody)\"\n";
  }
  const std::string out = (dir_ / "out").string();
  const pid_t pid = SpawnWorker({"--config", config.string(), "--frontier",
                                 "127.0.0.1:" + std::to_string(testutil::UnusedLoopbackPort())},
                                out);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(10)), 2);
  const std::string text = ReadFile(out);
  EXPECT_NE(text.find("worker.toml:3"), std::string::npos) << text;
  EXPECT_NE(text.find("expected the crawler's name first"), std::string::npos) << text;
}

std::vector<std::string> SiteArgs(uint16_t frontier, uint16_t site, const fs::path& dir) {
  return {"--frontier", "127.0.0.1:" + std::to_string(frontier), "--connect-to",
          "site.test:80:127.0.0.1:" + std::to_string(site), "--warc-dir",
          (dir / "warc").string(), "--set", "fetch.allow_private_networks=true", "--set",
          "lease.block=100ms"};
}

// What crawlctl run asks before starting a frontier for these workers.
TEST_F(WorkerTest, BinaryPrintsItsRobotsToken) {
  const std::string out = (dir_ / "out").string();
  const pid_t pid = SpawnWorker({"--robots-token", "--set", "fetch.user_agent=MyBot/2.0 (+x)"},
                                out);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(10)), 0);
  EXPECT_EQ(ReadFile(out), "MyBot\n");
}

// The binary: command-line flags, then SIGTERM ends it with exit code 0.
TEST_F(WorkerTest, BinaryStopsCleanlyOnSigterm) {
  frontier_.Add("P1", "http://site.test/index.html", "page");
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  std::vector<std::string> args = SiteArgs(server->port(), http_.port(), dir_);
  args.insert(args.end(), {"--log-level", "warn"});
  const pid_t pid = SpawnWorker(args, (dir_ / "out").string());
  ASSERT_GT(pid, 0);
  const bool reported = WaitFor([&] { return frontier_.done_count() == 1; });
  kill(pid, SIGTERM);
  EXPECT_TRUE(reported);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 0);
  EXPECT_NE(ReadWarcs(dir_ / "warc").find("WARC-Target-URI: http://site.test/index.html"),
            std::string::npos);
}

// The first signal is logged and waits for the running transfer; a second
// one exits at once (130, as the frontier does).
TEST_F(WorkerTest, BinarySecondSignalExitsAtOnce) {
  frontier_.Add("S1", "http://site.test/slow", "page");
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  std::vector<std::string> args = SiteArgs(server->port(), http_.port(), dir_);
  args.insert(args.end(), {"--set", "worker.shutdown_grace=60s"});
  const std::string out = (dir_ / "out").string();
  const pid_t pid = SpawnWorker(args, out);
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitFor([&] { return !http_.requests().empty(); }));
  kill(pid, SIGTERM);
  const bool logged = WaitFor([&] {
    return ReadFile(out).find("finishing 1 transfer, grace 60000 ms") != std::string::npos;
  });
  kill(pid, SIGINT);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(5)), 130);
  EXPECT_TRUE(logged) << ReadFile(out);
  http_.OpenGate();
}

// SIGHUP (logrotate's signal after it moved the file) starts a new log file;
// the worker goes on and stops cleanly.
TEST_F(WorkerTest, BinaryReopensItsLogFileOnSighup) {
  frontier_.Add("P1", "http://site.test/index.html", "page");
  auto server = frontier_.Start(0);
  ASSERT_NE(server, nullptr);
  const std::string log = (dir_ / "w.log").string();
  std::vector<std::string> args = SiteArgs(server->port(), http_.port(), dir_);
  args.insert(args.end(), {"--set", "log.file=" + log});
  const pid_t pid = SpawnWorker(args, (dir_ / "out").string());
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitFor([&] { return frontier_.done_count() == 1; }));
  fs::rename(log, dir_ / "moved.log");
  kill(pid, SIGHUP);
  const bool reopened = WaitFor([&] {
    return ReadFile(log).find("SIGHUP: log file reopened") != std::string::npos;
  });
  kill(pid, SIGTERM);
  EXPECT_TRUE(reopened) << ReadFile(log);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 0);
  EXPECT_NE(ReadFile((dir_ / "moved.log").string()).find("index.html"), std::string::npos);
}

}  // namespace
}  // namespace crawlfront
