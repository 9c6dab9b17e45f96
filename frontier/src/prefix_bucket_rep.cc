#include "crawlfront/frontier/prefix_bucket_rep.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace crawlfront {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;
using Run = std::vector<const char*>;

struct Bucket {
  std::string_view prefix;    // points into its first entry, in the arena
  const char* last = nullptr;  // the run's last entry (saves a pointer chase)
  std::shared_ptr<Run> run;   // sorted; shared with iterators once read
  std::vector<const char*> tail;  // unsorted, since the last merge
};

// What an iterator holds of one bucket.
struct BucketView {
  std::string_view prefix;
  std::shared_ptr<const Run> run;  // null: no such bucket
};

class PrefixBucketRep;

class BucketIterator : public MemTableRep::Iterator {
 public:
  BucketIterator(const PrefixBucketRep* rep, bool pooled) : rep_(rep), pooled_(pooled) {}
  ~BucketIterator() override;
  void Reset(const PrefixBucketRep* rep) {
    rep_ = rep;
    at_ = {};
    pos_ = 0;
  }

  bool Valid() const override { return at_.run != nullptr && pos_ < at_.run->size(); }
  const char* key() const override { return (*at_.run)[pos_]; }
  void Next() override;
  void Prev() override;
  void Seek(const Slice& internal_key, const char* memtable_key) override;
  void SeekForPrev(const Slice& internal_key, const char* memtable_key) override;
  void SeekToFirst() override;
  void SeekToLast() override;

 private:
  void EnterFirst(BucketView v) {
    at_ = std::move(v);
    pos_ = 0;
  }
  void EnterLast(BucketView v) {
    at_ = std::move(v);
    pos_ = at_.run == nullptr ? 0 : at_.run->size() - 1;  // buckets are never empty
  }

  const PrefixBucketRep* rep_;
  bool pooled_;
  BucketView at_;
  size_t pos_ = 0;
};

class PrefixBucketRep : public MemTableRep {
 public:
  PrefixBucketRep(const KeyComparator& cmp, rocksdb::Allocator* allocator,
                  size_t (*prefix_len)(const Slice&))
      : MemTableRep(allocator), cmp_(cmp), prefix_len_(prefix_len) {
    index_.reserve(1024);
  }

  void Insert(rocksdb::KeyHandle handle) override {
    const char* entry = static_cast<const char*>(handle);
    const std::string_view prefix = BucketOf(cmp_.decode_key(entry));
    std::lock_guard lock(mu_);
    auto [found, is_new] = index_.try_emplace(prefix);
    Bucket& b = found->second;
    if (is_new) {
      b.prefix = prefix;
      b.last = entry;
      b.run = std::make_shared<Run>(1, entry);
      order_.emplace(prefix, &b);
      bytes_.fetch_add(kBucketBytes, std::memory_order_relaxed);
    } else if (b.tail.empty() && cmp_(b.last, entry) < 0 && Unshared(b)) {
      b.run->push_back(entry);  // the usual case: a host's newest URL
      b.last = entry;
    } else {
      b.tail.push_back(entry);
    }
    bytes_.fetch_add(2 * sizeof(const char*), std::memory_order_relaxed);
  }

  bool Contains(const char* entry) const override {
    const Slice key = cmp_.decode_key(entry);
    BucketView v = Find(BucketOf(key));
    if (v.run == nullptr) return false;
    return std::binary_search(v.run->begin(), v.run->end(), entry,
                              [this](const char* a, const char* b) { return cmp_(a, b) < 0; });
  }

  // Counted as inserted (the vectors' doubling included), so it stays
  // constant once the memtable is immutable, as RocksDB requires.
  size_t ApproximateMemoryUsage() override { return bytes_.load(std::memory_order_relaxed); }

