// Background work of the seen-set: periodic snapshots and online rebuilds.

#include <chrono>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include "seen_partition.h"

namespace crawlfront {
namespace {

constexpr uint64_t kChunkBytes = 4 << 20;
constexpr uint64_t kMinPartitionCapacity = 1024;
using Clock = std::chrono::steady_clock;

}  // namespace

void SeenSet::BackgroundLoop() {
  const bool timed = options_.snapshot_interval.count() > 0;
  auto next_snapshot = Clock::now() + options_.snapshot_interval;
  std::unique_lock lock(bg_mu_);
  while (!stopping_) {
    auto wake = timed ? next_snapshot : Clock::now() + std::chrono::hours(24);
    bg_cv_.wait_until(lock, wake, [&] { return stopping_ || !rebuild_queue_.empty(); });
    if (stopping_) break;
    if (!rebuild_queue_.empty()) {
      uint32_t p = rebuild_queue_.front();
      rebuild_queue_.erase(rebuild_queue_.begin());
      lock.unlock();
      Status s = Rebuild(p);
      if (!s.ok()) spdlog::error("seen-set: rebuild of partition {} failed: {}", p, s.ToString());
      lock.lock();
      continue;
    }
    if (timed && Clock::now() >= next_snapshot) {
      lock.unlock();
      Status s = SnapshotNow();
      if (!s.ok()) spdlog::error("seen-set: snapshot failed: {}", s.ToString());
      next_snapshot = Clock::now() + options_.snapshot_interval;
      lock.lock();
    }
  }
  stop_flag_ = true;
}

// REQUIRES: parts_[p]->mu held.
void SeenSet::MaybeScheduleRebuild(uint32_t p) {
  Partition& P = *parts_[p];
  if (P.rebuild_scheduled || P.next) return;
  if (P.filter->fill_ratio() < options_.rebuild_fill_ratio) return;
  P.rebuild_scheduled = true;
  {
    std::lock_guard lock(bg_mu_);
    rebuild_queue_.push_back(p);
  }
  bg_cv_.notify_one();
}

Status SeenSet::RebuildNow(uint32_t p) {
  if (p >= parts_.size()) return Status::InvalidArgument("no partition " + std::to_string(p));
  return Rebuild(p);
}

// A filter twice as large is filled from the partition's exact range while
// the old one keeps answering; inserts meanwhile go to both (InsertIfNew adds
// to `next`). `next` is published under the lock before the iterator is
// created, so every key is either in the iterator's view or added directly
// (keys claimed but not yet written are added from `pending`). `next` has
// two writers (this scan, and InsertIfNew under the lock), so it starts in
// concurrent mode.
Status SeenSet::Rebuild(uint32_t p) {
  Partition& P = *parts_[p];
  uint64_t new_capacity;
  uint64_t old_bytes;
  {
    std::lock_guard lock(P.mu);
    if (P.next) return Status::Ok();
    // Twice what the partition holds: at the fill threshold items ~ capacity,
    // so the filter doubles; a forced rebuild never grows without bound.
    new_capacity = std::max(2 * P.items, kMinPartitionCapacity);
    old_bytes = P.filter->bytes();
    auto next = BlockedBloom::Make(new_capacity, options_.false_positive_rate);
    if (!next.ok()) return next.status();
    P.next = std::make_unique<BlockedBloom>(std::move(next.value()));
    // Claimed keys may commit after the iterator below is created.
    for (const Fingerprint& fp : P.pending) P.next->Add(fp.low64());
    spdlog::info("seen-set: rebuilding partition {} ({} URLs, fill {:.3f}) for capacity {}",
                 p, P.items, P.filter->fill_ratio(), new_capacity);
  }
  BlockedBloom* next = P.next.get();  // stable: only this function resets it
  auto start = Clock::now();
  auto last_log = start;
  uint64_t scanned = 0;
  Status st = ScanSeenPartition(store_, p, &stop_flag_, [&](const rocksdb::Slice& key) {
    next->Add(Fingerprint::FromBytes(key.data() + 2).low64());
    if ((++scanned & 0xffff) == 0 && Clock::now() - last_log > std::chrono::seconds(2)) {
      spdlog::info("seen-set: rebuild of partition {}: {} URLs scanned", p, scanned);
      last_log = Clock::now();
    }
  });
  std::lock_guard lock(P.mu);
  if (!st.ok() || stop_flag_) {
    P.next.reset();  // the old filter stays complete: nothing lost
    P.rebuild_scheduled = false;
    return st;
  }
  P.filter = std::move(P.next);
  P.filter->set_single_writer(true);  // the scan is done: writers hold P.mu
  P.capacity = new_capacity;
  ++P.rebuilds;
  ++P.filter_gen;
  P.force_snapshot = true;
  P.rebuild_scheduled = false;
  rebuilds_done_.fetch_add(1, std::memory_order_relaxed);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  spdlog::info("seen-set: partition {} rebuilt in {} ms: {} -> {} KiB, fill {:.3f}", p,
               ms.count(), old_bytes / 1024, P.filter->bytes() / 1024,
               P.filter->fill_ratio());
  return Status::Ok();
}

Status SeenSet::SnapshotNow() {
  std::lock_guard guard(snapshot_mu_);
  auto start = Clock::now();
  auto last_log = start;
  uint32_t written = 0;
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    bool wrote = false;
    {
      std::lock_guard lock(parts_[p]->mu);
      wrote = parts_[p]->Dirty();
    }
    if (!wrote) continue;
    CRAWLFRONT_RETURN_IF_ERROR(SnapshotPartition(p));
    ++written;
    if (Clock::now() - last_log > std::chrono::seconds(2)) {
      spdlog::info("seen-set: snapshot {}/{} partitions", p + 1, parts_.size());
      last_log = Clock::now();
    }
  }
  if (written > 0) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    spdlog::info("seen-set: snapshot of {} dirty partitions written in {} ms", written,
                 ms.count());
  }
  return Status::Ok();
}

