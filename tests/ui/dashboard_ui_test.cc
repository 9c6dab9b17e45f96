// A live crawl (simweb + crawl-frontier + crawl-worker on 127.0.0.1) seen
// through headless Chromium: the dashboard's script polls /api/stats and
// renders real, non-zero numbers and the rate chart. Keeps a screenshot in
// <build>/ui/dashboard.png.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "browser.h"
#include "dom.h"
#include "ui_env.h"

namespace crawlfront::ui {
namespace {

constexpr int64_t kMinDone = 20;  // pages done before the browser looks

// snapshot.totals.<field> of an /api/stats document, or -1.
int64_t ApiTotal(int http_port, const std::string& field) {
  auto body = HttpGet(http_port, "/api/stats");
  if (!body.ok()) return -1;
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(*body, ec);
  if (ec) return -1;
  const boost::json::value* v = doc.find_pointer("/snapshot/totals/" + field, ec);
  return (ec || v == nullptr || !v->is_number()) ? -1 : v->to_number<int64_t>();
}

int64_t DomTotal(const std::map<std::string, std::string>& totals,
                 const std::string& name) {
  auto it = totals.find(name);
  if (it == totals.end()) return -1;
  return ParseCount(it->second).value_or(-1);
}

TEST(DashboardUiTest, LiveCrawlShowsCountsAndChart) {
  std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (scripts/setup.sh)";
  UiEnv env(UiEnvOptions{});
  ASSERT_TRUE(env.StartFrontier().ok()) << env.Logs();
  ASSERT_TRUE(env.SeedHomePages().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWebAndWorker().ok()) << env.Logs();
  Status done = env.WaitAbove("urls_done", kMinDone, std::chrono::seconds(60));
  ASSERT_TRUE(done.ok()) << done.message();

  // The counters only grow, so the page's numbers lie between two reads.
  int64_t fetched_before = ApiTotal(env.http_port(), "urls_fetched");
  ASSERT_GT(fetched_before, 0);
  BrowserRun run{chromium, "http://127.0.0.1:" + std::to_string(env.http_port()) + "/",
                 env.dir()};
  auto dom = DumpDom(run);
  ASSERT_TRUE(dom.ok()) << dom.status().message();
  int64_t fetched_after = ApiTotal(env.http_port(), "urls_fetched");

  // "live ..." only after the script fetched /api/stats and rendered it.
  auto conn = InnerHtml(*dom, "conn");
  ASSERT_TRUE(conn.has_value()) << *dom;
  EXPECT_EQ(conn->rfind("live ", 0), 0u) << *conn;

  auto totals_html = InnerHtml(*dom, "totals");
  ASSERT_TRUE(totals_html.has_value());
  auto totals = KeyValues(*totals_html);
  int64_t fetched = DomTotal(totals, "fetched");
  EXPECT_GE(fetched, fetched_before) << *totals_html;
  EXPECT_LE(fetched, fetched_after) << *totals_html;
  EXPECT_GE(DomTotal(totals, "URLs seen"), fetched) << *totals_html;

  // The durability row as the server words it (status.json's text).
  auto tasks = KeyValues(InnerHtml(*dom, "tasks").value_or(""));
  EXPECT_EQ(tasks["durability"].rfind("everysec: ", 0), 0u) << tasks["durability"];
  EXPECT_NE(tasks["durability"].find(" WAL fsyncs"), std::string::npos) << tasks["durability"];

  auto points = Attribute(*dom, "rates", "data-points");
  ASSERT_TRUE(points.has_value()) << "the rate chart was not drawn";
  EXPECT_GT(ParseCount(*points).value_or(0), 0);
  EXPECT_EQ(InnerHtml(*dom, "rates-now").value_or("").rfind("now: fetched ", 0), 0u);

  auto workers = TableRows(InnerHtml(*dom, "workers").value_or(""));
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0].at(0), "w0");
  auto hosts = TableRows(InnerHtml(*dom, "hosts").value_or(""));
  ASSERT_FALSE(hosts.empty());
  EXPECT_NE(hosts[0].at(0).find(".simweb.test"), std::string::npos);

  std::filesystem::create_directories(CRAWLFRONT_UI_ARTIFACT_DIR);
  std::string png = std::string(CRAWLFRONT_UI_ARTIFACT_DIR) + "/dashboard.png";
  Status shot = Screenshot(run, png, 1280, 1600);
  ASSERT_TRUE(shot.ok()) << shot.message();
  std::ifstream in(png, std::ios::binary);
  std::string magic(8, '\0');
  in.read(magic.data(), 8);
  EXPECT_EQ(magic, std::string("\x89PNG\r\n\x1a\n", 8));
  std::printf(
      "dashboard: fetched %lld (api %lld..%lld), chart points %s, screenshot %s\n",
      static_cast<long long>(fetched), static_cast<long long>(fetched_before),
      static_cast<long long>(fetched_after), points->c_str(), png.c_str());
}

}  // namespace
}  // namespace crawlfront::ui
