#pragma once
// The frontier's RocksDB database: one DB, one column family per kind of
// record. Keys of partitioned records start with the 2-byte big-endian
// seen-set partition id, so a partition is a contiguous key range in every
// column family (the unit of snapshot, rebuild and, later, of moving nodes).

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <utility>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront {

class WalSyncer;

enum class Durability {
  kWal,       // acknowledged = in the WAL (survives kill -9; power loss
              // loses what the kernel had not written back, up to ~30 s)
  kEverySec,  // kWal, and the WAL is fsynced every second (WalSyncer):
              // power loss loses at most about a second, as with Redis's
              // appendfsync everysec
  kFsync,     // acknowledged = WAL fsynced (group commit across writers)
};

// kMeta, kQueue, kHost and kLease use memtable insert hints and so must
// never get a DeleteRange (store.cc, InsertHint, says why).
enum class Cf : int {
  kDefault = 0,
  kMeta,       // small named values: format version, partition count, counters
  kSeen,       // [partition][fingerprint] -> ""   exact seen-set
  kSeenLog,    // [partition][counter]     -> fingerprint   inserts since snapshot
  kSeenSnap,   // [partition]'H' / 'C'[chunk] -> filter snapshot
  kQueue,      // host queues (frontier)
  kHost,       // per-host state (frontier)
  kLease,      // lease records of older versions (read once at open)
  kUserBloom,  // BF.* filters named by users
  kRecrawl,    // queue entries by URL, for REFETCH (frontier)
  kFetch,      // each URL's last fetch result, for FRONTIER.URL (frontier)
  kCount,
};

struct StoreOptions {
  // Commit mode for every write. Default: kEverySec.
  Durability durability = Durability::kEverySec;
  // kEverySec's period (tests shorten it). Default: 1 s.
  std::chrono::milliseconds wal_sync_interval{1000};
  // RocksDB block cache for reads of seen fingerprints and queues.
  // Larger keeps more of the exact set in RAM. Default: 256 MiB.
  uint64_t block_cache_bytes = 256ull << 20;
  // Memtable size per column family; larger absorbs more inserts before a
  // flush at the cost of RAM and recovery time. The WAL is kept under 4x
  // this. Default: 64 MiB.
  uint64_t write_buffer_bytes = 64ull << 20;
  // Background threads for flush and compaction. Default: 2.
  int background_jobs = 2;
  // RocksDB's Env (the store keeps it alive); null: the default. Tests
  // inject file system faults.
  std::shared_ptr<rocksdb::Env> env;
};

// kEverySec's background syncs, for INFO and the status page.
struct WalSyncStats {
  uint64_t syncs = 0;
  uint64_t errors = 0;
  bool failing = false;  // a sync failed: writes are refused until a restart
};

// RocksDB's background work (flushes of full memtables, compactions), for
// INFO and the status page: Redis shows its AOF rewrite the same way.
struct BackgroundWork {
  uint64_t immutable_memtables = 0;  // full memtables not yet flushed
  uint64_t flushes_running = 0;
  uint64_t compactions_running = 0;
  bool flush_pending = false;       // a column family waits for a flush
  bool compaction_pending = false;  // a column family's levels need one
};

struct MemtableFill;  // prefix_bucket_rep.h

class Store {
 public:
  // Opens (creating if missing) the database in `dir` with every column
  // family. Returns IoError with RocksDB's message on failure.
  static Result<std::unique_ptr<Store>> Open(const std::string& dir,
                                             const StoreOptions& options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* cf(Cf which) const {
    return handles_[static_cast<int>(which)];
  }
  // Write options for acknowledged writes, per the durability mode.
  const rocksdb::WriteOptions& write_options() const { return write_options_; }
  const std::string& dir() const { return dir_; }
  Durability durability() const { return durability_; }
  // Zeros unless kEverySec.
  WalSyncStats wal_sync_stats() const;
  BackgroundWork background_work() const;

  // Commits `batch`; converts RocksDB errors to IoError. IoError without
  // writing once a kEverySec sync has failed.
  Status Write(rocksdb::WriteBatch* batch);
  // Reads kMeta[key]; NotFound if absent.
  Result<std::string> GetMeta(std::string_view key);
  Status PutMeta(std::string_view key, std::string_view value);
  // Consistent on-disk copy of the whole database (RocksDB checkpoint) in a
  // directory that must not exist yet. Cheap: hard links where possible.
  Status Checkpoint(const std::string& target_dir);

 private:
  Store() = default;
  std::string dir_;
  Durability durability_ = Durability::kWal;
  std::shared_ptr<rocksdb::Env> env_;  // StoreOptions::env, outlives db_
  std::unique_ptr<rocksdb::DB> db_;
  std::array<rocksdb::ColumnFamilyHandle*, static_cast<int>(Cf::kCount)> handles_{};
  rocksdb::WriteOptions write_options_;
  std::unique_ptr<WalSyncer> syncer_;  // kEverySec only
  std::shared_ptr<MemtableFill> queue_fill_;
  uint64_t queue_flush_bytes_ = 0;
  std::atomic<uint64_t> queue_flush_asked_{0};  // the generation asked for

  // Flushes kQueue once its newest memtable's entries reach
  // write_buffer_bytes; its buckets get room beyond that (see CfOptions).
  void FlushFullQueue();
};

// Group commit: writes that several callers add to one WriteBatch and that
// are committed with a single Store::Write, e.g. all the commands of one
// pipelined round of a RESP connection (see RoundCommit). One write instead
// of one per caller: fewer WAL records and write-thread handoffs. A caller
// must not acknowledge its writes before Commit() succeeded. Not
// thread-safe: one owner at a time.
class WriteGroup {
 public:
  explicit WriteGroup(Store* store) : store_(store) {}
  WriteGroup(const WriteGroup&) = delete;
  WriteGroup& operator=(const WriteGroup&) = delete;

  rocksdb::WriteBatch* batch() { return &batch_; }
  // A record built up by many callers of the group and Put once, just
  // before the batch is written: e.g. one log record holding every item a
  // round logged instead of one record per item (each record costs a
  // memtable insert). One per `owner`; key and value start empty and the
  // caller sets both; an empty key is not written.
  struct Merged {
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    std::string key;
    std::string value;
  };
  Merged& MergedRecord(const void* owner, rocksdb::ColumnFamilyHandle* cf);
  // fn(arg) runs if Commit() fails, e.g. to mark RAM state the disk now
  // lacks. A repeat of the most recent (fn, arg) is dropped, so a caller may
  // register per write cheaply. arg must stay valid until Commit() returns.
  void OnFailure(void (*fn)(void*), void* arg);
  // Writes the batch (nothing if empty) per the store's durability. Call at
  // most once. IoError (and the failure callbacks run) if RocksDB fails.
  Status Commit();

 private:
  Store* store_;
  rocksdb::WriteBatch batch_;
  std::vector<std::pair<const void*, Merged>> merged_;
  std::vector<std::pair<void (*)(void*), void*>> on_failure_;
};

// Per column family memtable choices (store_memtable.cc). `queue_fill`
// follows kQueue's newest memtable.
void TuneMemtable(Cf which, rocksdb::ColumnFamilyOptions* cf,
                  std::shared_ptr<MemtableFill> queue_fill);

// kQueue keys: be16 partition | be16 len | crawl | be16 len | host key |
// entry. The length of everything up to the entry (the host's prefix), or 0
// for a key without one.
size_t QueueHostPrefixLen(const rocksdb::Slice& key);

// Converts a RocksDB status to ours (ok stays ok).
Status FromRocks(const rocksdb::Status& s);

// Key encoding helpers (big-endian so that keys sort numerically).
void AppendBe16(std::string* out, uint16_t v);
void AppendBe32(std::string* out, uint32_t v);
// Inline, one byte swap and one append: it runs per logged Bloom add and
// per key (an out-of-line byte loop was 2.5-5% of BF.MADD profiles).
inline void AppendBe64(std::string* out, uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  char b[8];
  std::memcpy(b, &v, sizeof b);
  out->append(b, sizeof b);
}
uint16_t ReadBe16(const char* p);
uint32_t ReadBe32(const char* p);
uint64_t ReadBe64(const char* p);
// The first key after every key that starts with `prefix` (for range ends).
std::string PrefixSuccessor(std::string prefix);

}  // namespace crawlfront
