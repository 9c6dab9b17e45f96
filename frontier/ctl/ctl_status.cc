// crawlctl status / hosts / host / pause / resume / snapshot / checkpoint / seen.

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <thread>

#include <unistd.h>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

bool IsNumber(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Each frontier's INFO crawl (or crawl:ID) fields, in --frontier order.
Result<std::vector<Pairs>> FetchInfo(const GlobalOptions& g) {
  std::vector<std::string> args = {"INFO", g.crawl.empty() ? "crawl" : "crawl:" + g.crawl};
  auto replies = CommandAll(g, args);
  if (!replies.ok()) return replies.status();
  std::vector<Pairs> out;
  for (const auto& r : *replies) out.push_back(ParseInfo(r.str));
  return out;
}

std::string Field(const Pairs& pairs, const std::string& name) {
  for (const auto& [k, v] : pairs) {
    if (k == name) return v;
  }
  return "";
}

// Sums numeric fields over the frontiers (each owns its own hosts, so counts
// add up) and keeps the first value of the others. Exceptions: `crawls` is
// the largest count (a crawl spans nodes), and the crawl is `finished` when
// every node holding URLs is finished.
Pairs AggregateInfo(const std::vector<Pairs>& nodes) {
  Pairs out;
  std::map<std::string, size_t> index;
  for (const auto& node : nodes) {
    for (const auto& [k, v] : node) {
      auto it = index.find(k);
      if (it == index.end()) {
        index[k] = out.size();
        out.emplace_back(k, v);
        continue;
      }
      std::string& have = out[it->second].second;
      if (k == "finished" || !IsNumber(v) || !IsNumber(have)) continue;
      double a = std::strtod(have.c_str(), nullptr), b = std::strtod(v.c_str(), nullptr);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.15g", k == "crawls" ? std::max(a, b) : a + b);
      have = buf;
    }
  }
  if (auto it = index.find("finished"); it != index.end()) {
    bool any_urls = false, all_done = true;
    for (const auto& node : nodes) {
      if (Field(node, "urls_seen") == "0" || Field(node, "urls_seen").empty()) continue;
      any_urls = true;
      all_done = all_done && Field(node, "finished") == "1";
    }
    out[it->second].second = any_urls && all_done ? "1" : "0";
  }
  return out;
}

// The fields shown for each frontier when there are several.
constexpr const char* kPerFrontierFields[] = {"urls_seen", "urls_queued", "urls_inflight",
                                              "urls_done", "urls_failed", "hosts",
                                              "finished"};

std::string PairsJson(const Pairs& pairs) {
  std::string s = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i) s += ",";
    s += JsonString(pairs[i].first) + ":" +
         (IsNumber(pairs[i].second) ? pairs[i].second : JsonString(pairs[i].second));
  }
  return s + "}";
}

// Totals; with several frontiers also a line (JSON: a "frontiers" array) each.
void PrintStatus(const GlobalOptions& g, const std::vector<Pairs>& nodes) {
  Pairs totals = AggregateInfo(nodes);
  bool several = nodes.size() > 1;
  if (g.json) {
    std::string s = PairsJson(totals);
    if (several) {
      s.pop_back();
      s += ",\"frontiers\":[";
      for (size_t i = 0; i < nodes.size(); ++i) {
        Pairs node = {{"frontier", g.frontiers[i]}};
        node.insert(node.end(), nodes[i].begin(), nodes[i].end());
        s += (i ? "," : "") + PairsJson(node);
      }
      s += "]}";
    }
    std::printf("%s\n", s.c_str());
    return;
  }
  for (auto& [k, v] : totals) std::printf("%-28s %s\n", k.c_str(), v.c_str());
  if (!several) return;
  std::printf("\nper frontier:\n");
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string line = g.frontiers[i];
    for (const char* f : kPerFrontierFields) {
      line += std::string("  ") + f + " " + Field(nodes[i], f);
    }
    std::printf("%s\n", line.c_str());
  }
}

std::string Text(const RespValue& v) {
  if (v.type == RespType::kInteger) return std::to_string(v.integer);
  if (v.type == RespType::kDouble) return std::to_string(v.number);
  if (v.is_null()) return "";
  return v.str;
}

// With URLs queued and none in flight, why: the hosts that wait and for
// what, and hosts ready that nobody leases (no worker, or a paused crawl).
void PrintIdle(const GlobalOptions& g, const std::vector<Pairs>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    int64_t queued = 0, ready = 0;
    if (!ParseCount(Field(nodes[i], "urls_queued"), 1, INT64_MAX, &queued) ||
        Field(nodes[i], "urls_inflight") != "0") {
      continue;
    }
    auto c = Connect(g, g.frontiers[i]);
    if (!c.ok()) continue;
    std::printf("\n%s%s queued, none in flight:\n",
                nodes.size() > 1 ? (g.frontiers[i] + ": ").c_str() : "",
                Plural(queued, "URL").c_str());
    std::printf("%s", WaitingHosts(c->get(), g).c_str());
    if (ParseCount(Field(nodes[i], "hosts_ready"), 1, INT64_MAX, &ready)) {
      std::printf("  ready: %s could be leased now: is a worker running (crawlctl workers), "
                  "or the crawl paused (crawlctl crawls)?\n",
                  Plural(ready, "host").c_str());
    }
  }
}

}  // namespace

