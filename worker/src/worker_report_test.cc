// Tests of the worker's pure parts: lease parsing, DONE building, WARC
// exchange building, addresses and the configuration table.

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "crawlfront/common/url.h"
#include "crawlfront/worker/worker.h"
#include "worker_internal.h"

namespace crawlfront::worker_internal {
namespace {

RespValue LeaseValue(std::string id, std::string url, std::string kind) {
  return RespValue::Array({RespValue::Bulk(std::move(id)), RespValue::Bulk(std::move(url)),
                           RespValue::Integer(2), RespValue::Integer(1),
                           RespValue::Bulk(std::move(kind)), RespValue::Bulk("default")});
}

TEST(ParseLeasesTest, GoodAndMalformedEntries) {
  RespValue reply = RespValue::Array({
      LeaseValue("L1", "http://a.test/", "page"),
      LeaseValue("L2", "http://a.test/robots.txt", "robots"),
      LeaseValue("L3", "http://a.test/x", "video"),                // unknown kind
      RespValue::Array({RespValue::Bulk("L4")}),                   // too short
      RespValue::Integer(5),                                       // not an array
  });
  size_t skipped = 0;
  auto leases = ParseLeases(reply, &skipped);
  ASSERT_TRUE(leases.ok());
  ASSERT_EQ(leases->size(), 2u);
  EXPECT_EQ(skipped, 3u);
  EXPECT_EQ((*leases)[0].id, "L1");
  EXPECT_EQ((*leases)[0].depth, 2);
  EXPECT_EQ((*leases)[1].kind, "robots");
  EXPECT_FALSE(ParseLeases(RespValue::Error("ERR nope"), &skipped).ok());
  EXPECT_FALSE(ParseLeases(RespValue::Bulk("x"), &skipped).ok());
}

// A recrawl's lease carries its validators after the crawl id; unsafe ones
// (control bytes) are dropped and the lease kept.
TEST(ParseLeasesTest, RecrawlValidators) {
  auto with = [](RespValue v, std::string etag, std::string modified) {
    v.elements.push_back(RespValue::Bulk(std::move(etag)));
    v.elements.push_back(RespValue::Bulk(std::move(modified)));
    return v;
  };
  RespValue seven = LeaseValue("L4", "http://a.test/4", "page");
  seven.elements.push_back(RespValue::Bulk("\"x\""));
  RespValue reply = RespValue::Array({
      with(LeaseValue("L1", "http://a.test/1", "page"), "\"v1\"", "Tue, 01 Dec 2026 00:00:00 GMT"),
      with(LeaseValue("L2", "http://a.test/2", "page"), "\"a\"\r\nX-Evil: 1", ""),
      with(LeaseValue("L3", "http://a.test/3", "page"), "", "Tue, 01 Dec 2026 00:00:00 GMT"),
      seven,  // neither 6 nor 8 elements
  });
  size_t skipped = 0;
  auto leases = ParseLeases(reply, &skipped);
  ASSERT_TRUE(leases.ok());
  ASSERT_EQ(leases->size(), 3u);
  EXPECT_EQ(skipped, 1u);
  EXPECT_EQ((*leases)[0].etag, "\"v1\"");
  EXPECT_EQ((*leases)[0].last_modified, "Tue, 01 Dec 2026 00:00:00 GMT");
  EXPECT_EQ((*leases)[1].etag, "");
  EXPECT_EQ((*leases)[1].id, "L2");
  EXPECT_EQ((*leases)[2].etag, "");
  EXPECT_EQ((*leases)[2].last_modified, "Tue, 01 Dec 2026 00:00:00 GMT");

  using V = std::vector<std::string>;
  EXPECT_EQ(ConditionalHeaders((*leases)[0]),
            (V{"If-None-Match: \"v1\"", "If-Modified-Since: Tue, 01 Dec 2026 00:00:00 GMT"}));
  EXPECT_EQ(ConditionalHeaders((*leases)[2]),
            (V{"If-Modified-Since: Tue, 01 Dec 2026 00:00:00 GMT"}));
  Lease robots = (*leases)[0];
  robots.kind = "robots";
  EXPECT_TRUE(ConditionalHeaders(robots).empty());
}

TEST(RetryAfterTest, SecondsAndDates) {
  // 2020-01-01T00:00:00Z
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1577836800));
  struct Case {
    const char* value;
    int64_t ms;
  };
  const Case cases[] = {
      {"120", 120000},
      {" 5 ", 5000},
      {"0", 0},
      {"Wed, 01 Jan 2020 00:00:30 GMT", 30000},
      {"Tue, 31 Dec 2019 23:00:00 GMT", 0},          // in the past
      {"99999999999", 24LL * 3600 * 1000},           // clamped to a day
      {"-3", -1},
      {"soon", -1},
      {"", -1},
      {"Wed, 01 Jan 2020 00:00:30 GMT trailing", -1},
      {"Wednesday, 01-Jan-20 00:00:30 GMT", 30000},  // obsolete RFC 850 form
      {"Wed Jan  1 00:00:30 2020", 30000},           // obsolete asctime form
      {"Thu, 01 Jan 1970 00:00:00 GMT", 0},          // the epoch: past, not invalid
      {"99999999999999999999999", 24LL * 3600 * 1000},  // beyond int64: still a delay
      {"+5", -1},
  };
  for (const Case& c : cases) EXPECT_EQ(ParseRetryAfterMs(c.value, now), c.ms) << c.value;
  // A NUL inside the value must not end it early (strptime stops there).
  using namespace std::string_literals;
  EXPECT_EQ(ParseRetryAfterMs("Wed, 01 Jan 2020 00:00:30 GMT\0x"s, now), -1);
}

