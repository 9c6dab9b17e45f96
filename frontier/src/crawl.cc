// CrawlCore: opening, restoring state from RocksDB, persistence helpers and
// host controls. Scheduling is in host_sched.cc and lease*.cc, adding in
// crawl_add.cc, queries in crawl_stats.cc.

#include "crawlfront/frontier/crawl.h"

#include <algorithm>
#include <cassert>

#include <spdlog/spdlog.h>

namespace crawlfront {
namespace {

// Persisted CrawlStats fields, in storage order (append only).
constexpr size_t kStatsFields = 13;

std::vector<uint64_t> StatsToVector(const CrawlStats& s) {
  return {s.urls_seen,   s.urls_done,   s.urls_failed, s.urls_disallowed,
          s.urls_robots_blocked, s.urls_rejected, s.fetched_2xx, s.fetched_3xx,
          s.fetched_4xx, s.fetched_5xx, s.leases_expired, s.robots_fetched,
          s.urls_dropped};
}

void StatsFromVector(const std::vector<uint64_t>& v, CrawlStats* s) {
  uint64_t* fields[kStatsFields] = {
      &s->urls_seen,   &s->urls_done,   &s->urls_failed, &s->urls_disallowed,
      &s->urls_robots_blocked, &s->urls_rejected, &s->fetched_2xx, &s->fetched_3xx,
      &s->fetched_4xx, &s->fetched_5xx, &s->leases_expired, &s->robots_fetched,
      &s->urls_dropped};
  for (size_t i = 0; i < kStatsFields && i < v.size(); ++i) *fields[i] = v[i];
}

}  // namespace

bool ValidCrawlId(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<std::unique_ptr<CrawlCore>> CrawlCore::Open(Store* store, SeenSet* seen,
                                                   const CrawlOptions& options, Clock* clock) {
  if (options.max_inflight_per_host == 0) {
    return Status::InvalidArgument("max_inflight_per_host must be >= 1");
  }
  if (options.max_attempts == 0) return Status::InvalidArgument("max_attempts must be >= 1");
  if (options.head_buffer == 0) return Status::InvalidArgument("head_buffer must be >= 1");
  if (options.delay_factor < 0) return Status::InvalidArgument("delay_factor must be >= 0");
  auto scope = ScopeRules::Compile(options);
  if (!scope.ok()) return scope.status();
  std::unique_ptr<CrawlCore> core(
      new CrawlCore(store, seen, options, clock, std::move(scope).value()));
  CRAWLFRONT_RETURN_IF_ERROR(core->Restore());
  return core;
}

CrawlCore::CrawlCore(Store* store, SeenSet* seen, const CrawlOptions& options, Clock* clock,
                     ScopeRules scope)
    : store_(store),
      seen_(seen),
      options_(options),
      clock_(clock),
      scope_(std::move(scope)),
      pipeline_(store) {}

// Writes what unacknowledged calls left pending, the leases in flight and
// the host records adds left unwritten, then marks the close clean, so RAM
// and disk agree and the next open need not count the queues. A core whose
// Restore failed marks nothing: its RAM state may be partial.
CrawlCore::~CrawlCore() {
  std::lock_guard lock(mu_);
  if (!Health().ok()) return;
  if (restored_) {
    SaveLeases();
    for (auto& h : hosts_) {
      if (h->counts_unwritten) MarkDirty(*h);
    }
    FlushDirty(&pending_);
    pending_.Put(store_->cf(Cf::kMeta), kMetaClosedClean, "1");
  }
  if (!HasPending()) return;
  Status s = Flush();
  if (!s.ok()) spdlog::error("crawl core: final write failed: {}", s.ToString());
}

Status CrawlCore::Restore() {
  std::lock_guard lock(mu_);
  // Arrival numbers are reserved with the first add: without them nothing
  // was ever queued (a new data directory).
  const bool clean = store_->GetMeta(kMetaClosedClean).ok() || !store_->GetMeta(kMetaSeq).ok();
  CRAWLFRONT_RETURN_IF_ERROR(RestoreMeta());
  CRAWLFRONT_RETURN_IF_ERROR(RestoreHosts());
  bool recount = !clean;
  std::vector<KeptLease> kept;
  CRAWLFRONT_RETURN_IF_ERROR(RestoreLeases(clean, &recount, &kept));
  if (recount) CRAWLFRONT_RETURN_IF_ERROR(RecountQueues());
  if (clean && recount && !kept.empty()) {
    spdlog::warn("crawl core: {} leases of the last run are queued again", kept.size());
    kept.clear();
  }
  TakeBackLeases(std::move(kept), clean);
  // Written before anything else: a crash from here on leaves no mark.
  pending_.Delete(store_->cf(Cf::kMeta), kMetaClosedClean);
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  int64_t now = clock_->NowMs();
  uint64_t queued = 0;
  for (auto& h : hosts_) {
    queued += h->rec.queued + h->rec.scheduled;
    // A DONE's ready time reaches disk only with a later host record: after
    // a crash each host waits its delay, lest a fetch the record missed be
    // followed too soon.
    if (!clean) h->rec.ready_at_ms = std::max(h->rec.ready_at_ms, now + DelayMs(*h));
    Reschedule(*h, now);
  }
  spdlog::info("crawl core: restored {} crawls, {} hosts, {} queued URLs", crawls_.size(),
               hosts_.size(), queued);
  restored_ = true;
  return Status::Ok();
}

Status CrawlCore::RestoreMeta() {
  auto seq = store_->GetMeta(kMetaSeq);
  if (seq.ok() && seq->size() == 8) next_seq_ = seq_limit_ = ReadBe64(seq->data());
  auto lease = store_->GetMeta(kMetaLeaseSeq);
  if (lease.ok() && lease->size() == 8) next_lease_ = lease_limit_ = ReadBe64(lease->data());
  auto paused = store_->GetMeta(kMetaPausedAll);
  paused_all_ = paused.ok() && *paused == "1";

  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kMeta)));
  for (it->Seek(kMetaCrawlPrefix); it->Valid() && it->key().starts_with(kMetaCrawlPrefix);
       it->Next()) {
    std::string_view rest(it->key().data() + kMetaCrawlPrefix.size(),
                          it->key().size() - kMetaCrawlPrefix.size());
    size_t dot = rest.find('.');
    if (dot == std::string_view::npos) continue;
    std::string_view kind = rest.substr(0, dot), id = rest.substr(dot + 1);
    if (!ValidCrawlId(id)) continue;
    CrawlState& c = CrawlFor(id);
    if (kind == "stats") {
      std::vector<uint64_t> v(kStatsFields, 0);
      CRAWLFRONT_RETURN_IF_ERROR(DecodeU64s(it->value().ToStringView(), &v));
      StatsFromVector(v, &c.stats);
    } else if (kind == "paused") {
      c.paused = it->value().ToStringView() == "1";
    } else if (kind == "deny") {
      CRAWLFRONT_RETURN_IF_ERROR(RestoreDeny(c, it->value().ToStringView()));
    }
  }
  return FromRocks(it->status());
}

