#include "crawlfront/frontier/prefix_bucket_rep.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <xxhash.h>

#include "memtable_arena.h"
#include "memtable_bucket_walk.h"

namespace crawlfront {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;

// A bucket's sorted entries: a fixed-capacity array the writer appends to in
// place. A reader is handed the prefix [0, size) as of its look, which never
// changes; a full run is copied into a larger one, and readers keep the old.
// (A shared vector would need the writer to know that no reader holds it.)
struct Run {
  explicit Run(size_t n) : capacity(n), data(new const char*[n]) {}
  const size_t capacity;
  const std::unique_ptr<const char*[]> data;
};

// The append check and the index compare against copies held here rather
// than against entries in the arena: an insert then touches its bucket
// only, not the bucket's first and last entries (cache misses that were
// most of an insert's cost).
constexpr size_t kInlineBytes = 38;

// A user key's bytes after the bucket prefix, and its sequence and type.
struct Tail {
  std::string_view suffix;
  uint64_t packed = 0;  // RocksDB's (sequence << 8 | type): larger sorts first
};

// RocksDB's internal key ends in a little-endian fixed64.
Tail TailOf(const Slice& internal_key, std::string_view prefix) {
  const size_t user_size = internal_key.size() - 8;
  const auto* p = reinterpret_cast<const unsigned char*>(internal_key.data() + user_size);
  uint64_t packed = 0;
  for (int i = 7; i >= 0; --i) packed = packed << 8 | p[i];
  return {{prefix.data() + prefix.size(), user_size - prefix.size()}, packed};
}

// What an append reads and writes comes first and fits one 128-byte pair of
// cache lines (the hardware fetches both lines of a pair).
struct alignas(128) Bucket {
  uint64_t hash = 0;
  const char** data = nullptr;  // run->data, run->capacity: saves a pointer chase
  size_t capacity = 0;
  size_t size = 0;              // the run holds [0, size), sorted
  uint64_t last_packed = 0;
  const char* last = nullptr;  // the run's last entry
  // Copies: the prefix (if it fits), the last entry's suffix (if it fits).
  uint8_t prefix_len = 0;   // 0: too long, compare through `prefix`
  uint8_t last_len = 0xff;  // 0xff: too long, compare through `last`
  char prefix_copy[kInlineBytes];
  char last_copy[kInlineBytes];
  // Cold.
  std::string_view prefix;    // points into its first entry, in the arena
  std::shared_ptr<Run> run;   // shared with iterators
  std::vector<const char*> tail;  // unsorted, since the last merge

  void SetRun(std::shared_ptr<Run> r) {
    data = r->data.get();
    capacity = r->capacity;
    run = std::move(r);
  }
  bool Is(std::string_view p) const {
    if (prefix_len == 0) return prefix == p;
    return p.size() == prefix_len && std::memcmp(p.data(), prefix_copy, prefix_len) == 0;
  }
  void SetLast(const char* entry, const Tail& t) {
    last = entry;
    last_packed = t.packed;
    last_len = t.suffix.size() < kInlineBytes ? static_cast<uint8_t>(t.suffix.size()) : 0xff;
    if (last_len != 0xff) std::memcpy(last_copy, t.suffix.data(), last_len);
  }
  // <0 when the last entry sorts before `t`; nullopt when a copy is missing.
  std::optional<int> CompareLast(const Tail& t) const {
    if (last_len == 0xff || t.suffix.size() >= kInlineBytes) return std::nullopt;
    int c = std::string_view(last_copy, last_len).compare(t.suffix);
    if (c != 0) return c;
    return last_packed > t.packed ? -1 : last_packed < t.packed ? 1 : 0;
  }
};

// Merges a sorted tail into a sorted run. A few entries into a long run
// (a host's recent deletes and moved entries) are placed by binary search,
// so only about t·log n entries are compared (each comparison reads an
// entry in the arena, likely a cache miss) instead of the whole run.
template <typename Less>
void MergeTail(const char* const* run, size_t n, std::span<const char* const> tail, Less less,
               const char** out) {
  if (tail.size() * static_cast<size_t>(std::bit_width(n)) >= n) {
    std::merge(run, run + n, tail.begin(), tail.end(), out, less);
    return;
  }
  // Equal entries keep std::merge's order: the run's first.
  size_t from = 0;
  for (const char* e : tail) {
    const size_t at = static_cast<size_t>(
        std::partition_point(run + from, run + n, [&](const char* x) { return !less(e, x); }) -
        run);
    out = std::copy(run + from, run + at, out);
    *out++ = e;
    from = at;
  }
  std::copy(run + from, run + n, out);
}

class PrefixBucketRep;

// The rep's buckets for BucketWalker: one host's entries each.
struct HostBuckets {
  struct Bucket {
    std::string_view prefix;  // also of a bucket the rep does not have
    std::shared_ptr<const Run> run;  // keeps `entries` alive
    std::span<const char* const> entries;
    size_t size() const { return entries.size(); }
    const char* entry(size_t i) const { return entries[i]; }
  };
  Bucket Find(const Slice& internal_key, const Bucket& at) const;
  Bucket After(const Bucket& b) const;
  Bucket Before(const Bucket& b) const;
  Bucket First() const;
  Bucket Last() const;
  size_t LowerBound(const Bucket& b, const Slice& internal_key) const;
  size_t UpperBound(const Bucket& b, const Slice& internal_key) const;

