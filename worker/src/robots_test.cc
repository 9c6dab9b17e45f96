#include "crawlfront/worker/robots.h"

#include <gtest/gtest.h>

#include "robots_backtracking.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace crawlfront {
namespace {

constexpr char kToken[] = "crawlfront";

// RFC 9309 section 5.1.
constexpr char kRfcSimple[] =
    "User-Agent: *\n"
    "Disallow: *.gif$\n"
    "Disallow: /example/\n"
    "Allow: /publications/\n"
    "\n"
    "User-Agent: foobot\n"
    "Disallow:/\n"
    "Allow:/example/page.html\n"
    "Allow:/example/allowed.gif\n"
    "\n"
    "User-Agent: barbot\n"
    "User-Agent: bazbot\n"
    "Disallow: /example/page.html\n"
    "\n"
    "User-Agent: quxbot\n"
    "\n"
    "EOF\n";

// RFC 9309 section 5.2.
constexpr char kRfcLongest[] =
    "User-Agent: foobot\n"
    "Allow: /example/page/\n"
    "Disallow: /example/page/disallowed.gif\n";

struct AllowCase {
  const char* name;
  std::string body;
  std::string token;
  std::string path;
  bool allowed;
};

std::string Group(const std::string& agent, const std::string& rules) {
  return "User-agent: " + agent + "\n" + rules;
}

std::vector<AllowCase> AllowCases() {
  const std::string star = "*";
  return {
      {"EmptyFile", "", kToken, "/x", true},
      {"DisallowRoot", Group(star, "Disallow: /\n"), kToken, "/x", false},
      {"EmptyDisallowAllowsAll", Group(star, "Disallow:\n"), kToken, "/x", true},
      {"PrefixMatch", Group(star, "Disallow: /priv\n"), kToken, "/private/a", false},
      {"PrefixNoMatch", Group(star, "Disallow: /priv\n"), kToken, "/pub", true},
      {"PathCaseSensitive", Group(star, "Disallow: /Foo\n"), kToken, "/foo", true},
      {"WildcardMiddle", Group(star, "Disallow: /a*b\n"), kToken, "/axxb/c", false},
      {"WildcardEmptyRun", Group(star, "Disallow: /a*b\n"), kToken, "/ab", false},
      {"WildcardNoMatch", Group(star, "Disallow: /a*b\n"), kToken, "/ba", true},
      {"DoubleStar", Group(star, "Disallow: /a**b\n"), kToken, "/a/x/b", false},
      {"StarOnlyDisallowsAll", Group(star, "Disallow: *\n"), kToken, "/any", false},
      {"DollarAnchors", Group(star, "Disallow: /a$\n"), kToken, "/a", false},
      {"DollarRejectsLonger", Group(star, "Disallow: /a$\n"), kToken, "/ab", true},
      {"StarDollarExt", Group(star, "Disallow: /*.php$\n"), kToken, "/x/i.php", false},
      {"StarDollarExtQuery", Group(star, "Disallow: /*.php$\n"), kToken, "/i.php?x=1",
       true},
      {"StarExtPrefix", Group(star, "Disallow: /*.php\n"), kToken, "/x/i.php?q", false},
      {"DollarInMiddleIsLiteral", Group(star, "Disallow: /a$b\n"), kToken, "/a$b", false},
      {"DollarInMiddleNoMatch", Group(star, "Disallow: /a$b\n"), kToken, "/a", true},
      {"QueryPattern", Group(star, "Disallow: /*?sort=\n"), kToken, "/list?sort=asc",
       false},
      {"LongerAllowWins", Group(star, "Allow: /a/b\nDisallow: /a\n"), kToken, "/a/b/c",
       true},
      {"ShorterAllowLoses", Group(star, "Allow: /a\nDisallow: /a/b\n"), kToken, "/a/b/c",
       false},
      {"TieAllowWins", Group(star, "Disallow: /a\nAllow: /a\n"), kToken, "/a", true},
      {"WildcardTieAllowWins", Group(star, "Disallow: /p*h\nAllow: /pa*\n"), kToken,
       "/path", true},
      {"AllowRootOnly", Group(star, "Allow: /$\nDisallow: /\n"), kToken, "/", true},
      {"AllowRootOnlyOther", Group(star, "Allow: /$\nDisallow: /\n"), kToken, "/x",
       false},
      {"RobotsTxtAlwaysAllowed", Group(star, "Disallow: /\n"), kToken, "/robots.txt",
       true},
      {"AgentCaseInsensitive", Group("CRAWLFRONT", "Disallow: /x\n"), kToken, "/x",
       false},
      {"AgentWithVersion", Group("crawlfront/1.2 (+http://x)", "Disallow: /x\n"), kToken,
       "/x", false},
      {"TokenWithVersion", Group("crawlfront", "Disallow: /x\n"), "crawlfront/2.0", "/x",
       false},
      {"AgentPrefixIsNotUs", Group("crawl", "Disallow: /x\n"), kToken, "/x", true},
      {"SpecificOverridesStar",
       Group(star, "Disallow: /\n") + Group(kToken, "Allow: /\n"), kToken, "/x", true},
      {"SpecificEmptyGroupOverridesStar",
       Group(star, "Disallow: /\n") + "User-agent: crawlfront\n", kToken, "/x", true},
      {"FallbackToStar", Group("otherbot", "Allow: /\n") + Group(star, "Disallow: /\n"),
       kToken, "/x", false},
      {"NoMatchingGroupAllows", Group("otherbot", "Disallow: /\n"), kToken, "/x", true},
      {"GroupsMerge",
       Group(kToken, "Disallow: /a\n") + Group(star, "Disallow: /c\n") +
           Group(kToken, "Disallow: /b\n"),
       kToken, "/b", false},
      {"MergedGroupExcludesStar",
       Group(kToken, "Disallow: /a\n") + Group(star, "Disallow: /c\n") +
           Group(kToken, "Disallow: /b\n"),
       kToken, "/c", true},
      {"SharedGroup", "User-agent: a\nUser-agent: crawlfront\nDisallow: /x\n", kToken,
       "/x", false},
      {"RuleBeforeAgentIgnored", "Disallow: /x\nUser-agent: *\nDisallow: /y\n", kToken,
       "/x", true},
      {"BlankLinesKeepGroup", "User-agent: *\n\n\nDisallow: /x\n", kToken, "/x", false},
      {"AgentAfterRuleStartsGroup",
       "User-agent: crawlfront\nDisallow: /x\nUser-agent: other\nDisallow: /y\n", kToken,
       "/y", true},
      {"UnknownLineKeepsHeader",
       "User-agent: other\nFoo: bar\nUser-agent: crawlfront\nDisallow: /x\n", kToken,
       "/x", false},
      {"SitemapKeepsHeader",
       "User-agent: other\nSitemap: http://a/s.xml\nUser-agent: crawlfront\n"
       "Disallow: /x\n",
       kToken, "/x", false},
      {"StarWithSuffixIsNotGlobal", Group("*bot", "Disallow: /x\n"), kToken, "/x", true},
      {"TrailingComment", Group(star, "Disallow: /x # not /y\n"), kToken, "/x", false},
      {"CommentLineIgnored", Group(star, "# Disallow: /y\n"), kToken, "/y", true},
      {"MissingColon", Group(star, "Disallow /x\n"), kToken, "/x", false},
      {"MissingColonThreeWordsIgnored", Group(star, "Disallow /x /y\n"), kToken, "/x",
       true},
      {"KeysCaseInsensitive", "uSeR-aGeNt: *\nDISALLOW: /x\n", kToken, "/x", false},
      {"TypoDissallow", Group(star, "Dissallow: /x\n"), kToken, "/x", false},
      {"SpacesAroundColon", "User-agent :  *  \nDisallow  :   /x   \n", kToken, "/x",
       false},
      {"CrLineEndings", "User-agent: *\rDisallow: /x\r", kToken, "/x", false},
      {"CrLfLineEndings", "User-agent: *\r\nDisallow: /x\r\n", kToken, "/x", false},
      {"Bom", "\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n", kToken, "/x", false},
      {"NonUtf8Garbage", "\xFF\xFE\x80garbage\n" + Group(star, "Disallow: /x\n"), kToken,
       "/x", false},
      {"NoNewlineAtEnd", "User-agent: *\nDisallow: /x", kToken, "/x", false},
      {"EncodedUnreservedMatchesLiteral", Group(star, "Disallow: /foo/%62%61%7A\n"),
       kToken, "/foo/baz", false},
      {"LiteralMatchesEncodedUnreserved", Group(star, "Disallow: /foo/baz\n"), kToken,
       "/foo/%62%61%7a", false},
      {"Utf8PatternMatchesEncodedPath", Group(star, "Disallow: /foo/\xE3\x83\x84\n"),
       kToken, "/foo/%E3%83%84", false},
      {"LowerHexMatchesUpper", Group(star, "Disallow: /foo/%e3%83%84\n"), kToken,
       "/foo/%E3%83%84", false},
      {"EncodedSlashIsNotSlash", Group(star, "Disallow: /a%2Fb\n"), kToken, "/a/b", true},
      {"RawPipeMatchesEncoded", Group(star, "Disallow: /a|b\n"), kToken, "/a%7Cb", false},
      {"PathWithoutSlash", Group(star, "Disallow: /x\n"), kToken, "x", false},
      {"FragmentIgnored", Group(star, "Disallow: /x$\n"), kToken, "/x#frag", false},
      {"RfcStarGif", kRfcSimple, "otherbot", "/a/b.gif", false},
      {"RfcStarGifQuery", kRfcSimple, "otherbot", "/a/b.gif?x", true},
      {"RfcStarExample", kRfcSimple, "otherbot", "/example/x", false},
      {"RfcStarPublications", kRfcSimple, "otherbot", "/publications/x", true},
      {"RfcFoobotRoot", kRfcSimple, "foobot", "/", false},
      {"RfcFoobotPage", kRfcSimple, "foobot", "/example/page.html", true},
      {"RfcFoobotGif", kRfcSimple, "foobot", "/example/allowed.gif", true},
      {"RfcBarbotPage", kRfcSimple, "barbot", "/example/page.html", false},
      {"RfcBazbotPage", kRfcSimple, "bazbot", "/example/page.html", false},
      {"RfcBazbotOther", kRfcSimple, "bazbot", "/example/other", true},
      {"RfcQuxbotEmptyGroup", kRfcSimple, "quxbot", "/example/x.gif", true},
      {"RfcLongestDir", kRfcLongest, "foobot", "/example/page/", true},
      {"RfcLongestFile", kRfcLongest, "foobot", "/example/page/disallowed.gif", false},
  };
}

class AllowedTest : public testing::TestWithParam<AllowCase> {};

TEST_P(AllowedTest, Decides) {
  const AllowCase& c = GetParam();
  const RobotsRules rules = ParseRobots(c.body, c.token);
  EXPECT_EQ(rules.Allowed(c.path), c.allowed) << "path " << c.path << "\n" << c.body;
}

INSTANTIATE_TEST_SUITE_P(Robots, AllowedTest, testing::ValuesIn(AllowCases()),
                         [](const testing::TestParamInfo<AllowCase>& info) {
                           return std::string(info.param.name);
                         });

struct DelayCase {
  const char* name;
  std::string body;
  std::optional<double> delay;
};

class CrawlDelayTest : public testing::TestWithParam<DelayCase> {};

TEST_P(CrawlDelayTest, Parses) {
  const DelayCase& c = GetParam();
  EXPECT_EQ(ParseRobots(c.body, kToken).crawl_delay(), c.delay) << c.body;
}

INSTANTIATE_TEST_SUITE_P(
    Robots, CrawlDelayTest,
    testing::Values(
        DelayCase{"Integer", "User-agent: *\nCrawl-delay: 10\n", 10.0},
        DelayCase{"Fraction", "User-agent: *\nCrawl-delay: 2.5\n", 2.5},
        DelayCase{"TrailingText", "User-agent: *\nCrawl-delay: 3 seconds\n", 3.0},
        DelayCase{"NotANumber", "User-agent: *\nCrawl-delay: soon\n", std::nullopt},
        DelayCase{"Negative", "User-agent: *\nCrawl-delay: -1\n", std::nullopt},
        DelayCase{"Infinite", "User-agent: *\nCrawl-delay: inf\n", std::nullopt},
        DelayCase{"FirstValidWins",
                  "User-agent: *\nCrawl-delay: x\nCrawl-delay: 4\nCrawl-delay: 9\n", 4.0},
        DelayCase{"OtherGroupIgnored",
                  "User-agent: other\nCrawl-delay: 7\nUser-agent: *\nDisallow: /\n",
                  std::nullopt},
        DelayCase{
            "OursBeatsStar",
            "User-agent: *\nCrawl-delay: 7\nUser-agent: crawlfront\nCrawl-delay: 1\n",
            1.0},
        DelayCase{"MissingColon", "User-agent: *\nCrawl-delay 0.5\n", 0.5}),
    [](const testing::TestParamInfo<DelayCase>& info) {
      return std::string(info.param.name);
    });

TEST(RobotsSitemap, GlobalAndDeduplicated) {
  const RobotsRules rules = ParseRobots(
      "Sitemap: http://a.test/1.xml\n"
      "User-agent: other\nDisallow: /\nSitemap: http://a.test/2.xml\n"
      "User-agent: *\nsitemap: http://a.test/1.xml\nSite-map:   http://a.test/3.xml  \n"
      "Sitemap:\n",
      kToken);
  EXPECT_EQ(rules.sitemaps(),
            (std::vector<std::string>{"http://a.test/1.xml", "http://a.test/2.xml",
                                      "http://a.test/3.xml"}));
}

// A body of `size` bytes: a "*" group, then comment filler.
std::string Filler(size_t size) {
  std::string body = "User-agent: *\nDisallow: /early\n";
  while (body.size() < size) body += "# filler filler filler filler filler filler\n";
  return body;
}

TEST(RobotsCap, RulesPastTheCapAreIgnored) {
  const std::string body = Filler(kRobotsMaxBytes + 1000) + "Disallow: /late\n";
  const RobotsRules rules = ParseRobots(body, kToken);
  EXPECT_FALSE(rules.Allowed("/early"));
  EXPECT_TRUE(rules.Allowed("/late"));
}

TEST(RobotsCap, LineCutByTheCapIsDropped) {
  std::string body = Filler(kRobotsMaxBytes - 100);
  body.resize(kRobotsMaxBytes - 10);
  body.back() = '\n';
  body += "Disallow: /abcdefghijklmnop\n";  // Straddles the cap.
  ASSERT_GT(body.size(), kRobotsMaxBytes);
  const RobotsRules rules = ParseRobots(body, kToken);
  EXPECT_TRUE(rules.Allowed("/abc"));
  EXPECT_TRUE(rules.Allowed("/abcdefghijklmnop"));
  EXPECT_FALSE(rules.Allowed("/early"));
}

TEST(RobotsCap, HugeSingleLineDoesNotBreakLaterParsing) {
  std::string body = "User-agent: *\nDisallow: /" + std::string(300 * 1024, 'a') + "\n";
  body += "Disallow: /x\n";
  const RobotsRules rules = ParseRobots(body, kToken);
  EXPECT_FALSE(rules.Allowed("/x"));
  EXPECT_TRUE(rules.Allowed("/b"));
}

TEST(RobotsGarbage, BinaryInputNeverDisallowsWithoutRules) {
  std::string body;
  for (int i = 0; i < 4096; ++i) body.push_back(static_cast<char>((i * 131 + 7) % 256));
  const RobotsRules rules = ParseRobots(body, kToken);
  EXPECT_TRUE(rules.rules().empty());
  EXPECT_TRUE(rules.Allowed("/anything"));
}

TEST(RobotsProductToken, LeadingLettersOfTheUserAgent) {
  EXPECT_EQ(RobotsProductToken("mybot/1.0 (+https://example.com/bot)"), "mybot");
  EXPECT_EQ(RobotsProductToken("My_Bot-x 2"), "My_Bot-x");
  EXPECT_EQ(RobotsProductToken("crawlfront"), "crawlfront");
  EXPECT_EQ(RobotsProductToken("bot2/1"), "bot");  // what ParseRobots matches with
  EXPECT_EQ(RobotsProductToken("(compatible)"), "");
  EXPECT_EQ(RobotsProductToken(""), "");
}

TEST(RobotsOutcome, ByHttpStatus) {
  const std::string body = "User-agent: *\nDisallow: /x\n";
  struct Case {
    int status;
    bool x_allowed;
    bool y_allowed;
  };
  const Case cases[] = {
      {200, false, true},  {204, false, true}, {301, true, true},   {401, true, true},
      {403, true, true},   {404, true, true},  {429, false, false}, {500, false, false},
      {503, false, false}, {0, false, false},  {100, false, false}, {-1, false, false},
      {999, false, false},
  };
  for (const Case& c : cases) {
    const RobotsRules rules = ForFetchOutcome(c.status, body, kToken);
    EXPECT_EQ(rules.Allowed("/x"), c.x_allowed) << c.status;
    EXPECT_EQ(rules.Allowed("/y"), c.y_allowed) << c.status;
    EXPECT_TRUE(rules.Allowed("/robots.txt")) << c.status;
  }
}

TEST(RobotsRules, RulesSortedMostSpecificFirst) {
  const RobotsRules rules =
      ParseRobots("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b\n", kToken);
  const std::vector<RobotsRule> expected = {
      {"/a/b", true}, {"/a/b", false}, {"/a", false}};
  EXPECT_EQ(rules.rules(), expected);
}

TEST(RobotsRules, DuplicateRulesCollapse) {
  const RobotsRules rules = ParseRobots(
      "User-agent: *\nDisallow: /a\nDisallow: /b\nDisallow: /a\nDisallow: /%61\n",
      kToken);
  const std::vector<RobotsRule> expected = {{"/a", false}, {"/b", false}};
  EXPECT_EQ(rules.rules(), expected);
}

TEST(RobotsRules, MatchCostCountsEveryRuleAndThePath) {
  const RobotsRules rules =
      ParseRobots("User-agent: *\nDisallow: /a*b\nAllow: /abc\nDisallow: /a*b\n", kToken);
  ASSERT_EQ(rules.rules().size(), 2u);  // the duplicate is gone
  EXPECT_EQ(rules.MatchCost(0), 4u + 4u + 2u);
  EXPECT_EQ(rules.MatchCost(100), 4u + 4u + 2u * 101u);
  EXPECT_EQ(RobotsRules::AllowAll().MatchCost(100), 0u);
  EXPECT_EQ(RobotsRules::DisallowAll().MatchCost(10), 1u + 11u);
}

TEST(RobotsSerialize, RoundTrips) {
  const std::string bodies[] = {
      "",
      kRfcSimple,
      "User-agent: *\nCrawl-delay: 0.1\nDisallow: /a*b$\nAllow: /\xE3\x83\x84\n"
      "Sitemap: http://x.test/s.xml\n",
      "User-agent: *\nCrawl-delay: 123456.789\nDisallow: /%7e\n",
  };
  for (const std::string& body : bodies) {
    const RobotsRules rules = ParseRobots(body, kToken);
    Result<RobotsRules> back = RobotsRules::Deserialize(rules.Serialize());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, rules) << body;
    EXPECT_EQ(back->Serialize(), rules.Serialize());
  }
  for (const RobotsRules& rules : {RobotsRules::AllowAll(), RobotsRules::DisallowAll()}) {
    Result<RobotsRules> back = RobotsRules::Deserialize(rules.Serialize());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, rules);
  }
}

