// Recrawls end to end: after a crawl of simweb, every page fetched with 200
// is queued again (FRONTIER.ADDX ... REFETCH now). Each recrawl's lease
// carries the validators the first fetch's DONE reported, the worker sends
// them as If-None-Match / If-Modified-Since, and simweb's unchanged pages
// answer 304: written to the WARC as revisit records (server-not-modified)
// and reported by FRONTIER.URL as the last fetch. simweb, crawl-frontier and
// crawl-worker on 127.0.0.1.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "e2e_env.h"
#include "e2e_logs.h"

namespace crawlfront::e2e {
namespace {

constexpr auto kLimit = std::chrono::seconds(120);

std::map<std::string, std::string> FieldsOf(const RespValue& reply) {
  std::map<std::string, std::string> f;
  for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    const RespValue& v = reply.elements[i + 1];
    f[reply.elements[i].str] = v.type == RespType::kInteger ? std::to_string(v.integer) : v.str;
  }
  return f;
}

TEST(E2eRecrawlTest, RecrawlsOfUnchangedPagesAreConditionalGets) {
  WebOptions o;
  o.hosts = 3;
  o.pages = 15;
  CrawlEnv env(o);
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0).ok()) << env.Logs();
  Status finished = env.WaitFinished(kLimit);
  ASSERT_TRUE(finished.ok()) << finished.message();

  auto first = ReadAccessLog(env.access_log());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::set<std::string> pages;  // fetched with 200, robots.txt aside
  for (const AccessEntry& e : *first) {
    if (e.status == 200 && e.target != "/robots.txt") pages.insert(e.Url());
  }
  ASSERT_GE(pages.size(), 20u);
  const size_t first_lines = first->size();

  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  std::vector<std::string> cmd = {"FRONTIER.ADDX", "REFETCH", std::to_string(now_ms), "URLS"};
  cmd.insert(cmd.end(), pages.begin(), pages.end());
  auto queued = env.Command(cmd);
  ASSERT_TRUE(queued.ok()) << queued.status().ToString();
  ASSERT_EQ(queued->elements.size(), pages.size());
  for (const RespValue& r : queued->elements) ASSERT_EQ(r.integer, 2) << "a recrawl queued";
  finished = env.WaitFinished(kLimit);
  ASSERT_TRUE(finished.ok()) << finished.message();
  EXPECT_TRUE(env.StopWorkers().ok());  // closes its WARC file

  auto all = ReadAccessLog(env.access_log());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::map<std::string, std::vector<int>> recrawled;  // URL -> statuses since
  for (size_t i = first_lines; i < all->size(); ++i) {
    recrawled[(*all)[i].Url()].push_back((*all)[i].status);
  }
  for (const std::string& u : pages) {
    EXPECT_EQ(recrawled[u], std::vector<int>{304}) << u << ": one conditional GET";
  }

  auto records = ReadWarcDir(env.warc_dir());
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  std::set<std::string> revisits;
  for (const WarcRecord& r : *records) {
    if (r.Get("WARC-Type") != "revisit") continue;
    EXPECT_EQ(r.Get("WARC-Profile"),
              "http://netpreserve.org/warc/1.1/revisit/server-not-modified");
    EXPECT_TRUE(r.block.starts_with("HTTP/1.1 304 ")) << r.block.substr(0, 40);
    revisits.insert(r.Get("WARC-Target-URI"));
  }
  EXPECT_EQ(revisits, pages);

  auto report = env.Command({"FRONTIER.URL", *pages.begin()});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  auto f = FieldsOf(*report);
  EXPECT_EQ(f["state"], "done");
  EXPECT_EQ(f["last_outcome"], "fetched");
  EXPECT_EQ(f["last_status"], "304");
  EXPECT_TRUE(f["etag"].starts_with("W/\"")) << f["etag"];
  EXPECT_EQ(f["last_modified"], "Tue, 01 Dec 2026 00:00:00 GMT");
  const std::string worker = testutil::Tail(env.worker_log(0), 1 << 20);
  EXPECT_NE(worker.find(std::to_string(pages.size()) + " not modified (304)"), std::string::npos)
      << worker.substr(worker.size() > 2000 ? worker.size() - 2000 : 0);
}

}  // namespace
}  // namespace crawlfront::e2e
