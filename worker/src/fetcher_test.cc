#include "crawlfront/worker/fetcher.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "crawlfront/simweb/encoding.h"
#include "fetcher_test_server.h"
#include "fetcher_transfer.h"

namespace crawlfront {
namespace {

using testing::TestHttpServer;
using testing::TestResponse;

std::string Gzip(const std::string& plain) {
  return simweb::Encode(simweb::ContentCoding::kGzip, plain);
}

// Routes of the test site.
TestResponse Route(const std::string& path, const std::string&) {
  TestResponse r;
  if (path == "/ok") {
    r.headers = {{"Content-Type", "text/html"}};
    r.body = "<a href=/x>x</a>";
  } else if (path == "/missing") {
    r.status = 404;
    r.body = "no";
  } else if (path == "/error") {
    r.status = 500;
  } else if (path == "/redirect") {
    r.status = 301;
    r.headers = {{"Location", "/ok"}};
  } else if (path == "/gzip") {
    r.headers = {{"Content-Encoding", "gzip"}, {"Content-Type", "text/plain"}};
    r.body = Gzip(std::string(5000, 'z') + "end");
  } else if (path == "/big") {
    r.body = std::string(100000, 'b');
  } else if (path.starts_with("/hang")) {
    r.wait_for_gate = true;
    r.body = "late";
  }
  return r;
}

class FetcherTest : public ::testing::Test {
 protected:
  FetcherTest() : server_(Route) {}

  FetchOptions Options() {
    FetchOptions o;
    o.allow_private_networks = true;
    o.max_transfers = 4;
    o.total_timeout = std::chrono::seconds(20);
    return o;
  }

  std::string Url(const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(server_.port()) + path;
  }

  // Hosts h0.test .. h9.test resolving to the server. A host waits for its
  // first response before opening a second connection (CURLOPT_PIPEWAIT), so
  // transfers held at the server at once need distinct hosts.
  FetchOptions HostOptions() {
    FetchOptions o = Options();
    for (int i = 0; i < 10; ++i) {
      o.resolve.push_back("h" + std::to_string(i) +
                          ".test:" + std::to_string(server_.port()) + ":127.0.0.1");
    }
    return o;
  }
  std::string HostUrl(int i, const std::string& path) {
    return "http://h" + std::to_string(i) + ".test:" + std::to_string(server_.port()) +
           path;
  }

  // Waits (bounded: about a minute) until `n` results are in, and returns
  // them all.
  static std::vector<FetchResult> TakeAtLeast(Fetcher& f, size_t n) {
    std::vector<FetchResult> out;
    for (int i = 0; i < 600 && out.size() < n; ++i) {
      f.TakeResults(&out, std::chrono::milliseconds(100));
    }
    return out;
  }

  // Fetches one URL and waits (bounded) for its result.
  static FetchResult FetchOne(Fetcher& f, const std::string& url) {
    EXPECT_TRUE(f.Submit({7, url}).ok());
    std::vector<FetchResult> out = TakeAtLeast(f, 1);
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? FetchResult{} : out[0];
  }

  TestHttpServer server_;
};

TEST_F(FetcherTest, StatusCodesAreResponses) {
  auto f = Fetcher::Start(Options());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  struct Case {
    std::string path;
    int status;
  };
  for (const Case& c : {Case{"/ok", 200}, Case{"/missing", 404}, Case{"/error", 500}}) {
    FetchResult r = FetchOne(**f, Url(c.path));
    EXPECT_EQ(r.outcome, FetchOutcome::kResponse) << c.path << " " << r.error;
    EXPECT_EQ(r.status, c.status) << c.path;
    EXPECT_EQ(r.http_version, "1.1") << c.path;
    EXPECT_EQ(r.id, 7u);
    EXPECT_EQ(r.primary_ip, "127.0.0.1");
    EXPECT_TRUE(r.response_head.starts_with("HTTP/1.1 " + std::to_string(c.status)));
    EXPECT_TRUE(r.request_head.starts_with("GET " + c.path + " HTTP/1.1\r\n"))
        << r.request_head;
  }
  FetchResult ok = FetchOne(**f, Url("/ok"));
  EXPECT_EQ(ok.body, "<a href=/x>x</a>");
  EXPECT_EQ(ok.Header("content-type"), "text/html");
}

TEST_F(FetcherTest, SendsUserAgentAndAcceptEncoding) {
  FetchOptions o = Options();
  o.user_agent = "testbot/1 (+https://example.invalid/bot)";
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, Url("/ok"));
  ASSERT_EQ(server_.requests().size(), 1u);
  const std::string head = server_.requests()[0];
  EXPECT_NE(head.find("User-Agent: testbot/1 (+https://example.invalid/bot)\r\n"),
            std::string::npos) << head;
  EXPECT_NE(head.find("Accept-Encoding: "), std::string::npos);
  EXPECT_NE(head.find("gzip"), std::string::npos);
  EXPECT_EQ(r.request_head, head);

