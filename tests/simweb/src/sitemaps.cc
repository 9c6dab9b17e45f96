// simweb's sitemaps (options.sitemaps): an index naming a gzip sitemap of the
// host's pages and a plain one of its orphan pages, which nothing links to,
// so only a crawler that reads sitemaps finds them.

#include <chrono>
#include <ctime>

#include "crawlfront/simweb/encoding.h"
#include "crawlfront/simweb/resource.h"
#include "render.h"

namespace crawlfront::simweb {
namespace {

constexpr std::string_view kXmlHead = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
constexpr std::string_view kNs = "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"";

std::string Loc(uint32_t host, const std::string& path) {
  return "<loc>http://" + HostName(host) + path + "</loc>";
}

// The current time, "YYYY-MM-DDThh:mm:ssZ".
std::string W3cNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace

std::string RenderSitemap(const SimWebOptions& o, const Resource& r) {
  std::string out(kXmlHead);
  if (r.kind == Kind::kSitemapIndex) {
    out += "<sitemapindex " + std::string(kNs) + ">\n";
    for (uint64_t b : {0, 1}) {
      out += "  <sitemap>" + Loc(r.host, PathOf(Resource{Kind::kSitemap, r.host, 0, b})) +
             "<lastmod>2026-12-01</lastmod></sitemap>\n";
    }
    return out + "</sitemapindex>\n";
  }
  out += "<urlset " + std::string(kNs) + ">\n";
  if (r.b == 0) {
    for (uint64_t p = 0; p < o.pages; ++p) {
      out += "  <url>" + Loc(r.host, PathOf(Resource{Kind::kPage, r.host, p, 0})) +
             "<changefreq>daily</changefreq></url>\n";
    }
    return Encode(ContentCoding::kGzip, out + "</urlset>\n");  // a .xml.gz file
  }
  // Orphan 0 changes all the time (its lastmod is the time of the request),
  // orphan 1 long ago, orphan 2 says nothing: a crawler that reads the
  // sitemap again fetches only orphan 0 again.
  for (uint64_t a = 0; a < kOrphanPages; ++a) {
    out += "  <url>" + Loc(r.host, PathOf(Resource{Kind::kOrphan, r.host, a, 0}));
    if (a == 0) out += "<lastmod>" + W3cNow() + "</lastmod>";
    if (a == 1) out += "<lastmod>2026-01-01</lastmod>";
    out += "</url>\n";
  }
  return out + "</urlset>\n";
}

}  // namespace crawlfront::simweb
