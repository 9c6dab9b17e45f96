#pragma once
// The seen-set: "was this URL ever seen?" for billions of URLs, exactly and
// across restarts. P partitions by host hash; each has an in-RAM blocked Bloom
// filter (the fast "definitely new" path), a small cache of popular
// fingerprints, and a key range in RocksDB holding the exact fingerprints.
// See docs/seen_set.md for the design and its invariants.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/write_batch.h>

#include "crawlfront/common/ownership.h"
#include "crawlfront/common/status.h"
#include "crawlfront/common/url.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

enum class SeenMode {
  kExact,      // Bloom "maybe" confirmed in RocksDB: no new URL is ever lost
  kBloomOnly,  // Bloom "maybe" taken as seen: faster, loses ~p of new URLs
};

struct SeenSetOptions {
  // Number of partitions, a power of two <= 65536. Fixed for a database's
  // life: reopening with another value is an error. Default: 1024.
  uint32_t partitions = 1024;
  // URLs expected in all partitions together; sizes each partition's first
  // filter (expected / partitions, at least 1024). Too small only costs
  // early rebuilds. Default: 10^7.
  uint64_t expected_urls = 10'000'000;
  // Target false-positive rate of each filter at its capacity. Lower costs
  // RAM (about 1.44*log2(1/p) bits per URL plus the blocking overhead).
  // Default: 0.01.
  double false_positive_rate = 0.01;
  // Fill ratio (fraction of set bits) at which a partition's filter is rebuilt
  // twice as large in the background. 0.5 is the optimum at capacity.
  // Default: 0.5.
  double rebuild_fill_ratio = 0.5;
  // Exact or Bloom-only dedup. Default: kExact.
  SeenMode mode = SeenMode::kExact;
  // How often dirty partitions' filters are written to RocksDB; restart
  // replays only inserts after a partition's snapshot. 0 disables the timer
  // (snapshots then happen on Close and SnapshotNow). Default: 60 s.
  std::chrono::milliseconds snapshot_interval{60'000};
  // RAM for fingerprints confirmed seen (16 bytes each, one cache for all
  // partitions), so repeated links skip RocksDB. 0 disables. Default: 16 MiB.
  uint64_t cache_bytes = 16 << 20;
};

// Identifies a URL within the seen-set: the host hash picks the partition,
// the fingerprint is the URL's identity.
struct SeenKey {
  uint64_t host_hash = 0;
  Fingerprint fingerprint;
};

enum class SeenResult : uint8_t { kSeen = 0, kNew = 1 };

struct PartitionStats {
  uint32_t id = 0;
  uint64_t items = 0;        // distinct URLs inserted
  uint64_t capacity = 0;     // URLs the current filter was sized for
  uint64_t filter_bytes = 0;
  double fill_ratio = 0;
  double estimated_fp_rate = 0;
  uint64_t rebuilds = 0;
  bool rebuilding = false;
  int64_t last_snapshot_unix_ms = 0;  // 0 = never
  uint64_t last_snapshot_seq = 0;     // log counter the snapshot covers
};

struct SeenSetStats {
  uint64_t items = 0;
  uint64_t filter_bytes = 0;
  uint64_t lookups = 0;           // keys asked about
  uint64_t bloom_negatives = 0;   // answered "new" by the filter alone
  uint64_t cache_hits = 0;        // answered "seen" by the popular cache
  uint64_t disk_lookups = 0;      // confirmed in RocksDB
  uint64_t false_positives = 0;   // filter said maybe, RocksDB said new
  uint64_t rebuilds_done = 0;
  uint64_t rebuilds_running = 0;
  uint64_t snapshots_written = 0;
  double max_fill_ratio = 0;
};

class SeenCache;

class SeenSet {
 public:
  // Callback for each new key of a batch: add the caller's own writes (e.g.
  // the queue entry) to the batch that also records the key as seen, so both
  // commit atomically.
  using OnNew = std::function<void(size_t index, rocksdb::WriteBatch& batch)>;
  // Called once after the last OnNew, before the write: for records that
  // many new keys change (a host's counters) and are written once.
  using BeforeWrite = std::function<void(rocksdb::WriteBatch& batch)>;
  // Takes the finished batch instead of writing it here, and calls `after`
  // with the write's result once it is written (CommitPipeline::Submit).
  using Submit = std::function<void(rocksdb::WriteBatch* batch,
                                    std::function<void(const Status&)> after)>;

