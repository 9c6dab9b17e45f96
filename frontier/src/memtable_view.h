// The sorted side of HashedVectorRep (hashed_vector_rep.h): its entries in
// comparator order, and the iterator RocksDB's flushes and scans walk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <rocksdb/memtablerep.h>

namespace crawlfront::memtable_internal {

// An entry with the first 16 bytes of its user key, big-endian and
// zero-padded. Under a bytewise comparator (hi, lo) order never contradicts
// key order, so a sort follows the entry pointer only on ties.
struct SortKey {
  uint64_t hi = 0;
  uint64_t lo = 0;
  const char* entry = nullptr;
};

class SortedView {
 public:
  using KeyComparator = rocksdb::MemTableRep::KeyComparator;
  // Sorts memtable entries (length-prefixed internal keys, as RocksDB
  // hands them to a rep). Without `prefix_sort` every comparison is cmp's.
  SortedView(std::span<const char* const> entries, const KeyComparator& cmp,
             bool prefix_sort);

  size_t size() const { return keys_.size(); }
  const char* entry(size_t i) const { return keys_[i].entry; }
  // First position whose entry is >= / > the internal key.
  size_t LowerBound(const rocksdb::Slice& internal_key) const;
  size_t UpperBound(const rocksdb::Slice& internal_key) const;

 private:
  SortKey KeyOf(const rocksdb::Slice& internal_key, const char* entry) const;
  int CompareTo(const SortKey& a, const SortKey& t,
                const rocksdb::Slice& internal_key) const;

  const KeyComparator& cmp_;
  const bool prefix_sort_;
  std::vector<SortKey> keys_;
};

// What an iterator sorts on demand: the rep's entries as of that moment.
class ViewSource {
 public:
  virtual ~ViewSource() = default;
  virtual std::shared_ptr<const SortedView> View() const = 0;
};

// Iterates a view taken at the first positioning call (RocksDB creates
// memtable iterators it may never position).
class SortedIterator : public rocksdb::MemTableRep::Iterator {
 public:
  explicit SortedIterator(const ViewSource* source) : source_(source) {}
  void Reset(const ViewSource* source) {
    source_ = source;
    view_.reset();
    pos_ = 0;
  }

  bool Valid() const override { return view_ != nullptr && pos_ < view_->size(); }
  const char* key() const override { return view_->entry(pos_); }
  // Flushes walk the view in order while its entries lie in arena order:
  // touching one a few steps ahead overlaps their cache misses.
  void Next() override {
    ++pos_;
    if (pos_ + kAhead < view_->size()) __builtin_prefetch(view_->entry(pos_ + kAhead));
  }
  // Before the first entry the iterator becomes invalid, as RocksDB's own.
  void Prev() override { pos_ = pos_ == 0 ? view_->size() : pos_ - 1; }
  void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekToFirst() override;
  void SeekToLast() override;

 private:
  static constexpr size_t kAhead = 8;

  const SortedView& Sorted();

  const ViewSource* source_;
  std::shared_ptr<const SortedView> view_;
  size_t pos_ = 0;
};

}  // namespace crawlfront::memtable_internal
