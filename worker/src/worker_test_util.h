#pragma once
// Shared by the worker's tests: a fake frontier (a RespServer with
// FRONTIER.LEASE/DONE/RENEW/RELEASE and INFO robots that hands out a fixed set of
// leases and records what it is told), the test site's pages, a log capture
// and a runner for the crawl-worker binary. Everything stays on 127.0.0.1.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include "crawlfront/frontier/resp_server.h"
#include "crawlfront/worker/worker.h"
#include "fetcher_test_server.h"
#include "ports.h"

namespace crawlfront::worker_test {

// Frontier state that survives a restart of the fake server.
struct FakeFrontier {
  std::mutex mu;
  std::deque<std::vector<std::string>> leases;  // {id, url, kind}
  std::set<std::string> open;
  std::map<std::string, std::vector<std::string>> done;  // lease id -> DONE args
  std::map<std::string, std::string> renewed;            // lease id -> RENEW ms
  // "LEASE", "DONE", "RENEW", "INFO", "RELEASE <worker>" in arrival order
  std::vector<std::string> calls;
  int done_calls = 0;
  int lease_calls = 0;
  // Errors the next RELEASEs answer, one each (e.g. BUSY: a running worker
  // uses the id); then RELEASE succeeds.
  std::deque<std::string> release_errors;
  // The line INFO robots answers with; "" leaves the field out.
  std::string robots_line = "robots_user_agent:CrawlFront";  // case differs on purpose

  void Add(std::string id, std::string url, std::string kind);
  size_t done_count();
  size_t CallsOf(const std::string& name);
  // Starts a server on 127.0.0.1:port (0 = ephemeral) answering from this state.
  std::unique_ptr<RespServer> Start(uint16_t port);

 private:
  void Lease(CallContext& ctx);
  void Done(CallContext& ctx);
  void Renew(CallContext& ctx);
  void Release(CallContext& ctx);
  std::string Info(std::string_view section);
};

// The test site: /robots.txt, /index.html (links), /moved (302), /busy
// (503, Retry-After 3), /slow (held until the gate opens), else 404.
testing::TestResponse Site(const std::string& path, const std::string& head);

// Waits (bounded, 20 s) until `done` holds.
template <typename Pred>
bool WaitFor(Pred done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// The decompressed text of every .warc.gz file in dir.
std::string ReadWarcs(const std::filesystem::path& dir);
// Occurrences of needle in text.
size_t Count(const std::string& text, const std::string& needle);

// Sends spdlog's default logger to a ring buffer (debug and up) while alive.
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  // Lines "<level> <message>" logged so far at `level` containing `needle`.
  size_t Lines(spdlog::level::level_enum level, const std::string& needle);
  std::string All();

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> old_;
};

// The crawl-worker binary: $CRAWLFRONT_BIN_DIR or the path CMake compiled in.
std::string WorkerBinary();
// Starts the binary with `args`, stdout and stderr appended to `output`.
pid_t SpawnWorker(const std::vector<std::string>& args, const std::string& output);
// Waits up to `limit` for `pid` to exit; its exit code, 128 + signal if
// killed, or -1 if it was still running (then it is SIGKILLed and reaped).
int WaitExit(pid_t pid, std::chrono::milliseconds limit);
// A file's contents ("" if missing).
std::string ReadFile(const std::string& path);

// Runs a worker on its own thread until Join() (or destruction).
class RunningWorker {
 public:
  explicit RunningWorker(Worker& worker)
      : thread_([this, &worker] { status_ = worker.Run(stop_); }) {}
  ~RunningWorker() { Join().IgnoreError(); }
  RunningWorker(const RunningWorker&) = delete;
  RunningWorker& operator=(const RunningWorker&) = delete;
  // Stops the worker and returns what Run returned.
  Status Join() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return status_;
  }

 private:
  std::atomic<bool> stop_{false};
  Status status_;
  std::thread thread_;  // last: starts once the others exist
};

// A fake frontier, the test site and a temp directory per test.
class WorkerTest : public ::testing::Test {
 protected:
  WorkerTest();
  ~WorkerTest() override;

  // Options for the fake frontier on `frontier_port` and the test site
  // (site.test and other.test), WARC in the temp directory.
  WorkerOptions Options(uint16_t frontier_port);

  testing::TestHttpServer http_;
  FakeFrontier frontier_;
  std::filesystem::path dir_;
};

}  // namespace crawlfront::worker_test
