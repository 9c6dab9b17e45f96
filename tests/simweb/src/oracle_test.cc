#include "crawlfront/simweb/oracle.h"

#include <gtest/gtest.h>

#include <set>

#include "crawlfront/simweb/links.h"
#include "crawlfront/simweb/robots_model.h"
#include "test_util.h"

namespace crawlfront::simweb {
namespace {

using testing::MakeWeb;
using testing::SmallWeb;

Expectation Crawl(const SimWeb& web, int depth, bool respect = true,
                  std::vector<std::string> seeds = {}) {
  ExpectOptions options;
  options.max_depth = depth;
  options.respect_robots = respect;
  options.seeds = std::move(seeds);
  Result<Expectation> out = Expect(web, options);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(out).value() : Expectation{};
}

std::set<std::string> Urls(const Expectation& e) {
  std::set<std::string> out;
  for (const ExpectedFetch& f : e.fetches) out.insert(f.url);
  return out;
}

bool Contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(OracleTest, EveryExpectedUrlIsInScopeCanonicalAndAnswersItsStatus) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 4);
  ASSERT_GT(e.fetches.size(), 50u);
  for (const ExpectedFetch& f : e.fetches) {
    EXPECT_TRUE(InScope(f.url)) << f.url;
    Result<std::string> canonical = CanonicalUrl(f.url);
    ASSERT_TRUE(canonical.ok()) << f.url;
    EXPECT_EQ(*canonical, f.url);
    EXPECT_FALSE(Contains(f.url, "#"));
    // The model's status equals what the server would answer.
    std::string rest = f.url.substr(7);
    size_t slash = rest.find('/');
    EXPECT_EQ(web.Fetch(rest.substr(0, slash), rest.substr(slash)).status, f.status)
        << f.url;
  }
  EXPECT_TRUE(std::is_sorted(e.fetches.begin(), e.fetches.end(),
                             [](auto& a, auto& b) { return a.url < b.url; }));
}

TEST(OracleTest, RespectingRobotsFetchesNothingDisallowed) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 5);
  for (const ExpectedFetch& f : e.fetches) {
    std::string rest = f.url.substr(7);
    size_t slash = rest.find('/');
    std::optional<uint32_t> host = HostIndex(web.options(), rest.substr(0, slash));
    if (host) {
      // Hosts with a robots.txt (status 200) all disallow /private/.
      if (RobotsOf(web.options(), *host).status == 200) {
        EXPECT_FALSE(Contains(f.url, "/private/")) << f.url;
      }
      EXPECT_TRUE(
          RobotsAllows(RobotsOf(web.options(), *host), "crawlfront", rest.substr(slash)))
          << f.url;
    }
  }
  // Ignoring robots reaches /private/ and fetches no robots.txt.
  Expectation ignoring = Crawl(web, 5, false);
  int private_pages = 0;
  for (const ExpectedFetch& f : ignoring.fetches) {
    private_pages += Contains(f.url, "/private/");
    EXPECT_FALSE(Contains(f.url, "/robots.txt")) << f.url;
  }
  EXPECT_GT(private_pages, 0);
}

TEST(OracleTest, HostWithFailingRobotsContributesOnlyItsRobotsTxt) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 5);
  std::vector<ExpectedFetch> host2;
  for (const ExpectedFetch& f : e.fetches) {
    if (f.url.rfind("http://h2.simweb.test/", 0) == 0) host2.push_back(f);
  }
  ASSERT_EQ(host2.size(), 1u);
  EXPECT_EQ(host2[0].url, "http://h2.simweb.test/robots.txt");
  EXPECT_EQ(host2[0].status, 500);
}

TEST(OracleTest, DepthZeroIsRobotsPlusSeeds) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 0);
  std::set<std::string> expected;
  for (uint32_t host = 0; host < web.options().hosts; ++host) {
    expected.insert(UrlOf(host, "/robots.txt"));
    if (RobotsOf(web.options(), host).status != 500) expected.insert(UrlOf(host, "/"));
  }
  EXPECT_EQ(Urls(e), expected);
}

TEST(OracleTest, DeeperCrawlsOnlyAddUrls) {
  SimWeb web = MakeWeb(SmallWeb());
  std::set<std::string> previous;
  for (int depth = 0; depth <= 6; ++depth) {
    std::set<std::string> urls = Urls(Crawl(web, depth));
    EXPECT_TRUE(std::includes(urls.begin(), urls.end(), previous.begin(), previous.end()))
        << depth;
    EXPECT_GE(urls.size(), previous.size());
    previous = std::move(urls);
  }
}

TEST(OracleTest, DepthOneIsSeedsPlusTheirExtractableLinks) {
  SimWeb web = MakeWeb(SmallWeb());
  std::set<std::string> urls = Urls(Crawl(web, 1, false, {"http://h0.simweb.test/"}));
  std::set<std::string> expected = {"http://h0.simweb.test/"};
  for (const Link& link : LinksOf(web.options(), Resource{Kind::kPage, 0, 0, 0}).links) {
    bool trap = Contains(link.target, "/cal/");
    if (link.Extractable() && InScope(link.target) && !trap) expected.insert(link.target);
  }
  EXPECT_EQ(urls, expected);
}

TEST(OracleTest, NeverListsTrapsHiddenPagesOrOutsideHosts) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 8, false);
  for (const ExpectedFetch& f : e.fetches) {
    EXPECT_FALSE(Contains(f.url, "/cal/")) << f.url;
    EXPECT_FALSE(Contains(f.url, "/hidden/")) << f.url;
    EXPECT_FALSE(Contains(f.url, "example")) << f.url;
  }
  EXPECT_EQ(e.trap_prefixes, (std::vector<std::string>{"http://h0.simweb.test/cal/",
                                                       "http://h3.simweb.test/cal/"}));
  // The in-scope host outside the web is fetched and answers 404.
  std::set<std::string> urls = Urls(e);
  EXPECT_TRUE(urls.count("http://h6.simweb.test/"));
}

TEST(OracleTest, RedirectChainsAreFollowedHopByHop) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 3, true, {"http://h0.simweb.test/r/0"});
  ASSERT_GE(e.fetches.size(), 3u);
  std::set<std::string> urls = Urls(e);
  EXPECT_TRUE(urls.count("http://h0.simweb.test/r/0"));
  EXPECT_TRUE(urls.count("http://h0.simweb.test/r/0/2"));
  Resource hop2 = Route(web.options(), 0, "/r/0/2");
  EXPECT_TRUE(urls.count(RedirectTargetOf(web.options(), hop2)));
}

TEST(OracleTest, SeedsAreCanonicalizedAndOutOfScopeSeedsSkipped) {
  SimWeb web = MakeWeb(SmallWeb());
  Expectation e = Crawl(web, 0, false,
                        {"HTTP://H0.SIMWEB.TEST:80", "http://h1.simweb.test/p/../p/2#x",
                         "http://example.com/", "not a url", "https://h0.simweb.test/"});
  EXPECT_EQ(Urls(e), (std::set<std::string>{"http://h0.simweb.test/",
                                            "http://h1.simweb.test/p/2"}));
  EXPECT_EQ(e.skipped_seeds.size(), 3u);
}

TEST(OracleTest, IsDeterministicAndRejectsBadDepth) {
  SimWeb web = MakeWeb(SmallWeb());
  EXPECT_EQ(Urls(Crawl(web, 3)), Urls(Crawl(web, 3)));
  ExpectOptions options;
  options.max_depth = -1;
  EXPECT_FALSE(Expect(web, options).ok());
}

}  // namespace
}  // namespace crawlfront::simweb
