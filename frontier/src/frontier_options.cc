// crawl-frontier's configuration table: every key, its bounds, default, help.

#include "crawlfront/frontier/frontier_options.h"

#include <bit>

#include "crawlfront/common/net.h"
#include "crawlfront/worker/robots.h"

namespace crawlfront {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using F = FrontierOptions;
constexpr milliseconds kDay = std::chrono::hours(24);
constexpr milliseconds kYear = kDay * 366;

// "" when `v` is an address a server can listen on (or empty, if allowed).
std::string ListenCheck(const config_internal::Value& v, bool empty_ok) {
  const auto& text = std::get<std::string>(v);
  if (empty_ok && text.empty()) return "";
  if (ParseListenEndpoint(text).ok()) return "";
  return std::string("an IP address and port such as \"127.0.0.1:6380\"") +
         (empty_ok ? " (or \"\" for none)" : "");
}

void AddServerKeys(ConfigTable<F>* t) {
  t->Add("server.listen", &F::listen, "127.0.0.1:6380",
         "RESP (Redis protocol) address for workers, crawlctl and Redis clients; port 0 "
         "picks a free one. A non-loopback address requires server.auth_token.");
  t->Add("server.http", &F::http, "127.0.0.1:8080",
         "Status page, /api/stats, /metrics; empty disables it.");
  t->Check("server.listen", [](const auto& v) { return ListenCheck(v, false); });
  t->Check("server.http", [](const auto& v) { return ListenCheck(v, true); });
  t->Add("server.threads", &F::threads, 0, 0, 256,
         "io threads for RESP connections; 0 = half the cores, at least 1.");
  t->Add("server.auth_token", &F::auth_token, "",
         "Clients must AUTH with this token; the status API wants it as a bearer token.");
  t->Add("server.idle_timeout", &F::idle_timeout, seconds(300), milliseconds(100), kDay,
         "Idle RESP connections are closed after this long.");
  t->Add("server.max_connections", &F::max_connections, 10000, 1, 1000000,
         "RESP connections beyond this are refused.");
  t->Add("server.max_bulk_bytes", &F::max_bulk_bytes, 64 << 20, 1024, int64_t{1} << 31,
         "Largest RESP bulk string accepted; bigger frames close the connection.");
  t->Add("server.max_array_len", &F::max_array_len, 1 << 20, 16, 1 << 24,
         "Most elements in one RESP command (URLs per FRONTIER.ADD).");
  t->Add("server.port_file", &F::port_file, "",
         "After start-up, write 'resp=PORT' and 'http=PORT' lines here (scripts use it with "
         "port 0).");
}

void AddDataKeys(ConfigTable<F>* t) {
  t->Add("data.dir", &F::data_dir, "frontier-data", "RocksDB directory; created if missing.");
  t->AddEnum("data.durability", &F::durability, "everysec", {"wal", "everysec", "fsync"},
             "wal: an acknowledged write survives kill -9; everysec: and the WAL is fsynced "
             "every second, so power loss loses at most about a second (Redis's appendfsync "
             "everysec); fsync: an acknowledged write survives power loss too (group commit, "
             "slower).");
  t->Add("data.block_cache_bytes", &F::block_cache_bytes, int64_t{256} << 20, 1 << 20,
         int64_t{1} << 40, "RocksDB block cache; more keeps more of the exact seen-set in RAM.");
}

void AddSeenKeys(ConfigTable<F>* t) {
  t->Add("seen.partitions", &F::partitions, 1024, 1, 65536,
         "Seen-set partitions (power of two); fixed for the life of data.dir.");
  t->Check("seen.partitions", [](const config_internal::Value& v) -> std::string {
    return std::has_single_bit(static_cast<uint64_t>(std::get<int64_t>(v))) ? ""
                                                                            : "a power of two";
  });
  t->Add("seen.expected_urls", &F::expected_urls, 10'000'000, 1024, int64_t{1} << 40,
         "URLs expected overall; sizes the first filters (too small only costs rebuilds).");
  t->Add("seen.false_positive_rate", &F::false_positive_rate, 0.01, 1e-9, 0.25,
         "Bloom false-positive rate at capacity; lower costs RAM.");
  t->Add("seen.rebuild_fill_ratio", &F::rebuild_fill_ratio, 0.5, 0.05, 0.95,
         "A partition's filter is rebuilt twice as large when this fraction of its bits is set.");
  t->AddEnum("seen.mode", &F::seen_mode, "exact", {"exact", "bloom-only"},
             "exact: Bloom 'maybe' confirmed in RocksDB, no URL lost; bloom-only: faster, "
             "loses about false_positive_rate of new URLs.");
  t->Add("seen.snapshot_interval", &F::snapshot_interval, seconds(60), milliseconds(0), kDay,
         "How often changed filters are written to RocksDB; 0 = only at shutdown.");
  t->Add("seen.cache_bytes", &F::seen_cache_bytes, int64_t{16} << 20, 0, int64_t{1} << 36,
         "RAM for URLs confirmed seen (16 bytes each, all partitions), so repeated links "
         "skip RocksDB; 0 disables.");
}

void AddCrawlKeys(ConfigTable<F>* t) {
  t->Add("crawl.default_delay", &F::default_delay, seconds(1), milliseconds(0), kDay,
         "Politeness: least time between two fetch starts on one host.");
  t->Add("crawl.delay_factor", &F::delay_factor, 0.0, 0.0, 1000.0,
         "Politeness: also wait this many times the host's last response time.");
  t->Add("crawl.max_inflight_per_host", &F::max_inflight_per_host, 1, 1, 1000,
         "Leases one host may have at once.");
  t->Add("crawl.lease_timeout", &F::lease_timeout, seconds(60), milliseconds(10), kDay,
         "A lease not reported done by then goes back to its queue.");
  t->Add("crawl.lease_check_interval", &F::lease_check_interval, milliseconds(500),
         milliseconds(10), std::chrono::minutes(10),
         "How often expired leases are looked for, and open ones written to disk, so that "
         "after a crash only the leases made since the last check are queued again.");
  t->Add("crawl.max_attempts", &F::max_attempts, 3, 1, 100,
         "Tries per URL before it is marked failed.");
  t->Add("crawl.retry_backoff_base", &F::retry_backoff_base, seconds(5), milliseconds(0), kDay,
         "First retry waits this long; doubles per attempt.");
  t->Add("crawl.retry_backoff_max", &F::retry_backoff_max, std::chrono::minutes(10),
         milliseconds(0), kYear, "Cap on the retry wait.");
  t->Add("crawl.max_depth", &F::max_depth, 16, 0, 100000, "Links deeper than this are not added.");
  t->Add("crawl.allow_host_suffixes", &F::allow_host_suffixes, {},
         "Only hosts ending in one of these are crawled; empty = all.");
  t->Add("crawl.deny_host_suffixes", &F::deny_host_suffixes, {}, "Hosts never crawled.");
  t->Add("crawl.deny_regexes", &F::deny_regexes, {},
         "URLs in which any of these (RE2 regex) finds a match are rejected. "
         "crawlctl deny adds patterns at run time.");
  t->Add("crawl.max_urls_per_host", &F::max_urls_per_host, 0, 0, int64_t{1} << 50,
         "Budget: URLs accepted per host; 0 = unlimited.");
  t->Add("crawl.max_url_length", &F::max_url_length, 1024, 16, 1 << 20,
         "Trap rule: longer canonical URLs are rejected.");
  t->Add("crawl.max_repeated_path_segments", &F::max_repeated_path_segments, 3, 1, 1000,
         "Trap rule: a path segment repeated more often is rejected (/a/a/a/a).");
  t->Add("crawl.max_query_params", &F::max_query_params, 16, 0, 10000,
         "Trap rule: URLs with more query parameters are rejected.");
  t->Add("crawl.max_path_depth", &F::max_path_depth, 32, 1, 10000,
         "Trap rule: URLs with more path segments are rejected.");
  t->Add("crawl.user_agent", &F::user_agent, "crawlfront",
         "Product token robots.txt groups are matched against.");
  // Workers compare it with their fetch.user_agent's (INFO robots); without
  // one there is nothing to compare and only '*' groups would match.
  t->Check("crawl.user_agent", [](const config_internal::Value& v) -> std::string {
    return RobotsProductToken(std::get<std::string>(v)).empty()
               ? "a robots.txt product token: letters, '_' or '-', e.g. \"mybot\""
               : "";
  });
  t->Add("crawl.respect_robots", &F::respect_robots, true, "Obey robots.txt.");
  t->Add("crawl.robots_ttl", &F::robots_ttl, kDay, seconds(1), kYear,
         "robots.txt is fetched again after this long.");
  t->Add("crawl.robots_error_backoff", &F::robots_error_backoff, std::chrono::minutes(1),
         seconds(1), kDay,
         "After a 5xx, 429 or unreachable robots.txt the host's pages wait (disallow all) and "
         "robots.txt is fetched again after this; the wait doubles with each failure in a row, "
         "up to robots_error_retry.");
  t->Add("crawl.robots_error_retry", &F::robots_error_retry, std::chrono::hours(1), seconds(1),
         kYear,
         "Longest wait between robots.txt retries. After crawl.max_attempts failures in a row "
         "the host's queued pages count as robots-blocked, and robots.txt is asked again "
         "after this long.");
  t->Add("crawl.sitemap_refetch", &F::sitemap_refetch, milliseconds(0), milliseconds(0), kYear,
         "A sitemap (or sitemap index) is fetched again this long after it was read, so URLs a "
         "site adds to its sitemaps later are found, and the URLs it lists with a <lastmod> "
         "later than its previous read are fetched again; 0 = each sitemap is read once. A "
         "crawl with it set never finishes: its sitemaps are always queued again.");
  t->Add("crawl.queue_heads_bytes", &F::queue_heads_bytes, int64_t{256} << 20, 0,
         int64_t{1} << 40,
         "RAM for queue heads (the next URLs of each host), all hosts together; each host "
         "keeps 4 even beyond it. Within it a host's whole queue (up to 256 URLs) stays in RAM "
         "as it is added, and often-leased hosts read more per RocksDB seek.");
  t->Add("crawl.fetch_history", &F::fetch_history, true,
         "Keep each URL's last fetch result (outcome, HTTP status, attempt, time, response "
         "time, reason, ETag and Last-Modified) for FRONTIER.URL, crawlctl url and conditional "
         "recrawls (If-None-Match / If-Modified-Since): one RocksDB write of about 70 bytes "
         "per DONE. Off: FRONTIER.URL cannot say what happened to a URL that left the "
         "frontier, and recrawls fetch every page in full.");
  t->Add("crawl.check_live_counts", &F::check_live_counts, false,
         "For tests and debugging: every stats query (INFO, FRONTIER.STATS, the status page) "
         "also walks all hosts and compares them with the counters kept as hosts change; a "
         "difference is logged and counted in INFO's live_count_errors. A walk per query: "
         "slow with many hosts.");
}

void AddUrlAndMiscKeys(ConfigTable<F>* t) {
  t->AddEnum("url.host_key", &F::host_key, "host", {"host", "registered-domain"},
             "Politeness queues per host, or per registered domain (libpsl).");
  t->Add("url.sort_query", &F::sort_query, false, "Sort query parameters when canonicalizing.");
  t->Add("url.allow_credentials", &F::allow_credentials, false,
         "Strip user:password@ from URLs instead of rejecting them.");
  t->Add("url.strip_params", &F::strip_params, DefaultStripParams(),
         "Query parameters removed when canonicalizing; 'x*' matches a prefix.");
  t->Add("bloom.max_bytes", &F::bloom_max_bytes, int64_t{1} << 30, 0, int64_t{1} << 40,
         "RAM cap for all BF.* filters together.");
  t->Add("bloom.snapshot_interval", &F::bloom_snapshot_interval, seconds(60), milliseconds(0),
         kDay, "How often changed BF.* filters are written to RocksDB.");
  t->AddEnum("log.level", &F::log_level, "info",
             {"trace", "debug", "info", "warn", "error", "critical", "off"}, "Log level.");
  t->Add("log.file", &F::log_file, "", "Log file; empty logs to stderr.");
  t->Add("log.max_file_bytes", &F::log_max_file_bytes, 0, 0, INT64_MAX,
         "Past this size the log file is renamed FILE.1 (FILE.1 to FILE.2, ...) and a new one "
         "starts; 0 = never (rotate with logrotate: SIGHUP reopens the file).");
  t->Add("log.max_files", &F::log_max_files, 5, 1, 1000,
         "Rotated log files kept (FILE.1 ... FILE.N) when log.max_file_bytes is set.");
}

}  // namespace

