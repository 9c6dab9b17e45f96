// Lease parsing, FRONTIER.DONE building and WARC exchange building.

#include <time.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "crawlfront/common/url.h"
#include "crawlfront/worker/links.h"
#include "worker_internal.h"

namespace crawlfront::worker_internal {
namespace {

bool AsInt(const RespValue& v, int64_t* out) {
  if (v.type == RespType::kInteger) {
    *out = v.integer;
    return true;
  }
  if (!v.is_string()) return false;
  auto [p, ec] = std::from_chars(v.str.data(), v.str.data() + v.str.size(), *out);
  return ec == std::errc() && p == v.str.data() + v.str.size();
}

bool ParseLease(const RespValue& v, Lease* lease) {
  if (v.type != RespType::kArray || v.elements.size() != 6) return false;
  const auto& e = v.elements;
  if (!e[0].is_string() || !e[1].is_string() || !e[4].is_string() || !e[5].is_string()) {
    return false;
  }
  lease->id = e[0].str;
  lease->url = e[1].str;
  lease->kind = e[4].str;
  lease->crawl = e[5].str;
  return !lease->id.empty() && AsInt(e[2], &lease->depth) && AsInt(e[3], &lease->attempt) &&
         (lease->kind == "page" || lease->kind == "robots");
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Links of an HTML page, canonicalized; failures are skipped.
std::vector<std::string> PageLinks(const FetchResult& r, const ReportOptions& opts) {
  LinkOptions link_opts;
  link_opts.respect_nofollow = opts.respect_nofollow;
  link_opts.max_links = opts.max_links;
  ExtractedLinks extracted = ExtractLinks(r.body, r.url, link_opts);
  std::vector<std::string> out;
  for (const std::string& link : extracted.links) {
    Result<CanonicalUrl> c = ResolveAndCanonicalize(r.url, link);
    if (c.ok()) out.push_back(std::move(c->spec));
  }
  return out;
}

void AddCommon(std::vector<std::string>* cmd, const FetchResult& r) {
  cmd->insert(cmd->end(), {"MS", std::to_string(r.total_ms)});
}

}  // namespace

Result<std::vector<Lease>> ParseLeases(const RespValue& reply, size_t* skipped) {
  if (reply.is_error()) return Status::InvalidArgument("LEASE failed: " + reply.str);
  if (reply.type != RespType::kArray) {
    return Status::InvalidArgument("LEASE reply is a " +
                                   std::string(RespTypeName(reply.type)) + ", not an array");
  }
  std::vector<Lease> leases;
  *skipped = 0;
  for (const RespValue& v : reply.elements) {
    Lease lease;
    if (ParseLease(v, &lease)) {
      leases.push_back(std::move(lease));
    } else {
      ++*skipped;
    }
  }
  return leases;
}

int64_t ParseRetryAfterMs(std::string_view value, std::chrono::system_clock::time_point now) {
  constexpr int64_t kMaxMs = int64_t{24} * 3600 * 1000;
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return -1;
  int64_t seconds = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec == std::errc() && p == value.data() + value.size()) {
    return seconds < 0 ? -1 : std::min(kMaxMs, seconds > kMaxMs / 1000 ? kMaxMs : seconds * 1000);
  }
  // HTTP date, IMF-fixdate form: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  std::string text(value);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return -1;
  const int64_t when_s = timegm(&tm);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             now.time_since_epoch()).count();
  return std::clamp(when_s * 1000 - now_ms, int64_t{0}, kMaxMs);
}

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
    cmd.insert(cmd.end(), {"retry", "STATUS", std::to_string(r.status), "DELAY",
                           std::to_string(delay), "REASON", "http " + std::to_string(r.status)});
    return rep;
  }
  rep.outcome = "fetched";
  cmd.insert(cmd.end(), {"fetched", "STATUS", std::to_string(r.status)});
  AddCommon(&cmd, r);
  if (r.status >= 300 && r.status < 400 && !r.Header("location").empty()) {
    Result<CanonicalUrl> target = ResolveAndCanonicalize(r.url, r.Header("location"));
    if (target.ok()) rep.links.push_back(std::move(target->spec));
  } else if (IsHtml(r.Header("content-type"))) {
    rep.links = PageLinks(r, opts);
  }
  if (!rep.links.empty()) {
    cmd.push_back("LINKS");
    cmd.insert(cmd.end(), rep.links.begin(), rep.links.end());
  }
  return rep;
}

WarcExchange BuildExchange(const FetchResult& r, std::vector<std::string> outlinks) {
  WarcExchange x;
  x.target_uri = r.url;
  x.ip_address = r.primary_ip;
  x.fetch_time = r.fetch_time;
  x.request_head = r.request_head;
  x.response_body = r.body;
  x.truncated = r.truncated;
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
