// Graceful shutdown of the real daemon: SIGTERM makes crawl-frontier stop
// serving, write its seen-set snapshot and exit 0 within the grace period;
// a restart finds what was added, and the leases in flight still open.

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

// Leases in flight at a SIGTERM are open again after the restart: their
// results count (DONE 1), RENEW works, and their URLs are not leased twice.
TEST(ShutdownTest, LeasesInFlightStayOpenAcrossARestart) {
  TempDir dir;
  Daemon frontier;
  std::string err;
  const std::vector<std::string> opts = {"--set", "crawl.respect_robots=false", "--set",
                                         "crawl.default_delay=0ms", "--set",
                                         "crawl.lease_timeout=10m"};
  ASSERT_TRUE(testutil::StartFrontier(&frontier, dir, dir / "data", opts, &err)) << err;
  std::vector<std::string> ids, leased;
  {
    auto c = integ::ConnectTo(frontier.Port("resp"));
    ASSERT_TRUE(c);
    RespValue added = integ::Call(*c, {"FRONTIER.ADD", "http://k1.test/a", "http://k2.test/a",
                                       "http://k3.test/a"});
    ASSERT_EQ(added.elements.size(), 3u) << added.ToDebugString();
    RespValue r = integ::Call(*c, {"FRONTIER.LEASE", "w7", "2"});
    ASSERT_EQ(r.elements.size(), 2u) << r.ToDebugString();
    for (const RespValue& l : r.elements) {
      ids.push_back(l.elements[0].str);
      leased.push_back(l.elements[1].str);
    }
    int status = frontier.Stop(std::chrono::seconds(30));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << status << ":\n" << testutil::Tail(frontier.log());
  }
  EXPECT_NE(integ::ReadFile(frontier.log()).find("kept 2 leases in flight for the next start"),
            std::string::npos)
      << testutil::Tail(frontier.log());

  ASSERT_TRUE(testutil::StartFrontier(&frontier, dir, dir / "data", opts, &err)) << err;
  auto c = integ::ConnectTo(frontier.Port("resp"));
  ASSERT_TRUE(c);
  EXPECT_EQ(integ::InfoField(*c, "urls_inflight"), 2);
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 1);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.RENEW", "w7", ids[1]}).integer, 1);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w8", ids[0], "fetched", "STATUS", "200"}).integer,
            0)
      << "another worker's lease";
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w7", ids[0], "fetched", "STATUS", "200"}).integer,
            1);
  RespValue rest = integ::Call(*c, {"FRONTIER.LEASE", "w7", "10"});
  ASSERT_EQ(rest.elements.size(), 1u) << rest.ToDebugString();
  const std::string url = rest.elements[0].elements[1].str;
  EXPECT_NE(url, leased[0]);
  EXPECT_NE(url, leased[1]);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w7", ids[1], "fetched", "STATUS", "200"}).integer,
            1);
  EXPECT_EQ(integ::InfoField(*c, "urls_done"), 2);
}

}  // namespace
}  // namespace crawlfront
