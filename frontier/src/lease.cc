// CrawlCore::Lease: round-robin over ready hosts, robots.txt first, pages in
// (priority, depth, arrival) order, politeness from the lease time.

#include <algorithm>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
// By hand: snprintf was 3% of lease + done's io thread.
std::string FormatLeaseId(uint64_t id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(17, 'L');
  for (int i = 16; i >= 1; --i, id >>= 4) s[i] = kHex[id & 0xf];
  return s;
}

namespace {

bool NeedsRobots(const HostState& h, int64_t now) {
  switch (h.robots_state) {
    case RobotsState::kNone: return true;
    case RobotsState::kOk:
    case RobotsState::kError: return now >= h.robots_expires_ms;
    default: return false;
  }
}

}  // namespace

bool ParseLeaseId(std::string_view s, uint64_t* id) {
  if (s.size() != 17 || s[0] != 'L') return false;
  uint64_t v = 0;
  for (char c : s.substr(1)) {
    int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  *id = v;
  return true;
}

void CrawlCore::MoveDueToRing(int64_t now) {
  while (!waiting_.empty() && waiting_.top().at_ms <= now) {
    Waiting w = waiting_.top();
    waiting_.pop();
    HostState& h = *hosts_[w.host];
    if (w.gen != h.gen || h.place != HostState::Place::kHeap) continue;  // stale
    h.place = HostState::Place::kRing;
    ring_.push_back({h.id, h.gen});
    Account(h);
  }
}

Status CrawlCore::Lease(std::string_view worker, size_t max, std::string_view crawl_filter,
                        std::vector<LeasedUrl>* out, uint64_t* ticket) {
  if (ticket) *ticket = 0;
  if (worker.empty() || worker.size() > 256) return Status::InvalidArgument("bad worker id");
  size_t before = out->size();
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    int64_t now = clock_->NowMs();
    MoveDueToRing(now);
    std::vector<RingEntry> skipped;  // hosts of other crawls keep their turn
    // Each visit leases at most one URL from one host, so a host returns to
    // the back of the ring and every ready host gets a turn (fairness).
    size_t visits = 0, limit = ring_.size() + 2 * max + 16, robots_work = 0;
    while (out->size() - before < max && !ring_.empty() && visits++ < limit &&
           robots_work < kRobotsWorkPerLease) {
      RingEntry e = ring_.front();
      ring_.pop_front();
      PrefetchRingAhead();
      HostState& h = *hosts_[e.host];
      if (e.gen != h.gen || h.place != HostState::Place::kRing) continue;
      if (!crawl_filter.empty() && h.crawl->id != crawl_filter) {
        skipped.push_back(e);
        continue;
      }
      h.place = HostState::Place::kNone;
      Status s = LeaseFromHost(h, worker, now, &pending_, out, &robots_work);
      if (!s.ok()) {
        Account(h);
        sticky_error_ = s;
        return s;
      }
      Reschedule(h, now);
    }
    for (auto it = skipped.rbegin(); it != skipped.rend(); ++it) ring_.push_front(*it);
    CRAWLFRONT_RETURN_IF_ERROR(Finish(ticket));
  }
  return Status::Ok();
}

