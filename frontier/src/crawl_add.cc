// CrawlCore::Add and Seen: canonicalize, scope and trap rules, per-crawl
// dedup, queue entries committed with their seen-set entry.

#include <algorithm>
#include <iterator>
#include <unordered_set>

#include "crawlfront/common/ascii.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

constexpr ByteSet kNotPlainAuthority("@?#");

SeenKey SeenKeyFor(std::string_view crawl, const CanonicalUrl& url) {
  SeenKey k;
  k.host_hash = CrawlHostHash(crawl, url.host_key);
  if (crawl == kDefaultCrawl) {
    k.fingerprint = FingerprintOf(url.spec);
  } else {
    std::string s;
    s.reserve(crawl.size() + 1 + url.spec.size());
    s.append(crawl).push_back('\n');
    s.append(url.spec);
    k.fingerprint = FingerprintOf(s);
  }
  return k;
}

// The host of `url` if it is spelled like a canonical spec (scheme, host,
// optional port, then a path), or empty. Cheap: no parsing, no checks.
std::string_view CanonicalLookingHost(std::string_view url) {
  size_t start;
  if (url.starts_with("http://")) {
    start = 7;
  } else if (url.starts_with("https://")) {
    start = 8;
  } else {
    return {};
  }
  const size_t slash = url.find('/', start);
  if (slash == std::string_view::npos) return {};
  std::string_view authority = url.substr(start, slash - start);
  if (FindFirstOf(authority, kNotPlainAuthority) != std::string_view::npos) return {};
  if (authority.starts_with('[')) return authority.substr(0, authority.find(']') + 1);
  return authority.substr(0, authority.find(':'));
}

// "bad url: no scheme ...", not "bad url: URL: no scheme ...".
std::string BadUrl(const Status& s) {
  std::string_view why = s.message();
  if (why.starts_with("URL: ")) why.remove_prefix(5);
  return "bad url: " + std::string(why);
}

}  // namespace

struct CrawlCore::Prepared {
  const AddRequest* req = nullptr;
  std::string reason;  // non-empty: rejected
  CanonicalUrl canon;
  SeenKey key;
  HostState* host = nullptr;
  bool as_given = false;    // canon and key are the URL's as given
  bool known_seen = false;  // found in the seen-set as given: no insert

  // The queue entry the request asks for (seq not yet given).
  QueueItem Item() const {
    QueueItem item;
    item.url = canon.spec;
    item.parent = req->parent;
    item.depth = req->depth;
    item.priority = req->priority;
    item.due_ms = req->refetch_at_ms;
    return item;
  }
};

// Most links a crawl reports are already seen and were sent canonical. A
// URL whose exact spelling is in the seen-set is a canonical spec (only
// canonical specs go in; fingerprints are 128-bit), so it is answered
// "seen" without canonicalizing it (docs/scheduling.md, "Adding URLs").
// AsGiven takes a canonical-looking URL's key as spelled; KnownAsGiven
// looks up a batch's keys together. Add prefetches the keys' cache slots
// first, so their cache misses overlap.
bool CrawlCore::AsGiven(std::string_view crawl_id, const AddRequest& r, Prepared* p) const {
  if (r.refetch_at_ms > 0 || r.url.size() > options_.url.max_length) return false;
  const std::string_view host = CanonicalLookingHost(r.url);
  if (host.empty()) return false;
  p->canon = CanonicalUrl{std::string(r.url), std::string(host),
                          HostKeyFor(host, options_.url.host_key_mode)};
  p->key = SeenKeyFor(crawl_id, p->canon);
  p->as_given = true;
  return true;
}

void CrawlCore::KnownAsGiven(std::span<Prepared> preps) const {
  std::vector<SeenKey> keys;
  std::vector<size_t> at;
  for (size_t i = 0; i < preps.size(); ++i) {
    if (!preps[i].as_given) continue;
    keys.push_back(preps[i].key);
    at.push_back(i);
  }
  if (keys.empty()) return;
  std::vector<uint8_t> known;
  // A failed read leaves its URL unknown: it takes the whole path, whose
  // InsertIfNew reports the error.
  seen_->ContainsMany(keys, &known).IgnoreError();
  for (size_t k = 0; k < at.size(); ++k) preps[at[k]].known_seen = known[k] != 0;
}

