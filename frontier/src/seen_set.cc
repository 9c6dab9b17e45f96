#include "crawlfront/frontier/seen_set.h"

#include <algorithm>
#include <bit>

#include <rocksdb/db.h>
#include <spdlog/spdlog.h>

#include "seen_partition.h"

namespace crawlfront {
namespace {

constexpr uint64_t kMinPartitionCapacity = 1024;

bool FpLess(const Fingerprint& a, const Fingerprint& b) {
  return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
}

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
  if (o.cache_entries_per_partition != 0 &&
      !std::has_single_bit(o.cache_entries_per_partition)) {
    return Status::InvalidArgument("seen.cache_entries must be 0 or a power of two");
  }
  return Status::Ok();
}

}  // namespace

const char* SeenModeName(SeenMode mode) {
  return mode == SeenMode::kExact ? "exact" : "bloom-only";
}

SeenSet::SeenSet(Store* store, const SeenSetOptions& options)
    : store_(store), options_(options) {}

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

Status SeenSet::InsertIfNew(std::span<const SeenKey> keys, std::vector<SeenResult>* out,
                            const OnNew& on_new) {
  const size_t n = keys.size();
  out->assign(n, SeenResult::kSeen);
  if (n == 0) return Status::Ok();
  lookups_.fetch_add(n, std::memory_order_relaxed);

  // Sort by (partition, fingerprint): locks are taken in ascending order, batch
  // duplicates become adjacent, and RocksDB keys come out sorted for MultiGet.
  std::vector<uint32_t> order(n);
  std::vector<uint32_t> part(n);
  for (uint32_t i = 0; i < n; ++i) {
    order[i] = i;
    part[i] = PartitionOf(keys[i].host_hash);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (part[a] != part[b]) return part[a] < part[b];
    const Fingerprint& fa = keys[a].fingerprint;
    const Fingerprint& fb = keys[b].fingerprint;
    if (!(fa == fb)) return FpLess(fa, fb);
    return a < b;  // the first occurrence in the batch is the new one
  });

  std::vector<std::unique_lock<std::mutex>> locks;
  for (size_t j = 0; j < n; ++j) {
    if (j == 0 || part[order[j]] != part[order[j - 1]]) {
      locks.emplace_back(parts_[part[order[j]]]->mu);
    }
  }

  const bool exact = options_.mode == SeenMode::kExact;
  std::vector<uint32_t> to_check;
  std::vector<std::string> check_keys;
  uint64_t negatives = 0, hits = 0;
  for (size_t j = 0; j < n; ++j) {
    uint32_t i = order[j];
    const Fingerprint& fp = keys[i].fingerprint;
    if (j > 0 && part[order[j - 1]] == part[i] && keys[order[j - 1]].fingerprint == fp) {
      continue;  // duplicate within the batch: seen
    }
    Partition& P = *parts_[part[i]];
    if (!P.filter->MayContain(fp.low64())) {
      (*out)[i] = SeenResult::kNew;
      ++negatives;
    } else if (!exact) {
      // Bloom-only: "maybe" counts as seen.
    } else if (P.CacheHit(fp)) {
      ++hits;
    } else {
      to_check.push_back(i);
      check_keys.push_back(SeenKeyBytes(part[i], fp));
    }
  }
  bloom_negatives_.fetch_add(negatives, std::memory_order_relaxed);
  cache_hits_.fetch_add(hits, std::memory_order_relaxed);

  if (!to_check.empty()) {
    disk_lookups_.fetch_add(to_check.size(), std::memory_order_relaxed);
    std::vector<rocksdb::Slice> slices(check_keys.begin(), check_keys.end());
    std::vector<rocksdb::PinnableSlice> values(slices.size());
    std::vector<rocksdb::Status> statuses(slices.size());
    store_->db()->MultiGet(rocksdb::ReadOptions(), store_->cf(Cf::kSeen), slices.size(),
                           slices.data(), values.data(), statuses.data(),
                           /*sorted_input=*/true);
    uint64_t fps = 0;
    for (size_t c = 0; c < to_check.size(); ++c) {
      uint32_t i = to_check[c];
      if (statuses[c].ok()) {
        parts_[part[i]]->CachePut(keys[i].fingerprint);
      } else if (statuses[c].IsNotFound()) {
        (*out)[i] = SeenResult::kNew;
        ++fps;
      } else {
        return FromRocks(statuses[c]);
      }
    }
    false_positives_.fetch_add(fps, std::memory_order_relaxed);
  }

  rocksdb::WriteBatch batch;
  std::string log_value;
  bool any_new = false;
  for (size_t j = 0; j < n; ++j) {
    uint32_t i = order[j];
    if ((*out)[i] != SeenResult::kNew) continue;
    any_new = true;
    Partition& P = *parts_[part[i]];
    const Fingerprint& fp = keys[i].fingerprint;
    batch.Put(store_->cf(Cf::kSeen), SeenKeyBytes(part[i], fp), rocksdb::Slice());
    log_value.clear();
    fp.AppendTo(&log_value);
    batch.Put(store_->cf(Cf::kSeenLog), LogKey(part[i], P.counter++), log_value);
    if (on_new) on_new(i, batch);
  }
  if (!any_new) return Status::Ok();
  CRAWLFRONT_RETURN_IF_ERROR(store_->Write(&batch));

  for (size_t j = 0; j < n; ++j) {
    uint32_t i = order[j];
    if ((*out)[i] != SeenResult::kNew) continue;
    Partition& P = *parts_[part[i]];
    const Fingerprint& fp = keys[i].fingerprint;
    P.filter->Add(fp.low64());
    if (P.next) P.next->Add(fp.low64());
    P.CachePut(fp);
    ++P.items;
    if (j + 1 == n || part[order[j + 1]] != part[i]) MaybeScheduleRebuild(part[i]);
  }
  return Status::Ok();
}

Result<bool> SeenSet::Contains(const SeenKey& key) {
  uint32_t p = PartitionOf(key.host_hash);
  Partition& P = *parts_[p];
  std::lock_guard lock(P.mu);
  if (!P.filter->MayContain(key.fingerprint.low64())) return false;
  if (P.CacheHit(key.fingerprint)) return true;
  std::string value;
  rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), store_->cf(Cf::kSeen),
                                        SeenKeyBytes(p, key.fingerprint), &value);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return FromRocks(s);
  return true;
}

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
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    PartitionStats ps = GetPartitionStats(p);
    s.items += ps.items;
    s.filter_bytes += ps.filter_bytes;
    s.rebuilds_running += ps.rebuilding ? 1 : 0;
    s.max_fill_ratio = std::max(s.max_fill_ratio, ps.fill_ratio);
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
