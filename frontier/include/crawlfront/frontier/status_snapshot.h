#pragma once
// StatusSnapshot: the plain numbers the frontier daemon hands to the status
// page (StatusServer) about once a second. Pure data, no behaviour: the daemon
// fills it from its own counters, the status page renders it as HTML, JSON and
// Prometheus metrics. Nothing here points into the frontier's internals, so a
// snapshot may be copied and kept freely.
//
// Conventions: counters ("_total" in /metrics) only grow while the process
// runs; gauges may move both ways. Wall-clock times are Unix milliseconds,
// 0 meaning "never" / "not set". Lists are bounded by the daemon; the
// renderers also cap them (see status_http.h) so a runaway list cannot blow up
// a response.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace crawlfront {

// Index into StatusTotals::fetched_by_class: 0 = no HTTP status (network or
// protocol failure), 1..5 = 1xx..5xx.
inline constexpr size_t kStatusClassCount = 6;

struct StatusTotals {
  uint64_t urls_seen = 0;            // counter: distinct URLs ever added
  uint64_t urls_queued = 0;          // gauge: waiting in host queues
  uint64_t urls_inflight = 0;        // gauge: leased to workers, not yet done
  uint64_t urls_fetched = 0;         // counter: reported DONE by workers
  uint64_t urls_failed = 0;          // counter: DONE with a failure
  uint64_t urls_robots_blocked = 0;  // counter: disallowed by robots.txt
  uint64_t urls_rejected = 0;        // counter: invalid or out of scope on add
  uint64_t urls_dropped = 0;         // counter: deleted from queues (FRONTIER.DROP)
  uint64_t hosts = 0;                // gauge: hosts with a queue
  uint64_t hosts_ready = 0;          // gauge: hosts whose ready time has come
  uint64_t leases_expired = 0;       // counter: leases that hit their deadline
  // counter per HTTP status class, see kStatusClassCount.
  std::array<uint64_t, kStatusClassCount> fetched_by_class{};
};

struct SeenPartitionStatus {
  uint32_t id = 0;
  uint64_t items = 0;                 // URLs inserted into this partition's filter
  uint64_t capacity = 0;              // items the filter was sized for
  double fill_ratio = 0;              // fraction of set bits, 0..1
  double estimated_fp_rate = 0;       // from the fill ratio, 0..1
  uint64_t rebuilds = 0;              // counter: completed rebuilds
  bool rebuilding = false;            // a larger filter is being built now
  int64_t last_snapshot_unix_ms = 0;  // 0 = never snapshotted
};

struct SeenSetStatus {
  std::string mode;           // e.g. "exact" or "bloom-only"
  uint64_t items = 0;         // gauge: items over all partitions
  uint64_t filter_bytes = 0;  // gauge: RAM used by all Bloom filters
  // Every partition (e.g. 1024). The page shows summary stats, a heatmap and
  // the fullest ones; /metrics only the fullest (cardinality).
  std::vector<SeenPartitionStatus> partitions;
};

// A background job with progress, e.g. "snapshot 512/1024".
struct TaskProgress {
  bool running = false;
  uint64_t done = 0;                  // units done in the current run
  uint64_t total = 0;                 // units in the current run (0 = unknown)
  std::string detail;                 // free text, e.g. "partition 17"
  int64_t started_unix_ms = 0;        // current (or last) run's start
  int64_t last_finished_unix_ms = 0;  // 0 = never finished
  uint64_t runs_completed = 0;        // counter
  std::string last_error;             // empty = last run succeeded
};

struct HostStatus {
  std::string host;  // crawled data: untrusted text
  uint64_t queued = 0;
  uint64_t inflight = 0;
  uint64_t done = 0;
  int64_t delay_ms = 0;               // politeness delay currently in force
  int64_t ready_in_ms = 0;            // <= 0: may be contacted now
  int64_t blocked_until_unix_ms = 0;  // operator/backoff block; 0 = none
  std::string robots_state;           // e.g. "ok", "fetching", "unavailable", "none"
};

struct WorkerStatus {
  std::string id;       // worker's self-chosen name: untrusted text
  std::string address;  // peer "ip:port"
  uint64_t leases = 0;  // gauge: URLs leased now
  uint64_t dones = 0;   // counter: DONE reports received
  double pages_per_second = 0;
};

struct ErrorEntry {
  int64_t unix_ms = 0;
  std::string text;  // may quote crawled data: untrusted text
};

struct CrawlStatus {
  std::string id;  // untrusted text (operator-chosen)
  bool paused = false;
  uint64_t urls_seen = 0;
  uint64_t urls_queued = 0;
  uint64_t urls_fetched = 0;
  uint64_t urls_failed = 0;
  uint64_t urls_inflight = 0;  // page leases
  uint64_t hosts = 0;
  uint64_t hosts_ready = 0;
  bool finished = false;  // seen URLs, none queued or in flight
};

// How acknowledged writes are kept (docs/operations.md, durability).
struct PersistenceStatus {
  std::string durability;  // "wal", "everysec" or "fsync"
  uint64_t wal_syncs = 0;  // background WAL fsyncs (everysec)
  uint64_t wal_sync_errors = 0;
  bool wal_sync_failed = false;  // writes are refused until a restart
  uint64_t batches_written = 0;  // crawl core batches the writer thread wrote
  uint64_t write_queue = 0;      // batches waiting for it
  // RocksDB's background work (Store::background_work()).
  uint64_t immutable_memtables = 0;  // full memtables not yet flushed
  uint64_t flushes_running = 0;
  uint64_t compactions_running = 0;
  bool flush_pending = false;
  bool compaction_pending = false;
};

struct MemoryStatus {
  uint64_t resident_bytes = 0;      // the process's VmRSS
  uint64_t queue_heads_bytes = 0;   // queue heads held in RAM, all hosts
  uint64_t queue_heads = 0;         // how many
  uint64_t queue_heads_max_bytes = 0;  // crawl.queue_heads_bytes
};

struct StatusSnapshot {
  int64_t unix_ms = 0;  // when the snapshot was taken
  std::string version;  // crawlfront version string
  double uptime_seconds = 0;
  bool ready = false;     // /readyz answers 200 only when true
  bool finished = false;  // every crawl drained
  StatusTotals totals;
  SeenSetStatus seen;
  PersistenceStatus persistence;
  MemoryStatus memory;
  TaskProgress snapshot;                  // Bloom snapshots to RocksDB (unit: partitions)
  TaskProgress rebuild;                   // online filter rebuilds (unit: partitions)
  std::vector<HostStatus> top_hosts;      // by queue size, largest first
  std::vector<WorkerStatus> workers;      // connected now
  std::vector<ErrorEntry> recent_errors;  // oldest first, bounded
  std::vector<CrawlStatus> crawls;
};

}  // namespace crawlfront