TEST(RobotsSerialize, RejectsCorruptInput) {
  const std::string inputs[] = {
      "",
      "robots 2\n",
      "robots 1",
      "robots 1\nq /x\n",
      "robots 1\nx /a",
      "robots 1\nx\n",
      "robots 1\nd abc\n",
      "robots 1\nd 1x\n",
      "robots 1\nd 1\nd 2\n",
      "robots 1\nd -3\n",
  };
  for (const std::string& input : inputs) {
    Result<RobotsRules> rules = RobotsRules::Deserialize(input);
    ASSERT_FALSE(rules.ok()) << input;
    EXPECT_EQ(rules.status().code(), Status::Code::kCorruption);
  }
}

TEST(RobotsPattern, MatchesAsTheBacktrackingModelDoes) {
  std::mt19937 rng(2026);
  const char kPatternChars[] = "ab/**$";
  const char kPathChars[] = "ab/";
  size_t matched = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string pattern, path;
    for (size_t n = rng() % 9; n > 0; --n) pattern += kPatternChars[rng() % 6];
    for (size_t n = rng() % 12; n > 0; --n) path += kPathChars[rng() % 3];
    const bool want = BacktrackingMatch(pattern, path);
    ASSERT_EQ(RobotsPatternMatches(pattern, path), want) << "'" << pattern << "' '" << path << "'";
    matched += want;
  }
  EXPECT_GT(matched, 20000u) << "both answers must occur often";
  EXPECT_LT(matched, 180000u);
}

