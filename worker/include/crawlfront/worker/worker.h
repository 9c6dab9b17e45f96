#pragma once
// The crawl worker: leases URLs from one or more frontiers, fetches them with
// the Fetcher, extracts and canonicalizes links, writes WARC records and
// reports every result with FRONTIER.DONE. docs/worker.md has the details.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/config.h"
#include "crawlfront/common/status.h"
#include "crawlfront/worker/fetcher.h"
#include "crawlfront/worker/warc.h"

namespace crawlfront {

// Flat on purpose: every field is one key of WorkerConfigTable().
struct WorkerOptions {
  // [worker] Identity sent with LEASE/DONE. Default: "" = "<hostname>-<pid>".
  std::string id;
  // Stop after this many page leases have been handled (robots leases do not
  // count). Default: 0 = no limit.
  int64_t max_pages = 0;
  // Exit once nothing was leased and nothing ran for this long. Default: 0 = never.
  std::chrono::milliseconds exit_when_idle{0};
  // On a stop request, wait this long for running transfers before
  // abandoning them (their leases expire at the frontier). Default: 10 s.
  std::chrono::milliseconds shutdown_grace = std::chrono::seconds(10);
  // With a configured id: on the first connection to each frontier, end the
  // leases that id still holds there (a process before this one died with
  // them), so their URLs are queued again now, not at their deadlines.
  // Default: true.
  bool release_at_start = true;

  // [frontier] "host:port" of each frontier; leases come from all of them.
  // Default: {"127.0.0.1:6380"}.
  std::vector<std::string> frontiers = {"127.0.0.1:6380"};
  // AUTH token for the frontiers. Default: "" (no AUTH).
  std::string auth_token;
  // Bound on each frontier call, on top of the lease block time. Default: 5 s.
  std::chrono::milliseconds frontier_timeout = std::chrono::seconds(5);
  // Reconnect backoff: first delay, doubled per failure up to the maximum.
  // Default: 100 ms and 10 s.
  std::chrono::milliseconds reconnect_min = std::chrono::milliseconds(100);
  std::chrono::milliseconds reconnect_max = std::chrono::seconds(10);

  // [lease] URLs asked for per LEASE; 0 = as many as free transfer slots.
  // Default: 0.
  int lease_batch = 0;
  // How long an idle worker's LEASE waits at the frontier for work (split
  // over the frontiers). Default: 1 s.
  std::chrono::milliseconds lease_block = std::chrono::seconds(1);
  // Crawl to lease from; "" = the frontier's default crawl. Default: "".
  std::string crawl;

  // [fetch] See FetchOptions for each.
  int max_transfers = 64;
  int connection_cache = 1024;
  std::string user_agent = "crawlfront/0.1 (+https://example.invalid/crawlfront)";
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
  std::chrono::milliseconds total_timeout = std::chrono::seconds(60);
  int64_t low_speed_bytes = 100;
  std::chrono::milliseconds low_speed_time = std::chrono::seconds(30);
  int64_t max_body_bytes = int64_t{10} << 20;
  std::vector<std::string> connect_to;
  std::vector<std::string> resolve;
  bool allow_private_networks = false;
  std::string tls_ca_file;  // "" = the system CA store
  // Retry delay for 429/503 without a usable Retry-After. Default: 60 s.
  std::chrono::milliseconds default_retry_delay = std::chrono::seconds(60);

  // [parse]
  bool respect_nofollow = true;  // Default: true.
  int64_t max_links = 2000;      // links reported per page. Default: 2000.
  // <loc> URLs reported per sitemap (sitemaps.org allows 50,000). 0 = do not
  // read sitemaps. Default: 50000.
  int64_t max_sitemap_links = 50000;

  // [warc]
  bool warc_enabled = true;   // Default: true.
  std::string warc_dir = "warc";  // Default: "warc".
  // File name prefix; "" = "crawlfront-<id>". Default: "".
  std::string warc_prefix;
  int64_t warc_max_file_bytes = int64_t{1} << 30;  // Default: 1 GiB.
  int warc_gzip_level = 6;  // 0 = plain .warc. Default: 6.
  std::string warc_operator;  // warcinfo operator. Default: "".

  // [log]
  std::string log_level = "info";  // Default: "info".
  std::string log_file;            // "" = stderr. Default: "".
  // Past this size the log file rotates (FILE.1 ... FILE.<log_max_files>);
  // 0 = never (logrotate and SIGHUP instead). Defaults: 0, 5.
  int64_t log_max_file_bytes = 0;
  int64_t log_max_files = 5;
};

// The configuration table of WorkerOptions (keys, bounds, defaults, help).
const ConfigTable<WorkerOptions>& WorkerConfigTable();

// Checks what the table's per-key bounds cannot: frontier addresses,
// connect_to/resolve entries, reconnect_min <= reconnect_max, a user agent
// with a robots product token, a readable tls_ca_file, a WARC directory.
// InvalidArgument naming the key; a configuration error (exit code 2).
// Thread-safe.
Status ValidateWorkerOptions(const WorkerOptions& options);

// The fetcher options a WorkerOptions implies.
FetchOptions FetchOptionsOf(const WorkerOptions& options);

// Counters, readable from any thread while Run() executes.
struct WorkerStats {
  std::atomic<uint64_t> leases{0};        // leases received
  std::atomic<uint64_t> fetched{0};       // "fetched" results
  std::atomic<uint64_t> robots{0};        // "robots" results
  std::atomic<uint64_t> retries{0};       // "retry" results
  std::atomic<uint64_t> failed{0};        // "failed" results
  std::atomic<uint64_t> disallowed{0};    // "disallowed" results
  std::atomic<uint64_t> acked{0};         // DONEs the frontier accepted (answered 1)
  std::atomic<uint64_t> late{0};          // answered 0: lease closed, expired or forgotten
  std::atomic<uint64_t> rejected{0};      // answered with an error
  std::atomic<uint64_t> pending_done{0};  // results not yet acknowledged
  std::atomic<uint64_t> reconnects{0};    // successful connects after the first
  std::atomic<uint64_t> warc_records{0};  // exchanges written
  std::atomic<uint64_t> http2{0};         // responses received over HTTP/2
  std::atomic<uint64_t> not_modified{0};  // 304s to a recrawl's conditional GET
};

class Worker {
 public:
  // Validates the options, starts the fetcher and opens the WARC writer
  // (when enabled). InvalidArgument for bad options (unparsable frontier
  // address, ...), IoError if the WARC directory cannot be used. Frontiers
  // are connected lazily by Run(), so they may start later.
  static Result<std::unique_ptr<Worker>> Open(WorkerOptions options);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Leases, fetches and reports until `stop` becomes true, max_pages is
  // reached or exit_when_idle elapses; then lets running transfers finish
  // (up to shutdown_grace after a stop), gives the leases of those still
  // running back to their frontiers, sends the unacknowledged results (one
  // more attempt per frontier) and closes the WARC file. Returns OK; the
  // IoError of a failed WARC write (the worker stops at once then, so
  // nothing is reported that is missing from the archive); or
  // InvalidArgument when a frontier cannot be used with this configuration
  // (its robots.txt product token differs from fetch.user_agent's; nothing
  // is leased from it). Call once.
  Status Run(const std::atomic<bool>& stop);

  const WorkerStats& stats() const;
  // The worker id in use (generated when options.id was empty).
  const std::string& id() const;

 private:
  class Impl;
  explicit Worker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlfront
