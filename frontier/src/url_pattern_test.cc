// Operators' URL patterns: RE2 searches, errors with reasons, linear time on
// patterns that made std::regex backtrack or recurse, and sets that answer
// as their patterns one by one would.

#include "crawlfront/frontier/url_pattern.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

UrlPattern Must(std::string_view p) {
  auto r = UrlPattern::Compile(p);
  EXPECT_TRUE(r.ok()) << p << ": " << r.status().ToString();
  return std::move(r).value();
}

TEST(UrlPatternTest, SearchesAnywhereUnlessAnchored) {
  EXPECT_TRUE(Must("[?&]sort=").Search("http://a.test/p?x=1&sort=2"));
  EXPECT_FALSE(Must("[?&]sort=").Search("http://a.test/sort=2"));
  EXPECT_TRUE(Must("^https?://a\\.test/").Search("https://a.test/x"));
  EXPECT_FALSE(Must("^https?://a\\.test/").Search("http://b.test/?https://a.test/"));
  EXPECT_TRUE(Must("\\.pdf$").Search("http://a.test/x.pdf"));
  EXPECT_FALSE(Must("\\.pdf$").Search("http://a.test/x.pdf?y"));
  EXPECT_TRUE(Must("^http://b\\.test/|/print/").Search("http://a.test/print/1"));
  EXPECT_TRUE(Must("/calendar/\\d{4}").Search("http://a.test/calendar/2031"));
  EXPECT_TRUE(Must("(?i)/PRINT/").Search("http://a.test/print/1"));
  EXPECT_EQ(Must("/x/").text(), "/x/");
}

TEST(UrlPatternTest, RejectsWhatDoesNotCompileWithTheReason) {
  auto unclosed = UrlPattern::Compile("(unclosed");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(unclosed.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(unclosed.status().message(), "bad pattern: missing ): (unclosed");
  auto backref = UrlPattern::Compile("(a)\\1");  // backtracking only
  ASSERT_FALSE(backref.ok());
  EXPECT_EQ(backref.status().message(), "bad pattern: invalid escape sequence: \\1");
  EXPECT_FALSE(UrlPattern::Compile("").ok());
  EXPECT_FALSE(UrlPattern::Compile(std::string(kMaxUrlPatternBytes + 1, 'a')).ok());
  EXPECT_TRUE(UrlPattern::Compile(std::string(kMaxUrlPatternBytes, 'a')).ok());
  auto set = UrlPatternSet::Compile({"/ok/", "[bad"});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(),
            "\"[bad\": bad pattern: missing ]: [bad");
}

// With std::regex the first takes 2^n steps for n 'a's (0.8 s at 24) and the
// second overflowed the stack. A regression hangs or crashes this test.
TEST(UrlPatternTest, PatternsThatBacktrackOrRecurseElsewhereMatchInOnePass) {
  const std::string as = "http://x.test/" + std::string(5000, 'a') + "!";
  EXPECT_FALSE(Must("(a+)+$").Search(as));
  EXPECT_TRUE(Must("(a+)+!$").Search(as));
  const std::string long_url = "http://x.test/" + std::string(1 << 20, 'a');
  EXPECT_FALSE(Must("(a|b)*c").Search(long_url));
  EXPECT_TRUE(Must("(a|b)*$").Search(long_url));
  auto set = UrlPatternSet::Compile({"(a+)+$", "(a|b)*c", "/nothing/"});
  ASSERT_TRUE(set.ok());
  EXPECT_FALSE(set->AnyMatches(as));
  EXPECT_TRUE(set->AnyMatches(long_url)) << "(a+)+$";
  EXPECT_FALSE(set->AnyMatches(long_url + "!"));
}

TEST(UrlPatternSetTest, AnswersAsItsPatternsOneByOne) {
  const std::vector<std::string> patterns = {
      "^http://a\\.test/x/", "[?&]sort=", "\\.(pdf|zip)$", "^https://b|/print/",
      "/calendar/[0-9]{4}/", "(?i)SESSIONID=", "^http://c\\.test/$"};
  const std::vector<std::string> urls = {
      "http://a.test/x/1", "http://b.test/a.test/x/", "http://a.test/?sort=1",
      "http://a.test/?xsort=1", "http://a.test/f.pdf", "http://a.test/f.pdf?1",
      "https://b.test/", "http://b.test/print/", "http://b.test/https://b",
      "http://a.test/calendar/2031/", "http://a.test/calendar/31/",
      "http://a.test/;sessionid=9", "http://c.test/", "http://c.test/x",
      "http://nothing.test/"};
  std::vector<UrlPattern> compiled;
  for (const auto& p : patterns) compiled.push_back(Must(p));
  auto set = UrlPatternSet::Compile(patterns);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->size(), patterns.size());
  EXPECT_TRUE(set->combined());
  // Every subset of the patterns, so each answer depends on which are in.
  for (unsigned mask = 0; mask < (1u << patterns.size()); ++mask) {
    std::vector<std::string> some;
    for (size_t i = 0; i < patterns.size(); ++i) {
      if (mask & (1u << i)) some.push_back(patterns[i]);
    }
    auto subset = UrlPatternSet::Compile(some);
    ASSERT_TRUE(subset.ok());
    for (const auto& url : urls) {
      bool any = false;
      for (size_t i = 0; i < patterns.size(); ++i) {
        if ((mask & (1u << i)) && compiled[i].Search(url)) any = true;
      }
      EXPECT_EQ(subset->AnyMatches(url), any) << "mask " << mask << " url " << url;
    }
  }
}

TEST(UrlPatternSetTest, PatternsTooLargeForOneSetAreTriedInTurn) {
  std::vector<UrlPattern> big;
  big.push_back(Must("/a[0-9]{300}x"));
  big.push_back(Must("/b[a-z]{300}y"));
  const std::string a = "http://x.test/a" + std::string(300, '7') + "x";
  const std::string b = "http://x.test/b" + std::string(300, 'q') + "y";
  const std::string neither = "http://x.test/a" + std::string(299, '7') + "x";
  auto small = UrlPatternSet::Of(big, 16 << 10);
  auto roomy = UrlPatternSet::Of(big);
  EXPECT_FALSE(small.combined());
  EXPECT_TRUE(roomy.combined());
  for (const auto* set : {&small, &roomy}) {
    EXPECT_TRUE(set->AnyMatches(a));
    EXPECT_TRUE(set->AnyMatches(b));
    EXPECT_FALSE(set->AnyMatches(neither));
  }
}

TEST(UrlPatternSetTest, EmptySetMatchesNothing) {
  auto set = UrlPatternSet::Compile({});
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->empty());
  EXPECT_FALSE(set->AnyMatches("http://a.test/"));
  EXPECT_FALSE(UrlPatternSet().AnyMatches(""));
}

}  // namespace
}  // namespace crawlfront
