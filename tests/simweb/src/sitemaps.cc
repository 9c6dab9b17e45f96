// simweb's sitemaps (options.sitemaps): an index naming a gzip sitemap of the
// host's pages and a plain one of its orphan pages, which nothing links to,
// so only a crawler that reads sitemaps finds them.

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
  for (uint64_t a = 0; a < kOrphanPages; ++a) {
    out += "  <url>" + Loc(r.host, PathOf(Resource{Kind::kOrphan, r.host, a, 0})) + "</url>\n";
  }
  return out + "</urlset>\n";
}

}  // namespace crawlfront::simweb
