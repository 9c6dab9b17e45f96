// The dashboard page: the embedded HTML template with a server-rendered first
// view, so the numbers show before (and without) the script. Every value is
// HTML-escaped here; the script later replaces the rows using textContent.
#include "status_page.h"

#include <cstdio>
#include <string>

#include "crawlfront/frontier/status_http.h"
#include "status_assets_gen.h"
#include "status_render.h"

namespace crawlfront {

namespace {

std::string Num(uint64_t v) { return std::to_string(v); }
std::string Num(int64_t v) { return std::to_string(v); }
std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

// One <tr> of escaped cells.
std::string Row(std::initializer_list<std::string> cells) {
  std::string out = "<tr>";
  for (const std::string& c : cells) out += "<td>" + HtmlEscape(c) + "</td>";
  return out + "</tr>\n";
}

std::string TotalsRows(const StatusSnapshot& s) {
  const StatusTotals& t = s.totals;
  return Row({"URLs seen", Num(t.urls_seen)}) + Row({"queued", Num(t.urls_queued)}) +
         Row({"in flight", Num(t.urls_inflight)}) +
         Row({"fetched", Num(t.urls_fetched)}) + Row({"failed", Num(t.urls_failed)}) +
         Row({"robots blocked", Num(t.urls_robots_blocked)}) +
         Row({"rejected", Num(t.urls_rejected)}) + Row({"dropped", Num(t.urls_dropped)}) +
         Row({"hosts (ready)", Num(t.hosts) + " (" + Num(t.hosts_ready) + ")"}) +
         Row({"leases expired", Num(t.leases_expired)}) +
         Row({"uptime", Num(s.uptime_seconds) + " s"});
}

std::string SeenRows(const SeenSetStatus& seen) {
  PartitionSummary p = SummarizePartitions(seen.partitions);
  return Row({"mode", seen.mode}) + Row({"items", Num(seen.items)}) +
         Row({"filter bytes", Num(seen.filter_bytes)}) +
         Row({"partitions", Num(p.count)}) +
         Row({"fill min / mean / max",
              Num(p.fill_min) + " / " + Num(p.fill_mean) + " / " + Num(p.fill_max)}) +
         Row({"max est. FP rate", Num(p.fp_max)}) +
         Row({"rebuilding now", Num(static_cast<uint64_t>(p.rebuilding))});
}

std::string HostRows(const std::vector<HostStatus>& hosts) {
  std::string out;
  for (size_t i = 0; i < hosts.size() && i < kStatusMaxHosts; ++i) {
    const HostStatus& h = hosts[i];
    out += Row({h.host, Num(h.queued), Num(h.inflight), Num(h.done), Num(h.delay_ms),
                h.ready_in_ms <= 0 ? "now" : Num(h.ready_in_ms),
                h.blocked_until_unix_ms > 0 ? Num(h.blocked_until_unix_ms) : "-",
                h.robots_state});
  }
  return out;
}

std::string WorkerRows(const std::vector<WorkerStatus>& workers) {
  std::string out;
  for (size_t i = 0; i < workers.size() && i < kStatusMaxWorkers; ++i) {
    const WorkerStatus& w = workers[i];
    out += Row({w.id, w.address, Num(w.leases), Num(w.dones), Num(w.pages_per_second)});
  }
  return out;
}

const char* CrawlStateText(const CrawlStatus& c) {
  return c.paused ? "paused" : c.finished ? "finished" : "running";
}

std::string CrawlRows(const std::vector<CrawlStatus>& crawls) {
  std::string out;
  for (size_t i = 0; i < crawls.size() && i < kStatusMaxCrawls; ++i) {
    const CrawlStatus& c = crawls[i];
    out += Row({c.id, CrawlStateText(c), Num(c.urls_seen), Num(c.urls_queued),
                Num(c.urls_inflight), Num(c.urls_fetched), Num(c.urls_failed), Num(c.hosts),
                Num(c.hosts_ready)});
  }
  return out;
}

std::string ErrorRows(const std::vector<ErrorEntry>& errors) {
  std::string out;
  auto [first, last] = NewestRange(errors, kStatusMaxErrors);
  for (size_t i = last; i > first; --i) {  // newest first
    out += Row({Num(errors[i - 1].unix_ms), errors[i - 1].text});
  }
  return out;
}

// Replaces the single "<!--CF:key-->" marker of the template.
void Fill(std::string& page, std::string_view key, const std::string& html) {
  std::string marker = "<!--CF:" + std::string(key) + "-->";
  size_t at = page.find(marker);
  if (at != std::string::npos) page.replace(at, marker.size(), html);
}

}  // namespace

const EmbeddedAsset* FindEmbeddedAsset(std::string_view name) {
  for (const EmbeddedAsset& asset : kEmbeddedAssets) {
    if (asset.name == name) return &asset;
  }
  return nullptr;
}

std::string RenderDashboardPage(const StatusSnapshot* snapshot) {
  const EmbeddedAsset* page_asset = FindEmbeddedAsset("dashboard.html");
  if (page_asset == nullptr)
    return "<!DOCTYPE html><title>crawlfront</title>no dashboard";
  std::string page(page_asset->body);
  if (snapshot == nullptr) {
    for (std::string_view key : {"VERSION", "STATE", "TOTALS", "SEEN", "TASKS", "HOSTS",
                                 "WORKERS", "CRAWLS", "ERRORS"}) {
      Fill(page, key, "");
    }
    return page;
  }
  const StatusSnapshot& s = *snapshot;
  const char* state = s.finished ? "finished" : s.ready ? "ready" : "not ready";
  Fill(page, "VERSION", HtmlEscape(s.version));
  Fill(page, "STATE", state);
  Fill(page, "TOTALS", TotalsRows(s));
  Fill(page, "SEEN", SeenRows(s.seen));
  Fill(page, "TASKS",
       Row({"snapshot", DescribeTask(s.snapshot)}) +
           Row({"rebuild", DescribeTask(s.rebuild)}) +
           Row({"durability", HtmlEscape(DescribePersistence(s.persistence))}));
  Fill(page, "HOSTS", HostRows(s.top_hosts));
  Fill(page, "WORKERS", WorkerRows(s.workers));
  Fill(page, "CRAWLS", CrawlRows(s.crawls));
  Fill(page, "ERRORS", ErrorRows(s.recent_errors));
  return page;
}

std::string RenderDashboardHtml(const StatusSnapshot& snapshot) {
  return RenderDashboardPage(&snapshot);
}

}  // namespace crawlfront
