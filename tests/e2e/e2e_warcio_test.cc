// Test 3: the workers' WARC files read by an independent reader, warcio
// (webrecorder's npm package) through tests/e2e/read_warc.mjs. Skipped when
// node or warcio is missing; docs/e2e.md gives the install command.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e_env.h"
#include "e2e_logs.h"

namespace crawlfront::e2e {
namespace {

namespace fs = std::filesystem;

// Where `npm install --prefix DIR warcio` went: $CRAWLFRONT_WARCIO_PREFIX, else
// <build dir>/node.
std::string WarcioPrefix() {
  const char* env = std::getenv("CRAWLFRONT_WARCIO_PREFIX");
  return env ? env : testutil::BinDir() + "/../node";
}

TEST(E2eWarcioTest, IndependentReaderSeesEveryFetch) {
  testutil::TempDir tmp;
  auto node = RunProgram("node", {"--version"}, tmp / "node.out", tmp / "node.err",
                         std::chrono::seconds(30));
  if (!node.ok() || *node != 0) GTEST_SKIP() << "node is not installed";
  if (!fs::exists(WarcioPrefix() + "/node_modules/warcio/package.json")) {
    GTEST_SKIP() << "warcio not installed: npm install --prefix " << WarcioPrefix() << " warcio";
  }
  WebOptions o;
  o.hosts = 4;
  o.pages = 15;
  CrawlEnv env(o);
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0).ok());
  Status s = env.WaitFinished(std::chrono::seconds(240));
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(env.StopWorkers().ok());

  std::vector<std::string> args = {std::string(CRAWLFRONT_E2E_SOURCE_DIR) + "/read_warc.mjs",
                                   WarcioPrefix()};
  for (const auto& e : fs::directory_iterator(env.warc_dir())) args.push_back(e.path());
  auto rc = RunProgram("node", args, tmp / "warcio.out", tmp / "warcio.err",
                       std::chrono::seconds(120));
  ASSERT_TRUE(rc.ok()) << rc.status().message();
  ASSERT_EQ(*rc, 0) << testutil::Tail(tmp / "warcio.err");

  // warcio's response records as "URL STATUS", against the access log.
  std::map<std::string, int> balance;
  auto log = ReadAccessLog(env.access_log());
  ASSERT_TRUE(log.ok()) << log.status().message();
  for (const auto& e : *log) ++balance[e.Url() + " " + std::to_string(e.status)];
  std::ifstream in(tmp / "warcio.out");
  size_t records = 0;
  for (std::string line; std::getline(in, line); ++records) {
    std::istringstream f(line);
    std::string type, uri, status, bytes, digest_ok;
    ASSERT_TRUE(f >> type >> uri >> status >> bytes >> digest_ok) << line;
    EXPECT_NE(digest_ok, "0") << "payload digest mismatch: " << line;
    if (type == "response") --balance[uri + " " + status];
  }
  for (const auto& [key, n] : balance) EXPECT_EQ(n, 0) << key;
  auto ours = ReadWarcDir(env.warc_dir());
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  EXPECT_EQ(records, ours->size()) << "warcio and our reader count different records";
  std::printf("warcio read %zu records; access log %zu lines\n", records, log->size());
}

}  // namespace
}  // namespace crawlfront::e2e
