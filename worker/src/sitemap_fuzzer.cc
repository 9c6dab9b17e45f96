// libFuzzer target: ParseSitemap must accept any bytes (plain or gzip) and
// keep its promises: bounded output, canonical http(s) links, no duplicates,
// one lastmod per link and none negative.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "crawlfront/common/url.h"
#include "crawlfront/worker/sitemap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  crawlfront::SitemapOptions opts;
  opts.max_links = 50;
  opts.max_bytes = 1 << 20;
  crawlfront::SitemapLinks r = crawlfront::ParseSitemap(input, "http://fuzz.test/sitemap.xml", opts);
  if (!r.is_sitemap && !r.links.empty()) std::abort();
  if (r.links.size() > opts.max_links) std::abort();
  if (r.lastmod_s.size() != r.links.size()) std::abort();
  for (int64_t s : r.lastmod_s) {
    if (s < 0) std::abort();  // FRONTIER.DONE's LASTMOD refuses negative values
  }
  std::set<std::string_view> seen;
  for (const std::string& link : r.links) {
    if (!seen.insert(link).second) std::abort();
    auto again = crawlfront::Canonicalize(link);
    if (!again.ok() || again->spec != link) std::abort();
  }
  return 0;
}
