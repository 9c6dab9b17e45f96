#pragma once
// One crawl-frontier process: the RocksDB store, the seen-set, the crawl core,
// user Bloom filters, the RESP server with the FRONTIER.* and BF.* commands,
// and the HTTP status page. main() only parses options and waits for a
// signal; tests may run a node in-process.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "crawlfront/common/status.h"
#include "crawlfront/frontier/bf_commands.h"
#include "crawlfront/frontier/crawl.h"
#include "crawlfront/frontier/frontier_options.h"
#include "crawlfront/frontier/resp_server.h"
#include "crawlfront/frontier/seen_set.h"
#include "crawlfront/frontier/status_http.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

class FrontierNode {
 public:
  // Opens the database and loads the seen-set, crawl state and user filters
  // (logging progress). Does not listen yet.
  static Result<std::unique_ptr<FrontierNode>> Open(const FrontierOptions& options);
  // Stops if running, then closes (final snapshots) in reverse order.
  ~FrontierNode();

  // Starts the RESP server, the status page and the background threads;
  // writes the port file if configured.
  Status Start();
  // Graceful: stop accepting, finish replies, snapshot, close RocksDB. Idempotent.
  void Stop();

  uint16_t resp_port() const { return resp_ ? resp_->port() : 0; }
  uint16_t http_port() const { return http_ ? http_->port() : 0; }
  CrawlCore& crawl() { return *crawl_; }
  SeenSet& seen() { return *seen_; }

  // Records an error for the status page (bounded list) and logs it.
  void NoteError(std::string text);
  // Tracks worker activity (last seen, DONEs) for the status page, and the
  // connection that last used the id (`client`: ClientState::id and peer).
  void NoteWorker(std::string_view id, uint64_t done, uint64_t client, std::string_view peer);
  // When the connection that last leased or reported under `id` is another
  // one than `client` and still open: where it is from and how long ago it
  // was used, for an error (a second worker started with a running one's id).
  std::optional<std::string> WorkerIdInUse(std::string_view id, uint64_t client);

  // Blocking FRONTIER.LEASE support: waits until work arrives or the deadline.
  struct LeaseWaiter {
    std::shared_ptr<DeferredReply> reply;
    std::string worker, crawl;
    uint64_t client = 0;  // ClientState::id and peer, for NoteWorker
    std::string peer;
    size_t count = 0;
    int64_t deadline_ms = 0;
  };
  void AddLeaseWaiter(LeaseWaiter waiter);
  // Runs `job` on the admin thread, in order: a long admin command (a
  // snapshot, a checkpoint) must not hold up the other connections of its
  // io thread. False once stopping (the job is not run).
  bool RunAdmin(std::function<void()> job);

  std::string RenderInfo(std::string_view section);
  StatusSnapshot BuildSnapshot();
  // What the status page's rate history samples every second: the totals
  // of BuildSnapshot() kept as counters (urls_seen, urls_fetched,
  // urls_failed), without its walks over every host.
  StatusSnapshot SampleTotals();

 private:
  explicit FrontierNode(const FrontierOptions& options) : options_(options) {}
  void RegisterCommands();
  void LeaseWaiterLoop();
  void ExpiryLoop();
  void AdminLoop();
  Status WritePortFile();

  FrontierOptions options_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<SeenSet> seen_;
  std::unique_ptr<CrawlCore> crawl_;
  std::unique_ptr<UserBloomRegistry> blooms_;
  std::unique_ptr<RespServer> resp_;
  std::unique_ptr<StatusServer> http_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  bool stopping_ = false;
  bool running_ = false;
  std::deque<LeaseWaiter> waiters_;
  std::deque<std::function<void()>> admin_jobs_;
  std::deque<ErrorEntry> errors_;
  struct WorkerActivity {
    uint64_t dones = 0;
    int64_t last_seen_ms = 0;
    std::deque<std::pair<int64_t, uint64_t>> done_times;  // for pages/s
    uint64_t client = 0;  // the connection that last used the id
    std::string peer;
    int64_t shared_warned_ms = 0;
  };
  std::map<std::string, WorkerActivity, std::less<>> workers_;
  std::thread waiter_thread_, expiry_thread_, admin_thread_;
};

// A worker's own id for a log line or an error: at most 64 bytes, printable.
std::string PrintableWorkerId(std::string_view id);

// Registers FRONTIER.* on `server` for `node` (frontier_commands.cc).
void RegisterFrontierCommands(RespServer& server, FrontierNode& node, Store& store);

}  // namespace crawlfront
