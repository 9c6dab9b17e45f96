#include "crawlfront/frontier/store.h"

#include <filesystem>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include "crawlfront/frontier/prefix_bucket_rep.h"
#include "wal_crc32c.h"
#include "wal_syncer.h"

namespace crawlfront {
namespace {

constexpr const char* kCfNames[] = {
    "default",
    "meta", "seen", "seen_log", "seen_snap", "queue", "host", "lease", "user_bloom", "recrawl",
    "fetch"};
static_assert(std::size(kCfNames) == static_cast<size_t>(Cf::kCount));

// Memtable insert hints (memtable_insert_with_hint_prefix_extractor): for
// each key prefix the memtable remembers where it last inserted, so a key
// that lands next to the previous one of its prefix skips most of the
// skip-list search, which dominated write CPU. The prefixes are runs written
// mostly in key order: a partition's leases (a host's queue has a memtable
// of its own, store_memtable.cc). A key outside a transform's domain is
// inserted as before.
// Only for column families that never get a DeleteRange: RocksDB 7.8 keeps
// one hint map for a memtable's point and range-deletion skip lists, so a
// range tombstone in a hinted prefix mixes the two lists (Debian's build
// asserts in FindSpliceForLevel; RocksDB fixed it later by not hinting range
// deletions). The seen log, seen snapshots and user filters use DeleteRange.
class PrefixHint : public rocksdb::SliceTransform {
 public:
  // len(key) is the prefix length, or 0 when the key has no such prefix.
  PrefixHint(const char* name, size_t (*len)(const rocksdb::Slice&))
      : name_(name), len_(len) {}
  const char* Name() const override { return name_; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return rocksdb::Slice(key.data(), len_(key));
  }
  bool InDomain(const rocksdb::Slice& key) const override { return len_(key) > 0; }

