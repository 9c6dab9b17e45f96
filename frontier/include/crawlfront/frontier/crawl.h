#pragma once
// The frontier's crawl core: per-host queues in RocksDB, a politeness
// scheduler, leases with deadlines, robots.txt held centrally, scope and trap
// rules, and several crawls side by side (crawl ids). A pure library: the
// RESP layer (FRONTIER.* commands, /tmp protocol contract) sits on top.
// docs/scheduling.md describes keys, the politeness formula, fairness,
// retries and what survives a restart.
//
// Thread-safety: every public method may be called from any thread. One
// mutex guards the scheduler and host state; RocksDB batches are built
// under it and written in that order by a writer thread (CommitPipeline),
// so the disk goes through the same states as RAM, a few batches behind.
// Reads of a host's queue on disk first wait for that host's writes. URL
// canonicalization and scope checks (the expensive part of Add) run
// outside the mutex.
//
// Group commit: Add, Lease and Done take an optional `ticket`. Without one
// the call is durable when it returns. With one, its changes apply to RAM
// and its RocksDB writes join a pending batch shared by all callers; the
// caller must Sync(*ticket) before acknowledging the call. One RocksDB write
// then covers many calls (e.g. a pipeline of DONEs), and host and crawl
// records are written once per write, not once per URL.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>
#include <rocksdb/write_batch.h>

#include "crawlfront/common/adaptive_mutex.h"
#include "crawlfront/common/clock.h"
#include "crawlfront/frontier/commit_pipeline.h"
#include "crawlfront/common/status.h"
#include "crawlfront/common/string_map.h"
#include "crawlfront/common/url.h"
#include "crawlfront/frontier/crawl_options.h"
#include "crawlfront/frontier/crawl_scope.h"
#include "crawlfront/frontier/fetch_record.h"
#include "crawlfront/frontier/host_state.h"
#include "crawlfront/frontier/seen_set.h"
#include "crawlfront/frontier/store.h"
#include "crawlfront/frontier/url_pattern.h"

