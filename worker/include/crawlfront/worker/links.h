#pragma once
// Link extraction from HTML: a pure function over bytes, built on a streaming
// HTML5-style tokenizer (no DOM). See docs/links.md for what is extracted, the
// measurements against gumbo and libxml2, and the known gaps.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crawlfront {

struct LinkOptions {
  // Links kept per page; the rest are dropped and `truncated` is set. Bounds
  // the work one hostile page can cause downstream.
  // Default: 2000.
  size_t max_links = 2000;
  // Skip rel="nofollow" links and honour <meta name="robots" content="nofollow">.
  // Off only for research crawls that want the full graph.
  // Default: true.
  bool respect_nofollow = true;
  // This crawler's robots product token: <meta name="TOKEN" content="nofollow">
  // applies too (a page's rules for one crawler). Empty: only name="robots".
  // Default: "".
  std::string robots_token{};
};

struct ExtractedLinks {
  // Resolved absolute http(s) URLs, canonicalized by common/ (so without
  // fragment), deduplicated within the page, in document order.
  std::vector<std::string> links;
  // The resolved, canonical <base href> in effect, if the page had a usable one.
  std::optional<std::string> base;
  // The page carried <meta name="robots"> (or name=robots_token) with
  // "nofollow" or "none"; reported even when respect_nofollow is false.
  bool meta_nofollow = false;
  // Links not followed because of rel="nofollow" (or meta nofollow).
  size_t nofollow_skipped = 0;
  // More links than max_links were found (or the page had a hostile number
  // of distinct hrefs); `links` holds the first max_links.
  bool truncated = false;
};

// Extracts the links of `html`, fetched from `page_url` (an absolute http(s)
// URL; if it is not one, only absolute hrefs survive). Collected: a/area href,
// frame/iframe src, link href with rel alternate/canonical/next, the meta
// refresh URL; the first <base href> (resolved against page_url) is the base
// for all of them. Only http and https results are kept; "#fragment"-only
// hrefs are skipped. Never fails: malformed HTML is tokenized as a browser
// would. Thread-safe (no shared state).
ExtractedLinks ExtractLinks(std::string_view html, std::string_view page_url,
                            const LinkOptions& opts = {});

// Whether one X-Robots-Tag header value forbids following the response's
// links for the crawler whose product token is `token`: "nofollow" or
// "none" in its comma-separated directives, which apply to every crawler
// unless the value starts with a crawler's name and ':' ("otherbot:
// nofollow" applies to otherbot only). Case-insensitive.
bool RobotsTagSaysNofollow(std::string_view value, std::string_view token);

}  // namespace crawlfront