  // Loads every partition (snapshot + replay of later inserts, or a scan of
  // the partition's range when it has no snapshot) and starts the background
  // thread for snapshots and rebuilds. `store` must outlive the SeenSet.
  // Logs progress while loading. Fails on a partition-count mismatch.
  static Result<std::unique_ptr<SeenSet>> Open(Store* store,
                                               const SeenSetOptions& options);
  // Stops the background thread and snapshots dirty partitions.
  ~SeenSet();

  // For each key, decides new or seen and records the new ones durably (per
  // the store's durability) in one atomic write together with whatever
  // `on_new` adds. Duplicates within the batch: the first is new, the rest
  // seen. On error nothing of the batch is recorded and `out` is undefined.
  // Thread-safe. Partition locks are held only around in-memory checks, never
  // across RocksDB reads or the write: a key being written is "claimed"
  // (pending), and a concurrent batch sees it as seen (docs/seen_set.md).
  // With `submit`, the write happens later elsewhere: *out is final on
  // return, and claims stay pending until submit's `after` runs.
  Status InsertIfNew(std::span<const SeenKey> keys, std::vector<SeenResult>* out,
                     const OnNew& on_new = nullptr, const BeforeWrite& before_write = nullptr,
                     const Submit& submit = nullptr);

  // Exact membership (Bloom, cache, then RocksDB), also in Bloom-only mode.
  Result<bool> Contains(const SeenKey& key);
  // Contains for many keys: (*known)[i] for keys[i], with one RocksDB
  // MultiGet for all the keys RAM cannot answer. A key whose read fails is
  // left unknown (0); the first such error is returned.
  Status ContainsMany(std::span<const SeenKey> keys, std::vector<uint8_t>* known);
  // Starts loading what Contains(key) reads first into the CPU cache.
  void Prefetch(const SeenKey& key) const;

  // Writes every dirty partition's snapshot now; logs progress.
  Status SnapshotNow();
  // Rebuilds partition `p` now (twice its capacity) in the calling thread.
  // Returns at once if a rebuild of `p` is already running elsewhere.
  Status RebuildNow(uint32_t p);

  uint32_t partitions() const { return static_cast<uint32_t>(parts_.size()); }
  uint32_t PartitionOf(uint64_t host_hash) const {
    return PartitionOfHost(host_hash, partitions());
  }
  PartitionStats GetPartitionStats(uint32_t p) const;
  SeenSetStats GetStats() const;
  const SeenSetOptions& options() const { return options_; }

  struct Partition;  // defined in seen_partition.h

 private:
  SeenSet(Store* store, const SeenSetOptions& options);
  Status LoadAll();
  Status LoadPartition(uint32_t p);
  Status LoadFromSnapshot(Partition& P, std::string_view header_bytes);
  Status LoadFromScan(Partition& P);
  Status ReplayLog(Partition& P);
  void BackgroundLoop();
  void MaybeScheduleRebuild(uint32_t p);
  Status Rebuild(uint32_t p);
  Status SnapshotPartition(uint32_t p);
  // What RAM says of a key: seen, not seen, or ask RocksDB (its partition).
  enum class InRam { kSeen, kNew, kAsk };
  InRam CheckInRam(const SeenKey& key, uint32_t* partition);
  // InsertIfNew's phases (seen_insert.cc).
  struct Insert;
  void ClassifyAndClaim(Insert& in);
  Status ConfirmOnDisk(Insert& in);
  Status WriteClaims(Insert& in, const OnNew& on_new, const BeforeWrite& before_write,
                     const Submit& submit);
  struct Claimed {
    uint32_t part;
    Fingerprint fp;
  };
  static std::vector<Claimed> ClaimsOf(const Insert& in);
  void RetireClaims(std::vector<Claimed> claims, bool committed);
  void Claim(Partition& P, Insert& in, uint32_t i);

  Store* store_;
  SeenSetOptions options_;
  std::vector<std::unique_ptr<Partition>> parts_;
  std::unique_ptr<SeenCache> cache_;

  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  std::vector<uint32_t> rebuild_queue_;
  bool stopping_ = false;
  std::atomic<bool> stop_flag_{false};  // lets a long rebuild give up at shutdown
  std::mutex snapshot_mu_;              // one snapshot pass at a time
  std::thread bg_thread_;

  std::atomic<uint64_t> lookups_{0}, bloom_negatives_{0}, cache_hits_{0},
      disk_lookups_{0}, false_positives_{0}, rebuilds_done_{0}, snapshots_{0};
};

const char* SeenModeName(SeenMode mode);

}  // namespace crawlfront
