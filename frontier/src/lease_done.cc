// CrawlCore::Done, Renew and ExpireLeases: closing leases, retries with
// backoff, failures, robots.txt results.

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {

namespace {

bool RobotsFetchIsError(int status) {
  return status < 200 || status >= 500 || status == 429;
}

}  // namespace

CrawlCore::LeaseInFlight* CrawlCore::FindLease(std::string_view worker,
                                               std::string_view lease_id, uint64_t* id) {
  if (!ParseLeaseId(lease_id, id)) return nullptr;
  auto it = leases_.find(*id);
  if (it == leases_.end() || it->second.rec.worker != worker) return nullptr;
  return &it->second;
}

// Removes a page lease's entry from kQueue. Before any re-queue of the same
// item: a retry without delay writes the same key again.
void CrawlCore::ReleaseEntry(LeaseInFlight& l, rocksdb::WriteBatch* batch) {
  if (l.queue_key.empty()) return;
  HostState& h = *hosts_[l.host];
  batch->Delete(store_->cf(Cf::kQueue), l.queue_key);
  // A refill reads from the floor up: only then must it see this delete.
  if (!(l.queue_key < h.queue_floor)) TouchQueue(h);
  h.leased_keys.erase(l.queue_key);
  if (h.rec.leased > 0) --h.rec.leased;
  l.queue_key.clear();
  // An entry the host record already counts needs no record: after a crash
  // RecountQueues finds it gone and counts it done. A newer one (an add
  // since) does, or the count could not tell its add from its removal.
  // Rewriting the record per DONE was ~40% of lease + done's server CPU.
  if (l.rec.item.seq >= h.rec.seq_mark) {
    MarkDirty(h);
  } else {
    h.counts_unwritten = true;
  }
}

// REQUIRES: ReleaseEntry(l) done. In-flight counts live in RAM only.
void CrawlCore::EndLease(uint64_t id, LeaseInFlight& l) {
  HostState& h = *hosts_[l.host];
  if (l.saved) pending_.Delete(store_->cf(Cf::kLease), LeaseKey(h.partition, id));
  if (h.inflight > 0) --h.inflight;
  h.counts_unwritten = true;
  leases_.erase(id);
}

// The host's done count is written with its record: now when its entry
// left kQueue in a change that rewrites it, else later (see ReleaseEntry).
void CrawlCore::FinishPage(HostState& h) {
  ++h.rec.done;
  ++h.crawl->stats.urls_done;
  h.crawl->dirty = true;
  h.counts_unwritten = true;
}

void CrawlCore::Fail(HostState& h, const QueueItem& item, const std::string& reason) {
  spdlog::debug("crawl core: {} failed: {}", item.url, reason);
  ++h.crawl->stats.urls_failed;
  FinishPage(h);
}

void CrawlCore::Requeue(HostState& h, QueueItem item, int64_t due_ms,
                        rocksdb::WriteBatch* batch) {
  if (due_ms > 0) {
    item.due_ms = due_ms;
    RetimeRecrawl(h, item, batch);
    std::string key = ScheduledKey(h.prefix, item);
    batch->Put(store_->cf(Cf::kQueue), key, EncodeItem(item));
    NoteQueued(h, key);
    ++h.rec.scheduled;
    h.sched_min_due = std::min(h.sched_min_due, due_ms);
  } else {
    item.due_ms = 0;  // same order key as before: it keeps its place
    std::string key = ReadyKey(h.prefix, item);
    std::string value = EncodeItem(item);
    batch->Put(store_->cf(Cf::kQueue), key, value);
    NoteQueued(h, key);
    InsertHead(h, key, item, value);
    ++h.rec.queued;
  }
  TouchQueue(h);
  MarkDirty(h);
}

std::string CrawlCore::Retry(LeaseInFlight& l, const DoneReport& report, int64_t now,
                             rocksdb::WriteBatch* batch) {
  HostState& h = *hosts_[l.host];
  QueueItem item = l.rec.item;
  if (item.attempt >= options_.max_attempts) {
    std::string reason = "max attempts (" + std::to_string(options_.max_attempts) +
                         ") reached: " + (report.reason.empty() ? "retry" : report.reason);
    Fail(h, item, reason);
    return reason;
  }
  int shift = static_cast<int>(std::min<uint32_t>(item.attempt - 1, 30));
  int64_t backoff = std::min<int64_t>(options_.retry_backoff_base.count() << shift,
                                      options_.retry_backoff_max.count());
  int64_t due = now + std::max(DelayMs(h), backoff);
  if (report.retry_delay_ms > 0) {
    due = std::max(due, now + report.retry_delay_ms);
    // The server asked the whole host to slow down.
    if (report.http_status == 429 || report.http_status == 503) {
      h.rec.blocked_until_ms = std::max(h.rec.blocked_until_ms, now + report.retry_delay_ms);
    }
  }
  ++item.attempt;
  Requeue(h, std::move(item), due, batch);
  return {};
}

void CrawlCore::NoteFetch(const HostState& h, const QueueItem& item, FetchRecord r,
                          rocksdb::WriteBatch* batch) {
  if (!options_.fetch_history) return;
  r.attempt = item.attempt;
  batch->Put(store_->cf(Cf::kFetch), FetchKey(h.prefix, item.url), EncodeFetchRecord(r));
}

Status CrawlCore::ReadFetch(const HostState& h, std::string_view url, FetchRecord* r) {
  *r = FetchRecord{};
  std::string value;
  rocksdb::Status st =
      store_->db()->Get({}, store_->cf(Cf::kFetch), FetchKey(h.prefix, url), &value);
  if (st.IsNotFound()) return Status::Ok();
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(st));
  // Unreadable (a newer version's): reported as none rather than failing.
  if (!DecodeFetchRecord(value, r)) *r = FetchRecord{};
  return Status::Ok();
}

