#include <algorithm>
#include <unordered_map>
#include <vector>

#include "crawlfront/common/ascii.h"
#include "crawlfront/frontier/crawl_scope.h"

namespace crawlfront {
namespace {

constexpr ByteSet kAuthorityEnd("/?#");

// Lower case; a run of leading dots becomes one (".x.com" = under x.com only).
std::string NormalizeSuffix(std::string_view s) {
  bool dot = !s.empty() && s.front() == '.';
  while (!s.empty() && s.front() == '.') s.remove_prefix(1);
  return AsciiLower(dot && !s.empty() ? "." + std::string(s) : std::string(s));
}

// Path segments of "/a/b/c" -> a, b, c (empty segments are skipped), into
// *segs (cleared first; reused so that the check allocates nothing).
void PathSegments(std::string_view path, std::vector<std::string_view>* segs) {
  segs->clear();
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) segs->push_back(path.substr(i, j - i));
    i = j + 1;
  }
}

// Whether a segment of `segs` occurs more than `max` times. Short paths (all
// real ones) are counted pairwise, which allocates nothing; long ones (up to
// max_path_depth, configurable to 10^4) through a hash map.
bool HasRepeats(const std::vector<std::string_view>& segs, uint32_t max) {
  if (segs.size() <= 64) {
    for (size_t i = 0; i < segs.size(); ++i) {
      uint32_t count = 1;
      for (size_t j = 0; j < i; ++j) count += segs[j] == segs[i];
      if (count > max) return true;
    }
    return false;
  }
  std::unordered_map<std::string_view, uint32_t> counts;
  for (std::string_view s : segs) {
    if (++counts[s] > max) return true;
  }
  return false;
}

// Runs on every added URL.
std::optional<std::string> CheckTraps(std::string_view spec, const CrawlOptions& o) {
  if (spec.size() > o.max_url_length) return "url too long";
  std::string_view pq = PathAndQuery(spec);
  size_t q = pq.find('?');
  std::string_view path = pq.substr(0, q);
  thread_local std::vector<std::string_view> segs;
  PathSegments(path, &segs);
  if (segs.size() > o.max_path_depth) return "path too deep";
  if (HasRepeats(segs, o.max_repeated_path_segments)) return "repeated path segment";
  if (q != std::string_view::npos) {
    std::string_view query = pq.substr(q + 1);
    size_t params = query.empty() ? 0 : 1 + std::count(query.begin(), query.end(), '&');
    if (params > o.max_query_params) return "too many query parameters";
  }
  return std::nullopt;
}

}  // namespace

bool HostUnderSuffix(std::string_view host, std::string_view suffix) {
  if (suffix.empty()) return false;
  if (suffix.front() == '.') return host.size() > suffix.size() && host.ends_with(suffix);
  if (host == suffix) return true;
  return host.size() > suffix.size() && host.ends_with(suffix) &&
         host[host.size() - suffix.size() - 1] == '.';
}

std::string_view PathAndQuery(std::string_view url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t slash = FindFirstOf(url, kAuthorityEnd, start);
  if (slash == std::string_view::npos) return "/";
  std::string_view rest = url.substr(slash);
  size_t hash = rest.find('#');
  if (hash != std::string_view::npos) rest = rest.substr(0, hash);
  if (rest.empty() || rest.front() != '/') return rest.empty() ? "/" : rest;
  return rest;
}

Result<ScopeRules> ScopeRules::Compile(const CrawlOptions& options) {
  ScopeRules r;
  r.limits_.max_depth = options.max_depth;
  r.limits_.max_url_length = options.max_url_length;
  r.limits_.max_repeated_path_segments = options.max_repeated_path_segments;
  r.limits_.max_query_params = options.max_query_params;
  r.limits_.max_path_depth = options.max_path_depth;
  for (const auto& s : options.allow_host_suffixes) r.allow_.push_back(NormalizeSuffix(s));
  for (const auto& s : options.deny_host_suffixes) r.deny_.push_back(NormalizeSuffix(s));
  auto deny = UrlPatternSet::Compile(options.deny_regexes);
  if (!deny.ok()) return Status::InvalidArgument("deny_regexes: " + deny.status().message());
  r.deny_regexes_ = std::make_shared<const UrlPatternSet>(std::move(deny).value());
  return r;
}

std::optional<std::string> ScopeRules::Check(const CanonicalUrl& url, uint32_t depth) const {
  if (depth > limits_.max_depth) return "max depth exceeded";
  if (auto trap = CheckTraps(url.spec, limits_)) return trap;
  auto under = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& s) { return HostUnderSuffix(url.host, s); });
  };
  if (!allow_.empty() && !under(allow_)) return "host not in scope";
  if (under(deny_)) return "host denied";
  if (deny_regexes_ && deny_regexes_->AnyMatches(url.spec)) return "denied by pattern";
  return std::nullopt;
}

}  // namespace crawlfront
