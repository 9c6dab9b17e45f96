// Sitemaps end to end: simweb --sitemaps names /sitemap.xml in robots.txt;
// the frontier queues it, the worker reads the index, then the gzip sitemap
// of every page and the plain one of the orphan pages, which no page links
// to, so they are fetched only because the worker read the sitemaps
// (docs/worker.md, "Sitemaps"). simweb, crawl-frontier and crawl-worker on
// 127.0.0.1.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "e2e_env.h"
#include "e2e_logs.h"

namespace crawlfront::e2e {
namespace {

constexpr auto kLimit = std::chrono::seconds(120);

TEST(E2eSitemapTest, OrphanPagesAreFoundThroughSitemaps) {
  WebOptions o;
  o.hosts = 3;
  o.pages = 10;
  o.simweb_args = {"--sitemaps", "--plain-robots"};
  CrawlEnv env(o);
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0).ok()) << env.Logs();
  Status finished = env.WaitFinished(kLimit);
  ASSERT_TRUE(finished.ok()) << finished.message();
  EXPECT_TRUE(env.StopWorkers().ok());

  auto log = ReadAccessLog(env.access_log());
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  std::map<std::string, int> fetches;  // URL -> times fetched with 200
  for (const AccessEntry& e : *log) fetches[e.Url()] += e.status == 200;
  for (int h = 0; h < o.hosts; ++h) {
    const std::string base = "http://h" + std::to_string(h) + ".simweb.test";
    for (const char* path : {"/sitemap.xml", "/sitemap-pages.xml.gz", "/sitemap-orphans.xml",
                             "/orphan/0", "/orphan/1", "/orphan/2"}) {
      EXPECT_EQ(fetches[base + path], 1) << base + path << " fetched once";
    }
  }
  const std::string worker = testutil::Tail(env.worker_log(0), 1 << 20);
  EXPECT_NE(worker.find("/sitemap.xml -> fetched status 200 HTTP/1.1"), std::string::npos);
  EXPECT_NE(worker.find(", sitemap index: 2 links"), std::string::npos) << worker;
  EXPECT_NE(worker.find(", sitemap: 3 links"), std::string::npos) << "the orphans' sitemap";
  EXPECT_NE(worker.find(", sitemap: 10 links"), std::string::npos) << "every page, gzip";
}

// With crawl.sitemap_refetch the frontier queues each sitemap a worker read
// (its DONE says SITEMAP 1, as the frontier's INFO asks) again that long
// after the read: every sitemap is fetched again, no sooner, and the pages
// they list are not, being seen, except orphan 0, whose <lastmod> is always
// the time of the request: listed as changed since the previous read, it is
// fetched again after the second read of its sitemap, with a conditional GET
// (its body did not change: simweb answers 304), while every sitemap is read
// in full again. Such a crawl never finishes, so the test waits for the
// second reads.
TEST(E2eSitemapTest, SitemapsAreReadAgainAfterSitemapRefetch) {
  WebOptions o;
  o.hosts = 2;
  o.pages = 10;
  o.simweb_args = {"--sitemaps", "--plain-robots"};
  o.frontier_sets = {"crawl.sitemap_refetch=2s"};
  CrawlEnv env(o);
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0).ok()) << env.Logs();
  std::vector<std::string> sitemaps;
  for (int h = 0; h < o.hosts; ++h) {
    for (const char* path : {"/sitemap.xml", "/sitemap-pages.xml.gz", "/sitemap-orphans.xml"}) {
      sitemaps.push_back("http://h" + std::to_string(h) + ".simweb.test" + path);
    }
  }
  // URL -> times fetched with 200 or 304, and the statuses.
  std::map<std::string, std::vector<int64_t>> reads;
  std::map<std::string, std::vector<int>> statuses;
  const auto deadline = std::chrono::steady_clock::now() + kLimit;
  for (bool all = false; !all && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto log = ReadAccessLog(env.access_log());
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    reads.clear();
    statuses.clear();
    for (const AccessEntry& e : *log) {
      if (e.status != 200 && e.status != 304) continue;
      reads[e.Url()].push_back(e.time_ms);
      statuses[e.Url()].push_back(e.status);
    }
    all = std::all_of(sitemaps.begin(), sitemaps.end(),
                      [&](const std::string& u) { return reads[u].size() >= 2; });
    for (int h = 0; h < o.hosts; ++h) {
      all = all && reads["http://h" + std::to_string(h) + ".simweb.test/orphan/0"].size() >= 2;
    }
  }
  EXPECT_TRUE(env.StopWorkers().ok());
  for (const std::string& u : sitemaps) {
    ASSERT_GE(reads[u].size(), 2u) << u << " read again within " << kLimit.count() << " s";
    EXPECT_GE(reads[u][1] - reads[u][0], 1999) << u << ": not before sitemap_refetch";
    EXPECT_EQ(statuses[u][1], 200) << u << ": a sitemap is read in full again";
  }
  for (int h = 0; h < o.hosts; ++h) {
    const std::string base = "http://h" + std::to_string(h) + ".simweb.test";
    for (const char* path : {"/orphan/1", "/orphan/2"}) {
      EXPECT_EQ(reads[base + path].size(), 1u) << base + path << " fetched once";
    }
    const auto& changed = reads[base + "/orphan/0"];
    const auto& listing = reads[base + "/sitemap-orphans.xml"];
    ASSERT_GE(changed.size(), 2u) << base << "/orphan/0 fetched again";
    ASSERT_GE(listing.size(), 2u);
    EXPECT_GE(changed[1], listing[1]) << "after the sitemap's second read, not before";
    EXPECT_EQ(statuses[base + "/orphan/0"][0], 200);
    EXPECT_EQ(statuses[base + "/orphan/0"][1], 304) << "a conditional GET of an unchanged page";
  }
}

}  // namespace
}  // namespace crawlfront::e2e
