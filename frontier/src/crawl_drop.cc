// CrawlCore::DropHost: deleting a host's queue (FRONTIER.DROP).

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

}  // namespace crawlfront
