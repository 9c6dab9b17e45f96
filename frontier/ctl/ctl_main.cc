// crawlctl: the operator's command line for crawl-frontier.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ctl.h"

namespace {

using namespace crawlfront::ctl;

constexpr const char* kUsage =
    "usage: crawlctl [global options] COMMAND [args]\n"
    "\n"
    "Commands:\n"
    "  seed [FILE|-]              add URLs (one a line) with progress and a summary\n"
    "  status [--watch]           crawl totals (summed over every frontier)\n"
    "  hosts [--top N]            hosts with the largest queues\n"
    "  host HOST delay MS|block UNIX_MS|budget N|drop   per-host controls\n"
    "  queue HOST [--count N]     the first URLs of a host's queue, in lease order\n"
    "  dump [--json]              every queued URL of the crawl, one a line\n"
    "  crawls                     every crawl with its state and counters\n"
    "  crawl ID drop              delete every queued URL of a crawl\n"
    "  deny add|del REGEX | list  reject new URLs matching a pattern (run-time scope)\n"
    "  pause | resume             stop or restart handing out URLs\n"
    "  workers                    leases in flight per worker\n"
    "  release WORKER [ID ...]    end a gone worker's leases now (URLs queued again)\n"
    "  snapshot                   write the seen-set filters now\n"
    "  checkpoint DIR             consistent RocksDB copy for backups\n"
    "  seen URL                   1 if the URL was ever seen, else 0\n"
    "  url URL                    what the frontier knows of a URL: queued, leased,\n"
    "                             done, scope, robots (why it was not fetched)\n"
    "  run [options]              all-in-one crawl: simweb or seeds, frontier, workers\n"
    "\n"
    "Global options (before or after the command):\n"
    "  --frontier HOST:PORT       frontier to talk to (repeatable; default\n"
    "                             $CRAWLFRONT_FRONTIER or 127.0.0.1:6380)\n"
    "  --auth TOKEN               the frontier's auth_token ($CRAWLFRONT_AUTH)\n"
    "  --crawl ID                 crawl id (default: the default crawl)\n"
    "  --json                     machine-readable output on read commands\n"
    "  --timeout MS               network timeout (default 5000; snapshot,\n"
    "                             checkpoint, drop --match and deny add/del\n"
    "                             wait up to 600000)\n"
    "\n"
    "Exit codes: 0 ok, 1 failed, 2 usage. 'crawlctl COMMAND --help' for details.\n";

// Global options may come before or after the command. Returns 0 when
// args[*i] is not one (nothing consumed), 1 when consumed, -1 on a usage error.
int TakeGlobal(const std::vector<std::string>& args, size_t* i, GlobalOptions* g) {
  const std::string& a = args[*i];
  if (a == "--json") {
    g->json = true;
    return 1;
  }
  if (a != "--frontier" && a != "--auth" && a != "--crawl" && a != "--timeout") return 0;
  if (*i + 1 >= args.size()) {
    std::fprintf(stderr, "crawlctl: %s needs a value\n", a.c_str());
    return -1;
  }
  const std::string& v = args[++*i];
  if (a == "--frontier") g->frontiers.push_back(v);
  if (a == "--auth") g->auth = v;
  if (a == "--crawl") g->crawl = v;
  if (a == "--timeout") {
    int64_t ms = 0;
    if (!ParseCount(v, 1, 86'400'000, &ms)) {
      std::fprintf(stderr, "crawlctl: --timeout wants milliseconds in [1, 86400000], got '%s'\n",
                   v.c_str());
      return -1;
    }
    g->timeout_ms = static_cast<int>(ms);
    g->timeout_given = true;
  }
  return 1;
}

// Each --frontier once: a frontier listed twice would be counted twice.
bool CheckFrontiers(const GlobalOptions& g) {
  std::vector<std::string> seen;
  for (const auto& f : g.frontiers) {
    auto hp = FrontierAddress(f);
    if (!hp.ok()) {
      std::fprintf(stderr, "crawlctl: --frontier: %s\n", hp.status().message().c_str());
      return false;
    }
    std::string key = hp->host + ":" + std::to_string(hp->port);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      std::fprintf(stderr, "crawlctl: --frontier %s is listed twice\n", f.c_str());
      return false;
    }
    seen.push_back(key);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  GlobalOptions g;
  if (const char* a = std::getenv("CRAWLFRONT_AUTH")) g.auth = a;
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t i = 0;
  for (; i < args.size() && args[i].rfind("-", 0) == 0; ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    const int took = TakeGlobal(args, &i, &g);
    if (took < 0) return kExitUsage;
    if (took == 0) {
      std::fprintf(stderr, "crawlctl: unknown option '%s'\n%s", args[i].c_str(), kUsage);
      return kExitUsage;
    }
  }
  if (i >= args.size()) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  const std::string cmd = args[i];
  std::vector<std::string> rest;
  // `run` has options of its own (--timeout in seconds) and starts its own
  // frontier; the others take global options anywhere, up to "--".
  for (size_t j = i + 1; j < args.size(); ++j) {
    if (cmd == "run" || args[j] == "--") {
      rest.insert(rest.end(), args.begin() + j + (args[j] == "--" ? 1 : 0), args.end());
      break;
    }
    const int took = TakeGlobal(args, &j, &g);
    if (took < 0) return kExitUsage;
    if (took == 0) rest.push_back(args[j]);
  }
  if (g.frontiers.empty()) {
    const char* env = std::getenv("CRAWLFRONT_FRONTIER");
    g.frontiers.push_back(env ? env : "127.0.0.1:6380");
  }
  if (!CheckFrontiers(g)) return kExitUsage;
  if (cmd == "seed") return RunSeed(g, rest);
  if (cmd == "status") return RunStatus(g, rest);
  if (cmd == "hosts") return RunHosts(g, rest);
  if (cmd == "host") return RunHost(g, rest);
  if (cmd == "queue") return RunQueue(g, rest);
  if (cmd == "dump") return RunDump(g, rest);
  if (cmd == "url") return RunUrl(g, rest);
  if (cmd == "crawls") return RunCrawls(g, rest);
  if (cmd == "crawl") return RunCrawl(g, rest);
  if (cmd == "deny") return RunDeny(g, rest);
  if (cmd == "run") return RunRun(g, rest);
  if (cmd == "workers") return RunWorkers(g, rest);
  if (cmd == "release") return RunRelease(g, rest);
  if (cmd == "pause" || cmd == "resume" || cmd == "snapshot" || cmd == "checkpoint" ||
      cmd == "seen") {
    return RunSimple(g, cmd, rest);
  }
  std::fprintf(stderr, "crawlctl: unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return kExitUsage;
}
