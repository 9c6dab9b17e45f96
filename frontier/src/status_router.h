#pragma once
// Request routing of the status page, free of sockets so tests and the fuzzer
// can drive it directly (private to the status server).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/frontier/status_http.h"

namespace crawlfront {

struct StatusRequest {
  std::string_view method;         // as sent, e.g. "GET"
  std::string_view target;         // origin-form, e.g. "/api/stats?x=1"
  std::string_view authorization;  // the Authorization header, may be empty
};

struct StatusReply {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::string allow;            // Allow header for 405
  bool auth_challenge = false;  // send WWW-Authenticate: Bearer (401)
};

struct StatusRouteContext {
  const StatusServerOptions* options = nullptr;  // not owned
  const StatusProvider* provider = nullptr;      // not owned
  std::function<std::vector<RateSample>()> history;
};

// The reply for `request`; HEAD gets GET's reply (the caller drops the body).
// A throwing provider gives a 500, never an exception. Thread-safe if the
// provider is.
StatusReply RouteStatusRequest(const StatusRequest& request,
                               const StatusRouteContext& ctx);

// True when `authorization` is "Bearer <token>" (scheme case-insensitive).
// Compares in time independent of where the token differs.
bool BearerTokenMatches(std::string_view authorization, std::string_view token);

}  // namespace crawlfront
