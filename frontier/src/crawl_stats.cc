// CrawlCore queries: counters, Finished, host listings.

#include <algorithm>
#include <utility>
#include <vector>

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

void CrawlCore::FillDerived(const CrawlState& c, int64_t now, CrawlStats* s) {
  for (uint32_t id : c.hosts) {
    const HostState& h = *hosts_[id];
    s->urls_queued += h.rec.queued + h.rec.scheduled;
    bool robots_lease = h.robots_state == RobotsState::kFetching;
    s->urls_inflight += h.inflight - (robots_lease && h.inflight > 0 ? 1 : 0);
    ++s->hosts;
    if (ReadyTime(h, now) <= now) ++s->hosts_ready;
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

std::vector<std::string> CrawlCore::Crawls() {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  for (auto& [id, c] : crawls_) ids.push_back(id);
  return ids;
}

std::vector<CrawlInfo> CrawlCore::ListCrawls() {
  std::lock_guard lock(mu_);
  const int64_t now = clock_->NowMs();
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
  if (c.stats.urls_seen == 0) return false;
  for (uint32_t id : c.hosts) {
    const HostState& h = *hosts_[id];
    if (h.rec.queued + h.rec.scheduled > 0 || h.inflight > 0) return false;
  }
  return true;
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

// Ranks by queue size first and describes only the hosts listed: the status
// page asks for the top 20 every second, and describing every host of a
// crawl of 10^5 hosts held the crawl lock 130 ms each time.
std::vector<HostInfo> CrawlCore::ListHosts(std::string_view crawl, size_t top_n) {
  std::lock_guard lock(mu_);
  const int64_t now = clock_->NowMs();
  // (queued, index) in the order of the list: larger queues first, ties by
  // index (the order a stable sort of hosts_ gave).
  std::vector<std::pair<uint64_t, uint32_t>> ranked;
  ranked.reserve(hosts_.size());
  for (uint32_t i = 0; i < hosts_.size(); ++i) {
    const HostState& h = *hosts_[i];
    if (!crawl.empty() && h.crawl->id != crawl) continue;
    ranked.emplace_back(h.rec.queued + h.rec.scheduled, i);
  }
  const size_t n = top_n > 0 ? std::min(top_n, ranked.size()) : ranked.size();
  std::partial_sort(ranked.begin(), ranked.begin() + n, ranked.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : a.second < b.second;
                    });
  std::vector<HostInfo> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(InfoOf(*hosts_[ranked[i].second], now));
  return out;
}

}  // namespace crawlfront
