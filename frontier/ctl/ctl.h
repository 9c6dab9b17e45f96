#pragma once
// crawlctl internals: shared connection handling and output helpers.

#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/net.h"
#include "crawlfront/common/resp_client.h"
#include "crawlfront/common/status.h"

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
};

// "host:port" of a frontier to connect to (no port 0; empty host = 127.0.0.1).
Result<HostPort> FrontierAddress(const std::string& s);
// Connects to `address` with the global auth and timeout.
Result<std::unique_ptr<RespClient>> Connect(const GlobalOptions& g, const std::string& address);
// Runs one command against every frontier; fails on the first error.
Result<std::vector<RespValue>> CommandAll(const GlobalOptions& g,
                                          const std::vector<std::string>& args);
// Appends "CRAWL id" when a crawl was chosen.
void AddCrawl(const GlobalOptions& g, std::vector<std::string>* args);
// "name:value" lines of an INFO reply into pairs (skips "# Section" lines).
std::vector<std::pair<std::string, std::string>> ParseInfo(const std::string& text);
// JSON string literal with escapes.
std::string JsonString(std::string_view s);
// Prints an error to stderr as "crawlctl: <what>: <status>".
int Fail(const std::string& what, const Status& s);

int RunSeed(const GlobalOptions& g, const std::vector<std::string>& args);
int RunStatus(const GlobalOptions& g, const std::vector<std::string>& args);
int RunHosts(const GlobalOptions& g, const std::vector<std::string>& args);
int RunHost(const GlobalOptions& g, const std::vector<std::string>& args);
int RunSimple(const GlobalOptions& g, const std::string& verb,
              const std::vector<std::string>& args);
int RunRun(const GlobalOptions& g, const std::vector<std::string>& args);

}  // namespace crawlfront::ctl
