// Per-host scheduling state: the politeness delay, when a host may lease
// next, where it sits in the scheduler (ring of ready hosts or time heap),
// and the small RAM buffer of queue heads. All REQUIRE mu_ held.

#include <algorithm>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {

int64_t CrawlCore::DelayMs(const HostState& h) const {
  int64_t delay = h.rec.delay_override_ms >= 0 ? h.rec.delay_override_ms
                                               : options_.default_delay.count();
  if (h.robots && h.robots->crawl_delay()) {
    // Clamp absurd Crawl-delays (days) to one day so the host stays crawlable.
    double cd = std::min(*h.robots->crawl_delay(), 86400.0);
    delay = std::max(delay, static_cast<int64_t>(cd * 1000));
  }
  if (options_.delay_factor > 0) {
    delay = std::max(delay, static_cast<int64_t>(options_.delay_factor *
                                                 static_cast<double>(h.rec.last_response_ms)));
  }
  return delay;
}

int64_t CrawlCore::ReadyTime(const HostState& h, int64_t now) const {
  bool has_ready = h.rec.queued > 0, has_sched = h.rec.scheduled > 0;
  if (!has_ready && !has_sched) return kNever;
  if (Paused(*h.crawl) || h.robots_state == RobotsState::kFetching) return kNever;
  if (h.inflight >= options_.max_inflight_per_host) return kNever;
  int64_t t = std::max(h.rec.ready_at_ms, h.rec.blocked_until_ms);
  if (h.robots_state == RobotsState::kError) t = std::max(t, h.robots_expires_ms);
  if (!has_ready) t = std::max(t, h.sched_min_due);
  (void)now;
  return t;
}

void CrawlCore::Reschedule(HostState& h, int64_t now) {
  PlaceHost(h, now);
  Account(h);
}

void CrawlCore::PlaceHost(HostState& h, int64_t now) {
  int64_t t = ReadyTime(h, now);
  using Place = HostState::Place;
  Place want = t == kNever ? Place::kNone : (t <= now ? Place::kRing : Place::kHeap);
  if (want == h.place && (want != Place::kHeap || h.place_ms == t)) return;
  ++h.gen;  // invalidates the host's older ring/heap entries
  h.place = want;
  h.place_ms = t;
  if (want == Place::kRing) ring_.push_back({h.id, h.gen});
  if (want == Place::kHeap) waiting_.push({t, h.id, h.gen});
}

// Every change to a host's counts or place ends in Reschedule, so its crawl's
// sums move by the host's difference here: STATS reads them instead of
// walking every host under the lock (3-10 ms at 10^5 hosts).
void CrawlCore::Account(HostState& h) {
  HostCounted now;
  now.queued = h.rec.queued + h.rec.scheduled;
  now.inflight = h.inflight;
  // A robots.txt lease is in flight, not a page.
  const bool robots_lease = h.robots_state == RobotsState::kFetching && h.inflight > 0;
  now.pages = h.inflight - (robots_lease ? 1 : 0);
  now.ready = h.place == HostState::Place::kRing ? 1 : 0;
  CrawlLive& live = h.crawl->live;
  // Unsigned sums: a decrease wraps and the sum comes out right.
  if (now.queued != h.counted.queued) host_queued_[h.id] = now.queued;
  live.queued += now.queued - h.counted.queued;
  live.inflight += uint64_t{now.inflight} - h.counted.inflight;
  live.pages += uint64_t{now.pages} - h.counted.pages;
  live.ready += uint64_t{now.ready} - h.counted.ready;
  h.counted = now;
}

// An add's new URLs are spread over many hosts whose state is cold: each
// InsertHead waited for the host's state and then its last head, one miss
// after another (7% of the add step's io thread).
void CrawlCore::PrefetchHost(const HostState& h) {
  __builtin_prefetch(&h.heads);
  __builtin_prefetch(h.prefix.data());
  __builtin_prefetch(h.queue_floor.data());
}

void CrawlCore::PrefetchLastHead(const HostState& h) {
  if (!h.heads.empty()) __builtin_prefetch(h.heads.back_address());
}

