#pragma once
// Sitemaps (sitemaps.org): the <loc> URLs of a <urlset> or <sitemapindex>,
// plain or gzip-compressed, as links to queue. robots.txt's Sitemap lines
// bring these files to the crawl (docs/worker.md, "Sitemaps").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crawlfront {

struct SitemapOptions {
  // URLs kept per file; sitemaps.org allows 50,000. Default: 50000.
  size_t max_links = 50000;
  // Bytes of XML read after gunzip; sitemaps.org allows 50 MiB. A gzip body
  // that inflates beyond it is cut there (a bomb costs at most this much).
  // Default: 50 MiB.
  size_t max_bytes = size_t{50} << 20;
};

struct SitemapLinks {
  bool is_sitemap = false;  // the root element is <urlset> or <sitemapindex>
  bool index = false;       // <sitemapindex>: the links are more sitemaps
  // <loc> values of <url> (or <sitemap>) entries, resolved against the
  // sitemap's URL, canonical, http(s) only, deduplicated, in file order.
  std::vector<std::string> links;
  // Each link's <lastmod> in Unix seconds, 0 when absent, unreadable or
  // before 1970 (same size as links).
  std::vector<int64_t> lastmod_s;
  size_t rejected = 0;     // <loc> values that are not usable URLs
  bool truncated = false;  // stopped at max_links or max_bytes
  // Why parsing stopped early (bad XML, bad gzip); the links before it are
  // kept, as other crawlers keep them.
  std::string error;
};

// A W3C datetime as sitemaps use it (YYYY, YYYY-MM, YYYY-MM-DD, or with
// Thh:mm, Thh:mm:ss or Thh:mm:ss.s and a zone Z or +hh:mm / -hh:mm, UTC if
// none), in Unix seconds; nullopt for anything else. A date alone is its
// midnight UTC.
std::optional<int64_t> ParseW3cDatetime(std::string_view text);

// Parses `body` (XML, or gzip of XML: detected by its magic bytes) fetched
// from `sitemap_url`. Anything else (HTML, RSS, binary) gives is_sitemap =
// false at the cost of a look at its first element. Never throws; bounded
// by opts. Thread-safe (no shared state).
SitemapLinks ParseSitemap(std::string_view body, std::string_view sitemap_url,
                          const SitemapOptions& opts = {});

}  // namespace crawlfront
