// A RocksDB memtable for random keys that are written once and looked up by
// exact key: an unsorted vector (RocksDB's VectorRep) plus a hash index.
//
// Skip lists pay a chain of cache misses per insert of a random key, and
// RocksDB's hash-skip-list pays them again when a flush re-inserts every
// entry into one sorted list. Here an insert is an append and one bucket
// push; a flush sorts the vector once (std::sort over pointers); a point
// lookup (Get, MultiGet) walks one short hash chain.
//
// Limits, which the seen column family meets: one writer at a time
// (allow_concurrent_memtable_write = false); no merge operator and no
// in-place updates (RocksDB's paths for those delete the exact-key iterator
// that its default Get leaks, see KeyIterator); with a prefix extractor,
// prefix-mode iterators still work but walk the whole sorted vector.
#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/memtablerep.h>

namespace crawlfront {

class HashedVectorRepFactory : public rocksdb::MemTableRepFactory {
 public:
  // `buckets` is rounded up to a power of two; about one per expected entry
  // keeps chains short (a 64 MiB memtable of seen keys holds ~10^6).
  explicit HashedVectorRepFactory(size_t buckets);

  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& cmp,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* prefix,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "crawlfront.HashedVectorRepFactory"; }

 private:
  size_t buckets_;
};

}  // namespace crawlfront
