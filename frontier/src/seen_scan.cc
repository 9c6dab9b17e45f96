// Scans of one partition's exact range in kSeen. The column family's prefix
// is the partition id plus the fingerprint's first byte (store_memtable.cc),
// so a partition is 256 prefixes, each a prefix-mode Seek on one iterator
// (one iterator: one consistent view of the whole partition).

#include <rocksdb/db.h>

#include "seen_partition.h"

namespace crawlfront {

Status ScanSeenPartition(Store* store, uint32_t p, const std::atomic<bool>* stop,
                         const std::function<void(const rocksdb::Slice& key)>& fn) {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;  // scans would evict the useful working set
  ro.prefix_same_as_start = true;
  std::unique_ptr<rocksdb::Iterator> it(store->db()->NewIterator(ro, store->cf(Cf::kSeen)));
  std::string prefix = PartitionPrefix(p);
  prefix.push_back('\0');
  for (int sub = 0; sub < 256; ++sub) {
    prefix[2] = static_cast<char>(sub);
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      fn(it->key());
    }
    if (!it->status().ok()) break;
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
  }
  return FromRocks(it->status());
}

}  // namespace crawlfront
