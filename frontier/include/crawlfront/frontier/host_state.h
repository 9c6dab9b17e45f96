#pragma once
// Internal records of the crawl core: queue entries, per-host state and their
// RocksDB encodings. Used by crawl.h; not meant for other callers.
//
// Key layout (docs/scheduling.md):
//   host prefix  = be16 partition | be16 len | crawl id | be16 len | host key
//   kQueue  prefix 0x00 | be32 (INT32_MAX - priority) | be32 depth | be64 seq
//             -> QueueItem          (ready entries, leased in key order)
//   kQueue  prefix 0x01 | be64 due_ms | be64 seq
//             -> QueueItem          (scheduled: retries and recrawls)
//   kHost   prefix 'H' -> HostRecord;  prefix 'R' origin -> RobotsRecord
//           (one per origin, e.g. "https://h:8443"; older versions wrote one
//           per host with no origin)
//   kLease  be16 partition | be64 lease id -> LeaseRecord: the leases in
//           flight at a clean close, taken back and deleted by the next open
//           (their pages' entries stay in kQueue meanwhile)
//   kRecrawl prefix | canonical URL -> be64 seq | be64 due_ms | be32
//           priority | be32 depth: the URL's last entry queued with a refetch
//           time (it may have left kQueue since: readers check)
//   kFetch  prefix | 128-bit URL fingerprint -> FetchRecord
//           (fetch_record.h): the URL's last fetch result

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/frontier/head_buffer.h"
#include "crawlfront/worker/robots.h"