  const PrefixBucketRep* rep;
};
using BucketIterator = memtable_internal::BucketWalker<HostBuckets>;
using BucketView = HostBuckets::Bucket;

class PrefixBucketRep : public MemTableRep {
 public:
  PrefixBucketRep(const KeyComparator& cmp, rocksdb::Allocator* allocator,
                  size_t (*prefix_len)(const Slice&), std::shared_ptr<MemtableFill> fill)
      : MemTableRep(allocator),
        cmp_(cmp),
        prefix_len_(prefix_len),
        fill_(std::move(fill)),
        slots_(1024) {
    if (fill_) {
      fill_->entry_bytes.store(0, std::memory_order_relaxed);
      fill_->generation.fetch_add(1, std::memory_order_release);
    }
  }

  // Entries live in this rep's huge-page arena, not RocksDB's.
  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    *buf = arena_.Allocate(len, 1);
    return *buf;
  }

  void Insert(rocksdb::KeyHandle handle) override {
    const char* entry = static_cast<const char*>(handle);
    const Slice key = cmp_.decode_key(entry);
    const std::string_view prefix = BucketOf(key);
    const Tail t = TailOf(key, prefix);
    const uint64_t hash = XXH3_64bits(prefix.data(), prefix.size());
    std::lock_guard lock(mu_);
    Bucket* b = Lookup(prefix, hash);
    if (b == nullptr) {
      b = &AddBucket(prefix, hash);
      b->SetRun(std::make_shared<Run>(4));
      b->data[b->size++] = entry;
      b->SetLast(entry, t);
    } else if (b->tail.empty() && AfterLast(*b, entry, t)) {
      // The usual case: a host's newest URL.
      if (b->size == b->capacity) b->SetRun(CopyRun(*b, 2 * b->size));
      b->data[b->size++] = entry;
      b->SetLast(entry, t);
    } else {
      b->tail.push_back(entry);
    }
    bytes_.fetch_add(2 * sizeof(const char*), std::memory_order_relaxed);
    entry_refs_ += 2 * sizeof(const char*);
    // Only the newest memtable is written to: this is its fill.
    if (fill_) fill_->entry_bytes.store(arena_.bytes() + entry_refs_, std::memory_order_relaxed);
  }

  bool Contains(const char* entry) const override {
    const Slice key = cmp_.decode_key(entry);
    BucketView v = Find(BucketOf(key));
    return std::binary_search(v.entries.begin(), v.entries.end(), entry,
                              [this](const char* a, const char* b) { return cmp_(a, b) < 0; });
  }

  // Counted as inserted (the vectors' doubling included), so it stays
  // constant once the memtable is immutable, as RocksDB requires.
  size_t ApproximateMemoryUsage() override {
    return arena_.bytes() + bytes_.load(std::memory_order_relaxed);
  }

