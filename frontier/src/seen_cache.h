#pragma once
// Fingerprints confirmed seen, shared by every seen-set partition so that a
// crawl of few hosts (few partitions) still uses all of it. Direct-mapped by
// the fingerprint's high half (the Bloom filters probe with the low half).
// The seen column family never loses a key, so an entry never goes stale and
// a hit is exact; a miss only costs a RocksDB read.

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

  // Lock-free: a slot is read under a seqlock, and a read that races a write
  // of its stripe is a miss.
  bool Contains(const Fingerprint& fp) const;
  // Best effort: skipped when another thread is writing the same stripe.
  void Put(const Fingerprint& fp);
  // Starts loading fp's slot into the CPU cache (batches overlap the misses).
  void Prefetch(const Fingerprint& fp) const {
    if (words_ != nullptr) __builtin_prefetch(&words_[2 * (fp.hi & mask_)]);
  }

  uint64_t entries() const { return words_ != nullptr ? mask_ + 1 : 0; }
  uint64_t bytes() const { return entries() * Fingerprint::kSize; }

 private:
  static constexpr uint64_t kStripes = 4096;

  uint64_t mask_ = 0;
  // Slot i is words_[2i] (hi) and words_[2i+1] (lo), accessed through
  // std::atomic_ref; on huge pages (a lookup is a random read, like a
  // Bloom probe).
  uint64_t* words_ = nullptr;
  std::unique_ptr<std::atomic<uint32_t>[]> seq_;  // odd while a write runs
};

}  // namespace crawlfront
