#pragma once
// The frontier's RocksDB database: one DB, one column family per kind of
// record. Keys of partitioned records start with the 2-byte big-endian
// seen-set partition id, so a partition is a contiguous key range in every
// column family (the unit of snapshot, rebuild and, later, of moving nodes).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <rocksdb/db.h>

#include "crawlfront/common/status.h"

namespace crawlfront {

enum class Durability {
  kWal,    // acknowledged = in the WAL (survives kill -9, not power loss)
  kFsync,  // acknowledged = WAL fsynced (group commit across writers)
};

enum class Cf : int {
  kDefault = 0,
  kMeta,       // small named values: format version, partition count, counters
  kSeen,       // [partition][fingerprint] -> ""   exact seen-set
  kSeenLog,    // [partition][counter]     -> fingerprint   inserts since snapshot
  kSeenSnap,   // [partition]'H' / 'C'[chunk] -> filter snapshot
  kQueue,      // host queues (frontier)
  kHost,       // per-host state (frontier)
  kLease,      // leases in flight (frontier)
  kUserBloom,  // BF.* filters named by users
  kCount,
};

struct StoreOptions {
  // Commit mode for every write. Default: kWal.
  Durability durability = Durability::kWal;
  // RocksDB block cache for reads of seen fingerprints and queues.
  // Larger keeps more of the exact set in RAM. Default: 256 MiB.
  uint64_t block_cache_bytes = 256ull << 20;
  // Memtable size per column family; larger absorbs more inserts before a
  // flush at the cost of RAM and recovery time. Default: 64 MiB.
  uint64_t write_buffer_bytes = 64ull << 20;
  // Background threads for flush and compaction. Default: 2.
  int background_jobs = 2;
};

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

  // Commits `batch`; converts RocksDB errors to IoError.
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
  std::unique_ptr<rocksdb::DB> db_;
  std::array<rocksdb::ColumnFamilyHandle*, static_cast<int>(Cf::kCount)> handles_{};
  rocksdb::WriteOptions write_options_;
};

// Converts a RocksDB status to ours (ok stays ok).
Status FromRocks(const rocksdb::Status& s);

// Key encoding helpers (big-endian so that keys sort numerically).
void AppendBe16(std::string* out, uint16_t v);
void AppendBe32(std::string* out, uint32_t v);
void AppendBe64(std::string* out, uint64_t v);
uint16_t ReadBe16(const char* p);
uint32_t ReadBe32(const char* p);
uint64_t ReadBe64(const char* p);
// The first key after every key that starts with `prefix` (for range ends).
std::string PrefixSuccessor(std::string prefix);

}  // namespace crawlfront
