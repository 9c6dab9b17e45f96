#pragma once
// "host:port" handling shared by the servers, the worker and crawlctl.

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/asio/ip/tcp.hpp>

#include "crawlfront/common/status.h"

namespace crawlfront {

struct HostPort {
  std::string host;  // brackets of "[v6]" removed; may be empty
  uint16_t port = 0;
};

// Splits "host:port" or "[v6]:port". InvalidArgument for a missing or bad
// port (port 0 is allowed: "pick a free one").
Result<HostPort> SplitHostPort(std::string_view text);

// A listen address: an IP literal (or "localhost") and a port.
// InvalidArgument with the text quoted when it is not one.
Result<boost::asio::ip::tcp::endpoint> ParseListenEndpoint(std::string_view text);

// Opens, binds and listens `acceptor` on `listen` (ParseListenEndpoint's
// form). A non-loopback address is refused unless `has_auth_token`: our
// servers never listen openly without one (ARCHITECTURE decision 12).
// InvalidArgument for bad or refused addresses, IoError when binding fails.
Status OpenListener(boost::asio::ip::tcp::acceptor& acceptor, std::string_view listen,
                    bool has_auth_token);

}  // namespace crawlfront
