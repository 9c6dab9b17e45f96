#include "crawlfront/simweb/sim_web.h"

#include "crawlfront/simweb/links.h"
#include "crawlfront/simweb/rng.h"
#include "crawlfront/simweb/robots_model.h"
#include "render.h"

namespace crawlfront::simweb {
namespace {

constexpr uint64_t kSaltDelay = 41;
constexpr std::string_view kHtml = "text/html; charset=utf-8";
constexpr std::string_view kText = "text/plain; charset=utf-8";

Response Plain(int status, std::string_view content_type, std::string body) {
  return Response{status, std::string(content_type), "", std::move(body), 0};
}

Response ErrorResponse(int status, std::string_view reason) {
  return Plain(status, kHtml, RenderErrorPage(status, reason));
}

Response RobotsResponse(const SimWebOptions& o, uint32_t host) {
  RobotsFile file = RobotsOf(o, host);
  if (file.status == 200) {
    std::string body = RenderRobots(file, HostName(host));
    if (o.sitemaps) body += "\nSitemap: http://" + HostName(host) + "/sitemap.xml\n";
    return Plain(200, kText, std::move(body));
  }
  return Plain(file.status, kText,
               file.status == 404 ? "no robots.txt here\n" : "robots.txt unavailable\n");
}

Response RedirectResponse(const SimWebOptions& o, const Resource& r) {
  std::string target = RedirectTargetOf(o, r);
  Response out = ErrorResponse(r.b == 1 ? 301 : 302, "Moved");
  // The second hop uses a root-relative Location when it stays on the host,
  // as many servers do; crawlers must resolve it against the request URL.
  std::string own_prefix = "http://" + HostName(r.host) + "/";
  if (r.b == 2 && target.compare(0, own_prefix.size(), own_prefix) == 0) {
    out.location = target.substr(own_prefix.size() - 1);
  } else {
    out.location = target;
  }
  return out;
}

Response HtmlResponse(const SimWebOptions& o, const Resource& r) {
  PageLinks links = LinksOf(o, r);
  std::string type = links.charset == "utf-8" ? std::string(kHtml)
                                              : "text/html; charset=" + links.charset;
  Response out = Plain(200, type, RenderHtml(o, r, links));
  if (links.header_nofollow) out.robots_tag = "noindex, nofollow";
  return out;
}

}  // namespace

Status SimWebOptions::Validate() const {
  auto bad = [](const char* what) { return Status::InvalidArgument(what); };
  if (hosts < 1 || hosts > 1'000'000) return bad("hosts must be in [1, 1000000]");
  if (pages < 1 || pages > 100'000'000) return bad("pages must be in [1, 100000000]");
  if (min_links > max_links || max_links > 1000) {
    return bad("links need min_links <= max_links <= 1000");
  }
  if (cross_host_percent > 100) return bad("cross_host_percent must be <= 100");
  if (redirects_per_host > 1000 || files_per_host > 1000 || slow_pages_per_host > 1000) {
    return bad("redirects, files and slow pages per host must be <= 1000");
  }
  if (slow_min_ms > slow_max_ms || slow_max_ms > 60'000) {
    return bad("slow pages need slow_min_ms <= slow_max_ms <= 60000");
  }
  if (large_min_bytes > large_max_bytes || large_max_bytes > (64u << 20)) {
    return bad("large pages need large_min_bytes <= large_max_bytes <= 64 MiB");
  }
  return Status::Ok();
}

Result<SimWeb> SimWeb::Create(const SimWebOptions& options) {
  CRAWLFRONT_RETURN_IF_ERROR(options.Validate());
  return SimWeb(options);
}

std::string HostWithoutPort(std::string_view host) {
  size_t colon = host.rfind(':');
  bool bracketed = !host.empty() && host[0] == '[';
  if (colon != std::string_view::npos && (!bracketed || host[colon - 1] == ']')) {
    host = host.substr(0, colon);
  }
  std::string out(host);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  return out;
}

Response SimWeb::Fetch(std::string_view host, std::string_view target) const {
  if (target.size() > kMaxTargetLength) return ErrorResponse(414, "URI Too Long");
  if (target.empty() || target[0] != '/') return ErrorResponse(400, "Bad Request");
  std::optional<uint32_t> index = HostIndex(options_, HostWithoutPort(host));
  if (!index) return ErrorResponse(404, "Unknown Host");
  return FetchResource(Route(options_, *index, target));
}

Response SimWeb::FetchResource(const Resource& r) const {
  switch (r.kind) {
    case Kind::kNotFound:
      return ErrorResponse(404, "Not Found");
    case Kind::kRobots:
      return RobotsResponse(options_, r.host);
    case Kind::kRedirect:
      return RedirectResponse(options_, r);
    case Kind::kError:
      return ErrorResponse(500, "Internal Server Error");
    case Kind::kPdf:
      return Plain(200, "application/pdf", RenderPdf(options_, r));
    case Kind::kPng:
      return Plain(200, "image/png", RenderPng(r));
    case Kind::kSitemapIndex:
      return Plain(200, "application/xml", RenderSitemap(options_, r));
    case Kind::kSitemap:
      return Plain(200, r.b == 0 ? "application/gzip" : "application/xml",
                   RenderSitemap(options_, r));
    case Kind::kSlow: {
      Response out = HtmlResponse(options_, r);
      Rng rng(KeyOf(options_.seed, r.host, r.a, kSaltDelay));
      out.delay_ms = options_.slow_min_ms +
                     static_cast<uint32_t>(
                         rng.Below(options_.slow_max_ms - options_.slow_min_ms + 1));
      return out;
    }
    default:
      return HtmlResponse(options_, r);
  }
}

int SimWeb::StatusOf(const Resource& r) const {
  switch (r.kind) {
    case Kind::kNotFound:
      return 404;
    case Kind::kRobots:
      return RobotsOf(options_, r.host).status;
    case Kind::kRedirect:
      return r.b == 1 ? 301 : 302;
    case Kind::kError:
      return 500;
    default:
      return 200;
  }
}

}  // namespace crawlfront::simweb