TEST(IsHtmlTest, ContentTypes) {
  EXPECT_TRUE(IsHtml("text/html"));
  EXPECT_TRUE(IsHtml("Text/HTML; charset=utf-8"));
  EXPECT_TRUE(IsHtml("application/xhtml+xml"));
  EXPECT_FALSE(IsHtml("text/plain"));
  EXPECT_FALSE(IsHtml(""));
  EXPECT_FALSE(IsHtml("application/json; x=text/html"));
}

FetchResult Response(int status, std::vector<std::pair<std::string, std::string>> headers,
                     std::string body) {
  FetchResult r;
  r.url = "http://site.test/dir/page";
  r.outcome = FetchOutcome::kResponse;
  r.status = status;
  r.total_ms = 12;
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

// A transfer that ended without a response.
FetchResult Failure(FetchOutcome outcome, std::string error, std::string url = "",
                    int64_t total_ms = 0) {
  FetchResult r;
  r.url = std::move(url);
  r.outcome = outcome;
  r.error = std::move(error);
  r.total_ms = total_ms;
  return r;
}

std::vector<std::string> Tail(const std::vector<std::string>& cmd) {
  return std::vector<std::string>(cmd.begin() + 3, cmd.end());
}

TEST(BuildReportTest, Outcomes) {
  ReportOptions opts{"w1", true, 100, 60000};
  Lease page{"L", "http://site.test/dir/page", 0, 1, "page", "default"};
  Lease robots{"R", "http://site.test/robots.txt", 0, 1, "robots", "default"};
  const FetchResult timeout = Failure(FetchOutcome::kTimeout, "slow");
  const FetchResult refused = Failure(FetchOutcome::kDisallowed, "private address");
  const FetchResult broken = Failure(FetchOutcome::kError, "bad");
  using V = std::vector<std::string>;
  struct Case {
    const char* name;
    Lease lease;
    FetchResult result;
    V tail;
  };
  const Case cases[] = {
      {"html", page,
       Response(200, {{"content-type", "text/html"}},
                "<a href='../a?utm_source=x'>a</a><a rel=nofollow href=/n>n</a>"
                "<a href='mailto:x@y'>m</a>"),
       V{"fetched", "STATUS", "200", "MS", "12", "LINKS", "http://site.test/a"}},
      {"not html", page, Response(200, {{"content-type", "text/plain"}}, "<a href=/a>a</a>"),
       V{"fetched", "STATUS", "200", "MS", "12"}},
      {"sitemap", page,
       Response(200, {{"content-type", "application/xml"}},
                "<urlset><url><loc>http://site.test/s?a=1&amp;b=2</loc></url>"
                "<url><loc>../up</loc></url></urlset>"),
       V{"fetched", "STATUS", "200", "MS", "12", "LINKS", "http://site.test/s?a=1&b=2",
         "http://site.test/up"}},
      {"sitemap with 404", page, Response(404, {}, "<urlset><url><loc>/x</loc></url></urlset>"),
       V{"fetched", "STATUS", "404", "MS", "12"}},
      {"redirect", page, Response(301, {{"location", "../b#frag"}}, ""),
       V{"fetched", "STATUS", "301", "MS", "12", "LINKS", "http://site.test/b"}},
      {"404", page, Response(404, {}, "x"), V{"fetched", "STATUS", "404", "MS", "12"}},
      {"503 retry-after", page, Response(503, {{"retry-after", "7"}}, ""),
       V{"retry", "STATUS", "503", "DELAY", "7000", "REASON", "http 503"}},
      {"429 default", page, Response(429, {}, ""),
       V{"retry", "STATUS", "429", "DELAY", "60000", "REASON", "http 429"}},
      {"timeout", page, timeout, V{"retry", "REASON", "timeout: slow"}},
      {"disallowed", page, refused, V{"disallowed", "REASON", "private address"}},
      {"error", page, broken, V{"failed", "REASON", "bad"}},
      {"robots 200", robots, Response(200, {}, "User-agent: *\nDisallow: /x\n"),
       V{"robots", "STATUS", "200", "MS", "12", "BODY", "User-agent: *\nDisallow: /x\n"}},
      {"robots 404", robots, Response(404, {}, "gone"),
       V{"robots", "STATUS", "404", "MS", "12", "BODY", "gone"}},
      {"robots unreachable", robots, timeout,
       V{"robots", "STATUS", "0", "MS", "0", "BODY", ""}},
  };
  for (const Case& c : cases) {
    Report rep = BuildReport(c.lease, c.result, opts);
    ASSERT_GE(rep.command.size(), 3u) << c.name;
    EXPECT_EQ(rep.command[0], "FRONTIER.DONE");
    EXPECT_EQ(rep.command[1], "w1");
    EXPECT_EQ(rep.command[2], c.lease.id);
    EXPECT_EQ(Tail(rep.command), c.tail) << c.name;
    EXPECT_EQ(rep.outcome, c.tail[0]) << c.name;
  }
}

// Each result's log line says why when nothing was fetched.
// DONE reports the validators the frontier keeps for the next recrawl.
TEST(BuildReportTest, ValidatorsForTheNextRecrawl) {
  ReportOptions opts{"w1", true, 100, 60000};
  Lease page{"L", "http://site.test/dir/page", 0, 1, "page", "default"};
  Lease recrawl = page;
  recrawl.etag = "\"old\"";
  recrawl.last_modified = "Mon, 30 Nov 2026 00:00:00 GMT";
  const std::string lm = "Tue, 01 Dec 2026 00:00:00 GMT";
  using V = std::vector<std::string>;
  auto tail = [&](const Lease& l, FetchResult r) { return Tail(BuildReport(l, r, opts).command); };
  EXPECT_EQ(tail(page, Response(200, {{"etag", "\"v1\""}, {"last-modified", lm}}, "x")),
            (V{"fetched", "STATUS", "200", "MS", "12", "ETAG", "\"v1\"", "MODIFIED", lm}));
  // A 304 confirms the leased copy: its validators, or the 304's own.
  EXPECT_EQ(tail(recrawl, Response(304, {}, "")),
            (V{"fetched", "STATUS", "304", "MS", "12", "ETAG", "\"old\"", "MODIFIED",
               "Mon, 30 Nov 2026 00:00:00 GMT"}));
  EXPECT_EQ(tail(recrawl, Response(304, {{"etag", "\"new\""}}, "")),
            (V{"fetched", "STATUS", "304", "MS", "12", "ETAG", "\"new\"", "MODIFIED",
               "Mon, 30 Nov 2026 00:00:00 GMT"}));
  // A 200 to a recrawl is a new copy: only its own validators count.
  EXPECT_EQ(tail(recrawl, Response(200, {}, "x")), (V{"fetched", "STATUS", "200", "MS", "12"}));
  EXPECT_EQ(tail(page, Response(404, {{"etag", "\"e\""}}, "")),
            (V{"fetched", "STATUS", "404", "MS", "12"}));
  EXPECT_EQ(tail(page, Response(200, {{"etag", "\"bad\x01\""}}, "")),
            (V{"fetched", "STATUS", "200", "MS", "12"}));

  FetchResult not_modified = Response(304, {}, "");
  EXPECT_TRUE(BuildExchange(not_modified, {}).not_modified);
  EXPECT_FALSE(BuildExchange(Response(200, {}, "x"), {}).not_modified);
  const Report rep = BuildReport(recrawl, not_modified, opts);
  EXPECT_NE(DescribeResult(recrawl, not_modified, rep).find("status 304 (not modified)"),
            std::string::npos);
}

TEST(DescribeResultTest, SaysWhy) {
  ReportOptions opts{"w1", true, 100, 60000};
  Lease page{"L", "http://site.test/dir/page", 0, 1, "page", "default"};
  Lease robots{"R", "http://site.test/robots.txt", 0, 1, "robots", "default"};
  const FetchResult refused_conn =
      Failure(FetchOutcome::kConnectError,
              "Failed to connect to site.test port 80: Connection refused", page.url, 1);
  const FetchResult private_ip =
      Failure(FetchOutcome::kDisallowed, "private address", page.url, 1);
  const FetchResult tls =
      Failure(FetchOutcome::kError, "SSL routines::wrong version number", page.url, 1);
  FetchResult html = Response(200, {{"content-type", "text/html"}}, "<a href=/a>a</a>");
  html.http_version = "2";
  FetchResult robots_txt = Response(200, {}, "User-agent: *\n");
  robots_txt.url = robots.url;
  robots_txt.http_version = "1.1";
  FetchResult robots_down = refused_conn;
  robots_down.url = robots.url;
  FetchResult index = Response(200, {}, "<sitemapindex><sitemap><loc>/s1.xml</loc></sitemap>");
  FetchResult busy = Response(503, {{"retry-after", "7"}}, "");
  busy.http_version = "1.1";
  struct Case {
    Lease lease;
    FetchResult result;
    std::string line;
  };
  const Case cases[] = {
      {page, html, "page http://site.test/dir/page -> fetched status 200 HTTP/2 12 ms, 1 link"},
      {page, index,
       "page http://site.test/dir/page -> fetched status 200 12 ms, sitemap index: 1 link "
       "(xml: no element found at line 1)"},
      {page, busy,
       "page http://site.test/dir/page -> retry status 503 HTTP/1.1 12 ms, retry in 7000 ms"},
      {page, refused_conn,
       "page http://site.test/dir/page -> retry 1 ms: connect error: Failed to connect to "
       "site.test port 80: Connection refused"},
      {page, private_ip, "page http://site.test/dir/page -> disallowed 1 ms: private address"},
      {page, tls,
       "page http://site.test/dir/page -> failed 1 ms: error: SSL routines::wrong version number"},
      {robots, robots_txt,
       "robots http://site.test/robots.txt -> robots status 200 HTTP/1.1 12 ms"},
      {robots, robots_down,
       "robots http://site.test/robots.txt -> robots 1 ms: connect error: Failed to connect to "
       "site.test port 80: Connection refused"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DescribeResult(c.lease, c.result, BuildReport(c.lease, c.result, opts)), c.line);
  }
}

// parse.max_sitemap_links caps a sitemap's links (0: sitemaps are not read).
TEST(BuildReportTest, SitemapLinksAreCapped) {
  Lease page{"L", "http://site.test/sitemap.xml", 0, 1, "page", "default"};
  std::string xml = "<urlset>";
  for (int i = 0; i < 30; ++i) xml += "<url><loc>/p" + std::to_string(i) + "</loc></url>";
  FetchResult r = Response(200, {{"content-type", "text/xml"}}, xml + "</urlset>");
  r.url = page.url;
  ReportOptions opts{"w1", true, 5, 60000, 20};
  Report capped = BuildReport(page, r, opts);
  ASSERT_EQ(capped.links.size(), 20u) << "max_links (5) is for HTML pages";
  EXPECT_EQ(capped.links.back(), "http://site.test/p19");
  EXPECT_EQ(capped.note, "cut at a limit");
  opts.max_sitemap_links = 0;
  EXPECT_TRUE(BuildReport(page, r, opts).links.empty());
}

// X-Robots-Tag nofollow (for every crawler or for this one) leaves an HTML
// page's links out, as <meta name=robots> does; the log line says why.
TEST(BuildReportTest, RobotsTagNofollowDropsThePagesLinks) {
  Lease page{"L", "http://site.test/dir/page", 0, 1, "page", "default"};
  ReportOptions opts{"w1", true, 100, 60000};
  opts.robots_token = "mybot";
  auto report = [&](std::vector<std::pair<std::string, std::string>> extra) {
    extra.insert(extra.begin(), {"content-type", "text/html"});
    return BuildReport(page, Response(200, std::move(extra), "<a href=/a>a</a>"), opts);
  };
  EXPECT_EQ(report({}).links.size(), 1u);
  EXPECT_EQ(report({{"X-Robots-Tag", "otherbot: nofollow"}}).links.size(), 1u);
  for (const char* value : {"noindex, nofollow", "mybot: none"}) {
    Report rep = report({{"X-Robots-Tag", "noarchive"}, {"x-robots-tag", value}});
    EXPECT_TRUE(rep.links.empty()) << value;
    EXPECT_EQ(rep.note, "nofollow: X-Robots-Tag");
    EXPECT_EQ(Tail(rep.command), (std::vector<std::string>{"fetched", "STATUS", "200", "MS", "12"}));
  }
  EXPECT_NE(DescribeResult(page, Response(200, {}, ""), report({{"X-Robots-Tag", "none"}}))
                .find("0 links (nofollow: X-Robots-Tag)"),
            std::string::npos);
  Report meta = BuildReport(page, Response(200, {{"content-type", "text/html"}},
                                           "<meta name=mybot content=nofollow><a href=/a>"),
                            opts);
  EXPECT_TRUE(meta.links.empty());
  EXPECT_EQ(meta.note, "nofollow: meta robots");
  opts.respect_nofollow = false;
  EXPECT_EQ(report({{"X-Robots-Tag", "nofollow"}}).links.size(), 1u);
}

// SITEMAP 1 goes only to a frontier that reads sitemaps again (an older one
// refuses the option), and only for a body that was a sitemap.
TEST(BuildReportTest, SitemapsAreMarkedForAFrontierThatRereadsThem) {
  Lease page{"L", "http://site.test/sitemap.xml", 0, 1, "page", "default"};
  FetchResult r = Response(200, {{"content-type", "text/xml"}},
                           "<sitemapindex><sitemap><loc>/s1.xml</loc></sitemap></sitemapindex>");
  r.url = page.url;
  ReportOptions opts{"w1", true, 5, 60000, 20};
  using V = std::vector<std::string>;
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command),
            (V{"fetched", "STATUS", "200", "MS", "12", "LINKS", "http://site.test/s1.xml"}));
  opts.mark_sitemaps = true;
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command),
            (V{"fetched", "STATUS", "200", "MS", "12", "SITEMAP", "1", "LINKS",
               "http://site.test/s1.xml"}));
  r.body = "<urlset></urlset>";  // a sitemap without links is still read again
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command),
            (V{"fetched", "STATUS", "200", "MS", "12", "SITEMAP", "1"}));
  r.body = "<html>no sitemap</html>";
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command),
            (V{"fetched", "STATUS", "200", "MS", "12"}));
}

