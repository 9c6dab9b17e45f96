// /api/stats: the snapshot and the rate history as JSON (Boost.JSON). Every
// crawled string passes SanitizeUtf8 so the document is always valid JSON;
// Boost.JSON's serializer escapes quotes, backslashes and control bytes.
#include <boost/json.hpp>
#include <charconv>
#include <cmath>

#include "crawlfront/frontier/status_http.h"
#include "status_render.h"

namespace crawlfront {

namespace json = boost::json;

namespace {

// JSON has no NaN or infinity.
double Finite(double d) { return std::isfinite(d) ? d : 0.0; }

json::string Text(const std::string& s) { return json::string(SanitizeUtf8(s)); }

// Boost.JSON 1.74 writes every double with an exponent (0.75 as 7.5E-1,
// 0 as 0E0): valid, but people read this document too. Doubles go through
// std::to_chars (the shortest text that reads back the same double), the
// rest through Boost.JSON's serializer, which escapes strings.
void AppendJson(const json::value& v, std::string* out) {
  switch (v.kind()) {
    case json::kind::double_: {
      char buf[32];
      out->append(buf, std::to_chars(buf, buf + sizeof buf, v.get_double()).ptr);
      return;
    }
    case json::kind::array: {
      out->push_back('[');
      for (const json::value& e : v.get_array()) {
        if (out->back() != '[') out->push_back(',');
        AppendJson(e, out);
      }
      out->push_back(']');
      return;
    }
    case json::kind::object: {
      out->push_back('{');
      for (const json::key_value_pair& kv : v.get_object()) {
        if (out->back() != '{') out->push_back(',');
        out->append(json::serialize(json::value(kv.key())));
        out->push_back(':');
        AppendJson(kv.value(), out);
      }
      out->push_back('}');
      return;
    }
    default:
      out->append(json::serialize(v));
  }
}

json::object TotalsJson(const StatusTotals& t) {
  json::array by_class;
  for (uint64_t n : t.fetched_by_class) by_class.push_back(n);
  return {{"urls_seen", t.urls_seen},
          {"urls_queued", t.urls_queued},
          {"urls_inflight", t.urls_inflight},
          {"urls_fetched", t.urls_fetched},
          {"urls_failed", t.urls_failed},
          {"urls_robots_blocked", t.urls_robots_blocked},
          {"urls_rejected", t.urls_rejected},
          {"urls_dropped", t.urls_dropped},
          {"hosts", t.hosts},
          {"hosts_ready", t.hosts_ready},
          {"leases_expired", t.leases_expired},
          {"fetched_by_class", std::move(by_class)}};
}

json::object PartitionJson(const SeenPartitionStatus& p) {
  return {{"id", p.id},
          {"items", p.items},
          {"capacity", p.capacity},
          {"fill_ratio", Finite(p.fill_ratio)},
          {"estimated_fp_rate", Finite(p.estimated_fp_rate)},
          {"rebuilds", p.rebuilds},
          {"rebuilding", p.rebuilding},
          {"last_snapshot_unix_ms", p.last_snapshot_unix_ms}};
}

// Every partition, column by column: a third of the bytes of an array of
// objects, which matters for 1024 partitions polled every second.
json::object PartitionColumns(const std::vector<SeenPartitionStatus>& parts) {
  json::array id, items, capacity, fill, fp, rebuilds, rebuilding, last_snapshot;
  for (const SeenPartitionStatus& p : parts) {
    id.push_back(p.id);
    items.push_back(p.items);
    capacity.push_back(p.capacity);
    fill.push_back(std::round(Finite(p.fill_ratio) * 1e4) / 1e4);
    fp.push_back(Finite(p.estimated_fp_rate));
    rebuilds.push_back(p.rebuilds);
    rebuilding.push_back(p.rebuilding);
    last_snapshot.push_back(p.last_snapshot_unix_ms);
  }
  return {{"id", std::move(id)},
          {"items", std::move(items)},
          {"capacity", std::move(capacity)},
          {"fill_ratio", std::move(fill)},
          {"estimated_fp_rate", std::move(fp)},
          {"rebuilds", std::move(rebuilds)},
          {"rebuilding", std::move(rebuilding)},
          {"last_snapshot_unix_ms", std::move(last_snapshot)}};
}

json::object SeenJson(const SeenSetStatus& seen) {
  PartitionSummary s = SummarizePartitions(seen.partitions);
  json::array fullest;
  for (size_t i : FullestPartitions(seen.partitions, kStatusTopPartitions)) {
    fullest.push_back(PartitionJson(seen.partitions[i]));
  }
  json::object summary{{"count", s.count},
                       {"rebuilding", s.rebuilding},
                       {"capacity", s.capacity},
                       {"fill_min", Finite(s.fill_min)},
                       {"fill_mean", Finite(s.fill_mean)},
                       {"fill_max", Finite(s.fill_max)},
                       {"fp_max", Finite(s.fp_max)}};
  return {{"mode", Text(seen.mode)},
          {"items", seen.items},
          {"filter_bytes", seen.filter_bytes},
          {"summary", std::move(summary)},
          {"fullest", std::move(fullest)},
          {"partitions", PartitionColumns(seen.partitions)}};
}

json::object TaskJson(const TaskProgress& t) {
  return {{"running", t.running},
          {"done", t.done},
          {"total", t.total},
          {"detail", Text(t.detail)},
          {"started_unix_ms", t.started_unix_ms},
          {"last_finished_unix_ms", t.last_finished_unix_ms},
          {"runs_completed", t.runs_completed},
          {"last_error", Text(t.last_error)},
          {"text", Text(DescribeTask(t))}};
}

json::array HostsJson(const std::vector<HostStatus>& hosts) {
  json::array out;
  for (size_t i = 0; i < hosts.size() && i < kStatusMaxHosts; ++i) {
    const HostStatus& h = hosts[i];
    out.push_back(json::object{{"host", Text(h.host)},
                               {"queued", h.queued},
                               {"inflight", h.inflight},
                               {"done", h.done},
                               {"delay_ms", h.delay_ms},
                               {"ready_in_ms", h.ready_in_ms},
                               {"blocked_until_unix_ms", h.blocked_until_unix_ms},
                               {"robots_state", Text(h.robots_state)}});
  }
  return out;
}

json::array WorkersJson(const std::vector<WorkerStatus>& workers) {
  json::array out;
  for (size_t i = 0; i < workers.size() && i < kStatusMaxWorkers; ++i) {
    const WorkerStatus& w = workers[i];
    out.push_back(json::object{{"id", Text(w.id)},
                               {"address", Text(w.address)},
                               {"leases", w.leases},
                               {"dones", w.dones},
                               {"pages_per_second", Finite(w.pages_per_second)}});
  }
  return out;
}

json::array ErrorsJson(const std::vector<ErrorEntry>& errors) {
  json::array out;
  auto [first, last] = NewestRange(errors, kStatusMaxErrors);
  for (size_t i = first; i < last; ++i) {
    out.push_back(
        json::object{{"unix_ms", errors[i].unix_ms}, {"text", Text(errors[i].text)}});
  }
  return out;
}

json::array CrawlsJson(const std::vector<CrawlStatus>& crawls) {
  json::array out;
  for (size_t i = 0; i < crawls.size() && i < kStatusMaxCrawls; ++i) {
    const CrawlStatus& c = crawls[i];
    out.push_back(json::object{{"id", Text(c.id)},
                               {"paused", c.paused},
                               {"urls_seen", c.urls_seen},
                               {"urls_queued", c.urls_queued},
                               {"urls_fetched", c.urls_fetched},
                               {"urls_failed", c.urls_failed},
                               {"urls_inflight", c.urls_inflight},
                               {"hosts", c.hosts},
                               {"hosts_ready", c.hosts_ready},
                               {"finished", c.finished}});
  }
  return out;
}

json::object PersistenceJson(const PersistenceStatus& p) {
  return {{"durability", Text(p.durability)},
          {"wal_syncs", p.wal_syncs},
          {"wal_sync_errors", p.wal_sync_errors},
          {"wal_sync_failed", p.wal_sync_failed},
          {"batches_written", p.batches_written},
          {"write_queue", p.write_queue},
          {"immutable_memtables", p.immutable_memtables},
          {"flushes_running", p.flushes_running},
          {"compactions_running", p.compactions_running},
          {"flush_pending", p.flush_pending},
          {"compaction_pending", p.compaction_pending},
          {"text", Text(DescribePersistence(p))}};
}

json::object MemoryJson(const MemoryStatus& m) {
  return {{"resident_bytes", m.resident_bytes},
          {"queue_heads_bytes", m.queue_heads_bytes},
          {"queue_heads", m.queue_heads},
          {"queue_heads_max_bytes", m.queue_heads_max_bytes}};
}

json::object SnapshotJson(const StatusSnapshot& s) {
  return {{"unix_ms", s.unix_ms},
          {"version", Text(s.version)},
          {"uptime_seconds", Finite(s.uptime_seconds)},
          {"ready", s.ready},
          {"finished", s.finished},
          {"totals", TotalsJson(s.totals)},
          {"seen", SeenJson(s.seen)},
          {"persistence", PersistenceJson(s.persistence)},
          {"memory", MemoryJson(s.memory)},
          {"snapshot", TaskJson(s.snapshot)},
          {"rebuild", TaskJson(s.rebuild)},
          {"top_hosts", HostsJson(s.top_hosts)},
          {"workers", WorkersJson(s.workers)},
          {"recent_errors", ErrorsJson(s.recent_errors)},
          {"crawls", CrawlsJson(s.crawls)}};
}

}  // namespace

std::string RenderStatusJson(const StatusSnapshot& snapshot,
                             const std::vector<RateSample>& history) {
  // Columns again: 900 samples x 4 numbers.
  json::array t, fetched, added, failed;
  for (const RateSample& r : history) {
    t.push_back(r.unix_ms);
    fetched.push_back(Finite(r.fetched_per_second));
    added.push_back(Finite(r.added_per_second));
    failed.push_back(Finite(r.failed_per_second));
  }
  json::object doc{{"snapshot", SnapshotJson(snapshot)},
                   {"history", json::object{{"unix_ms", std::move(t)},
                                            {"fetched_per_second", std::move(fetched)},
                                            {"added_per_second", std::move(added)},
                                            {"failed_per_second", std::move(failed)}}}};
  std::string text;
  AppendJson(doc, &text);
  return text;
}

}  // namespace crawlfront