void CrawlCore::DonePage(LeaseInFlight& l, const DoneReport& report, int64_t now,
                         rocksdb::WriteBatch* batch) {
  HostState& h = *hosts_[l.host];
  CrawlStats& st = h.crawl->stats;
  FetchRecord rec{UrlOutcome::kFetched, report.http_status, 0, now, report.fetch_ms,
                  report.reason};
  switch (report.outcome) {
    case DoneOutcome::kFetched: {
      int cls = report.http_status / 100;
      if (cls == 2) ++st.fetched_2xx;
      if (cls == 3) ++st.fetched_3xx;
      if (cls == 4) ++st.fetched_4xx;
      if (cls == 5) ++st.fetched_5xx;
      h.rec.last_response_ms = std::max<int64_t>(report.fetch_ms, 0);
      // delay_factor x this response time, counted from the fetch start.
      h.rec.ready_at_ms = std::max(h.rec.ready_at_ms, l.rec.start_ms + DelayMs(h));
      FinishPage(h);
      rec.etag = report.etag;
      rec.last_modified = report.last_modified;
      rec.sitemap = report.sitemap;
      break;
    }
    case DoneOutcome::kRetry: {
      std::string failed = Retry(l, report, now, batch);
      rec.outcome = failed.empty() ? UrlOutcome::kRetry : UrlOutcome::kFailed;
      if (!failed.empty()) rec.reason = std::move(failed);
      break;
    }
    case DoneOutcome::kFailed:
      rec.outcome = UrlOutcome::kFailed;
      if (rec.reason.empty()) rec.reason = "failed";
      Fail(h, l.rec.item, rec.reason);
      break;
    case DoneOutcome::kDisallowed:
      rec.outcome = UrlOutcome::kDisallowed;
      ++st.urls_disallowed;
      FinishPage(h);
      break;
    case DoneOutcome::kRobots: return;  // rejected by Done
  }
  NoteFetch(h, l.rec.item, std::move(rec), batch);
  h.crawl->dirty = true;
}

void CrawlCore::SetRobots(HostState& h, RobotsState state, int64_t expires_ms,
                          std::shared_ptr<const RobotsRules> rules, rocksdb::WriteBatch* batch) {
  h.robots_state = state;
  h.robots_expires_ms = expires_ms;
  h.robots = std::move(rules);
  RobotsRecord r{state, expires_ms, h.robots ? h.robots->Serialize() : RobotsRules().Serialize(),
                h.robots_errors};
  batch->Put(store_->cf(Cf::kHost), RobotsKey(h.prefix, h.robots_origin), EncodeRobotsRecord(r));
  // An older version's record (no origin), if any, is superseded.
  if (!h.robots_origin.empty()) batch->Delete(store_->cf(Cf::kHost), RobotsKey(h.prefix, ""));
}

