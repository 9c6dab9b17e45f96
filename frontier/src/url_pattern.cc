#include "crawlfront/frontier/url_pattern.h"

#include <algorithm>

#include <re2/re2.h>
#include <re2/set.h>
#include <spdlog/spdlog.h>

namespace crawlfront {
namespace {

// RE2's default budget per pattern; a set of many patterns gets more
// (kSetMemory) for its program and its DFA, built lazily as URLs are matched.
constexpr int64_t kPatternMemory = int64_t{8} << 20;

RE2::Options PatternOptions(int64_t max_mem) {
  RE2::Options o;
  o.set_log_errors(false);  // errors are returned to whoever gave the pattern
  o.set_max_mem(max_mem);
  return o;
}

}  // namespace

Result<UrlPattern> UrlPattern::Compile(std::string_view pattern) {
  if (pattern.empty() || pattern.size() > kMaxUrlPatternBytes) {
    return Status::InvalidArgument("a pattern has 1 to 4096 bytes");
  }
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()),
                                        PatternOptions(kPatternMemory));
  if (!re->ok()) return Status::InvalidArgument("bad pattern: " + re->error());
  UrlPattern p;
  p.re_ = std::move(re);
  return p;
}

bool UrlPattern::Search(std::string_view url) const {
  return RE2::PartialMatch(re2::StringPiece(url.data(), url.size()), *re_);
}

const std::string& UrlPattern::text() const { return re_->pattern(); }

struct UrlPatternSet::Combined {
  explicit Combined(int64_t memory) : set(PatternOptions(memory), RE2::UNANCHORED) {}
  RE2::Set set;
};

UrlPatternSet::UrlPatternSet() = default;
UrlPatternSet::~UrlPatternSet() = default;
UrlPatternSet::UrlPatternSet(UrlPatternSet&&) noexcept = default;
UrlPatternSet& UrlPatternSet::operator=(UrlPatternSet&&) noexcept = default;

Result<UrlPatternSet> UrlPatternSet::Compile(const std::vector<std::string>& patterns) {
  std::vector<UrlPattern> each;
  for (const std::string& p : patterns) {
    auto one = UrlPattern::Compile(p);
    if (!one.ok()) return Status::InvalidArgument("\"" + p + "\": " + one.status().message());
    each.push_back(std::move(one).value());
  }
  return Of(std::move(each));
}

UrlPatternSet UrlPatternSet::Of(std::vector<UrlPattern> patterns, int64_t set_memory) {
  UrlPatternSet s;
  s.each_ = std::move(patterns);
  if (s.each_.size() < 2) return s;  // one pattern is its own fastest set
  auto combined = std::make_unique<Combined>(set_memory);
  for (const UrlPattern& p : s.each_) {
    if (combined->set.Add(p.text(), nullptr) < 0) return s;  // compiled once, so not expected
  }
  if (!combined->set.Compile()) {
    spdlog::warn("url patterns: {} patterns exceed {} KiB as one set; each is tried in turn",
                 s.each_.size(), set_memory >> 10);
    return s;
  }
  s.combined_ = std::move(combined);
  return s;
}

bool UrlPatternSet::AnyMatches(std::string_view url) const {
  const re2::StringPiece text(url.data(), url.size());
  if (combined_) {
    RE2::Set::ErrorInfo error;
    if (combined_->set.Match(text, nullptr, &error)) return true;
    // Without an error, no pattern matched. The set's DFA can run out of
    // memory on some URLs; then each pattern (RE2 falls back to its NFA).
    if (error.kind == RE2::Set::kNoError) return false;
  }
  return std::any_of(each_.begin(), each_.end(),
                     [&](const UrlPattern& p) { return p.Search(url); });
}

}  // namespace crawlfront
