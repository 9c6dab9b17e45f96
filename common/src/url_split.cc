// Splits the common, simple URL shapes without Boost.URL (see url_internal.h).
// Anything unusual returns false and takes the full parser; url_test checks
// that both agree.

#include <algorithm>

#include "crawlfront/common/ascii.h"
#include "url_internal.h"

namespace crawlfront::url_internal {
namespace {

constexpr ByteSet kBrackets("[]");
constexpr ByteSet kPathOrQuery("/?");

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Path and query of a prepared input: every byte is valid there except the
// IP-literal brackets (and ':' in a relative ref's first segment, which the
// caller excludes).
bool SplitPathAndQuery(std::string_view rest, SimpleParts* out) {
  if (FindFirstOf(rest, kBrackets) != std::string_view::npos) return false;
  const size_t q = rest.find('?');
  out->path = rest.substr(0, q);
  out->has_query = q != std::string_view::npos;
  out->query = out->has_query ? rest.substr(q + 1) : std::string_view();
  return true;
}

// True if `host` starts with n non-empty all-digit labels, each followed by
// a dot.
bool StartsWithNumericLabels(std::string_view host, int n) {
  size_t pos = 0;
  for (int i = 0; i < n; ++i) {
    const size_t dot = host.find('.', pos);
    if (dot == std::string_view::npos || dot == pos) return false;
    for (size_t j = pos; j < dot; ++j) {
      if (!IsDigit(host[j])) return false;
    }
    pos = dot + 1;
  }
  return true;
}

// A plain host name: letters, digits, '-' and '.', with at least one letter
// so that it is never an IPv4 address, and not starting with three numeric
// labels: the full parser may read "1.2.3.4x" as an IPv4 address plus junk.
bool PlainHostName(std::string_view host) {
  bool letter = false;
  for (char c : host) {
    if (IsAlpha(c)) {
      letter = true;
    } else if (!IsDigit(c) && c != '-' && c != '.') {
      return false;
    }
  }
  return letter && !StartsWithNumericLabels(host, 3);
}

}  // namespace

namespace {

// The authority from `start` on, then the path and query.
bool SplitFrom(std::string_view in, size_t start, SimpleParts* out) {
  const size_t end = std::min(FindFirstOf(in, kPathOrQuery, start), in.size());
  const std::string_view authority = in.substr(start, end - start);
  const size_t colon = authority.find(':');
  out->host = authority.substr(0, colon);
  out->port =
      colon == std::string_view::npos ? std::string_view() : authority.substr(colon + 1);
  if (!PlainHostName(out->host)) return false;
  if (colon != std::string_view::npos) {
    if (out->port.empty()) return false;
    for (char c : out->port) {
      if (!IsDigit(c)) return false;
    }
  }
  return SplitPathAndQuery(in.substr(end), out);
}

}  // namespace

bool SplitSimpleAbsolute(std::string_view in, SimpleParts* out) {
  if (in.starts_with("http://")) {
    out->https = false;
    return SplitFrom(in, 7, out);
  }
  if (in.starts_with("https://")) {
    out->https = true;
    return SplitFrom(in, 8, out);
  }
  return false;
}

bool SplitSimpleNetworkPath(std::string_view in, bool https, SimpleParts* out) {
  if (!in.starts_with("//")) return false;
  out->https = https;
  return SplitFrom(in, 2, out);
}

bool SplitSimpleRelative(std::string_view in, SimpleParts* out) {
  if (in.starts_with("//") || in.find(':') != std::string_view::npos) return false;
  return SplitPathAndQuery(in, out);
}

}  // namespace crawlfront::url_internal
