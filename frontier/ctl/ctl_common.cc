#include <charconv>
#include <ctime>
#include <cstdio>
#include <sstream>

#include "ctl.h"
#include "crawlfront/common/config.h"

namespace crawlfront::ctl {

Result<HostPort> FrontierAddress(const std::string& s) {
  auto hp = SplitHostPort(s);
  if (!hp.ok()) return hp.status();
  if (hp->port == 0) return Status::InvalidArgument("'" + s + "': port 0");
  if (hp->host.empty()) hp->host = "127.0.0.1";
  return hp;
}

Result<std::unique_ptr<RespClient>> Connect(const GlobalOptions& g, const std::string& address) {
  auto hp = FrontierAddress(address);
  if (!hp.ok()) return hp.status();
  RespClientOptions o;
  o.timeout = std::chrono::milliseconds(g.timeout_ms);
  o.auth_token = g.auth;
  auto c = RespClient::Connect(hp->host, hp->port, o);
  if (!c.ok()) return Status::Unavailable("frontier " + address + ": " + c.status().message());
  return c;
}

Result<std::vector<RespValue>> CommandAll(const GlobalOptions& g,
                                          const std::vector<std::string>& args,
                                          int reply_timeout_ms) {
  std::vector<RespValue> out;
  for (const auto& f : g.frontiers) {
    auto c = Connect(g, f);
    if (!c.ok()) return c.status();
    if (reply_timeout_ms > 0) (*c)->set_timeout(std::chrono::milliseconds(reply_timeout_ms));
    auto r = (*c)->Command(args);
    if (!r.ok()) return Status::Unavailable("frontier " + f + ": " + r.status().message());
    if (r->is_error()) return Status::InvalidArgument("frontier " + f + ": " + r->str);
    out.push_back(std::move(r.value()));
  }
  return out;
}

void AddCrawl(const GlobalOptions& g, std::vector<std::string>* args) {
  if (!g.crawl.empty()) {
    args->push_back("CRAWL");
    args->push_back(g.crawl);
  }
}

std::vector<std::pair<std::string, std::string>> ParseInfo(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    out.emplace_back(line.substr(0, colon), line.substr(colon + 1));
  }
  return out;
}

bool ParseCount(const std::string& text, int64_t min, int64_t max, int64_t* out) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

Result<int64_t> ParseWhen(const std::string& text, int64_t now_ms) {
  constexpr int64_t kCenturyMs = int64_t{100} * 366 * 24 * 3600 * 1000;
  if (text == "now") return now_ms;
  if (!text.empty() && text[0] == '+') {
    auto d = ParseDuration(std::string_view(text).substr(1));
    if (!d.ok() || d->count() > kCenturyMs) {
      return Status::InvalidArgument("'" + text + "': want +N with a unit ms, s, m or h, as in " +
                                     "the config files (at most 100 years)");
    }
    return now_ms + d->count();
  }
  int64_t ms = 0;
  if (!ParseCount(text, 0, now_ms + kCenturyMs, &ms)) {
    return Status::InvalidArgument("'" + text + "': want now, +DURATION (+30m, +24h) or a Unix "
                                   "time in milliseconds within 100 years");
  }
  // 10^11 ms is 1973: a smaller number is a time in seconds by mistake.
  if (ms < 100'000'000'000) {
    return Status::InvalidArgument("'" + text + "' looks like Unix seconds; give milliseconds");
  }
  return ms;
}

std::string UtcTimeOfMs(const std::string& ms_text) {
  int64_t ms = 0;
  if (!ParseCount(ms_text, 0, INT64_MAX, &ms)) return ms_text;
  if (ms == 0) return "-";
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm {};
  char buf[32];
  if (gmtime_r(&secs, &tm) == nullptr || std::strftime(buf, sizeof buf, "%FT%TZ", &tm) == 0) {
    return ms_text;
  }
  return buf;
}

std::string Plural(uint64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "crawlctl: %s: %s\n", what.c_str(), s.message().c_str());
  return kExitFailed;
}

}  // namespace crawlfront::ctl
