#include "crawlfront/simweb/robots_model.h"

#include <gtest/gtest.h>

namespace crawlfront::simweb {
namespace {

struct PatternCase {
  const char* pattern;
  const char* path;
  bool matches;
};

TEST(RobotsModelTest, PatternsFollowRfc9309) {
  const PatternCase cases[] = {
      {"/private/", "/private/1", true},
      {"/private/", "/private", false},
      {"/", "/anything", true},
      {"/s", "/slow/0", true},
      {"/s", "/s?q=a&n=1", true},
      {"/*.pdf$", "/files/0.pdf", true},
      {"/*.pdf$", "/files/0.pdf?x", false},
      {"/*.pdf", "/files/0.pdf?x", true},
      {"/*.pdf$", "/files/0.png", false},
      {"/p/*/x", "/p/1/2/x", true},
      {"/p$", "/p", true},
      {"/p$", "/p/", false},
      {"*", "/", true},
      {"/a**b", "/ab", true},
  };
  for (const PatternCase& c : cases) {
    EXPECT_EQ(RobotsPatternMatches(c.pattern, c.path), c.matches)
        << c.pattern << " vs " << c.path;
  }
}

struct AllowCase {
  uint32_t host;
  const char* agent;
  const char* path;
  bool allowed;
};

TEST(RobotsModelTest, HostsGetTheirVariants) {
  SimWebOptions options;
  options.hosts = 10;
  const AllowCase cases[] = {
      {0, "crawlfront", "/p/1", true},
      {0, "crawlfront", "/private/1", false},
      {1, "crawlfront", "/private/1", true},  // 404: allow all
      {2, "crawlfront", "/", false},          // 500: disallow all
      {2, "crawlfront", "/robots.txt", true},
      {3, "crawlfront", "/p/1", true},  // own group, not "*"
      {3, "CRAWLFRONT", "/p/1", true},
      {3, "otherbot", "/private/0", false},
      {3, "somebot", "/p/1", false},  // "*" disallows everything
      {3, "crawlfront", "/files/0.pdf", false},
      {3, "crawlfront", "/files/0.png", true},
      {3, "crawlfront", "/s?q=a&n=1", false},
      {3, "crawlfront", "/slow/0", true},
      {4, "crawlfront", "/private/open/0", false},
  };
  for (const AllowCase& c : cases) {
    EXPECT_EQ(RobotsAllows(RobotsOf(options, c.host), c.agent, c.path), c.allowed)
        << c.host << " " << c.agent << " " << c.path;
  }
}

TEST(RobotsModelTest, RenderedFileSaysWhatTheModelSays) {
  SimWebOptions options;
  std::string text = RenderRobots(RobotsOf(options, 3), "h3.simweb.test");
  EXPECT_NE(text.find("User-agent: *\nDisallow: /\n"), std::string::npos);
  EXPECT_NE(text.find("User-agent: CrawlFront\nUser-agent: otherbot\n"),
            std::string::npos);
  EXPECT_NE(text.find("Allow: /slow/\nCrawl-delay: 0.2\n"), std::string::npos);
  std::string delayed = RenderRobots(RobotsOf(options, 4), "h4.simweb.test");
  EXPECT_NE(delayed.find("Crawl-delay: 0.2"), std::string::npos);
  options.robots_variants = false;
  EXPECT_EQ(RobotsOf(options, 2).status, 200);
  EXPECT_EQ(RenderRobots(RobotsOf(options, 4), "h4.simweb.test").find("Crawl-delay"),
            std::string::npos);
}

}  // namespace
}  // namespace crawlfront::simweb
