#include "status_session.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace crawlfront {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr std::string_view kSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

// Decrements the connection count however the coroutine ends.
struct ConnectionGuard {
  std::atomic<size_t>* count;
  ~ConnectionGuard() {
    if (count != nullptr) count->fetch_sub(1);
  }
};

template <typename Body>
void SetHeaders(http::response<Body>& res, const StatusReply& reply, bool keep_alive) {
  res.set(http::field::server, "crawlfront");
  res.set(http::field::content_type, reply.content_type);
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("X-Frame-Options", "DENY");
  res.set("Referrer-Policy", "no-referrer");
  res.set("Content-Security-Policy", kSecurityPolicy);
  if (!reply.allow.empty()) res.set(http::field::allow, reply.allow);
  if (reply.auth_challenge) res.set(http::field::www_authenticate, "Bearer");
  res.keep_alive(keep_alive);
}

// Writes `reply`; for HEAD only the headers, with GET's Content-Length.
asio::awaitable<boost::system::error_code> WriteReply(beast::tcp_stream& stream,
                                                      StatusReply reply, bool head,
                                                      unsigned version, bool keep_alive,
                                                      std::chrono::milliseconds timeout) {
  boost::system::error_code ec;
  auto status = static_cast<http::status>(reply.status);
  stream.expires_after(timeout);
  if (head) {
    http::response<http::empty_body> res{status, version};
    SetHeaders(res, reply, keep_alive);
    res.content_length(reply.body.size());
    co_await http::async_write(stream, res,
                               asio::redirect_error(asio::use_awaitable, ec));
  } else {
    http::response<http::string_body> res{status, version};
    SetHeaders(res, reply, keep_alive);
    res.body() = std::move(reply.body);
    res.prepare_payload();
    co_await http::async_write(stream, res,
                               asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return ec;
}

// Maps a failed read to the reply owed to the client, or status 0 when the
// connection should just close (peer gone, timeout, socket error).
unsigned ReadErrorStatus(const boost::system::error_code& ec) {
  if (ec == http::error::header_limit) return 431;
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return 0;
  // Any other parser error: the request is malformed.
  if (ec.category() == http::make_error_code(http::error::bad_method).category())
    return 400;
  return 0;
}

// After an error reply: stop sending, then read and drop what the client
// still sends (bounded), so closing does not reset the connection before the
// client has read the reply.
asio::awaitable<void> Linger(beast::tcp_stream& stream) {
  boost::system::error_code ec;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  stream.expires_after(std::chrono::seconds(1));
  char sink[4096];
  for (int i = 0; i < 64 && !ec; ++i) {
    co_await stream.async_read_some(asio::buffer(sink),
                                    asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace

asio::awaitable<void> RunStatusSession(asio::ip::tcp::socket socket,
                                       StatusSessionConfig config) {
  ConnectionGuard guard{config.connections};
  const StatusServerOptions& options = *config.options;
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer(options.header_limit + options.body_limit + 1024);
  for (size_t served = 0; served < options.max_requests_per_connection; ++served) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<uint32_t>(options.header_limit));
    parser.body_limit(options.body_limit);
    boost::system::error_code ec;
    stream.expires_after(options.request_timeout);
    co_await http::async_read(stream, buffer, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      unsigned status = ReadErrorStatus(ec);
      if (status == 0) break;
      StatusReply reply;
      reply.status = status;
      reply.body = "bad request: " + ec.message() + "\n";
      ec = co_await WriteReply(stream, std::move(reply), false, 11, false,
                               options.request_timeout);
      if (!ec) co_await Linger(stream);
      break;
    }
    const auto& req = parser.get();
    bool keep_alive =
        req.keep_alive() && served + 1 < options.max_requests_per_connection;
    StatusRequest request{req.method_string(), req.target(),
                          req[http::field::authorization]};
    StatusReply reply = RouteStatusRequest(request, config.route);
    ec = co_await WriteReply(stream, std::move(reply), req.method() == http::verb::head,
                             req.version(), keep_alive, options.request_timeout);
    if (ec || !keep_alive) break;
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
}

}  // namespace crawlfront
