// crawlctl status / hosts / host / pause / resume / snapshot / checkpoint / seen.

#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

bool IsNumber(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// Sums numeric INFO fields over all frontiers (counts add up across nodes);
// keeps the first value of the others.
Result<std::vector<std::pair<std::string, std::string>>> AggregateInfo(const GlobalOptions& g) {
  std::vector<std::string> args = {"INFO", g.crawl.empty() ? "crawl" : "crawl:" + g.crawl};
  auto replies = CommandAll(g, args);
  if (!replies.ok()) return replies.status();
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, size_t> index;
  for (const auto& r : *replies) {
    for (auto& [k, v] : ParseInfo(r.str)) {
      auto it = index.find(k);
      if (it == index.end()) {
        index[k] = out.size();
        out.emplace_back(k, v);
      } else if (IsNumber(v) && IsNumber(out[it->second].second) && k != "finished") {
        double sum = std::strtod(out[it->second].second.c_str(), nullptr) +
                     std::strtod(v.c_str(), nullptr);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.15g", sum);
        out[it->second].second = buf;
      } else if (k == "finished" && v == "0") {
        out[it->second].second = "0";  // finished only when every node is
      }
    }
  }
  return out;
}

void PrintPairs(const GlobalOptions& g,
                const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (g.json) {
    std::string s = "{";
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (i) s += ",";
      s += JsonString(pairs[i].first) + ":" +
           (IsNumber(pairs[i].second) ? pairs[i].second : JsonString(pairs[i].second));
    }
    std::printf("%s}\n", s.c_str());
    return;
  }
  for (auto& [k, v] : pairs) std::printf("%-28s %s\n", k.c_str(), v.c_str());
}

std::string Text(const RespValue& v) {
  if (v.type == RespType::kInteger) return std::to_string(v.integer);
  if (v.type == RespType::kDouble) return std::to_string(v.number);
  if (v.is_null()) return "";
  return v.str;
}

}  // namespace

int RunStatus(const GlobalOptions& g, const std::vector<std::string>& args) {
  bool watch = false;
  int interval_s = 2;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--watch" || args[i] == "-w") {
      watch = true;
    } else if (args[i] == "--interval" && i + 1 < args.size()) {
      interval_s = std::max(1, std::atoi(args[++i].c_str()));
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::printf("crawlctl status [--watch] [--interval S]\n"
                  "Crawl totals from INFO, summed over every --frontier.\n");
      return kExitOk;
    } else {
      std::fprintf(stderr, "crawlctl status: unknown argument '%s'\n", args[i].c_str());
      return kExitUsage;
    }
  }
  while (true) {
    auto info = AggregateInfo(g);
    if (!info.ok()) return Fail("status", info.status());
    if (watch && !g.json) std::printf("\033[H\033[2J");
    PrintPairs(g, *info);
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
  static const char* kCols[] = {"host", "queued", "inflight", "done", "ready_in_ms",
                                "delay_ms", "blocked_until", "robots"};
  if (g.json) std::printf("[");
  else std::printf("%-32s %9s %8s %9s %11s %9s %14s %s\n", kCols[0], kCols[1], kCols[2],
                   kCols[3], kCols[4], kCols[5], kCols[6], kCols[7]);
  bool first = true;
  for (const auto& r : *replies) {
    for (const auto& row : r.elements) {
      std::vector<std::string> f;
      for (const auto& e : row.elements) f.push_back(Text(e));
      f.resize(8);
      if (g.json) {
        std::string s = first ? "{" : ",{";
        for (int i = 0; i < 8; ++i) {
          s += (i ? "," : "") + JsonString(kCols[i]) + ":" +
               (i > 0 && i < 7 && IsNumber(f[i]) ? f[i] : JsonString(f[i]));
        }
        std::printf("%s}", s.c_str());
      } else {
        std::printf("%-32s %9s %8s %9s %11s %9s %14s %s\n", f[0].c_str(), f[1].c_str(),
                    f[2].c_str(), f[3].c_str(), f[4].c_str(), f[5].c_str(), f[6].c_str(),
                    f[7].c_str());
      }
      first = false;
    }
  }
  if (g.json) std::printf("]\n");
  return kExitOk;
}

int RunHost(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("crawlctl host HOST delay MS | block UNIX_MS | budget N\n"
                "Sets a host's politeness delay, blocks it until a time, or caps its URLs.\n");
    return kExitOk;
  }
  if (args.size() != 3) {
    std::fprintf(stderr, "usage: crawlctl host HOST delay MS | block UNIX_MS | budget N\n");
    return kExitUsage;
  }
  std::string what = args[1];
  for (auto& ch : what) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (what != "DELAY" && what != "BLOCK" && what != "BUDGET") {
    std::fprintf(stderr, "crawlctl host: expected delay, block or budget, got '%s'\n",
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
  if (verb != "snapshot" && verb != "checkpoint") AddCrawl(g, &cmd);
  auto r = CommandAll(g, cmd);
  if (!r.ok()) return Fail(verb, r.status());
  if (verb == "seen") {
    bool seen = false;
    for (auto& v : *r) seen = seen || v.integer == 1;
    std::printf(g.json ? "{\"seen\":%s}\n" : "%s\n", g.json ? (seen ? "true" : "false")
                                                            : (seen ? "1" : "0"));
  } else {
    std::printf("OK\n");
  }
  return kExitOk;
}

}  // namespace crawlfront::ctl
