// UserBloomRegistry: the name table, creation, adds and lookups.
// Dump/load and snapshots are in bf_registry_dump.cc.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include "bf_store.h"
#include "crawlfront/common/bloom.h"
#include "crawlfront/frontier/pass_hold.h"

namespace crawlfront {

namespace {
std::atomic<uint64_t> next_registry_id{1};
}  // namespace

UserBloomRegistry::UserBloomRegistry(Store* store, const UserBloomOptions& options)
    : store_(store), options_(options), id_(next_registry_id++) {}

Result<std::unique_ptr<UserBloomRegistry>> UserBloomRegistry::Open(
    Store* store, UserBloomOptions options) {
  std::unique_ptr<UserBloomRegistry> r(new UserBloomRegistry(store, options));
  CRAWLFRONT_RETURN_IF_ERROR(r->LoadAll());
  if (options.snapshot_interval.count() > 0) {
    r->bg_thread_ = std::thread([p = r.get()] { p->SnapshotLoop(); });
  }
  return r;
}

UserBloomRegistry::~UserBloomRegistry() {
  {
    std::lock_guard lock(bg_mu_);
    stopping_ = true;
  }
  bg_cv_.notify_all();
  if (bg_thread_.joinable()) bg_thread_.join();
  Status s = SnapshotNow();
  if (!s.ok()) spdlog::error("user bloom: snapshot on close failed: {}", s.ToString());
}

Status UserBloomRegistry::LoadAll() {
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kUserBloom)));
  std::string prefix = BfMetaPrefix();
  std::string upper = PrefixSuccessor(prefix);
  for (it->Seek(prefix); it->Valid() && it->key().compare(upper) < 0; it->Next()) {
    std::string name = it->key().ToString().substr(prefix.size());
    auto f = BfLoadFilter(*store_, name, it->value().ToString());
    if (!f.ok()) return f.status();
    bytes_in_use_ += (*f)->chain.bytes();
    filters_.emplace(name, std::shared_ptr<Filter>(std::move(f).value()));
  }
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(it->status()));
  if (!filters_.empty()) {
    spdlog::info("user bloom: loaded {} filters, {} bytes", filters_.size(),
                 bytes_in_use_.load());
  }
  return Status::Ok();
}

size_t UserBloomRegistry::filter_count() const {
  std::lock_guard lock(mu_);
  return filters_.size();
}

std::shared_ptr<UserBloomRegistry::Filter> UserBloomRegistry::Find(
    std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = filters_.find(name);
  return it == filters_.end() ? nullptr : it->second;
}

Status UserBloomRegistry::ValidateName(std::string_view name) const {
  if (name.size() > options_.max_name_bytes) {
    return Status::InvalidArgument("ERR filter name longer than " +
                                   std::to_string(options_.max_name_bytes) + " bytes");
  }
  return Status::Ok();
}

// Both io threads would otherwise take mu_ on every command. The memo holds
// a raw pointer: the registry owns its filters until it is destroyed, and
// the id (never reused) keeps a later registry at the same address from
// matching.
UserBloomRegistry::Filter* UserBloomRegistry::FindCached(std::string_view name) const {
  struct Last {
    uint64_t registry = 0;
    std::string name;
    Filter* filter = nullptr;
  };
  thread_local Last last;
  if (last.registry == id_ && last.name == name) return last.filter;
  std::shared_ptr<Filter> f = Find(name);
  if (f) last = Last{id_, std::string(name), f.get()};
  return f.get();
}

// Lock-free reservation so concurrent creations never overshoot the cap.
bool UserBloomRegistry::TryReserveBytes(uint64_t bytes) {
  uint64_t cur = bytes_in_use_.load();
  for (;;) {  // retries only when another thread changed the total
    if (bytes > options_.max_total_bytes || cur > options_.max_total_bytes - bytes) {
      return false;
    }
    if (bytes_in_use_.compare_exchange_weak(cur, cur + bytes)) return true;
  }
}

namespace {

Status OverMemory(uint64_t bytes, uint64_t in_use, uint64_t cap) {
  return Status::Busy("ERR filter of " + std::to_string(bytes) +
                      " bytes exceeds max memory for Bloom filters (" +
                      std::to_string(in_use) + " of " + std::to_string(cap) +
                      " bytes in use)");
}

}  // namespace

