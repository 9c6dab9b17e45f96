#pragma once
// A URL's last fetch result, kept per URL in kFetch so that FRONTIER.URL can
// say what happened to a page that left the frontier (as Nutch's CrawlDB
// keeps a status per URL). Key: host prefix | the URL's 128-bit fingerprint
// (the seen-set's): a third of the URL's bytes, which every DONE writes.

#include <cstdint>
#include <string>
#include <string_view>

namespace crawlfront {

enum class UrlOutcome : uint8_t {
  kNone = 0,        // no record
  kFetched,         // a response (any status)
  kFailed,          // a worker's failure, max attempts or an expired last lease
  kRetry,           // retried later (a 429/503, a transient error)
  kDisallowed,      // the worker refused to fetch it
  kRobotsBlocked,   // robots.txt disallowed it; the frontier settled it unleased
  kExpired,         // its lease expired; queued again
};
// "fetched", "failed", "retry", "disallowed", "robots_blocked", "expired";
// "" for kNone.
const char* UrlOutcomeName(UrlOutcome o);

struct FetchRecord {
  UrlOutcome outcome = UrlOutcome::kNone;
  int32_t status = 0;    // HTTP status of a response, else 0
  uint32_t attempt = 0;  // the attempt this was (1 = first)
  int64_t at_ms = 0;     // when the frontier took the result, Unix ms
  int64_t fetch_ms = 0;  // response time the worker reported
  std::string reason;    // failed, retry, disallowed (cut to kMaxReason bytes)
  // fetched: the validators of the copy fetched, for the next recrawl's
  // conditional GET (each at most 256 bytes; DONE checks).
  std::string etag{}, last_modified{};  // {}: aggregates may omit them
  // fetched: the body was a sitemap. Its recrawl is never conditional: a
  // 304 has no body to say it is one, and it must be read to go on.
  bool sitemap = false;
};

inline constexpr size_t kMaxFetchReason = 256;

// The kFetch key of canonical `url` in the host at `prefix`.
std::string FetchKey(std::string_view prefix, std::string_view url);
std::string EncodeFetchRecord(const FetchRecord& r);
// False if `bytes` is not a record this version writes.
bool DecodeFetchRecord(std::string_view bytes, FetchRecord* r);

}  // namespace crawlfront
