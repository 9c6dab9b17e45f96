// The worker's configuration table: every key, its bounds, default and help.

#include "crawlfront/worker/worker.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "crawlfront/worker/robots.h"
#include "fetcher_transfer.h"
#include "worker_internal.h"

namespace crawlfront {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using W = WorkerOptions;

constexpr milliseconds kDay = std::chrono::hours(24);

using config_internal::Value;

// Rules beyond type and bounds (ConfigTable::Check): each returns what was
// expected, or "" for a good value.
std::string FrontierAddressesRule(const Value& v) {
  const auto& list = std::get<std::vector<std::string>>(v);
  if (list.empty()) return "at least one host:port (or give --frontier HOST:PORT)";
  for (const std::string& address : list) {
    std::string host;
    uint16_t port = 0;
    Status st = worker_internal::ParseHostPort(address, &host, &port);
    if (!st.ok()) return "host:port entries (" + st.message() + ")";
  }
  return "";
}

std::string UserAgentRule(const Value& v) {
  const auto& agent = std::get<std::string>(v);
  if (agent.find_first_of("\r\n") != std::string::npos) return "one line";
  if (!RobotsProductToken(agent).empty()) return "";
  return "the crawler's name first (its robots.txt product token: letters, '_' or '-'), "
         "e.g. \"mybot/1.0 (+https://...)\"";
}

// curl list entries: no blanks, at least `colons` ':' separators.
std::string CurlListRule(const Value& v, const char* form, int colons) {
  for (const std::string& e : std::get<std::vector<std::string>>(v)) {
    std::string problem = fetcher_internal::CurlListEntryProblem(e, colons);
    if (!problem.empty()) return std::string(form) + " entries (" + problem + ")";
  }
  return "";
}

// A typo fails at start-up, not as a TLS error per fetch.
std::string ReadableFileRule(const Value& v) {
  const auto& path = std::get<std::string>(v);
  if (path.empty() || access(path.c_str(), R_OK) == 0) return "";
  return std::string("a readable file or \"\" (") + std::strerror(errno) + ")";
}

void AddWorkerKeys(ConfigTable<W>* t) {
  t->Add("worker.id", &W::id, "",
         "Identity sent with LEASE/DONE; empty means <hostname>-<pid>.");
  t->Add("worker.release_at_start", &W::release_at_start, true,
         "With a configured worker.id, end at start the leases that id still holds at each "
         "frontier (left by a process that died), so their URLs are queued again at once.");
  t->Add("worker.max_pages", &W::max_pages, 0, 0, INT64_MAX,
         "Stop after handling this many page leases (robots leases do not count); 0 = no limit.");
  t->Add("worker.exit_when_idle", &W::exit_when_idle, milliseconds(0), milliseconds(0), kDay,
         "Exit when nothing was leased or fetched for this long; 0 = run until stopped.");
  t->Add("worker.shutdown_grace", &W::shutdown_grace, seconds(10), milliseconds(0), kDay,
         "After SIGTERM/SIGINT, wait this long for running transfers before abandoning them.");
}

void AddFrontierKeys(ConfigTable<W>* t) {
  t->Add("frontier.addresses", &W::frontiers, {"127.0.0.1:6380"},
         "Frontiers to lease from, as host:port; the worker leases from each.");
  t->Check("frontier.addresses", FrontierAddressesRule);
  t->Add("frontier.auth_token", &W::auth_token, "",
         "Token sent with AUTH after connecting; empty sends no AUTH.");
  t->Add("frontier.timeout", &W::frontier_timeout, seconds(5), milliseconds(100), kDay,
         "Bound on each frontier call, added to the lease block time.");
  t->Add("frontier.reconnect_min", &W::reconnect_min, milliseconds(100), milliseconds(1), kDay,
         "First reconnect delay after a frontier goes away; doubles per failure.");
  t->Add("frontier.reconnect_max", &W::reconnect_max, seconds(10), milliseconds(1), kDay,
         "Largest reconnect delay.");
}

void AddLeaseKeys(ConfigTable<W>* t) {
  t->Add("lease.batch", &W::lease_batch, 0, 0, 100000,
         "URLs asked for per LEASE; 0 = as many as there are free transfer slots.");
  t->Add("lease.block", &W::lease_block, seconds(1), milliseconds(0), std::chrono::minutes(5),
         "How long an idle worker's LEASE waits at the frontier for work.");
  t->Add("lease.crawl", &W::crawl, "", "Crawl to lease from; empty = the default crawl.");
}

void AddFetchKeys(ConfigTable<W>* t) {
  t->Add("fetch.max_transfers", &W::max_transfers, 64, 1, 100000,
         "Transfers running at once.");
  t->Add("fetch.connection_cache", &W::connection_cache, 1024, 1, 1000000,
         "Connections kept open for reuse; should cover the hosts being crawled.");
  t->Add("fetch.user_agent", &W::user_agent,
         "crawlfront/0.1 (+https://example.invalid/crawlfront)",
         "User-Agent header; name the crawler and a contact URL. Its product token (the "
         "leading name) must match the frontiers' crawl.user_agent.");
  t->Check("fetch.user_agent", UserAgentRule);
  t->Add("fetch.connect_timeout", &W::connect_timeout, seconds(10), milliseconds(1), kDay,
         "Limit on connection set-up (TCP and TLS).");
  t->Add("fetch.total_timeout", &W::total_timeout, seconds(60), milliseconds(1), kDay,
         "Limit on a whole transfer.");
  t->Add("fetch.low_speed_bytes", &W::low_speed_bytes, 100, 0, INT64_MAX,
         "Transfers slower than this many bytes/s for low_speed_time are aborted.");
  t->Add("fetch.low_speed_time", &W::low_speed_time, seconds(30), seconds(1), kDay,
         "See low_speed_bytes.");
  t->Add("fetch.max_body_bytes", &W::max_body_bytes, int64_t{10} << 20, 0, int64_t{1} << 40,
         "Decoded body bytes kept; longer bodies are cut and marked truncated.");
  t->Add("fetch.connect_to", &W::connect_to, {},
         "curl CONNECT_TO entries HOST:PORT:CONNECT-HOST:CONNECT-PORT (\"::127.0.0.1:8080\" "
         "sends everything to 127.0.0.1:8080).");
  t->Check("fetch.connect_to", [](const Value& v) {
    return CurlListRule(v, "HOST:PORT:CONNECT-HOST:CONNECT-PORT", 3);
  });
  t->Add("fetch.resolve", &W::resolve, {}, "curl RESOLVE entries HOST:PORT:ADDRESS.");
  t->Check("fetch.resolve", [](const Value& v) { return CurlListRule(v, "HOST:PORT:ADDRESS", 2); });
  t->Add("fetch.allow_private_networks", &W::allow_private_networks, false,
         "Allow loopback, private and link-local targets (tests and demos only).");
  t->Add("fetch.tls_ca_file", &W::tls_ca_file, "",
         "PEM file of CA certificates trusted for https instead of the system store; "
         "empty = system store.");
  t->Check("fetch.tls_ca_file", ReadableFileRule);
  t->Add("fetch.default_retry_delay", &W::default_retry_delay, seconds(60), milliseconds(0),
         kDay, "Retry delay reported for 429/503 without a usable Retry-After.");
}

void AddOutputKeys(ConfigTable<W>* t) {
  t->Add("parse.respect_nofollow", &W::respect_nofollow, true,
         "Skip rel=nofollow links, and all links of pages whose <meta name=\"robots\"> (or "
         "name=the fetch.user_agent's robots token) or X-Robots-Tag header says nofollow or "
         "none.");
  t->Add("parse.max_links", &W::max_links, 2000, 1, 1000000, "Links reported per page.");
  t->Add("parse.max_sitemap_links", &W::max_sitemap_links, 50000, 0, 1000000,
         "URLs reported per sitemap (an XML <urlset> or <sitemapindex>, plain or gzip; "
         "robots.txt's Sitemap lines bring them to the crawl); 0 = sitemaps are not read.");
  t->Add("warc.enabled", &W::warc_enabled, true, "Write WARC files.");
  t->Add("warc.dir", &W::warc_dir, "warc", "Directory of the WARC files; created if missing.");
  t->Add("warc.prefix", &W::warc_prefix, "",
         "File name prefix; empty = crawlfront-<worker id>.");
  t->Add("warc.max_file_bytes", &W::warc_max_file_bytes, int64_t{1} << 30, 1024, INT64_MAX,
         "A new file starts when the next exchange would pass this size.");
  t->Add("warc.gzip_level", &W::warc_gzip_level, 6, 0, 9,
         "gzip compression level per record (libdeflate); 0 writes plain .warc files.");
  t->Add("warc.operator", &W::warc_operator, "", "warcinfo operator (who runs the crawl).");
  t->AddEnum("log.level", &W::log_level, "info",
             {"trace", "debug", "info", "warn", "error", "critical", "off"}, "Log level.");
  t->Add("log.file", &W::log_file, "", "Log file; empty logs to stderr.");
  t->Add("log.max_file_bytes", &W::log_max_file_bytes, 0, 0, INT64_MAX,
         "Past this size the log file is renamed FILE.1 (FILE.1 to FILE.2, ...) and a new one "
         "starts; 0 = never (rotate with logrotate: SIGHUP reopens the file).");
  t->Add("log.max_files", &W::log_max_files, 5, 1, 1000,
         "Rotated log files kept (FILE.1 ... FILE.N) when log.max_file_bytes is set.");
}

}  // namespace