// Leases one URL of `h` if it is ready: its robots.txt if the rules are
// missing or stale, else the first allowed page. Disallowed pages met on the
// way are finished as robots-blocked, as many as `robots_work` (the call's
// matching so far) leaves room for under kRobotsWorkPerLease.
Status CrawlCore::LeaseFromHost(HostState& h, std::string_view worker, int64_t now,
                                rocksdb::WriteBatch* batch, std::vector<LeasedUrl>* out,
                                size_t* robots_work) {
  if (ReadyTime(h, now) > now) return Status::Ok();
  // RocksDB reads of this host's queue must see its pending writes: write
  // them first if pending_ touched it (other hosts' writes do not matter).
  auto sync = [&]() -> Status {
    return Unwritten(h) ? Flush() : Status::Ok();
  };
  if (h.rec.scheduled > 0 && h.sched_min_due <= now) {
    CRAWLFRONT_RETURN_IF_ERROR(sync());
    CRAWLFRONT_RETURN_IF_ERROR(PromoteDue(h, now, batch));
    TouchQueue(h);
  }
  for (int step = 0; step < 256; ++step) {
    if (h.heads.empty()) {
      if (h.rec.queued == 0) return Status::Ok();
      CRAWLFRONT_RETURN_IF_ERROR(sync());
      CRAWLFRONT_RETURN_IF_ERROR(RefillHeads(h, now));
      if (h.heads.empty()) return Status::Ok();
    }
    const QueueHead head = h.heads.front();
    QueueItem item;
    CRAWLFRONT_RETURN_IF_ERROR(DecodeItem(head.value, &item));
    // The rules of this page's origin; the operator's cover every origin.
    if (options_.respect_robots && h.robots_state != RobotsState::kManual) {
      UseRobotsOf(h, OriginOf(item.url));
      // Its robots.txt failed: the page waits (ReadyTime now says until when).
      if (h.robots_state == RobotsState::kError && now < h.robots_expires_ms) {
        return Status::Ok();
      }
    }
    if (options_.respect_robots && NeedsRobots(h, now)) {
      LeaseRecord rec{LeaseKind::kRobots, h.crawl->id, h.host_key, std::string(worker), now, {}};
      rec.item.url = h.robots_origin + "/robots.txt";
      h.robots_state = RobotsState::kFetching;
      StartLease(h, std::move(rec), "", now, batch, out);
      return Status::Ok();
    }
    const bool check_robots = options_.respect_robots && h.robots;
    if (check_robots && *robots_work >= kRobotsWorkPerLease) return Status::Ok();
    std::string key = ReadyKeyOf(h.prefix, head.rank, head.seq);
    PopFrontHead(h);  // ends `head`
    // The smallest key after this one, in the floor's own buffer: building
    // a new string per lease showed as 3% of a lease + done profile.
    h.queue_floor.assign(key);
    h.queue_floor.push_back('\0');
    --h.rec.queued;
    const std::string_view path = check_robots ? PathAndQuery(item.url) : std::string_view();
    if (check_robots) *robots_work += h.robots->MatchCost(path.size());
    if (check_robots && !h.robots->Allowed(path)) {
      batch->Delete(store_->cf(Cf::kQueue), key);
      TouchQueue(h);
      MarkDirty(h);
      ++h.crawl->stats.urls_robots_blocked;
      FinishPage(h);
      NoteFetch(h, item, {UrlOutcome::kRobotsBlocked, 0, 0, now, 0, "robots.txt disallows it"},
                batch);
      continue;
    }
    // The entry stays in kQueue until DONE, and the host record is not
    // written either: on disk queued + leased still counts it, which is all
    // a restart needs (it is queued again). A lease costs no RocksDB write.
    ++h.rec.leased;
    h.leased_keys.insert(key);
    StartLease(h, LeaseRecord{LeaseKind::kPage, h.crawl->id, h.host_key, std::string(worker),
                              now, std::move(item)},
               std::move(key), now, batch, out);
    return Status::Ok();
  }
  return Status::Ok();
}

void CrawlCore::StartLease(HostState& h, LeaseRecord rec, std::string queue_key, int64_t now,
                           rocksdb::WriteBatch* batch, std::vector<LeasedUrl>* out) {
  uint64_t id = AllocLeaseId(batch);  // ids stay unique across restarts
  ++h.inflight;
  // Politeness counts from the fetch start; Done may push it further. Only
  // the next write of the host record (DONE) persists it.
  h.rec.ready_at_ms = std::max(h.rec.ready_at_ms, now + DelayMs(h));
  LeasedUrl l;
  l.lease_id = FormatLeaseId(id);
  l.url = rec.item.url;
  l.depth = rec.item.depth;
  l.attempt = rec.item.attempt;
  l.kind = rec.kind;
  l.crawl = rec.crawl;
  l.deadline_ms = now + options_.lease_timeout.count();
  l.etag = rec.item.etag;
  l.last_modified = rec.item.last_modified;
  out->push_back(std::move(l));
  leases_.emplace(id, LeaseInFlight{std::move(rec), h.id, now + options_.lease_timeout.count(),
                                    std::move(queue_key)});
}

int64_t CrawlCore::NextReadyMs(std::string_view crawl_filter) {
  std::lock_guard lock(mu_);
  int64_t now = clock_->NowMs();
  if (!crawl_filter.empty()) {
    auto it = crawls_.find(crawl_filter);
    if (it == crawls_.end()) return kNever;
    MoveDueToRing(now);
    if (it->second->live.ready > 0) return now;  // spares the walk below
    int64_t best = kNever;
    for (uint32_t id : it->second->hosts) best = std::min(best, ReadyTime(*hosts_[id], now));
    return best == kNever ? kNever : std::max(best, now);
  }
  MoveDueToRing(now);
  while (!ring_.empty()) {
    const RingEntry& e = ring_.front();
    const HostState& h = *hosts_[e.host];
    if (e.gen == h.gen && h.place == HostState::Place::kRing) return now;
    ring_.pop_front();
  }
  while (!waiting_.empty()) {
    const Waiting& w = waiting_.top();
    const HostState& h = *hosts_[w.host];
    if (w.gen == h.gen && h.place == HostState::Place::kHeap) return w.at_ms;
    waiting_.pop();
  }
  return kNever;
}

}  // namespace crawlfront
