#include "crawlfront/simweb/server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include "crawlfront/simweb/access_log.h"
#include "crawlfront/simweb/sim_web.h"

namespace crawlfront::simweb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);
// A connection serves at most this many requests, then closes: keeps every
// session loop bounded.
constexpr int kMaxRequestsPerConnection = 100'000;
constexpr auto kIdleTimeout = std::chrono::seconds(30);
constexpr size_t kHeaderLimit = 16 * 1024;
constexpr int kMaxThreads = 64;

struct Shared {
  explicit Shared(SimWeb w) : web(std::move(w)) {}
  SimWeb web;
  std::unique_ptr<AccessLog> log;  // null when not logging
  std::vector<ContentCoding> encodings;
};

using HttpResponse = http::response<http::string_body>;

// The coding negotiated for the answer to `req` (possibly identity), or
// nullopt when the answer is not negotiable: only text bodies are encoded, as
// real servers do (images and PDFs are compressed already).
std::optional<ContentCoding> CodingFor(const Shared& shared,
                                       const http::request<http::string_body>& req,
                                       const Response& answer) {
  if (shared.encodings.empty() || answer.body.empty() ||
      !answer.content_type.starts_with("text/")) {
    return std::nullopt;
  }
  return ChooseCoding(req[http::field::accept_encoding], shared.encodings);
}

// simweb's pages never change: one Last-Modified for all, and a weak ETag
// per body (weak: the same for every content coding of it).
constexpr std::string_view kLastModified = "Tue, 01 Dec 2026 00:00:00 GMT";

std::string EtagOf(std::string_view body) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a: stable across runs
  for (unsigned char c : body) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "W/\"%016llx\"", static_cast<unsigned long long>(h));
  return buf;
}

std::string_view OpaqueTag(std::string_view tag) {
  while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
  while (!tag.empty() && tag.back() == ' ') tag.remove_suffix(1);
  if (tag.starts_with("W/")) tag.remove_prefix(2);
  return tag;
}

// RFC 9110 13.1.2 and 13.1.3: If-None-Match (weak comparison, a list or
// "*") decides when present; else If-Modified-Since, compared as the exact
// date this server sends.
bool NotModified(const http::request<http::string_body>& req, std::string_view etag) {
  std::string_view inm = req[http::field::if_none_match];
  if (!inm.empty()) {
    if (OpaqueTag(inm) == "*") return true;
    for (size_t start = 0; start <= inm.size();) {
      size_t comma = inm.find(',', start);
      if (comma == std::string_view::npos) comma = inm.size();
      if (OpaqueTag(inm.substr(start, comma - start)) == OpaqueTag(etag)) return true;
      start = comma + 1;
    }
    return false;
  }
  return req[http::field::if_modified_since] == kLastModified;
}

HttpResponse BuildResponse(Response r, unsigned version, bool keep_alive, bool head,
                           std::optional<ContentCoding> coding = std::nullopt,
                           std::string_view etag = {}) {
  HttpResponse res{static_cast<http::status>(r.status), version};
  res.set(http::field::server, "simweb");
  if (!r.content_type.empty()) res.set(http::field::content_type, r.content_type);
  if (!etag.empty()) {
    res.set(http::field::etag, etag);
    res.set(http::field::last_modified, kLastModified);
  }
  if (r.status == 405) res.set(http::field::allow, "GET, HEAD");
  if (!r.location.empty()) res.set(http::field::location, r.location);
  if (!r.robots_tag.empty()) res.set("X-Robots-Tag", r.robots_tag);
  if (coding) res.set(http::field::vary, "Accept-Encoding");
  if (coding && *coding != ContentCoding::kIdentity) {
    res.set(http::field::content_encoding, CodingName(*coding));
    r.body = Encode(*coding, r.body);
  }
  res.keep_alive(keep_alive);
  if (head) {
    res.content_length(r.body.size());  // what GET would send; no body
  } else {
    res.body() = std::move(r.body);
    res.prepare_payload();
  }
  return res;
}

// Clients talking to simweb as an HTTP proxy (wget2 --http-proxy, which has no
// --resolve) send absolute-form targets (RFC 9112 3.2.2): serve their path.
std::string_view OriginForm(std::string_view target) {
  constexpr std::string_view kPrefix = "http://";
  if (!beast::iequals(target.substr(0, kPrefix.size()), kPrefix)) return target;
  size_t slash = target.find_first_of("/?", kPrefix.size());
  return slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
}

Response Answer(const Shared& shared, const http::request<http::string_body>& req) {
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    return Response{405, "text/plain; charset=utf-8", "", "only GET and HEAD\n", 0};
  }
  return shared.web.Fetch(req[http::field::host], OriginForm(req.target()));
}

