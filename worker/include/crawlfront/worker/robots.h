#pragma once
// robots.txt (RFC 9309) parsing and matching: pure functions over bytes.
//
// ParseRobots() keeps only what one crawler needs: the rules of the group(s)
// that apply to its product token, that group's Crawl-delay, and the file's
// Sitemap lines. The result is small, immutable and serializable, so the
// frontier can store one per host and every worker agrees on it.
// See docs/robots.md for the exact behaviour on odd input.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront {

// Bytes of a robots.txt body that are parsed; the rest is ignored (RFC 9309
// section 2.5 requires at least 500 KiB). A line cut by the cap is dropped.
inline constexpr size_t kRobotsMaxBytes = 500 * 1024;

// One Allow/Disallow line of the selected group. `pattern` is percent-encoding
// normalized (see docs/robots.md) and may contain '*' and a trailing '$'.
struct RobotsRule {
  std::string pattern;
  bool allow = false;
  bool operator==(const RobotsRule&) const = default;
};

// The rules that apply to one product token. Immutable after construction;
// all const methods are thread-safe.
class RobotsRules {
 public:
  // No rules: everything allowed, no delay, no sitemaps.
  RobotsRules() = default;

  // For a robots.txt that is "unavailable" (4xx): everything allowed.
  static RobotsRules AllowAll();
  // For a robots.txt that is "unreachable" (5xx, network error): everything
  // disallowed except "/robots.txt" itself.
  static RobotsRules DisallowAll();

  // Whether `path_and_query` (the URL's path plus "?query", e.g. "/a/b?x=1";
  // a "#fragment" is ignored, a missing leading '/' is added) may be fetched.
  // The longest matching pattern decides; Allow wins a tie; no match means
  // allowed. "/robots.txt" is always allowed.
  bool Allowed(std::string_view path_and_query) const;

  // About how many bytes Allowed() compares at most for a path of
  // `path_bytes` (each rule costs O(pattern + path)): callers that check many
  // paths under a lock budget their work with it.
  size_t MatchCost(size_t path_bytes) const {
    return pattern_bytes_ + rules_.size() * (path_bytes + 1);
  }

  // Crawl-delay of the selected group in seconds (fractions allowed), if it
  // had a valid one (finite, >= 0). The first valid line wins.
  std::optional<double> crawl_delay() const { return crawl_delay_; }

  // Sitemap URLs of the whole file (they belong to no group), in file order,
  // without duplicates. Not validated as URLs.
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }

  // Rules of the selected group(s), most specific first (the order Allowed()
  // tries them). For tests, debugging and the status page.
  const std::vector<RobotsRule>& rules() const { return rules_; }

  // A compact, versioned text form (one item per line) for storage.
  std::string Serialize() const;
  // Inverse of Serialize(). Returns Corruption on anything Serialize() could
  // not have produced (unknown version, bad line, bad number).
  static Result<RobotsRules> Deserialize(std::string_view data);

  bool operator==(const RobotsRules&) const = default;

 private:
  friend RobotsRules ParseRobots(std::string_view body, std::string_view product_token);
  // Sorts rules into match order and drops duplicates.
  void Finish();

  std::vector<RobotsRule> rules_;
  size_t pattern_bytes_ = 0;  // of rules_, set by Finish()
  std::optional<double> crawl_delay_;
  std::vector<std::string> sitemaps_;
};

// Whether a rule's `pattern` ('*' = any run of bytes, a final '$' anchors at
// the end) matches `path` from its start, in O(|path| + |pattern|) whatever
// the pattern. Both already percent-encoding normalized. For Allowed(),
// tests and fuzzers.
bool RobotsPatternMatches(std::string_view pattern, std::string_view path);

// The part of a User-Agent value robots.txt groups are matched against: its
// leading [A-Za-z_-] run ("Googlebot/2.1 (+http://...)" -> "Googlebot"; ""
// when it starts otherwise). The worker compares its own with the
// frontier's. Thread-safe.
std::string_view RobotsProductToken(std::string_view user_agent);

// Parses a robots.txt body for the crawler named `product_token` (e.g.
// "crawlfront"; only its leading [A-Za-z_-] characters count, compared
// case-insensitively). Groups naming the token are merged; if none names it,
// the "*" groups apply; if there are none, nothing is disallowed. Never fails:
// garbage lines, a BOM, any line ending and non-UTF-8 bytes are tolerated;
// input past kRobotsMaxBytes is ignored. Thread-safe (no shared state).
RobotsRules ParseRobots(std::string_view body, std::string_view product_token);

// The rules to enforce after fetching /robots.txt (RFC 9309 section 2.3.1):
//   2xx          -> ParseRobots(body, product_token)
//   3xx          -> AllowAll() (the fetcher follows redirects; a 3xx here means
//                   it gave up after too many, which the RFC treats as 4xx)
//   429          -> DisallowAll() (rate limiting: the server asks us to back off)
//   other 4xx    -> AllowAll()
//   anything else (5xx, 0 = unreachable, invalid codes) -> DisallowAll()
RobotsRules ForFetchOutcome(int http_status, std::string_view body,
                            std::string_view product_token);

}  // namespace crawlfront