// A failed robots.txt is asked again on a doubling wait (a one-off 503 costs
// a minute, not robots_error_retry), or later if the server said so.
int64_t CrawlCore::RobotsRetryWaitMs(const HostState& h, const DoneReport& report) const {
  const int64_t cap = options_.robots_error_retry.count();
  int64_t wait = options_.robots_error_backoff.count();
  for (uint32_t n = 1; n < h.robots_errors && wait < cap; ++n) wait *= 2;  // no overflow
  return std::max<int64_t>(std::min(wait, cap), report.retry_delay_ms);
}

void CrawlCore::DoneRobots(LeaseInFlight& l, const DoneReport& report, int64_t now,
                           rocksdb::WriteBatch* batch, std::vector<std::string>* sitemaps) {
  HostState& h = *hosts_[l.host];
  ++h.crawl->stats.robots_fetched;
  h.crawl->dirty = true;
  h.rec.last_response_ms = std::max<int64_t>(report.fetch_ms, 0);
  bool got_response =
      report.outcome == DoneOutcome::kRobots || report.outcome == DoneOutcome::kFetched;
  int status = got_response ? report.http_status : 0;
  if (h.robots_state == RobotsState::kManual) return;  // the operator's rules win
  UseRobotsOf(h, OriginOf(l.rec.item.url));
  if (report.outcome == DoneOutcome::kDisallowed) {
    // The worker refused to contact the host (a private address): nothing
    // to retry soon, so complete disallow now. Its pages are then settled
    // as robots-blocked and the crawl can finish; asked again later.
    SetRobots(h, RobotsState::kOk, now + options_.robots_error_retry.count(),
              std::make_shared<const RobotsRules>(RobotsRules::DisallowAll()), batch);
    return;
  }
  auto rules = std::make_shared<const RobotsRules>(
      ForFetchOutcome(status, report.body, options_.user_agent));
  if (RobotsFetchIsError(status)) {
    // RFC 9309: a server error means complete disallow. Pages wait for a
    // retry; after max_attempts failures in a row the host's queued pages
    // are dropped as robots-blocked, so a crawl can finish, and robots.txt
    // is asked again after robots_error_retry.
    if (++h.robots_errors < options_.max_attempts) {
      SetRobots(h, RobotsState::kError, now + RobotsRetryWaitMs(h, report), rules, batch);
    } else {
      SetRobots(h, RobotsState::kOk, now + options_.robots_error_retry.count(), rules, batch);
    }
    return;
  }
  h.robots_errors = 0;
  *sitemaps = rules->sitemaps();
  SetRobots(h, RobotsState::kOk, now + options_.robots_ttl.count(), std::move(rules), batch);
}