  Iterator* GetIterator(rocksdb::Arena* arena) override {
    if (arena == nullptr) return new BucketIterator(this, /*pooled=*/false);
    return new (TakeStorage()) BucketIterator(this, /*pooled=*/true);
  }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    if (arena != nullptr) return GetIterator(arena);
    // RocksDB's default Get, which never deletes what it gets here (see
    // hashed_vector_rep.cc): one iterator per thread, reused.
    thread_local BucketIterator it(nullptr, /*pooled=*/false);
    it.Reset(this);
    return &it;
  }

  std::string_view BucketOf(const Slice& internal_key) const {
    const Slice user(internal_key.data(), internal_key.size() - 8);
    const size_t n = prefix_len_(user);
    return {user.data(), n == 0 ? user.size() : n};
  }
  const KeyComparator& cmp() const { return cmp_; }

  BucketView Find(std::string_view prefix) const {
    std::lock_guard lock(mu_);
    auto it = index_.find(prefix);
    return it == index_.end() ? BucketView{} : ViewOf(it->second);
  }
  BucketView After(std::string_view prefix) const {
    std::lock_guard lock(mu_);
    auto it = order_.upper_bound(prefix);
    return it == order_.end() ? BucketView{} : ViewOf(*it->second);
  }
  BucketView Before(std::string_view prefix) const {
    std::lock_guard lock(mu_);
    auto it = order_.lower_bound(prefix);
    return it == order_.begin() ? BucketView{} : ViewOf(*std::prev(it)->second);
  }
  BucketView First() const {
    std::lock_guard lock(mu_);
    return order_.empty() ? BucketView{} : ViewOf(*order_.begin()->second);
  }
  BucketView Last() const {
    std::lock_guard lock(mu_);
    return order_.empty() ? BucketView{} : ViewOf(*order_.rbegin()->second);
  }

  // An arena-placed iterator's storage goes back to the rep when RocksDB
  // runs its destructor (RocksDB never frees it; the arena's class is not
  // public), so a memtable read by many iterators reuses a few blocks.
  void ReleaseStorage(void* p) const {
    std::lock_guard lock(storage_mu_);
    free_storage_.push_back(p);
  }

 private:
  static constexpr size_t kBucketBytes = 256;  // the bucket, its map nodes, its first run

  // An iterator may hold the bucket's run; one that nobody else holds can
  // grow in place. REQUIRES: mu_ (no new holder can appear meanwhile).
  static bool Unshared(const Bucket& b) {
    if (b.run.use_count() != 1) return false;
    // Pairs with the release in the last holder's reference drop, so its
    // reads of the run happen before this writer changes it.
    std::atomic_thread_fence(std::memory_order_acquire);
    return true;
  }

  // REQUIRES: mu_. Merges the tail into a new run (iterators keep the old).
  BucketView ViewOf(Bucket& b) const {
    if (!b.tail.empty()) {
      auto less = [this](const char* x, const char* y) { return cmp_(x, y) < 0; };
      std::sort(b.tail.begin(), b.tail.end(), less);
      auto merged = std::make_shared<Run>();
      merged->reserve(b.run->size() + b.tail.size());
      std::merge(b.run->begin(), b.run->end(), b.tail.begin(), b.tail.end(),
                 std::back_inserter(*merged), less);
      b.run = std::move(merged);
      b.last = b.run->back();
      b.tail.clear();
    }
    return {b.prefix, b.run};
  }

  void* TakeStorage() {
    std::lock_guard lock(storage_mu_);
    if (!free_storage_.empty()) {
      void* p = free_storage_.back();
      free_storage_.pop_back();
      return p;
    }
    storage_.push_back(std::make_unique<std::byte[]>(sizeof(BucketIterator)));
    return storage_.back().get();
  }

  const KeyComparator& cmp_;
  size_t (*const prefix_len_)(const Slice&);
  mutable std::mutex mu_;
  // Buckets change under mu_ even in const reads (a reader merges tails).
  // Their addresses are stable (map nodes).
  mutable std::unordered_map<std::string_view, Bucket> index_;
  std::map<std::string_view, Bucket*> order_;  // bytewise, like the keys
  std::atomic<size_t> bytes_{0};
  mutable std::mutex storage_mu_;
  std::vector<std::unique_ptr<std::byte[]>> storage_;
  mutable std::vector<void*> free_storage_;
};

BucketIterator::~BucketIterator() {
  at_ = {};
  if (pooled_) rep_->ReleaseStorage(this);
}

void BucketIterator::Next() {
  if (++pos_ == at_.run->size()) EnterFirst(rep_->After(at_.prefix));
}

void BucketIterator::Prev() {
  if (pos_ == 0) {
    EnterLast(rep_->Before(at_.prefix));
  } else {
    --pos_;
  }
}

// Buckets before the target's hold only smaller keys and buckets after it
// only larger ones (prefixes are self-delimiting), so a seek looks in the
// target's own bucket, then at the neighbouring one.
void BucketIterator::Seek(const Slice& internal_key, const char* /*memtable_key*/) {
  const std::string_view prefix = rep_->BucketOf(internal_key);
  at_ = rep_->Find(prefix);
  if (at_.run != nullptr) {
    const auto& cmp = rep_->cmp();
    auto it = std::partition_point(at_.run->begin(), at_.run->end(),
                                   [&](const char* e) { return cmp(e, internal_key) < 0; });
    pos_ = static_cast<size_t>(it - at_.run->begin());
    if (pos_ < at_.run->size()) return;
  }
  EnterFirst(rep_->After(prefix));
}

void BucketIterator::SeekForPrev(const Slice& internal_key, const char* /*memtable_key*/) {
  const std::string_view prefix = rep_->BucketOf(internal_key);
  at_ = rep_->Find(prefix);
  if (at_.run != nullptr) {
    const auto& cmp = rep_->cmp();
    auto it = std::partition_point(at_.run->begin(), at_.run->end(),
                                   [&](const char* e) { return cmp(e, internal_key) <= 0; });
    pos_ = static_cast<size_t>(it - at_.run->begin());
    if (pos_ > 0) {
      --pos_;
      return;
    }
  }
  EnterLast(rep_->Before(prefix));
}

void BucketIterator::SeekToFirst() { EnterFirst(rep_->First()); }
void BucketIterator::SeekToLast() { EnterLast(rep_->Last()); }

}  // namespace

rocksdb::MemTableRep* PrefixBucketRepFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& cmp, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* /*prefix*/, rocksdb::Logger* /*logger*/) {
  return new PrefixBucketRep(cmp, allocator, prefix_len_);
}

}  // namespace crawlfront
