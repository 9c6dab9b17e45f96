// Graceful shutdown of the real daemon: SIGTERM makes crawl-frontier stop
// serving, write its seen-set snapshot and exit 0 within the grace period;
// a restart finds what was added.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using testutil::Daemon;
using testutil::TempDir;

TEST(ShutdownTest, SigtermSnapshotsAndExitsZero) {
  TempDir dir;
  Daemon frontier;
  std::string err;
  ASSERT_TRUE(testutil::StartFrontier(&frontier, dir, dir / "data",
                                      {"--set", "seen.snapshot_interval=0ms"}, &err))
      << err;
  const std::vector<std::string> urls = {"http://stop.test/a", "http://stop.test/b",
                                         "http://other-stop.test/"};
  {
    auto c = integ::ConnectTo(frontier.Port("resp"));
    ASSERT_TRUE(c);
    std::vector<std::string> add = {"FRONTIER.ADD"};
    add.insert(add.end(), urls.begin(), urls.end());
    RespValue r = integ::Call(*c, add);
    ASSERT_EQ(r.elements.size(), urls.size()) << r.ToDebugString();
    // A client is connected while the signal arrives: shutdown must not wait
    // for it to leave.
    int status = frontier.Stop(std::chrono::seconds(30));
    ASSERT_TRUE(WIFEXITED(status)) << "killed, status " << status << ":\n"
                                   << testutil::Tail(frontier.log());
    EXPECT_EQ(WEXITSTATUS(status), 0) << testutil::Tail(frontier.log());
  }
  // With the periodic snapshot off, the one in the log is the shutdown's.
  std::string log = integ::ReadFile(frontier.log());
  EXPECT_NE(log.find("signal received: shutting down"), std::string::npos) << log;
  EXPECT_NE(log.find("seen-set: snapshot of"), std::string::npos) << log;
  EXPECT_NE(log.find("frontier: closed"), std::string::npos) << log;

  ASSERT_TRUE(testutil::StartFrontier(&frontier, dir, dir / "data", {}, &err)) << err;
  auto c = integ::ConnectTo(frontier.Port("resp"));
  ASSERT_TRUE(c);
  for (const auto& url : urls)
    EXPECT_EQ(integ::Call(*c, {"FRONTIER.SEEN", url}).integer, 1);
  EXPECT_EQ(integ::InfoField(*c, "urls_seen"), static_cast<int64_t>(urls.size()));
}

}  // namespace
}  // namespace crawlfront