Status CrawlCore::Done(std::string_view worker, std::string_view lease_id,
                       const DoneReport& report, bool* known, uint64_t* ticket,
                       LaterLinks* later) {
  *known = false;
  if (ticket) *ticket = 0;
  std::vector<AddRequest> links;
  std::string crawl;
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    int64_t now = clock_->NowMs();
    uint64_t id;
    LeaseInFlight* l = FindLease(worker, lease_id, &id);
    if (!l || now > l->deadline_ms) return Status::Ok();  // ExpireLeases re-queues it
    bool robots = l->rec.kind == LeaseKind::kRobots;
    if (!robots && report.outcome == DoneOutcome::kRobots) {
      return Status::InvalidArgument("outcome robots for a page lease");
    }
    rocksdb::WriteBatch& batch = pending_;
    HostState& h = *hosts_[l->host];
    ReleaseEntry(*l, &batch);
    std::vector<std::string> urls;
    if (robots) {
      DoneRobots(*l, report, now, &batch, &urls);
    } else {
      DonePage(*l, report, now, &batch);
      if (report.outcome == DoneOutcome::kFetched) urls = report.links;
    }
    // Politeness also counts from the report, as Heritrix counts from the
    // fetch's end: the host's next request then follows this one's response
    // by the full delay, whatever the worker's connect time, queueing or load
    // did to when the request left. Counting from an estimated start let a
    // new connection's setup shrink the gaps servers saw.
    h.rec.ready_at_ms = std::max(h.rec.ready_at_ms, now + DelayMs(h));
    crawl = l->rec.crawl;
    for (auto& u : urls) {
      links.push_back(AddRequest{std::move(u), l->rec.item.depth + 1, 0, l->rec.item.url, 0});
    }
    if (!robots && report.sitemap && !report.lastmod_s.empty()) {
      RecrawlChanged(h, l->rec.item, report.lastmod_s, now, &links);
    }
    // A sitemap read is queued again as its recrawl, so that what a site adds
    // to it later is found; its own links never do that (no loops).
    if (report.sitemap && !robots && report.outcome == DoneOutcome::kFetched &&
        options_.sitemap_refetch.count() > 0) {
      const QueueItem& item = l->rec.item;
      links.push_back(AddRequest{item.url, item.depth, item.priority, item.parent,
                                 now + options_.sitemap_refetch.count()});
    }
    EndLease(id, *l);
    CRAWLFRONT_RETURN_IF_ERROR(Finish(ticket));
    using Place = HostState::Place;
    Place was = h.place;
    int64_t was_ms = h.place_ms;
    Reschedule(h, now);
    // Only a host that became leasable (sooner) is news for waiting leases;
    // waking them on every DONE cost two context switches per URL.
    wake = h.place == Place::kRing
               ? was != Place::kRing
               : h.place == Place::kHeap && (was != h.place || h.place_ms < was_ms);
    *known = true;
  }
  if (later && links.size() > kAddChunk) {
    *later = LaterLinks{std::move(crawl), std::move(links)};
  } else if (!links.empty()) {
    std::vector<AddResult> results;
    uint64_t add_ticket = 0;
    CRAWLFRONT_RETURN_IF_ERROR(Add(crawl, links, &results, ticket ? &add_ticket : nullptr));
    if (ticket) *ticket = std::max(*ticket, add_ticket);  // Add notifies itself
  }
  if (wake) Notify();
  return Status::Ok();
}

// A sitemap read again as its recrawl (the kRecrawl reference names this
// very entry) was last read sitemap_refetch before that recrawl was due:
// the links whose <lastmod> is later changed since, and are queued for a
// recrawl now. A first read has no such time, and recrawls nothing.
void CrawlCore::RecrawlChanged(const HostState& h, const QueueItem& sitemap,
                               std::span<const int64_t> lastmod_s, int64_t now,
                               std::vector<AddRequest>* links) {
  const int64_t interval = options_.sitemap_refetch.count();
  if (interval <= 0 || lastmod_s.size() != links->size()) return;
  std::string value;
  rocksdb::Status st = store_->db()->Get({}, store_->cf(Cf::kRecrawl),
                                         RecrawlKey(h.prefix, sitemap.url), &value);
  QueueItem ref;
  if (!st.ok() || !DecodeRecrawlRef(value, &ref) || ref.seq != sitemap.seq) return;
  const int64_t previous_read_ms = ref.due_ms - interval;
  for (size_t i = 0; i < lastmod_s.size(); ++i) {
    if (lastmod_s[i] > 0 && lastmod_s[i] * 1000 > previous_read_ms) {
      (*links)[i].refetch_at_ms = now;
    }
  }
}

// The new deadline is written before the reply, as a DONE is: a renewal is
// rare (long fetches, and a worker handing back its leases at exit), and a
// worker that was told yes must not find its lease gone after a crash.
Status CrawlCore::Renew(std::string_view worker, std::string_view lease_id, int64_t ms,
                        bool* known, uint64_t* ticket) {
  std::lock_guard lock(mu_);
  *known = false;
  if (ticket) *ticket = 0;
  CRAWLFRONT_RETURN_IF_ERROR(Health());
  int64_t now = clock_->NowMs();
  uint64_t id;
  LeaseInFlight* l = FindLease(worker, lease_id, &id);
  if (!l || now > l->deadline_ms) return Status::Ok();
  l->deadline_ms = now + (ms > 0 ? ms : options_.lease_timeout.count());
  SaveLease(id, *l, now);
  *known = true;
  return Finish(ticket);
}

Status CrawlCore::ExpireLeases(size_t* expired) {
  return ExpireWhere(
      [](uint64_t, const LeaseInFlight& l, int64_t now) { return l.deadline_ms < now; },
      "lease expired", expired, /*save=*/true);
}

