// Path and query canonicalization (see url_internal.h).

#include <algorithm>
#include <string>
#include <vector>

#include "crawlfront/common/ascii.h"
#include "url_internal.h"

namespace crawlfront::url_internal {
namespace {

constexpr ByteSet kParamEnd(";/");

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

char ToUpperAscii(char c) { return (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c; }

bool IsUnreserved(char c) {  // RFC 3986 2.3
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

std::string_view ParamName(std::string_view param) {
  return param.substr(0, param.find('='));
}

// Drops ";name=value" parameters whose name matches, in every segment
// ("/a;jsessionid=1/b;x" -> "/a/b;x").
std::string StripPathParams(std::string_view path, const UrlOptions& opts) {
  std::string out;
  out.reserve(path.size());
  size_t pos = 0;
  while (pos < path.size()) {
    const size_t semi = path.find(';', pos);
    const size_t slash = path.find('/', pos);
    if (semi == std::string_view::npos || semi > slash) {  // no param before '/'
      const size_t end = std::min(slash, path.size());
      out.append(path.substr(pos, end + 1 - pos));  // includes the '/' if any
      pos = end + 1;
      continue;
    }
    out.append(path.substr(pos, semi - pos));
    const size_t end = std::min(FindFirstOf(path, kParamEnd, semi + 1), path.size());
    const std::string_view param = path.substr(semi + 1, end - semi - 1);
    if (!MatchesStripPattern(ParamName(param), opts.strip_params)) {
      out.push_back(';');
      out.append(param);
    }
    pos = end;
  }
  return out;
}

// RFC 3986 5.2.4 for a path that starts with '/' (or is empty), written as a
// walk over segments: "." is skipped, ".." drops the last output segment
// (never above the root), and a final "." or ".." leaves a trailing '/'.
void AppendWithoutDotSegments(std::string_view path, std::string* out) {
  const size_t root = out->size();
  size_t pos = (!path.empty() && path[0] == '/') ? 1 : 0;
  while (true) {
    const size_t slash = path.find('/', pos);
    const bool last = slash == std::string_view::npos;
    const std::string_view seg =
        path.substr(pos, last ? std::string_view::npos : slash - pos);
    if (seg == "..") {
      const size_t cut = out->rfind('/');
      if (cut != std::string::npos && cut >= root) out->resize(cut);
    }
    if (seg == "." || seg == "..") {
      if (last) out->push_back('/');
    } else {
      out->push_back('/');
      out->append(seg);
    }
    if (last) return;
    pos = slash + 1;
  }
}

// True if some query parameter would be stripped.
bool HasStrippedParam(std::string_view query, const UrlOptions& opts) {
  for (size_t pos = 0; pos <= query.size();) {
    const size_t amp = std::min(query.find('&', pos), query.size());
    if (MatchesStripPattern(ParamName(query.substr(pos, amp - pos)), opts.strip_params)) {
      return true;
    }
    pos = amp + 1;
  }
  return false;
}

}  // namespace

void AppendPercentNormalized(std::string_view in, std::string* out) {
  const size_t first = in.find('%');
  out->append(in.substr(0, first));  // most paths have no escapes at all
  if (first == std::string_view::npos) return;
  for (size_t i = first; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    const char decoded =
        static_cast<char>(HexValue(in[i + 1]) * 16 + HexValue(in[i + 2]));
    if (IsUnreserved(decoded)) {
      out->push_back(decoded);
    } else {
      out->push_back('%');
      out->push_back(ToUpperAscii(in[i + 1]));
      out->push_back(ToUpperAscii(in[i + 2]));
    }
    i += 2;
  }
}

bool MatchesStripPattern(std::string_view name,
                         const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    if (!p.empty() && p.back() == '*') {
      const std::string_view prefix(p.data(), p.size() - 1);
      if (name.size() >= prefix.size() &&
          EqualsIgnoreCase(name.substr(0, prefix.size()), prefix)) {
        return true;
      }
    } else if (EqualsIgnoreCase(name, p)) {
      return true;
    }
  }
  return false;
}

void AppendCanonicalPath(std::string_view encoded_path, const UrlOptions& opts,
                         std::string* out) {
  std::string path;
  path.reserve(encoded_path.size());
  AppendPercentNormalized(encoded_path, &path);
  // Params go before dot segments: stripping one could leave a "..".
  if (path.find(';') != std::string::npos && !opts.strip_params.empty()) {
    path = StripPathParams(path, opts);
  }
  AppendWithoutDotSegments(path, out);
}

void AppendCanonicalQuery(std::string_view encoded_query, const UrlOptions& opts,
                          std::string* out) {
  std::string query;
  query.reserve(encoded_query.size());
  AppendPercentNormalized(encoded_query, &query);
  if (!opts.sort_query && !HasStrippedParam(query, opts)) {
    if (!query.empty()) out->append("?").append(query);
    return;
  }
  std::vector<std::string_view> kept;
  for (size_t pos = 0; pos <= query.size();) {
    const size_t amp = std::min(query.find('&', pos), query.size());
    const std::string_view param(query.data() + pos, amp - pos);
    if (!MatchesStripPattern(ParamName(param), opts.strip_params)) kept.push_back(param);
    pos = amp + 1;
  }
  if (opts.sort_query) {
    // Stable: repeated names ("a=2&a=1") keep their order, which can matter.
    std::stable_sort(kept.begin(), kept.end(),
                     [](std::string_view a, std::string_view b) {
                       return ParamName(a) < ParamName(b);
                     });
  }
  std::string joined;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) joined.push_back('&');
    joined.append(kept[i]);
  }
  if (!joined.empty()) out->append("?").append(joined);
}

}  // namespace crawlfront::url_internal
