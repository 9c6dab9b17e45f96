// Operator access to one host's queue: FRONTIER.QUEUE (PeekHost) and
// FRONTIER.DROP (DropHost).

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {

// One RocksDB write whatever the queue's length: a range deletion over the
// host's ready and scheduled entries, then the entries of its page leases
// in flight written back, so that their DONE, expiry or a restart finds
// them as before (a later write in a batch wins over the range deletion).
Status CrawlCore::DropHost(std::string_view crawl, std::string_view host, uint64_t* dropped) {
  *dropped = 0;
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(sticky_error_);
  auto found = FindHostByName(crawl, host);
  if (!found.ok()) return found.status();
  HostState* h = *found;
  if (h == nullptr || h->rec.queued + h->rec.scheduled == 0) return Status::Ok();
  // The leased entries are read back from RocksDB: pending writes first.
  if (h->touched_epoch == batch_epoch_) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  rocksdb::ColumnFamilyHandle* cf = store_->cf(Cf::kQueue);
  std::vector<std::pair<std::string, std::string>> keep;
  for (const std::string& key : h->leased_keys) {
    std::string value;
    rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), cf, key, &value);
    if (s.IsNotFound()) continue;
    CRAWLFRONT_RETURN_IF_ERROR(FromRocks(s));
    keep.emplace_back(key, std::move(value));
  }
  rocksdb::WriteBatch& batch = pending_;
  batch.DeleteRange(cf, h->prefix + '\0', h->prefix + '\2');
  for (const auto& [key, value] : keep) batch.Put(cf, key, value);
  const uint64_t n = h->rec.queued + h->rec.scheduled;
  h->rec.queued = 0;
  h->rec.scheduled = 0;
  h->rec.done += n;
  h->heads.clear();
  h->queue_floor.clear();
  h->sched_min_due = kNever;
  h->crawl->stats.urls_done += n;
  h->crawl->stats.urls_dropped += n;
  h->crawl->dirty = true;
  MarkDirty(*h);
  TouchQueue(*h);
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  Reschedule(*h, clock_->NowMs());
  spdlog::info("crawl core: dropped {} queued URLs of host {} in crawl {} ({} in flight kept)",
               n, h->host_key, h->crawl->id, keep.size());
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
  CRAWLFRONT_RETURN_IF_ERROR(sticky_error_);
  auto found = FindHostByName(crawl, host);
  if (!found.ok()) return found.status();
  HostState* h = *found;
  if (h == nullptr || max == 0) return Status::Ok();
  if (h->touched_epoch == batch_epoch_) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  std::string begin = h->prefix + '\0', end = h->prefix + '\2';
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(store_->db()->NewIterator(ro, store_->cf(Cf::kQueue)));
  for (it->Seek(begin); it->Valid() && out->size() < max; it->Next()) {
    QueueItem item;
    CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(it->value().ToStringView(), &item));
    QueuedUrl q{std::move(item.url), std::move(item.parent), QueuedUrl::State::kReady,
                item.depth, item.attempt, item.priority, 0};
    std::string_view key = it->key().ToStringView();
    if (key[h->prefix.size()] == '\1') {
      q.state = QueuedUrl::State::kScheduled;
      q.due_ms = item.due_ms;
    } else if (h->leased_keys.count(std::string(key)) != 0) {
      q.state = QueuedUrl::State::kLeased;
    }
    out->push_back(std::move(q));
  }
  return FromRocks(it->status());
}

}  // namespace crawlfront
