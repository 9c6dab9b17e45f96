// SeenSet::InsertIfNew in phases, so that partition locks cover only memory:
//   1. under each partition's lock: Bloom, cache and pending checks; keys the
//      filter has never seen are claimed (added to filter and pending);
//   2. no lock: MultiGet for "maybe" keys (exact mode);
//   3. under the lock: keys RocksDB lacks (false positives) are claimed,
//      unless another batch claimed or committed them meanwhile;
//   4. no lock: one RocksDB write for all claims (concurrent batches' writes
//      are grouped by RocksDB's write leader), or the batch handed to the
//      caller's writer thread (`submit`), which runs step 5 after writing;
//   5. under the lock: claims retire from pending into the cache.
// A batch that finds a key pending answers "seen" before the claimer's write
// is acknowledged; if that write fails, the claimer reports the error and
// the key is lost like any unacknowledged insert (docs/seen_set.md).

#include <algorithm>
#include <array>

#include <rocksdb/db.h>

#include "crawlfront/frontier/seen_set.h"
#include "seen_partition.h"

namespace crawlfront {

struct SeenSet::Insert {
  std::span<const SeenKey> keys;
  std::vector<SeenResult>* out = nullptr;
  std::vector<uint32_t> order;    // key indexes by (partition, fingerprint)
  std::vector<uint32_t> part;     // partition of each key
  std::vector<uint32_t> claimed;  // key indexes claimed new, in order
  std::vector<uint64_t> log_counter;  // parallel to claimed
  std::vector<uint32_t> to_check;     // "maybe" keys for RocksDB, in order
  std::vector<uint64_t> retired_seen;  // partition's `retired` when checked
  uint64_t negatives = 0, hits = 0, false_positives = 0;
};

namespace {

bool FpLess(const Fingerprint& a, const Fingerprint& b) {
  return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
}

// Runs fn(first, last) for each run [first, last) of `idx` (positions into
// the sorted order) that shares a partition.
template <typename Fn>
void ForEachPartitionRun(const std::vector<uint32_t>& idx, const std::vector<uint32_t>& part,
                         Fn fn) {
  for (size_t a = 0; a < idx.size();) {
    size_t b = a + 1;
    while (b < idx.size() && part[idx[b]] == part[idx[a]]) ++b;
    fn(a, b);
    a = b;
  }
}

}  // namespace

Status SeenSet::InsertIfNew(std::span<const SeenKey> keys, std::vector<SeenResult>* out,
                            const OnNew& on_new, const BeforeWrite& before_write,
                            const Submit& submit) {
  const size_t n = keys.size();
  out->assign(n, SeenResult::kSeen);
  if (n == 0) return Status::Ok();
  lookups_.fetch_add(n, std::memory_order_relaxed);

  Insert in;
  in.keys = keys;
  in.out = out;
  in.order.resize(n);
  in.part.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    in.order[i] = i;
    in.part[i] = PartitionOf(keys[i].host_hash);
  }
  // Batch duplicates become adjacent (the first occurrence is the new one),
  // and RocksDB keys come out sorted for MultiGet.
  std::sort(in.order.begin(), in.order.end(), [&](uint32_t a, uint32_t b) {
    if (in.part[a] != in.part[b]) return in.part[a] < in.part[b];
    if (!(keys[a].fingerprint == keys[b].fingerprint)) {
      return FpLess(keys[a].fingerprint, keys[b].fingerprint);
    }
    return a < b;
  });

  ClassifyAndClaim(in);
  Status st = in.to_check.empty() ? Status::Ok() : ConfirmOnDisk(in);
  const bool handed_over = st.ok() && !in.claimed.empty() && submit;
  if (st.ok() && !in.claimed.empty()) st = WriteClaims(in, on_new, before_write, submit);
  if (!handed_over) RetireClaims(ClaimsOf(in), st.ok());
  bloom_negatives_.fetch_add(in.negatives, std::memory_order_relaxed);
  cache_hits_.fetch_add(in.hits, std::memory_order_relaxed);
  false_positives_.fetch_add(in.false_positives, std::memory_order_relaxed);
  return st;
}

// REQUIRES: P.mu held.
void SeenSet::Claim(Partition& P, Insert& in, uint32_t i) {
  const Fingerprint& fp = in.keys[i].fingerprint;
  P.pending.insert(fp);
  P.filter->Add(fp.low64());
  if (P.next) P.next->Add(fp.low64());
  ++P.items;
  in.claimed.push_back(i);
  in.log_counter.push_back(P.counter++);
  (*in.out)[i] = SeenResult::kNew;
}

void SeenSet::ClassifyAndClaim(Insert& in) {
  const bool exact = options_.mode == SeenMode::kExact;
  ForEachPartitionRun(in.order, in.part, [&](size_t first, size_t last) {
    Partition& P = *parts_[in.part[in.order[first]]];
    std::lock_guard lock(P.mu);
    for (size_t j = first; j < last; ++j) {
      const uint32_t i = in.order[j];
      const Fingerprint& fp = in.keys[i].fingerprint;
      if (j > first && in.keys[in.order[j - 1]].fingerprint == fp) continue;  // batch dup
      if (!P.filter->MayContain(fp.low64())) {
        ++in.negatives;
        Claim(P, in, i);
      } else if (!exact || P.pending.count(fp) != 0) {
        // Bloom-only: "maybe" counts as seen. Pending: another batch has it.
      } else if (cache_->Contains(fp)) {
        ++in.hits;
      } else {
        in.to_check.push_back(i);
        in.retired_seen.push_back(P.retired);
      }
    }
  });
}

