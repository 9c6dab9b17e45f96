// Operator access to queues: FRONTIER.QUEUE (PeekHost), FRONTIER.DROP
// (DropHost, DropHostMatching) and FRONTIER.DROPCRAWL (DropCrawl).

#include <algorithm>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"
#include "host_queue_scan.h"

namespace crawlfront {

// The entries of the host's page leases in flight, read back so that a
// drop can write them again after its range deletion (a later write in a
// batch wins over it): their DONE, expiry or a restart finds them as before.
// The host's pending writes must be flushed.
Status CrawlCore::KeepLeasedEntries(const HostState& h, std::vector<KeyValue>* keep,
                                    std::vector<KeyValue>* refs) {
  rocksdb::ColumnFamilyHandle* cf = store_->cf(Cf::kQueue);
  for (const std::string& key : h.leased_keys) {
    std::string value;
    rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), cf, key, &value);
    if (s.IsNotFound()) continue;
    CRAWLFRONT_RETURN_IF_ERROR(FromRocks(s));
    QueueItem item;
    const bool decoded = DecodeItem(value, &item).ok();
    keep->emplace_back(key, std::move(value));
    if (!decoded) continue;
    std::string ref_key = RecrawlKey(h.prefix, item.url), ref;
    s = store_->db()->Get(rocksdb::ReadOptions(), store_->cf(Cf::kRecrawl), ref_key, &ref);
    if (s.IsNotFound()) continue;
    CRAWLFRONT_RETURN_IF_ERROR(FromRocks(s));
    refs->emplace_back(std::move(ref_key), std::move(ref));
  }
  return Status::Ok();
}

// A drop's recrawl references (crawl_refetch.cc) go with its entries, so a
// dropped host or crawl leaves no index behind; those of the leased entries
// the drop keeps are written back.
void CrawlCore::DropRecrawlRefs(const std::string& begin, const std::vector<KeyValue>& refs) {
  rocksdb::ColumnFamilyHandle* cf = store_->cf(Cf::kRecrawl);
  pending_.DeleteRange(cf, begin, PrefixSuccessor(begin));
  for (const auto& [key, value] : refs) pending_.Put(cf, key, value);
}

// RAM side of a drop whose range deletion is in pending_: the host's queued
// and scheduled URLs end as done and dropped. Returns how many.
uint64_t CrawlCore::ForgetQueue(HostState& h) {
  const uint64_t n = h.rec.queued + h.rec.scheduled;
  h.rec.queued = 0;
  h.rec.scheduled = 0;
  h.rec.done += n;
  ClearHeads(h);
  h.queue_floor.clear();
  h.sched_min_due = kNever;
  h.crawl->stats.urls_done += n;
  h.crawl->stats.urls_dropped += n;
  h.crawl->dirty = true;
  MarkDirty(h);
  TouchQueue(h);
  return n;
}

// One RocksDB write whatever the queue's length: a range deletion over the
// host's ready and scheduled entries, its leased entries written back.
Status CrawlCore::DropHost(std::string_view crawl, std::string_view host, uint64_t* dropped) {
  *dropped = 0;
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(Health());
  auto found = FindHostByName(crawl, host);
  if (!found.ok()) return found.status();
  HostState* h = *found;
  if (h == nullptr || h->rec.queued + h->rec.scheduled == 0) return Status::Ok();
  if (Unwritten(*h)) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  std::vector<KeyValue> keep, refs;
  CRAWLFRONT_RETURN_IF_ERROR(KeepLeasedEntries(*h, &keep, &refs));
  rocksdb::ColumnFamilyHandle* cf = store_->cf(Cf::kQueue);
  pending_.DeleteRange(cf, h->prefix + '\0', h->prefix + '\2');
  for (const auto& [key, value] : keep) pending_.Put(cf, key, value);
  DropRecrawlRefs(h->prefix, refs);
  const uint64_t n = ForgetQueue(*h);
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  Reschedule(*h, clock_->NowMs());
  spdlog::info("crawl core: dropped {} queued URLs of host {} in crawl {} ({} in flight kept)",
               n, h->host_key, h->crawl->id, keep.size());
  *dropped = n;
  return Status::Ok();
}

namespace {
// Entries read per hold of the lock by DropHostMatching.
constexpr size_t kDropScanChunk = 4096;
}  // namespace

// glibc's mutex lets the thread that unlocks take it straight back before a
// waiter it woke runs: a scan that only unlocked between its chunks kept
// other calls waiting up to 0.14 s (FRONTIER.HOSTS during a 0.35 s read of
// 10^6 entries; 0.01 s with this pause).
void CrawlCore::BetweenScanChunks() {
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (between_drop_chunks_) between_drop_chunks_();
}

