#pragma once
// The worker's parsers of what others send it: FRONTIER.LEASE replies and
// Retry-After header values. Pure functions over values, no sockets, so the
// fuzzers (lease_reply_fuzzer, retry_after_fuzzer) can drive them directly.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/header_value.h"
#include "crawlfront/common/resp.h"
#include "crawlfront/common/status.h"

namespace crawlfront::worker_internal {

struct Lease {
  std::string id;
  std::string url;
  int64_t depth = 0;
  int64_t attempt = 1;
  std::string kind;  // "page" or "robots"
  std::string crawl;
  // A recrawl's validators from its last fetch (empty: none), sent as
  // If-None-Match / If-Modified-Since.
  std::string etag{}, last_modified{};  // {}: aggregates may omit them
};

// Parses a FRONTIER.LEASE reply: an array of [lease_id, url, depth, attempt,
// kind, crawl] entries, a recrawl's with [etag, last_modified] after them
// (docs/protocol.md); validators that are not safe header values are
// dropped (the lease stays). Malformed entries are skipped and
// counted in *skipped; a reply that is not an array is InvalidArgument (an
// error reply's text is in the message). Every lease returned has a
// non-empty id and kind "page" or "robots". Thread-safe.
Result<std::vector<Lease>> ParseLeases(const RespValue& reply, size_t* skipped);

// Longest delay a Retry-After can ask for; longer values are clamped.
inline constexpr int64_t kMaxRetryAfterMs = int64_t{24} * 3600 * 1000;

// Milliseconds from `now` until a Retry-After value (RFC 9110 10.2.3): delay
// seconds, or an HTTP date in any of its three forms (IMF-fixdate, obsolete
// RFC 850, asctime). Clamped to [0, kMaxRetryAfterMs]; -1 when unparsable.
// Thread-safe.
int64_t ParseRetryAfterMs(std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace crawlfront::worker_internal
