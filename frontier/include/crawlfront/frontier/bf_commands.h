#pragma once
// User-named Bloom filters with RedisBloom-compatible BF.* commands, so code
// written against RedisBloom (BF.RESERVE, BF.ADD, BF.EXISTS, ...) works
// against the frontier unchanged. Filters are scalable chains of
// cache-blocked Bloom filters, persisted in the store's kUserBloom column
// family. See docs/bloom_commands.md.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/common/url.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

class RespServer;
class SeenSet;

// Creation parameters of a filter (BF.RESERVE / BF.INSERT). The defaults
// are RedisBloom's for auto-created filters.
struct BfParams {
  double error_rate = 0.01;  // target false-positive rate, in (0, 1)
  uint64_t capacity = 100;   // items of the first sub-filter, > 0
  uint32_t expansion = 2;    // growth factor of each new sub-filter, >= 1
  bool nonscaling = false;   // refuse adds at capacity instead of growing
};

// What BF.INFO reports.
struct BfInfo {
  uint64_t capacity = 0;  // sum of the sub-filters' capacities
  uint64_t bytes = 0;     // bit arrays of all sub-filters
  uint64_t filters = 0;   // number of sub-filters
  uint64_t items = 0;     // adds that changed a bit
  uint32_t expansion = 0;
  bool nonscaling = false;
};

// Outcome of adding one item.
enum class BfAddOutcome : uint8_t {
  kExists = 0,    // probably present already (reply 0)
  kAdded = 1,     // new (reply 1)
  kFull,          // non-scaling filter at capacity
  kNoMemory,      // a new sub-filter would exceed the memory cap
  kTooManyLinks,  // BfChain::kMaxLinks sub-filters already
};

// One BF.SCANDUMP step: the iterator for the next call (0 = done) and data.
struct BfDumpChunk {
  int64_t next = 0;
  std::string data;
};

struct UserBloomOptions {
  // Cap on the bit arrays of all user filters together; a BF.RESERVE or a
  // scaling step over it is refused, so clients cannot exhaust the
  // frontier's RAM. Higher allows bigger filters. Default: 1 GiB.
  uint64_t max_total_bytes = uint64_t{1} << 30;
  // Most filters; each costs a little RAM even when empty. Default: 100000.
  size_t max_filters = 100'000;
  // Longest filter name in bytes. Default: 1024.
  size_t max_name_bytes = 1024;
  // How often changed filters are snapshotted to RocksDB; restart replays
  // only the adds logged since. Shorter costs write bandwidth (whole bit
  // arrays), longer costs restart time. 0 disables the timer (snapshots on
  // close, SnapshotNow and completed BF.LOADCHUNK). Default: 60 s.
  std::chrono::milliseconds snapshot_interval{60'000};
};

// The named filters. Every method is thread-safe: a registry mutex guards
// the name table, a mutex per filter guards its chain. Error Status messages
// are RedisBloom's reply texts ("ERR not found", "ERR item exists", ...) so
// the RESP layer can send them as they are.
class UserBloomRegistry {
 public:
  struct Filter;  // defined in src/bf_store.h

  // Loads every filter from `store` (snapshot, then replay of the adds
  // logged after it) and starts the snapshot thread. `store` must outlive the
  // registry. Corruption if stored data does not parse, IoError on reads.
  static Result<std::unique_ptr<UserBloomRegistry>> Open(Store* store,
                                                         UserBloomOptions options = {});
  // Stops the snapshot thread and snapshots changed filters (errors logged).
  ~UserBloomRegistry();
  UserBloomRegistry(const UserBloomRegistry&) = delete;
  UserBloomRegistry& operator=(const UserBloomRegistry&) = delete;

