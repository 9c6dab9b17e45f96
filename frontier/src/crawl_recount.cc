// CrawlCore::RecountQueues: after a stop that was not a clean close, the
// host records' queue counts are brought up to what kQueue holds.

#include <chrono>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

struct Counted {
  uint64_t ready = 0;
  uint64_t scheduled = 0;
  uint64_t fresh = 0;  // of both, arrived after the host record (seq >= seq_mark)
};

constexpr uint64_t kProgressEvery = 1'000'000;  // entries between log lines

}  // namespace

// Neither an add (crawl_add.cc) nor the DONE of an entry older than the
// host record (lease_done.cc) rewrites the record; every other change to a
// host writes it in the batch that makes the change. So after a crash a
// host's entries with arrival numbers from the record's seq_mark on are the
// adds since the record (into `added`, the budget's use), and the record's
// entries no longer found are done. A record of an older version (mark 0)
// was rewritten by every DONE: entries beyond its count are adds.
// REQUIRES: mu_ held, RestoreHosts done.
Status CrawlCore::RecountQueues() {
  const auto start = std::chrono::steady_clock::now();
  spdlog::info("crawl core: the last stop was not a clean close: counting the queued URLs");
  std::vector<Counted> counts(hosts_.size());
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;  // one pass over everything: keep the cache for the crawl
  ro.readahead_size = 2 << 20;
  std::unique_ptr<rocksdb::Iterator> it(store_->db()->NewIterator(ro, store_->cf(Cf::kQueue)));
  std::string prefix;  // of the host being counted
  uint32_t host = 0;
  uint64_t entries = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    if (prefix.empty() || key.size() <= prefix.size() || !key.starts_with(prefix)) {
      uint16_t part;
      std::string crawl, host_key;
      size_t plen;
      if (!ParseHostPrefix(key, &part, &crawl, &host_key, &plen) || key.size() <= plen ||
          !ValidCrawlId(crawl)) {
        return Status::Corruption("bad queue key");
      }
      host = HostFor(CrawlFor(crawl), host_key, part).id;
      prefix.assign(key.substr(0, plen));
      if (counts.size() <= host) counts.resize(hosts_.size());
    }
    const char kind = key[prefix.size()];
    if (kind == '\0') {
      ++counts[host].ready;
    } else if (kind == '\1') {
      ++counts[host].scheduled;
    } else {
      return Status::Corruption("bad queue key kind");
    }
    // Both kinds of key end with the entry's arrival number.
    if (key.size() < prefix.size() + 9) return Status::Corruption("short queue key");
    if (ReadBe64(key.data() + key.size() - 8) >= hosts_[host]->rec.seq_mark) {
      ++counts[host].fresh;
    }
    if (++entries % kProgressEvery == 0) {
      spdlog::info("crawl core: counted {} queued URLs so far ({} hosts)", entries,
                   hosts_.size());
    }
  }
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(it->status()));
  counts.resize(hosts_.size());
  size_t corrected = 0;
  for (auto& hp : hosts_) {
    HostState& h = *hp;
    const Counted& c = counts[h.id];
    // RestoreHosts counted the leased entries as queued again.
    const uint64_t recorded = h.rec.queued + h.rec.scheduled;
    const uint64_t found = c.ready + c.scheduled;
    // Entries the record counts: all found ones for an older record.
    const uint64_t known = h.rec.seq_mark == 0 ? std::min(found, recorded) : found - c.fresh;
    const uint64_t added = found - known;
    const uint64_t gone = recorded > known ? recorded - known : 0;
    if (added == 0 && gone == 0 && c.ready == h.rec.queued) continue;
    if (known > recorded || (h.rec.seq_mark == 0 && gone > 0)) {
      spdlog::warn("crawl core: host {} of crawl {}: record counts {} queued URLs, kQueue has {}",
                   h.host_key, h.crawl->id, recorded, found);
    } else {
      h.rec.done += gone;
    }
    h.rec.added += added;
    h.rec.queued = c.ready;
    h.rec.scheduled = c.scheduled;
    if (c.scheduled > 0) h.sched_min_due = 0;  // found on the first PromoteDue
    MarkDirty(h);
    ++corrected;
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  spdlog::info("crawl core: counted {} queued URLs of {} hosts in {} ms; {} host records updated",
               entries, hosts_.size(), ms, corrected);
  return Status::Ok();
}

}  // namespace crawlfront
