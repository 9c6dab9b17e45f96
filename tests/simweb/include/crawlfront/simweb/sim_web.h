#pragma once
// SimWeb: the deterministic synthetic web as a pure function from (Host,
// request target) to a response. No sockets; the server and tests share it.

#include <cstdint>
#include <string>
#include <string_view>

#include "crawlfront/common/status.h"
#include "crawlfront/simweb/options.h"
#include "crawlfront/simweb/resource.h"

namespace crawlfront::simweb {

struct Response {
  int status = 200;
  std::string content_type;
  std::string location;  // Location header of 3xx answers, else ""
  std::string body;
  uint32_t delay_ms = 0;  // how long the server waits before answering
  std::string robots_tag{};  // X-Robots-Tag header, if any
};

inline constexpr size_t kMaxTargetLength = 2048;

class SimWeb {
 public:
  // Fails with InvalidArgument when the options are out of bounds.
  static Result<SimWeb> Create(const SimWebOptions& options);

  const SimWebOptions& options() const { return options_; }

  // The response to GET `target` (path and query, as in the request line) on
  // virtual host `host` (the Host header: any letter case, optional ":port").
  // Unknown hosts and paths give 404, over-long targets 414, targets not
  // starting with '/' 400. Same inputs => byte-identical response. Generates
  // the body on demand (large pages cost up to large_max_bytes).
  // Thread-safe (const, no shared mutable state).
  Response Fetch(std::string_view host, std::string_view target) const;

  // The response for a resource already routed. Thread-safe.
  Response FetchResource(const Resource& resource) const;

  // The status FetchResource would answer, without building the body (the
  // oracle needs statuses of large pages too). Thread-safe.
  int StatusOf(const Resource& resource) const;

 private:
  explicit SimWeb(const SimWebOptions& options) : options_(options) {}
  SimWebOptions options_;
};

// The host part of a Host header: lowercased, without ":port" and without
// IPv6 brackets' port. Exposed for the server's access log.
std::string HostWithoutPort(std::string_view host_header);

}  // namespace crawlfront::simweb