  Iterator* GetIterator(rocksdb::Arena* arena) override {
    if (arena == nullptr) return new BucketIterator(HostBuckets{this});
    return new (IteratorStorage()) BucketIterator(HostBuckets{this});
  }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    if (arena != nullptr) return GetIterator(arena);
    // RocksDB's default Get, which never deletes what it gets here (see
    // hashed_vector_rep.cc): one iterator per thread, reused.
    thread_local BucketIterator it(HostBuckets{nullptr});
    it.Reset(HostBuckets{this});
    return &it;
  }

  std::string_view BucketOf(const Slice& internal_key) const {
    const Slice user(internal_key.data(), internal_key.size() - 8);
    const size_t n = prefix_len_(user);
    return {user.data(), n == 0 ? user.size() : n};
  }
  const KeyComparator& cmp() const { return cmp_; }

  // The bucket of `prefix`, empty but placed if the rep has none.
  BucketView Find(std::string_view prefix) const {
    const uint64_t hash = XXH3_64bits(prefix.data(), prefix.size());
    std::lock_guard lock(mu_);
    Bucket* b = Lookup(prefix, hash);
    return b == nullptr ? BucketView{prefix, nullptr, {}} : ViewOf(*b);
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

 private:
  // The bucket, its index slots and map node, its first run.
  static constexpr size_t kBucketBytes = 2 * sizeof(Bucket);

  bool AfterLast(const Bucket& b, const char* entry, const Tail& t) const {
    std::optional<int> c = b.CompareLast(t);
    return c.has_value() ? *c < 0 : cmp_(b.last, entry) < 0;
  }

  // Open addressing, linear probing, at most half full. REQUIRES: mu_.
  Bucket* Lookup(std::string_view prefix, uint64_t hash) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.bucket == nullptr) return nullptr;
      if (s.hash == hash && s.bucket->Is(prefix)) return s.bucket;
    }
  }
  Bucket& AddBucket(std::string_view prefix, uint64_t hash) {
    if (2 * (buckets_.size() + 1) > slots_.size()) Grow();
    Bucket& b = buckets_.emplace_back();
    b.prefix = prefix;
    b.hash = hash;
    if (prefix.size() < kInlineBytes) {
      b.prefix_len = static_cast<uint8_t>(prefix.size());
      std::memcpy(b.prefix_copy, prefix.data(), prefix.size());
    }
    Place(&b);
    order_.emplace(prefix, &b);
    bytes_.fetch_add(kBucketBytes, std::memory_order_relaxed);
    return b;
  }
  void Place(Bucket* b) {
    const size_t mask = slots_.size() - 1;
    size_t i = b->hash & mask;
    while (slots_[i].bucket != nullptr) i = (i + 1) & mask;
    slots_[i] = {b->hash, b};
  }
  void Grow() {
    slots_.assign(slots_.size() * 2, Slot{});
    for (Bucket& b : buckets_) Place(&b);
  }

  static std::shared_ptr<Run> CopyRun(const Bucket& b, size_t capacity) {
    auto r = std::make_shared<Run>(capacity);
    std::copy_n(b.data, b.size, r->data.get());
    return r;
  }

  // REQUIRES: mu_. Merges the tail into a new run (iterators keep the old).
  BucketView ViewOf(Bucket& b) const {
    if (!b.tail.empty()) {
      auto less = [this](const char* x, const char* y) { return cmp_(x, y) < 0; };
      std::sort(b.tail.begin(), b.tail.end(), less);
      const size_t n = b.size + b.tail.size();
      auto merged = std::make_shared<Run>(std::bit_ceil(n + 1));  // room to append
      MergeTail(b.data, b.size, b.tail, less, merged->data.get());
      b.SetRun(std::move(merged));
      b.size = n;
      const char* last = b.data[n - 1];
      const Slice key = cmp_.decode_key(last);
      b.SetLast(last, TailOf(key, BucketOf(key)));
      b.tail.clear();
    }
    return {b.prefix, b.run, {b.data, b.size}};
  }

  // RocksDB places a memtable iterator in the reader's arena and later only
  // runs its destructor; the arena's class is not public, so the memory
  // comes from here and lives as long as the memtable (as in
  // HashedVectorRep). Not reused: a destructor cannot hand its block back
  // safely, since the base class's destructor still writes to the object
  // after ours returns (reusing blocks from ours crashed a racing reader).
  void* IteratorStorage() {
    std::lock_guard lock(storage_mu_);
    storage_.push_back(std::make_unique<std::byte[]>(sizeof(BucketIterator)));
    return storage_.back().get();
  }

  const KeyComparator& cmp_;
  size_t (*const prefix_len_)(const Slice&);
  const std::shared_ptr<MemtableFill> fill_;
  size_t entry_refs_ = 0;  // bytes_ without the buckets; the writer's only
  mutable std::mutex mu_;
  struct Slot {
    uint64_t hash = 0;
    Bucket* bucket = nullptr;
  };
  // Buckets change under mu_ even in const reads (a reader merges tails).
  mutable std::deque<Bucket> buckets_;  // stable addresses
  std::vector<Slot> slots_;
  std::map<std::string_view, Bucket*> order_;  // bytewise, like the keys
  std::atomic<size_t> bytes_{0};
  HugePageArena arena_;
  mutable std::mutex storage_mu_;
  std::vector<std::unique_ptr<std::byte[]>> storage_;
};

HostBuckets::Bucket HostBuckets::Find(const Slice& internal_key, const Bucket&) const {
  return rep->Find(rep->BucketOf(internal_key));
}
HostBuckets::Bucket HostBuckets::After(const Bucket& b) const { return rep->After(b.prefix); }
HostBuckets::Bucket HostBuckets::Before(const Bucket& b) const { return rep->Before(b.prefix); }
HostBuckets::Bucket HostBuckets::First() const { return rep->First(); }
HostBuckets::Bucket HostBuckets::Last() const { return rep->Last(); }

size_t HostBuckets::LowerBound(const Bucket& b, const Slice& internal_key) const {
  const auto& cmp = rep->cmp();
  auto it = std::partition_point(b.entries.begin(), b.entries.end(),
                                 [&](const char* e) { return cmp(e, internal_key) < 0; });
  return static_cast<size_t>(it - b.entries.begin());
}

size_t HostBuckets::UpperBound(const Bucket& b, const Slice& internal_key) const {
  const auto& cmp = rep->cmp();
  auto it = std::partition_point(b.entries.begin(), b.entries.end(),
                                 [&](const char* e) { return cmp(e, internal_key) <= 0; });
  return static_cast<size_t>(it - b.entries.begin());
}

}  // namespace

rocksdb::MemTableRep* PrefixBucketRepFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& cmp, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* /*prefix*/, rocksdb::Logger* /*logger*/) {
  return new PrefixBucketRep(cmp, allocator, prefix_len_, fill_);
}

}  // namespace crawlfront