// A lease visits the ring's hosts in turn, and their state and first heads
// are cold (10^4 hosts' heads are tens of MB): waiting for the first head
// alone was 16% of the lease + done step's io thread. Load the state of the
// host a few visits ahead, and the heads of a nearer one, whose state has
// arrived by then.
void CrawlCore::PrefetchRingAhead() const {
  constexpr size_t kNear = 2, kFar = 5;
  if (ring_.size() > kFar) {
    const char* p = reinterpret_cast<const char*>(hosts_[ring_[kFar].host].get());
    for (size_t at = 0; at < sizeof(HostState); at += 64) __builtin_prefetch(p + at);
  }
  if (ring_.size() > kNear) {
    const HostState& h = *hosts_[ring_[kNear].host];
    PrefetchHost(h);
    if (!h.heads.empty()) __builtin_prefetch(h.heads.front_address());
  }
}

void CrawlCore::InsertHead(HostState& h, const std::string& key, const QueueItem& item,
                           std::string_view value) {
  // heads is a prefix of the ready queue: a new entry belongs in it if the
  // buffer holds the whole queue or the entry sorts before its last element.
  if (key < h.queue_floor) h.queue_floor = key;
  const QueueHead head{HeadRank(item), item.seq, value};
  bool holds_all = h.heads.size() == h.rec.queued;
  if (!holds_all && (h.heads.empty() || !(head < h.heads.back()))) return;
  // A buffer that holds its host's whole queue grows with it, within the
  // budget: its leases then read no RocksDB (refills were a third of the
  // lease + done step's CPU, docs/benchmarks.md, session 35).
  // Buffers grow by doubling (few copies: they were a tenth of an add's
  // CPU) while the budget is less than half used, then by size class (little
  // slack where RAM is short).
  const HeadBuffer::Growth growth = 2 * heads_mem_.bytes < options_.queue_heads_bytes
                                        ? HeadBuffer::Growth::kDouble
                                        : HeadBuffer::Growth::kSizeClass;
  uint32_t limit = std::max(h.head_target, options_.head_buffer);
  if (holds_all && h.heads.size() >= limit &&
      heads_mem_.bytes + h.heads.heap_bytes_with(value.size(), growth) - h.heads.heap_bytes() <=
          options_.queue_heads_bytes) {
    limit = std::max(limit, HeadCap(h));
  }
  // Full and sorting last: inserting would only grow the buffer's memory.
  if (h.heads.size() >= limit && !(head < h.heads.back())) return;
  const uint64_t bytes = h.heads.heap_bytes();
  const size_t count = h.heads.size();
  // Full: drop the back first, so the buffer does not grow (maybe double)
  // for a head it then drops.
  if (h.heads.size() >= limit) h.heads.PopBack();
  h.heads.Insert(head, growth);
  CountHeads(h, bytes, count);
}

void CrawlCore::CountHeads(const HostState& h, uint64_t bytes, size_t count) {
  const uint64_t now_bytes = h.heads.heap_bytes();
  if (bytes == 0 && now_bytes > 0) ++heads_mem_.hosts;
  if (bytes > 0 && now_bytes == 0) --heads_mem_.hosts;
  heads_mem_.bytes += now_bytes - bytes;  // wraps correctly when it shrinks
  heads_mem_.entries += h.heads.size() - count;
}

void CrawlCore::PopFrontHead(HostState& h) {
  const uint64_t bytes = h.heads.heap_bytes();
  const size_t count = h.heads.size();
  h.heads.PopFront();
  CountHeads(h, bytes, count);
}

void CrawlCore::ClearHeads(HostState& h) {
  const uint64_t bytes = h.heads.heap_bytes();
  const size_t count = h.heads.size();
  h.heads.Clear();
  CountHeads(h, bytes, count);
}

namespace {
// A refill reads as many heads as the host used in kRefillEveryMs at the
// rate it drained the last buffer, between head_buffer and kMaxHeadBuffer,
// and beyond head_buffer only within its share of queue_heads_bytes. Each
// refill is a RocksDB iterator seek through every level (the largest part
// of a lease without politeness), so a host leased often (no delay, many in
// flight, or one fetch a second in a ring of 10^5 hosts) reads many heads
// per refill, while a host leased rarely keeps the small buffer.
constexpr int64_t kRefillEveryMs = 16000;
// 256 rather than 64: with 10^4 hosts leased without politeness a third
// fewer seeks, x1.06 lease + done (docs/benchmarks.md, session 33); the
// budget still bounds RAM.
constexpr uint32_t kMaxHeadBuffer = 256;
constexpr uint64_t kHeadBytesGuess = 100;  // per head, until some are held
}  // namespace

