#include "crawlfront/frontier/seen_set.h"

#include <algorithm>
#include <array>
#include <bit>

#include <rocksdb/db.h>
#include <spdlog/spdlog.h>

#include "seen_partition.h"

namespace crawlfront {
namespace {

constexpr uint64_t kMinPartitionCapacity = 1024;

Status ValidateOptions(const SeenSetOptions& o) {
  if (o.partitions == 0 || o.partitions > 65536 || !std::has_single_bit(o.partitions)) {
    return Status::InvalidArgument("seen.partitions must be a power of two in [1, 65536]");
  }
  if (!(o.false_positive_rate > 0 && o.false_positive_rate < 0.5)) {
    return Status::InvalidArgument("seen.false_positive_rate must be in (0, 0.5)");
  }
  if (!(o.rebuild_fill_ratio > 0 && o.rebuild_fill_ratio < 1)) {
    return Status::InvalidArgument("seen.rebuild_fill_ratio must be in (0, 1)");
  }
  return Status::Ok();
}

}  // namespace

const char* SeenModeName(SeenMode mode) {
  return mode == SeenMode::kExact ? "exact" : "bloom-only";
}

SeenSet::SeenSet(Store* store, const SeenSetOptions& options)
    : store_(store), options_(options),
      cache_(std::make_unique<SeenCache>(options.cache_bytes)) {}

Result<std::unique_ptr<SeenSet>> SeenSet::Open(Store* store,
                                               const SeenSetOptions& options) {
  CRAWLFRONT_RETURN_IF_ERROR(ValidateOptions(options));
  std::string want = std::to_string(options.partitions);
  auto stored = store->GetMeta("seen.partitions");
  if (stored.ok() && *stored != want) {
    return Status::InvalidArgument("database was created with " + *stored +
                                   " seen-set partitions, configured " + want +
                                   "; partitions cannot change");
  }
  if (!stored.ok()) {
    if (stored.status().code() != Status::Code::kNotFound) return stored.status();
    CRAWLFRONT_RETURN_IF_ERROR(store->PutMeta("seen.partitions", want));
  }
  std::unique_ptr<SeenSet> set(new SeenSet(store, options));
  CRAWLFRONT_RETURN_IF_ERROR(set->LoadAll());
  set->bg_thread_ = std::thread([s = set.get()] { s->BackgroundLoop(); });
  return set;
}

SeenSet::~SeenSet() {
  {
    std::lock_guard lock(bg_mu_);
    stopping_ = true;
  }
  bg_cv_.notify_all();
  if (bg_thread_.joinable()) bg_thread_.join();
  Status s = SnapshotNow();
  if (!s.ok()) spdlog::error("seen-set: final snapshot failed: {}", s.ToString());
}

// Repeats confirmed on disk enter the cache (seen_cache.h). The partition
// lock is not held across the RocksDB read.
SeenSet::InRam SeenSet::CheckInRam(const SeenKey& key, uint32_t* partition) {
  lookups_.fetch_add(1, std::memory_order_relaxed);
  if (cache_->Contains(key.fingerprint)) {
    cache_hits_.fetch_add(1, std::memory_order_relaxed);
    return InRam::kSeen;
  }
  *partition = PartitionOf(key.host_hash);
  Partition& P = *parts_[*partition];
  std::lock_guard lock(P.mu);
  if (!P.filter->MayContain(key.fingerprint.low64())) {
    bloom_negatives_.fetch_add(1, std::memory_order_relaxed);
    return InRam::kNew;
  }
  if (P.pending.count(key.fingerprint) != 0) return InRam::kSeen;
  disk_lookups_.fetch_add(1, std::memory_order_relaxed);
  return InRam::kAsk;
}

Result<bool> SeenSet::Contains(const SeenKey& key) {
  uint32_t p = 0;
  const InRam ram = CheckInRam(key, &p);
  if (ram != InRam::kAsk) return ram == InRam::kSeen;
  std::string value;
  rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), store_->cf(Cf::kSeen),
                                        SeenKeyBytes(p, key.fingerprint), &value);
  if (s.IsNotFound()) {
    false_positives_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (!s.ok()) return FromRocks(s);
  cache_->Put(key.fingerprint);
  return true;
}

