// INFO sections and the status page's snapshot: one source of numbers for
// INFO, /api/stats, /metrics and crawlctl (STYLE.md: INFO-style status).

#include <algorithm>
#include <map>

#include "crawlfront/common/proc_status.h"
#include "crawlfront/frontier/frontier_node.h"
#include "crawlfront/worker/robots.h"

namespace crawlfront {
namespace {

void Line(std::string* out, std::string_view name, const std::string& value) {
  out->append(name).append(":").append(value).append("\r\n");
}

void CrawlSection(std::string* out, CrawlCore& core, std::string_view crawl,
                  std::string_view title) {
  out->append("# ").append(title).append("\r\n");
  CrawlStats st = core.Stats(crawl);
  for (auto& [name, value] : st.Fields()) Line(out, name, std::to_string(value));
  bool finished;
  if (crawl.empty()) {
    auto crawls = core.Crawls();
    finished = !crawls.empty() && st.urls_seen > 0 && st.urls_queued == 0 &&
               st.urls_inflight == 0;
  } else {
    finished = core.Finished(crawl);
  }
  Line(out, "finished", finished ? "1" : "0");
  Line(out, "crawls", std::to_string(core.Crawls().size()));
  if (core.checks_live_counts()) {
    Line(out, "live_count_errors", std::to_string(core.live_count_errors()));
  }
}

void SeenSection(std::string* out, SeenSet& seen) {
  SeenSetStats s = seen.GetStats();
  out->append("# Seen\r\n");
  Line(out, "seen_mode", SeenModeName(seen.options().mode));
  Line(out, "seen_partitions", std::to_string(seen.partitions()));
  Line(out, "seen_items", std::to_string(s.items));
  Line(out, "seen_filter_bytes", std::to_string(s.filter_bytes));
  Line(out, "seen_lookups", std::to_string(s.lookups));
  Line(out, "seen_bloom_negatives", std::to_string(s.bloom_negatives));
  Line(out, "seen_cache_hits", std::to_string(s.cache_hits));
  Line(out, "seen_disk_lookups", std::to_string(s.disk_lookups));
  Line(out, "seen_false_positives", std::to_string(s.false_positives));
  Line(out, "seen_rebuilds_done", std::to_string(s.rebuilds_done));
  Line(out, "seen_rebuilds_running", std::to_string(s.rebuilds_running));
  Line(out, "seen_snapshots_written", std::to_string(s.snapshots_written));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", s.max_fill_ratio);
  Line(out, "seen_max_fill_ratio", buf);
}

const char* DurabilityName(Durability d) {
  switch (d) {
    case Durability::kWal: return "wal";
    case Durability::kEverySec: return "everysec";
    case Durability::kFsync: return "fsync";
  }
  return "?";
}

// Redis's section name, so tools that read `INFO persistence` find it.
void PersistenceSection(std::string* out, const Store& store, const CrawlCore& crawl) {
  const WalSyncStats w = store.wal_sync_stats();
  const CrawlCore::WriterStats ws = crawl.writer_stats();
  out->append("# Persistence\r\n");
  Line(out, "durability", DurabilityName(store.durability()));
  Line(out, "wal_syncs", std::to_string(w.syncs));
  Line(out, "wal_sync_errors", std::to_string(w.errors));
  Line(out, "wal_sync_failed", w.failing ? "1" : "0");
  Line(out, "batches_written", std::to_string(ws.written));
  Line(out, "write_queue", std::to_string(ws.queued));
  // Named like Redis's aof_rewrite_in_progress: benchmarks wait for both.
  const BackgroundWork b = store.background_work();
  Line(out, "flush_in_progress", b.flushes_running > 0 || b.flush_pending ? "1" : "0");
  Line(out, "compaction_in_progress",
       b.compactions_running > 0 || b.compaction_pending ? "1" : "0");
  Line(out, "immutable_memtables", std::to_string(b.immutable_memtables));
}

void MemorySection(std::string* out, CrawlCore& crawl) {
  const CrawlCore::HeadsUsage h = crawl.heads_usage();
  out->append("# Memory\r\n");
  Line(out, "used_memory_rss", std::to_string(ProcStatusKb("VmRSS:") * 1024));
  Line(out, "queue_heads_bytes", std::to_string(h.bytes));
  Line(out, "queue_heads", std::to_string(h.entries));
  Line(out, "queue_heads_hosts", std::to_string(h.hosts));
  Line(out, "queue_heads_max_bytes", std::to_string(crawl.heads_budget()));
  Line(out, "queue_head_refills", std::to_string(h.refills));
  Line(out, "queue_heads_refilled", std::to_string(h.refilled));
}

// What workers check their User-Agent against (docs/worker.md): robots.txt
// groups are chosen for this token, so a worker sending another one would
// be judged by rules meant for someone else. Empty when robots are ignored.
void RobotsSection(std::string* out, const FrontierOptions& o) {
  out->append("# Robots\r\n");
  Line(out, "robots_user_agent",
       o.respect_robots ? std::string(RobotsProductToken(o.user_agent)) : "");
  // Workers mark sitemaps in their DONEs (SITEMAP 1) only when this is set.
  Line(out, "sitemap_refetch_ms", std::to_string(o.sitemap_refetch.count()));
  // ... and their <lastmod>s (LASTMOD) only when this says the frontier reads them.
  Line(out, "sitemap_lastmod", "1");
}

}  // namespace

// Sections: "crawl" (all crawls together), "crawl:ID" (one crawl), "seen",
// "persistence", "memory", "robots".
std::string FrontierNode::RenderInfo(std::string_view section) {
  std::string out;
  if (section.empty() || section == "all" || section == "everything" || section == "crawl") {
    CrawlSection(&out, *crawl_, "", "Crawl");
  }
  if (section.rfind("crawl:", 0) == 0) {
    std::string id(section.substr(6));
    CrawlSection(&out, *crawl_, id, "Crawl " + id);
  }
  if (section.empty() || section == "all" || section == "everything" || section == "seen") {
    if (!out.empty()) out += "\r\n";
    SeenSection(&out, *seen_);
  }
  if (section.empty() || section == "all" || section == "everything" ||
      section == "persistence") {
    if (!out.empty()) out += "\r\n";
    PersistenceSection(&out, *store_, *crawl_);
  }
  if (section.empty() || section == "all" || section == "everything" || section == "memory") {
    if (!out.empty()) out += "\r\n";
    MemorySection(&out, *crawl_);
  }
  if (section.empty() || section == "all" || section == "everything" || section == "robots") {
    if (!out.empty()) out += "\r\n";
    RobotsSection(&out, options_);
  }
  return out;
}

StatusSnapshot FrontierNode::SampleTotals() {
  const CrawlStats c = crawl_->PersistedStats("");
  StatusSnapshot s;
  s.unix_ms = Clock::Real()->NowMs();
  s.totals.urls_seen = c.urls_seen;
  s.totals.urls_fetched = c.fetched_2xx + c.fetched_3xx + c.fetched_4xx + c.fetched_5xx;
  s.totals.urls_failed = c.urls_failed;
  return s;
}

StatusSnapshot FrontierNode::BuildSnapshot() {
  StatusSnapshot s;
  s.unix_ms = Clock::Real()->NowMs();
  s.version = "0.1.0";
  s.uptime_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  s.ready = true;
  CrawlStats c = crawl_->Stats("");
  s.totals.urls_seen = c.urls_seen;
  s.totals.urls_queued = c.urls_queued;
  s.totals.urls_inflight = c.urls_inflight;
  s.totals.urls_fetched = c.fetched_2xx + c.fetched_3xx + c.fetched_4xx + c.fetched_5xx;
  s.totals.urls_failed = c.urls_failed;
  s.totals.urls_robots_blocked = c.urls_robots_blocked;
  s.totals.urls_rejected = c.urls_rejected;
  s.totals.urls_dropped = c.urls_dropped;
  s.totals.hosts = c.hosts;
  s.totals.hosts_ready = c.hosts_ready;
  s.totals.leases_expired = c.leases_expired;
  s.totals.fetched_by_class = {0, 0, c.fetched_2xx, c.fetched_3xx, c.fetched_4xx,
                               c.fetched_5xx};
  s.finished = c.urls_seen > 0 && c.urls_queued == 0 && c.urls_inflight == 0;

  SeenSetStats ss = seen_->GetStats();
  s.seen.mode = SeenModeName(seen_->options().mode);
  s.seen.items = ss.items;
  s.seen.filter_bytes = ss.filter_bytes;
  for (uint32_t p = 0; p < seen_->partitions(); ++p) {
    PartitionStats ps = seen_->GetPartitionStats(p);
    s.seen.partitions.push_back({ps.id, ps.items, ps.capacity, ps.fill_ratio,
                                 ps.estimated_fp_rate, ps.rebuilds, ps.rebuilding,
                                 ps.last_snapshot_unix_ms});
  }
  const WalSyncStats w = store_->wal_sync_stats();
  const CrawlCore::WriterStats ws = crawl_->writer_stats();
  s.persistence = {DurabilityName(store_->durability()), w.syncs, w.errors, w.failing,
                   ws.written, ws.queued};
  const BackgroundWork b = store_->background_work();
  s.persistence.immutable_memtables = b.immutable_memtables;
  s.persistence.flushes_running = b.flushes_running;
  s.persistence.compactions_running = b.compactions_running;
  s.persistence.flush_pending = b.flush_pending;
  s.persistence.compaction_pending = b.compaction_pending;
  const CrawlCore::HeadsUsage heads = crawl_->heads_usage();
  s.memory = {ProcStatusKb("VmRSS:") * 1024, heads.bytes, heads.entries, crawl_->heads_budget()};
  s.rebuild.running = ss.rebuilds_running > 0;
  s.rebuild.done = ss.rebuilds_running;
  s.rebuild.runs_completed = ss.rebuilds_done;
  s.snapshot.runs_completed = ss.snapshots_written;

  for (const HostInfo& h : crawl_->ListHosts("", 20)) {
    s.top_hosts.push_back({h.host, h.queued, h.inflight, h.done, h.delay_ms, h.ready_in_ms,
                           h.blocked_until_ms, h.robots_state});
  }
  for (const CrawlInfo& c : crawl_->ListCrawls()) {
    const CrawlStats& cs = c.stats;
    s.crawls.push_back({c.id, c.paused, cs.urls_seen, cs.urls_queued,
                        cs.fetched_2xx + cs.fetched_3xx + cs.fetched_4xx + cs.fetched_5xx,
                        cs.urls_failed, cs.urls_inflight, cs.hosts, cs.hosts_ready,
                        c.finished});
  }
  // Lease counts from the lease table: exact, and a worker that went quiet
  // still shows while it holds leases (its hosts wait for their deadlines).
  std::map<std::string, uint64_t, std::less<>> held;
  for (WorkerLeases& w : crawl_->LeasesByWorker()) held.emplace(std::move(w.worker), w.leases);
  std::lock_guard lock(mu_);
  for (auto& [id, w] : workers_) {
    auto it = held.find(id);
    const uint64_t leases = it == held.end() ? 0 : it->second;
    if (s.unix_ms - w.last_seen_ms > 60'000 && leases == 0) continue;  // gone
    uint64_t recent = 0;
    for (auto& [t, n] : w.done_times) recent += n;
    s.workers.push_back({id, w.peer, leases, w.dones, recent * 1000.0 / 10'000});
  }
  for (auto& [id, leases] : held) {  // e.g. leases kept across a restart
    if (!workers_.contains(id)) s.workers.push_back({id, "", leases, 0, 0});
  }
  s.recent_errors.assign(errors_.begin(), errors_.end());
  return s;
}

}  // namespace crawlfront