const ConfigTable<WorkerOptions>& WorkerConfigTable() {
  static const ConfigTable<WorkerOptions>* table = [] {
    auto* t = new ConfigTable<WorkerOptions>();
    AddWorkerKeys(t);
    AddFrontierKeys(t);
    AddLeaseKeys(t);
    AddFetchKeys(t);
    AddOutputKeys(t);
    return t;
  }();
  return *table;
}

// Single keys are checked by the table's rules (with file:line when loaded
// from a file); what is left here spans keys.
Status ValidateWorkerOptions(const WorkerOptions& o) {
  CRAWLFRONT_RETURN_IF_ERROR(WorkerConfigTable().CheckValues(o));
  if (o.reconnect_max < o.reconnect_min) {
    return Status::InvalidArgument(
        "frontier.reconnect_max (" + std::to_string(o.reconnect_max.count()) +
        " ms) is below frontier.reconnect_min (" + std::to_string(o.reconnect_min.count()) +
        " ms)");
  }
  if (o.warc_enabled && o.warc_dir.empty()) {
    return Status::InvalidArgument(
        "warc.dir is empty: name a directory (--warc-dir), or set warc.enabled = false");
  }
  return Status::Ok();
}

FetchOptions FetchOptionsOf(const WorkerOptions& o) {
  FetchOptions f;
  f.max_transfers = o.max_transfers;
  f.connection_cache = o.connection_cache;
  f.record_request_head = o.warc_enabled;  // only WARC request records use it
  f.user_agent = o.user_agent;
  f.connect_timeout = o.connect_timeout;
  f.total_timeout = o.total_timeout;
  f.low_speed_bytes = o.low_speed_bytes;
  f.low_speed_time = o.low_speed_time;
  f.max_body_bytes = o.max_body_bytes;
  f.connect_to = o.connect_to;
  f.resolve = o.resolve;
  f.allow_private_networks = o.allow_private_networks;
  f.tls_ca_file = o.tls_ca_file;
  return f;
}

}  // namespace crawlfront
