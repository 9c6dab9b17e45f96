// crawlctl url URL: what the frontier knows of one URL (FRONTIER.URL), for
// "why was this page not fetched?". Every frontier is asked; the one that
// has seen the URL (its host's owner) answers.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

constexpr const char* kUrlUsage = "crawlctl url URL\n";

using Fields = std::map<std::string, RespValue>;

Fields FieldsOf(const RespValue& reply) {
  Fields f;
  for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    f[reply.elements[i].str] = reply.elements[i + 1];
  }
  return f;
}

std::string Text(const Fields& f, const std::string& name) {
  auto it = f.find(name);
  if (it == f.end()) return "";
  return it->second.type == RespType::kInteger ? std::to_string(it->second.integer)
                                               : it->second.str;
}

int64_t Number(const Fields& f, const std::string& name) {
  auto it = f.find(name);
  return it == f.end() ? 0 : it->second.integer;
}

std::string StateLine(const Fields& f) {
  const std::string state = Text(f, "state");
  if (state == "unseen") return "unseen (never added to this crawl)";
  if (state == "done" && !Text(f, "last_outcome").empty()) {
    return "done (seen; neither queued nor leased)";
  }
  if (state == "done") {
    return "done (seen; neither queued nor leased: fetched, failed, blocked by robots, "
           "dropped or over its host's budget)";
  }
  std::string line = state;
  if (state == "scheduled") line += " (due " + UtcTimeOfMs(Text(f, "due_ms")) + ")";
  if (state == "leased" && !Text(f, "worker").empty()) {
    line += " to worker " + Text(f, "worker") + " (" + Text(f, "lease_id") + ", " +
            Text(f, "lease_left_ms") + " ms left)";
  }
  return line;
}

// The last fetch result (FRONTIER.URL's last_* fields); "" when none kept.
std::string LastLine(const Fields& f) {
  const std::string outcome = Text(f, "last_outcome");
  if (outcome.empty()) return "";
  std::string line = outcome;
  if (Number(f, "last_status") > 0) line += " (HTTP " + Text(f, "last_status") + ")";
  line += " at " + UtcTimeOfMs(Text(f, "last_at_ms")) + ", attempt " + Text(f, "last_attempt");
  if (outcome == "fetched") line += ", response in " + Text(f, "last_fetch_ms") + " ms";
  if (!Text(f, "last_reason").empty()) line += ": " + Text(f, "last_reason");
  return line;
}

void PrintText(const Fields& f, const std::string& frontier, bool several) {
  auto row = [](const char* name, const std::string& value) {
    std::printf("%-9s %s\n", name, value.c_str());
  };
  row("url", Text(f, "url"));
  if (several) row("frontier", frontier);
  row("crawl", Text(f, "crawl"));
  row("state", StateLine(f));
  if (const std::string last = LastLine(f); !last.empty()) row("last", last);
  const int64_t entries = Number(f, "entries");
  if (entries > 0) {
    row("queue", std::to_string(entries) + (entries == 1 ? " entry; " : " entries; ") +
                     Text(f, "ahead") +
                     " ahead of the first in its host's queue");
    row("entry", "depth " + Text(f, "depth") + ", attempt " + Text(f, "attempt") +
                     ", priority " + Text(f, "priority") +
                     (Text(f, "parent").empty() ? "" : ", parent " + Text(f, "parent")));
  }
  const std::string scope = Text(f, "scope");
  row("scope", scope.empty() ? "in scope" : "an add now is rejected: " + scope);
  row("robots", Text(f, "robots"));
  if (Text(f, "host_robots").empty()) {
    row("host", Text(f, "host") + " (no queue in this crawl)");
    return;
  }
  const int64_t blocked = Number(f, "host_blocked_until_ms");
  row("host", Text(f, "host") + ": " + Text(f, "host_queued") + " queued, " +
                  Text(f, "host_inflight") + " in flight, ready in " +
                  Text(f, "host_ready_in_ms") + " ms, delay " + Text(f, "host_delay_ms") +
                  " ms, robots.txt " + Text(f, "host_robots") +
                  (blocked > 0 ? ", blocked until " + UtcTimeOfMs(std::to_string(blocked)) : ""));
}

void PrintJson(const RespValue& reply, const std::string& frontier) {
  std::string s = "{\"frontier\":" + JsonString(frontier);
  for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    const RespValue& v = reply.elements[i + 1];
    s += "," + JsonString(reply.elements[i].str) + ":" +
         (v.type == RespType::kInteger ? std::to_string(v.integer) : JsonString(v.str));
  }
  std::printf("%s}\n", s.c_str());
}

}  // namespace

int RunUrl(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%sWhat the frontier knows of one URL: its canonical form, whether it\n"
                "was seen, its queue entries (ready, scheduled with their due time, or\n"
                "leased to which worker), whether an add would take it now (scope,\n"
                "deny patterns), what its host's robots.txt says of it, its host's\n"
                "state, and its last fetch result (outcome, HTTP status, attempt, when,\n"
                "reason). Reads the URL's host queue on the frontier.\n",
                kUrlUsage);
    return kExitOk;
  }
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: %s", kUrlUsage);
    return kExitUsage;
  }
  std::vector<std::string> cmd = {"FRONTIER.URL", args[0]};
  AddCrawl(g, &cmd);
  // It reads a host queue on the frontier's admin thread, behind a snapshot
  // or checkpoint if one runs.
  auto replies = CommandAll(g, cmd, g.timeout_given ? 0 : kAdminTimeoutMs);
  if (!replies.ok()) return Fail("url", replies.status());
  size_t pick = 0;  // the frontier that has seen it, else the first
  for (size_t i = 0; i < replies->size(); ++i) {
    if (Number(FieldsOf((*replies)[i]), "seen") == 1) {
      pick = i;
      break;
    }
  }
  if (g.json) {
    PrintJson((*replies)[pick], g.frontiers[pick]);
  } else {
    PrintText(FieldsOf((*replies)[pick]), g.frontiers[pick], g.frontiers.size() > 1);
  }
  return kExitOk;
}

}  // namespace crawlfront::ctl
