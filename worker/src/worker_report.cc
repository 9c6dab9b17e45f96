// FRONTIER.DONE building and WARC exchange building.

#include <algorithm>
#include <cctype>

#include "crawlfront/common/ascii.h"
#include "crawlfront/common/url.h"
#include "crawlfront/worker/links.h"
#include "crawlfront/worker/sitemap.h"
#include "worker_internal.h"

namespace crawlfront::worker_internal {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Links of an HTML page: ExtractLinks gives them canonical and deduplicated.
// An X-Robots-Tag header (any of them) can say nofollow, as a meta tag can.
void AddPageLinks(const FetchResult& r, const ReportOptions& opts, Report* rep) {
  if (opts.respect_nofollow) {
    for (const auto& [name, value] : r.headers) {
      if (EqualsIgnoreCase(name, "x-robots-tag") &&
          RobotsTagSaysNofollow(value, opts.robots_token)) {
        rep->note = "nofollow: X-Robots-Tag";
        return;
      }
    }
  }
  LinkOptions link_opts;
  link_opts.respect_nofollow = opts.respect_nofollow;
  link_opts.max_links = opts.max_links;
  link_opts.robots_token = opts.robots_token;
  ExtractedLinks links = ExtractLinks(r.body, r.url, link_opts);
  rep->links = std::move(links.links);
  if (links.meta_nofollow && opts.respect_nofollow) rep->note = "nofollow: meta robots";
}

// Links of a sitemap; a body that is no sitemap leaves *rep as it was.
void AddSitemapLinks(const FetchResult& r, const ReportOptions& opts, Report* rep) {
  if (opts.max_sitemap_links == 0) return;
  SitemapOptions sopts;
  sopts.max_links = opts.max_sitemap_links;
  SitemapLinks s = ParseSitemap(r.body, r.url, sopts);
  if (!s.is_sitemap) return;
  rep->sitemap = s.index ? "sitemap index" : "sitemap";
  rep->links = std::move(s.links);
  rep->lastmod_s = std::move(s.lastmod_s);
  if (s.truncated) rep->note = "cut at a limit";
  if (!s.error.empty()) rep->note = s.error;
}

// LASTMOD: the links' <lastmod>s for a frontier that reads sitemaps again
// (it recrawls those changed since its previous read); left out when the
// sitemap has none.
void AddLastmods(const Report& rep, std::vector<std::string>* cmd) {
  if (std::all_of(rep.lastmod_s.begin(), rep.lastmod_s.end(), [](int64_t s) { return s == 0; }))
    return;
  std::string list;
  for (int64_t s : rep.lastmod_s) list += (list.empty() ? "" : ",") + std::to_string(s);
  cmd->insert(cmd->end(), {"LASTMOD", std::move(list)});
}

void AddCommon(std::vector<std::string>* cmd, const FetchResult& r) {
  cmd->insert(cmd->end(), {"MS", std::to_string(r.total_ms)});
}

// The validators the frontier keeps for the URL's next recrawl: the
// response's, or for a 304 without them those of the copy it confirms.
void AddValidators(const Lease& lease, const FetchResult& r, std::vector<std::string>* cmd) {
  const bool ok = r.status >= 200 && r.status < 300;
  const bool not_modified = r.status == 304;
  if (!ok && !not_modified) return;
  auto pick = [&](std::string_view header, const std::string& leased) {
    std::string v = r.Header(header);
    if (!IsSafeHeaderValue(v)) v.clear();
    return v.empty() && not_modified ? leased : v;
  };
  const std::string etag = pick("etag", lease.etag);
  const std::string modified = pick("last-modified", lease.last_modified);
  if (!etag.empty()) cmd->insert(cmd->end(), {"ETAG", etag});
  if (!modified.empty()) cmd->insert(cmd->end(), {"MODIFIED", modified});
}

}  // namespace

bool IsHtml(std::string_view content_type) {
  std::string type = Lower(content_type.substr(0, content_type.find(';')));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return type == "text/html" || type == "application/xhtml+xml";
}

