// A RocksDB memtable for random keys that are written once and looked up by
// exact key: an unsorted vector plus a hash index.
//
// Skip lists pay a chain of cache misses per insert of a random key, and
// RocksDB's hash-skip-list pays them again when a flush re-inserts every
// entry into one sorted list. Here an insert is an append and one bucket
// push; a point lookup (Get, MultiGet) walks one short hash chain; an
// iterator (a flush, a scan) sorts the entries once. With a bytewise
// comparator that sort orders (16-byte key prefix, entry) pairs, so it
// touches an entry only when two prefixes tie: RocksDB's VectorRep sorts
// bare entry pointers and follows two of them per comparison, which made
// the flush of a 10^6-key memtable mostly cache misses. With the hash index
// and the bytewise comparator, an iterator over the mutable memtable sorts
// only the 2-byte key prefixes it enters (a seen-set partition scan).
//
// Without the hash index it suits column families read only by iteration
// (a point read then sorts a copy of the entries).
//
// Limits, which the seen column families meet: one writer at a time
// (allow_concurrent_memtable_write = false); no merge operator and no
// in-place updates (RocksDB's paths for those delete the exact-key iterator
// that its default Get leaks, see KeyIterator); with a prefix extractor,
// prefix-mode iterators still work but walk the whole sorted vector.
#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/comparator.h>
#include <rocksdb/memtablerep.h>

namespace crawlfront {

class HashedVectorRepFactory : public rocksdb::MemTableRepFactory {
 public:
  // `expected_entries` sizes the vector and the hash index (one bucket per
  // entry, rounded up to a power of two, keeps chains short; a 64 MiB
  // memtable of seen keys holds ~10^6). `user_comparator` must be the column
  // family's; only RocksDB's bytewise comparator gets the prefix sort.
  HashedVectorRepFactory(size_t expected_entries,
                         const rocksdb::Comparator* user_comparator,
                         bool hash_index = true);

  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& cmp,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* prefix,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "crawlfront.HashedVectorRepFactory"; }

 private:
  size_t buckets_;  // 0: no hash index
  size_t reserve_;
  bool prefix_sort_;
};

}  // namespace crawlfront
