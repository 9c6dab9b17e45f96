// Sitemaps end to end: simweb --sitemaps names /sitemap.xml in robots.txt;
// the frontier queues it, the worker reads the index, then the gzip sitemap
// of every page and the plain one of the orphan pages, which no page links
// to, so they are fetched only because the worker read the sitemaps
// (docs/worker.md, "Sitemaps"). simweb, crawl-frontier and crawl-worker on
// 127.0.0.1.

#include <gtest/gtest.h>

#include <map>
#include <string>

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

}  // namespace
}  // namespace crawlfront::e2e