  o.record_request_head = false;  // the same request, head not kept
  auto quiet = Fetcher::Start(o);
  ASSERT_TRUE(quiet.ok());
  FetchResult q = FetchOne(**quiet, Url("/ok"));
  EXPECT_EQ(q.status, 200) << q.error;
  ASSERT_EQ(server_.requests().size(), 2u);
  EXPECT_EQ(server_.requests()[1], head);
  EXPECT_TRUE(q.request_head.empty()) << q.request_head;
}

TEST_F(FetcherTest, RedirectIsNotFollowed) {
  auto f = Fetcher::Start(Options());
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, Url("/redirect"));
  EXPECT_EQ(r.outcome, FetchOutcome::kResponse);
  EXPECT_EQ(r.status, 301);
  EXPECT_EQ(r.Header("location"), "/ok");
  EXPECT_EQ(server_.requests().size(), 1u);  // /ok was never requested
}

TEST_F(FetcherTest, GzipBodyIsDecoded) {
  auto f = Fetcher::Start(Options());
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, Url("/gzip"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, std::string(5000, 'z') + "end");
  EXPECT_EQ(r.Header("content-encoding"), "gzip");
  EXPECT_FALSE(r.truncated);
}

TEST_F(FetcherTest, BodyIsTruncatedAtLimit) {
  FetchOptions o = Options();
  o.max_body_bytes = 1000;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, Url("/big"));
  EXPECT_EQ(r.outcome, FetchOutcome::kResponse) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.body, std::string(1000, 'b'));
  // Below the limit nothing is cut.
  FetchResult small = FetchOne(**f, Url("/ok"));
  EXPECT_FALSE(small.truncated);
}

TEST_F(FetcherTest, SlowServerTimesOut) {
  FetchOptions o = Options();
  o.total_timeout = std::chrono::milliseconds(300);
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, Url("/hang"));
  EXPECT_EQ(r.outcome, FetchOutcome::kTimeout) << r.error;
  EXPECT_EQ(r.status, 0);
}

TEST_F(FetcherTest, RefusedConnectionIsConnectError) {
  uint16_t closed_port = 0;
  {
    TestHttpServer gone(Route);
    closed_port = gone.port();
  }
  auto f = Fetcher::Start(Options());
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, "http://127.0.0.1:" + std::to_string(closed_port) + "/");
  EXPECT_EQ(r.outcome, FetchOutcome::kConnectError) << r.error;
}

TEST_F(FetcherTest, LoopbackIsRefusedUnlessAllowed) {
  FetchOptions o = Options();
  o.allow_private_networks = false;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, Url("/ok"));
  EXPECT_EQ(r.outcome, FetchOutcome::kDisallowed);
  EXPECT_EQ(r.error, "private address");
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(FetcherTest, ConnectToMapsFakeHostToLoopback) {
  FetchOptions o = Options();
  o.connect_to = {"www.example.test:80:127.0.0.1:" + std::to_string(server_.port())};
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  FetchResult r = FetchOne(**f, "http://www.example.test/ok");
  EXPECT_EQ(r.outcome, FetchOutcome::kResponse) << r.error;
  EXPECT_EQ(r.status, 200);
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_NE(server_.requests()[0].find("Host: www.example.test\r\n"), std::string::npos);
}

// "::ADDR:PORT" sends every host and port to ADDR:PORT, with the request's
// own Host header (through ":::PORT" and RESOLVE "*:PORT:ADDR").
TEST_F(FetcherTest, WildcardConnectToReachesTheTargetForEveryHost) {
  FetchOptions o = Options();
  o.connect_to = {"::127.0.0.1:" + std::to_string(server_.port())};
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(FetchOne(**f, "http://a.example.test/ok").status, 200);
  EXPECT_EQ(FetchOne(**f, "http://b.example.test:8080/ok").status, 200);
  ASSERT_EQ(server_.requests().size(), 2u);
  EXPECT_NE(server_.requests()[0].find("Host: a.example.test\r\n"), std::string::npos);
  EXPECT_NE(server_.requests()[1].find("Host: b.example.test:8080\r\n"), std::string::npos);
}