uint32_t CrawlCore::RefillTarget(const HostState& h, int64_t now) const {
  const uint32_t base = options_.head_buffer;
  uint64_t want = std::max(h.head_target, base);
  if (h.refilled_ms > 0) {
    const int64_t elapsed = std::max<int64_t>(now - h.refilled_ms, 1);
    want = want * kRefillEveryMs / static_cast<uint64_t>(elapsed);
  }
  if (want <= base) return base;
  return static_cast<uint32_t>(std::min<uint64_t>(want, HeadCap(h)));
}

uint32_t CrawlCore::HeadCap(const HostState& h) const {
  const uint64_t entry = heads_mem_.entries > 0 ? heads_mem_.bytes / heads_mem_.entries
                                                : kHeadBytesGuess;
  const uint64_t budget = options_.queue_heads_bytes;
  // A host without heads (a refill starts empty) is one more among them.
  const uint64_t hosts = heads_mem_.hosts + (h.heads.empty() ? 1 : 0);
  const uint64_t share = budget / (hosts * entry);
  const uint64_t left = budget > heads_mem_.bytes ? (budget - heads_mem_.bytes) / entry : 0;
  const uint64_t cap = std::min({share, h.heads.size() + left, uint64_t{kMaxHeadBuffer}});
  return static_cast<uint32_t>(std::max<uint64_t>(options_.head_buffer, cap));
}

// REQUIRES: everything written for `h` is committed (this reads RocksDB).
Status CrawlCore::RefillHeads(HostState& h, int64_t now) {
  ClearHeads(h);
  const uint32_t target = RefillTarget(h, now);
  h.head_target = target;
  h.refilled_ms = now;
  std::string begin = h.prefix + '\0', end = h.prefix + '\1';
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(store_->db()->NewIterator(ro, store_->cf(Cf::kQueue)));
  it->Seek(std::max(begin, h.queue_floor));
  refill_records_.clear();
  size_t count = 0;
  for (; it->Valid() && count < target; it->Next()) {
    const std::string_view key = it->key().ToStringView();
    // In flight, below a lowered floor.
    if (h.leased_keys.count(key) != 0) continue;
    QueueHead head{0, 0, it->value().ToStringView()};
    if (!ParseReadyKey(key, h.prefix.size(), &head.rank, &head.seq)) {
      return Status::Corruption("bad queue key of host " + h.host_key);
    }
    HeadBuffer::AppendRecord(head, &refill_records_);
    ++count;
  }
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(it->status()));
  h.heads.Assign(refill_records_, count);
  CountHeads(h, 0, 0);
  ++heads_mem_.refills;
  heads_mem_.refilled += h.heads.size();
  if (h.heads.empty() && h.rec.queued > 0) {
    // Counter ahead of the queue (should not happen): trust the queue.
    spdlog::warn("crawl core: host {} counted {} queued, found none", h.host_key, h.rec.queued);
    h.rec.queued = 0;
    MarkDirty(h);
  }
  return Status::Ok();
}

// Moves scheduled entries that are due into the ready queue (at most a
// bounded number per call). REQUIRES: everything for `h` committed.
Status CrawlCore::PromoteDue(HostState& h, int64_t now, rocksdb::WriteBatch* batch) {
  if (h.rec.scheduled == 0 || h.sched_min_due > now) return Status::Ok();
  std::string begin = h.prefix + '\1', end = h.prefix + '\2';
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(store_->db()->NewIterator(ro, store_->cf(Cf::kQueue)));
  h.sched_min_due = kNever;
  size_t moved = 0;
  for (it->Seek(begin); it->Valid(); it->Next()) {
    QueueItem item;
    CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(it->value().ToStringView(), &item));
    if (item.due_ms > now || moved == 1024) {
      h.sched_min_due = item.due_ms;
      break;
    }
    batch->Delete(store_->cf(Cf::kQueue), it->key());
    item.due_ms = 0;
    std::string key = ReadyKey(h.prefix, item);
    std::string value = EncodeItem(item);
    batch->Put(store_->cf(Cf::kQueue), key, value);
    NoteQueued(h, key);
    InsertHead(h, key, item, value);
    ++h.rec.queued;
    if (h.rec.scheduled > 0) --h.rec.scheduled;
    ++moved;
  }
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(it->status()));
  if (h.sched_min_due == kNever && h.rec.scheduled > 0) {
    spdlog::warn("crawl core: host {} counted {} scheduled, found none", h.host_key,
                 h.rec.scheduled);
    h.rec.scheduled = 0;
  }
  MarkDirty(h);
  return Status::Ok();
}

}  // namespace crawlfront
