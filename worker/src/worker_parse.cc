// FRONTIER.LEASE reply and Retry-After parsing (worker_parse.h).

#include "worker_parse.h"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace crawlfront::worker_internal {
namespace {

bool AsInt(const RespValue& v, int64_t* out) {
  if (v.type == RespType::kInteger) {
    *out = v.integer;
    return true;
  }
  if (!v.is_string()) return false;
  auto [p, ec] = std::from_chars(v.str.data(), v.str.data() + v.str.size(), *out);
  return ec == std::errc() && p == v.str.data() + v.str.size();
}

bool ParseLease(const RespValue& v, Lease* lease) {
  if (v.type != RespType::kArray || (v.elements.size() != 6 && v.elements.size() != 8)) {
    return false;
  }
  const auto& e = v.elements;
  if (!e[0].is_string() || !e[1].is_string() || !e[4].is_string() || !e[5].is_string()) {
    return false;
  }
  lease->id = e[0].str;
  lease->url = e[1].str;
  lease->kind = e[4].str;
  lease->crawl = e[5].str;
  if (e.size() == 8) {
    if (!e[6].is_string() || !e[7].is_string()) return false;
    if (IsSafeHeaderValue(e[6].str) && IsSafeHeaderValue(e[7].str)) {
      lease->etag = e[6].str;
      lease->last_modified = e[7].str;
    }
  }
  return !lease->id.empty() && AsInt(e[2], &lease->depth) && AsInt(e[3], &lease->attempt) &&
         (lease->kind == "page" || lease->kind == "robots");
}

// Seconds since the epoch of an HTTP date, or nullopt. RFC 9110 5.6.7:
// recipients must accept all three forms, though senders only use the first.
std::optional<int64_t> ParseHttpDate(const std::string& text) {
  static const char* const kFormats[] = {
      "%a, %d %b %Y %H:%M:%S GMT",  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
      "%A, %d-%b-%y %H:%M:%S GMT",  // RFC 850:     Sunday, 06-Nov-94 08:49:37 GMT
      "%a %b %e %H:%M:%S %Y",       // asctime:     Sun Nov  6 08:49:37 1994
  };
  for (const char* format : kFormats) {
    std::tm tm{};
    const char* end = strptime(text.c_str(), format, &tm);
    // The whole value must match; a NUL inside it ends strptime early.
    if (end == text.c_str() + text.size()) return int64_t{timegm(&tm)};
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<Lease>> ParseLeases(const RespValue& reply, size_t* skipped) {
  if (reply.is_error()) return Status::InvalidArgument("LEASE failed: " + reply.str);
  if (reply.type != RespType::kArray) {
    return Status::InvalidArgument("LEASE reply is a " +
                                   std::string(RespTypeName(reply.type)) + ", not an array");
  }
  std::vector<Lease> leases;
  *skipped = 0;
  for (const RespValue& v : reply.elements) {
    Lease lease;
    if (ParseLease(v, &lease)) {
      leases.push_back(std::move(lease));
    } else {
      ++*skipped;
    }
  }
  return leases;
}

int64_t ParseRetryAfterMs(std::string_view value, std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return -1;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {  // delay-seconds
    int64_t seconds = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || seconds > kMaxRetryAfterMs / 1000) return kMaxRetryAfterMs;
    return seconds * 1000;
  }
  const std::optional<int64_t> when_s = ParseHttpDate(std::string(value));
  if (!when_s) return -1;
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return std::clamp(*when_s * 1000 - now_ms, int64_t{0}, kMaxRetryAfterMs);
}

}  // namespace crawlfront::worker_internal
