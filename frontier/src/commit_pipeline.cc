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
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and everything written
    Item item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Status st = WriteNext(item);
    // The batch's claims retire before anyone learns it is written.
    if (item.after) item.after(st);
    MarkWritten(std::move(item.batch));
    lock.lock();
  }
}

// Writes the batch of epoch written_ (only this thread moves written_).
// After a failure RAM is ahead of disk: later batches are not written.
Status CommitPipeline::WriteNext(Item& item) {
  if (failed_.load(std::memory_order_acquire)) return failure();
  Status st = store_->Write(&item.batch);
  if (st.ok()) return st;
  spdlog::error("crawl core: write failed, refusing further work: {}", st.ToString());
  std::lock_guard lock(mu_);
  failed_epoch_ = written_.load(std::memory_order_relaxed);
  failure_ = st;
  failed_.store(true, std::memory_order_release);
  return st;
}

// Advances written_ past the batch, keeps its buffer for reuse and tells
// the waiters it satisfies.
void CommitPipeline::MarkWritten(rocksdb::WriteBatch batch) {
  const bool keep = batch.GetDataSize() <= kLargestSpare;
  if (keep) batch.Clear();
  std::vector<std::pair<Done, Status>> ready;
  {
    std::lock_guard lock(mu_);
    if (keep && spare_.size() < kSpareBatches) spare_.push_back(std::move(batch));
    const uint64_t epoch = written_.load(std::memory_order_relaxed);
    written_.store(epoch + 1, std::memory_order_release);
    std::erase_if(waiters_, [&](auto& w) {
      if (w.first > epoch) return false;
      ready.emplace_back(std::move(w.second), ResultOf(w.first));
      return true;
    });
  }
  written_cv_.notify_all();
  for (auto& [done, result] : ready) done(result);
}

}  // namespace crawlfront
