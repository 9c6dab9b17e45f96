#include "crawlfront/frontier/hashed_vector_rep.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string_view>
#include <vector>

#include <rocksdb/slice.h>
#include <xxhash.h>

#include "memtable_arena.h"
#include "memtable_bucket_walk.h"
#include "memtable_view.h"

namespace crawlfront {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;

// Placed in the memtable's arena right before the entry it indexes, so an
// insert allocates once (the KeyHandle is the node, as in RocksDB's skip
// lists).
struct Node {
  std::atomic<Node*> next{nullptr};
  uint64_t hash = 0;
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
};

// The user key of an internal key (user key + 8-byte sequence and type).
Slice UserKeyOf(const Slice& internal_key) {
  return Slice(internal_key.data(), internal_key.size() - 8);
}

uint64_t HashOf(const Slice& user_key) {
  return XXH3_64bits(user_key.data(), user_key.size());
}

// A user key's first two bytes, zero-padded: bytewise order never puts a
// key of a larger prefix before one of a smaller (seen keys start with the
// big-endian partition id).
uint32_t PrefixOf(const Slice& user_key) {
  const auto* p = reinterpret_cast<const unsigned char*>(user_key.data());
  return (user_key.size() > 0 ? uint32_t{p[0]} << 8 : 0) | (user_key.size() > 1 ? p[1] : 0);
}

class HashedVectorRep;

// The iterator behind MemTableRep's default Get: Seek collects the entries
// of the target's user key from one hash chain (in internal-key order) and
// yields those at or after the target. RocksDB's default Get does not
// delete this iterator (its own reps override Get, which needs LookupKey, a
// class outside RocksDB's public headers), so one iterator per thread is
// reused; the ASan build runs the tests that reach it (seen_set_test).
class KeyIterator : public MemTableRep::Iterator {
 public:
  void Reset(const HashedVectorRep* rep) {
    rep_ = rep;
    matches_.clear();
    pos_ = 0;
  }
  bool Valid() const override { return pos_ < matches_.size(); }
  const char* key() const override { return matches_[pos_]; }
  void Next() override { ++pos_; }
  void Prev() override { pos_ = pos_ == 0 ? matches_.size() : pos_ - 1; }
  void Seek(const Slice& internal_key, const char* memtable_key) override;
  // Whole-table positioning is not what Get asks for: an exact-key iterator
  // has no first or last entry of its own.
  void SeekForPrev(const Slice&, const char*) override { pos_ = matches_.size(); }
  void SeekToFirst() override { pos_ = matches_.size(); }
  void SeekToLast() override { pos_ = matches_.size(); }

 private:
  const HashedVectorRep* rep_ = nullptr;
  std::vector<const char*> matches_;
  size_t pos_ = 0;
};

// The buckets of a mutable memtable with a bytewise comparator, for
// BucketWalker: one 2-byte key prefix's entries, sorted when the walker
// first enters them. A partition scan (a seen-set rebuild reads one
// partition) then sorts that partition and the next, where a whole-table
// sort of a full memtable took ~0.1-0.2 s per rebuild. Entries added after
// a prefix was sorted are not seen; RocksDB skips them anyway (newer than
// the reader's sequence).
struct PrefixLists {
  struct Bucket {
    int64_t prefix = -1;
    std::shared_ptr<const memtable_internal::SortedView> view;
    size_t size() const { return view == nullptr ? 0 : view->size(); }
    const char* entry(size_t i) const { return view->entry(i); }
  };
  Bucket Find(const Slice& internal_key, const Bucket& at) const {
    const uint32_t prefix = PrefixOf(UserKeyOf(internal_key));
    return at.view != nullptr && at.prefix == prefix ? at : Load(prefix);
  }
  Bucket After(const Bucket& b) const;
  Bucket Before(const Bucket& b) const;
  Bucket First() const { return After(Bucket{}); }
  Bucket Last() const { return Before(Bucket{int64_t{1} << 16, nullptr}); }
  size_t LowerBound(const Bucket& b, const Slice& internal_key) const {
    return b.view->LowerBound(internal_key);
  }
  size_t UpperBound(const Bucket& b, const Slice& internal_key) const {
    return b.view->UpperBound(internal_key);
  }
  // Bucket{} for -1.
  Bucket Load(int64_t prefix) const;

  const HashedVectorRep* rep;
};
using BucketIterator = memtable_internal::BucketWalker<PrefixLists>;

class HashedVectorRep : public MemTableRep, public memtable_internal::ViewSource {
 public:
  HashedVectorRep(const KeyComparator& cmp, rocksdb::Allocator* allocator, size_t buckets,
                  size_t reserve, bool prefix_sort)
      : MemTableRep(allocator),
        cmp_(cmp),
        prefix_sort_(prefix_sort),
        mask_(buckets == 0 ? 0 : buckets - 1),
        buckets_(buckets == 0 ? nullptr
                              : static_cast<std::atomic<Node*>*>(
                                    AllocHugeArray(buckets * sizeof(Node*)))) {
    entries_.reserve(reserve);  // no regrowth while filling
  }
  ~HashedVectorRep() override {
    if (indexed()) FreeHugeArray(buckets_, (mask_ + 1) * sizeof(Node*));
  }