namespace crawlfront {

inline constexpr std::string_view kDefaultCrawl = "default";

// Robots matching one Lease call may do under the crawl lock, in
// RobotsRules::MatchCost units (about a nanosecond each): a host whose
// robots.txt is huge and hostile then stalls other clients for milliseconds,
// not for the half second 256 disallowed pages at 2 ms each would take.
inline constexpr size_t kRobotsWorkPerLease = size_t{4} << 20;

// True for 1..64 characters of [A-Za-z0-9._-].
bool ValidCrawlId(std::string_view id);

struct AddRequest {
  std::string url;
  uint32_t depth = 0;
  int32_t priority = 0;      // higher is leased first within a host
  std::string parent;        // referring URL, kept with the entry
  int64_t refetch_at_ms = 0; // > 0: (re)queue at this time even if seen
};

struct AddResult {
  // kRecrawl: seen, and its recrawl was queued (or moved earlier) by this
  // call; a seen URL with a refetch time whose recrawl stays is kSeen.
  enum class Kind : uint8_t { kNew, kSeen, kRecrawl, kRejected } kind = Kind::kRejected;
  std::string reason;  // why it was rejected
};

struct LeasedUrl {
  std::string lease_id;  // opaque, unique across restarts
  std::string url;
  uint32_t depth = 0;
  uint32_t attempt = 1;
  LeaseKind kind = LeaseKind::kPage;
  std::string crawl;
  int64_t deadline_ms = 0;
  // A recrawl's validators from its last fetch: the worker sends them as
  // If-None-Match / If-Modified-Since. Usually empty.
  std::string etag, last_modified;
};

enum class DoneOutcome : uint8_t { kFetched, kRetry, kFailed, kDisallowed, kRobots };
// Parses "fetched", "retry", ... (case-insensitive); InvalidArgument otherwise.
Result<DoneOutcome> ParseDoneOutcome(std::string_view name);

struct DoneReport {
  DoneOutcome outcome = DoneOutcome::kFetched;
  int http_status = 0;        // fetched, robots (0 = unreachable), retry (429/503)
  int64_t fetch_ms = 0;       // response time, for delay_factor
  int64_t retry_delay_ms = 0; // retry: earliest retry (Retry-After)
  std::string reason;         // failed, disallowed, retry
  std::string body;           // robots: the robots.txt bytes
  bool sitemap = false;       // fetched: the body was a sitemap or sitemap index
  std::vector<std::string> links;  // fetched: absolute URLs (3xx: Location)
  // A sitemap's: each link's <lastmod> in Unix seconds (0: none); empty, or
  // as many as links. With sitemap_refetch, a re-read recrawls the links
  // changed since the previous read.
  std::vector<int64_t> lastmod_s;
  // fetched: the response's ETag and Last-Modified (for a 304, those of the
  // copy it confirms), kept for the URL's next recrawl.
  std::string etag, last_modified;
};

struct CrawlStats {
  uint64_t urls_seen = 0;      // distinct URLs accepted (new)
  uint64_t urls_queued = 0;    // waiting (ready or scheduled)
  uint64_t urls_inflight = 0;  // leased pages
  uint64_t urls_done = 0;      // left the frontier (any final outcome)
  uint64_t urls_failed = 0;    // failed, incl. max attempts
  uint64_t urls_disallowed = 0;      // refused by a worker
  uint64_t urls_robots_blocked = 0;  // dropped by robots rules, not fetched
  uint64_t urls_rejected = 0;        // Add refused (bad URL, scope, trap, budget)
  uint64_t urls_dropped = 0;         // queued URLs deleted by DropHost
  uint64_t hosts = 0;
  uint64_t hosts_ready = 0;
  uint64_t fetched_2xx = 0, fetched_3xx = 0, fetched_4xx = 0, fetched_5xx = 0;
  uint64_t leases_expired = 0;
  uint64_t robots_fetched = 0;
  // (name, value) pairs in a fixed order, for INFO and FRONTIER.STATS.
  std::vector<std::pair<std::string, uint64_t>> Fields() const;
};

// One entry of a host's queue as FRONTIER.QUEUE shows it.
struct QueuedUrl {
  enum class State : uint8_t { kReady, kLeased, kScheduled };
  std::string url;
  std::string parent;
  State state = State::kReady;
  uint32_t depth = 0;
  uint32_t attempt = 1;
  int32_t priority = 0;
  int64_t due_ms = 0;  // scheduled: when it becomes ready (Clock ms)
};
const char* QueuedStateName(QueuedUrl::State s);

// An entry of FRONTIER.SCAN: a queued URL and its host key.
struct ScannedUrl {
  std::string host;
  QueuedUrl entry;
};

// One crawl as FRONTIER.CRAWLS lists it.
struct CrawlInfo {
  std::string id;
  bool paused = false;    // by its own pause or a pause of every crawl
  bool finished = false;  // as Finished()
  CrawlStats stats;
};

struct WorkerLeases {
  std::string worker;
  uint64_t leases = 0;
  int64_t next_deadline_in_ms = 0;  // until the earliest of them ends
};

struct HostInfo {
  std::string host;  // host key
  std::string crawl;
  uint64_t queued = 0;  // ready + scheduled
  uint32_t inflight = 0;
  uint64_t done = 0;
  int64_t ready_in_ms = 0;  // 0 = ready now (ignoring inflight; a robots retry counts)
  int64_t delay_ms = 0;     // effective politeness delay
  int64_t blocked_until_ms = 0;
  std::string robots_state;
};

// What the frontier knows of one URL (FRONTIER.URL), for an operator asking
// why a page was or was not fetched. `state`: "unseen"; "ready",
// "scheduled" or "leased" (its first queue entry in lease order is `entry`);
// "done": seen, neither queued nor leased (fetched, failed, blocked by
// robots, dropped, or kept out by its host's budget).
struct UrlReport {
  std::string url;    // canonical
  std::string crawl;
  std::string scope;  // empty: an add would take it now; else the reason it would not
  bool seen = false;
  std::string state;
  QueuedUrl entry;
  uint64_t entries = 0;  // queue entries of the URL (a first fetch and a recrawl: 2)
  uint64_t ahead = 0;    // entries before `entry` in its host's queue, when read
  std::string worker, lease_id;  // leased
  int64_t lease_left_ms = 0;
  // "allowed", "disallowed", "unknown" (robots.txt not fetched yet),
  // "fetching", "error" (robots.txt failed: pages wait) or "off".
  std::string robots;
  bool host_known = false;  // the crawl has the URL's host queue: `host` is it
  HostInfo host;
  FetchRecord last;  // its last fetch result (outcome kNone: none kept)
};

// A crawl's deny patterns added at run time (FRONTIER.DENY). Immutable once
// published: Add reads them outside the lock.
struct DenyPatterns {
  UrlPatternSet set;  // in the order added
  bool Matches(std::string_view url) const { return set.AnyMatches(url); }
};

// Sums of HostCounted over a crawl's hosts.
struct CrawlLive {
  uint64_t queued = 0, inflight = 0, pages = 0, ready = 0;
};

// Per-crawl RAM state; guarded by CrawlCore's mutex.
struct CrawlState {
  std::string id;
  CrawlStats stats;  // persisted fields; derived ones filled on query
  CrawlLive live;    // kept by CrawlCore::Account
  bool paused = false;
  bool dirty = false;
  std::shared_ptr<const DenyPatterns> deny;  // null: none
  std::vector<uint32_t> hosts;
  // Host key -> id, looked up by string_view for every added URL: open
  // addressing touches one cache line where std::unordered_map's bucket
  // array and node were two misses.
  boost::unordered_flat_map<std::string, uint32_t, StringHash, std::equal_to<>> host_ids;
};

class CrawlCore {
 public:
  // Restores hosts, counters, controls and robots rules from `store`. Leases
  // in flight at a clean close are open again with the time they had left;
  // after a crash so are those the last lease check saved, and the rest go
  // back to their queues with their attempt unchanged (the fetch result
  // never arrived; it was not the URL's fault). Logs
  // progress. `store`, `seen` and `clock` must outlive
  // the core. Fails with InvalidArgument on bad options (e.g. a regex) and
  // Corruption/IoError on unreadable state.
  static Result<std::unique_ptr<CrawlCore>> Open(Store* store, SeenSet* seen,
                                                 const CrawlOptions& options, Clock* clock);
  ~CrawlCore();

