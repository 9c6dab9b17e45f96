#include "crawlfront/common/net.h"

#include <charconv>

namespace crawlfront {

Result<HostPort> SplitHostPort(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("'" + std::string(text) + "' must be host:port");
  }
  HostPort hp;
  hp.host = std::string(text.substr(0, colon));
  std::string_view port_text = text.substr(colon + 1);
  if (hp.host.size() >= 2 && hp.host.front() == '[' && hp.host.back() == ']') {
    hp.host = hp.host.substr(1, hp.host.size() - 2);
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    return Status::InvalidArgument("'" + std::string(text) + "': bad port");
  }
  hp.port = static_cast<uint16_t>(port);
  return hp;
}

Result<boost::asio::ip::tcp::endpoint> ParseListenEndpoint(std::string_view text) {
  auto hp = SplitHostPort(text);
  if (!hp.ok()) return Status::InvalidArgument("listen " + hp.status().message());
  if (hp->host == "localhost") hp->host = "127.0.0.1";
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(hp->host, ec);
  if (ec) {
    return Status::InvalidArgument("listen '" + std::string(text) +
                                   "': host must be an IP address");
  }
  return boost::asio::ip::tcp::endpoint(address, hp->port);
}

Status OpenListener(boost::asio::ip::tcp::acceptor& acceptor, std::string_view listen,
                    bool has_auth_token) {
  auto endpoint = ParseListenEndpoint(listen);
  if (!endpoint.ok()) return endpoint.status();
  if (!endpoint->address().is_loopback() && !has_auth_token) {
    return Status::InvalidArgument("listen " + std::string(listen) +
                                   " is not loopback: set auth_token");
  }
  boost::system::error_code ec;
  acceptor.open(endpoint->protocol(), ec);
  if (!ec) acceptor.set_option(boost::asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(*endpoint, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IoError("listen " + std::string(listen) + ": " + ec.message());
  return Status::Ok();
}

}  // namespace crawlfront