// LASTMOD (one <lastmod> per link, Unix seconds, 0 for none) goes with
// SITEMAP 1 to a frontier that reads it, when the sitemap has any.
TEST(BuildReportTest, SitemapLastmodsGoWithTheMark) {
  Lease page{"L", "http://site.test/sitemap.xml", 0, 1, "page", "default"};
  FetchResult r = Response(200, {{"content-type", "text/xml"}},
                           "<urlset><url><loc>/a</loc><lastmod>2025-12-01</lastmod></url>"
                           "<url><loc>/b</loc></url>"
                           "<url><loc>/c</loc><lastmod>1970-01-01T00:00:07Z</lastmod></url>"
                           "</urlset>");
  r.url = page.url;
  ReportOptions opts{"w1", true, 5, 60000, 20};
  using V = std::vector<std::string>;
  const V links{"LINKS", "http://site.test/a", "http://site.test/b", "http://site.test/c"};
  V plain{"fetched", "STATUS", "200", "MS", "12"};
  plain.insert(plain.end(), links.begin(), links.end());
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command), plain);
  opts.mark_sitemaps = true;
  V no_lastmods{"fetched", "STATUS", "200", "MS", "12", "SITEMAP", "1"};
  no_lastmods.insert(no_lastmods.end(), links.begin(), links.end());
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command), no_lastmods)
      << "a frontier without sitemap_lastmod:1 would refuse LASTMOD";
  opts.send_lastmods = true;
  V marked{"fetched", "STATUS", "200", "MS", "12", "SITEMAP", "1", "LASTMOD", "1764547200,0,7"};
  marked.insert(marked.end(), links.begin(), links.end());
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command), marked);
  r.body = "<urlset><url><loc>/a</loc></url></urlset>";  // no lastmod at all
  EXPECT_EQ(Tail(BuildReport(page, r, opts).command),
            (V{"fetched", "STATUS", "200", "MS", "12", "SITEMAP", "1", "LINKS",
               "http://site.test/a"}));
}

