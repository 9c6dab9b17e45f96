// RocksDB encodings of queue entries, host records and leases (layout in
// host_state.h). Every decoder checks lengths and returns Corruption.

#include <cstring>

#include "crawlfront/frontier/host_state.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {
namespace {

void PutStr(std::string* out, std::string_view s) {
  AppendBe32(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

// A bounds-checked reader over a byte string.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool U16(uint16_t* v) { return Take(2, [&](const char* p) { *v = ReadBe16(p); }); }
  bool U32(uint32_t* v) { return Take(4, [&](const char* p) { *v = ReadBe32(p); }); }
  bool U64(uint64_t* v) { return Take(8, [&](const char* p) { *v = ReadBe64(p); }); }
  bool I64(int64_t* v) {
    uint64_t u;
    if (!U64(&u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  bool Str(std::string* s) {
    uint32_t n;
    if (!U32(&n) || n > b_.size()) return false;
    s->assign(b_.data(), n);
    b_.remove_prefix(n);
    return true;
  }
  bool Str16(std::string* s) {
    uint16_t n;
    if (!U16(&n) || n > b_.size()) return false;
    s->assign(b_.data(), n);
    b_.remove_prefix(n);
    return true;
  }
  bool Byte(uint8_t* v) { return Take(1, [&](const char* p) { *v = static_cast<uint8_t>(*p); }); }
  bool empty() const { return b_.empty(); }

 private:
  template <typename F>
  bool Take(size_t n, F f) {
    if (b_.size() < n) return false;
    f(b_.data());
    b_.remove_prefix(n);
    return true;
  }
  std::string_view b_;
};

// Version 2 adds a recrawl's validators; entries without them stay 1.
constexpr uint8_t kItemVersion = 1;
constexpr uint8_t kItemWithValidators = 2;

bool ReadItem(Reader& r, QueueItem* item) {
  uint8_t version;
  uint32_t priority;
  if (!(r.Byte(&version) && (version == kItemVersion || version == kItemWithValidators) &&
        r.Str(&item->url) && r.Str(&item->parent) && r.U32(&item->depth) &&
        r.U32(&item->attempt) && r.U32(&priority) && r.U64(&item->seq) &&
        r.I64(&item->due_ms))) {
    return false;
  }
  item->priority = static_cast<int32_t>(priority);
  if (version == kItemVersion) {
    item->etag.clear();
    item->last_modified.clear();
    return true;
  }
  return r.Str(&item->etag) && r.Str(&item->last_modified);
}

}  // namespace

const char* RobotsStateName(RobotsState s) {
  switch (s) {
    case RobotsState::kNone: return "unknown";
    case RobotsState::kFetching: return "fetching";
    case RobotsState::kOk: return "ok";
    case RobotsState::kError: return "error";
    case RobotsState::kManual: return "manual";
  }
  return "unknown";
}

std::string HostPrefix(uint16_t partition, std::string_view crawl, std::string_view host_key) {
  std::string p;
  p.reserve(6 + crawl.size() + host_key.size());
  AppendBe16(&p, partition);
  AppendBe16(&p, static_cast<uint16_t>(crawl.size()));
  p.append(crawl);
  AppendBe16(&p, static_cast<uint16_t>(host_key.size()));
  p.append(host_key);
  return p;
}

bool ParseHostPrefix(std::string_view key, uint16_t* partition, std::string* crawl,
                     std::string* host_key, size_t* prefix_len) {
  Reader r(key);
  if (!r.U16(partition) || !r.Str16(crawl) || !r.Str16(host_key)) return false;
  *prefix_len = 6 + crawl->size() + host_key->size();
  return true;
}

uint64_t HeadRank(const QueueItem& item) {
  // INT32_MAX - priority maps [INT32_MIN, INT32_MAX] onto [2^32-1, 0]: higher
  // priorities sort first.
  return uint64_t{static_cast<uint32_t>(int64_t{INT32_MAX} - item.priority)} << 32 | item.depth;
}

std::string ReadyKeyOf(std::string_view prefix, uint64_t rank, uint64_t seq) {
  std::string k;
  k.reserve(prefix.size() + 17);
  k.append(prefix);
  k.push_back('\0');
  AppendBe64(&k, rank);
  AppendBe64(&k, seq);
  return k;
}

std::string ReadyKey(std::string_view prefix, const QueueItem& item) {
  return ReadyKeyOf(prefix, HeadRank(item), item.seq);
}

bool ParseReadyKey(std::string_view key, size_t prefix_len, uint64_t* rank, uint64_t* seq) {
  if (key.size() != prefix_len + 17 || key[prefix_len] != '\0') return false;
  *rank = ReadBe64(key.data() + prefix_len + 1);
  *seq = ReadBe64(key.data() + prefix_len + 9);
  return true;
}

std::string ScheduledKey(std::string_view prefix, const QueueItem& item) {
  std::string k(prefix);
  k.push_back('\1');
  AppendBe64(&k, static_cast<uint64_t>(std::max<int64_t>(item.due_ms, 0)));
  AppendBe64(&k, item.seq);
  return k;
}

std::string RecrawlKey(std::string_view prefix, std::string_view url) {
  std::string k;
  k.reserve(prefix.size() + url.size());
  k.append(prefix).append(url);
  return k;
}

std::string EncodeRecrawlRef(const QueueItem& item) {
  std::string v;
  AppendBe64(&v, item.seq);
  AppendBe64(&v, static_cast<uint64_t>(item.due_ms));
  AppendBe32(&v, static_cast<uint32_t>(item.priority));
  AppendBe32(&v, item.depth);
  return v;
}

bool DecodeRecrawlRef(std::string_view bytes, QueueItem* item) {
  Reader r(bytes);
  uint32_t priority;
  if (!r.U64(&item->seq) || !r.I64(&item->due_ms) || !r.U32(&priority) ||
      !r.U32(&item->depth) || !r.empty()) {
    return false;
  }
  item->priority = static_cast<int32_t>(priority);
  return true;
}

std::string EncodeItem(const QueueItem& item) {
  std::string v;
  const bool validators = !item.etag.empty() || !item.last_modified.empty();
  v.reserve(40 + item.url.size() + item.parent.size());
  v.push_back(static_cast<char>(validators ? kItemWithValidators : kItemVersion));
  PutStr(&v, item.url);
  PutStr(&v, item.parent);
  AppendBe32(&v, item.depth);
  AppendBe32(&v, item.attempt);
  AppendBe32(&v, static_cast<uint32_t>(item.priority));
  AppendBe64(&v, item.seq);
  AppendBe64(&v, static_cast<uint64_t>(item.due_ms));
  if (validators) {
    PutStr(&v, item.etag);
    PutStr(&v, item.last_modified);
  }
  return v;
}

Status DecodeItem(std::string_view bytes, QueueItem* item) {
  Reader r(bytes);
  if (!ReadItem(r, item) || !r.empty()) return Status::Corruption("bad queue entry");
  return Status::Ok();
}

void AppendU64s(std::span<const uint64_t> values, std::string* out) {
  AppendBe32(out, static_cast<uint32_t>(values.size()));
  for (uint64_t v : values) AppendBe64(out, v);
}

std::string EncodeU64s(const std::vector<uint64_t>& values) {
  std::string out;
  AppendU64s(values, &out);
  return out;
}

Status DecodeU64s(std::string_view bytes, std::vector<uint64_t>* values) {
  Reader r(bytes);
  uint32_t n;
  if (!r.U32(&n) || bytes.size() != 4 + size_t{n} * 8) return Status::Corruption("bad counters");
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    r.U64(&v);
    if (i < values->size()) (*values)[i] = v;  // extra (newer) values are ignored
  }
  return Status::Ok();
}

void EncodeHostRecordTo(const HostRecord& h, std::string* out) {
  out->clear();
  const uint64_t values[] = {static_cast<uint64_t>(h.delay_override_ms),
                             static_cast<uint64_t>(h.blocked_until_ms),
                             static_cast<uint64_t>(h.budget),
                             h.added, h.queued, h.scheduled, h.done,
                             static_cast<uint64_t>(h.ready_at_ms),
                             static_cast<uint64_t>(h.last_response_ms), h.leased,
                             h.seq_mark};
  AppendU64s(values, out);
}

std::string EncodeHostRecord(const HostRecord& h) {
  std::string out;
  EncodeHostRecordTo(h, &out);
  return out;
}

Status DecodeHostRecord(std::string_view bytes, HostRecord* h) {
  std::vector<uint64_t> v(11, 0);
  v[0] = static_cast<uint64_t>(int64_t{-1});
  v[2] = static_cast<uint64_t>(int64_t{-1});
  CRAWLFRONT_RETURN_IF_ERROR(DecodeU64s(bytes, &v));
  h->delay_override_ms = static_cast<int64_t>(v[0]);
  h->blocked_until_ms = static_cast<int64_t>(v[1]);
  h->budget = static_cast<int64_t>(v[2]);
  h->added = v[3];
  h->queued = v[4];
  h->scheduled = v[5];
  h->done = v[6];
  h->ready_at_ms = static_cast<int64_t>(v[7]);
  h->last_response_ms = static_cast<int64_t>(v[8]);
  h->leased = v[9];
  h->seq_mark = v[10];
  return Status::Ok();
}

std::string EncodeRobotsRecord(const RobotsRecord& r) {
  std::string v;
  v.push_back(static_cast<char>(r.state));
  AppendBe64(&v, static_cast<uint64_t>(r.expires_ms));
  PutStr(&v, r.rules);
  AppendBe32(&v, r.errors);
  return v;
}

Status DecodeRobotsRecord(std::string_view bytes, RobotsRecord* r) {
  Reader rd(bytes);
  uint8_t state;
  if (!rd.Byte(&state) || state > static_cast<uint8_t>(RobotsState::kManual) ||
      !rd.I64(&r->expires_ms) || !rd.Str(&r->rules)) {
    return Status::Corruption("bad robots record");
  }
  r->errors = 0;  // older versions kept the count in RAM only
  if (!rd.empty() && (!rd.U32(&r->errors) || !rd.empty())) {
    return Status::Corruption("bad robots record");
  }
  r->state = static_cast<RobotsState>(state);
  return Status::Ok();
}

std::string LeaseKey(uint16_t partition, uint64_t id) {
  std::string k;
  AppendBe16(&k, partition);
  AppendBe64(&k, id);
  return k;
}

// Records of older versions have the bare kind in the first byte; current
// ones add kLeaseKept and carry left_ms and queue_key before the item.
namespace {
constexpr uint8_t kLeaseKept = 0x80;
}  // namespace

std::string EncodeStoredLease(const StoredLease& s) {
  const LeaseRecord& r = s.rec;
  std::string v;
  const bool kept = s.left_ms >= 0;
  v.push_back(static_cast<char>(static_cast<uint8_t>(r.kind) | (kept ? kLeaseKept : 0)));
  PutStr(&v, r.crawl);
  PutStr(&v, r.host_key);
  PutStr(&v, r.worker);
  AppendBe64(&v, static_cast<uint64_t>(r.start_ms));
  if (kept) {
    AppendBe64(&v, static_cast<uint64_t>(s.left_ms));
    PutStr(&v, s.queue_key);
  }
  v.append(EncodeItem(r.item));
  return v;
}

Status DecodeStoredLease(std::string_view bytes, StoredLease* s) {
  LeaseRecord* r = &s->rec;
  Reader rd(bytes);
  uint8_t kind;
  if (!rd.Byte(&kind) || (kind & ~kLeaseKept) > 1 || !rd.Str(&r->crawl) ||
      !rd.Str(&r->host_key) || !rd.Str(&r->worker) || !rd.I64(&r->start_ms)) {
    return Status::Corruption("bad lease record");
  }
  s->left_ms = -1;
  s->queue_key.clear();
  if ((kind & kLeaseKept) && (!rd.I64(&s->left_ms) || s->left_ms < 0 || !rd.Str(&s->queue_key))) {
    return Status::Corruption("bad lease record");
  }
  if (!ReadItem(rd, &r->item) || !rd.empty()) return Status::Corruption("bad lease record");
  r->kind = static_cast<LeaseKind>(kind & ~kLeaseKept);
  return Status::Ok();
}

}  // namespace crawlfront
