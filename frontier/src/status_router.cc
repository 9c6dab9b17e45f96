#include "status_router.h"

#include <exception>

#include "crawlfront/common/ascii.h"
#include "status_assets_gen.h"
#include "status_page.h"

namespace crawlfront {

namespace {

StatusReply Text(unsigned status, std::string body) {
  StatusReply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

StatusReply Asset(const EmbeddedAsset* asset) {
  if (asset == nullptr) return Text(404, "not found\n");
  StatusReply r;
  r.content_type = std::string(asset->content_type);
  r.body = std::string(asset->body);
  return r;
}

// Routes that read the snapshot; the provider may throw.
StatusReply DataRoute(std::string_view path, const StatusRouteContext& ctx) {
  const StatusProvider& provider = *ctx.provider;
  if (path == "/readyz") {
    return provider().ready ? Text(200, "ready\n") : Text(503, "not ready\n");
  }
  StatusReply r;
  if (path == "/") {
    r.content_type = "text/html; charset=utf-8";
    // The page is public; with a token configured it carries no data.
    r.body = ctx.options->auth_token.empty() ? RenderDashboardHtml(provider())
                                             : RenderDashboardPage(nullptr);
  } else if (path == "/api/stats") {
    r.content_type = "application/json";
    r.body = RenderStatusJson(provider(),
                              ctx.history ? ctx.history() : std::vector<RateSample>{});
  } else if (path == "/metrics") {
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = RenderPrometheusMetrics(provider(), ctx.options->metrics_top_partitions);
  } else {
    return Text(404, "not found\n");
  }
  return r;
}

}  // namespace

bool BearerTokenMatches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() < kScheme.size() ||
      !EqualsIgnoreCase(authorization.substr(0, kScheme.size()), kScheme)) {
    return false;
  }
  std::string_view given = authorization.substr(kScheme.size());
  // Constant time over the token's length: no early exit on a mismatch.
  unsigned diff = given.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i) {
    char g = i < given.size() ? given[i] : 0;
    diff |= static_cast<unsigned char>(g ^ token[i]);
  }
  return diff == 0 && !token.empty();
}

StatusReply RouteStatusRequest(const StatusRequest& request,
                               const StatusRouteContext& ctx) {
  if (request.method != "GET" && request.method != "HEAD") {
    StatusReply r = Text(405, "method not allowed\n");
    r.allow = "GET, HEAD";
    return r;
  }
  std::string_view path = request.target.substr(0, request.target.find('?'));
  if (path == "/healthz") return Text(200, "ok\n");
  if (path == "/static/dashboard.css") return Asset(FindEmbeddedAsset("dashboard.css"));
  if (path == "/static/dashboard.js") return Asset(FindEmbeddedAsset("dashboard.js"));
  bool protected_path = path == "/metrics" || path.starts_with("/api/");
  if (protected_path && !ctx.options->auth_token.empty() &&
      !BearerTokenMatches(request.authorization, ctx.options->auth_token)) {
    StatusReply r = Text(401, "bearer token required\n");
    r.auth_challenge = true;
    return r;
  }
  try {
    return DataRoute(path, ctx);
  } catch (const std::exception& e) {
    // The daemon's provider failing must not take the page down.
    return Text(500, std::string("snapshot failed: ") + e.what() + "\n");
  } catch (...) {
    return Text(500, "snapshot failed\n");
  }
}

}  // namespace crawlfront
