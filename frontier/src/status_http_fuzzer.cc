// Fuzzes the status page's request path and renderers: the bytes are parsed
// as an HTTP request (Beast, with the server's limits) and routed; they also
// become every crawled string of a snapshot, and the outputs must stay
// well-formed: JSON that parses, Prometheus text that passes the strict
// checker, HTML text without raw markup characters.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "crawlfront/frontier/status_http.h"
#include "status_router.h"
#include "status_test_util.h"

namespace {

namespace http = boost::beast::http;
using crawlfront::StatusSnapshot;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant failed: %s\n", what);
    std::abort();
  }
}

StatusSnapshot SnapshotFrom(const std::string& text) {
  StatusSnapshot s = crawlfront::testing::CraftedSnapshot(4);
  s.version = text;
  s.seen.mode = text;
  s.snapshot.detail = text;
  s.top_hosts[0].host = text;
  s.top_hosts[0].robots_state = text;
  s.workers[0].id = text;
  s.workers[0].address = text + "x";  // differs from the id: distinct series
  s.recent_errors[0].text = text;
  s.crawls[0].id = text;
  return s;
}

void FuzzRenderers(const std::string& text) {
  StatusSnapshot s = SnapshotFrom(text);
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(crawlfront::RenderStatusJson(s, {}), ec);
  Check(!ec, "JSON parses");
  crawlfront::testing::ParsedMetrics m =
      crawlfront::testing::ParsePrometheusText(crawlfront::RenderPrometheusMetrics(s, 3));
  Check(m.errors.empty(), "metrics well-formed");
  std::string escaped = crawlfront::HtmlEscape(text);
  Check(escaped.find_first_of("<>\"'") == std::string::npos, "HTML escaped");
  std::string page = crawlfront::RenderDashboardHtml(s);
  Check(page.find("<!--CF:") == std::string::npos, "markers filled");
}

void FuzzRequest(const std::string& bytes) {
  http::request_parser<http::string_body> parser;
  parser.header_limit(8 * 1024);
  parser.body_limit(64 * 1024);
  parser.eager(true);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(bytes), ec);
  if (ec || !parser.is_done()) return;
  const auto& req = parser.get();
  crawlfront::StatusServerOptions options;
  options.auth_token = "tok";
  crawlfront::StatusProvider provider = [] {
    return crawlfront::testing::CraftedSnapshot(4);
  };
  crawlfront::StatusRouteContext ctx{&options, &provider, nullptr};
  crawlfront::StatusReply reply = crawlfront::RouteStatusRequest(
      {req.method_string(), req.target(), req[http::field::authorization]}, ctx);
  Check(reply.status >= 200 && reply.status < 600, "status code");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  FuzzRequest(bytes);
  FuzzRenderers(bytes);
  return 0;
}
