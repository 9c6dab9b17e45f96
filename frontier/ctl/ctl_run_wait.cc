// crawlctl run and status: when a crawl stalls with URLs still queued, say
// which hosts hold them and what they wait for (a failed robots.txt, a
// block, a delay), so a quiet crawl is not mistaken for a hang.

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

int64_t IntOf(const RespValue& v) {
  if (v.type == RespType::kInteger) return v.integer;
  int64_t n = 0;
  return ParseCount(v.str, INT64_MIN, INT64_MAX, &n) ? n : 0;
}

// "45s", "12m 5s", "3h 20m": a wait an operator reads at a glance.
std::string About(int64_t ms) {
  int64_t s = (ms + 999) / 1000;
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%" PRId64 "s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%" PRId64 "m %" PRId64 "s", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRId64 "h %" PRId64 "m", s / 3600, s / 60 % 60);
  }
  return buf;
}

}  // namespace

std::string WaitingHosts(RespClient* client, const GlobalOptions& g) {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  std::vector<std::string> cmd = {"FRONTIER.HOSTS", "TOP", "20"};
  AddCrawl(g, &cmd);
  auto r = client->Command(cmd);
  if (!r.ok() || !r->is_aggregate()) return "";
  std::string out;
  int shown = 0, more = 0;
  for (const RespValue& row : r->elements) {
    // [host, queued, inflight, done, ready_in_ms, delay_ms, blocked_until_ms, robots, crawl]
    if (row.elements.size() < 8) continue;
    const int64_t queued = IntOf(row.elements[1]), ready_in = IntOf(row.elements[4]);
    if (queued == 0 || ready_in == 0) continue;
    if (shown == 3) {
      ++more;
      continue;
    }
    const std::string& robots = row.elements[7].str;
    std::string why = robots == "error"                  ? "robots.txt failed, asked again in "
                      : IntOf(row.elements[6]) > now_ms ? "blocked, ready in "
                                                        : "ready in ";
    out += "  waiting: " + row.elements[0].str + " (" + Plural(queued, "URL") + " queued; " +
           why + About(ready_in) + ")\n";
    ++shown;
  }
  if (more > 0) out += "  waiting: " + Plural(more, "more host") + "\n";
  return out;
}

}  // namespace crawlfront::ctl