 private:
  const char* name_;
  size_t (*len_)(const rocksdb::Slice&);
};

// kLease: the 2-byte partition (lease ids grow).
size_t PartitionLen(const rocksdb::Slice& k) { return k.size() > 2 ? 2 : 0; }

std::shared_ptr<const rocksdb::SliceTransform> InsertHint(Cf which) {
  switch (which) {
    case Cf::kLease:
      return std::make_shared<PrefixHint>("crawlfront.Partition", PartitionLen);
    default:
      // Random keys (seen fingerprints), DeleteRange in use (see above), or a
      // memtable that ignores hints (queue).
      return nullptr;
  }
}

rocksdb::ColumnFamilyOptions CfOptions(const StoreOptions& o,
                                       std::shared_ptr<rocksdb::Cache> cache, Cf which,
                                       std::shared_ptr<MemtableFill> queue_fill) {
  rocksdb::ColumnFamilyOptions cf;
  cf.memtable_insert_with_hint_prefix_extractor = InsertHint(which);
  cf.write_buffer_size = o.write_buffer_bytes;
  if (which == Cf::kQueue) {
    // A queue memtable holds a bucket per host (~500 bytes): with 10^5 hosts
    // they filled 80% of it, so it flushed every 12 MB of entries, and each
    // flush was an L0 file that every head refill searched and that
    // compaction merged into the whole bottommost level. The store flushes
    // it on its entries (FlushFullQueue); this bounds entries and buckets
    // together. Same arena blocks as the others.
    cf.write_buffer_size = 4 * o.write_buffer_bytes;
    cf.arena_block_size = o.write_buffer_bytes / 8;
  }
  if (which == Cf::kSeen || which == Cf::kSeenLog) {
    // Random 128-bit fingerprints do not compress: LZ4 and ZSTD spent flush
    // and compaction CPU only for RocksDB to store the raw block anyway.
    cf.compression = rocksdb::kNoCompression;
    cf.bottommost_compression = rocksdb::kNoCompression;
  } else if (which == Cf::kQueue || which == Cf::kFetch) {
    // Queue entries live until DONE, and with 10^7 of them head refills
    // decompress a bottommost block per host visit while compactions
    // rewrite the rest: LZ4 there too cut server CPU per URL by 5-26% for
    // 8% more disk (docs/benchmarks.md, session 29). Fetch records, one per
    // DONE, would otherwise spend ZSTD's CPU at the bottom as well.
    cf.compression = rocksdb::kLZ4Compression;
    cf.bottommost_compression = rocksdb::kLZ4Compression;
  } else {
    cf.compression = rocksdb::kLZ4Compression;
    cf.bottommost_compression = rocksdb::kZSTD;
  }
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = std::move(cache);
  // Whole-key Bloom in every SST: a fingerprint absent from a file costs no
  // block read. RocksDB's own filter, not ours: it guards files, ours guards
  // the whole partition in RAM.
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  // Partitioned indexes and filters: a read loads one 4 KiB partition, not
  // a file's whole index. With 10^7 queued URLs a bottommost queue file's
  // index was megabytes of ZSTD; head refills, spread over 10^5 hosts,
  // evicted it from the block cache and each one decompressed it again
  // (lease + done fell to ~500 URLs/s, docs/benchmarks.md, session 29).
  // The top level of each stays pinned, in the high-priority part of the
  // cache with the partitions.
  table.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.metadata_block_size = 4096;
  table.pin_top_level_index_and_filter = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.level_compaction_dynamic_level_bytes = true;
  TuneMemtable(which, &cf, std::move(queue_fill));
  return cf;
}

}  // namespace

size_t QueueHostPrefixLen(const rocksdb::Slice& k) {
  if (k.size() < 4) return 0;
  size_t host_at = 4 + ReadBe16(k.data() + 2);
  if (k.size() < host_at + 2) return 0;
  size_t end = host_at + 2 + ReadBe16(k.data() + host_at);
  return end < k.size() ? end : 0;  // something must follow the prefix
}

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::Ok();
  if (s.IsNotFound()) return Status::NotFound(s.ToString());
  if (s.IsCorruption()) return Status::Corruption(s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument(s.ToString());
  if (s.IsBusy() || s.IsTryAgain()) return Status::Busy(s.ToString());
  return Status::IoError(s.ToString());
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& dir,
                                           const StoreOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError("cannot create " + dir + ": " + ec.message());

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = options.background_jobs;
  if (options.env) db_options.env = options.env.get();
  db_options.bytes_per_sync = 1 << 20;
  db_options.enable_pipelined_write = true;
  // A column family written rarely (crawl counters, user filters) would pin
  // every WAL file since its last flush: RocksDB's own limit, 4x all
  // memtables (~3.6 GB here), is what a restart would replay. Past this
  // size the oldest memtables are flushed instead.
  db_options.max_total_wal_size = 4 * options.write_buffer_bytes;
  // Insert hints (see PrefixHint) work only for serial memtable inserts;
  // with two cores, parallel inserts of one write group gained little.
  db_options.allow_concurrent_memtable_write = false;
  auto cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  auto queue_fill = std::make_shared<MemtableFill>();

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (size_t i = 0; i < std::size(kCfNames); ++i) {
    descriptors.emplace_back(kCfNames[i],
                             CfOptions(options, cache, static_cast<Cf>(i), queue_fill));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, dir, descriptors, &handles, &raw);
  if (!s.ok()) return Status::IoError("open " + dir + ": " + s.ToString());
  spdlog::debug("store {}: WAL record checksums by {}", dir, WalCrc32cImplementation());

  std::unique_ptr<Store> store(new Store());
  store->dir_ = dir;
  store->durability_ = options.durability;
  store->env_ = options.env;
  store->db_.reset(raw);
  store->queue_fill_ = std::move(queue_fill);
  store->queue_flush_bytes_ = options.write_buffer_bytes;
  for (size_t i = 0; i < handles.size(); ++i) store->handles_[i] = handles[i];
  store->write_options_.sync = options.durability == Durability::kFsync;
  if (options.durability == Durability::kEverySec) {
    store->syncer_ = std::make_unique<WalSyncer>(raw, options.wal_sync_interval);
  }
  return store;
}

Store::~Store() {
  if (!db_) return;
  if (syncer_) {
    syncer_.reset();
    db_->SyncWAL().PermitUncheckedError();  // what the last interval wrote
  }
  for (auto* h : handles_) {
    if (h) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
}

Status Store::Write(rocksdb::WriteBatch* batch) {
  if (syncer_ != nullptr && syncer_->failing()) return syncer_->Failure();
  Status st = FromRocks(db_->Write(write_options_, batch));
  if (st.ok()) FlushFullQueue();
  return st;
}

void Store::FlushFullQueue() {
  // The generation first: a memtable switched in since then has fewer bytes.
  const uint64_t gen = queue_fill_->generation.load(std::memory_order_acquire);
  if (queue_fill_->entry_bytes.load(std::memory_order_relaxed) < queue_flush_bytes_) return;
  if (queue_flush_asked_.exchange(gen) == gen) return;  // asked already
  rocksdb::FlushOptions fo;
  fo.wait = false;               // switch memtables, flush in the background
  fo.allow_write_stall = true;   // never block this write's caller
  rocksdb::Status s = db_->Flush(fo, cf(Cf::kQueue));
  // Not fatal: RocksDB still flushes at the column family's write_buffer_size.
  if (!s.ok()) spdlog::warn("store: flushing the queue's memtable: {}", s.ToString());
}

BackgroundWork Store::background_work() const {
  BackgroundWork b;
  uint64_t v = 0;
  if (db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &v)) {
    b.flushes_running = v;
  }
  if (db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &v)) {
    b.compactions_running = v;
  }
  for (rocksdb::ColumnFamilyHandle* h : handles_) {
    if (db_->GetIntProperty(h, rocksdb::DB::Properties::kNumImmutableMemTable, &v)) {
      b.immutable_memtables += v;
    }
    if (db_->GetIntProperty(h, rocksdb::DB::Properties::kMemTableFlushPending, &v) && v) {
      b.flush_pending = true;
    }
    if (db_->GetIntProperty(h, rocksdb::DB::Properties::kCompactionPending, &v) && v) {
      b.compaction_pending = true;
    }
  }
  return b;
}

