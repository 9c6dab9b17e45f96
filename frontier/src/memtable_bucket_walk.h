// The iterator of a memtable whose entries are grouped into buckets by key
// prefix: the queue's PrefixBucketRep (a bucket per host) and the seen-set's
// HashedVectorRep while it is written (a bucket per partition).
#pragma once

#include <cstddef>
#include <utility>

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>

namespace crawlfront::memtable_internal {

// Entries are sorted within a bucket, and every key of a bucket sorts
// before every key of a later one (prefixes are self-delimiting), so Next
// and Prev cross into the neighbouring non-empty bucket and a seek looks in
// the target's own bucket, then at the neighbouring one. `Source` supplies
// the buckets:
//   Bucket                  copyable; size(), entry(i); knows its place even
//                           when empty; Bucket{} is "none"
//   Find(internal_key, at)  the key's bucket (`at` if it is that one)
//   After(b), Before(b)     the nearest non-empty bucket, or Bucket{}
//   First(), Last()
//   LowerBound(b, internal_key), UpperBound(b, internal_key)
//                           first position whose entry is >= / > the key
template <class Source>
class BucketWalker : public rocksdb::MemTableRep::Iterator {
 public:
  using Bucket = typename Source::Bucket;
  explicit BucketWalker(Source source) : source_(std::move(source)) {}
  void Reset(Source source) {
    source_ = std::move(source);
    at_ = {};
    pos_ = 0;
  }

  bool Valid() const override { return pos_ < at_.size(); }
  const char* key() const override { return at_.entry(pos_); }
  void Next() override {
    if (++pos_ == at_.size()) EnterFirst(source_.After(at_));
  }
  // Before the first entry the iterator becomes invalid, as RocksDB's own.
  void Prev() override {
    if (pos_ > 0) {
      --pos_;
      return;
    }
    EnterLast(source_.Before(at_));
  }
  void Seek(const rocksdb::Slice& internal_key, const char* /*memtable_key*/) override {
    at_ = source_.Find(internal_key, at_);
    pos_ = source_.LowerBound(at_, internal_key);
    if (pos_ == at_.size()) EnterFirst(source_.After(at_));
  }
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* /*memtable_key*/) override {
    at_ = source_.Find(internal_key, at_);
    pos_ = source_.UpperBound(at_, internal_key);
    if (pos_ > 0) {
      --pos_;
      return;
    }
    EnterLast(source_.Before(at_));
  }
  void SeekToFirst() override { EnterFirst(source_.First()); }
  void SeekToLast() override { EnterLast(source_.Last()); }

 private:
  void EnterFirst(Bucket b) {
    at_ = std::move(b);
    pos_ = 0;
  }
  void EnterLast(Bucket b) {
    at_ = std::move(b);
    pos_ = at_.size() == 0 ? 0 : at_.size() - 1;
  }

  Source source_;
  Bucket at_;
  size_t pos_ = 0;
};

}  // namespace crawlfront::memtable_internal
