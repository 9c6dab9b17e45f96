// ParseSitemap: urlset and sitemapindex, XML escapes and CDATA, gzip, what
// is not a sitemap, bad <loc> values, limits, broken XML and gzip.

#include "crawlfront/worker/sitemap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crawlfront/simweb/encoding.h"

namespace crawlfront {
namespace {

using Links = std::vector<std::string>;

std::string Gzip(const std::string& in) {
  return simweb::Encode(simweb::ContentCoding::kGzip, in);
}

std::string UrlSet(const std::string& entries) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n" +
         entries + "</urlset>\n";
}

constexpr const char* kFrom = "http://s.test/sitemap.xml";

TEST(SitemapTest, UrlsetLocsAreCanonicalDeduplicatedAndInOrder) {
  SitemapLinks r = ParseSitemap(
      UrlSet("<url><loc>http://S.test/a</loc><lastmod>2026-01-01</lastmod></url>\n"
             "<url>\n  <loc>\n   http://s.test/b?x=1&amp;y=2\n  </loc>\n</url>\n"
             "<url><loc><![CDATA[http://s.test/c?p=<1>]]></loc></url>\n"
             "<url><loc>http://s.test:80/a</loc></url>\n"  // the first one again
             "<url><loc>http://s.test/&#100;</loc></url>\n"),
      kFrom);
  EXPECT_TRUE(r.is_sitemap);
  EXPECT_FALSE(r.index);
  EXPECT_EQ(r.links, (Links{"http://s.test/a", "http://s.test/b?x=1&y=2",
                            "http://s.test/c?p=%3C1%3E", "http://s.test/d"}));
  EXPECT_EQ(r.rejected, 0u);
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.error, "");
}

TEST(SitemapTest, W3cDatetimes) {
  const int64_t day = 1764547200;  // 2025-12-01T00:00:00Z
  EXPECT_EQ(ParseW3cDatetime("2025-12-01"), day);
  EXPECT_EQ(ParseW3cDatetime("2025-12"), day);
  EXPECT_EQ(ParseW3cDatetime("2025"), 1735689600);  // 2025-01-01
  EXPECT_EQ(ParseW3cDatetime("1970-01-01"), 0);
  EXPECT_EQ(ParseW3cDatetime("2025-12-01T10:20Z"), day + 10 * 3600 + 20 * 60);
  EXPECT_EQ(ParseW3cDatetime("2025-12-01T10:20:30Z"), day + 37230);
  EXPECT_EQ(ParseW3cDatetime("2025-12-01T10:20:30.45Z"), day + 37230);
  EXPECT_EQ(ParseW3cDatetime("2025-12-01T10:20:30+01:00"), day + 37230 - 3600);
  EXPECT_EQ(ParseW3cDatetime("2025-12-01T10:20:30-05:30"), day + 37230 + 5 * 3600 + 1800);
  EXPECT_EQ(ParseW3cDatetime("2025-12-01T10:20:30"), day + 37230);  // no zone: UTC
  EXPECT_EQ(ParseW3cDatetime("2024-02-29"), 1709164800);
  EXPECT_EQ(ParseW3cDatetime("1969-12-31T23:59:59Z"), -1);
  for (const char* bad : {"", "25-12-01", "2025-13-01", "2025-02-30", "2023-02-29",
                          "2025-12-1", "2025-12-01T", "2025-12-01 10:20Z", "2025-12-01T24:00Z",
                          "2025-12-01T10:60Z", "2025-12-01T10:20:30.Z", "2025-12-01T10Z",
                          "2025-12-01T10:20+1:00", "2025-12-01T10:20+01:00x", "2025-12-01x",
                          "yesterday", "2025-12-01T10:20:30+24:00"}) {
    EXPECT_EQ(ParseW3cDatetime(bad), std::nullopt) << bad;
  }
}

