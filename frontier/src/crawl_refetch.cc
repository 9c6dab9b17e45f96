// Entries queued with a refetch time, by URL (kRecrawl), so that a later
// FRONTIER.ADDX ... REFETCH of the URL finds its waiting entry instead of
// queueing it once more: a crawl that lags behind a daily re-seed would
// otherwise pile up copies. The index is not kept exact: an entry done,
// dropped or failed leaves its reference behind, and readers check that
// kQueue still holds the entry, so leases and dones pay nothing for it.

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {

void CrawlCore::IndexRecrawl(const HostState& h, const QueueItem& item,
                             rocksdb::WriteBatch* batch) {
  batch->Put(store_->cf(Cf::kRecrawl), RecrawlKey(h.prefix, item.url), EncodeRecrawlRef(item));
}

// The entry the index names for `url` if kQueue still holds it: ready or
// leased (due_ms 0), or scheduled. REQUIRES: mu_ held, h's writes written.
Status CrawlCore::FindRecrawl(const HostState& h, std::string_view url, QueueItem* entry,
                              bool* found) {
  *found = false;
  rocksdb::DB* db = store_->db();
  std::string value;
  rocksdb::Status st = db->Get({}, store_->cf(Cf::kRecrawl), RecrawlKey(h.prefix, url), &value);
  if (st.IsNotFound()) return Status::Ok();
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(st));
  QueueItem ref;
  if (!DecodeRecrawlRef(value, &ref)) {
    // Unreadable: as if absent, and the recrawl queued now overwrites it.
    spdlog::warn("crawl core: bad recrawl reference for {} ignored", url);
    return Status::Ok();
  }
  // Promotion keeps seq, priority and depth, so the ready key is known too.
  for (const std::string& key : {ReadyKey(h.prefix, ref), ScheduledKey(h.prefix, ref)}) {
    st = db->Get({}, store_->cf(Cf::kQueue), key, &value);
    if (st.IsNotFound()) continue;
    CRAWLFRONT_RETURN_IF_ERROR(FromRocks(st));
    CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(value, entry));
    *found = entry->url == url;
    return Status::Ok();
  }
  return Status::Ok();
}

// A retry moves its entry to a new due time: a reference to it follows, so
// a REFETCH still finds it. A failed read costs only that (a copy queued by
// a later REFETCH), so it is logged, not returned.
void CrawlCore::RetimeRecrawl(const HostState& h, const QueueItem& item,
                              rocksdb::WriteBatch* batch) {
  std::string key = RecrawlKey(h.prefix, item.url), value;
  rocksdb::Status st = store_->db()->Get({}, store_->cf(Cf::kRecrawl), key, &value);
  if (!st.ok()) {
    if (!st.IsNotFound()) {
      spdlog::warn("crawl core: recrawl index of {}: {}", item.url, st.ToString());
    }
    return;
  }
  QueueItem ref;
  if (DecodeRecrawlRef(value, &ref) && ref.seq == item.seq) {
    batch->Put(store_->cf(Cf::kRecrawl), key, EncodeRecrawlRef(item));
  }
}

}  // namespace crawlfront
