// crawlctl run, the all-in-one crawl (simweb, frontier, worker on
// 127.0.0.1): a second run in the same workdir never deletes the first
// run's WARC files unless told to (--fresh), and --resume continues it.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

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
  integ::ProcessResult Run(std::vector<std::string> extra) {
    std::vector<std::string> argv = {testutil::BinDir() + "/crawlctl", "run",    "--workdir",
                                     work_,    "--hosts", "2",        "--pages", "4",
                                     "--delay-ms", "0",    "--timeout", "120"};
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

}  // namespace
}  // namespace crawlfront
