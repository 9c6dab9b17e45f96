#include "memtable_view.h"

#include <algorithm>
#include <cstring>

namespace crawlfront::memtable_internal {
namespace {

uint64_t LoadBe64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

SortedView::SortedView(std::span<const char* const> entries, const KeyComparator& cmp,
                       bool prefix_sort)
    : cmp_(cmp), prefix_sort_(prefix_sort) {
  keys_.reserve(entries.size());
  for (const char* e : entries) keys_.push_back(KeyOf(cmp_.decode_key(e), e));
  std::sort(keys_.begin(), keys_.end(), [this](const SortKey& a, const SortKey& b) {
    if (a.hi != b.hi) return a.hi < b.hi;
    if (a.lo != b.lo) return a.lo < b.lo;
    return cmp_(a.entry, b.entry) < 0;
  });
}

SortKey SortedView::KeyOf(const rocksdb::Slice& internal_key, const char* entry) const {
  SortKey k;
  k.entry = entry;
  if (!prefix_sort_ || internal_key.size() < 8) return k;
  unsigned char buf[16] = {};
  std::memcpy(buf, internal_key.data(), std::min<size_t>(internal_key.size() - 8, 16));
  k.hi = LoadBe64(buf);
  k.lo = LoadBe64(buf + 8);
  return k;
}

// <0, 0, >0 as the entry of `a` sorts before, with, after the internal key
// whose prefix is `t`.
int SortedView::CompareTo(const SortKey& a, const SortKey& t,
                          const rocksdb::Slice& internal_key) const {
  if (a.hi != t.hi) return a.hi < t.hi ? -1 : 1;
  if (a.lo != t.lo) return a.lo < t.lo ? -1 : 1;
  return cmp_(a.entry, internal_key);
}

size_t SortedView::LowerBound(const rocksdb::Slice& internal_key) const {
  const SortKey t = KeyOf(internal_key, nullptr);
  auto it = std::partition_point(keys_.begin(), keys_.end(), [&](const SortKey& a) {
    return CompareTo(a, t, internal_key) < 0;
  });
  return static_cast<size_t>(it - keys_.begin());
}

size_t SortedView::UpperBound(const rocksdb::Slice& internal_key) const {
  const SortKey t = KeyOf(internal_key, nullptr);
  auto it = std::partition_point(keys_.begin(), keys_.end(), [&](const SortKey& a) {
    return CompareTo(a, t, internal_key) <= 0;
  });
  return static_cast<size_t>(it - keys_.begin());
}

const SortedView& SortedIterator::Sorted() {
  if (view_ == nullptr) view_ = source_->View();
  return *view_;
}

void SortedIterator::Seek(const rocksdb::Slice& internal_key,
                          const char* /*memtable_key*/) {
  pos_ = Sorted().LowerBound(internal_key);
}

void SortedIterator::SeekForPrev(const rocksdb::Slice& internal_key,
                                 const char* /*memtable_key*/) {
  const size_t after = Sorted().UpperBound(internal_key);
  pos_ = after == 0 ? view_->size() : after - 1;
}

void SortedIterator::SeekToFirst() {
  Sorted();
  pos_ = 0;
}

void SortedIterator::SeekToLast() {
  const size_t n = Sorted().size();
  pos_ = n == 0 ? 0 : n - 1;
}

}  // namespace crawlfront::memtable_internal
