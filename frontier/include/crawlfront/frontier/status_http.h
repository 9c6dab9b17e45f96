#pragma once
// StatusServer: the frontier's HTTP status page (Boost.Beast). Routes:
//   GET /              HTML dashboard (assets embedded; polls /api/stats)
//   GET /static/...    the dashboard's CSS and JS
//   GET /api/stats     the whole snapshot + the rate history as JSON
//   GET /metrics       Prometheus text exposition format 0.0.4
//   GET /healthz       200 "ok" while the process serves
//   GET /readyz        200 when the snapshot says ready, else 503
// Only GET and HEAD (405 otherwise); unknown paths 404. With auth_token set,
// /api/* and /metrics need "Authorization: Bearer <token>" (401 otherwise).
// See docs/status_page.md.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/frontier/status_snapshot.h"

namespace crawlfront {

struct StatusServerOptions {
  // "ip:port" or "[ipv6]:port" ("localhost" means 127.0.0.1). Port 0 picks a
  // free port (see StatusServer::port()). A non-loopback address requires
  // auth_token. Default: "127.0.0.1:8080".
  std::string listen = "127.0.0.1:8080";
  // When not empty, /api/* and /metrics require this bearer token. The page
  // itself and the health probes stay open. Default: empty (loopback only).
  std::string auth_token;
  // Largest request header accepted; bigger gets 431 and the connection
  // closes. Bounds RAM per client. Default: 8 KiB.
  size_t header_limit = 8 * 1024;
  // Largest request body accepted (GET has none; this bounds junk). Bigger
  // gets 413. Default: 64 KiB.
  size_t body_limit = 64 * 1024;
  // Time a client has to send a whole request (and to read the reply); a
  // slow or stalled client is disconnected after it. Too short drops clients
  // on slow links. Default: 10 s.
  std::chrono::milliseconds request_timeout = std::chrono::seconds(10);
  // Connections beyond this are closed right after accept. Bounds file
  // descriptors. Default: 256.
  size_t max_connections = 256;
  // Requests served on one keep-alive connection before it is closed (the
  // browser reconnects). Bounds every session loop. Default: 100000.
  size_t max_requests_per_connection = 100000;
  // Seconds of rate history kept (one sample per second). Default: 900.
  size_t history_seconds = 900;
  // Per-partition series in /metrics are emitted only for this many fullest
  // partitions (cardinality); the page shows all. Default: 10.
  size_t metrics_top_partitions = 10;
  // io threads. One is plenty for a status page. Default: 1.
  int threads = 1;
};

// One point of the server-side rate history.
struct RateSample {
  int64_t unix_ms = 0;
  double fetched_per_second = 0;  // urls_fetched delta
  double added_per_second = 0;    // urls_seen delta
  double failed_per_second = 0;   // urls_failed delta
};

// Supplies the current snapshot. Called on the server's io thread(s), for
// each request that renders data and once a second for the rate history, so
// it must be thread-safe and cheap (copy counters, don't scan RocksDB).
using StatusProvider = std::function<StatusSnapshot()>;

class RateHistory;  // private, frontier/src/status_history.h

// Lifecycle: construct, Start(), ..., Stop() (or destroy). Connections are
// coroutines on per-connection strands of the server's own io_context.
class StatusServer {
 public:
  // `sampler` is what the once-a-second rate history reads (only
  // totals.urls_fetched, urls_seen and urls_failed); without one it reads
  // `provider`. A frontier's full snapshot walks every host under the crawl
  // lock, so it passes one that reads only those counters.
  StatusServer(StatusServerOptions options, StatusProvider provider,
               StatusProvider sampler = nullptr);
  ~StatusServer();  // calls Stop()
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  // Binds, listens, starts the io thread(s) and the once-a-second sampler.
  // Returns InvalidArgument for a bad listen address, a non-loopback listen
  // without auth_token, or a second call; IoError when the address cannot be
  // bound. Not thread-safe with Stop().
  Status Start();
  // Closes the listener and every connection and joins the threads.
  // Idempotent; safe without Start().
  void Stop();
  // Bound port after a successful Start(), else 0. Thread-safe.
  uint16_t port() const { return port_.load(); }
  // Copy of the rate history, oldest first. Thread-safe.
  std::vector<RateSample> History() const;

 private:
  struct Io;  // Asio objects, kept out of this header; may use our members

  StatusServerOptions options_;
  StatusProvider provider_;
  StatusProvider sampler_;  // provider_ when none was given
  std::atomic<uint16_t> port_{0};
  std::atomic<size_t> connections_{0};
  mutable std::mutex history_mu_;
  std::unique_ptr<RateHistory> history_;  // guarded by history_mu_
  std::vector<std::thread> threads_;
  std::unique_ptr<Io> io_;  // last: destroyed first, with pending handlers
};

// ---- Pure renderers (thread-safe, no I/O), shared with crawlctl/tests. ----

// Caps applied by the renderers to the snapshot's lists.
inline constexpr size_t kStatusMaxHosts = 200;
inline constexpr size_t kStatusMaxWorkers = 1000;
inline constexpr size_t kStatusMaxErrors = 100;  // the newest are kept
inline constexpr size_t kStatusMaxCrawls = 1000;
inline constexpr size_t kStatusTopPartitions = 20;  // fullest, listed in full

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);
// Escapes \ " and newline for a Prometheus label value (format 0.0.4) and
// replaces invalid UTF-8 by U+FFFD.
std::string PrometheusLabelEscape(std::string_view text);
// The /api/stats document: {"snapshot": {...}, "history": {...}}; partitions
// and history as columns (arrays per field), see docs/status_page.md.
// Strings are JSON-escaped by Boost.JSON after invalid UTF-8 is replaced by
// U+FFFD; NaN and infinities become 0.
std::string RenderStatusJson(const StatusSnapshot& snapshot,
                             const std::vector<RateSample>& history);
// The /metrics document. `top_partitions` bounds the per-partition series.
std::string RenderPrometheusMetrics(const StatusSnapshot& snapshot,
                                    size_t top_partitions);
// The dashboard page with a server-rendered first view of `snapshot` (every
// string HTML-escaped) that the page's script then keeps up to date.
std::string RenderDashboardHtml(const StatusSnapshot& snapshot);

}  // namespace crawlfront
