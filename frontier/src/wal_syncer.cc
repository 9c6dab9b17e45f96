#include "wal_syncer.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>

namespace crawlfront {

WalSyncer::WalSyncer(rocksdb::DB* db, std::chrono::milliseconds interval)
    : db_(db), interval_(interval), thread_([this](std::stop_token stop) { Run(stop); }) {}

WalSyncer::~WalSyncer() {
  thread_.request_stop();
  thread_.join();
}

void WalSyncer::Run(std::stop_token stop) {
  // Only stop wakes it early; the mutex is the condition variable's need.
  std::mutex wait_mu;
  std::condition_variable_any wake;
  std::unique_lock lock(wait_mu);
  while (!wake.wait_for(lock, stop, interval_, [&stop] { return stop.stop_requested(); })) {
    SyncNow().IgnoreError();  // logged and counted; the store refuses writes meanwhile
  }
}

Status WalSyncer::SyncNow() {
  std::lock_guard lock(mu_);
  // RocksDB keeps refusing writes after a failed WAL sync (its background
  // error; Resume does not clear it in 7.8), so there is nothing to retry.
  if (failing()) return Failure();
  // Every write up to this sequence number is in the WAL file already (a
  // write's sequence becomes visible after its WAL append).
  const rocksdb::SequenceNumber seq = db_->GetLatestSequenceNumber();
  if (seq == synced_seq_) return Status::Ok();
  const rocksdb::Status s = db_->SyncWAL();
  if (s.ok()) {
    synced_seq_ = seq;
    syncs_.fetch_add(1, std::memory_order_relaxed);
    return Status::Ok();
  }
  errors_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard message_lock(failure_mu_);
    failure_ = "WAL fsync failed, writes are refused until the frontier is restarted: " +
               s.ToString();
    spdlog::error("store: {}", failure_);
  }
  failing_.store(true, std::memory_order_release);
  return Failure();
}

Status WalSyncer::Failure() const {
  if (!failing()) return Status::Ok();
  std::lock_guard lock(failure_mu_);
  return Status::IoError(failure_);
}

}  // namespace crawlfront