  // Adds URLs to crawl `crawl_id`: canonicalizes, applies scope and trap
  // rules, deduplicates per crawl and queues new URLs atomically with their
  // seen-set entry. `out` gets one result per request. A seen URL with
  // refetch_at_ms is queued again for that time (recrawl) and reported
  // kSeen. Errors: InvalidArgument for a bad crawl id; IoError if RocksDB
  // fails (then nothing of the call is acknowledged). A long call holds the
  // crawl lock kAddChunk URLs at a time, so other clients are served
  // between its pieces.
  static constexpr size_t kAddChunk = 1024;
  Status Add(std::string_view crawl_id, std::span<const AddRequest> requests,
             std::vector<AddResult>* out, uint64_t* ticket = nullptr);

  // Exact "was this URL added to this crawl?". InvalidArgument for a URL
  // that does not canonicalize.
  Result<bool> Seen(std::string_view crawl_id, std::string_view url);

  // Leases up to `max` URLs to `worker`, round-robin over ready hosts (one
  // URL per host per turn), from crawl `crawl_filter` or any crawl if empty.
  // Appends to `out`; may append nothing. Pages the host's robots rules
  // disallow are finished as robots-blocked instead of leased; the call ends
  // early once its robots checks cost kRobotsWorkPerLease.
  Status Lease(std::string_view worker, size_t max, std::string_view crawl_filter,
               std::vector<LeasedUrl>* out, uint64_t* ticket = nullptr);
  // Earliest Clock time at which Lease could return something (now if
  // something is ready; kNever if nothing is queued or everything waits on
  // in-flight leases).
  // With a crawl id, only that crawl's hosts count.
  int64_t NextReadyMs(std::string_view crawl_filter = {});
  // Called (outside the lock) whenever work may have become ready: new URLs,
  // a finished lease, expiry, resume, host controls. Set before use.
  void SetWorkCallback(std::function<void()> callback);
  // Blocks up to `max_wait_ms` of real time or until work may be ready.
  void WaitForWork(int64_t max_wait_ms);

