#include "crawlfront/frontier/hashed_vector_rep.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include <rocksdb/slice.h>
#include <xxhash.h>

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

class HashedVectorRep : public MemTableRep {
 public:
  HashedVectorRep(const KeyComparator& cmp, rocksdb::Allocator* allocator,
                  std::unique_ptr<MemTableRep> vec, size_t buckets)
      : MemTableRep(allocator),
        cmp_(cmp),
        vec_(std::move(vec)),
        mask_(buckets - 1),
        buckets_(static_cast<std::atomic<Node*>*>(std::calloc(buckets, sizeof(Node*)))) {
    if (buckets_ == nullptr) throw std::bad_alloc();
  }
  ~HashedVectorRep() override { std::free(buckets_); }

  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    char* raw = nullptr;
    MemTableRep::Allocate(len + sizeof(Node) + alignof(Node) - 1, &raw);
    auto at =
        (reinterpret_cast<uintptr_t>(raw) + alignof(Node) - 1) & ~(alignof(Node) - 1);
    Node* node = new (reinterpret_cast<void*>(at)) Node();
    *buf = const_cast<char*>(node->entry());
    return node;
  }

  void Insert(rocksdb::KeyHandle handle) override {
    auto* node = static_cast<Node*>(handle);
    node->hash = HashOf(UserKey(node->entry()));
    vec_->Insert(const_cast<char*>(node->entry()));
    std::atomic<Node*>& head = buckets_[node->hash & mask_];
    node->next.store(head.load(std::memory_order_relaxed), std::memory_order_relaxed);
    head.store(node, std::memory_order_release);  // readers see a complete node
  }

  bool Contains(const char* entry) const override {
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

  void MarkReadOnly() override { vec_->MarkReadOnly(); }
  void MarkFlushed() override { vec_->MarkFlushed(); }
  size_t ApproximateMemoryUsage() override {
    return vec_->ApproximateMemoryUsage() + (mask_ + 1) * sizeof(Node*);
  }
  Iterator* GetIterator(rocksdb::Arena* arena) override {
    return vec_->GetIterator(arena);
  }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    if (arena != nullptr) return vec_->GetIterator(arena);  // unused: no prefix extractor
    thread_local KeyIterator it;
    it.Reset(this);
    return &it;
  }

 private:
  const Node* Chain(uint64_t hash) const {
    return buckets_[hash & mask_].load(std::memory_order_acquire);
  }

  const KeyComparator& cmp_;
  std::unique_ptr<MemTableRep> vec_;  // RocksDB's VectorRep: order at flush
  const size_t mask_;
  std::atomic<Node*>* buckets_;  // calloc: untouched pages cost nothing
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

}  // namespace

HashedVectorRepFactory::HashedVectorRepFactory(size_t buckets)
    : buckets_(std::bit_ceil(std::max<size_t>(buckets, 1024))) {}

rocksdb::MemTableRep* HashedVectorRepFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& cmp, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* prefix, rocksdb::Logger* logger) {
  rocksdb::VectorRepFactory vector(buckets_);  // reserve: no regrowth while filling
  std::unique_ptr<MemTableRep> vec(
      vector.CreateMemTableRep(cmp, allocator, prefix, logger));
  return new HashedVectorRep(cmp, allocator, std::move(vec), buckets_);
}

}  // namespace crawlfront