  // Entries live in this rep's huge-page arena, not RocksDB's.
  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    if (!indexed()) {
      *buf = arena_.Allocate(len, 1);
      return *buf;
    }
    Node* node = new (arena_.Allocate(sizeof(Node) + len, alignof(Node))) Node();
    *buf = const_cast<char*>(node->entry());
    return node;
  }

  void Insert(rocksdb::KeyHandle handle) override {
    const char* entry = static_cast<const char*>(handle);
    if (indexed()) {
      auto* node = static_cast<Node*>(handle);
      entry = node->entry();
      node->hash = HashOf(UserKey(entry));
      std::atomic<Node*>& head = buckets_[node->hash & mask_];
      node->next.store(head.load(std::memory_order_relaxed), std::memory_order_relaxed);
      head.store(node, std::memory_order_release);  // readers see a complete node
    }
    std::lock_guard lock(entries_mu_);
    entries_.push_back(entry);
  }

  bool Contains(const char* entry) const override {
    if (!indexed()) {
      std::lock_guard lock(entries_mu_);
      return std::any_of(entries_.begin(), entries_.end(),
                         [&](const char* e) { return cmp_(e, entry) == 0; });
    }
    const Slice user_key = UserKey(entry);
    const uint64_t hash = HashOf(user_key);
    for (const Node* n = Chain(hash); n != nullptr;
         n = n->next.load(std::memory_order_acquire)) {
      if (n->hash == hash && cmp_(n->entry(), entry) == 0) return true;
    }
    return false;
  }

  // Appends to `out` the entries whose user key is `user_key`.
  void Collect(const Slice& user_key, std::vector<const char*>* out) const {
    const uint64_t hash = HashOf(user_key);
    for (const Node* n = Chain(hash); n != nullptr;
         n = n->next.load(std::memory_order_acquire)) {
      if (n->hash == hash && UserKey(n->entry()) == user_key) out->push_back(n->entry());
    }
  }
  const KeyComparator& cmp() const { return cmp_; }

  void MarkReadOnly() override {
    std::lock_guard lock(entries_mu_);
    immutable_ = true;
  }
  // Must not change once immutable (RocksDB's memtable list subtracts what
  // it added), so the sorted view, built then and freed with the memtable,
  // is not counted, nor are the prefix lists (about 8 bytes per entry, built
  // only when the mutable memtable is scanned, and an iterator opened then
  // may extend them later).
  size_t ApproximateMemoryUsage() override {
    return arena_.bytes() + entries_.capacity() * sizeof(const char*) +
           (indexed() ? (mask_ + 1) : 0) * sizeof(Node*);
  }

  // An immutable memtable sorts once for all its iterators (the flush's and
  // any reader's); a mutable one without prefix lists sorts a copy per
  // iterator.
  std::shared_ptr<const memtable_internal::SortedView> View() const override {
    std::vector<const char*> copy;
    bool immutable = false;
    {
      std::lock_guard lock(entries_mu_);
      immutable = immutable_;
      if (!immutable) copy = entries_;
    }
    if (!immutable) {
      return std::make_shared<const memtable_internal::SortedView>(copy, cmp_,
                                                                   prefix_sort_);
    }
    std::lock_guard lock(view_mu_);
    if (view_ == nullptr) {
      view_ = std::make_shared<const memtable_internal::SortedView>(entries_, cmp_,
                                                                    prefix_sort_);
    }
    return view_;
  }

  Iterator* GetIterator(rocksdb::Arena* arena) override {
    bool immutable;
    {
      std::lock_guard lock(entries_mu_);
      immutable = immutable_;
    }
    if (bucketed() && !immutable) {
      if (arena == nullptr) return new BucketIterator(PrefixLists{this});
      return new (IteratorStorage()) BucketIterator(PrefixLists{this});
    }
    if (arena == nullptr) return new memtable_internal::SortedIterator(this);
    return new (IteratorStorage()) memtable_internal::SortedIterator(this);
  }