Status CrawlCore::RestoreHosts() {
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kHost)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    uint16_t part;
    std::string crawl, host_key;
    size_t plen;
    std::string_view key = it->key().ToStringView();
    // 'H', or 'R' and the robots record's origin (none in older versions).
    if (!ParseHostPrefix(key, &part, &crawl, &host_key, &plen) || key.size() <= plen ||
        (key[plen] != 'R' && key.size() != plen + 1)) {
      return Status::Corruption("bad host key");
    }
    HostState& h = HostFor(CrawlFor(crawl), host_key, part);
    if (key[plen] == 'H') {
      CRAWLFRONT_RETURN_IF_ERROR(DecodeHostRecord(it->value().ToStringView(), &h.rec));
      host_budgets_ |= h.rec.budget >= 0;
      // Entries leased by the previous run are still in kQueue: queued again.
      h.rec.queued += h.rec.leased;
      h.rec.leased = 0;
      if (h.rec.scheduled > 0) h.sched_min_due = 0;  // found on first PromoteDue
    } else if (key[plen] == 'R') {
      RobotsRecord r;
      CRAWLFRONT_RETURN_IF_ERROR(DecodeRobotsRecord(it->value().ToStringView(), &r));
      CRAWLFRONT_RETURN_IF_ERROR(RestoreRobots(key.substr(plen + 1), r, h));
    }
  }
  return FromRocks(it->status());
}

