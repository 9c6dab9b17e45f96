// CrawlCore queries: counters, Finished, host listings.

#include <algorithm>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "crawlfront/common/ascii.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {

Result<DoneOutcome> ParseDoneOutcome(std::string_view name) {
  const std::string s = AsciiLower(name);
  if (s == "fetched") return DoneOutcome::kFetched;
  if (s == "retry") return DoneOutcome::kRetry;
  if (s == "failed") return DoneOutcome::kFailed;
  if (s == "disallowed") return DoneOutcome::kDisallowed;
  if (s == "robots") return DoneOutcome::kRobots;
  return Status::InvalidArgument("unknown outcome \"" + std::string(name) + "\"");
}

std::vector<std::pair<std::string, uint64_t>> CrawlStats::Fields() const {
  return {{"urls_seen", urls_seen},
          {"urls_queued", urls_queued},
          {"urls_inflight", urls_inflight},
          {"urls_done", urls_done},
          {"urls_failed", urls_failed},
          {"urls_disallowed", urls_disallowed},
          {"urls_robots_blocked", urls_robots_blocked},
          {"urls_rejected", urls_rejected},
          {"urls_dropped", urls_dropped},
          {"hosts", hosts},
          {"hosts_ready", hosts_ready},
          {"fetched_2xx", fetched_2xx},
          {"fetched_3xx", fetched_3xx},
          {"fetched_4xx", fetched_4xx},
          {"fetched_5xx", fetched_5xx},
          {"leases_expired", leases_expired},
          {"robots_fetched", robots_fetched}};
}

// REQUIRES: MoveDueToRing(now) ran, so every host ready by `now` is in the
// ring.
void CrawlCore::FillDerived(const CrawlState& c, int64_t now, CrawlStats* s) {
  if (options_.check_live_counts) CheckLive(c, now);
  s->urls_queued += c.live.queued;
  s->urls_inflight += c.live.pages;
  s->hosts += c.hosts.size();
  s->hosts_ready += c.live.ready;
}

// What the live sums must equal: the same sums walked over every host.
void CrawlCore::CheckLive(const CrawlState& c, int64_t now) {
  CrawlLive walked;
  for (uint32_t id : c.hosts) {
    const HostState& h = *hosts_[id];
    const uint64_t queued = h.rec.queued + h.rec.scheduled;
    walked.queued += queued;
    walked.inflight += h.inflight;
    const bool robots_lease = h.robots_state == RobotsState::kFetching && h.inflight > 0;
    walked.pages += h.inflight - (robots_lease ? 1 : 0);
    walked.ready += ReadyTime(h, now) <= now ? 1 : 0;
    if (host_queued_[id] != queued) {
      spdlog::error("crawl core: host {} packed queued {}, has {}", h.host_key, host_queued_[id],
                    queued);
      ++live_count_errors_;
    }
  }
  const CrawlLive& l = c.live;
  if (walked.queued != l.queued || walked.inflight != l.inflight || walked.pages != l.pages ||
      walked.ready != l.ready) {
    spdlog::error("crawl core: crawl {} live sums queued {} inflight {} pages {} ready {}, "
                  "walk {} {} {} {}", c.id, l.queued, l.inflight, l.pages, l.ready,
                  walked.queued, walked.inflight, walked.pages, walked.ready);
    ++live_count_errors_;
  }
}

static void AddPersisted(const CrawlStats& from, CrawlStats* to) {
  to->urls_seen += from.urls_seen;
  to->urls_done += from.urls_done;
  to->urls_failed += from.urls_failed;
  to->urls_disallowed += from.urls_disallowed;
  to->urls_robots_blocked += from.urls_robots_blocked;
  to->urls_rejected += from.urls_rejected;
  to->urls_dropped += from.urls_dropped;
  to->fetched_2xx += from.fetched_2xx;
  to->fetched_3xx += from.fetched_3xx;
  to->fetched_4xx += from.fetched_4xx;
  to->fetched_5xx += from.fetched_5xx;
  to->leases_expired += from.leases_expired;
  to->robots_fetched += from.robots_fetched;
}

CrawlStats CrawlCore::Stats(std::string_view crawl) {
  std::lock_guard lock(mu_);
  int64_t now = clock_->NowMs();
  MoveDueToRing(now);
  CrawlStats s;
  for (auto& [id, c] : crawls_) {
    if (!crawl.empty() && id != crawl) continue;
    AddPersisted(c->stats, &s);
    FillDerived(*c, now, &s);
  }
  return s;
}

