#include "crawlfront/simweb/resource.h"

#include <array>
#include <charconv>

namespace crawlfront::simweb {
namespace {

constexpr std::array<std::string_view, kWordCount> kWords = {
    "alpha",  "bravo",   "charlie", "delta",  "echo",    "foxtrot", "golf",
    "hotel",  "india",   "juliet",  "kilo",   "lima",    "mike",    "november",
    "oscar",  "papa",    "quebec",  "romeo",  "sierra",  "tango",   "uniform",
    "victor", "whiskey", "xray",    "yankee", "zulu",    "amber",   "basalt",
    "cobalt", "dune",    "ember",   "fjord",  "granite", "harbor",  "island",
    "jasper", "kelp",    "lagoon",  "meadow", "nectar",  "orchid",  "prairie",
    "quartz", "river",   "summit",  "tundra", "upland",  "valley",  "willow",
    "yarrow", "zephyr",  "anchor",  "beacon", "canyon",  "drift",   "estuary",
    "forest", "glacier", "heath",   "inlet",  "jungle",  "knoll",   "ledge",
    "mesa"};

constexpr std::array<std::string_view, kHiddenKinds> kHiddenNames = {
    "comment", "script", "nofollow", "meta", "pdf", "header"};

// A decimal number in canonical spelling (no sign, no leading zero), at most
// 9 digits; nullopt otherwise.
std::optional<uint64_t> ParseNumber(std::string_view text) {
  if (text.empty() || text.size() > 9 || (text.size() > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool ConsumePrefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// Splits "a/b" at the first '/' into head and tail ("" tail if none).
std::pair<std::string_view, std::string_view> SplitSlash(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return {text, {}};
  return {text.substr(0, slash), text.substr(slash + 1)};
}

Resource Make(Kind kind, uint32_t host, uint64_t a = 0, uint64_t b = 0) {
  return Resource{kind, host, a, b};
}

Resource RouteSearch(uint32_t host, std::string_view query) {
  if (!ConsumePrefix(query, "q=")) return Make(Kind::kNotFound, host);
  size_t amp = query.find("&n=");
  if (amp == std::string_view::npos) return Make(Kind::kNotFound, host);
  std::string_view word = query.substr(0, amp);
  auto n = ParseNumber(query.substr(amp + 3));
  for (uint64_t i = 0; i < kWordCount; ++i) {
    if (kWords[i] == word && n && *n < kSearchMaxN) {
      return Make(Kind::kSearch, host, i, *n);
    }
  }
  return Make(Kind::kNotFound, host);
}

Resource RoutePath(const SimWebOptions& o, uint32_t host, std::string_view path) {
  if (path == "/") return Make(Kind::kPage, host, 0);
  if (path == "/robots.txt") return Make(Kind::kRobots, host);
  if (path == "/error") return Make(Kind::kError, host);
  if (o.sitemaps) {
    if (path == "/sitemap.xml") return Make(Kind::kSitemapIndex, host);
    if (path == "/sitemap-pages.xml.gz") return Make(Kind::kSitemap, host, 0, 0);
    if (path == "/sitemap-orphans.xml") return Make(Kind::kSitemap, host, 0, 1);
  }
  auto [head, rest] = SplitSlash(path.substr(1));
  auto [first, second] = SplitSlash(rest);
  auto n = ParseNumber(first);
  bool one = rest.find('/') == std::string_view::npos;
  if (head == "p" && one && n && *n > 0 && *n < o.pages)
    return Make(Kind::kPage, host, *n);
  if (head == "r" && n && *n < o.redirects_per_host) {
    if (one) return Make(Kind::kRedirect, host, *n, 1);
    if (second == "2") return Make(Kind::kRedirect, host, *n, 2);
  }
  if (head == "slow" && one && n && *n < o.slow_pages_per_host) {
    return Make(Kind::kSlow, host, *n);
  }
  if (head == "big" && one && n && *n == 0 && HasBigPage(o, host)) {
    return Make(Kind::kBig, host, 0);
  }
  if (head == "orphan" && one && n && *n < kOrphanPages && o.sitemaps) {
    return Make(Kind::kOrphan, host, *n);
  }
  if (head == "private" && one && n && *n < kPrivatePages) {
    return Make(Kind::kPrivate, host, *n, 0);
  }
  auto m = ParseNumber(second);
  if (head == "private" && first == "open" && m && *m < kPrivatePages) {
    return Make(Kind::kPrivate, host, *m, 1);
  }
  if (head == "files" && one) {
    size_t dot = first.find('.');
    auto k = ParseNumber(first.substr(0, dot));
    if (dot != std::string_view::npos && k && *k < o.files_per_host) {
      std::string_view ext = first.substr(dot);
      if (ext == ".pdf") return Make(Kind::kPdf, host, *k);
      if (ext == ".png") return Make(Kind::kPng, host, *k);
    }
  }
  if (head == "hidden" && m && *m < o.pages &&
      second.find('/') == std::string_view::npos) {
    for (uint64_t i = 0; i < kHiddenKinds; ++i) {
      if (kHiddenNames[i] == first) return Make(Kind::kHidden, host, *m, i);
    }
  }
  if (head == "cal" && HasTrap(o, host) && n && m && *n >= 1 && *n <= kCalendarMaxYear &&
      *m >= 1 && *m <= 12) {
    return Make(Kind::kCalendar, host, *n, *m);
  }
  return Make(Kind::kNotFound, host);
}

}  // namespace

std::string_view HiddenKindName(HiddenKind kind) {
  return kHiddenNames[static_cast<size_t>(kind)];
}

std::string HostName(uint32_t index) {
  return "h" + std::to_string(index) + std::string(kDomainSuffix);
}

std::optional<uint32_t> HostIndex(const SimWebOptions& options, std::string_view host) {
  if (host.size() <= kDomainSuffix.size() + 1) return std::nullopt;
  std::string lower(host);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  std::string_view view(lower);
  if (view[0] != 'h' ||
      view.substr(view.size() - kDomainSuffix.size()) != kDomainSuffix) {
    return std::nullopt;
  }
  auto n = ParseNumber(view.substr(1, view.size() - 1 - kDomainSuffix.size()));
  if (!n || *n >= options.hosts) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

Resource Route(const SimWebOptions& options, uint32_t host, std::string_view target) {
  size_t question = target.find('?');
  std::string_view path = target.substr(0, question);
  if (path.empty() || path[0] != '/') return Make(Kind::kNotFound, host);
  if (question != std::string_view::npos) {
    if (path != "/s") return Make(Kind::kNotFound, host);
    return RouteSearch(host, target.substr(question + 1));
  }
  return RoutePath(options, host, path);
}

std::string PathOf(const Resource& r) {
  std::string a = std::to_string(r.a);
  switch (r.kind) {
    case Kind::kNotFound:
      return "/not-found";
    case Kind::kRobots:
      return "/robots.txt";
    case Kind::kPage:
      return r.a == 0 ? "/" : "/p/" + a;
    case Kind::kRedirect:
      return "/r/" + a + (r.b == 2 ? "/2" : "");
    case Kind::kError:
      return "/error";
    case Kind::kSlow:
      return "/slow/" + a;
    case Kind::kBig:
      return "/big/" + a;
    case Kind::kPdf:
      return "/files/" + a + ".pdf";
    case Kind::kPng:
      return "/files/" + a + ".png";
    case Kind::kSearch:
      return "/s?q=" + std::string(WordAt(r.a)) + "&n=" + std::to_string(r.b);
    case Kind::kPrivate:
      return (r.b == 1 ? "/private/open/" : "/private/") + a;
    case Kind::kHidden:
      return "/hidden/" + std::string(kHiddenNames[r.b % kHiddenKinds]) + "/" + a;
    case Kind::kCalendar:
      return "/cal/" + a + "/" + std::to_string(r.b);
    case Kind::kSitemapIndex:
      return "/sitemap.xml";
    case Kind::kSitemap:
      return r.b == 0 ? "/sitemap-pages.xml.gz" : "/sitemap-orphans.xml";
    case Kind::kOrphan:
      return "/orphan/" + a;
  }
  return "/not-found";
}

std::string_view WordAt(uint64_t index) { return kWords[index % kWordCount]; }

bool HasBigPage(const SimWebOptions& options, uint32_t host) {
  return options.large_page_every != 0 && host % options.large_page_every == 1;
}

bool HasTrap(const SimWebOptions& options, uint32_t host) {
  return options.trap_every != 0 && host % options.trap_every == 0;
}

}  // namespace crawlfront::simweb