void CrawlCore::PrepareOne(std::string_view crawl_id, const AddRequest& r, Prepared* p) const {
  p->req = &r;
  if (p->known_seen) {
    if (auto why = scope_.Check(p->canon, r.depth)) p->reason = std::move(*why);
    return;
  }
  auto canon = Canonicalize(r.url, options_.url);
  if (!canon.ok()) {
    p->reason = BadUrl(canon.status());
    return;
  }
  p->canon = std::move(canon).value();
  if (auto why = scope_.Check(p->canon, r.depth)) {
    p->reason = std::move(*why);
    return;
  }
  p->key = SeenKeyFor(crawl_id, p->canon);
}

// Budget left for new URLs of `h` (UINT64_MAX = unlimited).
static uint64_t BudgetLeft(const HostState& h, uint64_t default_budget) {
  uint64_t limit = h.rec.budget >= 0 ? static_cast<uint64_t>(h.rec.budget) : default_budget;
  if (limit == 0) return UINT64_MAX;
  return limit > h.rec.added ? limit - h.rec.added : 0;
}

void CrawlCore::QueueNew(HostState& h, QueueItem item, rocksdb::WriteBatch* batch) {
  if (item.seq == 0) item.seq = AllocSeq(batch);
  int64_t now = clock_->NowMs();
  if (item.due_ms > now) {
    std::string key = ScheduledKey(h.prefix, item);
    batch->Put(store_->cf(Cf::kQueue), key, EncodeItem(item));
    NoteQueued(h, key);
    ++h.rec.scheduled;
    h.sched_min_due = std::min(h.sched_min_due, item.due_ms);
  } else {
    item.due_ms = 0;
    std::string key = ReadyKey(h.prefix, item);
    std::string value = EncodeItem(item);
    batch->Put(store_->cf(Cf::kQueue), key, value);
    NoteQueued(h, key);
    InsertHead(h, key, item, value);
    ++h.rec.queued;
  }
}

