#pragma once
// The processes behind a dashboard test: simweb (optional), one
// crawl-frontier with its status page, and one crawl-worker, all on
// 127.0.0.1 with ephemeral ports, stopped by PID (testutil::Daemon).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/resp_client.h"
#include "crawlfront/common/status.h"
#include "daemon.h"

namespace crawlfront::ui {

struct UiEnvOptions {
  int hosts = 10;  // simweb hosts h0..h<hosts-1>.simweb.test
  int pages = 30;  // pages per host
  // Frontier politeness delay; 300 ms makes a small crawl last some seconds.
  std::string delay = "300ms";
};

// Owns the daemons and the temp directory. Not thread-safe.
class UiEnv {
 public:
  explicit UiEnv(UiEnvOptions options) : options_(std::move(options)) {}
  ~UiEnv();  // stops the worker, the frontier and simweb, in that order

  // Starts the frontier (scope: *.simweb.test) and connects a RESP client.
  Status StartFrontier();
  // Starts simweb, then one worker ("w0") that reaches it through
  // --connect-to. REQUIRES: StartFrontier() succeeded.
  Status StartWebAndWorker();
  // FRONTIER.ADD of every simweb host's home page; each must be new.
  Status SeedHomePages();

  // One command on the RESP connection; a network failure is an error.
  Result<RespValue> Command(const std::vector<std::string>& args);
  // An integer field of INFO crawl (e.g. "urls_done").
  Result<int64_t> InfoCount(const std::string& field);
  // Polls INFO every 100 ms until `field` > `above` or `limit` passes.
  // Unavailable on timeout or when a daemon died (with the logs' tails).
  Status WaitAbove(const std::string& field, int64_t above, std::chrono::seconds limit);

  int http_port() const { return frontier_.Port("http"); }
  const std::string& dir() const { return dir_.path(); }
  // Tails of the daemons' logs, for failure messages.
  std::string Logs();

 private:
  Status CheckAlive();

  UiEnvOptions options_;
  testutil::TempDir dir_;
  testutil::Daemon simweb_, frontier_, worker_;
  std::unique_ptr<RespClient> client_;
};

}  // namespace crawlfront::ui
