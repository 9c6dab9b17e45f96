#pragma once
// Fingerprints confirmed seen, shared by every seen-set partition so that a
// crawl of few hosts (few partitions) still uses all of it. Sets of four
// entries (one 64-byte cache line) picked by the fingerprint's high half
// (the Bloom filters probe with the low half): a direct-mapped cache lost a
// third of its entries to collisions when nearly full, four ways lose a
// sixth. The seen column family never loses a key, so an entry never goes
// stale and a hit is exact; a miss only costs a RocksDB read.

#include <atomic>
#include <cstdint>
#include <memory>

#include "crawlfront/common/url.h"

namespace crawlfront {

class SeenCache {
 public:
  // Holds the largest power of two of 16-byte entries that fits in `bytes`;
  // under 16 bytes disables the cache.
  explicit SeenCache(uint64_t bytes);
  ~SeenCache();
  SeenCache(const SeenCache&) = delete;
  SeenCache& operator=(const SeenCache&) = delete;

  // Lock-free: a set is read under a seqlock, and a read that races a write
  // of its stripe is a miss.
  bool Contains(const Fingerprint& fp) const;
  // Best effort: skipped when another thread is writing the same stripe. A
  // new entry goes first in its set and the set's oldest entry leaves.
  void Put(const Fingerprint& fp);
  // Starts loading fp's set into the CPU cache (batches overlap the misses).
  void Prefetch(const Fingerprint& fp) const {
    if (words_ != nullptr) __builtin_prefetch(Set(fp));
  }

  uint64_t entries() const { return words_ != nullptr ? (set_mask_ + 1) * ways_ : 0; }
  uint64_t bytes() const { return entries() * Fingerprint::kSize; }

 private:
  static constexpr uint64_t kWays = 4;
  static constexpr uint64_t kStripes = 4096;

  uint64_t SetOf(const Fingerprint& fp) const { return fp.hi & set_mask_; }
  uint64_t* Set(const Fingerprint& fp) const { return words_ + 2 * ways_ * SetOf(fp); }

  uint64_t set_mask_ = 0;
  uint64_t ways_ = 0;  // kWays, fewer only for a cache of under kWays entries
  // Entry j of a set is words (2j) hi and (2j+1) lo, accessed through
  // std::atomic_ref; on huge pages (a lookup is a random read, like a
  // Bloom probe).
  uint64_t* words_ = nullptr;
  std::unique_ptr<std::atomic<uint32_t>[]> seq_;  // odd while a write runs
};

}  // namespace crawlfront
