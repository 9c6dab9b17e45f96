// The robots.txt pattern matcher crawlfront used before RobotsPatternMatches:
// greedy, backtracking to the last '*'. Plainly right but O(|path| *
// |pattern|) on some patterns. The model for robots_test and the baseline
// of robots_bench; not used by the daemons.
#pragma once

#include <string_view>

namespace crawlfront {

inline bool BacktrackingMatch(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  constexpr size_t kNone = std::string_view::npos;
  size_t p = 0, s = 0, star_p = kNone, star_s = 0;
  while (true) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = ++p;
      star_s = s;
      continue;
    }
    if (p == pattern.size()) {
      if (!anchored || s == path.size()) return true;
    } else if (s < path.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
      continue;
    }
    if (star_p == kNone || star_s >= path.size()) return false;  // let the '*' take one more
    p = star_p;
    s = ++star_s;
  }
}

}  // namespace crawlfront
