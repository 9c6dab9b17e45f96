#pragma once
// Ordered RocksDB writes on a thread of their own. The crawl core builds
// its batches under its mutex, hands them over in that order and goes on
// with the next request while the previous one is written; a reply waits
// for its batch (Wait or OnWritten). In the add step's profile the write
// (WAL append and memtable inserts) was 38% of the io thread, which was the
// bottleneck (docs/benchmarks.md, session 24).
//
// Batches are written in submission order (those queued together as one
// RocksDB write), so a later batch (a lease's, a done's) never reaches the
// disk before an earlier one it depends on. After a failed write nothing
// more is written: every later batch fails with the same error (RAM is
// ahead of disk; reopen to recover).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <rocksdb/write_batch.h>

#include "crawlfront/common/status.h"

namespace crawlfront {

class Store;

class CommitPipeline {
 public:
  // Runs on the writer thread after the batch's write, with its result.
  using AfterWrite = std::function<void(const Status&)>;
  using Done = std::function<void(const Status&)>;

  explicit CommitPipeline(Store* store);
  // Writes what was submitted, then stops the thread.
  ~CommitPipeline();
  CommitPipeline(const CommitPipeline&) = delete;
  CommitPipeline& operator=(const CommitPipeline&) = delete;

  // Queues `batch` and returns its epoch: 1, 2, ... in call order. `batch`
  // is left empty (a written batch's buffer, reused). Callers that need an
  // order between their batches submit under a lock of their own.
  uint64_t Submit(rocksdb::WriteBatch* batch, AfterWrite after = nullptr);
  // Every batch of an epoch below this is written (or failed).
  uint64_t written() const;
  // Blocks until the batch of `epoch` and every earlier one are written;
  // their error if one failed. Epoch 0 (nothing) returns at once.
  Status Wait(uint64_t epoch);
  // Calls done (on the writer thread, or here if already known) once the
  // batch of `epoch` and every earlier one are written.
  void OnWritten(uint64_t epoch, Done done);
  // The first failed write's error, or OK.
  Status failure() const;
  // Batches handed over and not yet written (a slow disk shows here).
  uint64_t queued() const;

 private:
  struct Item {
    rocksdb::WriteBatch batch;
    AfterWrite after;
  };
  // One batch with the records of a group's batches, in order.
  static rocksdb::WriteBatch Concatenate(const std::vector<Item>& group);
  void Run();
  Status WriteGroup(std::vector<Item>& group);
  void MarkWritten(std::vector<Item>& group);
  // REQUIRES: mu_ held. The result for an epoch below written_.
  Status ResultOf(uint64_t epoch) const;

  Store* const store_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_, written_cv_;
  std::deque<Item> queue_;
  // Written batches, cleared, handed back by Submit: a batch grown to its
  // working size is not grown again from empty (the pending batch of the
  // crawl core was 3% of a lease + done profile in string growth).
  std::vector<rocksdb::WriteBatch> spare_;
  std::vector<std::pair<uint64_t, Done>> waiters_;
  uint64_t next_epoch_ = 1;
  // Read without mu_ by written() and failure(), which the crawl core calls
  // under its own mutex for every request; written under mu_.
  std::atomic<uint64_t> written_{1};
  std::atomic<bool> failed_{false};
  uint64_t failed_epoch_ = 0;  // 0: none
  Status failure_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace crawlfront
