// /metrics: Prometheus text exposition format 0.0.4. Counters end in _total,
// everything else is a gauge; every metric gets # HELP and # TYPE lines once,
// before its samples. Label values from crawled or operator data go through
// PrometheusLabelEscape. Per-partition series only for the fullest few.
#include <charconv>
#include <cmath>
#include <string>

#include "crawlfront/frontier/status_http.h"
#include "status_render.h"

namespace crawlfront {

namespace {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

class MetricWriter {
 public:
  // Starts a metric family. `type` is "counter" or "gauge".
  void Family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  void Sample(std::string_view name, const Labels& labels, double value) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) out_ += ',';
        out_ += labels[i].first;
        out_ += "=\"";
        out_ += PrometheusLabelEscape(labels[i].second);
        out_ += '"';
      }
      out_ += '}';
    }
    out_ += ' ';
    out_ += FormatValue(value);
    out_ += '\n';
  }
  // A family with one unlabelled sample.
  void Single(std::string_view name, std::string_view type, std::string_view help,
              double value) {
    Family(name, type, help);
    Sample(name, {}, value);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

double D(uint64_t v) { return static_cast<double>(v); }

void WriteTotals(MetricWriter& w, const StatusTotals& t) {
  w.Single("crawlfront_urls_seen_total", "counter", "Distinct URLs ever added.",
           D(t.urls_seen));
  w.Single("crawlfront_urls_queued", "gauge", "URLs waiting in host queues.",
           D(t.urls_queued));
  w.Single("crawlfront_urls_inflight", "gauge", "URLs leased to workers, not done yet.",
           D(t.urls_inflight));
  w.Single("crawlfront_urls_fetched_total", "counter", "URLs reported done by workers.",
           D(t.urls_fetched));
  w.Single("crawlfront_urls_failed_total", "counter", "URLs done with a failure.",
           D(t.urls_failed));
  w.Single("crawlfront_urls_robots_blocked_total", "counter",
           "URLs disallowed by robots.txt.", D(t.urls_robots_blocked));
  w.Single("crawlfront_urls_rejected_total", "counter",
           "URLs rejected on add (invalid or out of scope).", D(t.urls_rejected));
  w.Single("crawlfront_urls_dropped_total", "counter",
           "Queued URLs deleted by an operator (FRONTIER.DROP).", D(t.urls_dropped));
  w.Single("crawlfront_hosts", "gauge", "Hosts with a queue.", D(t.hosts));
  w.Single("crawlfront_hosts_ready", "gauge", "Hosts that may be contacted now.",
           D(t.hosts_ready));
  w.Single("crawlfront_leases_expired_total", "counter",
           "Leases that reached their deadline without a DONE.", D(t.leases_expired));
  static constexpr std::string_view kClass[kStatusClassCount] = {"none", "1xx", "2xx",
                                                                 "3xx",  "4xx", "5xx"};
  w.Family("crawlfront_fetched_by_class_total", "counter",
           "Fetches by HTTP status class (none = no HTTP response).");
  for (size_t i = 0; i < kStatusClassCount; ++i) {
    w.Sample("crawlfront_fetched_by_class_total", {{"class", std::string(kClass[i])}},
             D(t.fetched_by_class[i]));
  }
}

void WritePartitionSeries(MetricWriter& w, const std::vector<SeenPartitionStatus>& parts,
                          size_t top) {
  std::vector<size_t> fullest = FullestPartitions(parts, top);
  struct Series {
    std::string_view name, help;
    double (*value)(const SeenPartitionStatus&);
  };
  static const Series kSeries[] = {
      {"crawlfront_seen_partition_fill_ratio",
       "Fraction of set Bloom bits (fullest partitions).",
       [](const SeenPartitionStatus& p) { return p.fill_ratio; }},
      {"crawlfront_seen_partition_items", "Items in the partition (fullest partitions).",
       [](const SeenPartitionStatus& p) { return D(p.items); }},
      {"crawlfront_seen_partition_capacity",
       "Items the filter was sized for (fullest partitions).",
       [](const SeenPartitionStatus& p) { return D(p.capacity); }},
      {"crawlfront_seen_partition_estimated_fp_rate",
       "Estimated false-positive rate (fullest partitions).",
       [](const SeenPartitionStatus& p) { return p.estimated_fp_rate; }},
  };
  for (const Series& s : kSeries) {
    w.Family(s.name, "gauge", s.help);
    for (size_t i : fullest) {
      w.Sample(s.name, {{"partition", std::to_string(parts[i].id)}}, s.value(parts[i]));
    }
  }
}

void WriteSeen(MetricWriter& w, const SeenSetStatus& seen, size_t top) {
  PartitionSummary s = SummarizePartitions(seen.partitions);
  uint64_t rebuilds = 0;
  for (const SeenPartitionStatus& p : seen.partitions) rebuilds += p.rebuilds;
  w.Single("crawlfront_seen_items", "gauge", "Items in the seen-set.", D(seen.items));
  w.Single("crawlfront_seen_filter_bytes", "gauge", "RAM used by the Bloom filters.",
           D(seen.filter_bytes));
  w.Single("crawlfront_seen_capacity", "gauge", "Sum of the partitions' sized capacity.",
           D(s.capacity));
  w.Single("crawlfront_seen_partitions", "gauge", "Seen-set partitions.", D(s.count));
  w.Single("crawlfront_seen_partitions_rebuilding", "gauge",
           "Partitions whose filter is being rebuilt.", D(s.rebuilding));
  w.Single("crawlfront_seen_fill_ratio_max", "gauge", "Highest partition fill ratio.",
           s.fill_max);
  w.Single("crawlfront_seen_fill_ratio_mean", "gauge", "Mean partition fill ratio.",
           s.fill_mean);
  w.Single("crawlfront_seen_estimated_fp_rate_max", "gauge",
           "Highest estimated false-positive rate of a partition.", s.fp_max);
  w.Single("crawlfront_seen_rebuilds_total", "counter", "Completed filter rebuilds.",
           D(rebuilds));
  WritePartitionSeries(w, seen.partitions, top);
}

void WritePersistence(MetricWriter& w, const PersistenceStatus& p) {
  w.Single("crawlfront_wal_syncs_total", "counter",
           "Background fsyncs of the WAL (durability everysec).", D(p.wal_syncs));
  w.Single("crawlfront_wal_sync_errors_total", "counter", "WAL fsyncs that failed.",
           D(p.wal_sync_errors));
  w.Single("crawlfront_wal_sync_failed", "gauge",
           "1 after a failed WAL fsync: writes are refused until a restart.",
           p.wal_sync_failed);
  w.Single("crawlfront_batches_written_total", "counter",
           "Crawl core batches written to RocksDB by the writer thread.", D(p.batches_written));
  w.Single("crawlfront_write_queue_batches", "gauge",
           "Crawl core batches waiting for the writer thread (grows on a slow disk).",
           D(p.write_queue));
  w.Single("crawlfront_immutable_memtables", "gauge",
           "Full memtables waiting to be flushed (grows when flushes fall behind).",
           D(p.immutable_memtables));
  w.Single("crawlfront_flushes_running", "gauge", "RocksDB memtable flushes running.",
           D(p.flushes_running));
  w.Single("crawlfront_compactions_running", "gauge", "RocksDB compactions running.",
           D(p.compactions_running));
}

void WriteMemory(MetricWriter& w, const MemoryStatus& m) {
  w.Single("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
           D(m.resident_bytes));
  w.Single("crawlfront_queue_heads_bytes", "gauge",
           "RAM of the queue heads all hosts hold (bounded by crawl.queue_heads_bytes "
           "beyond a few per host).",
           D(m.queue_heads_bytes));
}

void WriteTasks(MetricWriter& w, const StatusSnapshot& s) {
  const std::pair<std::string, const TaskProgress*> tasks[] = {{"snapshot", &s.snapshot},
                                                               {"rebuild", &s.rebuild}};
  w.Family("crawlfront_task_running", "gauge", "1 while the background task runs.");
  for (auto& [name, t] : tasks)
    w.Sample("crawlfront_task_running", {{"task", name}}, t->running);
  w.Family("crawlfront_task_progress_ratio", "gauge",
           "Progress of the running task, 0..1 (0 when idle or unknown).");
  for (auto& [name, t] : tasks) {
    double ratio = t->running && t->total > 0 ? D(t->done) / D(t->total) : 0;
    w.Sample("crawlfront_task_progress_ratio", {{"task", name}}, ratio);
  }
  w.Family("crawlfront_task_runs_total", "counter", "Completed runs of the task.");
  for (auto& [name, t] : tasks) {
    w.Sample("crawlfront_task_runs_total", {{"task", name}}, D(t->runs_completed));
  }
}

// "10.0.0.7:51234" -> "10.0.0.7", "[::1]:80" -> "[::1]": a worker's
// reconnect (a new port) keeps its series.
std::string MachineOf(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || address.find(']', colon) != std::string::npos) {
    return address;
  }
  return address.substr(0, colon);
}

