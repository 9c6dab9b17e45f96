#pragma once
// Scope and crawler-trap rules applied to every URL before it is queued.
// Pure: compiled once from CrawlOptions, then const and thread-safe.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/common/url.h"
#include "crawlfront/frontier/crawl_options.h"
#include "crawlfront/frontier/url_pattern.h"

namespace crawlfront {

class ScopeRules {
 public:
  // Compiles the deny regexes (RE2's syntax, url_pattern.h); InvalidArgument
  // names a pattern that does not compile. Host suffixes are lower-cased, a leading '.' is ignored.
  static Result<ScopeRules> Compile(const CrawlOptions& options);

  // The reason `url` at `depth` must not be queued, or nullopt if it may.
  // Reasons: "max depth exceeded", "url too long", "path too deep",
  // "repeated path segment", "too many query parameters",
  // "host not in scope", "host denied", "denied by pattern".
  std::optional<std::string> Check(const CanonicalUrl& url, uint32_t depth) const;

 private:
  CrawlOptions limits_;  // only the scalar limits are read
  std::vector<std::string> allow_, deny_;
  std::shared_ptr<const UrlPatternSet> deny_regexes_;  // shared: ScopeRules is copied
};

// True if `host` equals `suffix` or ends with "." + suffix; a suffix that
// starts with '.' matches only hosts strictly under it.
bool HostUnderSuffix(std::string_view host, std::string_view suffix);

// The "/path?query" part of an absolute URL ("/" if it has no path), without
// a fragment.
std::string_view PathAndQuery(std::string_view url);

}  // namespace crawlfront