// A lease on disk outlives a crash (RestoreLeases): its worker's result
// then still counts, and the page is not fetched twice. A lease check
// writes the leases still open rather than each LEASE writing its own (most
// end sooner, and then cost nothing), so a crash forgets only the leases
// made since the last check.
void CrawlCore::SaveLease(uint64_t id, LeaseInFlight& l, int64_t now) {
  StoredLease r{l.rec, std::max<int64_t>(l.deadline_ms - now, 0), l.queue_key};
  pending_.Put(store_->cf(Cf::kLease), LeaseKey(hosts_[l.host]->partition, id),
               EncodeStoredLease(r));
  l.saved = true;
}

// Ends the leases `due` picks as expired: back to their queues with
// attempt+1, or failed after max_attempts; a robots lease makes its origin
// fetch robots.txt again.
Status CrawlCore::ExpireWhere(const ExpiryFilter& due, std::string_view why, size_t* expired,
                              bool save) {
  size_t n = 0;
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    int64_t now = clock_->NowMs();
    rocksdb::WriteBatch& batch = pending_;
    std::vector<uint32_t> touched;
    for (auto it = leases_.begin(); it != leases_.end();) {
      auto next = std::next(it);
      LeaseInFlight& l = it->second;
      if (due(it->first, l, now)) {
        HostState& h = *hosts_[l.host];
        ReleaseEntry(l, &batch);
        ++h.crawl->stats.leases_expired;
        h.crawl->dirty = true;
        if (l.rec.kind == LeaseKind::kRobots) {
          if (h.robots_state != RobotsState::kManual) {
            UseRobotsOf(h, OriginOf(l.rec.item.url));
            h.robots_state = RobotsState::kNone;  // lease robots.txt again
          }
        } else if (l.rec.item.attempt >= options_.max_attempts) {
          std::string reason = "lease expired " + std::to_string(l.rec.item.attempt) + " times";
          Fail(h, l.rec.item, reason);
          NoteFetch(h, l.rec.item, {UrlOutcome::kFailed, 0, 0, now, 0, std::move(reason)},
                    &batch);
        } else {
          NoteFetch(h, l.rec.item, {UrlOutcome::kExpired, 0, 0, now, 0, std::string(why)},
                    &batch);
          QueueItem item = l.rec.item;
          ++item.attempt;
          Requeue(h, std::move(item), 0, &batch);
        }
        touched.push_back(l.host);
        EndLease(it->first, l);
        ++n;
      } else if (save && !l.saved) {
        SaveLease(it->first, l, now);
      }
      it = next;
    }
    CRAWLFRONT_RETURN_IF_ERROR(Flush());
    for (uint32_t id : touched) Reschedule(*hosts_[id], now);
  }
  if (expired) *expired = n;
  if (n > 0) Notify();
  return Status::Ok();
}

Status CrawlCore::ReleaseLeases(std::string_view worker, std::span<const std::string> lease_ids,
                                size_t* released) {
  std::set<uint64_t> ids;
  for (const std::string& s : lease_ids) {
    uint64_t id;
    if (ParseLeaseId(s, &id)) ids.insert(id);  // others match no lease
  }
  if (!lease_ids.empty() && ids.empty()) {
    *released = 0;
    return Status::Ok();
  }
  auto mine = [&](uint64_t id, const LeaseInFlight& l, int64_t) {
    return l.rec.worker == worker && (ids.empty() || ids.count(id) > 0);
  };
  return ExpireWhere(mine, "lease released", released);
}

std::vector<WorkerLeases> CrawlCore::LeasesByWorker() {
  std::lock_guard lock(mu_);
  const int64_t now = clock_->NowMs();
  std::map<std::string_view, WorkerLeases> by;
  for (const auto& [id, l] : leases_) {
    WorkerLeases& w = by[l.rec.worker];
    const int64_t left = std::max<int64_t>(0, l.deadline_ms - now);
    if (w.leases++ == 0 || left < w.next_deadline_in_ms) w.next_deadline_in_ms = left;
  }
  std::vector<WorkerLeases> out;
  for (auto& [worker, w] : by) {
    w.worker = std::string(worker);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace crawlfront