void WriteWorkers(MetricWriter& w, const std::vector<WorkerStatus>& workers) {
  size_t n = std::min(workers.size(), kStatusMaxWorkers);
  w.Single("crawlfront_workers_connected", "gauge",
           "Workers seen in the last minute or holding leases.",
           D(workers.size()));
  auto labels = [&](size_t i) {
    return Labels{{"worker", workers[i].id}, {"address", MachineOf(workers[i].address)}};
  };
  w.Family("crawlfront_worker_leases", "gauge",
           "Leases the worker holds now (pages and robots.txt).");
  for (size_t i = 0; i < n; ++i)
    w.Sample("crawlfront_worker_leases", labels(i), D(workers[i].leases));
  w.Family("crawlfront_worker_dones_total", "counter", "DONE reports from the worker.");
  for (size_t i = 0; i < n; ++i) {
    w.Sample("crawlfront_worker_dones_total", labels(i), D(workers[i].dones));
  }
  w.Family("crawlfront_worker_pages_per_second", "gauge", "Worker's recent fetch rate.");
  for (size_t i = 0; i < n; ++i) {
    w.Sample("crawlfront_worker_pages_per_second", labels(i),
             workers[i].pages_per_second);
  }
}

void WriteCrawls(MetricWriter& w, const std::vector<CrawlStatus>& crawls) {
  struct Series {
    const char* name;
    const char* type;
    const char* help;
    double (*value)(const CrawlStatus&);
  };
  static const Series kSeries[] = {
      {"crawlfront_crawl_paused", "gauge", "1 when the crawl is paused.",
       [](const CrawlStatus& c) { return c.paused ? 1.0 : 0.0; }},
      {"crawlfront_crawl_finished", "gauge",
       "1 when the crawl has seen URLs and none is queued or in flight.",
       [](const CrawlStatus& c) { return c.finished ? 1.0 : 0.0; }},
      {"crawlfront_crawl_urls_seen_total", "counter", "Distinct URLs added to the crawl.",
       [](const CrawlStatus& c) { return D(c.urls_seen); }},
      {"crawlfront_crawl_urls_queued", "gauge", "URLs queued for the crawl.",
       [](const CrawlStatus& c) { return D(c.urls_queued); }},
      {"crawlfront_crawl_urls_inflight", "gauge", "URLs of the crawl leased, not done yet.",
       [](const CrawlStatus& c) { return D(c.urls_inflight); }},
      {"crawlfront_crawl_urls_fetched_total", "counter", "URLs fetched for the crawl.",
       [](const CrawlStatus& c) { return D(c.urls_fetched); }},
      {"crawlfront_crawl_urls_failed_total", "counter", "URLs of the crawl done with a failure.",
       [](const CrawlStatus& c) { return D(c.urls_failed); }},
      {"crawlfront_crawl_hosts", "gauge", "Hosts with a queue in the crawl.",
       [](const CrawlStatus& c) { return D(c.hosts); }},
      {"crawlfront_crawl_hosts_ready", "gauge", "Hosts of the crawl that may be contacted now.",
       [](const CrawlStatus& c) { return D(c.hosts_ready); }},
  };
  const size_t n = std::min(crawls.size(), kStatusMaxCrawls);
  for (const Series& s : kSeries) {
    w.Family(s.name, s.type, s.help);
    for (size_t i = 0; i < n; ++i) w.Sample(s.name, {{"crawl", crawls[i].id}}, s.value(crawls[i]));
  }
}

}  // namespace

std::string RenderPrometheusMetrics(const StatusSnapshot& snapshot,
                                    size_t top_partitions) {
  MetricWriter w;
  w.Family("crawlfront_build_info", "gauge", "Always 1; the version is a label.");
  w.Sample("crawlfront_build_info", {{"version", snapshot.version}}, 1);
  w.Single("crawlfront_uptime_seconds", "gauge", "Seconds since the frontier started.",
           snapshot.uptime_seconds);
  w.Single("crawlfront_ready", "gauge", "1 when the frontier is ready to serve.",
           snapshot.ready);
  w.Single("crawlfront_finished", "gauge", "1 when every crawl has drained.",
           snapshot.finished);
  WriteTotals(w, snapshot.totals);
  WriteSeen(w, snapshot.seen, top_partitions);
  WritePersistence(w, snapshot.persistence);
  WriteMemory(w, snapshot.memory);
  WriteTasks(w, snapshot);
  WriteWorkers(w, snapshot.workers);
  WriteCrawls(w, snapshot.crawls);
  return w.Take();
}

}  // namespace crawlfront