TEST(SplitWildcardConnectToTest, RewritesOnlyNumericCatchAllEntries) {
  using fetcher_internal::SplitWildcardConnectTo;
  std::vector<std::string> ct = {"a.test:443:127.0.0.1:8443", "::127.0.0.1:8080"}, rs;
  SplitWildcardConnectTo(&ct, &rs);
  EXPECT_EQ(ct, (std::vector<std::string>{"a.test:443:127.0.0.1:8443", ":::8080"}));
  EXPECT_EQ(rs, (std::vector<std::string>{"*:8080:127.0.0.1"}));

  ct = {"::[::1]:9000"};
  rs = {"x.test:80:10.0.0.1"};
  SplitWildcardConnectTo(&ct, &rs);
  EXPECT_EQ(ct, (std::vector<std::string>{":::9000"}));
  EXPECT_EQ(rs, (std::vector<std::string>{"x.test:80:10.0.0.1", "*:9000:[::1]"}));

  // Kept: a target that is a name, a bad port, a host or port of its own,
  // a port that RESOLVE already maps (it would win over the wildcard).
  for (const char* entry : {"::proxy.test:3128", "::127.0.0.1:0", "::127.0.0.1:x",
                                   ":80:127.0.0.1:8080", "h.test::127.0.0.1:8080"}) {
    ct = {entry};
    rs.clear();
    SplitWildcardConnectTo(&ct, &rs);
    EXPECT_EQ(ct, std::vector<std::string>{entry});
    EXPECT_TRUE(rs.empty()) << entry;
  }
  ct = {"::127.0.0.1:8080"};
  rs = {"+h.test:8080:127.0.0.2"};
  SplitWildcardConnectTo(&ct, &rs);
  EXPECT_EQ(ct, std::vector<std::string>{"::127.0.0.1:8080"});
  EXPECT_EQ(rs.size(), 1u);
}

TEST_F(FetcherTest, ManyConcurrentTransfers) {
  auto f = Fetcher::Start(Options());
  ASSERT_TRUE(f.ok());
  constexpr int kCount = 20;
  for (int i = 0; i < kCount; ++i) ASSERT_TRUE((*f)->Submit({uint64_t(i), Url("/ok")}).ok());
  std::vector<FetchResult> out = TakeAtLeast(**f, kCount);
  ASSERT_EQ(out.size(), size_t{kCount});
  std::vector<bool> seen(kCount, false);
  for (const FetchResult& r : out) {
    EXPECT_EQ(r.status, 200);
    seen[r.id] = true;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), kCount);
  EXPECT_EQ((*f)->outstanding(), 0u);
  // Keep-alive: far fewer connections than requests (at most max_transfers).
  EXPECT_LE(server_.connections(), 4);
}

// A crawl returns to each host: with a cache that holds every host's
// connection, each host costs one connection; a cache smaller than the
// hosts visited in turn closes them and reconnects.
TEST_F(FetcherTest, ConnectionCacheKeepsEveryHostsConnection) {
  constexpr int kHosts = 10, kRounds = 3;
  for (const int cache : {16, 4}) {
    SCOPED_TRACE("connection_cache " + std::to_string(cache));
    TestHttpServer server(Route);
    FetchOptions o = Options();
    for (int i = 0; i < kHosts; ++i) {
      o.resolve.push_back("h" + std::to_string(i) +
                          ".test:" + std::to_string(server.port()) + ":127.0.0.1");
    }
    o.max_transfers = 1;  // one at a time, hosts in turn
    o.connection_cache = cache;
    auto f = Fetcher::Start(o);
    ASSERT_TRUE(f.ok());
    for (int i = 0; i < kHosts * kRounds; ++i) {
      const std::string url = "http://h" + std::to_string(i % kHosts) +
                              ".test:" + std::to_string(server.port()) + "/ok";
      ASSERT_TRUE((*f)->Submit({uint64_t(i), url}).ok());
    }
    std::vector<FetchResult> out = TakeAtLeast(**f, kHosts * kRounds);
    ASSERT_EQ(out.size(), size_t{kHosts * kRounds});
    for (const FetchResult& r : out) EXPECT_EQ(r.status, 200) << r.error;
    if (cache >= kHosts) {
      EXPECT_EQ(server.connections(), kHosts);
    } else {
      EXPECT_GT(server.connections(), kHosts);
    }
  }
}