// Leases on disk, from a clean close (SaveLeases, every lease in flight) or
// from the last lease checks before a crash (ExpireLeases), are taken back
// with the time they had left, so their workers' results still count; their
// pages' entries are in kQueue, counted as queued until taken back. Leases
// of a crashed run that no check saved are queued again, as are all if a
// page a clean close kept is missing from kQueue (the store changed behind
// the frontier's back): the queues are then counted as after a crash.
// Records of older versions held the only copy of their item: it goes back
// to its queue.
Status CrawlCore::RestoreLeases(bool clean, bool* recount, std::vector<KeptLease>* kept) {
  rocksdb::WriteBatch& batch = pending_;
  size_t requeued = 0;
  std::string value;
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kLease)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    StoredLease r;
    CRAWLFRONT_RETURN_IF_ERROR(DecodeStoredLease(it->value().ToStringView(), &r));
    if (it->key().size() != 10) return Status::Corruption("bad lease key");
    const uint16_t part = ReadBe16(it->key().data());
    batch.Delete(store_->cf(Cf::kLease), it->key());
    if (r.left_ms < 0) {
      HostState& h = HostFor(CrawlFor(r.rec.crawl), r.rec.host_key, part);
      if (r.rec.kind == LeaseKind::kPage) Requeue(h, std::move(r.rec.item), 0, &batch);
      ++requeued;
      continue;
    }
    if (r.rec.kind == LeaseKind::kPage &&
        (r.queue_key.empty() ||
         !store_->db()->Get(rocksdb::ReadOptions(), store_->cf(Cf::kQueue), r.queue_key, &value)
              .ok())) {
      // The page left kQueue by other means than its DONE (which deletes
      // this record in the same write): not taken back.
      if (clean) *recount = true;
      continue;
    }
    kept->push_back({ReadBe64(it->key().data() + 2), part, std::move(r)});
  }
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(it->status()));
  if (requeued == 0) return Status::Ok();
  spdlog::info("crawl core: re-queued {} leases of an older version", requeued);
  return Flush();  // RecountQueues reads kQueue
}

// REQUIRES: the queues counted (RecountQueues) if they were to be.
void CrawlCore::TakeBackLeases(std::vector<KeptLease> kept, bool clean) {
  if (kept.empty()) return;
  const int64_t now = clock_->NowMs();
  for (KeptLease& k : kept) {
    HostState& h = HostFor(CrawlFor(k.lease.rec.crawl), k.lease.rec.host_key, k.part);
    TakeBackLease(h, k.id, std::move(k.lease), now);
  }
  if (clean) {
    spdlog::info("crawl core: {} leases in flight at the last stop are open again, with the "
                 "time they had left", kept.size());
  } else {
    spdlog::info("crawl core: {} leases the last lease check saved before the crash are open "
                 "again, with the time they had left then; the run's other leases are queued "
                 "again", kept.size());
  }
}

// REQUIRES: a page lease's entry is in kQueue, counted as queued.
void CrawlCore::TakeBackLease(HostState& h, uint64_t id, StoredLease r, int64_t now) {
  if (r.rec.kind == LeaseKind::kPage) {
    if (h.rec.queued > 0) --h.rec.queued;
    ++h.rec.leased;
    h.leased_keys.insert(r.queue_key);
  } else if (h.robots_state != RobotsState::kManual) {
    UseRobotsOf(h, OriginOf(r.rec.item.url));
    h.robots_state = RobotsState::kFetching;
  }
  ++h.inflight;
  leases_.emplace(id, LeaseInFlight{std::move(r.rec), h.id, now + r.left_ms,
                                    std::move(r.queue_key)});
}

// At a clean close: every lease in flight with the time it has left (the
// frontier's downtime is not counted against it) and its page's queue key.
void CrawlCore::SaveLeases() {
  if (leases_.empty()) return;
  const int64_t now = clock_->NowMs();
  for (auto& [id, l] : leases_) SaveLease(id, l, now);
  spdlog::info("crawl core: kept {} leases in flight for the next start", leases_.size());
}