TEST(BuildReportTest, NofollowCanBeIgnored) {
  Lease page{"L", "http://site.test/", 0, 1, "page", "default"};
  FetchResult r = Response(200, {{"content-type", "text/html"}},
                           "<a rel=nofollow href=/n>n</a>");
  r.url = "http://site.test/";
  EXPECT_TRUE(BuildReport(page, r, {"w", true, 10, 1}).links.empty());
  EXPECT_EQ(BuildReport(page, r, {"w", false, 10, 1}).links,
            std::vector<std::string>{"http://site.test/n"});
}

// Links that differ only until canonicalized are reported once, canonical.
TEST(BuildReportTest, LinksSharingACanonicalFormAreSentOnce) {
  Lease page{"L", "http://site.test/d/", 0, 1, "page", "default"};
  FetchResult r =
      Response(200, {{"content-type", "text/html"}},
               "<a href=/a/../b>1</a><a href=/b>2</a>"
               "<a href='http://SITE.test:80/b'>3</a><a href=c?utm_source=x>4</a>");
  r.url = "http://site.test/d/";
  EXPECT_EQ(BuildReport(page, r, {"w", true, 10, 1}).links,
            (std::vector<std::string>{"http://site.test/b", "http://site.test/d/c"}));
}

TEST(BuildReportTest, RobotsBodyIsCapped) {
  Lease robots{"R", "http://site.test/robots.txt", 0, 1, "robots", "default"};
  Report rep = BuildReport(robots, Response(200, {}, std::string(kMaxRobotsBytes + 10, 'x')),
                           {"w", true, 10, 1});
  EXPECT_EQ(rep.command.back().size(), kMaxRobotsBytes);
}