// True for errors that mean "the client sent garbage" (answered with 400)
// rather than "the connection ended".
bool IsBadRequest(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

asio::awaitable<void> Session(tcp::socket socket, Shared& shared) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  for (int i = 0; i < kMaxRequestsPerConnection; ++i) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(kHeaderLimit);
    stream.expires_after(kIdleTimeout);
    auto [read_error, read_bytes] =
        co_await http::async_read(stream, buffer, parser, kUseTuple);
    if (read_error) {
      if (IsBadRequest(read_error)) {
        HttpResponse res = BuildResponse(
            Response{400, "text/plain; charset=utf-8", "", "bad request\n", 0}, 11, false,
            false);
        co_await http::async_write(stream, res, kUseTuple);
      }
      break;
    }
    auto arrived = std::chrono::system_clock::now();
    http::request<http::string_body> req = parser.release();
    Response answer = Answer(shared, req);
    if (answer.delay_ms > 0) {
      // Waits on a timer, so the thread serves other connections meanwhile.
      asio::steady_timer timer(co_await asio::this_coro::executor);
      timer.expires_after(std::chrono::milliseconds(answer.delay_ms));
      co_await timer.async_wait(kUseTuple);
    }
    bool head = req.method() == http::verb::head;
    std::string etag;
    if (answer.status == 200) {
      etag = EtagOf(answer.body);
      if (NotModified(req, etag)) answer = Response{304, "", "", "", 0};
    }
    int status = answer.status;
    std::optional<ContentCoding> coding = CodingFor(shared, req, answer);
    HttpResponse res = BuildResponse(std::move(answer), req.version(), req.keep_alive(), head,
                                     coding, etag);
    // Logged before the write so a client that got the response finds its line;
    // the time is the request's arrival.
    if (shared.log) {
      shared.log->Write(arrived, HostWithoutPort(req[http::field::host]), req.target(),
                        status, res.body().size());
    }
    stream.expires_after(kIdleTimeout);
    auto [write_error, written] = co_await http::async_write(stream, res, kUseTuple);
    if (write_error || !res.keep_alive()) break;
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

// Accepts until the acceptor is closed or the io_context stops.
asio::awaitable<void> Accept(tcp::acceptor& acceptor, Shared& shared) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(
        asio::make_strand(acceptor.get_executor()), kUseTuple);
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) continue;  // e.g. a connection reset before accept; keep serving
    asio::co_spawn(socket.get_executor(), Session(std::move(socket), shared),
                   asio::detached);
  }
}

Status Listen(tcp::acceptor& acceptor, const tcp::endpoint& endpoint) {
  beast::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IoError("cannot listen on " + endpoint.address().to_string() + ":" +
                           std::to_string(endpoint.port()) + ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace

struct SimWebServer::Impl {
  explicit Impl(SimWeb web) : shared(std::move(web)) {}
  // Declaration order matters: the io_context (and the coroutine frames it
  // owns) goes before the Shared state the frames point to.
  Shared shared;
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::vector<std::thread> threads;
  uint16_t port = 0;
};

SimWebServer::SimWebServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SimWebServer::~SimWebServer() { Stop(); }

uint16_t SimWebServer::port() const { return impl_->port; }

Result<std::unique_ptr<SimWebServer>> SimWebServer::Start(
    const SimWebOptions& web_options, const ServerOptions& options) {
  Result<SimWeb> web = SimWeb::Create(web_options);
  if (!web.ok()) return web.status();
  if (options.threads < 1 || options.threads > kMaxThreads) {
    return Status::InvalidArgument("threads must be in [1, 64]");
  }
  beast::error_code ec;
  asio::ip::address address = asio::ip::make_address(options.address, ec);
  if (ec || !address.is_loopback()) {
    return Status::InvalidArgument("listen address must be a loopback address, got '" +
                                   options.address + "'");
  }
  auto impl = std::make_unique<Impl>(std::move(*web));
  impl->shared.encodings = options.encodings;
  if (!options.access_log.empty()) {
    Result<std::unique_ptr<AccessLog>> log = AccessLog::Open(options.access_log);
    if (!log.ok()) return log.status();
    impl->shared.log = std::move(*log);
  }
  CRAWLFRONT_RETURN_IF_ERROR(
      Listen(impl->acceptor, tcp::endpoint(address, options.port)));
  impl->port = impl->acceptor.local_endpoint().port();
  asio::co_spawn(impl->ioc, Accept(impl->acceptor, impl->shared), asio::detached);
  for (int i = 0; i < options.threads; ++i) {
    impl->threads.emplace_back([ioc = &impl->ioc] { ioc->run(); });
  }
  return std::unique_ptr<SimWebServer>(new SimWebServer(std::move(impl)));
}

void SimWebServer::Stop() {
  if (!impl_) return;
  impl_->ioc.stop();
  for (std::thread& thread : impl_->threads) {
    if (thread.joinable()) thread.join();
  }
  impl_->threads.clear();
}

}  // namespace crawlfront::simweb
