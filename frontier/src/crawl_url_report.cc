// CrawlCore::Explain (FRONTIER.URL): what the frontier knows of one URL.
// Queue entries are not indexed by URL (an add writes one record per entry
// for speed), so the URL's host queue is read, in chunks as
// DropHostMatching reads it, and the keys queued meanwhile are read last.

#include "crawlfront/frontier/crawl.h"
#include "host_queue_scan.h"

namespace crawlfront {
namespace {

// Entries read per hold of the lock, as for FRONTIER.DROP MATCH.
constexpr size_t kReportScanChunk = 4096;

}  // namespace

Status CrawlCore::Explain(std::string_view crawl, std::string_view url, UrlReport* out) {
  *out = UrlReport{};
  if (crawl.empty()) crawl = kDefaultCrawl;
  if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
  CanonicalUrl canon;
  SeenKey key;
  CRAWLFRONT_RETURN_IF_ERROR(CheckUrl(crawl, url, &canon, &key, &out->scope));
  out->url = canon.spec;
  out->crawl = crawl;
  out->host.host = canon.host_key;
  out->host.crawl = out->crawl;
  out->robots = options_.respect_robots ? "unknown" : "off";
  HostState* h = nullptr;
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    if (auto c = crawls_.find(crawl); c != crawls_.end()) {
      auto it = c->second->host_ids.find(canon.host_key);
      if (it != c->second->host_ids.end()) h = hosts_[it->second].get();  // never removed
    }
    if (h != nullptr) ++h->drop_scans;  // log the keys queued during the scan
  }
  std::set<std::string> keys;  // of entries whose URL is this one
  Status s;
  if (h != nullptr) {
    std::string resume = h->prefix + '\0';
    for (bool more = true, first = true; more && s.ok(); first = false) {
      if (!first) BetweenScanChunks();
      std::lock_guard lock(mu_);
      more = false;
      s = Health();
      if (s.ok()) s = FindEntriesChunk(*h, out->url, &resume, &more, &keys, out);
    }
  }
  // After the scan: an entry it finds was seen before it was read.
  auto seen = seen_->Contains(key);
  if (s.ok() && !seen.ok()) s = seen.status();
  out->seen = seen.ok() && *seen;
  out->state = out->seen ? "done" : "unseen";
  if (h == nullptr) return s;
  std::lock_guard lock(mu_);
  if (s.ok()) s = Health();
  if (s.ok()) {
    // Entries may have moved, left or come since they were read: each key
    // is read again now, with those queued during the scan.
    std::vector<std::string> all(keys.begin(), keys.end());
    all.insert(all.end(), h->drop_log.begin(), h->drop_log.end());
    s = ReadEntries(*h, all, out);
  }
  // Fetch records are not tracked per host (Unwritten): all pending writes
  // go first.
  if (s.ok()) s = Flush();
  if (s.ok()) s = ReadFetch(*h, out->url, &out->last);
  if (--h->drop_scans == 0) h->drop_log = {};
  if (!s.ok()) return s;
  ReportLease(crawl, out->url, out);
  // Queued after the seen-set was asked (a URL with an entry is seen).
  if (out->entries > 0) out->seen = true;
  out->robots = RobotsVerdict(*h, out->url);
  out->host_known = true;
  out->host = InfoOf(*h, clock_->NowMs());
  return Status::Ok();
}

// Up to kReportScanChunk entries of the host's queue from *resume: the keys
// of those for `url` go to *keys; until the first, each counts in ahead.
Status CrawlCore::FindEntriesChunk(const HostState& h, std::string_view url,
                                   std::string* resume, bool* more, std::set<std::string>* keys,
                                   UrlReport* out) {
  if (Unwritten(h)) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  return ScanHostQueue(*store_, h.prefix, kReportScanChunk, resume, more,
                       [&](std::string_view key, std::string_view value) {
                         QueueItem item;
                         CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(value, &item));
                         if (item.url == url) {
                           keys->emplace(key);
                         } else if (keys->empty()) {
                           ++out->ahead;
                         }
                         return Status::Ok();
                       });
}

// The entries for out->url among `keys` as they are now: how many, and the
// first in key order (the order leases take them).
Status CrawlCore::ReadEntries(HostState& h, std::span<const std::string> keys,
                              UrlReport* out) {
  if (Unwritten(h)) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  std::set<std::string> found;
  std::string value;
  for (const std::string& key : keys) {
    if (found.count(key) != 0) continue;
    rocksdb::Status st = store_->db()->Get({}, store_->cf(Cf::kQueue), key, &value);
    if (st.IsNotFound()) continue;
    CRAWLFRONT_RETURN_IF_ERROR(FromRocks(st));
    QueueItem item;
    CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(value, &item));
    if (item.url != out->url) continue;
    const bool first = found.empty() || key < *found.begin();
    found.insert(key);
    if (!first) continue;
    out->entry = QueuedUrlOf(h, key, std::move(item));
  }
  out->entries = found.size();
  if (!found.empty()) out->state = QueuedStateName(out->entry.state);
  return Status::Ok();
}

// The lease in flight for the URL, if any (robots.txt leases too).
void CrawlCore::ReportLease(std::string_view crawl, std::string_view url,
                            UrlReport* out) const {
  const int64_t now = clock_->NowMs();
  for (const auto& [id, lease] : leases_) {
    if (lease.rec.crawl != crawl || lease.rec.item.url != url) continue;
    out->state = "leased";
    out->worker = lease.rec.worker;
    out->lease_id = FormatLeaseId(id);
    out->lease_left_ms = std::max<int64_t>(lease.deadline_ms - now, 0);
    if (out->entry.url.empty()) {  // robots.txt: no queue entry
      out->entry.url = lease.rec.item.url;
      out->entry.attempt = lease.rec.item.attempt;
    }
    out->entry.state = QueuedUrl::State::kLeased;
    return;
  }
}

// What the rules of the URL's origin say of it, as a lease would check it.
std::string CrawlCore::RobotsVerdict(const HostState& h, std::string_view url) const {
  if (!options_.respect_robots) return "off";
  const std::string_view origin = OriginOf(url);
  RobotsState state = h.robots_state;
  const RobotsRules* rules = h.robots.get();
  if (h.robots_origin != origin) {
    auto it = h.other_robots.find(origin);
    if (it == h.other_robots.end()) return "unknown";
    state = it->second.state;
    rules = it->second.rules.get();
  }
  switch (state) {
    case RobotsState::kNone: return "unknown";
    case RobotsState::kFetching: return "fetching";
    case RobotsState::kError: return "error";
    case RobotsState::kOk:
    case RobotsState::kManual: break;
  }
  if (rules == nullptr) return "unknown";
  return rules->Allowed(PathAndQuery(url)) ? "allowed" : "disallowed";
}

}  // namespace crawlfront
