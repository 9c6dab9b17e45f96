// crawl-frontier's command line: mistakes stop it before it opens anything,
// with exit code 2 and a message about the actual mistake.

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

TEST(FrontierCliTest, MistakesExitTwoWithTheirOwnMessage) {
  testutil::TempDir dir;
  const std::string data = dir / "data";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"configs/frontier.toml"}, "unexpected argument 'configs/frontier.toml'"},
      {{"--listen", "127.0.0.1:99999"}, "IP address and port"},
      {{"--listen", "127.0.0.1"}, "IP address and port"},
      {{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:99999"}, "server.http"},
      {{"--set", "seen.partitions=3"}, "power of two"},
      {{"--listen", "0.0.0.0:0"}, "not loopback; set server.auth_token"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {testutil::BinDir() + "/crawl-frontier", "--data-dir", data};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = integ::Run(argv, dir.path());
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(data)) << "opened data dir for " << c.args.back();
  }
}

// log.max_file_bytes rotates the log file (the start-up config dump alone
// passes 2 KiB), and SIGHUP, logrotate's signal, starts a new file after
// the old one was moved; the frontier keeps serving and stops cleanly.
TEST(FrontierCliTest, LogFilesRotateAndSighupReopens) {
  testutil::TempDir dir;
  const std::string log = dir / "f.log";
  testutil::Daemon d;
  std::string error;
  ASSERT_TRUE(testutil::StartFrontier(&d, dir, dir / "data",
                                      {"--set", "log.file=" + log, "--set",
                                       "log.max_file_bytes=2048", "--set", "log.max_files=2"},
                                      &error))
      << error;
  EXPECT_TRUE(std::filesystem::exists(log + ".1"));
  EXPECT_FALSE(std::filesystem::exists(log + ".3")) << "log.max_files 2";
  for (const std::string& f : {log, log + ".1"}) {
    EXPECT_LE(std::filesystem::file_size(f), 2048u) << f;
  }
  std::filesystem::rename(log, dir / "moved.log");
  ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
  bool reopened = false;  // bounded wait, not a timing check
  for (int i = 0; i < 300 && !reopened; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reopened = testutil::Tail(log).find("SIGHUP: log file reopened") != std::string::npos;
  }
  EXPECT_TRUE(reopened) << testutil::Tail(log);
  auto c = integ::ConnectTo(d.Port("resp"));
  ASSERT_TRUE(c);
  EXPECT_EQ(integ::Call(*c, {"PING"}).str, "PONG");
  const int status = d.Stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(testutil::Tail(log).find("shutting down"), std::string::npos) << testutil::Tail(log);
}

}  // namespace
}  // namespace crawlfront
