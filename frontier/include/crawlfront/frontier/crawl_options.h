#pragma once
// Options of the crawl core (frontier/crawl.h): politeness, retries, scope,
// trap rules and robots.txt handling. docs/scheduling.md explains how they
// interact.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "crawlfront/common/url.h"

namespace crawlfront {

struct CrawlOptions {
  // ---- Politeness -------------------------------------------------------
  // Minimum time between two fetch starts on one host (queue). Larger is
  // kinder to sites and slower per host. A host's FRONTIER.HOST DELAY
  // overrides it. Default: 1000 ms.
  std::chrono::milliseconds default_delay{1000};
  // Multiplies a host's last response time into its delay (Mercator-style
  // adaptive politeness: slow servers get more breathing room). 0 disables.
  // Default: 0.
  double delay_factor = 0;
  // URLs of one host leased at the same time. More is faster on big sites
  // and harder on them; robots.txt is always fetched alone. Default: 1.
  uint32_t max_inflight_per_host = 1;

  // ---- Leases and retries ----------------------------------------------
  // A lease not reported DONE (or renewed) within this time goes back to its
  // queue with attempt+1. Shorter re-delivers lost work sooner but may
  // duplicate slow downloads. Default: 60 s.
  std::chrono::milliseconds lease_timeout{60'000};
  // Fetch attempts before a URL is failed (retries and expired leases both
  // count). Default: 3.
  uint32_t max_attempts = 3;
  // Backoff before retry n (n = 1, 2, ...): base * 2^(n-1), capped below.
  // Larger spares struggling servers, delays the crawl. Default: 5 s.
  std::chrono::milliseconds retry_backoff_base{5'000};
  // Upper bound of the retry backoff. Default: 10 min.
  std::chrono::milliseconds retry_backoff_max{600'000};

  // ---- Scope ------------------------------------------------------------
  // Links deeper than this (seeds are depth 0) are rejected. Smaller keeps a
  // crawl focused near its seeds. Default: 16.
  uint32_t max_depth = 16;
  // If not empty, only hosts equal to or under one of these suffixes
  // ("example.com" admits "example.com" and "a.example.com"; ".example.com"
  // only the latter) are accepted. Default: empty (all).
  std::vector<std::string> allow_host_suffixes;
  // Hosts equal to or under one of these suffixes are rejected; wins over
  // allow_host_suffixes. Default: empty.
  std::vector<std::string> deny_host_suffixes;
  // Regular expressions (RE2 syntax) searched in the canonical URL; a match
  // rejects it. Compiled once at Open into one set, tried in one pass (a bad
  // pattern fails Open). Default: empty.
  std::vector<std::string> deny_regexes;
  // URLs ever queued per host (per crawl) before further new URLs of that
  // host are rejected ("host budget exhausted"). FRONTIER.HOST BUDGET
  // overrides it per host. 0 = unlimited. Default: 0.
  uint64_t max_urls_per_host = 0;

  // ---- Trap rules (calendars, session loops, infinite path nesting) -------
  // Canonical URLs longer than this are rejected. Default: 1024.
  size_t max_url_length = 1024;
  // A path segment occurring more than this many times ("/a/b/a/b/a/b/a")
  // rejects the URL. Smaller catches loops sooner, may drop odd real sites.
  // Default: 3.
  uint32_t max_repeated_path_segments = 3;
  // More query parameters than this rejects the URL (faceted-search traps).
  // Default: 16.
  uint32_t max_query_params = 16;
  // More path segments than this rejects the URL. Default: 32.
  uint32_t max_path_depth = 32;

  // ---- robots.txt ---------------------------------------------------------
  // Product token matched against User-agent lines. Default: "crawlfront".
  std::string user_agent = "crawlfront";
  // Fetch robots.txt before a host's pages and never lease a disallowed page.
  // Turning it off is for private test webs only. Default: true.
  bool respect_robots = true;
  // How long fetched rules stay valid before robots.txt is fetched again
  // (RFC 9309 suggests at most 24 h). Default: 24 h.
  std::chrono::milliseconds robots_ttl{24 * 3600 * 1000};
  // After a 5xx, 429 or unreachable robots.txt the host is treated as fully
  // disallowed: its pages wait (they are not dropped) and robots.txt is tried
  // again after robots_error_backoff, doubling with each failure in a row up
  // to robots_error_retry (or after the server's Retry-After, if longer).
  // After max_attempts failures in a row its queued pages count as
  // robots-blocked and robots.txt is asked again after robots_error_retry.
  // Defaults: 1 min, 1 h.
  std::chrono::milliseconds robots_error_backoff{60 * 1000};
  std::chrono::milliseconds robots_error_retry{3600 * 1000};
  // A sitemap a worker read (DONE ... SITEMAP 1) is queued again this long
  // after, so the URLs a site adds to it later are found. 0: each sitemap is
  // read once. A crawl with it never finishes. Default: 0.
  std::chrono::milliseconds sitemap_refetch{0};

  // ---- Canonicalization ---------------------------------------------------
  // How URLs are canonicalized and what a politeness queue is keyed by
  // (url.host_key_mode: host or registered domain). Changing it on an
  // existing database splits or merges queues only for new URLs.
  // Default: UrlOptions{} (host keys).
  UrlOptions url;

  // ---- Internals ------------------------------------------------------------
  // Queue entries of a host kept in RAM (the rest stays in RocksDB). More
  // costs RAM per host, saves RocksDB reads per lease. Default: 4.
  uint32_t head_buffer = 4;
  // RAM for queue heads, all hosts together; each host keeps head_buffer
  // even beyond it. Within it, a host whose buffer holds its whole queue
  // keeps each URL added to it (up to 256), and a host leased often reads
  // more heads per refill (fewer RocksDB seeks), up to an equal share of
  // this. Default: 256 MiB.
  uint64_t queue_heads_bytes = uint64_t{256} << 20;
  // Keep each URL's last fetch result (kFetch, fetch_record.h) for
  // FRONTIER.URL: one small RocksDB write per DONE. Default: true.
  bool fetch_history = true;
  // For tests (crawl.check_live_counts): every stats query also walks all
  // hosts and counts a mismatch with the sums kept as hosts change
  // (CrawlCore::live_count_errors). Default: false.
  bool check_live_counts = false;
};

}  // namespace crawlfront
