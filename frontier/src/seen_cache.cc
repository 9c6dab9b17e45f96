#include "seen_cache.h"

#include <algorithm>
#include <bit>

#include "crawlfront/common/huge_pages.h"

namespace crawlfront {
namespace {

// atomic_ref<const T> is C++26; a relaxed load does not write.
uint64_t Load(const uint64_t& word) {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(word)).load(std::memory_order_relaxed);
}
void Store(uint64_t& word, uint64_t value) {
  std::atomic_ref<uint64_t>(word).store(value, std::memory_order_relaxed);
}

}  // namespace

SeenCache::SeenCache(uint64_t bytes) {
  const uint64_t want = bytes / Fingerprint::kSize;
  if (want == 0) return;
  const uint64_t n = std::bit_floor(want);
  words_ = static_cast<uint64_t*>(MapAligned(n * Fingerprint::kSize, /*huge=*/true));
  if (words_ == nullptr) return;  // no cache: every lookup goes on
  ways_ = std::min(n, kWays);
  set_mask_ = n / ways_ - 1;
  seq_ = std::make_unique<std::atomic<uint32_t>[]>(kStripes);
}

SeenCache::~SeenCache() { UnmapAligned(words_, bytes()); }

bool SeenCache::Contains(const Fingerprint& fp) const {
  if (words_ == nullptr) return false;
  const std::atomic<uint32_t>& seq = seq_[SetOf(fp) % kStripes];
  const uint32_t before = seq.load(std::memory_order_acquire);
  if (before & 1) return false;
  const uint64_t* set = Set(fp);
  bool found = false;
  for (uint64_t j = 0; j < ways_; ++j) {
    found |= Load(set[2 * j]) == fp.hi && Load(set[2 * j + 1]) == fp.lo;
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (seq.load(std::memory_order_relaxed) != before) return false;
  // An empty entry holds {0, 0}: only the all-zero fingerprint could match it.
  return found && (fp.hi | fp.lo) != 0;
}

void SeenCache::Put(const Fingerprint& fp) {
  if (words_ == nullptr) return;
  std::atomic<uint32_t>& seq = seq_[SetOf(fp) % kStripes];
  uint32_t s = seq.load(std::memory_order_relaxed);
  if (s & 1) return;
  if (!seq.compare_exchange_strong(s, s + 1, std::memory_order_acquire)) return;
  std::atomic_thread_fence(std::memory_order_release);
  uint64_t* set = Set(fp);
  // Already held: leave the set as it is. Otherwise shift the entries down
  // one (the last leaves) and put fp first.
  uint64_t keep = ways_ - 1;
  for (uint64_t j = 0; j < ways_; ++j) {
    if (Load(set[2 * j]) == fp.hi && Load(set[2 * j + 1]) == fp.lo) keep = ways_;
  }
  if (keep < ways_) {
    for (uint64_t j = keep; j > 0; --j) {
      Store(set[2 * j], Load(set[2 * j - 2]));
      Store(set[2 * j + 1], Load(set[2 * j - 1]));
    }
    Store(set[0], fp.hi);
    Store(set[1], fp.lo);
  }
  seq.store(s + 2, std::memory_order_release);
}

}  // namespace crawlfront
