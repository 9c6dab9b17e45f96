#include "crawlfront/frontier/head_buffer.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>

namespace crawlfront {

namespace {
uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

// Writes the record of `head` (kFixed + value bytes) at `p`.
void HeadBuffer::WriteRecord(const QueueHead& head, char* p) {
  const uint32_t len = static_cast<uint32_t>(head.value.size());
  std::memcpy(p, &head.rank, 8);
  std::memcpy(p + 8, &head.seq, 8);
  std::memcpy(p + 16, &len, 4);
  if (len > 0) std::memcpy(p + kFixed, head.value.data(), len);
}

void HeadBuffer::AppendRecord(const QueueHead& head, std::vector<char>* out) {
  const size_t at = out->size();
  out->resize(at + kFixed + head.value.size());
  WriteRecord(head, out->data() + at);
}

QueueHead HeadBuffer::At(size_t offset) const {
  const char* p = buf_.data() + offset;
  return {Load64(p), Load64(p + 8), std::string_view(p + kFixed, Load32(p + 16))};
}

size_t HeadBuffer::RecordSize(size_t offset) const {
  return kFixed + Load32(buf_.data() + offset + 16);
}

size_t HeadBuffer::GrownCapacity(size_t need, Growth growth) const {
  if (growth == Growth::kDouble) need = std::max(need, 2 * buf_.capacity());
  return SizeClass(need);
}

void HeadBuffer::Reserve(size_t n, Growth growth) {
  if (begin_ > 0 && 2 * size_t{begin_} >= buf_.size()) {
    buf_.erase(buf_.begin(), buf_.begin() + begin_);
    last_ -= begin_;
    begin_ = 0;
  }
  // Always to a size class: the same memory, which heap_bytes() counts.
  const size_t need = buf_.size() + n;
  if (need > buf_.capacity()) {
    buf_.reserve(GrownCapacity(need, growth));
    doubled_ = growth == Growth::kDouble;
  }
}

void HeadBuffer::Insert(const QueueHead& head, Growth growth) {
  const size_t size = kFixed + head.value.size();
  Reserve(size, growth);
  // Usually at the end (no larger head held): no scan.
  size_t pos = buf_.size();
  if (count_ > 0 && head < At(last_)) {
    pos = begin_;
    while (!(head < At(pos))) pos += RecordSize(pos);
  }
  buf_.insert(buf_.begin() + static_cast<std::ptrdiff_t>(pos), size, '\0');
  WriteRecord(head, buf_.data() + pos);
  if (count_ == 0 || pos > last_) {
    last_ = static_cast<uint32_t>(pos);
  } else {
    last_ += static_cast<uint32_t>(size);
  }
  ++count_;
}

void HeadBuffer::PopFront() {
  if (count_ == 1) return Clear();
  begin_ += static_cast<uint32_t>(RecordSize(begin_));
  --count_;
  // A draining buffer gives back what it popped as it goes, as a deque of
  // heads did: the budget counts held bytes, so keeping the whole buffer
  // until it empties would let refills read half as many heads.
  // A doubled buffer keeps its room for adds (a host taking URLs and
  // leasing them in turn would otherwise reallocate on every pop and
  // insert) until it has drained to 3/8 of it.
  const size_t live = buf_.size() - begin_;
  const size_t unused = buf_.capacity() - live;
  const bool shrink = doubled_ ? 8 * live < 3 * buf_.capacity() : 4 * unused > buf_.capacity();
  if (unused >= kMinShrink && shrink) {
    std::vector<char> kept;
    kept.reserve(live);
    kept.assign(buf_.begin() + begin_, buf_.end());
    buf_.swap(kept);
    last_ -= begin_;
    begin_ = 0;
    doubled_ = false;
  }
}

void HeadBuffer::PopBack() {
  if (count_ == 1) return Clear();
  size_t prev = begin_;
  while (prev + RecordSize(prev) < last_) prev += RecordSize(prev);
  buf_.resize(last_);
  last_ = static_cast<uint32_t>(prev);
  --count_;
}

void HeadBuffer::Clear() {
  std::vector<char>().swap(buf_);
  begin_ = last_ = count_ = 0;
  doubled_ = false;
}

void HeadBuffer::Assign(const std::vector<char>& records, size_t count) {
  Clear();
  if (count == 0) return;
  buf_.reserve(records.size());
  buf_.assign(records.begin(), records.end());
  count_ = static_cast<uint32_t>(count);
  size_t pos = 0;
  for (size_t i = 1; i < count; ++i) pos += RecordSize(pos);
  last_ = static_cast<uint32_t>(pos);
}

// jemalloc's size classes (the daemons' allocator): multiples of 16 up to
// 128, then four classes per doubling.
size_t HeadBuffer::SizeClass(size_t n) {
  if (n == 0) return 0;
  if (n <= 128) return (n + 15) & ~size_t{15};
  const size_t step = std::bit_floor(n - 1) / 4;
  return (n + step - 1) / step * step;
}

uint64_t HeadBuffer::heap_bytes() const { return SizeClass(buf_.capacity()); }

uint64_t HeadBuffer::heap_bytes_with(size_t value_size, Growth growth) const {
  const size_t need = buf_.size() + kFixed + value_size;
  return need > buf_.capacity() ? GrownCapacity(need, growth) : heap_bytes();
}

}  // namespace crawlfront
