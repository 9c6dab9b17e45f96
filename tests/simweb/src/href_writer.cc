#include "href_writer.h"

#include <algorithm>

namespace crawlfront::simweb {
namespace {

std::string Upper(std::string text) {
  for (char& c : text) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
  return text;
}

// A relative reference from directory `dir` to `path` (same host).
std::string Relative(const std::string& dir, const std::string& path, Rng& rng) {
  if (path.compare(0, dir.size(), dir) == 0) {
    std::string rest = path.substr(dir.size());
    if (rest.empty()) return "./";
    return rng.Percent(50) ? rest : "./" + rest;
  }
  // Climb to the root, then descend: "../" once per directory level.
  size_t levels = static_cast<size_t>(std::count(dir.begin(), dir.end(), '/')) - 1;
  std::string out;
  for (size_t i = 0; i < levels; ++i) out += "../";
  return out + path.substr(1);
}

// Absolute spellings that canonicalize back to target.Url().
std::string OddAbsolute(const Target& target, Rng& rng) {
  switch (rng.Below(3)) {
    case 0:
      return "HTTP://" + Upper(target.host) + target.path;
    case 1:
      return "http://" + target.host + ":80" + target.path;
    default:
      if (target.path == "/") return "http://" + target.host;  // empty path
      return "http://" + target.host + "/x/.." + target.path;
  }
}

// Replaces the last '/' of the path (not the first character, not in the
// query) with the numeric character reference "&#47;".
std::string WithNumericReference(std::string written) {
  size_t end = written.find('?');
  size_t slash = written.rfind('/', end == std::string::npos ? end : end - 1);
  if (slash == std::string::npos || slash == 0) return written;
  return written.replace(slash, 1, "&#47;");
}

}  // namespace

std::string DirOf(std::string_view path) {
  path = path.substr(0, path.find('?'));
  return std::string(path.substr(0, path.rfind('/') + 1));
}

std::string EscapeAmpersands(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string WriteHref(const Target& target, const BaseUrl& base, Rng& rng) {
  bool same_host = target.host == base.host;
  uint64_t form = rng.Below(100);
  std::string written;
  if (same_host && form < 25) {
    written = EscapeAmpersands(target.path);
    if (rng.Percent(15)) written = WithNumericReference(written);
  } else if (same_host && form < 50) {
    written = EscapeAmpersands(Relative(base.dir, target.path, rng));
  } else if (form < 60) {
    written = EscapeAmpersands("//" + target.host + target.path);
  } else if (form < 70) {
    written = EscapeAmpersands(OddAbsolute(target, rng));
  } else {
    written = EscapeAmpersands(target.Url());
  }
  if (rng.Percent(10)) {
    written += rng.Percent(50) ? "#top" : "#s" + std::to_string(rng.Below(9));
  }
  return written;
}

}  // namespace crawlfront::simweb
