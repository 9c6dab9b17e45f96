// crawl-frontier's command line: mistakes stop it before it opens anything,
// with exit code 2 and a message about the actual mistake.

#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace crawlfront