  // Closes a lease with its result. `known` = false (and OK) if the lease id
  // is unknown, expired or of another worker: the report is ignored.
  // InvalidArgument for a report that does not fit the lease kind.
  // A page's links are added as by Add, before Done returns; with `later`,
  // more than kAddChunk of them are moved there instead, for the caller to
  // Add (in pieces, between other work).
  struct LaterLinks {
    std::string crawl;
    std::vector<AddRequest> links;
  };
  Status Done(std::string_view worker, std::string_view lease_id, const DoneReport& report,
              bool* known, uint64_t* ticket = nullptr, LaterLinks* later = nullptr);
  // Makes every change up to `ticket` (from Add, Lease or Done) durable,
  // with one RocksDB write for everything pending if it is not yet written.
  // Returns the error of a failed write (after which every call fails).
  Status Sync(uint64_t ticket);
  // The same without blocking: `done` runs once the changes are durable,
  // on the writer thread (or here if they already are).
  void SyncAsync(uint64_t ticket, CommitPipeline::Done done);
  // Blocks until every batch handed to the writer is written.
  void WaitForWrites();
  struct WriterStats {
    uint64_t written = 0;  // batches written since start
    uint64_t queued = 0;   // handed to the writer, not yet written
  };
  WriterStats writer_stats() const {
    return {pipeline_.written() - 1, pipeline_.queued()};
  }
  // The queue heads all hosts keep in RAM: their bytes, how many, and how
  // many hosts hold some; since start, the RocksDB seeks that refilled them
  // and the heads those read (few per refill: the budget is too small).
  struct HeadsUsage {
    uint64_t bytes = 0, entries = 0, hosts = 0;
    uint64_t refills = 0, refilled = 0;
  };
  HeadsUsage heads_usage() {
    std::lock_guard lock(mu_);
    return heads_mem_;
  }
  uint64_t heads_budget() const { return options_.queue_heads_bytes; }
  // Extends a lease's deadline to now + ms (ms <= 0: lease_timeout) and
  // writes the lease with it, so that a crash after the reply keeps the new
  // deadline. `known` and `ticket` as for Done.
  Status Renew(std::string_view worker, std::string_view lease_id, int64_t ms, bool* known,
               uint64_t* ticket = nullptr);
  // Returns leases past their deadline to their queues (attempt+1; after
  // max_attempts the URL fails with "lease expired N times"), and writes
  // the open leases not yet on disk to kLease, so that a restart after a
  // crash keeps them. Call periodically. `expired` (optional) gets the
  // number handled.
  Status ExpireLeases(size_t* expired = nullptr);
  // Ends `worker`'s leases now as if they had expired (attempt+1), all of
  // them or those in `lease_ids`: a worker that crashed and was restarted
  // under the same id, or one an operator knows is gone, need not hold its
  // hosts until the deadlines. `released` gets how many there were.
  Status ReleaseLeases(std::string_view worker, std::span<const std::string> lease_ids,
                       size_t* released);
  // Leases in flight per worker id, from the lease table (exact).
  std::vector<WorkerLeases> LeasesByWorker();

  // Host controls, persisted and kept across restarts. `host` is a host name
  // (mapped to its queue key per the host key mode); empty crawl = default.
  Status SetHostDelay(std::string_view crawl, std::string_view host, int64_t delay_ms);
  Status BlockHostUntil(std::string_view crawl, std::string_view host, int64_t unix_ms);
  // n = 0 means unlimited; n < 0 returns to the configured default.
  Status SetHostBudget(std::string_view crawl, std::string_view host, int64_t n);
  // Replaces the host's robots.txt with `text` (parsed for our user agent);
  // it never expires. Pages are checked against it from now on.
  Status SetHostRobots(std::string_view crawl, std::string_view host, std::string_view text);
  // Deletes the host's queued URLs, ready and scheduled (URLFrontier's
  // DeleteQueue), except those leased out, which end as their DONE says.
  // They stay seen and count in urls_done and urls_dropped. `dropped` gets
  // how many; an unknown host drops 0 and is not created.
  Status DropHost(std::string_view crawl, std::string_view host, uint64_t* dropped);
  // DropHost for the host's queued URLs in which `pattern` finds a match
  // (a search on the canonical URL), leases in flight excepted.
  // Reads the queue in chunks and releases the lock between them, so other
  // calls go on during a long scan; URLs queued meanwhile are checked at the
  // end, under the lock, so none that matches is left when it returns.
  Status DropHostMatching(std::string_view crawl, std::string_view host,
                          const UrlPattern& pattern, uint64_t* dropped);
  // Tests run `f` between two chunks of a DropHostMatching or Explain scan.
  void SetBetweenDropChunksForTest(std::function<void()> f) { between_drop_chunks_ = std::move(f); }
  // DropHost for every host of the crawl. Its controls, counters and seen
  // URLs stay (URLFrontier's DeleteCrawl also forgets those). An unknown
  // crawl drops 0 and is not created.
  Status DropCrawl(std::string_view crawl, uint64_t* dropped);
  // The first `max` entries of the host's queue: ready ones in the order
  // leases take them (those leased out marked), then scheduled ones by due
  // time. Empty for a host the crawl does not have.
  Status PeekHost(std::string_view crawl, std::string_view host, size_t max,
                  std::vector<QueuedUrl>* out);
  // Up to `max` queued entries of the crawl from `cursor` on (empty: from the
  // start), partition by partition and host by host, each host's as
  // PeekHost orders them; *next is the cursor of the call after (empty when
  // this one reached the end). With `match`, of the `max` entries read only
  // those whose URL it finds a match in are returned (a page may be empty
  // before the end). InvalidArgument for a cursor that is not one of this
  // crawl's. Entries added or removed between calls may or may not be
  // seen, as with Redis's SCAN.
  Status ScanQueues(std::string_view crawl, std::string_view cursor, size_t max,
                    const UrlPattern* match, std::vector<ScannedUrl>* out, std::string* next);
  // Report on one URL of a crawl: Add's verdict on it, seen, its queue
  // entries (the host's queue is read in chunks, the lock released between
  // them, like DropHostMatching), its lease, its host and robots verdict.
  // InvalidArgument for a bad crawl id or a URL that does not canonicalize.
  Status Explain(std::string_view crawl, std::string_view url, UrlReport* out);
  // Run-time scope: new URLs of the crawl in which `pattern` (RE2 syntax)
  // finds a match are rejected "denied by pattern", like
  // crawl.deny_regexes, from now on and after restarts. Adding a pattern
  // twice or removing an unknown one changes nothing (`added`/`removed`
  // false). InvalidArgument for a pattern that does not compile, is empty
  // or longer than 4096 bytes, or past 1000 patterns.
  Status AddDenyPattern(std::string_view crawl, std::string_view pattern, bool* added);
  Status RemoveDenyPattern(std::string_view crawl, std::string_view pattern, bool* removed);
  std::vector<std::string> ListDenyPatterns(std::string_view crawl);
  // Empty crawl = every crawl (and crawls created later).
  Status Pause(std::string_view crawl);
  Status Resume(std::string_view crawl);

