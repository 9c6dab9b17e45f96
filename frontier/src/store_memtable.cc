// Memtable layouts for the seen-set's column families, whose writes are
// most of a crawl's writes (two per new URL).

#include <algorithm>

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>

#include "crawlfront/frontier/store.h"

namespace crawlfront {

void TuneMemtable(Cf which, rocksdb::ColumnFamilyOptions* cf) {
  if (which == Cf::kSeen) {
    // Many short skip lists: the prefix is the 2-byte partition id plus the
    // fingerprint's first byte (256 buckets per partition). Fingerprints are
    // random, so in one long list every insert is a chain of ~25 dependent
    // cache misses; with one list per partition (2-byte prefix) a 64 MiB
    // memtable still held ~800 keys per list and inserts cost 4.5-7 us
    // each, against 1.1-2.5 us with 3-byte prefixes (docs/benchmarks.md).
    // A partition scan (rebuild, load) is 256 prefix seeks (seen_scan.cc).
    cf->prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(3));
    // 2^16 lists (4 prefixes each) keep the lists short (~12 keys at 10^6
    // keys per memtable) for ~6 MiB of list heads per memtable.
    cf->memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(
        /*bucket_count=*/1 << 16, /*skiplist_height=*/4, /*skiplist_branching_factor=*/4));
  } else if (which == Cf::kHost || which == Cf::kMeta) {
    // Records rewritten over and over (host counters, crawl counters) and
    // read only at start-up: every rewrite in a skip list is a search placed
    // before the older versions, where insert hints do not help (the largest
    // share of a DONE's write CPU). An unsorted vector appends; a flush sorts
    // once and keeps only the latest version of each record. Point reads of
    // a vector memtable sort a copy, so only start-up may read these.
    cf->memtable_factory.reset(new rocksdb::VectorRepFactory());
    cf->write_buffer_size = std::min<size_t>(cf->write_buffer_size, 8 << 20);
  } else if (which == Cf::kSeenLog) {
    // Only appended to and read back at start-up (replay): an unsorted
    // vector costs nothing per insert and is sorted once per flush.
    cf->memtable_factory.reset(new rocksdb::VectorRepFactory());
  }
}

}  // namespace crawlfront
