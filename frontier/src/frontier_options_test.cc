#include "crawlfront/frontier/frontier_options.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FrontierOptionsTest, SampleConfigSetsEveryKeyAndLoads) {
  std::string path = std::string(CRAWLFRONT_SOURCE_DIR) + "/configs/frontier.toml";
  std::string text = ReadFile(path);
  ASSERT_FALSE(text.empty()) << path;
  auto missing = FrontierConfigTable().MissingKeys(text);
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_TRUE(missing->empty()) << "configs/frontier.toml lacks " << missing->front();
  FrontierOptions o = FrontierConfigTable().Defaults();
  ASSERT_TRUE(FrontierConfigTable().LoadFile(path, &o).ok());
  EXPECT_EQ(o.listen, "127.0.0.1:6380");
  EXPECT_EQ(SeenSetOptionsOf(o).partitions, 1024u);
}

TEST(FrontierOptionsTest, UnknownKeyNamesTheLine) {
  FrontierOptions o = FrontierConfigTable().Defaults();
  Status s = FrontierConfigTable().LoadString("[server]\nlisen = \"x\"\n", &o, "t.toml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.toml:2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("server.lisen"), std::string::npos) << s.message();
}

TEST(FrontierOptionsTest, ConversionsCarryValues) {
  FrontierOptions o = FrontierConfigTable().Defaults();
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("seen.mode=bloom-only", &o).ok());
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("data.durability=fsync", &o).ok());
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("crawl.default_delay=250ms", &o).ok());
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("url.host_key=registered-domain", &o).ok());
  EXPECT_EQ(SeenSetOptionsOf(o).mode, SeenMode::kBloomOnly);
  EXPECT_EQ(StoreOptionsOf(o).durability, Durability::kFsync);
  EXPECT_EQ(StoreOptionsOf(FrontierConfigTable().Defaults()).durability, Durability::kEverySec);
  FrontierOptions wal = FrontierConfigTable().Defaults();
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("data.durability=wal", &wal).ok());
  EXPECT_EQ(StoreOptionsOf(wal).durability, Durability::kWal);
  EXPECT_EQ(CrawlOptionsOf(o).default_delay.count(), 250);
  EXPECT_EQ(CrawlOptionsOf(o).robots_error_backoff.count(), 60'000);  // the default
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("crawl.robots_error_backoff=5s", &o).ok());
  EXPECT_EQ(CrawlOptionsOf(o).robots_error_backoff.count(), 5'000);
  EXPECT_FALSE(FrontierConfigTable().ApplyOverride("crawl.robots_error_backoff=2d", &o).ok());
  EXPECT_EQ(CrawlOptionsOf(o).sitemap_refetch.count(), 0);  // off by default
  ASSERT_TRUE(FrontierConfigTable().ApplyOverride("crawl.sitemap_refetch=24h", &o).ok());
  EXPECT_EQ(CrawlOptionsOf(o).sitemap_refetch.count(), 86'400'000);
  EXPECT_FALSE(FrontierConfigTable().ApplyOverride("crawl.sitemap_refetch=-1s", &o).ok());
  EXPECT_EQ(CrawlOptionsOf(o).url.host_key_mode, HostKeyMode::kRegisteredDomain);
  EXPECT_FALSE(FrontierConfigTable().ApplyOverride("seen.mode=fast", &o).ok());
  EXPECT_FALSE(FrontierConfigTable().ApplyOverride("seen.partitions=0", &o).ok());
}

// Rules beyond type and bounds are checked where the value is read, so a
// file's error names its line as the type errors do.
TEST(FrontierOptionsTest, PartitionsAddressesAndAgentAreCheckedWithTheirLine) {
  const auto& table = FrontierConfigTable();
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"[seen]\npartitions = 3\n", "power of two"},
      {"[server]\nlisten = \"127.0.0.1:99999\"\n", "IP address and port"},
      {"[server]\nlisten = \"127.0.0.1\"\n", "IP address and port"},
      {"[server]\nhttp = \"127.0.0.1:abc\"\n", "IP address and port"},
      {"[crawl]\nuser_agent = \"(compatible; nobody)\"\n", "a robots.txt product token"},
      {"[crawl]\nuser_agent = \"\"\n", "a robots.txt product token"},
  };
  for (const Case& c : cases) {
    FrontierOptions o = table.Defaults();
    Status s = table.LoadString(c.text, &o, "t.toml");
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.message().find("t.toml:2"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c.expected), std::string::npos) << s.message();
  }
  FrontierOptions o = table.Defaults();
  EXPECT_TRUE(table.ApplyOverride("seen.partitions=4096", &o).ok());
  EXPECT_FALSE(table.ApplyOverride("seen.partitions=1000", &o).ok());
  EXPECT_TRUE(table.ApplyOverride("server.http=", &o).ok());
  EXPECT_FALSE(table.ApplyOverride("server.listen=", &o).ok());
  EXPECT_TRUE(table.ApplyOverride("server.listen=[::1]:0", &o).ok());
  EXPECT_TRUE(table.ApplyOverride("crawl.user_agent=mybot/1.0 (+https://x.test/)", &o).ok());
}

}  // namespace
}  // namespace crawlfront