  // Counters of one crawl, or of all crawls for an empty id. O(crawls): the
  // per-host ones are sums kept as hosts change (Account).
  CrawlStats Stats(std::string_view crawl);
  // Only the persisted counters (urls_seen, urls_done, fetched_*, ...);
  // urls_queued, urls_inflight, hosts and hosts_ready stay 0. Does not move
  // due hosts into the ready ring, as Stats() does.
  CrawlStats PersistedStats(std::string_view crawl);
  // Stats queries whose live sums differed from a walk over the hosts (only
  // counted with check_live_counts).
  uint64_t live_count_errors();
  bool checks_live_counts() const { return options_.check_live_counts; }
  std::vector<std::string> Crawls();
  // Every crawl with its counters, by id.
  std::vector<CrawlInfo> ListCrawls();
  // True when the crawl has seen URLs and nothing is queued or in flight.
  bool Finished(std::string_view crawl);
  // Hosts of a crawl (all crawls if empty) by queue size, largest first.
  std::vector<HostInfo> ListHosts(std::string_view crawl, size_t top_n);

 private:
  CrawlCore(Store* store, SeenSet* seen, const CrawlOptions& options, Clock* clock,
            ScopeRules scope);

  struct Prepared;  // one canonicalized request (crawl_add.cc)
  struct LeaseInFlight {
    LeaseRecord rec;
    uint32_t host = 0;
    int64_t deadline_ms = 0;
    std::string queue_key;  // the page's kQueue entry; empty for robots.txt
    bool saved = false;     // in kLease as it is now (ExpireLeases, Renew)
  };
  struct Waiting {  // heap entry
    int64_t at_ms;
    uint32_t host;
    uint64_t gen;
    bool operator>(const Waiting& o) const { return at_ms > o.at_ms; }
  };
  struct RingEntry {
    uint32_t host;
    uint64_t gen;
  };