CrawlStats CrawlCore::PersistedStats(std::string_view crawl) {
  std::lock_guard lock(mu_);
  CrawlStats s;
  for (auto& [id, c] : crawls_) {
    if (crawl.empty() || id == crawl) AddPersisted(c->stats, &s);
  }
  return s;
}

uint64_t CrawlCore::live_count_errors() {
  std::lock_guard lock(mu_);
  return live_count_errors_;
}

std::vector<std::string> CrawlCore::Crawls() {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  for (auto& [id, c] : crawls_) ids.push_back(id);
  return ids;
}

std::vector<CrawlInfo> CrawlCore::ListCrawls() {
  std::lock_guard lock(mu_);
  const int64_t now = clock_->NowMs();
  MoveDueToRing(now);
  std::vector<CrawlInfo> out;
  for (auto& [id, c] : crawls_) {
    CrawlInfo& info = out.emplace_back();
    info.id = id;
    info.paused = Paused(*c);
    info.finished = FinishedLocked(*c);
    AddPersisted(c->stats, &info.stats);
    FillDerived(*c, now, &info.stats);
  }
  return out;
}

bool CrawlCore::FinishedLocked(const CrawlState& c) {
  if (options_.check_live_counts) {
    const int64_t now = clock_->NowMs();
    MoveDueToRing(now);
    CheckLive(c, now);
  }
  return c.stats.urls_seen > 0 && c.live.queued == 0 && c.live.inflight == 0;
}

bool CrawlCore::Finished(std::string_view crawl) {
  std::lock_guard lock(mu_);
  if (crawl.empty()) crawl = kDefaultCrawl;
  auto it = crawls_.find(crawl);
  return it != crawls_.end() && FinishedLocked(*it->second);
}

HostInfo CrawlCore::InfoOf(const HostState& h, int64_t now) const {
  HostInfo info;
  info.host = h.host_key;
  info.crawl = h.crawl->id;
  info.queued = h.rec.queued + h.rec.scheduled;
  info.inflight = h.inflight;
  info.done = h.rec.done;
  int64_t ready = std::max(h.rec.ready_at_ms, h.rec.blocked_until_ms);
  // A failed robots.txt fetch holds the host until its retry (ReadyTime).
  if (h.robots_state == RobotsState::kError) ready = std::max(ready, h.robots_expires_ms);
  info.ready_in_ms = std::max<int64_t>(ready - now, 0);
  info.delay_ms = DelayMs(h);
  info.blocked_until_ms = h.rec.blocked_until_ms;
  info.robots_state = RobotsStateName(h.robots_state);
  return info;
}

// Ranks by queue size from host_queued_ and describes only the hosts it
// returns: the status page asks for the top 20 every second, and describing
// every host of a crawl of 10^5 hosts held the crawl lock 130 ms each time.
std::vector<HostInfo> CrawlCore::ListHosts(std::string_view crawl, size_t top_n) {
  std::lock_guard lock(mu_);
  const int64_t now = clock_->NowMs();
  // (queued, id): larger queues first, ties by id (the order of hosts_).
  using Ranked = std::pair<uint64_t, uint32_t>;
  auto better = [](const Ranked& a, const Ranked& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  // With top_n, a heap of the best so far whose front is the worst of them.
  std::vector<Ranked> top;
  auto consider = [&](uint32_t id) {
    const Ranked r{host_queued_[id], id};
    if (top_n == 0 || top.size() < top_n) {
      top.push_back(r);
      if (top_n > 0) std::push_heap(top.begin(), top.end(), better);
    } else if (better(r, top.front())) {
      std::pop_heap(top.begin(), top.end(), better);
      top.back() = r;
      std::push_heap(top.begin(), top.end(), better);
    }
  };
  if (crawl.empty()) {
    for (uint32_t id = 0; id < hosts_.size(); ++id) consider(id);
  } else if (auto it = crawls_.find(crawl); it != crawls_.end()) {
    for (uint32_t id : it->second->hosts) consider(id);
  }
  std::sort(top.begin(), top.end(), better);
  std::vector<HostInfo> out;
  out.reserve(top.size());
  for (const Ranked& r : top) out.push_back(InfoOf(*hosts_[r.second], now));
  return out;
}

}  // namespace crawlfront