CrawlState& CrawlCore::CrawlFor(std::string_view id) {
  auto it = crawls_.find(id);
  if (it != crawls_.end()) return *it->second;
  auto c = std::make_unique<CrawlState>();
  c->id = std::string(id);
  CrawlState& ref = *c;
  crawls_.emplace(c->id, std::move(c));
  return ref;
}

// `partition` is a function of crawl and host key, so the key alone finds
// the host.
HostState& CrawlCore::HostFor(CrawlState& crawl, std::string_view host_key,
                              uint16_t partition) {
  auto it = crawl.host_ids.find(host_key);
  if (it != crawl.host_ids.end()) return *hosts_[it->second];
  auto h = std::make_unique<HostState>();
  h->id = static_cast<uint32_t>(hosts_.size());
  h->crawl = &crawl;
  h->host_key = std::string(host_key);
  h->partition = partition;
  h->prefix = HostPrefix(partition, crawl.id, host_key);
  if (!options_.respect_robots) h->robots_state = RobotsState::kOk;
  crawl.host_ids.emplace(h->host_key, h->id);
  crawl.hosts.push_back(h->id);
  hosts_.push_back(std::move(h));
  host_queued_.push_back(0);
  return *hosts_.back();
}

uint16_t CrawlCore::PartitionFor(std::string_view crawl, std::string_view host_key) const {
  return static_cast<uint16_t>(seen_->PartitionOf(CrawlHostHash(crawl, host_key)));
}

namespace {
// The queue key of a host name as an operator types it ("Example.com:80").
Result<std::string> HostKeyOfName(std::string_view crawl, std::string_view host,
                                  const UrlOptions& url_options) {
  if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
  if (host.empty() || host.find_first_of("/?#@ ") != std::string_view::npos) {
    return Status::InvalidArgument("bad host name");
  }
  auto canon = Canonicalize("http://" + std::string(host) + "/", url_options);
  if (!canon.ok()) return Status::InvalidArgument("bad host name: " + canon.status().message());
  return std::move(canon->host_key);
}
}  // namespace

Result<HostState*> CrawlCore::HostByName(std::string_view crawl, std::string_view host) {
  if (crawl.empty()) crawl = kDefaultCrawl;
  auto key = HostKeyOfName(crawl, host, options_.url);
  if (!key.ok()) return key.status();
  CrawlState& c = CrawlFor(crawl);
  return &HostFor(c, *key, PartitionFor(crawl, *key));
}

Result<HostState*> CrawlCore::FindHostByName(std::string_view crawl, std::string_view host) {
  if (crawl.empty()) crawl = kDefaultCrawl;
  auto key = HostKeyOfName(crawl, host, options_.url);
  if (!key.ok()) return key.status();
  auto c = crawls_.find(crawl);
  if (c == crawls_.end()) return static_cast<HostState*>(nullptr);
  auto it = c->second->host_ids.find(*key);
  return it == c->second->host_ids.end() ? nullptr : hosts_[it->second].get();
}

void CrawlCore::MarkDirty(HostState& h) {
  if (h.dirty) return;
  h.dirty = true;
  dirty_hosts_.push_back(h.id);
}

void CrawlCore::FlushDirty(rocksdb::WriteBatch* batch) {
  for (uint32_t id : dirty_hosts_) {
    HostState& h = *hosts_[id];
    h.dirty = false;
    h.counts_unwritten = false;
    // Every entry queued so far is in this record's counts (an add's
    // entries are all placed before its batch's records are written).
    h.rec.seq_mark = next_seq_;
    record_key_.assign(h.prefix);
    record_key_.push_back('H');
    EncodeHostRecordTo(h.rec, &record_value_);
    batch->Put(store_->cf(Cf::kHost), record_key_, record_value_);
    if (h.crawl->dirty) PutCrawlStats(batch, *h.crawl);
  }
  dirty_hosts_.clear();
}

void CrawlCore::PutCrawlStats(rocksdb::WriteBatch* batch, CrawlState& c) {
  c.dirty = false;
  batch->Put(store_->cf(Cf::kMeta), std::string(kMetaCrawlPrefix) + "stats." + c.id,
             EncodeU64s(StatsToVector(c.stats)));
}

