// crawlctl run, the all-in-one crawl (simweb, frontier, worker on
// 127.0.0.1): a second run in the same workdir never deletes the first
// run's WARC files unless told to (--fresh), and --resume continues it;
// simweb's failing robots.txt (host 2) is settled in seconds, and a run
// that stalls says which host waits for what.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

namespace fs = std::filesystem;
using testutil::TempDir;

std::set<std::string> WarcFiles(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    names.insert(it->path().filename().string());
  }
  return names;
}

class CrawlctlRunTest : public ::testing::Test {
 protected:
  integ::ProcessResult Run(std::vector<std::string> extra, const std::string& hosts = "2",
                           const std::string& timeout = "120") {
    std::vector<std::string> argv = {testutil::BinDir() + "/crawlctl", "run",    "--workdir",
                                     work_,    "--hosts", hosts,      "--pages", "4",
                                     "--delay-ms", "0",    "--timeout", timeout};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return integ::Run(argv, scratch_.path());
  }

  TempDir dir_, scratch_;
  std::string work_ = dir_ / "run";
};

TEST_F(CrawlctlRunTest, ASecondRunKeepsTheFirstRunsWarcFilesUnlessFresh) {
  auto first = Run({});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("crawl finished"), std::string::npos) << first.out;
  const std::set<std::string> warcs = WarcFiles(fs::path(work_) / "warc");
  ASSERT_FALSE(warcs.empty());

  auto refused = Run({});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("--resume"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--fresh"), std::string::npos) << refused.err;
  EXPECT_EQ(WarcFiles(fs::path(work_) / "warc"), warcs);
  EXPECT_EQ(Run({"--fresh", "--resume"}).exit_code, 2);

  // Resumed: the seeds are already seen and the queue is empty, so the
  // crawl is finished at once; the earlier files stay.
  auto resumed = Run({"--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const std::set<std::string> after_resume = WarcFiles(fs::path(work_) / "warc");
  for (const std::string& name : warcs) EXPECT_TRUE(after_resume.count(name)) << name;

  auto fresh = Run({"--fresh"});
  ASSERT_EQ(fresh.exit_code, 0) << fresh.out << fresh.err;
  const std::set<std::string> after_fresh = WarcFiles(fs::path(work_) / "warc");
  EXPECT_FALSE(after_fresh.empty());
  for (const std::string& name : after_resume) EXPECT_FALSE(after_fresh.count(name)) << name;
}

// The workers' own user agent: the frontier started by run matches robots.txt
// groups for its product token, so the workers (which refuse a frontier
// with another token) crawl.
TEST_F(CrawlctlRunTest, TheFrontierTakesTheWorkersRobotsToken) {
  auto run = Run({"--worker-arg=--set",
                  "--worker-arg=fetch.user_agent=mybot/1.0 (+https://example.invalid/bot)"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("crawl finished"), std::string::npos) << run.out;
  const std::string log = integ::ReadFile(work_ + "/logs/frontier.log");
  EXPECT_NE(log.find("user_agent = \"mybot\""), std::string::npos) << log.substr(0, 4000);

  auto bad = Run({"--fresh", "--worker-arg=--set", "--worker-arg=fetch.user_agent="});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("user_agent"), std::string::npos) << bad.err;
}

// Times (Unix s) of host 2's robots.txt requests in simweb's access log
// ("1796647372.906 h2.simweb.test /robots.txt 500 23").
std::vector<double> Host2RobotsTimes(const std::string& log) {
  std::vector<double> times;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" h2.simweb.test /robots.txt ") != std::string::npos) {
      times.push_back(std::stod(line.substr(0, line.find(' '))));
    }
  }
  return times;
}

// Host 2's robots.txt answers 500 for ever. The frontier asks it again
// after 1 s, then 2 s (crawl.robots_error_backoff=1s doubling, which run
// sets for simweb), and after the third failure (max_attempts) counts the
// host's pages as robots-blocked, so the crawl finishes instead of waiting
// robots_error_retry (1 h).
TEST_F(CrawlctlRunTest, SimwebsFailingRobotsTxtIsSettledInSeconds) {
  auto run = Run({}, "3");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("crawl finished"), std::string::npos) << run.out;
  const std::string log = integ::ReadFile(work_ + "/logs/simweb-access.log");
  const std::vector<double> t = Host2RobotsTimes(log);
  ASSERT_EQ(t.size(), 3u) << log;
  EXPECT_GE(t[1] - t[0], 1.0 - 0.002) << log;  // log times are in ms
  EXPECT_GE(t[2] - t[1], 2.0 - 0.002) << log;
  EXPECT_EQ(run.out.find("urls_robots_blocked    0\n"), std::string::npos) << run.out;
}

// A run stopped with URLs still queued names the host and its wait.
TEST_F(CrawlctlRunTest, AStoppedRunSaysWhatTheQueuedUrlsWaitFor) {
  auto run = Run({"--frontier-arg=--set", "--frontier-arg=crawl.robots_error_backoff=1h"}, "3",
                 "15");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("crawl stopped"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("waiting: h2.simweb.test ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("queued; robots.txt failed, asked again in 59m "), std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace crawlfront