namespace crawlfront {

enum class LeaseKind : uint8_t { kPage = 0, kRobots = 1 };

enum class RobotsState : uint8_t {
  kNone = 0,  // never fetched (or expired): the next lease is robots.txt
  kFetching,  // a robots lease is in flight: no page is leased
  kOk,        // rules known until robots_expires_ms
  kError,     // 5xx/429/unreachable: nothing leased until robots_expires_ms
  kManual,    // set by an operator (FRONTIER.HOST ROBOTS): never expires
};
const char* RobotsStateName(RobotsState s);

inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// kMeta keys of the crawl core.
inline constexpr std::string_view kMetaSeq = "crawl.seq";             // next arrival seq
inline constexpr std::string_view kMetaLeaseSeq = "crawl.lease_seq";  // next lease id
inline constexpr std::string_view kMetaPausedAll = "crawl.paused_all";
// Present from a clean close until the next open: every host record is
// current. Without it the open counts the queues (CrawlCore::RecountQueues).
inline constexpr std::string_view kMetaClosedClean = "crawl.closed_clean";
// "crawl.c.stats.<id>" -> counters, "crawl.c.paused.<id>" -> "1"/"0".
inline constexpr std::string_view kMetaCrawlPrefix = "crawl.c.";

// CrawlHostHash (the seen-set host hash of a host key in a crawl) is in
// crawlfront/common/ownership.h, shared with crawlctl's seed routing.


// One queued URL (a value in kQueue, also the body of a lease record).
struct QueueItem {
  std::string url;
  std::string parent;
  uint32_t depth = 0;
  uint32_t attempt = 1;  // 1 = first try
  int32_t priority = 0;  // higher first
  uint64_t seq = 0;      // arrival order, unique
  int64_t due_ms = 0;    // scheduled entries only
  // A recrawl's validators from its last fetch (ETag, Last-Modified as the
  // server sent them), for a conditional GET; usually empty.
  std::string etag{}, last_modified{};  // {}: aggregates may omit them
};

uint64_t HeadRank(const QueueItem& item);
std::string ReadyKeyOf(std::string_view prefix, uint64_t rank, uint64_t seq);
// The rank and seq of a ready key whose host prefix is `prefix_len` bytes;
// false if the key is not one.
bool ParseReadyKey(std::string_view key, size_t prefix_len, uint64_t* rank, uint64_t* seq);

std::string HostPrefix(uint16_t partition, std::string_view crawl, std::string_view host_key);
// Splits a kHost/kQueue key into its parts; false if it is malformed.
bool ParseHostPrefix(std::string_view key, uint16_t* partition, std::string* crawl,
                     std::string* host_key, size_t* prefix_len);
std::string ReadyKey(std::string_view prefix, const QueueItem& item);
std::string ScheduledKey(std::string_view prefix, const QueueItem& item);
std::string RecrawlKey(std::string_view prefix, std::string_view url);
std::string EncodeRecrawlRef(const QueueItem& item);
// Fills `item`'s seq, due_ms, priority and depth; false if malformed.
bool DecodeRecrawlRef(std::string_view bytes, QueueItem* item);
std::string EncodeItem(const QueueItem& item);
Status DecodeItem(std::string_view bytes, QueueItem* item);

// Persisted per-host counters and operator controls.
struct HostRecord {
  int64_t delay_override_ms = -1;  // -1 = CrawlOptions::default_delay
  int64_t blocked_until_ms = 0;
  int64_t budget = -1;             // -1 = options, 0 = unlimited
  uint64_t added = 0;              // URLs ever queued as new (budget use)
  uint64_t queued = 0;             // ready entries in kQueue
  uint64_t scheduled = 0;          // scheduled entries in kQueue
  uint64_t done = 0;               // URLs that left the frontier
  // Ready entries leased out: they stay in kQueue until DONE, so a restart
  // finds them there (and counts them as queued again).
  uint64_t leased = 0;
  int64_t ready_at_ms = 0;         // politeness: no fetch start before this
  int64_t last_response_ms = 0;
  // Arrival numbers (QueueItem::seq) below this were allocated before the
  // record was written: its counts include those entries. A DONE of such an
  // entry does not rewrite the record; a restart after a crash finds it
  // gone from kQueue and counts it done (CrawlCore::RecountQueues). 0 in
  // records of older versions, which every DONE rewrote.
  uint64_t seq_mark = 0;
};
std::string EncodeHostRecord(const HostRecord& r);
// The same into *out (cleared first): a host record is written per dirty
// host per commit, so the crawl core reuses one buffer.
void EncodeHostRecordTo(const HostRecord& r, std::string* out);
Status DecodeHostRecord(std::string_view bytes, HostRecord* r);

// One origin's robots.txt rules (RFC 9309 scopes robots.txt to scheme, host
// and port; a host queue can hold several origins), each under its own key.
struct RobotsRecord {
  RobotsState state = RobotsState::kNone;
  int64_t expires_ms = 0;
  std::string rules;  // RobotsRules::Serialize()
  uint32_t errors = 0;  // failed fetches in a row (absent in older versions: 0)
};
std::string EncodeRobotsRecord(const RobotsRecord& r);
Status DecodeRobotsRecord(std::string_view bytes, RobotsRecord* r);

// A lease in flight (RAM; written to kLease by a clean close): the item plus
// where it came from.
struct LeaseRecord {
  LeaseKind kind = LeaseKind::kPage;
  std::string crawl;
  std::string host_key;
  std::string worker;
  int64_t start_ms = 0;
  QueueItem item;
};
// A kLease value: a lease kept by a clean close, with the time it had left
// and its page's kQueue key (empty for robots.txt). left_ms < 0 marks a
// record of an older version, which held the only copy of its item.
struct StoredLease {
  LeaseRecord rec;
  int64_t left_ms = -1;
  std::string queue_key;
};
std::string LeaseKey(uint16_t partition, uint64_t id);
// A lease id as workers see it ("L" and 16 hex digits), and back (lease.cc).
std::string FormatLeaseId(uint64_t id);
bool ParseLeaseId(std::string_view s, uint64_t* id);
std::string EncodeStoredLease(const StoredLease& s);
Status DecodeStoredLease(std::string_view bytes, StoredLease* s);

// Fixed lists of integers (counters); decoding tolerates fewer values than
// asked for (newer fields stay zero) so records can grow.
std::string EncodeU64s(const std::vector<uint64_t>& values);
void AppendU64s(std::span<const uint64_t> values, std::string* out);
Status DecodeU64s(std::string_view bytes, std::vector<uint64_t>* values);

struct CrawlState;

// What one host adds to its crawl's live sums (CrawlCore::Account).
struct HostCounted {
  uint64_t queued = 0;    // queued + scheduled
  uint32_t inflight = 0;  // leases, robots.txt included
  uint32_t pages = 0;     // page leases
  uint32_t ready = 0;     // 1 while the host is in the ready ring
};

// The robots.txt state of an origin that is not the host's current one.
struct OriginRobots {
  RobotsState state = RobotsState::kNone;
  int64_t expires_ms = 0;
  std::shared_ptr<const RobotsRules> rules;
  uint32_t errors = 0;
};

// RAM state of one host queue of one crawl. Holds counters and a few queue
// heads, never the whole queue. Guarded by CrawlCore's mutex.
struct HostState {
  uint32_t id = 0;
  CrawlState* crawl = nullptr;
  std::string host_key;
  uint16_t partition = 0;
  std::string prefix;  // HostPrefix(partition, crawl, host_key)
  HostRecord rec;
  RobotsState robots_state = RobotsState::kNone;
  int64_t robots_expires_ms = 0;
  std::shared_ptr<const RobotsRules> robots;  // null = no rules
  uint32_t robots_errors = 0;  // failed robots fetches in a row
  // The origin the robots_* fields above are for (empty: not known yet, the
  // next page's origin adopts them), and the rules of the queue's other
  // origins, swapped in by UseRobotsOf when a page of theirs comes up.
  std::string robots_origin;
  std::map<std::string, OriginRobots, std::less<>> other_robots;
  uint32_t inflight = 0;
  int64_t sched_min_due = kNever;  // earliest scheduled entry, if any
  // The first heads.size() ready entries in key order (a prefix of the
  // host's ready queue).
  HeadBuffer heads;
  // How many heads a refill reads: grows while the host drains its buffer
  // quickly (many leases in flight, no delay), shrinks when it is slow
  // (see RefillHeads). 0 until the first refill.
  uint32_t head_target = 0;
  int64_t refilled_ms = 0;  // time of the last refill
  // No ready entry sorts below this key (empty: unknown). Refills seek here
  // instead of the queue's start, past the tombstones of leased entries.
  std::string queue_floor;
  std::set<std::string, std::less<>> leased_keys;  // kQueue keys of this host's page leases
  // While FRONTIER.DROP MATCH or FRONTIER.URL scans this host's queue
  // (drop_scans > 0), the keys queued meanwhile: a scan checks them last,
  // under the lock, since a key below its cursor would be missed.
  uint32_t drop_scans = 0;
  std::vector<std::string> drop_log;
  // Scheduler placement (see lease.cc): where the host's live entry is.
  enum class Place : uint8_t { kNone, kRing, kHeap } place = Place::kNone;
  int64_t place_ms = 0;
  uint64_t gen = 0;
  HostCounted counted;  // in its crawl's live sums
  bool dirty = false;  // rec must be written with the current batch
  // Adds, or DONEs of entries older than rec.seq_mark, changed rec and
  // nothing wrote it since: the close writes it, a restart after a crash
  // counts kQueue.
  bool counts_unwritten = false;
  uint64_t touched_epoch = 0;  // == CrawlCore::batch_epoch_: uncommitted queue writes
};

// "scheme://authority" of `url` (the part before its path, query or
// fragment): what a robots.txt applies to.
std::string_view OriginOf(std::string_view url);
// Makes `origin` the host's current robots origin: its rules (or none yet,
// state kNone) move into the robots_* fields and the current ones are kept
// in other_robots. An unknown current origin (empty) adopts `origin`.
void UseRobotsOf(HostState& h, std::string_view origin);
// The kHost key of the robots rules of `origin` of the host at `prefix`.
std::string RobotsKey(std::string_view prefix, std::string_view origin);
// Takes a stored robots record of `origin` into `h`: as the current rules if
// it has none yet, else among the other origins'. An older version's record
// (no origin) is kept only if an operator set it (it covers every origin).
Status RestoreRobots(std::string_view origin, const RobotsRecord& r, HostState& h);

}  // namespace crawlfront