// Each link has its entry's <lastmod>, before or after <loc>; 0 without one
// or with one that is no date. A repeated URL keeps its first entry's.
TEST(SitemapTest, LinksCarryTheirLastmod) {
  SitemapLinks r = ParseSitemap(
      UrlSet("<url><loc>http://s.test/a</loc><lastmod>2025-12-01</lastmod></url>\n"
             "<url><lastmod> 2025-12-01T00:00:10Z </lastmod><loc>http://s.test/b</loc></url>\n"
             "<url><loc>http://s.test/c</loc></url>\n"
             "<url><loc>http://s.test/d</loc><lastmod>last week</lastmod></url>\n"
             "<url><loc>http://s.test/a</loc><lastmod>2026-01-01</lastmod></url>\n"
             "<url><lastmod>2026-01-01</lastmod></url>\n"  // no loc: nothing
             "<url><loc>http://s.test/e</loc><image><lastmod>2026-01-01</lastmod></image></url>"
             "<url><loc>http://s.test/f</loc><lastmod>1969-12-31</lastmod></url>"),
      kFrom);
  EXPECT_EQ(r.links, (Links{"http://s.test/a", "http://s.test/b", "http://s.test/c",
                            "http://s.test/d", "http://s.test/e", "http://s.test/f"}));
  EXPECT_EQ(r.lastmod_s, (std::vector<int64_t>{1764547200, 1764547210, 0, 0, 0, 0}));
  EXPECT_EQ(r.rejected, 1u);
  SitemapLinks index = ParseSitemap(
      "<sitemapindex><sitemap><loc>http://s.test/s1.xml</loc><lastmod>2025-12-01</lastmod>"
      "</sitemap></sitemapindex>",
      kFrom);
  EXPECT_EQ(index.links, (Links{"http://s.test/s1.xml"}));
  EXPECT_EQ(index.lastmod_s, (std::vector<int64_t>{1764547200}));
}

// The XML declaration's encoding is honoured; links come out as UTF-8,
// percent-encoded.
TEST(SitemapTest, Latin1SitemapsAreDecoded) {
  SitemapLinks r = ParseSitemap(
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
      "<urlset><url><loc>http://s.test/caf\xE9</loc></url></urlset>",
      kFrom);
  EXPECT_EQ(r.links, (Links{"http://s.test/caf%C3%A9"}));
  EXPECT_EQ(r.error, "");
}

TEST(SitemapTest, IndexLinksAreSitemaps) {
  SitemapLinks r = ParseSitemap(
      "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<sitemap><loc>http://s.test/s1.xml.gz</loc></sitemap>"
      "<sitemap><loc>http://s.test/s2.xml</loc><lastmod>2026-01-01</lastmod></sitemap>"
      "</sitemapindex>",
      kFrom);
  EXPECT_TRUE(r.is_sitemap);
  EXPECT_TRUE(r.index);
  EXPECT_EQ(r.links, (Links{"http://s.test/s1.xml.gz", "http://s.test/s2.xml"}));
}

// Only <loc> directly in an entry counts: not an image's, nor one outside
// <url>, nor a <url> in an index.
TEST(SitemapTest, OnlyEntryLocsCount) {
  SitemapLinks r = ParseSitemap(
      "<urlset xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">"
      "<loc>http://s.test/stray</loc>"
      "<url><loc>http://s.test/page</loc>"
      "<image:image><image:loc>http://s.test/img.png</image:loc></image:image></url>"
      "<sitemap><loc>http://s.test/wrong-entry</loc></sitemap>"
      "</urlset>",
      kFrom);
  EXPECT_EQ(r.links, (Links{"http://s.test/page"}));
  SitemapLinks prefixed = ParseSitemap(
      "<sm:urlset xmlns:sm=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<sm:url><sm:loc>http://s.test/p</sm:loc></sm:url></sm:urlset>",
      kFrom);
  EXPECT_EQ(prefixed.links, (Links{"http://s.test/p"}));
}

TEST(SitemapTest, GzipSitemapsAreInflated) {
  const std::string xml = UrlSet("<url><loc>http://s.test/z</loc></url>");
  SitemapLinks r = ParseSitemap(Gzip(xml), "http://s.test/sitemap.xml.gz");
  EXPECT_TRUE(r.is_sitemap);
  EXPECT_EQ(r.links, (Links{"http://s.test/z"}));
  EXPECT_EQ(r.error, "");

  std::string cut = Gzip(xml);
  cut.resize(cut.size() / 2);
  SitemapLinks broken = ParseSitemap(cut, kFrom);
  EXPECT_NE(broken.error.find("gzip: truncated"), std::string::npos) << broken.error;
}