TEST_F(FetcherTest, ConnectionCacheMustBePositive) {
  FetchOptions o = Options();
  o.connection_cache = 0;
  auto f = Fetcher::Start(o);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("connection_cache"), std::string::npos);
}

// Waits (bounded) until the server has received `n` requests.
bool WaitForRequests(const TestHttpServer& server, size_t n) {
  for (int i = 0; i < 500 && server.requests().size() < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return server.requests().size() >= n;
}

TEST_F(FetcherTest, RequestsBeyondTheCapWaitInOrder) {
  FetchOptions o = HostOptions();
  o.max_transfers = 2;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  constexpr int kCount = 5;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE(
        (*f)->Submit({uint64_t(i), HostUrl(i, "/hang?" + std::to_string(i))}).ok());
  }
  ASSERT_TRUE(WaitForRequests(server_, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<std::string> heads = server_.requests();
  ASSERT_EQ(heads.size(), 2u);  // the cap holds while both are stuck
  std::vector<std::string> paths;
  for (const std::string& h : heads) paths.push_back(h.substr(0, h.find(" HTTP/")));
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"GET /hang?0", "GET /hang?1"}));
  server_.OpenGate();
  std::vector<FetchResult> out = TakeAtLeast(**f, kCount);
  ASSERT_EQ(out.size(), size_t{kCount});
  for (const FetchResult& r : out) EXPECT_EQ(r.body, "late") << r.id << " " << r.error;
}

TEST_F(FetcherTest, OneTransferAtATimeKeepsSubmitOrder) {
  FetchOptions o = Options();
  o.max_transfers = 1;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  constexpr int kCount = 10;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE((*f)->Submit({uint64_t(i), Url("/n?" + std::to_string(i))}).ok());
  }
  std::vector<FetchResult> out = TakeAtLeast(**f, kCount);
  ASSERT_EQ(out.size(), size_t{kCount});
  const std::vector<std::string> heads = server_.requests();
  ASSERT_EQ(heads.size(), size_t{kCount});
  for (int i = 0; i < kCount; ++i) {
    EXPECT_TRUE(heads[i].starts_with("GET /n?" + std::to_string(i) + " ")) << heads[i];
    EXPECT_EQ(out[i].id, uint64_t(i));
  }
}

// Many sockets and events: every transfer completes intact under a small cap.
TEST_F(FetcherTest, ManyTransfersUnderASmallCap) {
  FetchOptions o = Options();
  o.max_transfers = 8;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  constexpr int kCount = 200;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE((*f)->Submit({uint64_t(i), Url(i % 2 ? "/big" : "/gzip")}).ok());
  }
  std::vector<FetchResult> out = TakeAtLeast(**f, kCount);
  ASSERT_EQ(out.size(), size_t{kCount});
  std::vector<bool> seen(kCount, false);
  for (const FetchResult& r : out) {
    ASSERT_LT(r.id, uint64_t{kCount});
    EXPECT_EQ(r.status, 200) << r.error;
    EXPECT_EQ(r.body.size(), r.id % 2 ? 100000u : 5003u) << r.id;
    seen[r.id] = true;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), kCount);
  EXPECT_EQ((*f)->outstanding(), 0u);
  EXPECT_LE(server_.connections(), 8);
}

TEST_F(FetcherTest, ShutdownWithRunningTransfersIsPrompt) {
  FetchOptions o = HostOptions();
  // No low-speed check: its 1 s timer would end the wait without Wake().
  o.low_speed_bytes = 0;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE((*f)->Submit({uint64_t(i), HostUrl(i, "/hang")}).ok());
  ASSERT_TRUE(WaitForRequests(server_, 4));
  // Past curl's 200 ms happy-eyeballs timer; its next timers are seconds
  // away, so only Wake() ends the wait in time.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto start = std::chrono::steady_clock::now();
  (*f)->Shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ((*f)->Submit({9, Url("/ok")}).code(), Status::Code::kBusy);
  std::vector<FetchResult> out;
  EXPECT_EQ((*f)->TakeResults(&out, std::chrono::milliseconds(0)), 0u);
}