WalSyncStats Store::wal_sync_stats() const {
  if (syncer_ == nullptr) return {};
  return {syncer_->syncs(), syncer_->errors(), syncer_->failing()};
}

void WriteGroup::OnFailure(void (*fn)(void*), void* arg) {
  if (!on_failure_.empty() && on_failure_.back() == std::pair(fn, arg)) return;
  on_failure_.emplace_back(fn, arg);
}

WriteGroup::Merged& WriteGroup::MergedRecord(const void* owner,
                                             rocksdb::ColumnFamilyHandle* cf) {
  for (auto& [o, m] : merged_) {
    if (o == owner) return m;
  }
  merged_.emplace_back(owner, Merged{cf, {}, {}});
  return merged_.back().second;
}

Status WriteGroup::Commit() {
  for (auto& [owner, m] : merged_) {
    if (!m.key.empty()) batch_.Put(m.cf, m.key, m.value);
  }
  if (batch_.Count() == 0) return Status::Ok();
  Status st = store_->Write(&batch_);
  if (!st.ok()) {
    for (auto [fn, arg] : on_failure_) fn(arg);
  }
  return st;
}

Result<std::string> Store::GetMeta(std::string_view key) {
  std::string value;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), cf(Cf::kMeta), rocksdb::Slice(key), &value);
  if (!s.ok()) return FromRocks(s);
  return value;
}

Status Store::PutMeta(std::string_view key, std::string_view value) {
  if (syncer_ != nullptr && syncer_->failing()) return syncer_->Failure();
  return FromRocks(db_->Put(write_options_, cf(Cf::kMeta), rocksdb::Slice(key),
                            rocksdb::Slice(value)));
}

Status Store::Checkpoint(const std::string& target_dir) {
  rocksdb::Checkpoint* raw = nullptr;
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(db_.get(), &raw)));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  return FromRocks(checkpoint->CreateCheckpoint(target_dir));
}

void AppendBe16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}
// One append instead of a push_back (and capacity check) per byte: keys
// are built per URL and per Bloom add.
void AppendBe32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (24 - 8 * i));
  out->append(b, sizeof b);
}
uint16_t ReadBe16(const char* p) {
  auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(u[0] << 8 | u[1]);
}
uint32_t ReadBe32(const char* p) {
  return static_cast<uint32_t>(ReadBe16(p)) << 16 | ReadBe16(p + 2);
}
uint64_t ReadBe64(const char* p) {
  return static_cast<uint64_t>(ReadBe32(p)) << 32 | ReadBe32(p + 4);
}

std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(prefix.back());
    if (c != 0xff) {
      ++c;
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;  // empty: no successor, means "to the end"
}

}  // namespace crawlfront
