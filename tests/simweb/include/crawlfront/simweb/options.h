#pragma once
// Options of the synthetic web. Same options => byte-identical web.

#include <cstdint>

#include "crawlfront/common/status.h"

namespace crawlfront::simweb {

struct SimWebOptions {
  // Number of virtual hosts h0.simweb.test .. h<hosts-1>.simweb.test. More
  // hosts exercise politeness and per-host queues. Default: 10.
  uint32_t hosts = 10;
  // Pages per host ("/" and /p/1 .. /p/<pages-1>). Default: 50.
  uint32_t pages = 50;
  // Seed of the link graph; a different seed gives a different web. Default: 1.
  uint64_t seed = 1;
  // Random links per content page, uniform in [min_links, max_links]. More
  // links mean more duplicate discoveries per fetch. Default: 10 and 30.
  uint32_t min_links = 10;
  uint32_t max_links = 30;
  // Share of random links that point to another host. Default: 25.
  uint32_t cross_host_percent = 25;
  // Redirect chains per host (/r/<n> -> 301 -> 302 -> page). Default: 3.
  uint32_t redirects_per_host = 3;
  // PDF and PNG files per host (/files/<n>.pdf, /files/<n>.png). Default: 2.
  uint32_t files_per_host = 2;
  // Slow pages per host (/slow/<n>); each waits slow_min_ms..slow_max_ms
  // before answering (without blocking other requests). 0 makes the web fast
  // for benchmarks. Default: 1, 200 ms, 500 ms.
  uint32_t slow_pages_per_host = 1;
  uint32_t slow_min_ms = 200;
  uint32_t slow_max_ms = 500;
  // Host i has one large page /big/0 when i % large_page_every == 1 (0 = no
  // large pages). Large pages cost bandwidth. Default: 4, 1 MB .. 2 MB.
  uint32_t large_page_every = 4;
  uint32_t large_min_bytes = 1'000'000;
  uint32_t large_max_bytes = 2'000'000;
  // Home page of host i links the infinite calendar /cal/<y>/<m> when
  // i % trap_every == 0 (0 = no trap). Default: 3.
  uint32_t trap_every = 3;
  // Per-host robots.txt variations (404, 500, agent groups, Crawl-delay).
  // false gives every host the plain "Disallow: /private/" file, which
  // benchmarks may prefer (no Crawl-delay). Default: true.
  bool robots_variants = true;
  // Some pages in ISO-8859-1 and Shift_JIS. Default: true.
  bool non_utf8_pages = true;
  // Sitemaps: robots.txt names /sitemap.xml, an index of /sitemap-pages.xml.gz
  // (every page, gzip) and /sitemap-orphans.xml (/orphan/0..2, pages no
  // page links to). The oracle does not follow them. Default: false.
  bool sitemaps = false;

  // OK, or InvalidArgument naming the first field out of its bounds.
  Status Validate() const;
};

}  // namespace crawlfront::simweb
