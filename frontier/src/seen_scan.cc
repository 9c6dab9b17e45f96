// Scans of one partition's exact range in kSeen: one iterator (one
// consistent view), one seek, bounded by the next partition's prefix.

#include <rocksdb/db.h>

#include "seen_partition.h"

namespace crawlfront {

Status ScanSeenPartition(Store* store, uint32_t p, const std::atomic<bool>* stop,
                         const std::function<void(const rocksdb::Slice& key)>& fn) {
  const std::string prefix = PartitionPrefix(p);
  const std::string upper = PartitionPrefix(p + 1);
  const rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;  // scans would evict the useful working set
  if (p + 1 < (1u << 16)) ro.iterate_upper_bound = &upper_slice;  // else the last range
  std::unique_ptr<rocksdb::Iterator> it(store->db()->NewIterator(ro, store->cf(Cf::kSeen)));
  uint64_t n = 0;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    if (!it->key().starts_with(prefix)) break;  // only without an upper bound
    fn(it->key());
    const bool check = stop != nullptr && (++n & 0xFFF) == 0;
    if (check && stop->load(std::memory_order_relaxed)) break;
  }
  return FromRocks(it->status());
}

}  // namespace crawlfront
