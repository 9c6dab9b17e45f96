#pragma once
// The queue heads one host keeps in RAM, packed in one allocation.
//
// A std::deque of heads each owning a std::string cost 144 bytes per head
// with a 48-character URL (struct and string malloc), plus the deque's
// blocks; the budget crawl.queue_heads_bytes then let a refill read few
// heads per RocksDB seek. Packed, a head costs its value plus 20 bytes
// (112 for the same URL, allocator rounding included).

#include <cstdint>
#include <string_view>
#include <vector>

namespace crawlfront {

// One queue head: where its entry sorts in the host's ready queue (the
// order of its kQueue key after the host prefix) and the entry's encoded
// value. A view: valid until its buffer changes.
struct QueueHead {
  uint64_t rank = 0;  // (INT32_MAX - priority) << 32 | depth
  uint64_t seq = 0;
  std::string_view value;  // EncodeItem
  bool operator<(const QueueHead& o) const {
    return rank != o.rank ? rank < o.rank : seq < o.seq;
  }
};

// Heads in (rank, seq) order: records rank (8) | seq (8) | length (4) |
// value. Popping the front moves an offset, and reallocates once a quarter
// of the buffer is unused (a doubled one: once 3/8 of it is live); inserts
// compact before they grow it.
class HeadBuffer {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  QueueHead front() const { return At(begin_); }  // REQUIRES: !empty()
  QueueHead back() const { return At(last_); }    // REQUIRES: !empty()
  // Where front() and back() live, to prefetch them.
  const char* front_address() const { return buf_.data() + begin_; }
  const char* back_address() const { return buf_.data() + last_; }
  // How a full buffer grows: to the allocator's next size class (little
  // slack, but a buffer taking hundreds of heads one by one is copied
  // dozens of times), or to twice its size (copied a few times).
  enum class Growth { kSizeClass, kDouble };
  // Inserts after the heads that do not sort after `head`.
  void Insert(const QueueHead& head, Growth growth = Growth::kSizeClass);
  void PopFront();
  void PopBack();
  // Drops every head and releases the memory.
  void Clear();
  // Replaces the heads with `records` (built by AppendRecord, in order),
  // in an allocation of exactly their size.
  void Assign(const std::vector<char>& records, size_t count);
  // Heap bytes held, as the allocator rounds them.
  uint64_t heap_bytes() const;
  // What heap_bytes() would be after inserting a head whose value is
  // `value_size` bytes long.
  uint64_t heap_bytes_with(size_t value_size, Growth growth = Growth::kSizeClass) const;

  static void AppendRecord(const QueueHead& head, std::vector<char>* out);

 private:
  static constexpr size_t kFixed = 20;
  // PopFront reallocates once the popped space is a quarter and this much.
  static constexpr size_t kMinShrink = 256;
  static void WriteRecord(const QueueHead& head, char* p);
  // What the allocator hands out for `n` bytes.
  static size_t SizeClass(size_t n);
  QueueHead At(size_t offset) const;
  size_t RecordSize(size_t offset) const;
  // The capacity to grow to for `need` bytes.
  size_t GrownCapacity(size_t need, Growth growth) const;
  // Makes room for `n` more bytes (up to the allocator's size class, which
  // heap_bytes() counts), first dropping the popped front if it is at least
  // half the buffer.
  void Reserve(size_t n, Growth growth);

  std::vector<char> buf_;  // records from begin_ on
  uint32_t begin_ = 0;     // first record
  uint32_t last_ = 0;      // last record
  uint32_t count_ = 0;
  bool doubled_ = false;  // last grown by Growth::kDouble
};

}  // namespace crawlfront
