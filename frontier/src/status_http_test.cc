// Black-box tests of StatusServer on 127.0.0.1 with an ephemeral port and a
// fake snapshot provider with crafted values.
#include "crawlfront/frontier/status_http.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "status_test_util.h"

namespace crawlfront {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using testing::CraftedSnapshot;

// Every blocking socket call in these tests gives up after this, so a
// broken server fails the test instead of hanging it.
constexpr int kSocketTimeoutSeconds = 10;

struct Reply {
  boost::system::error_code ec;
  unsigned status = 0;
  std::string content_type;
  std::string body;
  http::response<http::string_body> message;
};

class StatusServerTest : public ::testing::Test {
 protected:
  void SetUp() override { snapshot_ = CraftedSnapshot(1024); }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  void StartServer(StatusServerOptions options = {}) {
    options.listen = "127.0.0.1:0";
    server_ = std::make_unique<StatusServer>(options, [this] {
      std::lock_guard<std::mutex> lock(mu_);
      ++calls_;
      StatusSnapshot s = snapshot_;
      s.totals.urls_fetched += calls_ * 7;  // moves so the history has rates
      return s;
    });
    ASSERT_TRUE(server_->Start().ok());
    ASSERT_NE(server_->port(), 0);
  }

  tcp::socket Connect() {
    tcp::socket socket(ioc_);
    socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
    timeval tv{kSocketTimeoutSeconds, 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return socket;
  }

  Reply Request(http::verb method, const std::string& target,
                const std::string& auth = "") {
    Reply r;
    tcp::socket socket = Connect();
    http::request<http::empty_body> req{method, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!auth.empty()) req.set(http::field::authorization, auth);
    http::write(socket, req, r.ec);
    if (r.ec) return r;
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    parser.skip(method == http::verb::head);
    http::read(socket, buffer, parser, r.ec);
    if (r.ec) return r;
    r.message = parser.release();
    r.status = r.message.result_int();
    r.content_type = std::string(r.message[http::field::content_type]);
    r.body = r.message.body();
    return r;
  }

  Reply Get(const std::string& target, const std::string& auth = "") {
    return Request(http::verb::get, target, auth);
  }

  // Sends raw bytes and reads whatever comes back until the server closes.
  std::string RawExchange(tcp::socket& socket, const std::string& bytes,
                          boost::system::error_code& ec) {
    asio::write(socket, asio::buffer(bytes), ec);
    std::string got;
    char buf[4096];
    for (int i = 0; i < 1000 && !ec; ++i) {
      size_t n = socket.read_some(asio::buffer(buf), ec);
      got.append(buf, n);
    }
    return got;
  }

  asio::io_context ioc_;
  std::mutex mu_;
  StatusSnapshot snapshot_;
  uint64_t calls_ = 0;
  std::unique_ptr<StatusServer> server_;
};

TEST_F(StatusServerTest, RoutesStatusAndContentType) {
  StartServer();
  struct Case {
    std::string target;
    unsigned status;
    std::string type_prefix;
  };
  const Case cases[] = {
      {"/", 200, "text/html"},
      {"/static/dashboard.js", 200, "text/javascript"},
      {"/static/dashboard.css", 200, "text/css"},
      {"/api/stats", 200, "application/json"},
      {"/metrics", 200, "text/plain; version=0.0.4"},
      {"/healthz", 200, "text/plain"},
      {"/readyz", 200, "text/plain"},
      {"/nope", 404, "text/plain"},
      {"/api/nope", 404, "text/plain"},
  };
  for (const Case& c : cases) {
    Reply r = Get(c.target);
    ASSERT_FALSE(r.ec) << c.target << ": " << r.ec.message();
    EXPECT_EQ(r.status, c.status) << c.target;
    EXPECT_EQ(r.content_type.rfind(c.type_prefix, 0), 0u)
        << c.target << ": " << r.content_type;
    EXPECT_EQ(r.message["X-Content-Type-Options"], "nosniff") << c.target;
  }
  EXPECT_EQ(Get("/healthz").body, "ok\n");
}

TEST_F(StatusServerTest, ReadyzFollowsProvider) {
  snapshot_.ready = false;
  StartServer();
  EXPECT_EQ(Get("/readyz").status, 503u);
  {
    std::lock_guard<std::mutex> lock(mu_);
    snapshot_.ready = true;
  }
  EXPECT_EQ(Get("/readyz").status, 200u);
  EXPECT_EQ(Get("/healthz").status, 200u);
}

TEST_F(StatusServerTest, MethodsOtherThanGetAndHeadGet405) {
  StartServer();
  for (http::verb v : {http::verb::post, http::verb::put, http::verb::delete_,
                       http::verb::options, http::verb::patch}) {
    Reply r = Request(v, "/api/stats");
    ASSERT_FALSE(r.ec) << r.ec.message();
    EXPECT_EQ(r.status, 405u) << http::to_string(v);
    EXPECT_EQ(r.message[http::field::allow], "GET, HEAD");
  }
  Reply head = Request(http::verb::head, "/metrics");
  ASSERT_FALSE(head.ec) << head.ec.message();
  EXPECT_EQ(head.status, 200u);
  EXPECT_TRUE(head.body.empty());
  EXPECT_GT(std::stoul(std::string(head.message[http::field::content_length])), 100u);
}

TEST_F(StatusServerTest, ApiStatsJsonCarriesSnapshotAndEscapes) {
  StartServer();
  Reply r = Get("/api/stats");
  ASSERT_EQ(r.status, 200u);
  boost::json::value doc = boost::json::parse(r.body);
  const auto& s = doc.at("snapshot");
  EXPECT_EQ(s.at("totals").at("urls_queued").to_number<uint64_t>(),
            snapshot_.totals.urls_queued);
  EXPECT_EQ(s.at("seen").at("items").to_number<uint64_t>(), snapshot_.seen.items);
  EXPECT_EQ(s.at("seen").at("partitions").at("fill_ratio").as_array().size(), 1024u);
  EXPECT_EQ(s.at("top_hosts").at(0).at("host").as_string(), snapshot_.top_hosts[0].host);
  EXPECT_EQ(s.at("recent_errors").at(0).at("text").as_string(),
            snapshot_.recent_errors[0].text);
  EXPECT_EQ(r.body.find("alert(1)</script>\""), std::string::npos);  // quote escaped
}

TEST_F(StatusServerTest, DashboardEscapesCrawledStrings) {
  StartServer();
  Reply r = Get("/");
  ASSERT_EQ(r.status, 200u);
  EXPECT_EQ(r.body.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(r.body.find("host&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;"),
            std::string::npos);
  EXPECT_NE(r.message["Content-Security-Policy"].find("script-src 'self'"),
            boost::string_view::npos);
}

TEST_F(StatusServerTest, MetricsWellFormed) {
  StatusServerOptions options;
  options.metrics_top_partitions = 5;
  StartServer(options);
  Reply r = Get("/metrics");
  ASSERT_EQ(r.status, 200u);
  testing::ParsedMetrics m = testing::ParsePrometheusText(r.body);
  EXPECT_TRUE(m.errors.empty()) << ::testing::PrintToString(m.errors);
  size_t partition_series = 0;
  for (const auto& s : m.samples) {
    partition_series += s.name == "crawlfront_seen_partition_fill_ratio";
  }
  EXPECT_EQ(partition_series, 5u);
  EXPECT_EQ(m.types["crawlfront_urls_fetched_total"], "counter");
  EXPECT_EQ(m.types["crawlfront_hosts_ready"], "gauge");
}

TEST_F(StatusServerTest, PromtoolAcceptsMetrics) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  }
  StartServer();
  Reply r = Get("/metrics");
  ASSERT_EQ(r.status, 200u);
  std::string path = ::testing::TempDir() + "status_metrics.txt";
  std::ofstream(path) << r.body;
  std::string cmd = "promtool check metrics < '" + path + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << r.body;
  std::remove(path.c_str());
}

TEST_F(StatusServerTest, BearerTokenGuardsApiAndMetrics) {
  StatusServerOptions options;
  options.auth_token = "t0ken";
  StartServer(options);
  for (const char* path : {"/api/stats", "/metrics"}) {
    Reply none = Get(path);
    EXPECT_EQ(none.status, 401u) << path;
    EXPECT_EQ(none.message[http::field::www_authenticate], "Bearer");
    EXPECT_EQ(Get(path, "Bearer wrong").status, 401u) << path;
    EXPECT_EQ(Get(path, "Basic t0ken").status, 401u) << path;
    EXPECT_EQ(Get(path, "Bearer t0ken").status, 200u) << path;
  }
  // The page and probes stay open, but the page then carries no data.
  Reply page = Get("/");
  EXPECT_EQ(page.status, 200u);
  EXPECT_EQ(page.body.find("0.1.0-test"), std::string::npos);
  EXPECT_EQ(page.body.find("example.org"), std::string::npos);
  EXPECT_EQ(Get("/healthz").status, 200u);
}

TEST_F(StatusServerTest, SlowlorisDoesNotBlockOthersAndTimesOut) {
  StatusServerOptions options;
  options.request_timeout = std::chrono::milliseconds(300);
  options.threads = 1;  // the stalled client must not hold the only thread
  StartServer(options);
  tcp::socket slow = Connect();
  asio::write(slow,
              asio::buffer(std::string("GET /api/stats HTTP/1.1\r\nHost: x\r\nX-A")));
  EXPECT_EQ(Get("/healthz").status, 200u);
  EXPECT_EQ(Get("/api/stats").status, 200u);
  // The server gives up on the stalled client: the read ends with the
  // server's close, not with this test's own socket timeout.
  char buf[256];
  boost::system::error_code ec;
  size_t n = 0;
  for (int i = 0; i < 100 && !ec; ++i) n += slow.read_some(asio::buffer(buf), ec);
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset)
      << ec.message();
  EXPECT_EQ(n, 0u);
}