// Persists the new filter's meta before it becomes visible, so an add that
// is acknowledged later always finds its filter after a restart.
Result<std::shared_ptr<UserBloomRegistry::Filter>> UserBloomRegistry::Insert(
    std::string_view name, std::unique_ptr<Filter> filter) {
  rocksdb::WriteBatch batch;
  BfAppendSnapshot(*store_, BfCaptureNew(*filter), &batch);
  CRAWLFRONT_RETURN_IF_ERROR(store_->Write(&batch));
  std::shared_ptr<Filter> f(std::move(filter));
  filters_.emplace(std::string(name), f);
  return f;
}

Result<std::shared_ptr<UserBloomRegistry::Filter>> UserBloomRegistry::CreateLocked(
    std::string_view name, const BfParams& params) {
  CRAWLFRONT_RETURN_IF_ERROR(ValidateName(name));
  if (filters_.size() >= options_.max_filters) {
    return Status::Busy("ERR max number of Bloom filters reached");
  }
  uint64_t bytes = BfChain::FirstLinkBytes(params);
  if (!TryReserveBytes(bytes)) {
    return OverMemory(bytes, bytes_in_use_.load(), options_.max_total_bytes);
  }
  auto chain = BfChain::Create(params, options_.max_total_bytes);
  Result<std::shared_ptr<Filter>> f =
      chain.ok() ? Insert(name, std::make_unique<Filter>(std::string(name),
                                                         std::move(chain).value()))
                 : Result<std::shared_ptr<Filter>>(chain.status());
  if (!f.ok()) bytes_in_use_ -= bytes;
  return f;
}

Status UserBloomRegistry::Reserve(std::string_view name, const BfParams& params) {
  std::lock_guard lock(mu_);
  if (filters_.find(name) != filters_.end())
    return Status::InvalidArgument("ERR item exists");
  return CreateLocked(name, params).status();
}

Result<std::shared_ptr<UserBloomRegistry::Filter>> UserBloomRegistry::FindOrCreate(
    std::string_view name, const BfParams* create) {
  std::lock_guard lock(mu_);
  auto it = filters_.find(name);
  if (it != filters_.end()) return it->second;
  if (create == nullptr) return Status::NotFound("ERR not found");
  return CreateLocked(name, *create);
}

// REQUIRES: f.mu held. Grows the chain when needed, within the memory cap.
BfAddOutcome UserBloomRegistry::AddOne(Filter& f, uint64_t hash, size_t skip) {
  BfStep step = f.chain.Add(hash, skip);
  if (step == BfStep::kNeedLink) {
    uint64_t bytes = f.chain.NextLinkBytes();
    if (!TryReserveBytes(bytes)) return BfAddOutcome::kNoMemory;
    if (!f.chain.AddLink().ok()) {
      bytes_in_use_ -= bytes;
      return f.chain.link_count() >= BfChain::kMaxLinks ? BfAddOutcome::kTooManyLinks
                                                        : BfAddOutcome::kNoMemory;
    }
    f.Publish();
    step = f.chain.Add(hash, skip);
  }
  switch (step) {
    case BfStep::kAdded:
      return BfAddOutcome::kAdded;
    case BfStep::kFull:
      return BfAddOutcome::kFull;
    default:
      return BfAddOutcome::kExists;
  }
}

namespace {

// Adds of at least this many items probe them all with prefetching first.
constexpr size_t kWarmBatch = 8;

// After a failed write: memory holds bits the log lacks, so the next
// snapshot must write the filter whole.
void MarkUnlogged(UserBloomRegistry::Filter& f) {
  f.force_snapshot = true;
  ++f.generation;
}

void MarkUnloggedLocking(void* arg) {
  auto* f = static_cast<UserBloomRegistry::Filter*>(arg);
  std::lock_guard lock(f->mu);
  MarkUnlogged(*f);
}

}  // namespace