  // For PrefixLists: a copy of one prefix's entries (unsorted), and the
  // nearest non-empty prefix after / before one (-1 if there is none).
  std::vector<const char*> BucketEntries(uint32_t bucket) const {
    std::lock_guard lock(lists_mu_);
    ListByPrefix();
    if (bucket >= buckets_by_prefix_.size()) return {};
    return buckets_by_prefix_[bucket];
  }
  int64_t NonEmptyBucketAfter(int64_t bucket) const {
    std::lock_guard lock(lists_mu_);
    ListByPrefix();
    for (size_t b = static_cast<size_t>(bucket + 1); b < buckets_by_prefix_.size(); ++b) {
      if (!buckets_by_prefix_[b].empty()) return static_cast<int64_t>(b);
    }
    return -1;
  }
  int64_t NonEmptyBucketBefore(int64_t bucket) const {
    std::lock_guard lock(lists_mu_);
    ListByPrefix();
    for (int64_t b = std::min<int64_t>(bucket, buckets_by_prefix_.size()) - 1; b >= 0; --b) {
      if (!buckets_by_prefix_[b].empty()) return b;
    }
    return -1;
  }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    if (arena != nullptr) return GetIterator(arena);  // unused: no prefix extractor
    // RocksDB's default Get, which never deletes what it gets here.
    if (indexed()) {
      thread_local KeyIterator it;
      it.Reset(this);
      return &it;
    }
    thread_local memtable_internal::SortedIterator sorted(nullptr);
    sorted.Reset(this);
    return &sorted;
  }

 private:
  bool indexed() const { return buckets_ != nullptr; }
  // Entries listed by key prefix, for BucketIterator: the seen-set's column
  // family, scanned one partition at a time while it is written. Lists are
  // brought up to date when an iterator asks, not per insert: a memtable
  // nobody scans costs nothing, and one that is scanned reads each entry's
  // prefix once (entries lie in the arena in insertion order).
  bool bucketed() const { return indexed() && prefix_sort_; }
  // Requires lists_mu_. The writer waits only for a copy of the new
  // entries' pointers.
  void ListByPrefix() const {
    std::vector<const char*> added;
    {
      std::lock_guard lock(entries_mu_);
      added.assign(entries_.begin() + static_cast<std::ptrdiff_t>(listed_), entries_.end());
    }
    listed_ += added.size();
    for (const char* entry : added) {
      const uint32_t prefix = PrefixOf(UserKey(entry));
      if (prefix >= buckets_by_prefix_.size()) buckets_by_prefix_.resize(prefix + 1);
      buckets_by_prefix_[prefix].push_back(entry);
    }
  }
  const Node* Chain(uint64_t hash) const {
    return buckets_[hash & mask_].load(std::memory_order_acquire);
  }
  // RocksDB places a memtable iterator in the reader's arena and later only
  // runs its destructor; the arena's class is not public, so the memory
  // comes from here and lives as long as the memtable (one small block per
  // flush or scan).
  void* IteratorStorage() {
    std::lock_guard lock(view_mu_);
    iterator_storage_.push_back(
        std::make_unique<std::byte[]>(kIteratorBytes));
    return iterator_storage_.back().get();
  }

  static constexpr size_t kIteratorBytes =
      std::max(sizeof(memtable_internal::SortedIterator), sizeof(BucketIterator));

  const KeyComparator& cmp_;
  const bool prefix_sort_;
  const size_t mask_;
  std::atomic<Node*>* buckets_;  // mmap: untouched pages cost nothing; null: no index
  HugePageArena arena_;
  mutable std::mutex entries_mu_;
  std::vector<const char*> entries_;  // insertion order
  mutable std::mutex lists_mu_;  // before entries_mu_ when both are held
  mutable std::vector<std::vector<const char*>> buckets_by_prefix_;
  mutable size_t listed_ = 0;  // entries_[0, listed_) are in buckets_by_prefix_
  bool immutable_ = false;
  mutable std::mutex view_mu_;
  mutable std::shared_ptr<const memtable_internal::SortedView> view_;
  std::vector<std::unique_ptr<std::byte[]>> iterator_storage_;
};

void KeyIterator::Seek(const Slice& internal_key, const char* /*memtable_key*/) {
  matches_.clear();
  rep_->Collect(UserKeyOf(internal_key), &matches_);
  const auto& cmp = rep_->cmp();
  std::sort(matches_.begin(), matches_.end(),
            [&](const char* a, const char* b) { return cmp(a, b) < 0; });
  pos_ = 0;
  while (pos_ < matches_.size() && cmp(matches_[pos_], internal_key) < 0) ++pos_;
}

PrefixLists::Bucket PrefixLists::After(const Bucket& b) const {
  return Load(rep->NonEmptyBucketAfter(b.prefix));
}

PrefixLists::Bucket PrefixLists::Before(const Bucket& b) const {
  return Load(rep->NonEmptyBucketBefore(b.prefix));
}

PrefixLists::Bucket PrefixLists::Load(int64_t prefix) const {
  if (prefix < 0) return {};
  return {prefix, std::make_shared<const memtable_internal::SortedView>(
                      rep->BucketEntries(static_cast<uint32_t>(prefix)), rep->cmp(),
                      /*prefix_sort=*/true)};
}

}  // namespace

HashedVectorRepFactory::HashedVectorRepFactory(size_t expected_entries,
                                               const rocksdb::Comparator* user_comparator,
                                               bool hash_index)
    : buckets_(hash_index ? std::bit_ceil(std::max<size_t>(expected_entries, 1024)) : 0),
      reserve_(std::max<size_t>(expected_entries, 1024)),
      prefix_sort_(user_comparator != nullptr &&
                   std::string_view(user_comparator->Name()) ==
                       rocksdb::BytewiseComparator()->Name()) {}

rocksdb::MemTableRep* HashedVectorRepFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& cmp, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* /*prefix*/, rocksdb::Logger* /*logger*/) {
  return new HashedVectorRep(cmp, allocator, buckets_, reserve_, prefix_sort_);
}

}  // namespace crawlfront