TEST_F(StatusServerTest, OversizedHeaderGets431AndOthersAreServed) {
  StartServer();  // header_limit 8 KiB
  tcp::socket big = Connect();
  boost::system::error_code ec;
  std::string got = RawExchange(
      big, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n",
      ec);
  EXPECT_EQ(got.rfind("HTTP/1.1 431", 0), 0u) << got.substr(0, 80);
  EXPECT_EQ(Get("/healthz").status, 200u);
}

TEST_F(StatusServerTest, MalformedAndOversizedRequestsGetErrors) {
  StartServer();
  struct Case {
    std::string bytes;
    std::string status_line;
  };
  const Case cases[] = {
      {"GARBAGE\r\n\r\n", "HTTP/1.1 400"},
      {"GET / HTTP/9.9\r\n\r\n", "HTTP/1.1 400"},
      {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n", "HTTP/1.1 413"},
  };
  for (const Case& c : cases) {
    tcp::socket s = Connect();
    boost::system::error_code ec;
    std::string got = RawExchange(s, c.bytes, ec);
    EXPECT_EQ(got.rfind(c.status_line, 0), 0u) << c.bytes << " -> " << got.substr(0, 80);
  }
  EXPECT_EQ(Get("/healthz").status, 200u);
}

TEST_F(StatusServerTest, KeepAliveServesSeveralRequests) {
  StartServer();
  tcp::socket socket = Connect();
  beast::flat_buffer buffer;
  for (const char* target : {"/healthz", "/api/stats", "/metrics"}) {
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "x");
    boost::system::error_code ec;
    http::write(socket, req, ec);
    ASSERT_FALSE(ec) << ec.message();
    http::response<http::string_body> res;
    http::read(socket, buffer, res, ec);
    ASSERT_FALSE(ec) << target << ": " << ec.message();
    EXPECT_EQ(res.result_int(), 200u) << target;
  }
}

