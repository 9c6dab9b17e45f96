// crawlctl queue HOST and crawlctl host HOST drop: one host's queue, asked
// of every frontier (only the host's owner has entries).

#include <cstdio>
#include <string>
#include <vector>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

constexpr const char* kQueueUsage = "crawlctl queue HOST [--count N]\n";
constexpr int kQueueFields = 7;  // FRONTIER.QUEUE's entry: see docs/protocol.md

std::string Field(const RespValue& v) {
  return v.type == RespType::kInteger ? std::to_string(v.integer) : v.str;
}

}  // namespace

int RunQueue(const GlobalOptions& g, const std::vector<std::string>& args) {
  std::string host, count = "10";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::printf("%sThe first N (default 10) URLs of a host's queue in the order leases\n"
                  "take them, leased ones marked, then scheduled ones (retries, recrawls)\n"
                  "with the time they are due.\n",
                  kQueueUsage);
      return kExitOk;
    } else if (args[i] == "--count" && i + 1 < args.size()) {
      count = args[++i];
      int64_t n = 0;
      if (!ParseCount(count, 1, 10'000, &n)) {
        std::fprintf(stderr, "crawlctl queue: --count wants a number in [1, 10000], got '%s'\n",
                     count.c_str());
        return kExitUsage;
      }
    } else if (host.empty() && !args[i].starts_with("-")) {
      host = args[i];
    } else {
      std::fprintf(stderr, "crawlctl queue: unexpected argument '%s'\n%s", args[i].c_str(),
                   kQueueUsage);
      return kExitUsage;
    }
  }
  if (host.empty()) {
    std::fprintf(stderr, "usage: %s", kQueueUsage);
    return kExitUsage;
  }
  std::vector<std::string> cmd = {"FRONTIER.QUEUE", host, "COUNT", count};
  AddCrawl(g, &cmd);
  auto replies = CommandAll(g, cmd);
  if (!replies.ok()) return Fail("queue", replies.status());
  static const char* kCols[kQueueFields] = {"url",      "state",  "depth", "attempt",
                                            "priority", "due_ms", "parent"};
  if (g.json) {
    std::printf("[");
  } else {
    std::printf("%-9s %5s %7s %8s %-20s %s\n", "state", "depth", "attempt", "priority", "due",
                "url (parent)");
  }
  bool first = true;
  for (const RespValue& r : *replies) {
    for (const RespValue& row : r.elements) {
      if (row.elements.size() != kQueueFields) continue;
      std::vector<std::string> f;
      for (const RespValue& e : row.elements) f.push_back(Field(e));
      if (g.json) {
        std::string s = first ? "{" : ",{";
        for (int i = 0; i < kQueueFields; ++i) {
          bool number = row.elements[i].type == RespType::kInteger;
          s += (i ? "," : "") + JsonString(kCols[i]) + ":" + (number ? f[i] : JsonString(f[i]));
        }
        std::printf("%s}", s.c_str());
      } else {
        std::string parent = f[6].empty() ? "" : " (" + f[6] + ")";
        std::printf("%-9s %5s %7s %8s %-20s %s%s\n", f[1].c_str(), f[2].c_str(), f[3].c_str(),
                    f[4].c_str(), UtcTimeOfMs(f[5]).c_str(), f[0].c_str(), parent.c_str());
      }
      first = false;
    }
  }
  if (g.json) std::printf("]\n");
  return kExitOk;
}

int RunHostDrop(const GlobalOptions& g, const std::string& host, const std::string& match) {
  std::vector<std::string> cmd = {"FRONTIER.DROP", host};
  if (!match.empty()) cmd.insert(cmd.end(), {"MATCH", match});
  AddCrawl(g, &cmd);
  // A matching drop reads the host's whole queue: allow it the admin bound.
  auto r = CommandAll(g, cmd, !match.empty() && !g.timeout_given ? kAdminTimeoutMs : 0);
  if (!r.ok()) return Fail("host drop", r.status());
  int64_t dropped = 0;
  for (const RespValue& v : *r) dropped += v.integer;
  if (g.json) {
    std::printf("{\"host\":%s,\"dropped\":%lld}\n", JsonString(host).c_str(),
                static_cast<long long>(dropped));
  } else {
    std::printf("dropped %lld queued URLs of %s\n", static_cast<long long>(dropped),
                host.c_str());
  }
  return kExitOk;
}

}  // namespace crawlfront::ctl
