// Memtable layouts for the seen-set's column families, whose writes are
// most of a crawl's writes (two per new URL).

#include <algorithm>

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>

#include "crawlfront/frontier/store.h"

namespace crawlfront {

void TuneMemtable(Cf which, rocksdb::ColumnFamilyOptions* cf) {
  if (which == Cf::kSeen) {
    // One skip list per partition (keys start with the 2-byte partition id):
    // fingerprints are random, so a single skip list makes every insert and
    // lookup a long search through the whole memtable. Scans stay within
    // one partition (rebuild, load), which prefix iteration serves.
    cf->prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(2));
    // Height 12, branching 4: a 64 MiB memtable puts up to ~10^4 keys in a
    // partition's list; the default height (4) is for ~256 and degrades to
    // a linear walk beyond.
    cf->memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(
        /*bucket_count=*/1 << 16, /*skiplist_height=*/12, /*skiplist_branching_factor=*/4));
  } else if (which == Cf::kHost || which == Cf::kMeta) {
    // Records rewritten over and over (host counters, crawl counters): every
    // rewrite is a new memtable entry placed before the older versions,
    // where insert hints do not help, so each costs a full skip-list
    // search. A small memtable keeps that search short and in cache; its
    // flushes keep only the latest version of each record.
    cf->write_buffer_size = std::min<size_t>(cf->write_buffer_size, 2 << 20);
  } else if (which == Cf::kSeenLog) {
    // Only appended to and read back at start-up (replay): an unsorted
    // vector costs nothing per insert and is sorted once per flush.
    cf->memtable_factory.reset(new rocksdb::VectorRepFactory());
  }
}

}  // namespace crawlfront