TEST_F(StatusServerTest, ConnectionsOverTheCapAreClosed) {
  StatusServerOptions options;
  options.max_connections = 1;
  StartServer(options);
  tcp::socket first = Connect();
  asio::write(first,
              asio::buffer(std::string("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")));
  char buf[512];
  ASSERT_GT(first.read_some(asio::buffer(buf)), 0u);  // accepted and counted
  tcp::socket second = Connect();
  boost::system::error_code ec;
  second.read_some(asio::buffer(buf), ec);
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset)
      << ec.message();
}

TEST_F(StatusServerTest, HistorySamplesRates) {
  StartServer();
  // The sampler runs once a second; wait (bounded) for two readings.
  for (int i = 0; i < 100 && server_->History().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(server_->History().empty());
  boost::json::value doc = boost::json::parse(Get("/api/stats").body);
  const auto& fetched = doc.at("history").at("fetched_per_second").as_array();
  ASSERT_FALSE(fetched.empty());
  EXPECT_GT(fetched.at(0).to_number<double>(), 0.0);  // the fake counter grows
  EXPECT_EQ(doc.at("history").at("unix_ms").as_array().size(), fetched.size());
}

// A sampler, when given, feeds the rate history instead of the provider
// (a frontier's full snapshot walks every host under the crawl lock).
TEST(StatusServerSamplerTest, SamplerFeedsTheHistory) {
  std::atomic<int> provider_calls{0};
  std::atomic<uint64_t> sampled{0};
  StatusServerOptions options;
  options.listen = "127.0.0.1:0";
  StatusServer server(
      options,
      [&] {
        ++provider_calls;
        return StatusSnapshot{};
      },
      [&] {
        StatusSnapshot s;
        s.totals.urls_fetched = sampled += 1'000'000;
        return s;
      });
  ASSERT_TRUE(server.Start().ok());
  for (int i = 0; i < 600 && server.History().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(server.History().empty());
  // 10^6 a reading: far above what any pace of the sampler gives otherwise.
  EXPECT_GT(server.History().front().fetched_per_second, 1000.0);
  EXPECT_EQ(provider_calls.load(), 0);
  server.Stop();
}

TEST(StatusServerStartTest, RejectsBadListenAndDoubleStart) {
  StatusProvider provider = [] { return StatusSnapshot{}; };
  struct Case {
    std::string listen, token;
    Status::Code want;
  };
  const Case cases[] = {
      {"nonsense", "", Status::Code::kInvalidArgument},
      {"127.0.0.1:99999", "", Status::Code::kInvalidArgument},
      {"example.org:80", "", Status::Code::kInvalidArgument},
      {"0.0.0.0:0", "", Status::Code::kInvalidArgument},  // public needs a token
  };
  for (const Case& c : cases) {
    StatusServerOptions options;
    options.listen = c.listen;
    options.auth_token = c.token;
    StatusServer server(options, provider);
    EXPECT_EQ(server.Start().code(), c.want) << c.listen;
  }
  StatusServerOptions options;
  options.listen = "127.0.0.1:0";
  StatusServer first(options, provider);
  ASSERT_TRUE(first.Start().ok());
  EXPECT_FALSE(first.Start().ok());
  options.listen = "127.0.0.1:" + std::to_string(first.port());
  StatusServer second(options, provider);
  EXPECT_EQ(second.Start().code(), Status::Code::kIoError);
  first.Stop();
  first.Stop();  // idempotent
}

}  // namespace
}  // namespace crawlfront