TEST(BuildExchangeTest, DecodedBodyGetsMatchingHeaders) {
  FetchResult r = Response(200, {}, "hello");
  r.response_head =
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 25\r\n"
      "Content-Type: text/plain\r\n\r\n";
  r.primary_ip = "127.0.0.1";
  WarcExchange x = BuildExchange(r, {"http://site.test/a"});
  EXPECT_EQ(x.response_head,
            "HTTP/1.1 200 OK\r\nX-Crawlfront-Content-Encoding: gzip\r\n"
            "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n");
  EXPECT_EQ(x.response_body, "hello");
  EXPECT_EQ(x.ip_address, "127.0.0.1");
  EXPECT_EQ(x.outlinks.size(), 1u);
}

TEST(ParseHostPortTest, Forms) {
  struct Case {
    const char* in;
    bool ok;
    const char* host;
    uint16_t port;
  };
  const Case cases[] = {
      {"127.0.0.1:6380", true, "127.0.0.1", 6380}, {"[::1]:7000", true, "::1", 7000},
      {"localhost:1", true, "localhost", 1},       {"host", false, "", 0},
      {"host:0", false, "", 0},                    {"host:70000", false, "", 0},
      {":80", false, "", 0},                       {"[::1:80", false, "", 0},
      {"host:8x", false, "", 0},
  };
  for (const Case& c : cases) {
    std::string host;
    uint16_t port = 0;
    Status st = ParseHostPort(c.in, &host, &port);
    EXPECT_EQ(st.ok(), c.ok) << c.in;
    if (c.ok) {
      EXPECT_EQ(host, c.host);
      EXPECT_EQ(port, c.port);
    }
  }
}