TEST(SitemapTest, OtherDocumentsAreNotSitemaps) {
  for (const std::string body :
       {"<!doctype html><html><a href=\"http://s.test/x\">x</a></html>",
        "<?xml version=\"1.0\"?><rss><channel><link>http://s.test/x</link></channel></rss>",
        "http://s.test/a\nhttp://s.test/b\n", "", "\x89PNG\r\n\x1a\n...."}) {
    SitemapLinks r = ParseSitemap(body, kFrom);
    EXPECT_FALSE(r.is_sitemap) << body;
    EXPECT_TRUE(r.links.empty()) << body;
  }
  // A gzip of something else (a tarball, say) is looked into, not parsed.
  EXPECT_FALSE(ParseSitemap(Gzip(std::string(100000, 'x')), kFrom).is_sitemap);
}

TEST(SitemapTest, BadLocsAreCountedNotKept) {
  SitemapLinks r = ParseSitemap(
      UrlSet("<url><loc>ftp://s.test/f</loc></url><url><loc></loc></url>"
             "<url><loc>http://</loc></url><url><loc>/relative</loc></url>"
             "<url><loc>http://s.test/" + std::string(5000, 'a') + "</loc></url>"),
      kFrom);
  EXPECT_EQ(r.links, (Links{"http://s.test/relative"})) << "resolved against the sitemap";
  EXPECT_EQ(r.rejected, 4u);
}

TEST(SitemapTest, LimitsCutTheListAndSaySo) {
  std::string entries;
  for (int i = 0; i < 100; ++i) entries += "<url><loc>http://s.test/" + std::to_string(i) + "</loc></url>";
  SitemapOptions o;
  o.max_links = 10;
  SitemapLinks r = ParseSitemap(UrlSet(entries), kFrom, o);
  ASSERT_EQ(r.links.size(), 10u);
  EXPECT_EQ(r.links.back(), "http://s.test/9");
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.error, "");

  o = SitemapOptions{};
  o.max_bytes = 1000;  // a gzip bomb stops here
  SitemapLinks bomb = ParseSitemap(Gzip(UrlSet(entries + std::string(2'000'000, ' '))), kFrom, o);
  EXPECT_TRUE(bomb.truncated);
  EXPECT_FALSE(bomb.links.empty());
  EXPECT_LT(bomb.links.size(), 100u);
}

TEST(SitemapTest, BrokenXmlKeepsTheLinksBeforeTheError) {
  SitemapLinks r = ParseSitemap(
      "<urlset><url><loc>http://s.test/1</loc></url><url><loc>http://s.test/2</lo", kFrom);
  EXPECT_TRUE(r.is_sitemap);
  EXPECT_EQ(r.links, (Links{"http://s.test/1"}));
  EXPECT_NE(r.error.find("xml: "), std::string::npos) << r.error;
  SitemapLinks unfinished = ParseSitemap("<urlset", kFrom);
  EXPECT_TRUE(unfinished.links.empty());
  EXPECT_NE(unfinished.error.find("xml: "), std::string::npos) << unfinished.error;
  // Entity expansion is bounded (expat's billion-laughs protection).
  std::string lol = "<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY a \"aaaaaaaaaa\">";
  std::string prev = "a";
  for (int i = 0; i < 9; ++i) {
    std::string name = "e" + std::to_string(i);
    lol += "<!ENTITY " + name + " \"";
    for (int k = 0; k < 10; ++k) lol += "&" + prev + ";";
    lol += "\">";
    prev = name;
  }
  lol += "]><urlset><url><loc>http://s.test/&" + prev + ";</loc></url></urlset>";
  SitemapLinks bomb = ParseSitemap(lol, kFrom);
  EXPECT_TRUE(bomb.links.empty());
  EXPECT_NE(bomb.error.find("xml: "), std::string::npos) << bomb.error;
}

}  // namespace
}  // namespace crawlfront