Report BuildReport(const Lease& lease, const FetchResult& r, const ReportOptions& opts) {
  Report rep;
  rep.command = {"FRONTIER.DONE", opts.worker_id, lease.id};
  auto& cmd = rep.command;
  const bool response = r.outcome == FetchOutcome::kResponse;
  if (lease.kind == "robots" && r.outcome != FetchOutcome::kDisallowed) {
    // Unreachable robots.txt is reported as status 0; the frontier decides.
    rep.outcome = "robots";
    cmd.insert(cmd.end(), {"robots", "STATUS", std::to_string(response ? r.status : 0)});
    AddCommon(&cmd, r);
    cmd.insert(cmd.end(), {"BODY", response ? r.body.substr(0, kMaxRobotsBytes) : ""});
    return rep;
  }
  if (r.outcome == FetchOutcome::kDisallowed || r.outcome == FetchOutcome::kError) {
    rep.outcome = r.outcome == FetchOutcome::kDisallowed ? "disallowed" : "failed";
    cmd.insert(cmd.end(), {rep.outcome, "REASON", r.error});
    return rep;
  }
  if (!response) {  // timeout or connection error: transient
    rep.outcome = "retry";
    cmd.insert(cmd.end(), {"retry", "REASON", std::string(FetchOutcomeName(r.outcome)) +
                                                  ": " + r.error});
    return rep;
  }
  if (r.status == 429 || r.status == 503) {
    int64_t delay = ParseRetryAfterMs(r.Header("retry-after"), std::chrono::system_clock::now());
    if (delay < 0) delay = opts.default_retry_delay_ms;
    rep.outcome = "retry";
    rep.retry_delay_ms = delay;
    cmd.insert(cmd.end(), {"retry", "STATUS", std::to_string(r.status), "DELAY",
                           std::to_string(delay), "REASON", "http " + std::to_string(r.status)});
    return rep;
  }
  rep.outcome = "fetched";
  cmd.insert(cmd.end(), {"fetched", "STATUS", std::to_string(r.status)});
  AddCommon(&cmd, r);
  AddValidators(lease, r, &cmd);
  if (r.status >= 300 && r.status < 400 && !r.Header("location").empty()) {
    Result<CanonicalUrl> target = ResolveAndCanonicalize(r.url, r.Header("location"));
    if (target.ok()) rep.links.push_back(std::move(target->spec));
  } else if (IsHtml(r.Header("content-type"))) {
    AddPageLinks(r, opts, &rep);
  } else if (r.status >= 200 && r.status < 300) {
    AddSitemapLinks(r, opts, &rep);
  }
  if (!rep.sitemap.empty() && opts.mark_sitemaps) {
    cmd.insert(cmd.end(), {"SITEMAP", "1"});
    if (opts.send_lastmods) AddLastmods(rep, &cmd);
  }
  if (!rep.links.empty()) {
    cmd.push_back("LINKS");
    cmd.insert(cmd.end(), rep.links.begin(), rep.links.end());
  }
  return rep;
}

std::vector<std::string> ConditionalHeaders(const Lease& lease) {
  std::vector<std::string> headers;
  if (lease.kind != "page") return headers;
  if (!lease.etag.empty()) headers.push_back("If-None-Match: " + lease.etag);
  if (!lease.last_modified.empty()) {
    headers.push_back("If-Modified-Since: " + lease.last_modified);
  }
  return headers;
}

std::string DescribeResult(const Lease& lease, const FetchResult& r, const Report& rep) {
  std::string line = lease.kind + " " + r.url + " -> " + rep.outcome;
  const bool response = r.outcome == FetchOutcome::kResponse;
  if (response) {
    line += " status " + std::to_string(r.status);
    if (!r.http_version.empty()) line += " HTTP/" + r.http_version;
    if (r.status == 304) line += " (not modified)";
  }
  line += " " + std::to_string(r.total_ms) + " ms";
  if (rep.retry_delay_ms >= 0) line += ", retry in " + std::to_string(rep.retry_delay_ms) + " ms";
  if (lease.kind == "page" && rep.outcome == "fetched") {
    line += ", " + (rep.sitemap.empty() ? "" : rep.sitemap + ": ") +
            std::to_string(rep.links.size()) + (rep.links.size() == 1 ? " link" : " links");
    if (!rep.note.empty()) line += " (" + rep.note + ")";
  }
  if (!response) {  // why: a private address needs no "disallowed" twice
    const bool refused = r.outcome == FetchOutcome::kDisallowed;
    std::string why = refused ? "" : FetchOutcomeName(r.outcome);
    if (!r.error.empty()) why += (why.empty() ? "" : ": ") + r.error;
    line += ": " + why;
  }
  return line;
}

WarcExchange BuildExchange(const FetchResult& r, std::vector<std::string> outlinks) {
  WarcExchange x;
  x.target_uri = r.url;
  x.ip_address = r.primary_ip;
  x.fetch_time = r.fetch_time;
  x.request_head = r.request_head;
  x.response_body = r.body;
  x.truncated = r.truncated;
  x.not_modified = r.status == 304;
  x.outlinks = std::move(outlinks);
  // Keep the status line, adjust the headers that describe the wire bytes.
  size_t line_end = r.response_head.find("\r\n");
  if (line_end == std::string::npos) line_end = r.response_head.size();
  x.response_head = r.response_head.substr(0, line_end) + "\r\n";
  size_t pos = line_end + 2;
  while (pos < r.response_head.size()) {  // one header line per pass
    size_t next = r.response_head.find("\r\n", pos);
    if (next == std::string::npos) next = r.response_head.size();
    std::string line = r.response_head.substr(pos, next - pos);
    pos = next + 2;
    if (line.empty()) continue;
    const std::string name = Lower(line.substr(0, line.find(':')));
    if (name == "content-length" || name == "transfer-encoding") continue;
    if (name == "content-encoding") line = "X-Crawlfront-" + line;
    x.response_head += line + "\r\n";
  }
  x.response_head += "Content-Length: " + std::to_string(r.body.size()) + "\r\n\r\n";
  return x;
}

}  // namespace crawlfront::worker_internal