TEST(RobotsPattern, Examples) {
  struct Case {
    const char* pattern;
    const char* path;
    bool matches;
  };
  const Case cases[] = {
      {"/a*b*c", "/axxbyyczz", true},   {"/a*b*c$", "/axxbyyczz", false},
      {"/a*b*c$", "/axxbyycc", true},   {"*.gif$", "/x/y.gif", true},
      {"*.gif$", "/x/y.gif?z", false},  {"/*ab$", "/ab", true},
      {"/ab*ab$", "/ab", false},  // the segments may not overlap
      {"/", "/anything", true},         {"/x$", "/x", true},
      {"/x$", "/xy", false},            {"*", "/", true},
      {"/a**$", "/abc", true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RobotsPatternMatches(c.pattern, c.path), c.matches) << c.pattern << " " << c.path;
  }
}

// A hostile site's file: 500 KiB of rules that made the backtracking
// matcher compare about |path| * |pattern| bytes each (0.43 s per check of
// this path, under the frontier's lock). The answers are what the rules
// say; the speed is in tests/bench/robots_bench.cc.
TEST(RobotsPattern, HostileFileIsAnsweredByItsRules) {
  std::string body = "User-agent: *\n";
  for (int i = 0; body.size() < kRobotsMaxBytes - 600; ++i) {
    body += "Disallow: /*" + std::string(500 + i % 7, 'a') + std::to_string(i) + "\n";
  }
  const RobotsRules rules = ParseRobots(body, kToken);
  ASSERT_GT(rules.rules().size(), 900u);
  const std::string as = "/" + std::string(1000, 'a');
  EXPECT_TRUE(rules.Allowed(as));
  EXPECT_FALSE(rules.Allowed(as + "17"));
  EXPECT_FALSE(rules.Allowed("/x/" + std::string(503, 'a') + "3/y"));  // rule 3
  EXPECT_TRUE(rules.Allowed("/x/" + std::string(499, 'a') + "3"));
}

}  // namespace
}  // namespace crawlfront