// A page's links are mostly known: one MultiGet for them, not a Get each.
Status SeenSet::ContainsMany(std::span<const SeenKey> keys, std::vector<uint8_t>* known) {
  known->assign(keys.size(), 0);
  std::vector<uint32_t> ask;
  std::vector<std::array<char, kSeenKeyBytes>> bytes;
  for (uint32_t i = 0; i < keys.size(); ++i) {
    uint32_t p = 0;
    const InRam ram = CheckInRam(keys[i], &p);
    if (ram == InRam::kSeen) (*known)[i] = 1;
    if (ram != InRam::kAsk) continue;
    ask.push_back(i);
    EncodeSeenKey(p, keys[i].fingerprint, bytes.emplace_back().data());
  }
  const size_t m = ask.size();
  if (m == 0) return Status::Ok();
  std::vector<rocksdb::Slice> slices(m);
  for (size_t c = 0; c < m; ++c) slices[c] = rocksdb::Slice(bytes[c].data(), kSeenKeyBytes);
  std::vector<rocksdb::PinnableSlice> values(m);
  std::vector<rocksdb::Status> statuses(m);
  store_->db()->MultiGet(rocksdb::ReadOptions(), store_->cf(Cf::kSeen), m, slices.data(),
                         values.data(), statuses.data(), /*sorted_input=*/false);
  Status first_error;
  for (size_t c = 0; c < m; ++c) {
    const rocksdb::Status& s = statuses[c];
    if (s.ok()) {
      (*known)[ask[c]] = 1;
      cache_->Put(keys[ask[c]].fingerprint);
    } else if (s.IsNotFound()) {
      false_positives_.fetch_add(1, std::memory_order_relaxed);
    } else if (first_error.ok()) {
      first_error = FromRocks(s);
    }
  }
  return first_error;
}

void SeenSet::Prefetch(const SeenKey& key) const { cache_->Prefetch(key.fingerprint); }

PartitionStats SeenSet::GetPartitionStats(uint32_t p) const {
  const Partition& P = *parts_[p];
  std::lock_guard lock(P.mu);
  PartitionStats s;
  s.id = p;
  s.items = P.items;
  s.capacity = P.capacity;
  s.filter_bytes = P.filter->bytes();
  s.fill_ratio = P.filter->fill_ratio();
  s.estimated_fp_rate = P.filter->EstimatedFalsePositiveRate();
  s.rebuilds = P.rebuilds;
  s.rebuilding = P.next != nullptr;
  s.last_snapshot_unix_ms = P.snap_time_ms;
  s.last_snapshot_seq = P.snap_counter;
  return s;
}

SeenSetStats SeenSet::GetStats() const {
  SeenSetStats s;
  // Not GetPartitionStats: its false-positive estimate (a Poisson sum, ~2 us)
  // made INFO take 2.5 ms over 1024 partitions.
  for (const auto& part : parts_) {
    const Partition& P = *part;
    std::lock_guard lock(P.mu);
    s.items += P.items;
    s.filter_bytes += P.filter->bytes();
    s.rebuilds_running += P.next != nullptr ? 1 : 0;
    s.max_fill_ratio = std::max(s.max_fill_ratio, P.filter->fill_ratio());
  }
  s.lookups = lookups_.load(std::memory_order_relaxed);
  s.bloom_negatives = bloom_negatives_.load(std::memory_order_relaxed);
  s.cache_hits = cache_hits_.load(std::memory_order_relaxed);
  s.disk_lookups = disk_lookups_.load(std::memory_order_relaxed);
  s.false_positives = false_positives_.load(std::memory_order_relaxed);
  s.rebuilds_done = rebuilds_done_.load(std::memory_order_relaxed);
  s.snapshots_written = snapshots_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace crawlfront
