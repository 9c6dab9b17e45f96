// A RocksDB memtable for keys that come in many short runs sharing a prefix
// (a host's queue entries): one small sorted vector per prefix, found by
// hash.
//
// In a skip list every insert searches the whole memtable; with 10^4 hosts
// interleaved, RocksDB's insert hints rarely hold (each host's hint is
// invalidated by the others' inserts) and the queue's skip list was the
// largest part of FRONTIER.ADD's server CPU. Here an insert hashes its
// prefix and, when it sorts after its bucket's last entry (a queue's new
// URL usually does), appends; otherwise it joins the bucket's unsorted tail,
// which the next reader of that bucket merges in. An iterator holds one
// bucket's sorted entries at a time and moves to the next bucket in prefix
// order when it runs off the end.
//
// Requirements: a bytewise comparator; prefixes that are self-delimiting
// (no prefix of one key is a longer prefix of another, as a length-encoded
// host key is), so that buckets in prefix order hold consecutive key
// ranges; one writer at a time (allow_concurrent_memtable_write = false).
// A key without a prefix (prefix_len 0) gets a bucket of its own.
// Worst case: a bucket read after every few writes (one huge host leased
// without politeness) merges its whole tail into a new vector per read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>

namespace crawlfront {

// How full the newest memtable is in entries (keys, values and their
// pointers), without its per-prefix buckets. With 10^5 hosts the buckets
// were 80% of a 64 MiB memtable; a store flushes on the entries instead
// (Store::FlushFullQueue). `generation` counts the memtables created.
struct MemtableFill {
  std::atomic<uint64_t> entry_bytes{0};
  std::atomic<uint64_t> generation{0};
};

class PrefixBucketRepFactory : public rocksdb::MemTableRepFactory {
 public:
  // prefix_len(user_key): the length of the key's bucket prefix, 0 if none.
  // `fill`, if given, follows the newest memtable of this factory.
  explicit PrefixBucketRepFactory(size_t (*prefix_len)(const rocksdb::Slice&),
                                  std::shared_ptr<MemtableFill> fill = nullptr)
      : prefix_len_(prefix_len), fill_(std::move(fill)) {}

  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& cmp,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* prefix,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "crawlfront.PrefixBucketRepFactory"; }

 private:
  size_t (*prefix_len_)(const rocksdb::Slice&);
  std::shared_ptr<MemtableFill> fill_;
};

}  // namespace crawlfront