// Sequence numbers are reserved in blocks: the limit is persisted in the batch
// that first uses a number past the old limit, and a restart continues at the
// persisted limit, so no number is ever handed out twice.
static uint64_t Alloc(uint64_t* next, uint64_t* limit, std::string_view key, Store* store,
                      rocksdb::WriteBatch* batch) {
  constexpr uint64_t kBlock = 1 << 16;
  if (*next >= *limit) {
    *limit = *next + kBlock;
    std::string v;
    AppendBe64(&v, *limit);
    batch->Put(store->cf(Cf::kMeta), key, v);
  }
  return (*next)++;
}

void CrawlCore::ReserveSeqs(rocksdb::WriteBatch* batch) {
  if (next_seq_ <= seq_limit_) return;  // every number used is below the limit
  seq_limit_ = next_seq_ + (1 << 16);
  std::string v;
  AppendBe64(&v, seq_limit_);
  batch->Put(store_->cf(Cf::kMeta), kMetaSeq, v);
}

uint64_t CrawlCore::AllocSeq(rocksdb::WriteBatch* batch) {
  return Alloc(&next_seq_, &seq_limit_, kMetaSeq, store_, batch);
}

uint64_t CrawlCore::AllocLeaseId(rocksdb::WriteBatch* batch) {
  return Alloc(&next_lease_, &lease_limit_, kMetaLeaseSeq, store_, batch);
}

Status CrawlCore::Health() const {
  if (!sticky_error_.ok()) return sticky_error_;
  return pipeline_.failure();
}

// Hands pending_ to the writer with the current records of every host and
// crawl changed since the last batch, so each is written once per batch
// however many calls changed it. REQUIRES: mu_ held (batches keep its order).
void CrawlCore::SubmitPending() {
  for (auto& [id, c] : crawls_) {
    if (c->dirty) PutCrawlStats(&pending_, *c);
  }
  FlushDirty(&pending_);
  if (pending_.Count() > 0) SubmitBatch(&pending_);
}

// REQUIRES: mu_ held, so that epochs follow batch_epoch_.
void CrawlCore::SubmitBatch(rocksdb::WriteBatch* batch, CommitPipeline::AfterWrite after) {
  [[maybe_unused]] const uint64_t epoch = pipeline_.Submit(batch, std::move(after));
  assert(epoch == batch_epoch_);
  ++batch_epoch_;  // touched before: written once the writer passes it
}

// A call's changes are in batches up to its ticket's (pending_ if the
// ticket is batch_epoch_); what it read may come from any earlier batch.
uint64_t CrawlCore::SubmitUpTo(uint64_t ticket) {
  if (ticket >= batch_epoch_) SubmitPending();
  return std::min(ticket, batch_epoch_ - 1);
}

// A failed write leaves RAM ahead of disk, so every later call fails too
// (reopen to recover). REQUIRES: mu_ held.
Status CrawlCore::Flush() {
  SubmitPending();
  Status s = pipeline_.Wait(batch_epoch_ - 1);
  if (!s.ok()) sticky_error_ = s;
  return s;
}

Status CrawlCore::Finish(uint64_t* ticket) {
  if (ticket == nullptr) return Flush();
  *ticket = batch_epoch_;
  return Status::Ok();
}

Status CrawlCore::Sync(uint64_t ticket) {
  uint64_t epoch;
  {
    std::lock_guard lock(mu_);
    // Checked first: the failed write may have been the ticket's own.
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    epoch = SubmitUpTo(ticket);
  }
  return pipeline_.Wait(epoch);
}

void CrawlCore::SyncAsync(uint64_t ticket, CommitPipeline::Done done) {
  uint64_t epoch = 0;
  Status health;
  {
    std::lock_guard lock(mu_);
    health = Health();
    if (health.ok()) epoch = SubmitUpTo(ticket);
  }
  if (!health.ok()) return done(health);
  pipeline_.OnWritten(epoch, std::move(done));
}

void CrawlCore::WaitForWrites() {
  uint64_t epoch;
  {
    std::lock_guard lock(mu_);
    epoch = batch_epoch_ - 1;
  }
  (void)pipeline_.Wait(epoch);  // a failure is reported by the calls
}

void CrawlCore::SetWorkCallback(std::function<void()> callback) {
  std::lock_guard lock(wake_mu_);
  on_work_ = std::move(callback);
}

