// Durability::kEverySec (store.h): RocksDB's WAL fsynced once a second.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <rocksdb/db.h>

#include "crawlfront/common/status.h"

namespace crawlfront {

// Fsyncs the WAL every `interval` when anything was written since the last
// sync, as Redis's `appendfsync everysec` does its AOF: a power loss then
// loses at most about an interval of acknowledged writes, where a WAL left
// to the kernel's writeback could lose ~30 s. SyncWAL does not block
// writers. After a sync fails, Failure() says why and the store refuses
// writes (Redis refuses them after a failed AOF fsync too; RocksDB itself
// refuses them from then on, until the database is reopened): a write could
// not be acknowledged as durable as promised.
class WalSyncer {
 public:
  WalSyncer(rocksdb::DB* db, std::chrono::milliseconds interval);
  // Stops the thread; the caller syncs once more before closing the DB.
  ~WalSyncer();
  WalSyncer(const WalSyncer&) = delete;
  WalSyncer& operator=(const WalSyncer&) = delete;

  // Syncs now if anything was written since the last sync.
  Status SyncNow();
  // Ok, or the error of the sync that failed.
  Status Failure() const;
  bool failing() const { return failing_.load(std::memory_order_acquire); }
  uint64_t syncs() const { return syncs_.load(std::memory_order_relaxed); }
  uint64_t errors() const { return errors_.load(std::memory_order_relaxed); }

 private:
  void Run(std::stop_token stop);

  rocksdb::DB* const db_;
  const std::chrono::milliseconds interval_;
  std::atomic<bool> failing_{false};
  std::atomic<uint64_t> syncs_{0};
  std::atomic<uint64_t> errors_{0};
  std::mutex mu_;  // one sync at a time
  rocksdb::SequenceNumber synced_seq_ = 0;  // guarded by mu_
  mutable std::mutex failure_mu_;  // not held across a sync: writers read it
  std::string failure_;
  std::jthread thread_;  // last: starts after everything above exists
};

}  // namespace crawlfront