  // crawl.cc: state, restore, persistence helpers.
  Status Restore();
  Status RestoreHosts();
  struct KeptLease {
    uint64_t id;
    uint16_t part;
    StoredLease lease;
  };
  Status RestoreLeases(bool clean, bool* recount, std::vector<KeptLease>* kept);
  void TakeBackLeases(std::vector<KeptLease> kept, bool clean);
  void TakeBackLease(HostState& h, uint64_t id, StoredLease r, int64_t now);
  void SaveLeases();
  Status RestoreMeta();
  Status RecountQueues();
  CrawlState& CrawlFor(std::string_view id);
  HostState& HostFor(CrawlState& crawl, std::string_view host_key, uint16_t partition);
  Result<HostState*> HostByName(std::string_view crawl, std::string_view host);
  // The same without creating it: nullptr for a host the crawl never had.
  Result<HostState*> FindHostByName(std::string_view crawl, std::string_view host);
  uint16_t PartitionFor(std::string_view crawl, std::string_view host_key) const;
  Status UpdateHost(std::string_view crawl, std::string_view host,
                    const std::function<void(HostState&, rocksdb::WriteBatch*)>& f);
  Status SetPaused(std::string_view crawl, bool paused);
  void MarkDirty(HostState& h);
  // The batch of epoch batch_epoch_ (pending_, or an add's) holds queue
  // writes of `h`: reads of its queue must Flush first while Unwritten(h).
  void TouchQueue(HostState& h) { h.touched_epoch = batch_epoch_; }
  bool Unwritten(const HostState& h) const { return h.touched_epoch >= pipeline_.written(); }
  void FlushDirty(rocksdb::WriteBatch* batch);
  bool HasPending() const { return pending_.Count() > 0 || !dirty_hosts_.empty(); }
  // A failed write, here or on the writer thread: RAM may be ahead of disk.
  Status Health() const;
  // Hands pending_ (with dirty host and crawl records) to the writer.
  void SubmitPending();
  // Hands `batch` to the writer as epoch batch_epoch_.
  void SubmitBatch(rocksdb::WriteBatch* batch, CommitPipeline::AfterWrite after = nullptr);
  // The epoch to wait for before acknowledging a call with `ticket`.
  uint64_t SubmitUpTo(uint64_t ticket);
  // SubmitPending, then waits for everything handed to the writer.
  Status Flush();
  // End of a writing call: leaves pending_ for Sync(*ticket), or Flush()es.
  Status Finish(uint64_t* ticket);
  void PutCrawlStats(rocksdb::WriteBatch* batch, CrawlState& c);
  uint64_t AllocSeq(rocksdb::WriteBatch* batch);
  // After next_seq_ was advanced by hand: persists a limit past it.
  void ReserveSeqs(rocksdb::WriteBatch* batch);
  uint64_t AllocLeaseId(rocksdb::WriteBatch* batch);
  void Notify();
  bool Paused(const CrawlState& c) const { return paused_all_ || c.paused; }
  void FillDerived(const CrawlState& c, int64_t now, CrawlStats* s);
  // Compares c.live with a walk over its hosts (check_live_counts).
  void CheckLive(const CrawlState& c, int64_t now);
  bool FinishedLocked(const CrawlState& c);

  // crawl_deny.cc
  std::shared_ptr<const DenyPatterns> DenyOf(std::string_view crawl);
  // Edits a copy of a crawl's deny patterns: true if it changed them.
  using DenyEdit = std::function<Result<bool>(std::vector<UrlPattern>&)>;
  Status EditDeny(std::string_view crawl, bool create, const DenyEdit& edit, bool* changed);
  Status StoreDeny(CrawlState& c, std::shared_ptr<const DenyPatterns> next);
  Status RestoreDeny(CrawlState& c, std::string_view value);

  // crawl_host_queue.cc
  using KeyValue = std::pair<std::string, std::string>;
  Status KeepLeasedEntries(const HostState& h, std::vector<KeyValue>* keep,
                           std::vector<KeyValue>* refs);
  void DropRecrawlRefs(const std::string& begin, const std::vector<KeyValue>& refs);
  uint64_t ForgetQueue(HostState& h);
  void BetweenScanChunks();  // lets other calls take the lock
  void NoteQueued(HostState& h, std::string_view key) {
    if (h.drop_scans > 0) h.drop_log.emplace_back(key);
  }
  Status DropMatchingEntry(HostState& h, const UrlPattern& pattern, const std::string& key,
                           std::string_view value, uint64_t* n);
  Status DropLogged(HostState& h, const UrlPattern& pattern, uint64_t* dropped);
  Status FinishDrop(HostState& h, uint64_t n, uint64_t* dropped);
  Status DropMatchingChunk(HostState& h, const UrlPattern& pattern, std::string* resume,
                           bool* more, uint64_t* dropped);

