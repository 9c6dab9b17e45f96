#pragma once
// An end-to-end crawl on 127.0.0.1: simweb, one crawl-frontier and
// crawl-workers (real binaries, real HTTP through libcurl), plus the oracle.
// Every process is stopped by PID (testutil::Daemon).

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/resp_client.h"
#include "crawlfront/common/status.h"
#include "daemon.h"

namespace crawlfront::e2e {

struct WebOptions {
  int hosts = 8;
  int pages = 40;
  int seed = 7;
  int max_depth = 20;  // above the web's diameter, so the oracle is exact
  int delay_ms = 100;  // crawl.default_delay
  // Extra "--set key=value" pairs for the frontier.
  std::vector<std::string> frontier_sets;
  // Extra simweb flags (e.g. "--encodings", "br"); none change the oracle.
  std::vector<std::string> simweb_args;
};

// Runs `program` (looked up in PATH unless it contains '/') to completion,
// like RunTool. Exit code 127 means it could not be started.
Result<int> RunProgram(const std::string& program, const std::vector<std::string>& args,
                       const std::string& out_path, const std::string& err_path,
                       std::chrono::seconds timeout);

// Runs BinDir()/binary to completion with stdout and stderr in files.
// Bounded by `timeout` (then SIGKILL). Returns the exit code, or an error.
Result<int> RunTool(const std::string& binary, const std::vector<std::string>& args,
                    const std::string& out_path, const std::string& err_path,
                    std::chrono::seconds timeout);

// Owns the processes of one crawl and its temp directory.
// Not thread-safe; one test thread drives it.
class CrawlEnv {
 public:
  explicit CrawlEnv(WebOptions options);
  ~CrawlEnv();  // stops workers, frontier, simweb (in that order)

  // Starts simweb and the frontier, and seeds every host's home page.
  Status Start();
  // Starts worker number `n` (worker id "w<n>", log "worker<n>.log");
  // `extra` flags come last, so they override the usual ones.
  Status StartWorker(int n, const std::vector<std::string>& extra = {});
  // Runs worker `n` as StartWorker would, to completion (bounded by
  // `limit`); its exit code.
  Result<int> RunWorker(int n, const std::vector<std::string>& extra, std::chrono::seconds limit);
  std::string worker_log(int n) const { return dir_ / ("worker" + std::to_string(n) + ".log"); }
  // SIGKILL of worker `n` (it gets no chance to report or close its WARC).
  void KillWorker(int n);
  // SIGTERM of every worker, waiting for a clean exit; non-OK if one failed.
  Status StopWorkers();

  // SIGKILL of the frontier: no snapshot, no clean close of RocksDB.
  void KillFrontier();
  // Starts the frontier again on its data directory and its ports, so that
  // the workers reconnect to it.
  Status RestartFrontier();

  // Sends one command to the frontier.
  Result<RespValue> Command(const std::vector<std::string>& args);
  // A connection of its own to the frontier (e.g. one that is then closed).
  Result<std::unique_ptr<RespClient>> Connect();
  // One "INFO crawl" field from the frontier, e.g. "finished", "urls_done".
  Result<std::string> Info(const std::string& field);
  // Polls INFO every 200 ms until finished:1, up to `limit`. Unavailable
  // when the limit passes or a daemon died (with the logs' tails).
  Status WaitFinished(std::chrono::seconds limit);
  // Polls until urls_done reaches `n` (same limits as WaitFinished).
  Status WaitDone(uint64_t n, std::chrono::seconds limit);

  // Runs `simweb --expect` for this web and depth with `extra` flags (e.g.
  // "--robots", "ignore"); its stdout and stderr go to <dir>/<name>.out/.err.
  Status RunOracle(const std::vector<std::string>& extra, const std::string& name,
                   std::string* out_path, std::string* err_path);

  const WebOptions& options() const { return options_; }
  std::string access_log() const { return dir_ / "access.log"; }
  std::string warc_dir() const { return dir_ / "warc"; }
  // Tails of every daemon's log, for failure messages.
  std::string Logs();

 private:
  Status CheckAlive();
  Status CheckLiveCounts();
  Status StartFrontier(int resp_port, int http_port);
  Status Seed();
  std::vector<std::string> WorkerArgs(int n, const std::vector<std::string>& extra) const;

  WebOptions options_;
  testutil::TempDir dir_;
  testutil::Daemon simweb_, frontier_;
  std::vector<std::string> frontier_args_;  // the "--set" flags
  std::map<int, testutil::Daemon> workers_;
  std::unique_ptr<RespClient> client_;
};

}  // namespace crawlfront::e2e
