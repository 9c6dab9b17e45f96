// simweb's sitemaps, read with the worker's own sitemap parser: robots.txt
// names the index, the index names both sitemaps, the gzip one lists every
// page, the other the orphan pages, which answer 200 and are linked from
// nowhere. Without options.sitemaps none of these paths exist.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "crawlfront/simweb/links.h"
#include "crawlfront/simweb/sim_web.h"
#include "crawlfront/worker/sitemap.h"
#include "test_util.h"

namespace crawlfront::simweb {
namespace {

using testing::MakeWeb;
using testing::SmallWeb;

TEST(SimWebSitemapsTest, RobotsIndexSitemapsAndOrphans) {
  SimWebOptions o = SmallWeb();
  o.sitemaps = true;
  o.robots_variants = false;
  SimWeb web = MakeWeb(o);
  const uint32_t host = 1;
  const std::string base = "http://" + HostName(host);
  EXPECT_NE(web.Fetch(HostName(host), "/robots.txt").body.find("\nSitemap: " + base + "/sitemap.xml\n"),
            std::string::npos);

  Response index = web.Fetch(HostName(host), "/sitemap.xml");
  ASSERT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "application/xml");
  SitemapLinks i = ParseSitemap(index.body, base + "/sitemap.xml");
  EXPECT_TRUE(i.index);
  EXPECT_EQ(i.links, (std::vector<std::string>{base + "/sitemap-pages.xml.gz",
                                               base + "/sitemap-orphans.xml"}));
  EXPECT_EQ(i.error, "");

  Response pages = web.Fetch(HostName(host), "/sitemap-pages.xml.gz");
  ASSERT_EQ(pages.status, 200);
  ASSERT_GE(pages.body.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(pages.body[0]), 0x1f) << "a gzip file";
  SitemapLinks p = ParseSitemap(pages.body, base + "/sitemap-pages.xml.gz");
  ASSERT_EQ(p.links.size(), o.pages);
  EXPECT_EQ(p.links[0], base + "/");
  EXPECT_EQ(p.links[1], base + "/p/1");
  EXPECT_EQ(p.error, "");

  SitemapLinks orphans =
      ParseSitemap(web.Fetch(HostName(host), "/sitemap-orphans.xml").body, base + "/x");
  ASSERT_EQ(orphans.links.size(), kOrphanPages);
  ASSERT_EQ(orphans.lastmod_s.size(), kOrphanPages);
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  EXPECT_LE(std::abs(orphans.lastmod_s[0] - now_s), 5) << "orphan 0 changed just now";
  EXPECT_EQ(orphans.lastmod_s[1], 1767225600) << "2026-01-01";
  EXPECT_EQ(orphans.lastmod_s[2], 0);
  for (uint32_t a = 0; a < kOrphanPages; ++a) {
    const std::string path = "/orphan/" + std::to_string(a);
    EXPECT_EQ(orphans.links[a], base + path);
    Response page = web.Fetch(HostName(host), path);
    EXPECT_EQ(page.status, 200) << path;
    EXPECT_TRUE(LinksOf(o, Resource{Kind::kOrphan, host, a, 0}).links.empty()) << path;
  }
  // Nothing links to an orphan.
  for (uint64_t page = 0; page < o.pages; ++page) {
    for (const Link& l : LinksOf(o, Resource{Kind::kPage, host, page, 0}).links) {
      EXPECT_EQ(l.target.find("/orphan/"), std::string::npos) << l.target;
    }
  }
  EXPECT_EQ(web.Fetch(HostName(host), "/orphan/3").status, 404);
}

TEST(SimWebSitemapsTest, OffByDefault) {
  SimWeb web = MakeWeb(SmallWeb());
  for (const char* target :
       {"/sitemap.xml", "/sitemap-pages.xml.gz", "/sitemap-orphans.xml", "/orphan/0"}) {
    EXPECT_EQ(web.Fetch(HostName(0), target).status, 404) << target;
  }
  EXPECT_EQ(web.Fetch(HostName(0), "/robots.txt").body.find("Sitemap:"), std::string::npos);
}

}  // namespace
}  // namespace crawlfront::simweb
