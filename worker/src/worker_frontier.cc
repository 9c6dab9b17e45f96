// FrontierLink: one frontier connection with backoff and unacknowledged DONEs.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

#include "worker_internal.h"

namespace crawlfront::worker_internal {

Status ParseHostPort(std::string_view address, std::string* host, uint16_t* port) {
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument("frontier address '" + std::string(address) +
                                   "' is not host:port");
  }
  std::string_view h = address.substr(0, colon);
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') {
      return Status::InvalidArgument("frontier address '" + std::string(address) +
                                     "': bad [ipv6] host");
    }
    h = h.substr(1, h.size() - 2);
  }
  std::string_view p = address.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
  if (ec != std::errc() || end != p.data() + p.size() || value == 0 || value > 65535) {
    return Status::InvalidArgument("frontier address '" + std::string(address) +
                                   "': bad port");
  }
  *host = std::string(h);
  *port = static_cast<uint16_t>(value);
  return Status::Ok();
}

FrontierLink::FrontierLink(std::string address, RespClientOptions client_options,
                           std::chrono::milliseconds backoff_min,
                           std::chrono::milliseconds backoff_max)
    : address_(std::move(address)),
      client_options_(std::move(client_options)),
      backoff_min_(backoff_min),
      backoff_max_(backoff_max),
      backoff_(backoff_min) {
  // Validated by Worker::Open; a bad address here just never connects.
  ParseHostPort(address_, &host_, &port_).IgnoreError();
}

bool FrontierLink::EnsureConnected() {
  if (client_ != nullptr) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_attempt_ || port_ == 0) return false;
  auto client = RespClient::Connect(host_, port_, client_options_);
  if (!client.ok()) {
    next_attempt_ = now + backoff_;
    spdlog::debug("frontier {}: connect failed ({}), next try in {} ms", address_,
                  client.status().ToString(), backoff_.count());
    backoff_ = std::min(backoff_ * 2, backoff_max_);
    return false;
  }
  client_ = std::move(*client);
  backoff_ = backoff_min_;
  if (connects_++ > 0) ++reconnects_;
  spdlog::info("frontier {}: connected ({} results to re-send)", address_, pending_.size());
  return true;
}

void FrontierLink::Disconnect(const Status& why) {
  spdlog::warn("frontier {}: connection lost ({}); reconnecting", address_, why.ToString());
  client_.reset();
  next_attempt_ = std::chrono::steady_clock::now() + backoff_;
  backoff_ = std::min(backoff_ * 2, backoff_max_);
}

Result<std::vector<Lease>> FrontierLink::LeaseBatch(const std::vector<std::string>& command) {
  if (client_ == nullptr) return Status::Unavailable("not connected");
  Result<RespValue> reply = client_->Command(command);
  if (!reply.ok()) {
    Disconnect(reply.status());
    return reply.status();
  }
  size_t skipped = 0;
  Result<std::vector<Lease>> leases = ParseLeases(*reply, &skipped);
  if (skipped > 0) spdlog::warn("frontier {}: skipped {} malformed leases", address_, skipped);
  return leases;
}

size_t FrontierLink::FlushDone() {
  if (pending_.empty() || client_ == nullptr) return 0;
  // Bounded batches keep one pipeline's reply time under the call timeout.
  const size_t n = std::min<size_t>(pending_.size(), 512);
  std::vector<std::vector<std::string>> batch(pending_.begin(), pending_.begin() + n);
  Result<std::vector<RespValue>> replies = client_->Pipeline(batch);
  if (!replies.ok()) {
    Disconnect(replies.status());
    return 0;
  }
  for (size_t i = 0; i < n; ++i) {
    const RespValue& r = (*replies)[i];
    if (r.is_error()) {
      // Malformed on the frontier's reading: re-sending would fail the same way.
      spdlog::error("frontier {}: DONE for lease {} rejected: {}", address_,
                    batch[i].size() > 2 ? batch[i][2] : "?", r.str);
    } else if (r.type == RespType::kInteger && r.integer == 0) {
      spdlog::debug("frontier {}: lease {} was already closed or expired", address_,
                    batch[i].size() > 2 ? batch[i][2] : "?");
    }
  }
  pending_.erase(pending_.begin(), pending_.begin() + n);
  return n;
}

}  // namespace crawlfront::worker_internal