Status SeenSet::ConfirmOnDisk(Insert& in) {
  const size_t m = in.to_check.size();
  disk_lookups_.fetch_add(m, std::memory_order_relaxed);
  std::vector<std::array<char, kSeenKeyBytes>> bytes(m);
  std::vector<rocksdb::Slice> slices(m);
  for (size_t c = 0; c < m; ++c) {
    const uint32_t i = in.to_check[c];
    EncodeSeenKey(in.part[i], in.keys[i].fingerprint, bytes[c].data());
    slices[c] = rocksdb::Slice(bytes[c].data(), kSeenKeyBytes);
  }
  std::vector<rocksdb::PinnableSlice> values(m);
  std::vector<rocksdb::Status> statuses(m);
  store_->db()->MultiGet(rocksdb::ReadOptions(), store_->cf(Cf::kSeen), m, slices.data(),
                         values.data(), statuses.data(), /*sorted_input=*/true);
  Status st;
  std::vector<uint32_t> idx(m);
  for (uint32_t c = 0; c < m; ++c) idx[c] = c;
  std::vector<uint32_t> check_part(m);
  for (size_t c = 0; c < m; ++c) check_part[c] = in.part[in.to_check[c]];
  ForEachPartitionRun(idx, check_part, [&](size_t first, size_t last) {
    Partition& P = *parts_[check_part[first]];
    std::lock_guard lock(P.mu);
    for (size_t c = first; c < last && st.ok(); ++c) {
      const uint32_t i = in.to_check[c];
      const Fingerprint& fp = in.keys[i].fingerprint;
      rocksdb::Status s = statuses[c];
      // A batch that committed this key after our MultiGet has left pending
      // and bumped `retired`: ask RocksDB again (rare: false positives only).
      if (s.IsNotFound() && P.pending.count(fp) == 0 && P.retired != in.retired_seen[c]) {
        std::string ignored;
        s = store_->db()->Get(rocksdb::ReadOptions(), store_->cf(Cf::kSeen), slices[c],
                              &ignored);
      }
      if (s.ok()) {
        cache_->Put(fp);
      } else if (!s.IsNotFound()) {
        st = FromRocks(s);
      } else if (P.pending.count(fp) == 0) {
        ++in.false_positives;
        Claim(P, in, i);
      }
    }
  });
  return st;
}

Status SeenSet::WriteClaims(Insert& in, const OnNew& on_new, const BeforeWrite& before_write,
                            const Submit& submit) {
  rocksdb::WriteBatch batch;
  std::array<char, kSeenKeyBytes> key;
  std::string log_value;
  for (size_t c = 0; c < in.claimed.size(); ++c) {
    const uint32_t i = in.claimed[c];
    const Fingerprint& fp = in.keys[i].fingerprint;
    EncodeSeenKey(in.part[i], fp, key.data());
    batch.Put(store_->cf(Cf::kSeen), rocksdb::Slice(key.data(), key.size()),
              rocksdb::Slice());
    log_value.clear();
    fp.AppendTo(&log_value);
    batch.Put(store_->cf(Cf::kSeenLog), LogKey(in.part[i], in.log_counter[c]), log_value);
    if (on_new) on_new(i, batch);
  }
  if (before_write) before_write(batch);
  if (!submit) return store_->Write(&batch);
  submit(&batch, [this, claims = ClaimsOf(in)](const Status& st) mutable {
    RetireClaims(std::move(claims), st.ok());
  });
  return Status::Ok();
}

std::vector<SeenSet::Claimed> SeenSet::ClaimsOf(const Insert& in) {
  std::vector<Claimed> claims;
  claims.reserve(in.claimed.size());
  for (uint32_t i : in.claimed) claims.push_back({in.part[i], in.keys[i].fingerprint});
  return claims;
}

// Claims leave pending. Committed ones enter the cache; failed ones stay in
// the filter (a false positive the exact check corrects) but not in items.
void SeenSet::RetireClaims(std::vector<Claimed> claims, bool committed) {
  std::sort(claims.begin(), claims.end(),
            [](const Claimed& a, const Claimed& b) { return a.part < b.part; });
  for (size_t a = 0; a < claims.size();) {
    const uint32_t p = claims[a].part;
    Partition& P = *parts_[p];
    std::lock_guard lock(P.mu);
    for (; a < claims.size() && claims[a].part == p; ++a) {
      const Fingerprint& fp = claims[a].fp;
      P.pending.erase(fp);
      if (committed) {
        cache_->Put(fp);
      } else {
        --P.items;
      }
    }
    ++P.retired;
    if (committed) MaybeScheduleRebuild(p);
  }
}

}  // namespace crawlfront
