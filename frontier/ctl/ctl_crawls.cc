// crawlctl crawls, crawlctl crawl ID drop and crawlctl deny: crawl-wide
// controls, sent to every frontier.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

constexpr const char* kCrawlUsage = "crawlctl crawl ID drop\n";
constexpr const char* kDenyUsage = "crawlctl deny add REGEX | del REGEX | list\n";
// FRONTIER.CRAWLS's row: id, paused, finished, then these counters.
constexpr const char* kCounters[] = {"urls_seen",   "urls_queued",  "urls_inflight", "urls_done",
                                     "urls_failed", "urls_dropped", "hosts"};
constexpr size_t kFirstCounter = 3;
constexpr size_t kRowFields = kFirstCounter + std::size(kCounters);

struct CrawlRow {
  bool paused = false;
  uint64_t counters[std::size(kCounters)] = {};
  // As the frontier defines it, over the sums: every frontier's part done.
  bool Finished() const { return counters[0] > 0 && counters[1] == 0 && counters[2] == 0; }
  const char* State() const { return paused ? "paused" : Finished() ? "finished" : "running"; }
};

// A crawl spans frontiers (each owns some of its hosts): counts add up, and
// it is paused when any frontier has it paused.
Result<std::map<std::string, CrawlRow>> FetchCrawls(const GlobalOptions& g) {
  auto replies = CommandAll(g, {"FRONTIER.CRAWLS"});
  if (!replies.ok()) return replies.status();
  std::map<std::string, CrawlRow> rows;
  for (const RespValue& r : *replies) {
    for (const RespValue& e : r.elements) {
      if (e.elements.size() != kRowFields) {
        return Status::Corruption("FRONTIER.CRAWLS row of " + std::to_string(e.elements.size()) +
                                  " fields, expected " + std::to_string(kRowFields));
      }
      CrawlRow& row = rows[e.elements[0].str];
      row.paused = row.paused || e.elements[1].integer != 0;
      for (size_t i = 0; i < std::size(kCounters); ++i) {
        row.counters[i] += static_cast<uint64_t>(e.elements[kFirstCounter + i].integer);
      }
    }
  }
  return rows;
}

}  // namespace

int RunCrawls(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (!args.empty()) {
    bool help = args[0] == "--help" || args[0] == "-h";
    std::fprintf(help ? stdout : stderr,
                 "crawlctl crawls\nEvery crawl with its state (running, paused, finished) and "
                 "counters, summed over the frontiers.\n");
    return help ? kExitOk : kExitUsage;
  }
  auto rows = FetchCrawls(g);
  if (!rows.ok()) return Fail("crawls", rows.status());
  if (g.json) std::printf("[");
  if (!g.json) {
    std::printf("%-20s %-8s %12s %10s %8s %12s %8s %10s %8s\n", "crawl", "state", "seen", "queued",
                "inflight", "done", "failed", "dropped", "hosts");
  }
  bool first = true;
  for (const auto& [id, row] : *rows) {
    const uint64_t* c = row.counters;
    if (g.json) {
      std::string s = std::string(first ? "" : ",") + "{\"crawl\":" + JsonString(id) +
                      ",\"state\":\"" + row.State() + "\"";
      for (size_t i = 0; i < std::size(kCounters); ++i) {
        s += ",\"" + std::string(kCounters[i]) + "\":" + std::to_string(c[i]);
      }
      std::printf("%s}", s.c_str());
    } else {
      std::printf("%-20s %-8s %12llu %10llu %8llu %12llu %8llu %10llu %8llu\n", id.c_str(),
                  row.State(), static_cast<unsigned long long>(c[0]),
                  static_cast<unsigned long long>(c[1]), static_cast<unsigned long long>(c[2]),
                  static_cast<unsigned long long>(c[3]), static_cast<unsigned long long>(c[4]),
                  static_cast<unsigned long long>(c[5]), static_cast<unsigned long long>(c[6]));
    }
    first = false;
  }
  if (g.json) std::printf("]\n");
  return kExitOk;
}

int RunCrawl(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%sDeletes every queued URL of crawl ID on every frontier (leases in flight\n"
                "finish; the URLs stay seen, host controls and counters stay).\n",
                kCrawlUsage);
    return kExitOk;
  }
  if (args.size() != 2 || (args[1] != "drop" && args[1] != "DROP")) {
    std::fprintf(stderr, "usage: %s", kCrawlUsage);
    return kExitUsage;
  }
  auto r = CommandAll(g, {"FRONTIER.DROPCRAWL", args[0]});
  if (!r.ok()) return Fail("crawl drop", r.status());
  int64_t dropped = 0;
  for (const RespValue& v : *r) dropped += v.integer;
  if (g.json) {
    std::printf("{\"crawl\":%s,\"dropped\":%lld}\n", JsonString(args[0]).c_str(),
                static_cast<long long>(dropped));
  } else {
    std::printf("dropped %lld queued URLs of crawl %s\n", static_cast<long long>(dropped),
                args[0].c_str());
  }
  return kExitOk;
}

// Every frontier gets the pattern: each one screens the links its own
// workers report. The list is the first frontier's.
int RunDeny(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%sNew URLs of the crawl (--crawl) in which REGEX (RE2 syntax: Perl's without\n"
                "backreferences or lookaround) finds a match are rejected \"denied by\n"
                "pattern\" from now on, like crawl.deny_regexes, on every frontier and\n"
                "across restarts. What is queued already stays: crawlctl host HOST drop\n"
                "--match REGEX deletes it. add and del wait up to 600000 ms unless\n"
                "--timeout is given (a frontier builds the crawl's pattern set again).\n",
                kDenyUsage);
    return kExitOk;
  }
  const bool list = args.size() == 1 && args[0] == "list";
  const bool change = args.size() == 2 && (args[0] == "add" || args[0] == "del");
  if (!list && !change) {
    std::fprintf(stderr, "usage: %s", kDenyUsage);
    return kExitUsage;
  }
  std::vector<std::string> cmd = {"FRONTIER.DENY"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  AddCrawl(g, &cmd);
  auto r = CommandAll(g, cmd, change && !g.timeout_given ? kAdminTimeoutMs : 0);
  if (!r.ok()) return Fail("deny", r.status());
  if (list) {
    const std::vector<RespValue>& patterns = r->front().elements;
    if (g.json) {
      std::string s = "[";
      for (size_t i = 0; i < patterns.size(); ++i) {
        s += (i ? "," : "") + JsonString(patterns[i].str);
      }
      std::printf("%s]\n", s.c_str());
    } else {
      for (const RespValue& p : patterns) std::printf("%s\n", p.str.c_str());
    }
    return kExitOk;
  }
  int64_t changed = 0;
  for (const RespValue& v : *r) changed += v.integer;
  std::printf(args[0] == "add" ? "pattern new on %lld of %zu frontier(s)\n"
                               : "pattern removed from %lld of %zu frontier(s)\n",
              static_cast<long long>(changed), r->size());
  return kExitOk;
}

}  // namespace crawlfront::ctl
