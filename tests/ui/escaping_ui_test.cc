// Crawled strings that look like markup (a URL path, a worker id, an error
// text) come out of /api/stats intact and are shown on the dashboard only as
// text: in the server-rendered page and in the DOM after the script ran.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "browser.h"
#include "dom.h"
#include "ui_env.h"

namespace crawlfront::ui {
namespace {

const std::string kScriptUrl = "http://h0.simweb.test/<script>alert(1)</script>\"q'";
const std::string kBadHostUrl = "http://<script>alert(1)</script>/";
const std::string kClientName = "<script>alert(1)</script>";
const std::string kWorkerId = "<script>alert('w')</script>";
const std::string kReason = "<script>alert('x')</script> \"quoted\" & <b>bold</b>";

// LEASE for kWorkerId, waiting up to 5 s; returns the first lease.
Result<RespValue> LeaseOne(UiEnv& env) {
  auto reply = env.Command({"FRONTIER.LEASE", kWorkerId, "1", "BLOCK", "5000"});
  if (!reply.ok()) return reply.status();
  if (reply->is_error() || reply->elements.size() != 1 ||
      reply->elements[0].elements.size() < 5) {
    return Status::Internal("unexpected lease reply: " + reply->ToDebugString());
  }
  return reply->elements[0];
}

// Adds the URLs, reports the robots lease, then fails the page with kReason.
// Returns the leased (canonical) page URL.
Result<std::string> FeedMarkup(UiEnv& env) {
  auto named = env.Command({"CLIENT", "SETNAME", kClientName});
  if (!named.ok() || named->is_error()) return Status::Internal("CLIENT SETNAME failed");
  auto added = env.Command({"FRONTIER.ADD", kScriptUrl, kBadHostUrl});
  if (!added.ok()) return added.status();
  if (added->elements.size() != 2 || added->elements[0].integer != 1 ||
      added->elements[1].str.rfind("rejected: ", 0) != 0) {
    return Status::Internal("unexpected ADD reply: " + added->ToDebugString());
  }
  auto robots = LeaseOne(env);
  if (!robots.ok()) return robots.status();
  if (robots->elements[4].str != "robots")
    return Status::Internal("expected the robots lease");
  auto r = env.Command(
      {"FRONTIER.DONE", kWorkerId, robots->elements[0].str, "robots", "STATUS", "404"});
  if (!r.ok() || r->integer != 1) return Status::Internal("robots DONE was not accepted");
  auto page = LeaseOne(env);
  if (!page.ok()) return page.status();
  auto d = env.Command(
      {"FRONTIER.DONE", kWorkerId, page->elements[0].str, "failed", "REASON", kReason});
  if (!d.ok() || d->integer != 1) return Status::Internal("failed DONE was not accepted");
  return page->elements[1].str;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The page must hold exactly one <script> (dashboard.js) and the marked-up
// strings only as escaped text in the workers and errors tables.
void ExpectEscaped(const std::string& html, const std::string& what) {
  EXPECT_EQ(CountCaseInsensitive(html, "<script"), 1u) << what << ":\n" << html;
  EXPECT_EQ(CountCaseInsensitive(html, "<b>"), 0u) << what;
  auto workers = TableRows(InnerHtml(html, "workers").value_or(""));
  ASSERT_EQ(workers.size(), 1u) << what;
  EXPECT_NE(workers[0].at(0).find("&lt;script&gt;alert("), std::string::npos) << what;
  auto errors = TableRows(InnerHtml(html, "errors").value_or(""));
  ASSERT_EQ(errors.size(), 1u) << what;
  EXPECT_NE(errors[0].at(1).find("&lt;script&gt;alert("), std::string::npos) << what;
  EXPECT_NE(errors[0].at(1).find("&lt;b&gt;bold&lt;/b&gt;"), std::string::npos) << what;
}

TEST(DashboardUiTest, MarkupInCrawledStringsStaysText) {
  UiEnv env(UiEnvOptions{.delay = "10ms"});
  ASSERT_TRUE(env.StartFrontier().ok()) << env.Logs();
  auto leased = FeedMarkup(env);
  ASSERT_TRUE(leased.ok()) << leased.status().message() << "\n" << env.Logs();
  // The canonicalizer percent-encodes the markup in the path.
  EXPECT_EQ(leased->find_first_of("<>\""), std::string::npos) << *leased;
  EXPECT_NE(leased->find("%3Cscript%3E"), std::string::npos) << *leased;

  auto json = HttpGet(env.http_port(), "/api/stats");
  ASSERT_TRUE(json.ok()) << json.status().message();
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(*json, ec);
  ASSERT_FALSE(ec) << "invalid JSON: " << ec.message();
  const auto& snap = doc.at("snapshot").as_object();
  ASSERT_EQ(snap.at("workers").as_array().size(), 1u);
  EXPECT_EQ(snap.at("workers").as_array()[0].at("id").as_string(), kWorkerId);
  ASSERT_EQ(snap.at("recent_errors").as_array().size(), 1u);
  std::string error_text(snap.at("recent_errors").as_array()[0].at("text").as_string());
  EXPECT_TRUE(EndsWith(error_text, kReason)) << error_text;

  auto page = HttpGet(env.http_port(), "/");  // the server-rendered view, no script run
  ASSERT_TRUE(page.ok()) << page.status().message();
  ExpectEscaped(*page, "server-rendered page");

  std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (scripts/setup.sh)";
  BrowserRun run{chromium, "http://127.0.0.1:" + std::to_string(env.http_port()) + "/",
                 env.dir()};
  auto dom = DumpDom(run);
  ASSERT_TRUE(dom.ok()) << dom.status().message();
  EXPECT_EQ(InnerHtml(*dom, "conn").value_or("").rfind("live ", 0),
            0u);  // script rendered
  ExpectEscaped(*dom, "DOM after the script ran");
}

}  // namespace
}  // namespace crawlfront::ui
