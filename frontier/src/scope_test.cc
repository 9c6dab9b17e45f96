#include "crawlfront/frontier/crawl_scope.h"

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

TEST(ScopeTest, RulesGiveTheirReason) {
  CrawlOptions o;
  o.max_depth = 3;
  o.allow_host_suffixes = {".example.com", "Other.ORG"};
  o.deny_host_suffixes = {"bad.example.com"};
  o.deny_regexes = {"[?&]sort=", "\\.pdf$"};
  o.max_query_params = 2;
  o.max_path_depth = 4;
  o.max_repeated_path_segments = 2;
  o.max_url_length = 60;
  auto rules = ScopeRules::Compile(o);
  ASSERT_TRUE(rules.ok());
  struct Case {
    std::string url;
    uint32_t depth;
    std::string reason;  // empty = accepted
  };
  const std::vector<Case> cases = {
      {"http://example.com/a", 0, "host not in scope"},  // ".example.com": under only
      {"http://www.example.com/a", 3, ""},
      {"http://www.example.com/a", 4, "max depth exceeded"},
      {"http://other.org/", 0, ""},
      {"http://notexample.com/", 0, "host not in scope"},
      {"http://x.bad.example.com/", 0, "host denied"},
      {"http://a.example.com/list?sort=asc", 0, "denied by pattern"},
      {"http://a.example.com/doc.pdf", 0, "denied by pattern"},
      {"http://a.example.com/?a=1&b=2", 0, ""},
      {"http://a.example.com/?a=1&b=2&c=3", 0, "too many query parameters"},
      {"http://a.example.com/1/2/3/4", 0, ""},
      {"http://a.example.com/1/2/3/4/5", 0, "path too deep"},
      {"http://a.example.com/a/b/a/b", 0, ""},
      {"http://a.example.com/a/b/a/a", 0, "repeated path segment"},
      {"http://a.example.com/" + std::string(48, 'z'), 0, "url too long"},
  };
  for (const auto& c : cases) {
    auto canon = Canonicalize(c.url);
    ASSERT_TRUE(canon.ok()) << c.url;
    auto why = rules->Check(*canon, c.depth);
    EXPECT_EQ(why.value_or(""), c.reason) << c.url;
  }
}

// Repeats are counted the same in short paths and in long ones (past 64
// segments the count takes another route).
TEST(ScopeTest, RepeatedSegmentsInShortAndLongPaths) {
  CrawlOptions o;
  o.max_path_depth = 1000;
  o.max_url_length = 4000;
  o.max_repeated_path_segments = 2;
  auto rules = ScopeRules::Compile(o);
  ASSERT_TRUE(rules.ok());
  auto path = [](int segments, int repeats_of_x) {
    std::string p = "http://a.test";
    for (int i = 0; i < segments - repeats_of_x; ++i) p += "/s" + std::to_string(i);
    for (int i = 0; i < repeats_of_x; ++i) p += "/x";
    return p;
  };
  for (int segments : {5, 64, 65, 300}) {
    for (int repeats : {2, 3}) {
      auto canon = Canonicalize(path(segments, repeats));
      ASSERT_TRUE(canon.ok());
      EXPECT_EQ(rules->Check(*canon, 0).value_or(""),
                repeats > 2 ? "repeated path segment" : "")
          << segments << " segments, x " << repeats << " times";
    }
  }
}

TEST(ScopeTest, BadRegexFailsCompile) {
  CrawlOptions o;
  o.deny_regexes = {"(unclosed"};
  auto rules = ScopeRules::Compile(o);
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.status().message().find("(unclosed"), std::string::npos);
}

TEST(ScopeTest, HelpersSplitUrls) {
  EXPECT_TRUE(HostUnderSuffix("a.b.com", "b.com"));
  EXPECT_TRUE(HostUnderSuffix("b.com", "b.com"));
  EXPECT_FALSE(HostUnderSuffix("ab.com", "b.com"));
  EXPECT_FALSE(HostUnderSuffix("b.com", ""));
  EXPECT_TRUE(HostUnderSuffix("a.b.com", ".b.com"));
  EXPECT_FALSE(HostUnderSuffix("b.com", ".b.com"));
  EXPECT_FALSE(HostUnderSuffix("ab.com", ".b.com"));
  EXPECT_EQ(PathAndQuery("http://h/a/b?x=1#f"), "/a/b?x=1");
  EXPECT_EQ(PathAndQuery("http://h:8080"), "/");
  EXPECT_EQ(PathAndQuery("http://h?q"), "?q");
}

}  // namespace
}  // namespace crawlfront
