// crawlctl workers and crawlctl release WORKER: the leases each worker holds,
// on every frontier, and giving back those of a worker that is gone.

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

constexpr const char* kWorkersUsage = "crawlctl workers\n";
constexpr const char* kReleaseUsage = "crawlctl release [--force] WORKER [LEASE_ID ...]\n";

struct Held {
  int64_t leases = 0;
  int64_t next_deadline_in_ms = -1;
};

}  // namespace

int RunWorkers(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%sEvery worker holding leases, summed over the frontiers: how many, and\n"
                "how long until the first of them expires (then its URL is leased again).\n",
                kWorkersUsage);
    return kExitOk;
  }
  if (!args.empty()) {
    std::fprintf(stderr, "crawlctl workers: unexpected argument '%s'\n%s", args[0].c_str(),
                 kWorkersUsage);
    return kExitUsage;
  }
  auto replies = CommandAll(g, {"FRONTIER.WORKERS"});
  if (!replies.ok()) return Fail("workers", replies.status());
  std::map<std::string, Held> by;
  for (const RespValue& r : *replies) {
    for (const RespValue& row : r.elements) {
      if (row.elements.size() != 3) continue;
      Held& h = by[row.elements[0].str];
      h.leases += row.elements[1].integer;
      const int64_t next = row.elements[2].integer;
      if (h.next_deadline_in_ms < 0 || next < h.next_deadline_in_ms) h.next_deadline_in_ms = next;
    }
  }
  if (g.json) {
    std::string s = "[";
    for (const auto& [worker, h] : by) {
      s += (s.size() > 1 ? "," : "") + std::string("{\"worker\":") + JsonString(worker) +
           ",\"leases\":" + std::to_string(h.leases) +
           ",\"next_deadline_in_ms\":" + std::to_string(h.next_deadline_in_ms) + "}";
    }
    std::printf("%s]\n", s.c_str());
    return kExitOk;
  }
  std::printf("%8s %16s  %s\n", "leases", "first ends in ms", "worker");
  for (const auto& [worker, h] : by) {
    std::printf("%8lld %16lld  %s\n", static_cast<long long>(h.leases),
                static_cast<long long>(h.next_deadline_in_ms), worker.c_str());
  }
  if (by.empty()) std::printf("(no leases in flight)\n");
  return kExitOk;
}

int RunRelease(const GlobalOptions& g, const std::vector<std::string>& all_args) {
  if (!all_args.empty() && (all_args[0] == "--help" || all_args[0] == "-h")) {
    std::printf("%sEnds the worker's leases (all, or the given ones) on every frontier now,\n"
                "as if they had expired: their URLs go back to their queues with attempt+1\n"
                "and their hosts can be leased again without waiting for the deadlines.\n"
                "For a worker that is gone (crashed, machine lost); a live worker's later\n"
                "reports of released leases are answered 0 and ignored.\n"
                "A frontier refuses while a connection that used WORKER is still open\n"
                "(the worker runs, or its lost machine's connection has not timed out);\n"
                "--force releases anyway.\n",
                kReleaseUsage);
    return kExitOk;
  }
  std::vector<std::string> args = all_args;
  const auto forced = std::remove(args.begin(), args.end(), std::string("--force"));
  const bool force = forced != args.end();
  args.erase(forced, args.end());
  if (args.empty() || args[0].starts_with("-")) {
    std::fprintf(stderr, "usage: %s", kReleaseUsage);
    return kExitUsage;
  }
  std::vector<std::string> cmd = {"FRONTIER.RELEASE"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  if (force) cmd.push_back("FORCE");
  auto replies = CommandAll(g, cmd);
  if (!replies.ok()) return Fail("release", replies.status());
  int64_t released = 0;
  for (const RespValue& v : *replies) released += v.integer;
  if (g.json) {
    std::printf("{\"worker\":%s,\"released\":%lld}\n", JsonString(args[0]).c_str(),
                static_cast<long long>(released));
  } else {
    std::printf("released %lld leases of %s\n", static_cast<long long>(released),
                args[0].c_str());
  }
  return kExitOk;
}

}  // namespace crawlfront::ctl
