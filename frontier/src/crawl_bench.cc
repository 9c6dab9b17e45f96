// Crawl core throughput and RAM: adds N URLs over H hosts (batches of 1000),
// then leases them (1000 per call) and reports them done (one write per
// batch of DONEs). Prints URLs/s, RSS growth per queued URL and head
// refills. Usage: crawl_bench [urls=1000000] [hosts=10000]
// [dir=/tmp/crawl_bench.<pid>] [delay_ms=0] [queue_heads_bytes=256 MiB]
// With a delay, each round leases what is ready (one URL per host) and then
// moves the fake clock on by the delay: a polite crawl without the waiting.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "crawlfront/common/proc_status.h"
#include "crawlfront/frontier/crawl.h"

using namespace crawlfront;

static long RssKiB() { return static_cast<long>(ProcStatusKb("VmRSS:")); }

static double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  uint64_t n = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  uint64_t hosts = argc > 2 ? std::stoull(argv[2]) : 10'000;
  std::string dir = argc > 3 ? argv[3] : "/tmp/crawl_bench." + std::to_string(getpid());
  const int64_t delay_ms = argc > 4 ? std::stoll(argv[4]) : 0;
  std::filesystem::remove_all(dir);
  auto store = Store::Open(dir, StoreOptions{});
  SeenSetOptions so;
  so.expected_urls = n;
  so.snapshot_interval = std::chrono::milliseconds(0);
  auto seen = SeenSet::Open(store->get(), so);
  CrawlOptions o;
  o.respect_robots = false;
  o.default_delay = std::chrono::milliseconds(delay_ms);
  if (argc > 5) o.queue_heads_bytes = std::stoull(argv[5]);
  ManualClock clock;
  auto core = CrawlCore::Open(store->get(), seen->get(), o, &clock);
  if (!store.ok() || !seen.ok() || !core.ok()) return 1;
  long rss0 = RssKiB();

  auto t0 = std::chrono::steady_clock::now();
  std::vector<AddRequest> reqs;
  std::vector<AddResult> out;
  for (uint64_t i = 0; i < n; i += 1000) {
    reqs.clear();
    for (uint64_t j = i; j < std::min(n, i + 1000); ++j) {
      reqs.push_back({"http://host" + std::to_string(j % hosts) + ".example/page/" +
                          std::to_string(j), 0, 0, "", 0});
    }
    if (!(*core)->Add("", reqs, &out).ok()) return 2;
  }
  double add_s = Seconds(t0);
  long rss1 = RssKiB();
  std::printf("add: %llu URLs over %llu hosts in %.2f s = %.0f URLs/s\n",
              (unsigned long long)n, (unsigned long long)hosts, add_s, n / add_s);
  std::printf("rss: %ld KiB before, %ld KiB after add: %.1f bytes per queued URL "
              "(includes seen-set filters and RocksDB memtables/cache)\n",
              rss0, rss1, (rss1 - rss0) * 1024.0 / n);

  t0 = std::chrono::steady_clock::now();
  uint64_t leased = 0;
  std::vector<LeasedUrl> leases;
  DoneReport ok;
  ok.http_status = 200;
  for (int round = 0; round < 10'000'000 && leased < n; ++round) {
    leases.clear();
    if (!(*core)->Lease("w", 1000, "", &leases).ok()) return 3;
    if (leases.empty() && delay_ms > 0) {
      clock.Advance(delay_ms);
      continue;
    }
    if (leases.empty()) break;
    // A batch of DONEs committed with one write, as a pipeline of
    // FRONTIER.DONE is (group commit).
    uint64_t ticket = 0;
    for (auto& l : leases) {
      bool known;
      if (!(*core)->Done("w", l.lease_id, ok, &known, &ticket).ok() || !known) return 4;
    }
    if (!(*core)->Sync(ticket).ok()) return 4;
    leased += leases.size();
  }
  double lease_s = Seconds(t0);
  std::printf("lease+done: %llu URLs in %.2f s = %.0f URLs/s; finished=%d\n",
              (unsigned long long)leased, lease_s, leased / lease_s,
              (int)(*core)->Finished(""));
  const CrawlCore::HeadsUsage heads = (*core)->heads_usage();
  std::printf("heads: %llu refills read %llu\n", (unsigned long long)heads.refills,
              (unsigned long long)heads.refilled);
  core->reset();
  seen->reset();
  store->reset();
  std::filesystem::remove_all(dir);
  return 0;
}