// A 50,000-link sitemap added in one piece held the crawl lock 200 ms,
// stalling every LEASE and DONE meanwhile; in pieces each waits a few ms.
Status CrawlCore::Add(std::string_view crawl_id, std::span<const AddRequest> requests,
                      std::vector<AddResult>* out, uint64_t* ticket) {
  if (requests.size() <= kAddChunk) return AddChunk(crawl_id, requests, out, ticket);
  if (ticket) *ticket = 0;
  out->clear();
  out->reserve(requests.size());
  std::vector<AddResult> part;
  for (size_t at = 0; at < requests.size(); at += kAddChunk) {
    uint64_t part_ticket = 0;
    const size_t n = std::min(kAddChunk, requests.size() - at);
    CRAWLFRONT_RETURN_IF_ERROR(
        AddChunk(crawl_id, requests.subspan(at, n), &part, ticket ? &part_ticket : nullptr));
    out->insert(out->end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
    if (ticket) *ticket = std::max(*ticket, part_ticket);
  }
  return Status::Ok();
}

Status CrawlCore::AddChunk(std::string_view crawl_id, std::span<const AddRequest> requests,
                           std::vector<AddResult>* out, uint64_t* ticket) {
  if (ticket) *ticket = 0;
  if (crawl_id.empty()) crawl_id = kDefaultCrawl;
  if (!ValidCrawlId(crawl_id)) return Status::InvalidArgument("bad crawl id");
  out->assign(requests.size(), AddResult{});
  std::vector<Prepared> preps(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (AsGiven(crawl_id, requests[i], &preps[i])) seen_->Prefetch(preps[i].key);
  }
  KnownAsGiven(preps);
  for (size_t i = 0; i < requests.size(); ++i) PrepareOne(crawl_id, requests[i], &preps[i]);
  if (auto deny = DenyOf(crawl_id)) {
    for (Prepared& p : preps) {
      if (p.reason.empty() && deny->Matches(p.canon.spec)) p.reason = "denied by pattern";
    }
  }

  bool any_new = false;
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    CrawlState& crawl = CrawlFor(crawl_id);
    std::vector<size_t> cand;  // indexes of requests that reach the seen-set
    std::vector<SeenKey> keys;
    for (size_t i = 0; i < preps.size(); ++i) {
      Prepared& p = preps[i];
      if (!p.reason.empty()) continue;
      // Without budgets a URL known as given is answered "seen" with no
      // host state read (most of a crawl's links).
      if (p.known_seen && options_.max_urls_per_host == 0 && !host_budgets_) continue;
      p.host = &HostFor(crawl, p.canon.host_key, seen_->PartitionOf(p.key.host_hash));
      // An exhausted host rejects before the seen-set, so raising its budget
      // later lets the same URLs in.
      if (BudgetLeft(*p.host, options_.max_urls_per_host) == 0 && p.req->refetch_at_ms <= 0) {
        p.reason = "host budget exhausted";
        continue;
      }
      if (p.known_seen) continue;
      PrefetchHost(*p.host);
      cand.push_back(i);
      keys.push_back(p.key);
    }
    for (size_t i : cand) PrefetchLastHead(*preps[i].host);
    // Arrival numbers follow request order (the seen-set calls back in its
    // own order); numbers of URLs that turn out seen are simply unused.
    // The seen-set's batch carries host records of the current RAM state:
    // what earlier calls left pending goes to the writer before it.
    if (!cand.empty()) SubmitPending();
    uint64_t first_seq = next_seq_;
    next_seq_ += cand.size();
    std::vector<SeenResult> seen;
    Status s = seen_->InsertIfNew(keys, &seen, [&](size_t k, rocksdb::WriteBatch& batch) {
      Prepared& p = preps[cand[k]];
      HostState& h = *p.host;
      if (BudgetLeft(h, options_.max_urls_per_host) == 0) {
        // Over budget within this batch: remembered as seen, not queued.
        p.reason = "host budget exhausted";
        return;
      }
      QueueItem item = p.Item();
      item.seq = first_seq + k;
      ReserveSeqs(&batch);
      if (item.due_ms > 0) IndexRecrawl(h, item, &batch);
      QueueNew(h, std::move(item), &batch);
      TouchQueue(h);  // this batch gets epoch batch_epoch_
      ++h.rec.added;
      ++crawl.stats.urls_seen;
      // The host record is not rewritten for an add (it was a third of an
      // add's writes): the queue entry is the change, and after a crash
      // RecountQueues finds it.
      h.counts_unwritten = true;
      crawl.dirty = true;
    }, [&](rocksdb::WriteBatch& batch) {
      // Host records and counters ride in the same atomic batch, once each.
      FlushDirty(&batch);
      if (crawl.dirty) PutCrawlStats(&batch, crawl);
    }, [&](rocksdb::WriteBatch* batch, CommitPipeline::AfterWrite after) {
      // Written by the writer thread while this thread goes on; the reply
      // waits for it (Finish's ticket is later).
      SubmitBatch(batch, std::move(after));
    });
    if (!s.ok()) {
      sticky_error_ = s;  // RAM counters already moved
      return s;
    }
    for (size_t k = 0; k < cand.size(); ++k) {
      Prepared& p = preps[cand[k]];
      if (!p.reason.empty()) continue;
      (*out)[cand[k]].kind =
          seen[k] == SeenResult::kNew ? AddResult::Kind::kNew : AddResult::Kind::kSeen;
      any_new |= seen[k] == SeenResult::kNew;
    }
    for (size_t i = 0; i < preps.size(); ++i) {
      if (preps[i].known_seen && preps[i].reason.empty())
        (*out)[i].kind = AddResult::Kind::kSeen;
      if (preps[i].reason.empty()) continue;
      (*out)[i].reason = preps[i].reason;
      ++crawl.stats.urls_rejected;
      crawl.dirty = true;
    }
    CRAWLFRONT_RETURN_IF_ERROR(ScheduleRefetch(preps, out));
    CRAWLFRONT_RETURN_IF_ERROR(Finish(ticket));  // counters and stats
    int64_t now = clock_->NowMs();
    for (const Prepared& p : preps) {
      if (p.host) Reschedule(*p.host, now);
    }
  }
  if (any_new) Notify();
  return Status::Ok();
}