  // crawl_url_report.cc
  Status FindEntriesChunk(const HostState& h, std::string_view url, std::string* resume,
                          bool* more, std::set<std::string>* keys, UrlReport* out);
  Status ReadEntries(HostState& h, std::span<const std::string> keys, UrlReport* out);
  void ReportLease(std::string_view crawl, std::string_view url, UrlReport* out) const;
  std::string RobotsVerdict(const HostState& h, std::string_view url) const;
  HostInfo InfoOf(const HostState& h, int64_t now) const;

  // crawl_add.cc
  void PrepareOne(std::string_view crawl_id, const AddRequest& r, Prepared* p) const;
  // Add's verdict on `url` without adding it: canonical form, seen-set key,
  // the reason it would be rejected (empty: none). For Explain.
  Status CheckUrl(std::string_view crawl_id, std::string_view url, CanonicalUrl* canon,
                  SeenKey* key, std::string* reason);
  bool AsGiven(std::string_view crawl_id, const AddRequest& r, Prepared* p) const;
  void KnownAsGiven(std::span<Prepared> preps) const;
  void QueueNew(HostState& h, QueueItem item, rocksdb::WriteBatch* batch);
  Status ScheduleRefetch(std::span<Prepared> preps, std::vector<AddResult>* out);
  Status AddChunk(std::string_view crawl_id, std::span<const AddRequest> requests,
                  std::vector<AddResult>* out, uint64_t* ticket);
  // *queued: whether it queued (or moved) a recrawl; false when one stays.
  Status QueueRecrawl(Prepared& p, bool* queued);

  // crawl_refetch.cc: kRecrawl, entries queued with a refetch time by URL.
  void IndexRecrawl(const HostState& h, const QueueItem& item, rocksdb::WriteBatch* batch);
  Status FindRecrawl(const HostState& h, std::string_view url, QueueItem* entry, bool* found);
  void RetimeRecrawl(const HostState& h, const QueueItem& item, rocksdb::WriteBatch* batch);
  // Sets refetch_at_ms = now on the links of a re-read sitemap whose
  // <lastmod> is later than its previous read. REQUIRES: mu_ held.
  void RecrawlChanged(const HostState& h, const QueueItem& sitemap,
                      std::span<const int64_t> lastmod_s, int64_t now,
                      std::vector<AddRequest>* links);

  // host_sched.cc: per-host queue heads and placement.
  int64_t DelayMs(const HostState& h) const;
  // Earliest time the host could lease (kNever = not by time alone).
  int64_t ReadyTime(const HostState& h, int64_t now) const;
  // After any change to a host's counts or ready time: places it in the
  // ring or the heap (PlaceHost) and updates its crawl's live sums (Account).
  void Reschedule(HostState& h, int64_t now);
  void PlaceHost(HostState& h, int64_t now);
  void Account(HostState& h);
  // `value` is EncodeItem(item), as just written under `key`.
  void InsertHead(HostState& h, const std::string& key, const QueueItem& item,
                  std::string_view value);
  // Starts loading what QueueNew and InsertHead read of a host, in two
  // steps: the first the host's state, the second its last head.
  static void PrefetchHost(const HostState& h);
  static void PrefetchLastHead(const HostState& h);
  void PrefetchRingAhead() const;
  Status RefillHeads(HostState& h, int64_t now);
  // Heads a refill of `h` may read: what its lease rate asks for, within
  // its share of options_.queue_heads_bytes.
  uint32_t RefillTarget(const HostState& h, int64_t now) const;
  // The most heads `h` may hold: head_buffer, or more within its share of
  // options_.queue_heads_bytes and what is left of it.
  uint32_t HeadCap(const HostState& h) const;
  // Every change to a host's heads goes through these (RAM accounting).
  void PopFrontHead(HostState& h);
  void ClearHeads(HostState& h);
  // Counts the change of h.heads since it held `bytes` in `count` heads.
  void CountHeads(const HostState& h, uint64_t bytes, size_t count);
  Status PromoteDue(HostState& h, int64_t now, rocksdb::WriteBatch* batch);

  // lease.cc
  void MoveDueToRing(int64_t now);
  Status LeaseFromHost(HostState& h, std::string_view worker, int64_t now,
                       rocksdb::WriteBatch* batch, std::vector<LeasedUrl>* out,
                       size_t* robots_work);
  void StartLease(HostState& h, LeaseRecord rec, std::string queue_key, int64_t now,
                  rocksdb::WriteBatch* batch, std::vector<LeasedUrl>* out);

