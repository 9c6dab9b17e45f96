#include "crawlfront/common/net.h"

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

TEST(NetTest, SplitHostPort) {
  struct Case {
    const char* in;
    bool ok;
    const char* host;
    int port;
  } cases[] = {
      {"127.0.0.1:6380", true, "127.0.0.1", 6380}, {"[::1]:80", true, "::1", 80},
      {"localhost:0", true, "localhost", 0},       {":8080", true, "", 8080},
      {"host", false, "", 0},                       {"host:", false, "", 0},
      {"host:65536", false, "", 0},                 {"host:12x", false, "", 0},
      {"host:-1", false, "", 0},
  };
  for (const auto& c : cases) {
    auto r = SplitHostPort(c.in);
    ASSERT_EQ(r.ok(), c.ok) << c.in;
    if (c.ok) {
      EXPECT_EQ(r->host, c.host) << c.in;
      EXPECT_EQ(r->port, c.port) << c.in;
    }
  }
}

TEST(NetTest, ParseListenEndpoint) {
  EXPECT_TRUE(ParseListenEndpoint("localhost:1")->address().is_loopback());
  EXPECT_TRUE(ParseListenEndpoint("[::1]:1")->address().is_loopback());
  EXPECT_FALSE(ParseListenEndpoint("0.0.0.0:1")->address().is_loopback());
  auto bad = ParseListenEndpoint("example.com:80");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("IP address"), std::string::npos);
}

}  // namespace
}  // namespace crawlfront