Status CrawlCore::DropHostMatching(std::string_view crawl, std::string_view host,
                                   const UrlPattern& pattern, uint64_t* dropped) {
  *dropped = 0;
  HostState* h = nullptr;
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    auto found = FindHostByName(crawl, host);
    if (!found.ok()) return found.status();
    h = *found;  // hosts are never removed: the pointer stays good
    if (h == nullptr) return Status::Ok();
    ++h->drop_scans;
  }
  std::string resume = h->prefix + '\0';  // the next key to read
  Status s;
  for (bool more = true, first = true; more && s.ok(); first = false) {
    if (!first) BetweenScanChunks();
    std::lock_guard lock(mu_);
    more = false;
    s = Health();
    if (s.ok()) s = DropMatchingChunk(*h, pattern, &resume, &more, dropped);
  }
  std::lock_guard lock(mu_);
  if (s.ok()) s = Health();
  if (s.ok()) s = DropLogged(*h, pattern, dropped);
  if (--h->drop_scans == 0) h->drop_log = {};
  if (!s.ok()) return s;
  spdlog::info("crawl core: dropped {} queued URLs of host {} in crawl {} that match a pattern",
               *dropped, h->host_key, h->crawl->id);
  return Status::Ok();
}

// Deletes the entry if it matches and is not leased; counts it in *n.
Status CrawlCore::DropMatchingEntry(HostState& h, const UrlPattern& pattern,
                                    const std::string& key, std::string_view value, uint64_t* n) {
  if (h.leased_keys.count(key) != 0) return Status::Ok();
  QueueItem item;
  CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(value, &item));
  if (!pattern.Search(item.url)) return Status::Ok();
  pending_.Delete(store_->cf(Cf::kQueue), key);
  uint64_t& count = key[h.prefix.size()] == '\1' ? h.rec.scheduled : h.rec.queued;
  if (count > 0) --count;
  ++*n;
  return Status::Ok();
}

// Up to kDropScanChunk entries from *resume: matching ones deleted, ready
// or scheduled.
Status CrawlCore::DropMatchingChunk(HostState& h, const UrlPattern& pattern, std::string* resume,
                                    bool* more, uint64_t* dropped) {
  if (Unwritten(h)) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  uint64_t n = 0;
  CRAWLFRONT_RETURN_IF_ERROR(ScanHostQueue(
      *store_, h.prefix, kDropScanChunk, resume, more,
      [&](std::string_view key, std::string_view value) {
        return DropMatchingEntry(h, pattern, std::string(key), value, &n);
      }));
  return FinishDrop(h, n, dropped);
}

// The keys queued during the scan: those below its cursor were not read.
Status CrawlCore::DropLogged(HostState& h, const UrlPattern& pattern, uint64_t* dropped) {
  if (h.drop_log.empty()) return Status::Ok();
  if (Unwritten(h)) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  std::vector<std::string>& keys = h.drop_log;
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  uint64_t n = 0;
  std::string value;
  for (const std::string& key : keys) {
    rocksdb::Status st = store_->db()->Get(rocksdb::ReadOptions(), store_->cf(Cf::kQueue), key, &value);
    if (st.IsNotFound()) continue;  // leased and done, promoted, or dropped already
    CRAWLFRONT_RETURN_IF_ERROR(FromRocks(st));
    CRAWLFRONT_RETURN_IF_ERROR(DropMatchingEntry(h, pattern, key, value, &n));
  }
  return FinishDrop(h, n, dropped);
}

// After n entries of `h` were deleted into pending_: the RAM heads are
// cleared (they may hold deleted entries) and refilled from RocksDB by the
// next lease; counters and the host record follow.
Status CrawlCore::FinishDrop(HostState& h, uint64_t n, uint64_t* dropped) {
  if (n == 0) return Status::Ok();
  if (h.rec.scheduled == 0) h.sched_min_due = kNever;
  ClearHeads(h);
  h.rec.done += n;
  h.crawl->stats.urls_done += n;
  h.crawl->stats.urls_dropped += n;
  h.crawl->dirty = true;
  MarkDirty(h);
  TouchQueue(h);
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  Reschedule(h, clock_->NowMs());
  *dropped += n;
  return Status::Ok();
}