const ConfigTable<FrontierOptions>& FrontierConfigTable() {
  static const ConfigTable<F>* table = [] {
    auto* t = new ConfigTable<F>();
    AddServerKeys(t);
    AddDataKeys(t);
    AddSeenKeys(t);
    AddCrawlKeys(t);
    AddUrlAndMiscKeys(t);
    return t;
  }();
  return *table;
}

const std::vector<FlagAlias>& FrontierFlagAliases() {
  static const std::vector<FlagAlias> aliases = {
      {"listen", "server.listen"},     {"http", "server.http"},
      {"data-dir", "data.dir"},        {"port-file", "server.port_file"},
      {"auth-token", "server.auth_token"}, {"log-level", "log.level"},
  };
  return aliases;
}

StoreOptions StoreOptionsOf(const F& o) {
  StoreOptions s;
  s.durability = o.durability == "fsync"      ? Durability::kFsync
                 : o.durability == "everysec" ? Durability::kEverySec
                                              : Durability::kWal;
  s.block_cache_bytes = o.block_cache_bytes;
  return s;
}

SeenSetOptions SeenSetOptionsOf(const F& o) {
  SeenSetOptions s;
  s.partitions = static_cast<uint32_t>(o.partitions);
  s.expected_urls = o.expected_urls;
  s.false_positive_rate = o.false_positive_rate;
  s.rebuild_fill_ratio = o.rebuild_fill_ratio;
  s.mode = o.seen_mode == "bloom-only" ? SeenMode::kBloomOnly : SeenMode::kExact;
  s.snapshot_interval = o.snapshot_interval;
  s.cache_bytes = static_cast<uint64_t>(o.seen_cache_bytes);
  return s;
}

