// Pure renderer tests: escaping, JSON, Prometheus text, dashboard HTML,
// routing and the rate history, without sockets.
#include "status_render.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>

#include "crawlfront/frontier/status_http.h"
#include "status_assets_gen.h"
#include "status_history.h"
#include "status_page.h"
#include "status_router.h"
#include "status_test_util.h"

namespace crawlfront {
namespace {

namespace json = boost::json;
using testing::CraftedSnapshot;
using testing::kEvil;
using testing::ParsePrometheusText;

TEST(StatusEscapeTest, HtmlEscape) {
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {"plain.example.org", "plain.example.org"},
      {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
      {"a\"b'c&d", "a&quot;b&#39;c&amp;d"},
      {"&amp;", "&amp;amp;"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(HtmlEscape(in), want) << in;
}

TEST(StatusEscapeTest, PrometheusLabelEscape) {
  const std::pair<std::string, std::string> cases[] = {
      {"a", "a"},
      {"a\"b", "a\\\"b"},
      {"back\\slash", "back\\\\slash"},
      {"two\nlines", "two\\nlines"},
      {"bad\xFFutf8", "bad\xEF\xBF\xBDutf8"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(PrometheusLabelEscape(in), want) << in;
}

TEST(StatusEscapeTest, SanitizeUtf8) {
  const std::string kFffd = "\xEF\xBF\xBD";
  const std::pair<std::string, std::string> cases[] = {
      {"ascii", "ascii"},
      {"caf\xC3\xA9", "caf\xC3\xA9"},                       // é
      {"\xE2\x82\xAC", "\xE2\x82\xAC"},                     // €
      {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},             // emoji
      {"\xC0\xAF", kFffd + kFffd},                          // overlong '/'
      {"\xED\xA0\x80", kFffd + kFffd + kFffd},              // surrogate
      {"\xE2\x82", kFffd + kFffd},                          // truncated
      {"\xF5\x80\x80\x80", kFffd + kFffd + kFffd + kFffd},  // > U+10FFFF
      {std::string("nul\0in", 6), std::string("nul\0in", 6)},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(SanitizeUtf8(in), want) << in;
}

TEST(StatusSummaryTest, FullestPartitionsOrdersByFillThenId) {
  std::vector<SeenPartitionStatus> parts(5);
  const double fills[] = {0.2, 0.7, NAN, 0.7, 0.1};
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i].id = static_cast<uint32_t>(i);
    parts[i].fill_ratio = fills[i];
  }
  EXPECT_EQ(FullestPartitions(parts, 3), (std::vector<size_t>{1, 3, 0}));
  EXPECT_EQ(FullestPartitions(parts, 99).size(), 5u);
  EXPECT_TRUE(FullestPartitions({}, 3).empty());
}

TEST(StatusSummaryTest, DescribeTaskShowsProgress) {
  TaskProgress t;
  EXPECT_EQ(DescribeTask(t), "idle");
  t.running = true;
  t.done = 512;
  t.total = 1024;
  EXPECT_EQ(DescribeTask(t), "running 512/1024");
  t.total = 0;
  t.detail = "p7";
  EXPECT_EQ(DescribeTask(t), "running 512/? (p7)");
}

TEST(StatusSummaryTest, DescribePersistenceNamesModeAndFailure) {
  PersistenceStatus p{"everysec", 42, 0, false};
  EXPECT_EQ(DescribePersistence(p), "everysec: 42 WAL fsyncs");
  p.wal_sync_failed = true;
  EXPECT_EQ(DescribePersistence(p),
            "everysec: WAL fsync FAILED, writes are refused until a restart");
  EXPECT_EQ(DescribePersistence({"wal", 0, 0, false}),
            "wal: WAL not fsynced (the kernel writes it back)");
  EXPECT_EQ(DescribePersistence({"fsync", 0, 0, false}), "fsync: every write fsynced");
}

TEST(RateHistoryTest, RatesFromCounterDeltas) {
  RateHistory h(3);
  h.Add(1000, 10, 100, 1);
  EXPECT_TRUE(h.Samples().empty());  // first reading is only the baseline
  h.Add(3000, 30, 160, 1);           // 2 s later
  h.Add(3000, 99, 99, 99);           // same instant: ignored
  h.Add(4000, 5, 170, 4);            // fetched went down (reset)
  std::vector<RateSample> s = h.Samples();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].unix_ms, 3000);
  EXPECT_DOUBLE_EQ(s[0].fetched_per_second, 10.0);
  EXPECT_DOUBLE_EQ(s[0].added_per_second, 30.0);
  EXPECT_DOUBLE_EQ(s[0].failed_per_second, 0.0);
  EXPECT_DOUBLE_EQ(s[1].fetched_per_second, 0.0);
  EXPECT_DOUBLE_EQ(s[1].added_per_second, 10.0);
  EXPECT_DOUBLE_EQ(s[1].failed_per_second, 3.0);
}

TEST(RateHistoryTest, KeepsOnlyCapacityNewest) {
  RateHistory h(4);
  for (int i = 0; i <= 10; ++i) h.Add(i * 1000, static_cast<uint64_t>(i * i), 0, 0);
  std::vector<RateSample> s = h.Samples();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s.front().unix_ms, 7000);
  EXPECT_EQ(s.back().unix_ms, 10000);
  EXPECT_DOUBLE_EQ(s.back().fetched_per_second, 100.0 - 81.0);
}

TEST(StatusJsonTest, ParsesAndCarriesValues) {
  StatusSnapshot snap = CraftedSnapshot(64);
  std::vector<RateSample> history = {{1000, 1.5, 2.5, 0.5}, {2000, 3, 4, 0}};
  json::value doc = json::parse(RenderStatusJson(snap, history));
  const json::object& s = doc.at("snapshot").as_object();
  EXPECT_EQ(s.at("version").as_string(), "0.1.0-test");
  EXPECT_EQ(s.at("unix_ms").to_number<int64_t>(), snap.unix_ms);
  const json::object& t = s.at("totals").as_object();
  EXPECT_EQ(t.at("urls_seen").to_number<uint64_t>(), snap.totals.urls_seen);
  EXPECT_EQ(t.at("urls_rejected").to_number<uint64_t>(), snap.totals.urls_rejected);
  EXPECT_EQ(t.at("urls_dropped").to_number<uint64_t>(), snap.totals.urls_dropped);
  EXPECT_EQ(t.at("fetched_by_class").as_array().at(2).to_number<uint64_t>(),
            snap.totals.fetched_by_class[2]);
  const json::object& seen = s.at("seen").as_object();
  EXPECT_EQ(seen.at("partitions").at("id").as_array().size(), 64u);
  EXPECT_EQ(seen.at("fullest").as_array().size(), kStatusTopPartitions);
  EXPECT_EQ(seen.at("fullest").at(0).at("id").to_number<uint32_t>(), 63u);
  EXPECT_EQ(seen.at("summary").at("rebuilding").to_number<int>(), 1);
  EXPECT_EQ(s.at("persistence").at("durability").as_string(), "everysec");
  EXPECT_EQ(s.at("persistence").at("wal_syncs").to_number<uint64_t>(), 7777u);
  EXPECT_EQ(s.at("persistence").at("wal_sync_failed").as_bool(), true);
  EXPECT_EQ(s.at("persistence").at("text").as_string(),
            "everysec: WAL fsync FAILED, writes are refused until a restart");
  EXPECT_EQ(s.at("persistence").at("batches_written").to_number<uint64_t>(), 4242u);
  EXPECT_EQ(s.at("persistence").at("write_queue").to_number<uint64_t>(), 3u);
  EXPECT_EQ(s.at("persistence").at("immutable_memtables").to_number<uint64_t>(), 5u);
  EXPECT_EQ(s.at("persistence").at("flushes_running").to_number<uint64_t>(), 1u);
  EXPECT_EQ(s.at("persistence").at("compactions_running").to_number<uint64_t>(), 2u);
  EXPECT_EQ(s.at("persistence").at("flush_pending").as_bool(), true);
  EXPECT_EQ(s.at("persistence").at("compaction_pending").as_bool(), false);
  EXPECT_EQ(s.at("memory").at("resident_bytes").to_number<uint64_t>(), uint64_t{700} << 20);
  EXPECT_EQ(s.at("memory").at("queue_heads_bytes").to_number<uint64_t>(), 123456u);
  EXPECT_EQ(s.at("memory").at("queue_heads").to_number<uint64_t>(), 789u);
  EXPECT_EQ(s.at("memory").at("queue_heads_max_bytes").to_number<uint64_t>(),
            uint64_t{256} << 20);
  EXPECT_EQ(s.at("snapshot").at("text").as_string(), DescribeTask(snap.snapshot));
  EXPECT_EQ(s.at("rebuild").at("last_error").as_string(), snap.rebuild.last_error);
  // Crawled strings survive escaping intact.
  EXPECT_EQ(s.at("top_hosts").at(0).at("host").as_string(), snap.top_hosts[0].host);
  EXPECT_EQ(s.at("workers").at(0).at("id").as_string(), snap.workers[0].id);
  EXPECT_EQ(s.at("recent_errors").at(0).at("text").as_string(),
            snap.recent_errors[0].text);
  EXPECT_EQ(s.at("crawls").at(0).at("id").as_string(), snap.crawls[0].id);
  EXPECT_EQ(s.at("crawls").at(0).at("urls_inflight").to_number<uint64_t>(), 5u);
  EXPECT_EQ(s.at("crawls").at(0).at("hosts").to_number<uint64_t>(), 6u);
  EXPECT_EQ(s.at("crawls").at(0).at("hosts_ready").to_number<uint64_t>(), 2u);
  EXPECT_EQ(s.at("crawls").at(0).at("finished").as_bool(), false);
  const json::object& h = doc.at("history").as_object();
  ASSERT_EQ(h.at("unix_ms").as_array().size(), 2u);
  EXPECT_DOUBLE_EQ(h.at("added_per_second").at(1).to_number<double>(), 4.0);
}

TEST(StatusJsonTest, InvalidUtf8AndNanStillMakeValidJson) {
  StatusSnapshot snap;
  snap.top_hosts.push_back({"bad\xC3(host", 1, 0, 0, 0, 0, 0, "\xFF"});
  snap.uptime_seconds = NAN;
  snap.seen.partitions.push_back({});
  snap.seen.partitions[0].fill_ratio = INFINITY;
  json::value doc = json::parse(RenderStatusJson(snap, {{1, NAN, 0, 0}}));
  EXPECT_EQ(doc.at("snapshot").at("top_hosts").at(0).at("host").as_string(),
            "bad\xEF\xBF\xBD(host");
  EXPECT_EQ(doc.at("snapshot").at("uptime_seconds").to_number<double>(), 0.0);
}

TEST(StatusJsonTest, DoublesAreWrittenWithoutAnExponentWhenShorter) {
  StatusSnapshot snap;
  snap.uptime_seconds = 1.5;
  snap.seen.partitions.push_back({});
  snap.seen.partitions[0].fill_ratio = 0.75;
  snap.seen.partitions[0].estimated_fp_rate = 1e-9;
  const std::string text = RenderStatusJson(snap, {{1, 0.0, 12.25, 3.0}});
  EXPECT_NE(text.find("\"uptime_seconds\":1.5,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"fill_ratio\":0.75,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"estimated_fp_rate\":1e-09,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"added_per_second\":[12.25]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"fetched_per_second\":[0]"), std::string::npos) << text;
  // Strings are still escaped, and the document reads back the same.
  snap.top_hosts.push_back({"q\"\\\n", 1, 0, 0, 0, 0, 0, ""});
  json::value doc = json::parse(RenderStatusJson(snap, {}));
  EXPECT_EQ(doc.at("snapshot").at("top_hosts").at(0).at("host").as_string(), "q\"\\\n");
  EXPECT_EQ(doc.at("snapshot").at("uptime_seconds").to_number<double>(), 1.5);
  EXPECT_EQ(doc.at("snapshot").at("seen").at("fullest").at(0).at("estimated_fp_rate")
                .to_number<double>(), 1e-9);
}

TEST(StatusJsonTest, ListsAreCapped) {
  StatusSnapshot snap;
  for (size_t i = 0; i < kStatusMaxErrors + 20; ++i) {
    snap.recent_errors.push_back({static_cast<int64_t>(i), "e" + std::to_string(i)});
  }
  json::value doc = json::parse(RenderStatusJson(snap, {}));
  const json::array& errors = doc.at("snapshot").at("recent_errors").as_array();
  ASSERT_EQ(errors.size(), kStatusMaxErrors);
  EXPECT_EQ(errors.back().at("text").as_string(),
            "e" + std::to_string(kStatusMaxErrors + 19));
  EXPECT_EQ(errors.front().at("text").as_string(), "e20");
}

TEST(StatusMetricsTest, WellFormedWithValues) {
  StatusSnapshot snap = CraftedSnapshot(1024);
  testing::ParsedMetrics m = ParsePrometheusText(RenderPrometheusMetrics(snap, 10));
  EXPECT_TRUE(m.errors.empty()) << ::testing::PrintToString(m.errors);
  EXPECT_EQ(m.types["crawlfront_urls_seen_total"], "counter");
  EXPECT_EQ(m.types["crawlfront_urls_queued"], "gauge");
  std::map<std::string, std::string> single;
  size_t partition_series = 0;
  std::string evil_worker;
  for (const auto& s : m.samples) {
    if (s.labels.empty()) single[s.name] = s.value;
    if (s.name == "crawlfront_seen_partition_fill_ratio") {
      ++partition_series;
      EXPECT_GE(std::stoi(s.labels.at("partition")), 1014);  // only the fullest
    }
    if (s.name == "crawlfront_worker_leases") {
      evil_worker = s.labels.at("worker");
      EXPECT_EQ(s.labels.at("address"), "127.0.0.1");  // without the connection's port
    }
  }
  EXPECT_EQ(single["crawlfront_urls_seen_total"], std::to_string(snap.totals.urls_seen));
  EXPECT_EQ(single["crawlfront_urls_queued"], std::to_string(snap.totals.urls_queued));
  EXPECT_EQ(single["crawlfront_leases_expired_total"],
            std::to_string(snap.totals.leases_expired));
  EXPECT_EQ(single["crawlfront_urls_dropped_total"], std::to_string(snap.totals.urls_dropped));
  EXPECT_EQ(m.types["crawlfront_wal_syncs_total"], "counter");
  EXPECT_EQ(single["crawlfront_wal_syncs_total"], "7777");
  EXPECT_EQ(m.types["crawlfront_batches_written_total"], "counter");
  EXPECT_EQ(single["crawlfront_batches_written_total"], "4242");
  EXPECT_EQ(m.types["crawlfront_write_queue_batches"], "gauge");
  EXPECT_EQ(single["crawlfront_write_queue_batches"], "3");
  EXPECT_EQ(m.types["crawlfront_immutable_memtables"], "gauge");
  EXPECT_EQ(single["crawlfront_immutable_memtables"], "5");
  EXPECT_EQ(single["crawlfront_flushes_running"], "1");
  EXPECT_EQ(single["crawlfront_compactions_running"], "2");
  EXPECT_EQ(single["crawlfront_wal_sync_errors_total"], "2");
  EXPECT_EQ(single["crawlfront_wal_sync_failed"], "1");
  EXPECT_EQ(m.types["process_resident_memory_bytes"], "gauge");
  EXPECT_EQ(single["process_resident_memory_bytes"], std::to_string(uint64_t{700} << 20));
  EXPECT_EQ(m.types["crawlfront_queue_heads_bytes"], "gauge");
  EXPECT_EQ(single["crawlfront_queue_heads_bytes"], "123456");
  EXPECT_EQ(partition_series, 10u);
  EXPECT_EQ(evil_worker, snap.workers[0].id);  // escaped, and unescapes back
}

// One series per crawl counter, labelled by the (escaped) crawl id.
TEST(StatusMetricsTest, PerCrawlSeries) {
  StatusSnapshot snap = CraftedSnapshot(4);
  snap.crawls.push_back({"done", false, 3, 0, 3, 0, 0, 1, 0, true});
  testing::ParsedMetrics m = ParsePrometheusText(RenderPrometheusMetrics(snap, 10));
  EXPECT_TRUE(m.errors.empty()) << ::testing::PrintToString(m.errors);
  std::map<std::string, std::string> evil, done;  // series name -> value
  for (const auto& s : m.samples) {
    auto it = s.labels.find("crawl");
    if (it == s.labels.end()) continue;
    if (it->second == snap.crawls[0].id) evil[s.name] = s.value;
    if (it->second == "done") done[s.name] = s.value;
  }
  const std::map<std::string, std::string> want_evil = {
      {"crawlfront_crawl_paused", "1"},          {"crawlfront_crawl_finished", "0"},
      {"crawlfront_crawl_urls_seen_total", "10"}, {"crawlfront_crawl_urls_queued", "20"},
      {"crawlfront_crawl_urls_inflight", "5"},   {"crawlfront_crawl_urls_fetched_total", "30"},
      {"crawlfront_crawl_urls_failed_total", "40"}, {"crawlfront_crawl_hosts", "6"},
      {"crawlfront_crawl_hosts_ready", "2"}};
  EXPECT_EQ(evil, want_evil);
  EXPECT_EQ(done["crawlfront_crawl_finished"], "1");
  EXPECT_EQ(done["crawlfront_crawl_paused"], "0");
  EXPECT_EQ(m.types["crawlfront_crawl_urls_failed_total"], "counter");
  EXPECT_EQ(m.types["crawlfront_crawl_hosts_ready"], "gauge");
}

TEST(StatusMetricsTest, CheckerRejectsMalformedText) {
  const std::string bad[] = {
      "crawlfront_x 1\n",                                          // no HELP/TYPE
      "# HELP a_total h\n# TYPE a_total gauge\na_total 1\n",       // gauge _total
      "# HELP a h\n# TYPE a counter\na 1\n",                       // counter w/o _total
      "# HELP a h\n# TYPE a gauge\na{l=\"x} 1\n",                  // bad label
      "# HELP a h\n# TYPE a gauge\na one\n",                       // bad value
      "# HELP a h\n# TYPE a gauge\na{l=\"1\"} 1\na{l=\"1\"} 2\n",  // duplicate
  };
  for (const std::string& text : bad) {
    EXPECT_FALSE(ParsePrometheusText(text).errors.empty()) << text;
  }
  EXPECT_TRUE(ParsePrometheusText("# HELP a h\n# TYPE a gauge\na{l=\"\\\"\"} NaN\n")
                  .errors.empty());
}

TEST(StatusPageTest, CrawledStringsAreEscaped) {
  StatusSnapshot snap = CraftedSnapshot(8);
  std::string page = RenderDashboardHtml(snap);
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(page.find("host&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"),
            std::string::npos);
  EXPECT_NE(page.find("w&lt;script&gt;"), std::string::npos);
  EXPECT_NE(page.find("crawl&lt;script&gt;"), std::string::npos);
  EXPECT_NE(page.find("http://x/&lt;script&gt;"), std::string::npos);
  EXPECT_NE(page.find("running 512/1024 (partition 17)"), std::string::npos);
  EXPECT_NE(page.find("everysec: WAL fsync FAILED"), std::string::npos);
  EXPECT_EQ(page.find("<!--CF:"), std::string::npos);  // every marker filled
}

TEST(StatusPageTest, ShellCarriesNoData) {
  std::string page = RenderDashboardPage(nullptr);
  EXPECT_EQ(page.find("<!--CF:"), std::string::npos);
  EXPECT_EQ(page.find("0.1.0-test"), std::string::npos);
  EXPECT_NE(page.find("/static/dashboard.js"), std::string::npos);
}

TEST(StatusPageTest, ScriptNeverInsertsMarkup) {
  const EmbeddedAsset* js = FindEmbeddedAsset("dashboard.js");
  ASSERT_NE(js, nullptr);
  for (std::string_view sink :
       {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("}) {
    EXPECT_EQ(js->body.find(sink), std::string_view::npos) << sink;
  }
  EXPECT_NE(js->body.find("textContent"), std::string_view::npos);
  // Offline: no asset refers to another origin.
  for (const EmbeddedAsset& asset : kEmbeddedAssets) {
    EXPECT_EQ(asset.body.find("http://"), std::string_view::npos) << asset.name;
    EXPECT_EQ(asset.body.find("https://"), std::string_view::npos) << asset.name;
  }
}

TEST(StatusRouterTest, BearerToken) {
  struct Case {
    std::string header, token;
    bool want;
  };
  const Case cases[] = {
      {"Bearer s3cret", "s3cret", true},
      {"bearer s3cret", "s3cret", true},
      {"Bearer s3cre", "s3cret", false},
      {"Bearer s3cretx", "s3cret", false},
      {"Basic s3cret", "s3cret", false},
      {"", "s3cret", false},
      {"Bearer ", "", false},
      {"Bearer", "s3cret", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(BearerTokenMatches(c.header, c.token), c.want) << c.header;
  }
}

TEST(StatusRouterTest, StatusCodesWithoutSockets) {
  StatusServerOptions options;
  options.auth_token = "tok";
  bool ready = false;
  StatusProvider provider = [&] {
    StatusSnapshot s = CraftedSnapshot(4);
    s.ready = ready;
    return s;
  };
  StatusRouteContext ctx{&options, &provider, nullptr};
  struct Case {
    std::string method, target, auth;
    unsigned want;
  };
  const Case cases[] = {
      {"GET", "/", "", 200},
      {"GET", "/healthz", "", 200},
      {"HEAD", "/healthz", "", 200},
      {"GET", "/readyz", "", 503},
      {"GET", "/static/dashboard.js", "", 200},
      {"GET", "/static/nope.js", "", 404},
      {"GET", "/api/stats", "", 401},
      {"GET", "/api/stats?x=1", "Bearer tok", 200},
      {"GET", "/api/other", "Bearer tok", 404},
      {"GET", "/metrics", "Bearer bad", 401},
      {"GET", "/metrics", "Bearer tok", 200},
      {"POST", "/api/stats", "Bearer tok", 405},
      {"DELETE", "/", "", 405},
      {"GET", "/nope", "", 404},
      {"GET", "", "", 404},
  };
  for (const Case& c : cases) {
    StatusReply r = RouteStatusRequest({c.method, c.target, c.auth}, ctx);
    EXPECT_EQ(r.status, c.want) << c.method << " " << c.target;
  }
  ready = true;
  EXPECT_EQ(RouteStatusRequest({"GET", "/readyz", ""}, ctx).status, 200u);
}

TEST(StatusRouterTest, ThrowingProviderGives500) {
  StatusServerOptions options;
  StatusProvider provider = []() -> StatusSnapshot { throw std::runtime_error("boom"); };
  StatusRouteContext ctx{&options, &provider, nullptr};
  for (const char* path : {"/", "/api/stats", "/metrics", "/readyz"}) {
    EXPECT_EQ(RouteStatusRequest({"GET", path, ""}, ctx).status, 500u) << path;
  }
  EXPECT_EQ(RouteStatusRequest({"GET", "/healthz", ""}, ctx).status, 200u);
}

}  // namespace
}  // namespace crawlfront