// Checks of options built in code name the key (crawl-worker exits 2 on
// them); single keys by the table's rules, which loads apply too.
TEST(WorkerConfigTest, ValidationNamesTheKey) {
  using Edit = std::function<void(WorkerOptions*)>;
  const std::pair<Edit, std::string> cases[] = {
      {[](WorkerOptions* o) { o->frontiers.clear(); },
       "frontier.addresses: expected at least one host:port (or give --frontier HOST:PORT), "
       "got []"},
      {[](WorkerOptions* o) { o->frontiers = {"x"}; },
       "frontier.addresses: expected host:port entries ("},
      {[](WorkerOptions* o) { o->reconnect_min = std::chrono::seconds(20); },
       "frontier.reconnect_max (10000 ms) is below frontier.reconnect_min"},
      {[](WorkerOptions* o) { o->reconnect_max = std::chrono::milliseconds(50); },
       "frontier.reconnect_max (50 ms) is below frontier.reconnect_min (100 ms)"},
      {[](WorkerOptions* o) { o->user_agent = ""; },
       "fetch.user_agent: expected the crawler's name first"},
      {[](WorkerOptions* o) { o->user_agent = "(compatible; x)"; },
       "fetch.user_agent: expected the crawler's name first"},
      {[](WorkerOptions* o) { o->user_agent = "bot/1\r\nX: y"; },
       "fetch.user_agent: expected one line"},
      {[](WorkerOptions* o) { o->connect_to = {"bad"}; },
       "fetch.connect_to: expected HOST:PORT:CONNECT-HOST:CONNECT-PORT entries ('bad' needs at "
       "least 3 ':' separators), got [\"bad\"]"},
      {[](WorkerOptions* o) { o->resolve = {"a b:1:2"}; },
       "fetch.resolve: expected HOST:PORT:ADDRESS entries (whitespace or control byte in "
       "'a b:1:2')"},
      {[](WorkerOptions* o) { o->tls_ca_file = "/nonexistent.pem"; },
       "fetch.tls_ca_file: expected a readable file or \"\" (No such file or directory), got "
       "\"/nonexistent.pem\""},
      {[](WorkerOptions* o) { o->warc_dir = ""; }, "warc.dir is empty"},
  };
  EXPECT_TRUE(ValidateWorkerOptions(WorkerOptions()).ok());
  WorkerOptions no_warc;
  no_warc.warc_enabled = false;
  no_warc.warc_dir = "";
  EXPECT_TRUE(ValidateWorkerOptions(no_warc).ok());
  for (const auto& [edit, message] : cases) {
    WorkerOptions o;
    edit(&o);
    Status st = ValidateWorkerOptions(o);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << message;
    EXPECT_NE(st.message().find(message), std::string::npos) << st.message();
  }
}

TEST(WorkerConfigTest, SampleConfigSetsEveryKeyAndLoads) {
  const auto& table = WorkerConfigTable();
  ASSERT_TRUE(table.definition_error().ok()) << table.definition_error().ToString();
  std::ifstream in(std::string(CRAWLFRONT_SOURCE_DIR) + "/configs/worker.toml");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  auto missing = table.MissingKeys(text.str());
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_TRUE(missing->empty()) << "first missing: " << (*missing)[0];
  WorkerOptions opts = table.Defaults();
  ASSERT_TRUE(table.LoadString(text.str(), &opts, "worker.toml").ok());
  EXPECT_EQ(opts.max_transfers, 64);
  EXPECT_FALSE(opts.allow_private_networks);
  EXPECT_FALSE(table.ApplyOverride("fetch.max_transfers=0", &opts).ok());
  EXPECT_TRUE(table.ApplyOverride("fetch.max_transfers=8", &opts).ok());
  EXPECT_EQ(FetchOptionsOf(opts).max_transfers, 8);
}

}  // namespace
}  // namespace crawlfront::worker_internal
