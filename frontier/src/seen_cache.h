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

  // Lock-free: a slot is read under a seqlock, and a read that races a write
  // of its stripe is a miss.
  bool Contains(const Fingerprint& fp) const;
  // Best effort: skipped when another thread is writing the same stripe.
  void Put(const Fingerprint& fp);

  uint64_t entries() const { return slots_ ? mask_ + 1 : 0; }
  uint64_t bytes() const { return entries() * Fingerprint::kSize; }

 private:
  struct Slot {
    std::atomic<uint64_t> hi{0};
    std::atomic<uint64_t> lo{0};
  };
  static constexpr uint64_t kStripes = 4096;

  uint64_t mask_ = 0;
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<std::atomic<uint32_t>[]> seq_;  // odd while a write runs
};

}  // namespace crawlfront