// All hosts at once: one range deletion per seen-set partition the crawl
// has hosts in (a crawl's queue keys are contiguous within a partition),
// however many hosts, so reads of the queue do not wade through 10^5 range
// tombstones afterwards.
Status CrawlCore::DropCrawl(std::string_view crawl, uint64_t* dropped) {
  *dropped = 0;
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(Health());
  if (crawl.empty()) crawl = kDefaultCrawl;
  if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
  auto it = crawls_.find(crawl);
  if (it == crawls_.end()) return Status::Ok();
  CrawlState& c = *it->second;
  CRAWLFRONT_RETURN_IF_ERROR(Flush());  // the leased entries are read back
  std::vector<KeyValue> keep, refs;
  std::set<uint16_t> partitions, any_host;  // with queue keys; with hosts
  for (uint32_t id : c.hosts) {
    const HostState& h = *hosts_[id];
    any_host.insert(h.partition);
    if (h.rec.queued + h.rec.scheduled == 0 && h.leased_keys.empty()) continue;  // no keys
    partitions.insert(h.partition);
    CRAWLFRONT_RETURN_IF_ERROR(KeepLeasedEntries(h, &keep, &refs));
  }
  auto crawl_begin = [&](uint16_t p) {
    std::string begin = HostPrefix(p, c.id, "");
    begin.resize(begin.size() - 2);  // without the empty host's length
    return begin;
  };
  // Recrawl references outlive their entries (crawl_refetch.cc): hosts
  // with empty queues may still have some.
  for (uint16_t p : any_host) DropRecrawlRefs(crawl_begin(p), {});
  for (const auto& [key, value] : refs) pending_.Put(store_->cf(Cf::kRecrawl), key, value);
  if (partitions.empty()) return Flush();
  rocksdb::ColumnFamilyHandle* cf = store_->cf(Cf::kQueue);
  for (uint16_t p : partitions) {
    const std::string begin = crawl_begin(p);
    pending_.DeleteRange(cf, begin, PrefixSuccessor(begin));
  }
  for (const auto& [key, value] : keep) pending_.Put(cf, key, value);
  uint64_t n = 0;
  std::vector<HostState*> changed;
  for (uint32_t id : c.hosts) {
    HostState& h = *hosts_[id];
    if (h.rec.queued + h.rec.scheduled == 0) continue;
    n += ForgetQueue(h);
    changed.push_back(&h);
  }
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  const int64_t now = clock_->NowMs();
  for (HostState* h : changed) Reschedule(*h, now);
  spdlog::info("crawl core: dropped {} queued URLs of {} hosts in crawl {} ({} in flight kept)",
               n, changed.size(), c.id, keep.size());
  *dropped = n;
  return Status::Ok();
}

const char* QueuedStateName(QueuedUrl::State s) {
  switch (s) {
    case QueuedUrl::State::kReady: return "ready";
    case QueuedUrl::State::kLeased: return "leased";
    case QueuedUrl::State::kScheduled: return "scheduled";
  }
  return "?";
}

// Key order is the answer's order: a host's ready entries (prefix 00,
// leased ones included) sort before its scheduled ones (prefix 01, by due).
Status CrawlCore::PeekHost(std::string_view crawl, std::string_view host, size_t max,
                           std::vector<QueuedUrl>* out) {
  out->clear();
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(Health());
  auto found = FindHostByName(crawl, host);
  if (!found.ok()) return found.status();
  HostState* h = *found;
  if (h == nullptr || max == 0) return Status::Ok();
  if (Unwritten(*h)) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  std::string begin = h->prefix + '\0';
  bool more;
  return ScanHostQueue(*store_, h->prefix, max, &begin, &more,
                       [&](std::string_view key, std::string_view value) {
                         QueueItem item;
                         CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(value, &item));
                         out->push_back(QueuedUrlOf(*h, key, std::move(item)));
                         return Status::Ok();
                       });
}

// A crawl's queue keys in one partition are one range (prefix partition,
// crawl): a seek per partition it has keys in, the other crawls' ranges
// skipped by seeking past them.
Status CrawlCore::ScanQueues(std::string_view crawl, std::string_view cursor, size_t max,
                             const UrlPattern* match, std::vector<ScannedUrl>* out,
                             std::string* next) {
  out->clear();
  next->clear();
  if (crawl.empty()) crawl = kDefaultCrawl;
  if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
  auto range = [&](uint16_t partition) {
    std::string begin = HostPrefix(partition, crawl, "");
    begin.resize(begin.size() - 2);  // without the empty host's length
    return begin;
  };
  uint16_t part;
  std::string key_crawl, host_key;
  size_t plen;
  if (!cursor.empty() && (!ParseHostPrefix(cursor, &part, &key_crawl, &host_key, &plen) ||
                          key_crawl != crawl)) {
    return Status::InvalidArgument("invalid cursor");
  }
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(Health());
  auto found = crawls_.find(crawl);
  if (found == crawls_.end() || max == 0) return Status::Ok();
  CrawlState& c = *found->second;
  CRAWLFRONT_RETURN_IF_ERROR(Flush());  // what this thread queued is read back
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kQueue)));
  const HostState* h = nullptr;
  size_t read = 0;
  for (it->Seek(cursor.empty() ? range(0) : cursor); it->Valid();) {
    const std::string_view key = it->key().ToStringView();
    if (!ParseHostPrefix(key, &part, &key_crawl, &host_key, &plen) || key.size() <= plen) {
      return Status::Corruption("bad queue key");
    }
    if (key_crawl != crawl) {  // before this crawl's range of the partition, or past it
      const std::string begin = range(part);
      if (key < begin) {
        it->Seek(begin);
      } else if (part == UINT16_MAX) {
        break;
      } else {
        it->Seek(range(part + 1));
      }
      continue;
    }
    if (read++ == max) {
      *next = std::string(key);
      break;
    }
    if (h == nullptr || h->host_key != host_key) {
      auto id = c.host_ids.find(host_key);
      if (id == c.host_ids.end()) return Status::Corruption("queue entry of an unknown host");
      h = hosts_[id->second].get();
    }
    QueueItem item;
    CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(it->value().ToStringView(), &item));
    if (match == nullptr || match->Search(item.url)) {
      out->push_back({host_key, QueuedUrlOf(*h, key, std::move(item))});
    }
    it->Next();
  }
  return FromRocks(it->status());
}

}  // namespace crawlfront
