// Memtable layouts for the column families written per URL: the seen-set's
// (two keys per new URL), the queue's (one) and the records rewritten with
// them.

#include <algorithm>

#include <rocksdb/memtablerep.h>

#include "crawlfront/frontier/hashed_vector_rep.h"
#include "crawlfront/frontier/prefix_bucket_rep.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

void TuneMemtable(Cf which, rocksdb::ColumnFamilyOptions* cf,
                  std::shared_ptr<MemtableFill> queue_fill) {
  if (which == Cf::kSeen) {
    // Random fingerprints, each written once and read back by exact key:
    // an append plus a hash-bucket push per insert, one sort per flush
    // (hashed_vector_rep.h). RocksDB's hash-skip-list (3-byte prefix, 2^16
    // lists) inserted cheaply but re-inserted every key into one sorted list
    // to flush: 10^6 keys cost 5.2-5.3 s of CPU against 1.2 s here
    // (memtable_bench, docs/benchmarks.md). No prefix extractor: partition
    // scans are one bounded seek (seen_scan.cc). One bucket per ~64 bytes
    // of memtable (an entry is ~50) keeps chains short.
    cf->memtable_factory.reset(
        new HashedVectorRepFactory(cf->write_buffer_size / 64, cf->comparator));
  } else if (which == Cf::kFetch) {
    // A record per DONE under a key that shares its first ~25 bytes
    // (partition, crawl, host) with its host's others: a skip-list insert
    // there was 30% of lease + done's server CPU, tripling it. Read back
    // only by exact key (FRONTIER.URL), as kSeen: an append and a
    // hash-bucket push, one sort per flush. An entry is ~80 bytes.
    cf->memtable_factory.reset(
        new HashedVectorRepFactory(cf->write_buffer_size / 96, cf->comparator));
  } else if (which == Cf::kHost || which == Cf::kMeta) {
    // Records rewritten over and over (host counters, crawl counters) and
    // read only at start-up: every rewrite in a skip list is a search placed
    // before the older versions, where insert hints do not help (the largest
    // share of a DONE's write CPU). An unsorted vector appends; a flush sorts
    // once and keeps only the latest version of each record. RocksDB's
    // VectorRep sorted entry pointers, 6-8% of lease + done's server CPU;
    // here the sort compares key prefixes (a host key's first 10 bytes) and
    // reads entries only on ties. Point reads sort a copy, so only start-up
    // may read these.
    cf->write_buffer_size = std::min<size_t>(cf->write_buffer_size, 8 << 20);
    cf->memtable_factory.reset(new HashedVectorRepFactory(
        cf->write_buffer_size / 64, cf->comparator, /*hash_index=*/false));
  } else if (which == Cf::kQueue) {
    // A host's entries, interleaved with 10^4 other hosts' in a skip list,
    // made the queue's inserts the largest part of FRONTIER.ADD's CPU (a
    // skip-list search per insert; insert hints rarely held). One sorted
    // vector per host prefix instead: a new URL is usually an append.
    cf->memtable_factory.reset(
        new PrefixBucketRepFactory(QueueHostPrefixLen, std::move(queue_fill)));
  } else if (which == Cf::kSeenLog) {
    // Only appended to and read back at start-up (replay): an unsorted
    // vector costs nothing per insert and is sorted once per flush, on key
    // prefixes (partition, counter) rather than through entry pointers.
    cf->memtable_factory.reset(new HashedVectorRepFactory(cf->write_buffer_size / 64,
                                                          cf->comparator, /*hash_index=*/false));
  }
}

}  // namespace crawlfront