int RunStatus(const GlobalOptions& g, const std::vector<std::string>& args) {
  bool watch = false;
  int interval_s = 2;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--watch" || args[i] == "-w") {
      watch = true;
    } else if (args[i] == "--interval" && i + 1 < args.size()) {
      int64_t s = 0;
      if (!ParseCount(args[++i], 1, 86400, &s)) {
        std::fprintf(stderr, "crawlctl status: --interval wants seconds in [1, 86400], got '%s'\n",
                     args[i].c_str());
        return kExitUsage;
      }
      interval_s = static_cast<int>(s);
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::printf("crawlctl status [--watch] [--interval S]\n"
                  "Crawl totals from INFO, summed over every --frontier; with several,\n"
                  "also a line per frontier (--json: a \"frontiers\" array). When URLs\n"
                  "are queued and none is in flight, the hosts that wait and for what.\n");
      return kExitOk;
    } else {
      std::fprintf(stderr, "crawlctl status: unknown argument '%s'\n", args[i].c_str());
      return kExitUsage;
    }
  }
  while (true) {
    auto info = FetchInfo(g);
    if (!info.ok()) return Fail("status", info.status());
    // A terminal is redrawn; a file or pipe gets one block per interval.
    if (watch && !g.json) std::printf("%s", isatty(STDOUT_FILENO) ? "\033[H\033[2J" : "\n");
    PrintStatus(g, *info);
    if (!g.json) PrintIdle(g, *info);
    std::fflush(stdout);
    if (!watch) return kExitOk;
    std::this_thread::sleep_for(std::chrono::seconds(interval_s));
  }
}

int RunHosts(const GlobalOptions& g, const std::vector<std::string>& args) {
  std::string top = "20";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--top" && i + 1 < args.size()) {
      top = args[++i];
      int64_t n = 0;
      if (!ParseCount(top, 1, 100'000, &n)) {
        std::fprintf(stderr, "crawlctl hosts: --top wants a number in [1, 100000], got '%s'\n",
                     top.c_str());
        return kExitUsage;
      }
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::printf("crawlctl hosts [--top N]\nHosts with the largest queues and their "
                  "politeness state.\n");
      return kExitOk;
    } else {
      std::fprintf(stderr, "crawlctl hosts: unknown argument '%s'\n", args[i].c_str());
      return kExitUsage;
    }
  }
  std::vector<std::string> cmd = {"FRONTIER.HOSTS", "TOP", top};
  AddCrawl(g, &cmd);
  auto replies = CommandAll(g, cmd);
  if (!replies.ok()) return Fail("hosts", replies.status());
  static const char* kCols[] = {"host",     "queued",        "inflight", "done", "ready_in_ms",
                                "delay_ms", "blocked_until", "robots",   "crawl"};
  std::vector<std::vector<std::string>> rows;
  bool other_crawls = false;  // a crawl column only when it says something
  for (const auto& r : *replies) {
    for (const auto& row : r.elements) {
      std::vector<std::string> f;
      for (const auto& e : row.elements) f.push_back(Text(e));
      f.resize(9);
      other_crawls |= f[8] != "default";
      rows.push_back(std::move(f));
    }
  }
  auto print_row = [&](const std::vector<std::string>& f, const std::string& blocked) {
    std::printf("%-32s %9s %8s %9s %11s %9s %-20s %-8s%s%s\n", f[0].c_str(), f[1].c_str(),
                f[2].c_str(), f[3].c_str(), f[4].c_str(), f[5].c_str(), blocked.c_str(),
                f[7].c_str(), other_crawls ? " " : "", other_crawls ? f[8].c_str() : "");
  };
  if (g.json) {
    std::printf("[");
  } else {
    print_row({kCols, kCols + 9}, kCols[6]);
  }
  for (size_t n = 0; n < rows.size(); ++n) {
    const auto& f = rows[n];
    if (!g.json) {
      print_row(f, UtcTimeOfMs(f[6]));
      continue;
    }
    std::string s = n == 0 ? "{" : ",{";
    for (int i = 0; i < 9; ++i) {
      s += (i ? "," : "") + JsonString(kCols[i]) + ":" +
           (i > 0 && i < 7 && IsNumber(f[i]) ? f[i] : JsonString(f[i]));
    }
    std::printf("%s}", s.c_str());
  }
  if (g.json) std::printf("]\n");
  return kExitOk;
}