void CrawlCore::Notify() {
  std::function<void()> cb;
  {
    std::lock_guard lock(wake_mu_);
    ++wake_epoch_;
    cb = on_work_;
  }
  wake_cv_.notify_all();
  if (cb) cb();
}

void CrawlCore::WaitForWork(int64_t max_wait_ms) {
  std::unique_lock lock(wake_mu_);
  uint64_t epoch = wake_epoch_;
  wake_cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(max_wait_ms, 0)),
                    [&] { return wake_epoch_ != epoch; });
}

// ---- Host controls --------------------------------------------------------

Status CrawlCore::UpdateHost(std::string_view crawl, std::string_view host,
                             const std::function<void(HostState&, rocksdb::WriteBatch*)>& f) {
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    auto h = HostByName(crawl, host);
    if (!h.ok()) return h.status();
    f(**h, &pending_);
    MarkDirty(**h);
    CRAWLFRONT_RETURN_IF_ERROR(Flush());
    Reschedule(**h, clock_->NowMs());
  }
  Notify();
  return Status::Ok();
}

Status CrawlCore::SetHostDelay(std::string_view crawl, std::string_view host, int64_t delay_ms) {
  if (delay_ms < 0) return Status::InvalidArgument("delay must be >= 0");
  int64_t now = clock_->NowMs();
  return UpdateHost(crawl, host, [&](HostState& h, rocksdb::WriteBatch*) {
    h.rec.delay_override_ms = delay_ms;
    // A shorter delay applies at once; a longer one from the next fetch.
    if (h.rec.ready_at_ms > now + delay_ms) h.rec.ready_at_ms = now + delay_ms;
  });
}

Status CrawlCore::BlockHostUntil(std::string_view crawl, std::string_view host,
                                 int64_t unix_ms) {
  return UpdateHost(crawl, host, [&](HostState& h, rocksdb::WriteBatch*) {
    h.rec.blocked_until_ms = unix_ms;
  });
}

Status CrawlCore::SetHostBudget(std::string_view crawl, std::string_view host, int64_t n) {
  return UpdateHost(crawl, host, [&](HostState& h, rocksdb::WriteBatch*) {
    h.rec.budget = n < 0 ? -1 : n;
    host_budgets_ |= n >= 0;
  });
}

Status CrawlCore::SetHostRobots(std::string_view crawl, std::string_view host,
                                std::string_view text) {
  auto rules = std::make_shared<const RobotsRules>(ParseRobots(text, options_.user_agent));
  return UpdateHost(crawl, host, [&](HostState& h, rocksdb::WriteBatch* batch) {
    // The operator's rules cover every origin: the others' go.
    h.other_robots.clear();
    batch->DeleteRange(store_->cf(Cf::kHost), RobotsKey(h.prefix, ""), h.prefix + 'S');
    SetRobots(h, RobotsState::kManual, kNever, rules, batch);
  });
}

Status CrawlCore::SetPaused(std::string_view crawl, bool paused) {
  {
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    rocksdb::WriteBatch& batch = pending_;
    const char* v = paused ? "1" : "0";
    if (crawl.empty()) {
      paused_all_ = paused;
      batch.Put(store_->cf(Cf::kMeta), kMetaPausedAll, v);
      for (auto& [id, c] : crawls_) {
        if (paused || !c->paused) continue;
        c->paused = false;  // resuming everything resumes every crawl
        batch.Put(store_->cf(Cf::kMeta), std::string(kMetaCrawlPrefix) + "paused." + id, v);
      }
    } else {
      if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
      CrawlFor(crawl).paused = paused;
      batch.Put(store_->cf(Cf::kMeta), std::string(kMetaCrawlPrefix) + "paused." +
                std::string(crawl), v);
    }
    CRAWLFRONT_RETURN_IF_ERROR(Flush());
    int64_t now = clock_->NowMs();
    for (auto& h : hosts_) Reschedule(*h, now);
  }
  Notify();
  return Status::Ok();
}

Status CrawlCore::Pause(std::string_view crawl) { return SetPaused(crawl, true); }
Status CrawlCore::Resume(std::string_view crawl) { return SetPaused(crawl, false); }

}  // namespace crawlfront
