#pragma once
// Writes a link to a known target in one of the many spellings found on real
// pages (absolute, relative, root-relative, protocol-relative, odd case, :80,
// dot segments, fragments, character references). Internal to simweb.

#include <string>
#include <string_view>

#include "crawlfront/simweb/rng.h"

namespace crawlfront::simweb {

// A URL inside the simweb domain (the host may be outside the web).
struct Target {
  std::string host;  // lowercase host name, e.g. "h3.simweb.test"
  std::string path;  // canonical path and query, e.g. "/p/5"
  std::string Url() const { return "http://" + host + path; }
};

// The URL relative links are resolved against: the page itself or its <base>.
struct BaseUrl {
  std::string host;
  std::string dir;  // directory of the base path, ends with '/'
};

// Directory part of a path ("/p/5" -> "/p/", "/" -> "/").
std::string DirOf(std::string_view path);

// An attribute value (HTML-escaped, may carry a fragment) that resolves
// against `base` to target.Url(). Draws its choices from `rng`.
std::string WriteHref(const Target& target, const BaseUrl& base, Rng& rng);

// `text` with '&' written as "&amp;".
std::string EscapeAmpersands(std::string_view text);

}  // namespace crawlfront::simweb