  // lease_done.cc
  LeaseInFlight* FindLease(std::string_view worker, std::string_view lease_id,
                           uint64_t* id);
  void EndLease(uint64_t id, LeaseInFlight& l);
  using ExpiryFilter = std::function<bool(uint64_t id, const LeaseInFlight&, int64_t now)>;
  // With `save`, leases that stay open and are not in kLease as they are
  // now are written there, so a crash does not forget them.
  // `why` ("lease expired", "lease released") goes into fetch records.
  Status ExpireWhere(const ExpiryFilter& due, std::string_view why, size_t* expired,
                     bool save = false);
  void SaveLease(uint64_t id, LeaseInFlight& l, int64_t now);
  void ReleaseEntry(LeaseInFlight& l, rocksdb::WriteBatch* batch);
  void FinishPage(HostState& h);
  void DonePage(LeaseInFlight& l, const DoneReport& report, int64_t now,
                rocksdb::WriteBatch* batch);
  void DoneRobots(LeaseInFlight& l, const DoneReport& report, int64_t now,
                  rocksdb::WriteBatch* batch, std::vector<std::string>* sitemaps);
  int64_t RobotsRetryWaitMs(const HostState& h, const DoneReport& report) const;
  void Requeue(HostState& h, QueueItem item, int64_t due_ms, rocksdb::WriteBatch* batch);
  // Queues the URL again with backoff; returns the failure reason instead
  // when it had its last attempt.
  std::string Retry(LeaseInFlight& l, const DoneReport& report, int64_t now,
                    rocksdb::WriteBatch* batch);
  void Fail(HostState& h, const QueueItem& item, const std::string& reason);
  // The URL's fetch record (crawl.fetch_history), written with `batch`.
  void NoteFetch(const HostState& h, const QueueItem& item, FetchRecord r,
                 rocksdb::WriteBatch* batch);
  // Reads it into *r (outcome kNone: none) from RocksDB: one still in
  // pending_ is not seen (Flush first where that matters). REQUIRES: mu_.
  Status ReadFetch(const HostState& h, std::string_view url, FetchRecord* r);
  void SetRobots(HostState& h, RobotsState state, int64_t expires_ms,
                 std::shared_ptr<const RobotsRules> rules, rocksdb::WriteBatch* batch);

  Store* const store_;
  SeenSet* const seen_;
  const CrawlOptions options_;
  Clock* const clock_;
  const ScopeRules scope_;

  // Spins before sleeping: the io threads take it for a few microseconds
  // per command, and a futex sleep and wake cost more than that.
  AdaptiveMutex mu_;
  uint64_t live_count_errors_ = 0;  // CheckLive mismatches
  Status sticky_error_;  // a failed write: RAM may be ahead of disk
  std::map<std::string, std::unique_ptr<CrawlState>, std::less<>> crawls_;
  std::vector<std::unique_ptr<HostState>> hosts_;
  // Each host's queued + scheduled by id (its HostCounted::queued), packed:
  // ListHosts ranks 10^5 hosts from 800 KB instead of 10^5 HostStates.
  std::vector<uint64_t> host_queued_;
  std::vector<uint32_t> dirty_hosts_;
  std::string record_key_, record_value_;  // FlushDirty's buffers
  std::map<uint64_t, LeaseInFlight> leases_;
  bool restored_ = false;  // Restore finished: the close may mark itself clean
  std::deque<RingEntry> ring_;
  HeadsUsage heads_mem_;
  std::vector<char> refill_records_;  // RefillHeads' buffer, reused
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> waiting_;
  uint64_t next_seq_ = 1, seq_limit_ = 1;      // see AllocSeq
  uint64_t next_lease_ = 1, lease_limit_ = 1;
  bool paused_all_ = false;
  // Some crawl has deny patterns: only then does Add take the lock to read
  // them before canonicalizing.
  std::atomic<bool> any_deny_{false};
  // Some host has (or had) its own budget: only then can a URL already
  // seen be answered "budget exhausted" by a host with no default budget.
  bool host_budgets_ = false;
  // Writes not yet in RocksDB (group commit); dirty host and crawl records
  // are added when it is written. Its ticket is batch_epoch_, bumped by
  // every write of it.
  rocksdb::WriteBatch pending_;
  uint64_t batch_epoch_ = 1;  // the epoch the next batch gets from pipeline_

  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  uint64_t wake_epoch_ = 0;
  std::function<void()> on_work_;
  std::function<void()> between_drop_chunks_;
  // Last: destroyed first, writing what was handed to it.
  CommitPipeline pipeline_;
};

}  // namespace crawlfront
