#pragma once
// The URL space of one simweb host: which paths exist and what they are.
// Pure functions; thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawlfront/simweb/options.h"

namespace crawlfront::simweb {

inline constexpr std::string_view kDomainSuffix = ".simweb.test";
// Paths below this prefix form the crawler trap (an endless calendar).
inline constexpr std::string_view kTrapPathPrefix = "/cal/";

enum class Kind {
  kNotFound,  // 404
  kRobots,    // /robots.txt
  kPage,      // "/" (a = 0) or /p/<a>
  kRedirect,  // /r/<a> (b = 1, answers 301) or /r/<a>/2 (b = 2, answers 302)
  kError,     // /error, answers 500
  kSlow,      // /slow/<a>
  kBig,       // /big/<a>
  kPdf,       // /files/<a>.pdf
  kPng,       // /files/<a>.png
  kSearch,    // /s?q=<word a>&n=<b>, a leaf page
  kPrivate,   // /private/<a>, or /private/open/<a> when b = 1; leaf pages
  kHidden,    // /hidden/<HiddenKind b>/<a>: linked only where crawlers must not look
  kCalendar,  // /cal/<a>/<b> (year, month)
  // With options.sitemaps only:
  kSitemapIndex,  // /sitemap.xml
  kSitemap,       // /sitemap-pages.xml.gz (b = 0) or /sitemap-orphans.xml (b = 1)
  kOrphan,        // /orphan/<a>: a leaf page listed only in a sitemap
};

// Where the only links to a /hidden/ page live.
enum class HiddenKind { kComment, kScript, kNofollow, kMeta, kPdf, kHeader };
inline constexpr uint32_t kHiddenKinds = 6;
std::string_view HiddenKindName(HiddenKind kind);

struct Resource {
  Kind kind = Kind::kNotFound;
  uint32_t host = 0;
  uint64_t a = 0;
  uint64_t b = 0;
};

inline constexpr uint32_t kPrivatePages = 3;
inline constexpr uint32_t kOrphanPages = 3;
inline constexpr uint32_t kSearchMaxN = 100;
inline constexpr uint32_t kCalendarMaxYear = 9999;

// "h<index>.simweb.test".
std::string HostName(uint32_t index);
// The index of a simweb host name ("h3.simweb.test", any letter case, no
// port), or nullopt if the name is not one of the web's hosts.
std::optional<uint32_t> HostIndex(const SimWebOptions& options, std::string_view host);

// Maps a request target (path and optional query) on host `host` to the
// resource it names; kNotFound for anything not in the web. Strict: only the
// canonical spelling of each path exists (no leading zeros, no extra query).
// REQUIRES: host < options.hosts.
Resource Route(const SimWebOptions& options, uint32_t host, std::string_view target);

// The canonical path (and query) of a resource. Inverse of Route for every
// resource Route can return except kNotFound.
std::string PathOf(const Resource& resource);

// Word list used for text and search queries.
std::string_view WordAt(uint64_t index);
inline constexpr uint32_t kWordCount = 64;

// Feature placement shared by links, rendering and the oracle.
bool HasBigPage(const SimWebOptions& options, uint32_t host);
bool HasTrap(const SimWebOptions& options, uint32_t host);

}  // namespace crawlfront::simweb
