// crawlctl dump: every queued URL of a crawl on every frontier, one a line
// (a file crawlctl seed takes back) or, with --json, one JSON object a line.
// FRONTIER.SCAN pages through the queues; nothing is held between pages.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kDumpUsage = "crawlctl dump [--match REGEX] [--json] > FILE\n";
constexpr size_t kScanFields = 8;  // FRONTIER.SCAN's entry: see docs/protocol.md
constexpr const char* kCols[kScanFields] = {"url",    "state",  "depth", "attempt",
                                            "priority", "due_ms", "parent", "host"};

void PrintRow(const RespValue& row, bool json) {
  if (!json) {
    std::printf("%s\n", row.elements[0].str.c_str());
    return;
  }
  std::string s = "{";
  for (size_t i = 0; i < kScanFields; ++i) {
    const RespValue& f = row.elements[i];
    s += (i ? "," : "") + JsonString(kCols[i]) + ":" +
         (f.type == RespType::kInteger ? std::to_string(f.integer) : JsonString(f.str));
  }
  std::printf("%s}\n", s.c_str());
}

// Progress on stderr (stdout is the dump): on a terminal a line redrawn
// every 200 ms, elsewhere a line every 5 s.
class DumpProgress {
 public:
  void Update(uint64_t urls, bool final) {
    const auto now = Clock::now();
    const auto every = tty_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(5000);
    if (final ? !tty_ : now - last_ < every) return;  // the summary follows
    last_ = now;
    const double secs = Seconds();
    std::fprintf(stderr, "%sdump: %llu URLs, %.0f URLs/s%s", tty_ ? "\r" : "",
                 static_cast<unsigned long long>(urls), secs > 0 ? urls / secs : 0.0,
                 tty_ && !final ? "   " : "\n");
  }
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  const bool tty_ = isatty(STDERR_FILENO);
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

// Pages through one frontier's queues; adds to *urls what it printed.
Status DumpFrontier(const GlobalOptions& g, const std::string& address,
                    const std::string& match, DumpProgress& progress, uint64_t* urls) {
  auto client = Connect(g, address);
  if (!client.ok()) return client.status();
  std::string cursor = "0";
  do {
    std::vector<std::string> cmd = {"FRONTIER.SCAN", cursor, "COUNT", "1000"};
    if (!match.empty()) cmd.insert(cmd.end(), {"MATCH", match});
    AddCrawl(g, &cmd);
    Result<RespValue> r = (*client)->Command(cmd);
    if (!r.ok()) return Status::Unavailable("frontier " + address + ": " + r.status().message());
    if (r->is_error()) return Status::InvalidArgument("frontier " + address + ": " + r->str);
    if (r->elements.size() != 2 || r->elements[1].type != RespType::kArray) {
      return Status::Corruption("frontier " + address + ": unexpected FRONTIER.SCAN reply");
    }
    for (const RespValue& row : r->elements[1].elements) {
      if (row.elements.size() != kScanFields) continue;
      PrintRow(row, g.json);
      ++*urls;
    }
    cursor = r->elements[0].str;
    progress.Update(*urls, false);
  } while (cursor != "0");
  return Status::Ok();
}

}  // namespace

int RunDump(const GlobalOptions& g, const std::vector<std::string>& args) {
  std::string match;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--match" && i + 1 < args.size() && !args[i + 1].empty()) {
      match = args[++i];
      continue;
    }
    if (a == "--help" || a == "-h") {
      std::printf("%sEvery URL queued in the crawl (--crawl ID; default: the default crawl) on\n"
                  "every frontier, one a line: ready, leased and scheduled ones (retries,\n"
                  "recrawls), host by host in lease order. `crawlctl seed FILE` adds them to\n"
                  "another frontier. With --json, one object a line: url, state, depth,\n"
                  "attempt, priority, due_ms, parent, host. Done URLs are not listed: the\n"
                  "seen-set keeps fingerprints, not URLs. --match REGEX lists only URLs in\n"
                  "which the RE2 pattern finds a match (what `crawlctl host H drop --match`\n"
                  "would take, across hosts). Progress goes to stderr.\n",
                  kDumpUsage);
      return kExitOk;
    }
    std::fprintf(stderr, "crawlctl dump: unexpected argument '%s'\n%s", a.c_str(), kDumpUsage);
    return kExitUsage;
  }
  DumpProgress progress;
  uint64_t urls = 0;
  for (const std::string& address : g.frontiers) {
    Status st = DumpFrontier(g, address, match, progress, &urls);
    if (!st.ok()) {
      std::fflush(stdout);
      return Fail("dump", st);
    }
  }
  if (std::fflush(stdout) != 0) return Fail("dump", Status::IoError("cannot write stdout"));
  progress.Update(urls, true);
  std::fprintf(stderr, "dump: %s of crawl %s from %s in %.1f s\n", Plural(urls, "URL").c_str(),
               g.crawl.empty() ? "default" : g.crawl.c_str(),
               Plural(g.frontiers.size(), "frontier").c_str(), progress.Seconds());
  return kExitOk;
}

}  // namespace crawlfront::ctl
