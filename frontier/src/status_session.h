#pragma once
// One HTTP connection of the status server (private). Beast over a
// tcp_stream whose deadline bounds every read and write, so a slow or stalled
// client only holds its own connection, and only until request_timeout.

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "status_router.h"

namespace crawlfront {

struct StatusSessionConfig {
  const StatusServerOptions* options = nullptr;  // not owned, outlives the session
  StatusRouteContext route;
  std::atomic<size_t>* connections = nullptr;  // decremented when the session ends
};

// Serves requests on `socket` until the client closes, an error, a timeout,
// a non-keep-alive request or max_requests_per_connection. Never throws.
boost::asio::awaitable<void> RunStatusSession(boost::asio::ip::tcp::socket socket,
                                              StatusSessionConfig config);

}  // namespace crawlfront