TEST(FetcherOptionsTest, BadOptionsAreRejected) {
  struct Case {
    const char* name;
    void (*mutate)(FetchOptions*);
  };
  const Case cases[] = {
      {"zero transfers", [](FetchOptions* o) { o->max_transfers = 0; }},
      {"negative body", [](FetchOptions* o) { o->max_body_bytes = -1; }},
      {"connect_to shape", [](FetchOptions* o) { o->connect_to = {"host:80"}; }},
      {"connect_to space", [](FetchOptions* o) { o->connect_to = {"a b:80:c:81"}; }},
      {"resolve shape", [](FetchOptions* o) { o->resolve = {"host"}; }},
      {"agent newline", [](FetchOptions* o) { o->user_agent = "a\r\nX: y"; }},
      {"missing CA file", [](FetchOptions* o) { o->tls_ca_file = "/nonexistent/ca.pem"; }},
  };
  for (const Case& c : cases) {
    FetchOptions o;
    c.mutate(&o);
    auto f = Fetcher::Start(o);
    ASSERT_FALSE(f.ok()) << c.name;
    EXPECT_EQ(f.status().code(), Status::Code::kInvalidArgument) << c.name;
  }
}

TEST(PrivateAddressTest, Classification) {
  struct Case {
    const char* ip;
    bool is_private;
  };
  const Case cases[] = {
      {"127.0.0.1", true},   {"10.1.2.3", true},     {"172.16.0.1", true},
      {"172.32.0.1", false}, {"192.168.1.1", true},  {"169.254.1.1", true},
      {"100.64.0.1", true},  {"0.0.0.0", true},      {"8.8.8.8", false},
      {"93.184.216.34", false}, {"::1", true},       {"::", true},
      {"fe80::1", true},     {"fd00::1", true},      {"2001:db8::1", false},
      {"::ffff:127.0.0.1", true}, {"::ffff:8.8.8.8", false},
  };
  for (const Case& c : cases) {
    sockaddr_storage ss{};
    size_t len = 0;
    if (std::strchr(c.ip, ':') == nullptr) {
      auto* in = reinterpret_cast<sockaddr_in*>(&ss);
      in->sin_family = AF_INET;
      ASSERT_EQ(inet_pton(AF_INET, c.ip, &in->sin_addr), 1) << c.ip;
      len = sizeof(sockaddr_in);
    } else {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
      in6->sin6_family = AF_INET6;
      ASSERT_EQ(inet_pton(AF_INET6, c.ip, &in6->sin6_addr), 1) << c.ip;
      len = sizeof(sockaddr_in6);
    }
    EXPECT_EQ(fetcher_internal::IsPrivateAddress(reinterpret_cast<sockaddr*>(&ss), len),
              c.is_private) << c.ip;
  }
}

// A request's extra headers (a recrawl's validators) reach the server.
TEST(FetcherHeadersTest, SendsTheRequestsExtraHeaders) {
  TestHttpServer server([](const std::string&, const std::string& head) {
    TestResponse r;
    r.headers = {{"ETag", "\"v1\""}};
    if (head.find("\r\nIf-None-Match: \"v1\"\r\n") != std::string::npos) {
      r.status = 304;
    } else {
      r.body = "page";
    }
    return r;
  });
  FetchOptions o;
  o.allow_private_networks = true;
  auto f = Fetcher::Start(o);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/p";
  for (bool conditional : {false, true}) {
    FetchRequest req{7, url, {}};
    if (conditional) {
      req.headers = {"If-None-Match: \"v1\"", "If-Modified-Since: Tue, 01 Dec 2026 00:00:00 GMT"};
    }
    ASSERT_TRUE((*f)->Submit(req).ok());
    std::vector<FetchResult> out;
    for (int i = 0; i < 600 && out.empty(); ++i) {
      (*f)->TakeResults(&out, std::chrono::milliseconds(100));
    }
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].status, conditional ? 304 : 200) << out[0].error;
    EXPECT_EQ(out[0].body, conditional ? "" : "page");
    EXPECT_EQ(out[0].Header("etag"), "\"v1\"");
  }
  const std::vector<std::string> heads = server.requests();
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0].find("If-None-Match"), std::string::npos) << heads[0];
  EXPECT_NE(heads[1].find("\r\nIf-Modified-Since: Tue, 01 Dec 2026 00:00:00 GMT\r\n"),
            std::string::npos)
      << heads[1];
}

}  // namespace
}  // namespace crawlfront