  // Creates an empty filter, durably. "ERR item exists" if the name is
  // taken; InvalidArgument for bad params; "... exceeds max memory ..." over
  // the cap.
  Status Reserve(std::string_view name, const BfParams& params);
  // Adds items in order; the filter is created with *create when missing
  // (create == nullptr: "ERR not found"). out receives one outcome per item
  // processed; processing stops after the first outcome that is neither
  // kExists nor kAdded (RedisBloom stops at a full filter too).
  // Without `group`, the new items are durable (per the store's durability)
  // when this returns OK. With `group` (a WriteGroup of this registry's
  // store), their log records are added to it instead: they are durable once
  // group->Commit() succeeded, and must not be acknowledged before (group
  // commit). On a write error nothing is acknowledged, though bits may stay
  // set (the filter is then snapshotted whole).
  Status Add(std::string_view name, std::span<const std::string> items,
             const BfParams* create, std::vector<BfAddOutcome>* out,
             WriteGroup* group = nullptr);
  // Starts loading the block `item` maps to in the filter's newest
  // sub-filter into the cache (no lock, no change; nothing if missing).
  void Prefetch(std::string_view name, std::string_view item) const;
  // out[i] = 1 if items[i] may have been added, 0 if surely not. A missing
  // filter answers 0 for every item.
  void Exists(std::string_view name, std::span<const std::string> items,
              std::vector<uint8_t>* out);
  // "ERR not found" if missing.
  Result<BfInfo> Info(std::string_view name);
  // Items of the filter, 0 if missing.
  uint64_t Card(std::string_view name);

  // BF.SCANDUMP: iter 0 yields (1, header); later calls yield bit array
  // chunks with the iterator for the next call; (0, "") at the end.
  // "ERR not found" if missing.
  Result<BfDumpChunk> ScanDump(std::string_view name, int64_t iter);
  // BF.LOADCHUNK: iter 1 on a missing name creates the filter from a
  // header; otherwise writes a chunk that SCANDUMP returned with `iter`.
  // The filter is snapshotted (durable) once its last chunk is loaded.
  // Errors carry RedisBloom's texts ("ERR received bad data", ...).
  Status LoadChunk(std::string_view name, int64_t iter, std::string_view data);

  // Snapshots every changed filter now.
  Status SnapshotNow();
  // Bytes of all filters' bit arrays.
  uint64_t bytes_in_use() const { return bytes_in_use_.load(); }
  size_t filter_count() const;
  const UserBloomOptions& options() const { return options_; }
  Store& store() const { return *store_; }

 private:
  UserBloomRegistry(Store* store, const UserBloomOptions& options);
  Status LoadAll();
  std::shared_ptr<Filter> Find(std::string_view name) const;
  // Find through a per-thread memo of the last filter found (nullptr if
  // missing): filters are never removed while the registry lives.
  Filter* FindCached(std::string_view name) const;
  // Under mu_: validates, reserves memory, persists and inserts a filter.
  Result<std::shared_ptr<Filter>> CreateLocked(std::string_view name,
                                               const BfParams& params);
  Result<std::shared_ptr<Filter>> Insert(std::string_view name,
                                         std::unique_ptr<Filter> filter);
  Result<std::shared_ptr<Filter>> FindOrCreate(std::string_view name,
                                               const BfParams* create);
  BfAddOutcome AddOne(Filter& f, uint64_t hash, size_t skip);
  Status ValidateName(std::string_view name) const;
  bool TryReserveBytes(uint64_t bytes);
  // Snapshots f if it changed; adds its size to *bytes when it did.
  Status SnapshotFilter(Filter& f, uint64_t* bytes = nullptr);
  void SnapshotLoop();

  Store* store_;
  UserBloomOptions options_;
  const uint64_t id_;      // unique per registry in the process (FindCached's memo)
  mutable std::mutex mu_;  // guards filters_
  std::map<std::string, std::shared_ptr<Filter>, std::less<>> filters_;
  std::atomic<uint64_t> bytes_in_use_{0};
  std::mutex snapshot_mu_;  // one snapshot write at a time (log truncation order)
  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  bool stopping_ = false;
  std::thread bg_thread_;
};

// The reserved read-only name under which BF.EXISTS / BF.MEXISTS / BF.INFO /
// BF.CARD read the frontier's own seen-set.
inline constexpr std::string_view kSeenFilterName = "crawlfront:seen";

// Registers BF.RESERVE, BF.ADD, BF.MADD, BF.EXISTS, BF.MEXISTS, BF.INSERT,
// BF.INFO, BF.CARD, BF.SCANDUMP and BF.LOADCHUNK on `server` (before its
// Start()). `registry` (and `seen`, when not null) must outlive the server's
// io threads. With `seen`, the name kSeenFilterName reads the seen-set:
// items are URLs, canonicalized with url_options (use the crawl core's) and
// looked up exactly. Writes to that name are refused.
void RegisterBfCommands(RespServer& server, UserBloomRegistry& registry,
                        SeenSet* seen = nullptr, UrlOptions url_options = {});

}  // namespace crawlfront
