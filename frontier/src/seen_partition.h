#pragma once
// Internals of one seen-set partition and its RocksDB key encodings.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "crawlfront/common/bloom.h"
#include "crawlfront/common/url.h"
#include "crawlfront/frontier/seen_set.h"
#include "crawlfront/frontier/store.h"
#include "seen_cache.h"

namespace crawlfront {

struct SeenSet::Partition {
  uint32_t id = 0;
  mutable std::mutex mu;
  // Everything below is guarded by mu.
  std::unique_ptr<BlockedBloom> filter;
  std::unique_ptr<BlockedBloom> next;  // non-null while a rebuild runs
  uint64_t capacity = 0;
  uint64_t items = 0;
  uint64_t counter = 0;       // next seen_log counter to assign
  uint64_t snap_counter = 0;  // log entries below this are in the snapshot
  int64_t snap_time_ms = 0;
  bool has_snapshot = false;
  bool force_snapshot = false;  // filter replaced since the last snapshot
  bool rebuild_scheduled = false;
  uint64_t rebuilds = 0;
  uint64_t filter_gen = 0;  // bumped when a rebuild swaps the filter in
  // Claimed by a batch whose RocksDB write has not finished: already in the
  // filter and counted in items; concurrent batches treat them as seen.
  std::unordered_set<Fingerprint, FingerprintHash> pending;
  uint64_t retired = 0;  // claim batches finished; see ConfirmOnDisk

  bool Dirty() const { return force_snapshot || counter != snap_counter || !has_snapshot; }
};

// kSeen key: [partition:2][fingerprint:16]
std::string SeenKeyBytes(uint32_t p, const Fingerprint& fp);
inline constexpr size_t kSeenKeyBytes = 18;
void EncodeSeenKey(uint32_t p, const Fingerprint& fp, char* out);  // 18 bytes
// Filters the seen-set writes under the partition lock (one writer).
BloomOptions SeenBloomOptions();
// kSeenLog key: [partition:2][counter:8]; value: fingerprint:16
std::string LogKey(uint32_t p, uint64_t counter);
// kSeenSnap keys: [partition:2]'H' header, [partition:2]'C'[chunk:4] bits.
std::string SnapHeaderKey(uint32_t p);
std::string SnapChunkKey(uint32_t p, uint32_t chunk);
std::string PartitionPrefix(uint32_t p);

// Snapshot header (versioned), stored in front of the filter's own header.
struct SnapHeader {
  uint64_t counter = 0;
  uint64_t items = 0;
  uint64_t capacity = 0;
  uint64_t rebuilds = 0;
  int64_t time_ms = 0;
  std::string filter_header;
  std::string Encode() const;
  static Result<SnapHeader> Decode(std::string_view bytes);
};

int64_t NowUnixMs();

// Calls fn for every kSeen key of partition p, in key order, from one
// consistent view; stops early (Ok) once *stop is set.
Status ScanSeenPartition(Store* store, uint32_t p, const std::atomic<bool>* stop,
                         const std::function<void(const rocksdb::Slice& key)>& fn);

}  // namespace crawlfront
