#pragma once
// The protocol's rule for a recrawl's validators (ETag, Last-Modified): the
// frontier keeps only such values (FRONTIER.DONE) and a worker sends them
// back as request headers as they are, so one predicate serves both.

#include <cstddef>
#include <string_view>

namespace crawlfront {

inline constexpr size_t kMaxValidatorBytes = 256;

// At most kMaxValidatorBytes printable ASCII bytes: no CR, LF or other
// control byte that could end a header line.
inline bool IsSafeHeaderValue(std::string_view v) {
  if (v.size() > kMaxValidatorBytes) return false;
  for (char c : v) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace crawlfront
