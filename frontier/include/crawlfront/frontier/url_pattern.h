#pragma once
// Operators' URL patterns (crawl.deny_regexes, FRONTIER.DENY, FRONTIER.DROP
// MATCH) in RE2's syntax. RE2 matches in time linear in the URL whatever the
// pattern, without recursion: std::regex backtracked, so `(a+)+$` took
// 0.8 s on a URL of 24 'a's and a '!', doubling per 'a', on the io thread,
// and `(a|b)*c` against a 20,000-byte URL overflowed the stack
// (docs/scheduling.md).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace crawlfront {

// Patterns have 1 to this many bytes.
inline constexpr size_t kMaxUrlPatternBytes = 4096;

// One pattern, immutable and safe to share between threads.
class UrlPattern {
 public:
  // InvalidArgument "bad pattern: <RE2's reason>" (or the size rule).
  static Result<UrlPattern> Compile(std::string_view pattern);

  // True if the pattern matches anywhere in `url` (a search, like Perl's).
  bool Search(std::string_view url) const;
  const std::string& text() const;

 private:
  std::shared_ptr<const re2::RE2> re_;
};

// Any of several patterns, tested in one pass over the URL (an RE2::Set).
// Immutable once built and safe to share between threads.
class UrlPatternSet {
 public:
  UrlPatternSet();
  ~UrlPatternSet();
  UrlPatternSet(UrlPatternSet&&) noexcept;
  UrlPatternSet& operator=(UrlPatternSet&&) noexcept;

  // InvalidArgument naming the first pattern that does not compile.
  static Result<UrlPatternSet> Compile(const std::vector<std::string>& patterns);
  // From patterns compiled one by one (they are compiled again into the
  // set). Patterns too large to share `set_memory` bytes are tried in turn.
  static constexpr int64_t kSetMemory = int64_t{64} << 20;
  static UrlPatternSet Of(std::vector<UrlPattern> patterns, int64_t set_memory = kSetMemory);

  bool AnyMatches(std::string_view url) const;
  bool empty() const { return each_.empty(); }
  size_t size() const { return each_.size(); }
  bool combined() const { return combined_ != nullptr; }  // one pass, not one per pattern
  const std::vector<UrlPattern>& patterns() const { return each_; }  // in the order given

 private:
  struct Combined;
  std::unique_ptr<Combined> combined_;  // null: too large as one set
  std::vector<UrlPattern> each_;        // the fallback, and the texts
};

}  // namespace crawlfront
