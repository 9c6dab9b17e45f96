#pragma once
// A user filter's in-memory state and its RocksDB records (Cf::kUserBloom):
//   'M' name                            -> meta: snapshot counter + chain header
//   'B' [len:4] name [link:4] [chunk:4] -> bit array chunk (all-zero chunks omitted)
//   'L' [len:4] name [counter:8]        -> 64-bit hashes of adds after the snapshot
// The length prefix keeps one name's range from covering another's
// ("a" vs "ab"). Every add that set bits takes the next counter; a log
// record holds one or more such adds (a group commit logs a round's adds of
// a filter as one record) and is keyed by the highest counter among them, so
// a record below a snapshot's counter holds only adds the snapshot covers.
// Recovery: load the snapshot, replay the log in order. The chain is
// deterministic, so it reaches the same state, growth included (unless
// concurrent rounds interleaved their counters; then membership still holds
// and the filter is snapshotted again).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bf_chain.h"
#include "crawlfront/common/adaptive_mutex.h"
#include "crawlfront/frontier/bf_commands.h"

namespace crawlfront {

struct UserBloomRegistry::Filter {
  Filter(std::string n, BfChain c);
  const std::string name;
  const std::string log_prefix;  // BfLogPrefix(name), built once
  AdaptiveMutex mu;              // both io threads take it per command
  // The chain's last sub-filter, readable without mu: an add prefetches its
  // block before taking mu, so the lock is not held across a cache miss.
  // Sub-filters live as long as the filter; Publish() after AddLink.
  std::atomic<const BlockedBloom*> newest{nullptr};
  void Publish() { newest.store(&chain.link_filter(chain.link_count() - 1)); }
  // Everything below is guarded by mu.
  BfChain chain;
  uint64_t counter = 0;         // next log counter
  uint64_t snap_counter = 0;    // log entries below it are in the snapshot
  bool force_snapshot = false;  // changed other than by logged adds
  uint64_t generation = 0;      // bumped on every unlogged change
  bool Dirty() const { return force_snapshot || counter != snap_counter; }
};

// Bytes per stored bit-array chunk.
inline constexpr uint64_t kBfStoreChunkBytes = uint64_t{1} << 20;

std::string BfMetaKey(std::string_view name);
std::string BfMetaPrefix();
std::string BfBitsPrefix(std::string_view name);
std::string BfBitsKey(std::string_view name, uint32_t link, uint32_t chunk);
std::string BfLogPrefix(std::string_view name);
std::string BfLogKey(std::string_view name, uint64_t counter);

// Meta value: [snap_counter:8] chain header.
std::string BfEncodeMeta(uint64_t snap_counter, std::string_view chain_header);
// Corruption if shorter than the counter.
Status BfDecodeMeta(std::string_view value, uint64_t* snap_counter,
                    std::string_view* chain_header);

// Rebuilds a filter from its records: the snapshot's chain and bits, then
// every logged add at or after the snapshot counter. Memory is not capped
// here: acknowledged adds must come back even if the cap was lowered.
Result<std::unique_ptr<UserBloomRegistry::Filter>> BfLoadFilter(Store& store,
                                                                std::string_view name,
                                                                std::string_view meta);

// A filter's state as of one moment: what a snapshot writes.
struct BfSnapshotImage {
  struct Chunk {
    std::string key;  // BfBitsKey
    std::string_view bits;  // in `data`
  };
  BfSnapshotImage() = default;
  BfSnapshotImage(BfSnapshotImage&& o) noexcept { *this = std::move(o); }
  BfSnapshotImage& operator=(BfSnapshotImage&& o) noexcept;
  ~BfSnapshotImage();

  std::string name;
  uint64_t counter = 0;  // log entries below it are in `chunks`
  std::string header;    // the chain's
  std::vector<Chunk> chunks;  // all-zero chunks left out
  // The bits, on huge pages: 4 KiB pages faulted in one by one were most of
  // the copy's time.
  char* data = nullptr;
  uint64_t data_bytes = 0;
  uint64_t bytes() const;  // of keys and values
};

// An image whose `data` holds `bytes` (rounded up to huge pages), mapped and
// faulted in: made before taking the filter's mutex, so the capture under it
// only copies. The first snapshot after a start held a 144 MB filter ~0.3 s
// while the kernel found huge pages. Throws std::bad_alloc.
BfSnapshotImage BfPrepareSnapshot(uint64_t bytes);

// Copies the filter's bits, counter and header into `prepared`'s memory, or
// new memory if the filter has outgrown it. REQUIRES: the filter's mutex
// is held. Only this copy is made under it: building the write batch from a
// 144 MB filter held the mutex, and every add to the filter, for ~1.8 s.
// Throws std::bad_alloc if the copy cannot be mapped.
BfSnapshotImage BfCaptureSnapshot(const UserBloomRegistry::Filter& f,
                                  BfSnapshotImage prepared = {});

// The image of a filter that was just created, whose bits are all zero: its
// counter and header, no bits. Capturing a fresh 180 MB filter copied it
// all, faulting in both it and the copy (~0.4 s of a BF.RESERVE's io
// thread) to find nothing but zeros.
BfSnapshotImage BfCaptureNew(const UserBloomRegistry::Filter& f);

// Adds a whole-filter snapshot to `batch`: replaces the bits and meta and
// truncates the log below the image's counter.
void BfAppendSnapshot(Store& store, const BfSnapshotImage& image, rocksdb::WriteBatch* batch);

}  // namespace crawlfront