// Copies the filter under the partition lock (inserts pause for a memcpy),
// then writes header, bits and the log truncation in one atomic batch.
Status SeenSet::SnapshotPartition(uint32_t p) {
  Partition& P = *parts_[p];
  SnapHeader header;
  std::vector<std::string> chunks;
  uint64_t gen;
  {
    std::lock_guard lock(P.mu);
    header.counter = P.counter;
    header.items = P.items;
    header.capacity = P.capacity;
    header.rebuilds = P.rebuilds;
    header.time_ms = NowUnixMs();
    header.filter_header = P.filter->SerializeHeader();
    uint64_t offset = 0;
    do {
      chunks.emplace_back();
      offset = P.filter->ReadChunk(offset, kChunkBytes, &chunks.back());
    } while (offset != 0);
    gen = P.filter_gen;
  }
  rocksdb::WriteBatch batch;
  auto* snap = store_->cf(Cf::kSeenSnap);
  std::string chunk_prefix = PartitionPrefix(p) + "C";
  batch.DeleteRange(snap, chunk_prefix, PrefixSuccessor(chunk_prefix));
  for (uint32_t i = 0; i < chunks.size(); ++i) batch.Put(snap, SnapChunkKey(p, i), chunks[i]);
  batch.Put(snap, SnapHeaderKey(p), header.Encode());
  batch.DeleteRange(store_->cf(Cf::kSeenLog), LogKey(p, 0), LogKey(p, header.counter));
  CRAWLFRONT_RETURN_IF_ERROR(store_->Write(&batch));

  std::lock_guard lock(P.mu);
  P.snap_counter = header.counter;
  P.snap_time_ms = header.time_ms;
  P.has_snapshot = true;
  if (P.filter_gen == gen) P.force_snapshot = false;
  snapshots_.fetch_add(1, std::memory_order_relaxed);
  return Status::Ok();
}

}  // namespace crawlfront