// Seen URLs with a refetch time are queued again (a recrawl), each once:
// a URL listed twice in the call is queued once (the seen-set answers
// "seen" for the second listing of a URL new in this call), and so is one
// whose entry from an earlier REFETCH still waits (crawl_refetch.cc).
// REQUIRES: mu_ held; the caller commits pending_.
Status CrawlCore::ScheduleRefetch(std::span<Prepared> preps, std::vector<AddResult>* out) {
  bool any = false;
  std::unordered_set<Fingerprint, FingerprintHash> queued;
  for (size_t i = 0; i < preps.size(); ++i) {
    if (preps[i].req->refetch_at_ms <= 0) continue;
    any = true;
    if ((*out)[i].kind == AddResult::Kind::kNew) queued.insert(preps[i].key.fingerprint);
  }
  if (!any) return Status::Ok();  // a plain add: no second pass
  std::vector<size_t> again;
  bool unwritten = false;
  for (size_t i = 0; i < preps.size(); ++i) {
    Prepared& p = preps[i];
    if ((*out)[i].kind != AddResult::Kind::kSeen || p.req->refetch_at_ms <= 0) continue;
    if (!queued.insert(p.key.fingerprint).second) continue;
    again.push_back(i);
    unwritten |= Unwritten(*p.host);
  }
  // The index and queue reads must see these hosts' earlier writes, and the
  // fetch records' reads every DONE's (a DONE answered or not: a worker's
  // last DONE can still be in a batch when a re-seed comes).
  const bool read_fetches = options_.fetch_history && !again.empty();
  if (unwritten || read_fetches) CRAWLFRONT_RETURN_IF_ERROR(Flush());
  for (size_t i : again) {
    bool queued_now = false;
    CRAWLFRONT_RETURN_IF_ERROR(QueueRecrawl(preps[i], &queued_now));
    if (queued_now) (*out)[i].kind = AddResult::Kind::kRecrawl;
  }
  return Status::Ok();
}

// A URL has one recrawl queued at a time. One that waits moves to this
// call's time if that is earlier; one that is due (ready or leased), or
// retrying on its own backoff, stays. Moving a recrawl later would let a
// re-seed run each day with +24h, a little early, postpone it for ever.
Status CrawlCore::QueueRecrawl(Prepared& p, bool* queued) {
  *queued = false;
  HostState& h = *p.host;
  QueueItem entry;
  bool found;
  CRAWLFRONT_RETURN_IF_ERROR(FindRecrawl(h, p.canon.spec, &entry, &found));
  if (found) {
    // Ready entries have due_ms 0; a scheduled one may be due, not yet moved.
    const bool waits = entry.due_ms > clock_->NowMs() && entry.attempt == 1;
    if (!waits || p.req->refetch_at_ms >= entry.due_ms) return Status::Ok();
    pending_.Delete(store_->cf(Cf::kQueue), ScheduledKey(h.prefix, entry));
    if (h.rec.scheduled > 0) --h.rec.scheduled;
  }
  QueueItem item = p.Item();
  item.seq = AllocSeq(&pending_);
  // Its last fetch's validators make the recrawl a conditional GET
  // (ScheduleRefetch flushed the DONEs before).
  if (options_.fetch_history) {
    FetchRecord last;
    CRAWLFRONT_RETURN_IF_ERROR(ReadFetch(h, item.url, &last));
    if (!last.sitemap) {  // a sitemap is read in full (fetch_record.h)
      item.etag = std::move(last.etag);
      item.last_modified = std::move(last.last_modified);
    }
  }
  IndexRecrawl(h, item, &pending_);
  QueueNew(h, std::move(item), &pending_);
  TouchQueue(h);
  MarkDirty(h);
  *queued = true;
  return Status::Ok();
}

Result<bool> CrawlCore::Seen(std::string_view crawl_id, std::string_view url) {
  if (crawl_id.empty()) crawl_id = kDefaultCrawl;
  if (!ValidCrawlId(crawl_id)) return Status::InvalidArgument("bad crawl id");
  auto canon = Canonicalize(url, options_.url);
  if (!canon.ok()) return Status::InvalidArgument(BadUrl(canon.status()));
  return seen_->Contains(SeenKeyFor(crawl_id, *canon));
}

Status CrawlCore::CheckUrl(std::string_view crawl_id, std::string_view url, CanonicalUrl* canon,
                           SeenKey* key, std::string* reason) {
  auto c = Canonicalize(url, options_.url);
  if (!c.ok()) return Status::InvalidArgument(BadUrl(c.status()));
  *canon = std::move(c).value();
  *key = SeenKeyFor(crawl_id, *canon);
  reason->clear();
  // Depth 0: the URL's depth is its queue entry's, if it has one.
  if (auto why = scope_.Check(*canon, 0)) {
    *reason = std::move(*why);
  } else if (auto deny = DenyOf(crawl_id); deny && deny->Matches(canon->spec)) {
    *reason = "denied by pattern";
  }
  return Status::Ok();
}

}  // namespace crawlfront
