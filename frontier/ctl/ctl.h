#pragma once
// crawlctl internals: shared connection handling and output helpers.

#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/net.h"
#include "crawlfront/common/resp_client.h"
#include "crawlfront/common/status.h"
#include "crawlfront/common/url.h"

namespace crawlfront::ctl {

// Exit codes: 0 ok, 1 failed, 2 usage.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct GlobalOptions {
  std::vector<std::string> frontiers;  // HOST:PORT, at least one
  std::string auth;
  std::string crawl;  // empty = default crawl
  bool json = false;
  int timeout_ms = 5000;
  bool timeout_given = false;  // --timeout on the command line
};

// "host:port" of a frontier to connect to (no port 0; empty host = 127.0.0.1).
Result<HostPort> FrontierAddress(const std::string& s);
// Connects to `address` with the global auth and timeout.
Result<std::unique_ptr<RespClient>> Connect(const GlobalOptions& g, const std::string& address);
// Runs one command against every frontier; fails on the first error.
// reply_timeout_ms > 0 bounds each reply instead of g.timeout_ms (which
// still bounds connecting).
Result<std::vector<RespValue>> CommandAll(const GlobalOptions& g,
                                          const std::vector<std::string>& args,
                                          int reply_timeout_ms = 0);
// Reply bound of commands that run on a frontier's admin thread (snapshot,
// checkpoint, drop --match, deny add/del) unless --timeout was given.
constexpr int kAdminTimeoutMs = 600'000;
// Appends "CRAWL id" when a crawl was chosen.
void AddCrawl(const GlobalOptions& g, std::vector<std::string>* args);
// "name:value" lines of an INFO reply into pairs (skips "# Section" lines).
std::vector<std::pair<std::string, std::string>> ParseInfo(const std::string& text);
// Parses a decimal integer in [min, max] (the whole text); false otherwise.
bool ParseCount(const std::string& text, int64_t min, int64_t max, int64_t* out);
// A time for FRONTIER.ADDX REFETCH in Unix ms: "now", "+" and a duration as
// config files write it (ParseDuration: +90s, +30m, +24h), or a Unix time in
// ms (one that reads as seconds is an error).
Result<int64_t> ParseWhen(const std::string& text, int64_t now_ms);
// A Unix ms time as people read it ("2026-12-06T17:00:00Z"); "-" for 0.
std::string UtcTimeOfMs(const std::string& ms_text);
// "1 URL", "2 URLs".
std::string Plural(uint64_t n, const std::string& noun);
// JSON string literal with escapes.
std::string JsonString(std::string_view s);
// Prints an error to stderr as "crawlctl: <what>: <status>".
int Fail(const std::string& what, const Status& s);

// Picks the --frontier that owns each seed URL: the owner of its host's
// seen-set partition by rendezvous hashing over the --frontier addresses as
// given (crawlfront/common/ownership.h). Lines that do not parse go to the
// first frontier, which rejects them with its own reason.
class SeedRouter {
 public:
  // With one frontier nothing is asked. With several, asks each for its
  // seen_partitions (INFO seen); fails when one is unreachable, when they
  // disagree, or when an address is listed twice.
  static Result<SeedRouter> Open(const GlobalOptions& g, HostKeyMode host_key);
  // Index in g.frontiers of the frontier for this seed line.
  size_t FrontierFor(std::string_view url) const;

 private:
  std::vector<size_t> owners_;  // frontier index by partition; empty with one frontier
  uint32_t partitions_ = 0;
  std::string crawl_;
  UrlOptions url_;
};

int RunSeed(const GlobalOptions& g, const std::vector<std::string>& args);
int RunStatus(const GlobalOptions& g, const std::vector<std::string>& args);
int RunHosts(const GlobalOptions& g, const std::vector<std::string>& args);
int RunHost(const GlobalOptions& g, const std::vector<std::string>& args);
// ctl_queue.cc: one host's queue (crawlctl queue HOST, crawlctl host HOST drop).
int RunQueue(const GlobalOptions& g, const std::vector<std::string>& args);
// An empty `match` drops everything queued for the host.
int RunHostDrop(const GlobalOptions& g, const std::string& host, const std::string& match);
// ctl_dump.cc: crawlctl dump, every queued URL of a crawl.
int RunDump(const GlobalOptions& g, const std::vector<std::string>& args);
// ctl_crawls.cc: crawlctl crawls, crawlctl crawl ID drop, crawlctl deny.
int RunCrawls(const GlobalOptions& g, const std::vector<std::string>& args);
int RunCrawl(const GlobalOptions& g, const std::vector<std::string>& args);
int RunDeny(const GlobalOptions& g, const std::vector<std::string>& args);
int RunSimple(const GlobalOptions& g, const std::string& verb,
              const std::vector<std::string>& args);
int RunRun(const GlobalOptions& g, const std::vector<std::string>& args);
int RunWorkers(const GlobalOptions& g, const std::vector<std::string>& args);
int RunRelease(const GlobalOptions& g, const std::vector<std::string>& args);
// ctl_url.cc: crawlctl url URL.
int RunUrl(const GlobalOptions& g, const std::vector<std::string>& args);

// Lines naming the hosts whose queued URLs wait (a failed robots.txt, a
// block, a delay) and for how long; empty when none waits or on error.
std::string WaitingHosts(RespClient* client, const GlobalOptions& g);

}  // namespace crawlfront::ctl
