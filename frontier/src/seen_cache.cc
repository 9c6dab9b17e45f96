#include "seen_cache.h"

#include <bit>

namespace crawlfront {

SeenCache::SeenCache(uint64_t bytes) {
  const uint64_t want = bytes / Fingerprint::kSize;
  if (want == 0) return;
  const uint64_t n = std::bit_floor(want);
  mask_ = n - 1;
  slots_ = std::make_unique<Slot[]>(n);
  seq_ = std::make_unique<std::atomic<uint32_t>[]>(kStripes);
}

bool SeenCache::Contains(const Fingerprint& fp) const {
  if (!slots_) return false;
  const uint64_t i = fp.hi & mask_;
  const std::atomic<uint32_t>& seq = seq_[i % kStripes];
  const uint32_t before = seq.load(std::memory_order_acquire);
  if (before & 1) return false;
  const uint64_t hi = slots_[i].hi.load(std::memory_order_relaxed);
  const uint64_t lo = slots_[i].lo.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (seq.load(std::memory_order_relaxed) != before) return false;
  // An empty slot holds {0, 0}: only the all-zero fingerprint could match it.
  return hi == fp.hi && lo == fp.lo && (hi | lo) != 0;
}

void SeenCache::Put(const Fingerprint& fp) {
  if (!slots_) return;
  const uint64_t i = fp.hi & mask_;
  std::atomic<uint32_t>& seq = seq_[i % kStripes];
  uint32_t s = seq.load(std::memory_order_relaxed);
  if (s & 1) return;
  if (!seq.compare_exchange_strong(s, s + 1, std::memory_order_acquire)) return;
  std::atomic_thread_fence(std::memory_order_release);
  slots_[i].hi.store(fp.hi, std::memory_order_relaxed);
  slots_[i].lo.store(fp.lo, std::memory_order_relaxed);
  seq.store(s + 2, std::memory_order_release);
}

}  // namespace crawlfront
