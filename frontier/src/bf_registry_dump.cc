// UserBloomRegistry: BF.SCANDUMP / BF.LOADCHUNK and snapshots.

#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <new>

#include "bf_store.h"

namespace crawlfront {
namespace {

// Largest SCANDUMP chunk (RedisBloom uses 16 MiB; smaller keeps replies
// and the per-connection buffer modest).
constexpr uint64_t kDumpChunkBytes = uint64_t{4} << 20;

Status BadData() { return Status::InvalidArgument("ERR received bad data"); }

int64_t ToMillis(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}
int64_t MillisSince(std::chrono::steady_clock::time_point t) {
  return ToMillis(std::chrono::steady_clock::now() - t);
}

}  // namespace

// Iterators follow RedisBloom: 0 asks for the header (answered with 1);
// afterwards the iterator is 1 + the offset of the next byte of the bit
// arrays seen as one range, and (0, "") marks the end.
Result<BfDumpChunk> UserBloomRegistry::ScanDump(std::string_view name, int64_t iter) {
  std::shared_ptr<Filter> f = Find(name);
  if (!f) return Status::NotFound("ERR not found");
  std::lock_guard lock(f->mu);
  BfDumpChunk chunk;
  if (iter == 0) {
    chunk.next = 1;
    chunk.data = f->chain.EncodeHeader();
    return chunk;
  }
  if (iter < 0) return chunk;
  f->chain.ReadRange(static_cast<uint64_t>(iter - 1), kDumpChunkBytes, &chunk.data);
  if (!chunk.data.empty()) chunk.next = iter + static_cast<int64_t>(chunk.data.size());
  return chunk;
}

// The iterator a chunk came with is 1 + the offset just past it.
Status UserBloomRegistry::LoadChunk(std::string_view name, int64_t iter,
                                    std::string_view data) {
  std::shared_ptr<Filter> f;
  {
    std::lock_guard lock(mu_);
    auto it = filters_.find(name);
    if (it == filters_.end()) {
      if (iter != 1) return Status::NotFound("ERR not found");
      CRAWLFRONT_RETURN_IF_ERROR(ValidateName(name));
      if (filters_.size() >= options_.max_filters) {
        return Status::Busy("ERR max number of Bloom filters reached");
      }
      auto chain = BfChain::FromHeader(data, options_.max_total_bytes);
      if (!chain.ok()) {
        return chain.status().code() == Status::Code::kCorruption ? BadData()
                                                                  : chain.status();
      }
      uint64_t bytes = chain->bytes();
      if (!TryReserveBytes(bytes)) {
        return Status::Busy("ERR filter of " + std::to_string(bytes) +
                            " bytes exceeds max memory for Bloom filters");
      }
      auto inserted = Insert(
          name, std::make_unique<Filter>(std::string(name), std::move(chain).value()));
      if (!inserted.ok()) bytes_in_use_ -= bytes;
      return inserted.status();
    }
    f = it->second;
  }
  if (iter <= 0 || static_cast<uint64_t>(iter) < data.size() + 1) return BadData();
  uint64_t offset = static_cast<uint64_t>(iter) - data.size() - 1;
  bool complete;
  {
    std::lock_guard lock(f->mu);
    Status st = f->chain.WriteRange(offset, data);
    if (!st.ok()) return st.code() == Status::Code::kCorruption ? BadData() : st;
    f->force_snapshot = true;
    ++f->generation;
    complete = offset + data.size() == f->chain.bytes();
  }
  // The last chunk completes the copy: make it durable before replying.
  return complete ? SnapshotFilter(*f) : Status::Ok();
}

Status UserBloomRegistry::SnapshotFilter(Filter& f, uint64_t* bytes) {
  std::lock_guard guard(snapshot_mu_);
  uint64_t generation;
  const auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration prepared, waited, held;
  const auto no_memory = [&f] {  // the filter stays dirty: the next snapshot retries
    return Status::IoError("no memory to copy filter '" + f.name + "' for its snapshot");
  };
  uint64_t size;
  {
    std::lock_guard lock(f.mu);
    if (!f.Dirty()) return Status::Ok();
    size = f.chain.bytes();
  }
  BfSnapshotImage image;
  try {
    image = BfPrepareSnapshot(size);
  } catch (const std::bad_alloc&) {
    return no_memory();
  }
  const auto copy_start = std::chrono::steady_clock::now();
  prepared = copy_start - start;
  {
    std::lock_guard lock(f.mu);
    const auto locked = std::chrono::steady_clock::now();
    waited = locked - copy_start;
    try {
      image = BfCaptureSnapshot(f, std::move(image));
    } catch (const std::bad_alloc&) {
      return no_memory();
    }
    generation = f.generation;
    if (bytes != nullptr) *bytes += f.chain.bytes();
    held = std::chrono::steady_clock::now() - locked;
  }
  const uint64_t counter = image.counter;
  {
    rocksdb::WriteBatch batch(image.bytes());  // one allocation for the whole filter
    BfAppendSnapshot(*store_, image, &batch);
    image = {};  // the batch holds the copy now
    CRAWLFRONT_RETURN_IF_ERROR(store_->Write(&batch));
  }
  std::lock_guard lock(f.mu);
  f.snap_counter = counter;
  if (f.generation == generation) f.force_snapshot = false;
  spdlog::debug(
      "user bloom: snapshot of '{}' up to log entry {}: {} ms, {} ms of it mapping memory for "
      "the copy, {} ms waiting for the filter, {} ms holding it",
      f.name, counter, MillisSince(start), ToMillis(prepared), ToMillis(waited), ToMillis(held));
  return Status::Ok();
}

Status UserBloomRegistry::SnapshotNow() {
  std::vector<std::shared_ptr<Filter>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [name, f] : filters_) all.push_back(f);
  }
  Status first;
  const auto start = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  for (auto& f : all) {
    Status st = SnapshotFilter(*f, &bytes);
    if (!st.ok() && first.ok()) first = st;
  }
  if (bytes > 0) {
    spdlog::info("user bloom: snapshot of the changed filters ({} bytes) in {} ms", bytes,
                 MillisSince(start));
  }
  return first;
}

void UserBloomRegistry::SnapshotLoop() {
  std::unique_lock lock(bg_mu_);
  while (!stopping_) {
    bg_cv_.wait_for(lock, options_.snapshot_interval, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    Status st = SnapshotNow();
    if (!st.ok()) spdlog::error("user bloom: snapshot failed: {}", st.ToString());
    lock.lock();
  }
}

}  // namespace crawlfront
