#include "crawlfront/frontier/commit_pipeline.h"

#include <pthread.h>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/store.h"

namespace crawlfront {

CommitPipeline::CommitPipeline(Store* store) : store_(store) {
  thread_ = std::thread([this] { Run(); });
}

CommitPipeline::~CommitPipeline() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
}

namespace {
constexpr size_t kSpareBatches = 4;
constexpr size_t kLargestSpare = size_t{4} << 20;  // bytes of data
// A group written at once: bounded so one write's memtable inserts do not
// hold back the replies of its first batches for long.
constexpr size_t kMaxGroup = 64;
constexpr size_t kMaxGroupBytes = size_t{1} << 20;
}  // namespace

uint64_t CommitPipeline::Submit(rocksdb::WriteBatch* batch, AfterWrite after) {
  Item item;
  item.after = std::move(after);
  uint64_t epoch;
  {
    std::lock_guard lock(mu_);
    std::swap(item.batch, *batch);
    if (!spare_.empty()) {
      std::swap(*batch, spare_.back());
      spare_.pop_back();
    }
    epoch = next_epoch_++;
    queue_.push_back(std::move(item));
  }
  work_cv_.notify_one();
  return epoch;
}

uint64_t CommitPipeline::written() const { return written_.load(std::memory_order_acquire); }

uint64_t CommitPipeline::queued() const {
  std::lock_guard lock(mu_);
  return next_epoch_ - written_;
}

Status CommitPipeline::failure() const {
  if (!failed_.load(std::memory_order_acquire)) return Status::Ok();
  std::lock_guard lock(mu_);
  return failure_;
}

Status CommitPipeline::ResultOf(uint64_t epoch) const {
  return failed_epoch_ != 0 && epoch >= failed_epoch_ ? failure_ : Status::Ok();
}

Status CommitPipeline::Wait(uint64_t epoch) {
  std::unique_lock lock(mu_);
  written_cv_.wait(lock, [&] { return written_ > epoch; });
  return ResultOf(epoch);
}

void CommitPipeline::OnWritten(uint64_t epoch, Done done) {
  Status result;
  {
    std::lock_guard lock(mu_);
    if (written_ <= epoch) {
      waiters_.emplace_back(epoch, std::move(done));
      return;
    }
    result = ResultOf(epoch);
  }
  done(result);
}

void CommitPipeline::Run() {
  pthread_setname_np(pthread_self(), "crawlfront:wal");
  std::unique_lock lock(mu_);
  std::vector<Item> group;
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and everything written
    // The first batch whatever its size, then those that fit beside it: a
    // large batch (a host's queue rewritten) is not copied into a group.
    size_t bytes = 0;
    do {
      bytes += queue_.front().batch.GetDataSize();
      group.push_back(std::move(queue_.front()));
      queue_.pop_front();
    } while (!queue_.empty() && group.size() < kMaxGroup &&
             bytes + queue_.front().batch.GetDataSize() <= kMaxGroupBytes);
    lock.unlock();
    Status st = WriteGroup(group);
    // The batches' claims retire before anyone learns they are written.
    for (Item& item : group) {
      if (item.after) item.after(st);
    }
    MarkWritten(group);
    group.clear();
    lock.lock();
  }
}

namespace {

// RocksDB's batch format (db/write_batch.cc, WriteBatch::Data()): an 8-byte
// sequence number, a 4-byte little-endian count, then the records. Two
// batches' records concatenate as WriteBatchInternal::Append does.
constexpr size_t kBatchHeader = 12;

uint32_t CountOf(const std::string& rep) {
  uint32_t n = 0;
  for (int i = 3; i >= 0; --i) n = n << 8 | static_cast<unsigned char>(rep[8 + i]);
  return n;
}

}  // namespace

rocksdb::WriteBatch CommitPipeline::Concatenate(const std::vector<Item>& group) {
  std::string rep;
  size_t bytes = 0;
  for (const auto& item : group) bytes += item.batch.GetDataSize();
  rep.reserve(bytes);
  rep.assign(group.front().batch.Data());
  uint64_t count = CountOf(rep);
  for (size_t i = 1; i < group.size(); ++i) {
    const std::string& data = group[i].batch.Data();
    rep.append(data, kBatchHeader);
    count += CountOf(data);
  }
  for (int i = 0; i < 4; ++i) rep[8 + i] = static_cast<char>(count >> (8 * i));
  return rocksdb::WriteBatch(std::move(rep));
}

// Writes a group of queued batches as one RocksDB write: with one writer
// thread RocksDB never groups commits itself, and each write is a WAL
// record, a write(2) and a write-group handshake.
// After a failure RAM is ahead of disk: later batches are not written.
Status CommitPipeline::WriteGroup(std::vector<Item>& group) {
  if (failed_.load(std::memory_order_acquire)) return failure();
  Status st;
  if (group.size() == 1) {
    st = store_->Write(&group.front().batch);
  } else {
    rocksdb::WriteBatch all = Concatenate(group);
    st = store_->Write(&all);
  }
  if (st.ok()) return st;
  spdlog::error("crawl core: write failed, refusing further work: {}", st.ToString());
  std::lock_guard lock(mu_);
  failed_epoch_ = written_.load(std::memory_order_relaxed);
  failure_ = st;
  failed_.store(true, std::memory_order_release);
  return st;
}

// Advances written_ past the group, keeps batch buffers for reuse and
// tells the waiters it satisfies.
void CommitPipeline::MarkWritten(std::vector<Item>& group) {
  std::vector<std::pair<Done, Status>> ready;
  {
    std::lock_guard lock(mu_);
    for (Item& item : group) {
      if (spare_.size() < kSpareBatches && item.batch.GetDataSize() <= kLargestSpare) {
        item.batch.Clear();
        spare_.push_back(std::move(item.batch));
      }
    }
    const uint64_t last = written_.load(std::memory_order_relaxed) + group.size() - 1;
    written_.store(last + 1, std::memory_order_release);
    std::erase_if(waiters_, [&](auto& w) {
      if (w.first > last) return false;
      ready.emplace_back(std::move(w.second), ResultOf(w.first));
      return true;
    });
  }
  written_cv_.notify_all();
  for (auto& [done, result] : ready) done(result);
}

}  // namespace crawlfront