// Log records may be committed after a snapshot that already holds their
// bits (group commit): a record below the snapshot counter holds only such
// adds, so replay skips it and the next snapshot deletes it. A snapshot
// written before a failed group write holds bits of unacknowledged adds:
// harmless.
Status UserBloomRegistry::Add(std::string_view name, std::span<const std::string> items,
                              const BfParams* create, std::vector<BfAddOutcome>* out,
                              WriteGroup* group) {
  out->clear();
  Filter* cached = FindCached(name);
  if (cached == nullptr) {
    auto found = FindOrCreate(name, create);
    if (!found.ok()) return found.status();
    cached = found->get();
  }
  Filter& f = *cached;
  auto* cf = store_->cf(Cf::kUserBloom);
  // Hashes of the new items, appended to the group's record for this filter
  // (one log record per round and filter) or to a record of this call.
  std::string own;
  WriteGroup::Merged* merged = group ? &group->MergedRecord(&f, cf) : nullptr;
  std::string& hashes = merged ? merged->value : own;
  hashes.reserve(hashes.size() + 8 * items.size());  // grows once per call, not per doubling
  uint64_t last = 0;
  bool logged = false;
  // A batch probes the older sub-filters once for all its items (in
  // parallel); each add then probes only the last one (its block is warm).
  thread_local std::vector<uint64_t> batch_hashes;
  thread_local std::vector<uint8_t> in_older;
  batch_hashes.clear();
  if (items.size() >= kWarmBatch) {
    for (const std::string& item : items) batch_hashes.push_back(BloomHash(item));
    in_older.resize(items.size());
  }
  if (batch_hashes.empty() && items.size() == 1) {
    batch_hashes.push_back(BloomHash(items[0]));
    f.newest.load()->Prefetch(batch_hashes[0]);
  }
  PassLock lock(f.mu);
  size_t skip = 0;
  if (items.size() >= kWarmBatch)
    skip = f.chain.PrepareAdds(batch_hashes, in_older.data());
  for (size_t i = 0; i < items.size(); ++i) {
    uint64_t hash = batch_hashes.empty() ? BloomHash(items[i]) : batch_hashes[i];
    BfAddOutcome outcome =
        skip > 0 && in_older[i] ? BfAddOutcome::kExists : AddOne(f, hash, skip);
    out->push_back(outcome);
    if (outcome == BfAddOutcome::kAdded) {
      AppendBe64(&hashes, hash);
      last = f.counter++;
      logged = true;
    } else if (outcome != BfAddOutcome::kExists) {
      break;
    }
  }
  if (!logged) return Status::Ok();
  if (merged) {
    // Keyed by the highest counter in it (see bf_store.h). The counter only
    // grows, so the key is rewritten in place: no string built per add.
    merged->key.assign(f.log_prefix);
    AppendBe64(&merged->key, last);
    group->OnFailure(MarkUnloggedLocking, &f);  // filters live as long as the registry
    return Status::Ok();
  }
  std::string key = f.log_prefix;
  AppendBe64(&key, last);
  rocksdb::WriteBatch batch;
  batch.Put(cf, key, own);
  Status st = store_->Write(&batch);
  if (!st.ok()) {
    MarkUnlogged(f);
    return Status::IoError("ERR could not persist the add: " + st.message());
  }
  return Status::Ok();
}

void UserBloomRegistry::Prefetch(std::string_view name, std::string_view item) const {
  Filter* f = FindCached(name);
  if (f != nullptr) f->newest.load()->Prefetch(BloomHash(item));
}

void UserBloomRegistry::Exists(std::string_view name, std::span<const std::string> items,
                               std::vector<uint8_t>* out) {
  out->assign(items.size(), 0);
  Filter* f = FindCached(name);
  if (!f) return;
  thread_local std::vector<uint64_t> hashes;  // no allocation per call
  hashes.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) hashes[i] = BloomHash(items[i]);
  PassLock lock(f->mu);
  if (hashes.size() >= kWarmBatch) {
    f->chain.ContainsBatch(hashes, SIZE_MAX, out->data());
    return;
  }
  for (size_t i = 0; i < hashes.size(); ++i)
    (*out)[i] = f->chain.Contains(hashes[i]) ? 1 : 0;
}

Result<BfInfo> UserBloomRegistry::Info(std::string_view name) {
  std::shared_ptr<Filter> f = Find(name);
  if (!f) return Status::NotFound("ERR not found");
  std::lock_guard lock(f->mu);
  BfInfo info;
  info.capacity = f->chain.capacity();
  info.bytes = f->chain.bytes();
  info.filters = f->chain.link_count();
  info.items = f->chain.items();
  info.expansion = f->chain.params().expansion;
  info.nonscaling = f->chain.params().nonscaling;
  return info;
}

uint64_t UserBloomRegistry::Card(std::string_view name) {
  std::shared_ptr<Filter> f = Find(name);
  if (!f) return 0;
  std::lock_guard lock(f->mu);
  return f->chain.items();
}

}  // namespace crawlfront