namespace {

constexpr const char* kHostUsage =
    "crawlctl host HOST delay MS | block UNIX_MS | budget N | drop [--match REGEX]\n";

}  // namespace

int RunHost(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%s"
                "Sets a host's politeness delay, blocks it until a time, or caps its URLs;\n"
                "drop deletes its queued URLs (leases in flight finish; the URLs stay seen),\n"
                "with --match only those in which REGEX (RE2 syntax) finds a match.\n",
                kHostUsage);
    return kExitOk;
  }
  if (args.size() >= 2 && (args[1] == "drop" || args[1] == "DROP")) {
    if (args.size() == 2) return RunHostDrop(g, args[0], "");
    if (args.size() == 4 && args[2] == "--match") return RunHostDrop(g, args[0], args[3]);
    std::fprintf(stderr, "usage: %s", kHostUsage);
    return kExitUsage;
  }
  if (args.size() != 3) {
    std::fprintf(stderr, "usage: %s", kHostUsage);
    return kExitUsage;
  }
  std::string what = args[1];
  for (auto& ch : what) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (what != "DELAY" && what != "BLOCK" && what != "BUDGET") {
    std::fprintf(stderr, "crawlctl host: expected delay, block, budget or drop, got '%s'\n",
                 args[1].c_str());
    return kExitUsage;
  }
  std::vector<std::string> cmd = {"FRONTIER.HOST", args[0], what, args[2]};
  AddCrawl(g, &cmd);
  auto r = CommandAll(g, cmd);
  if (!r.ok()) return Fail("host", r.status());
  std::printf("OK\n");
  return kExitOk;
}

// A pause names a crawl no frontier has yet (a typo, or one about to be
// seeded): the frontier creates it, so say so.
void WarnIfNewCrawl(const GlobalOptions& g, const std::string& verb) {
  auto r = CommandAll(g, {"FRONTIER.CRAWLS"});
  if (!r.ok()) return;  // the command itself will report the problem
  for (const RespValue& reply : *r) {
    for (const RespValue& row : reply.elements) {
      if (!row.elements.empty() && row.elements[0].str == g.crawl) return;
    }
  }
  std::fprintf(stderr,
               "crawlctl %s: note: no frontier has crawl '%s' yet; it is created now "
               "(`crawlctl crawls` lists crawls)\n",
               verb.c_str(), g.crawl.c_str());
}

int RunSimple(const GlobalOptions& g, const std::string& verb,
              const std::vector<std::string>& args) {
  static const std::map<std::string, std::pair<std::string, int>> kVerbs = {
      {"pause", {"FRONTIER.PAUSE", 0}},       {"resume", {"FRONTIER.RESUME", 0}},
      {"snapshot", {"FRONTIER.SNAPSHOT", 0}}, {"checkpoint", {"FRONTIER.CHECKPOINT", 1}},
      {"seen", {"FRONTIER.SEEN", 1}},
  };
  auto it = kVerbs.find(verb);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("crawlctl %s%s\n", verb.c_str(),
                verb == "checkpoint" ? " DIR   (a consistent RocksDB checkpoint for backups)"
                : verb == "seen"     ? " URL   (exit 0 and prints 1 if seen, 0 if not)"
                                     : "");
    return kExitOk;
  }
  if (static_cast<int>(args.size()) != it->second.second) {
    std::fprintf(stderr, "crawlctl %s: expected %d argument(s); see --help\n", verb.c_str(),
                 it->second.second);
    return kExitUsage;
  }
  std::vector<std::string> cmd = {it->second.first};
  cmd.insert(cmd.end(), args.begin(), args.end());
  // The frontier resolves a relative path against its own working
  // directory, which the operator rarely knows.
  if (verb == "checkpoint") cmd[1] = std::filesystem::absolute(args[0]).lexically_normal();
  const bool admin = verb == "snapshot" || verb == "checkpoint";
  if (!admin) AddCrawl(g, &cmd);
  if ((verb == "pause" || verb == "resume") && !g.crawl.empty()) WarnIfNewCrawl(g, verb);
  // A snapshot of a large seen-set or a checkpoint that flushes memtables
  // can take minutes; the daemon answers when it is done. Connecting keeps
  // the short timeout.
  auto r = CommandAll(g, cmd, admin && !g.timeout_given ? kAdminTimeoutMs : 0);
  if (!r.ok()) return Fail(verb, r.status());
  if (verb == "seen") {
    bool seen = false;
    for (auto& v : *r) seen = seen || v.integer == 1;
    std::printf(g.json ? "{\"seen\":%s}\n" : "%s\n", g.json ? (seen ? "true" : "false")
                                                            : (seen ? "1" : "0"));
  } else if (verb == "checkpoint") {
    std::printf("OK: checkpoint in %s (on the frontier's machine)\n", cmd[1].c_str());
  } else {
    std::printf("OK\n");
  }
  return kExitOk;
}

}  // namespace crawlfront::ctl
