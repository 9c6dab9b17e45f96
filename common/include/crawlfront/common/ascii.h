#pragma once
// ASCII case helpers for protocol keywords and header names: independent of
// the locale, and bytes outside A-Z / a-z compare as they are.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace crawlfront {

inline char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
inline char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

// Copies of s with A-Z lowered / a-z raised.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}
inline std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

// Whether a and b are equal ignoring ASCII case.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// A set of bytes to scan for. libstdc++'s string_view::find_first_of calls
// memchr over the set once per byte scanned: on the add path's URL splits
// that was a tenth of the io thread (docs/benchmarks.md, session 34).
class ByteSet {
 public:
  constexpr explicit ByteSet(std::string_view bytes) {
    for (char c : bytes) {
      const auto u = static_cast<unsigned char>(c);
      bits_[u >> 6] |= uint64_t{1} << (u & 63);
    }
  }
  constexpr bool Has(char c) const {
    const auto u = static_cast<unsigned char>(c);
    return (bits_[u >> 6] >> (u & 63)) & 1;
  }

 private:
  uint64_t bits_[4] = {};
};

// The first position at or after `pos` of a byte in `set`, or npos.
inline size_t FindFirstOf(std::string_view s, const ByteSet& set, size_t pos = 0) {
  for (size_t i = pos; i < s.size(); ++i) {
    if (set.Has(s[i])) return i;
  }
  return std::string_view::npos;
}

}  // namespace crawlfront