CrawlOptions CrawlOptionsOf(const F& o) {
  CrawlOptions c;
  c.default_delay = o.default_delay;
  c.delay_factor = o.delay_factor;
  c.max_inflight_per_host = static_cast<uint32_t>(o.max_inflight_per_host);
  c.lease_timeout = o.lease_timeout;
  c.max_attempts = static_cast<uint32_t>(o.max_attempts);
  c.retry_backoff_base = o.retry_backoff_base;
  c.retry_backoff_max = o.retry_backoff_max;
  c.max_depth = static_cast<uint32_t>(o.max_depth);
  c.allow_host_suffixes = o.allow_host_suffixes;
  c.deny_host_suffixes = o.deny_host_suffixes;
  c.deny_regexes = o.deny_regexes;
  c.max_urls_per_host = o.max_urls_per_host;
  c.max_url_length = o.max_url_length;
  c.max_repeated_path_segments = static_cast<uint32_t>(o.max_repeated_path_segments);
  c.max_query_params = static_cast<uint32_t>(o.max_query_params);
  c.max_path_depth = static_cast<uint32_t>(o.max_path_depth);
  c.user_agent = o.user_agent;
  c.respect_robots = o.respect_robots;
  c.robots_ttl = o.robots_ttl;
  c.robots_error_backoff = o.robots_error_backoff;
  c.robots_error_retry = o.robots_error_retry;
  c.sitemap_refetch = o.sitemap_refetch;
  c.queue_heads_bytes = static_cast<uint64_t>(o.queue_heads_bytes);
  c.check_live_counts = o.check_live_counts;
  c.fetch_history = o.fetch_history;
  c.url.host_key_mode =
      o.host_key == "registered-domain" ? HostKeyMode::kRegisteredDomain : HostKeyMode::kHost;
  c.url.sort_query = o.sort_query;
  c.url.allow_credentials = o.allow_credentials;
  c.url.strip_params = o.strip_params;
  return c;
}

RespServerOptions RespServerOptionsOf(const F& o) {
  RespServerOptions r;
  r.listen = o.listen;
  r.threads = static_cast<int>(o.threads);
  r.auth_token = o.auth_token;
  r.idle_timeout = o.idle_timeout;
  r.max_connections = o.max_connections;
  r.limits.max_bulk_len = o.max_bulk_bytes;
  r.limits.max_array_len = o.max_array_len;
  return r;
}

StatusServerOptions StatusServerOptionsOf(const F& o) {
  StatusServerOptions s;
  s.listen = o.http;
  s.auth_token = o.auth_token;
  return s;
}

UserBloomOptions UserBloomOptionsOf(const F& o) {
  UserBloomOptions b;
  b.max_total_bytes = o.bloom_max_bytes;
  b.snapshot_interval = o.bloom_snapshot_interval;
  return b;
}

}  // namespace crawlfront
