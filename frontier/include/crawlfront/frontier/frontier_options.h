#pragma once
// crawl-frontier's configuration: one flat struct (one field per config key)
// and the table that documents, bounds and loads it. configs/frontier.toml
// sets every key; the daemon converts this into each component's options.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "crawlfront/common/config.h"
#include "crawlfront/frontier/bf_commands.h"
#include "crawlfront/frontier/crawl_options.h"
#include "crawlfront/frontier/resp_server.h"
#include "crawlfront/frontier/seen_set.h"
#include "crawlfront/frontier/status_http.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

struct FrontierOptions {
  // [server]
  std::string listen;
  std::string http;
  int64_t threads = 0;
  std::string auth_token;
  std::chrono::milliseconds idle_timeout{};
  int64_t max_connections = 0;
  int64_t max_bulk_bytes = 0;
  int64_t max_array_len = 0;
  std::string port_file;
  // [data]
  std::string data_dir;
  std::string durability;
  int64_t block_cache_bytes = 0;
  // [seen]
  int64_t partitions = 0;
  int64_t expected_urls = 0;
  double false_positive_rate = 0;
  double rebuild_fill_ratio = 0;
  std::string seen_mode;
  std::chrono::milliseconds snapshot_interval{};
  int64_t seen_cache_bytes = 0;
  // [crawl]
  std::chrono::milliseconds default_delay{};
  double delay_factor = 0;
  int64_t max_inflight_per_host = 0;
  std::chrono::milliseconds lease_timeout{};
  int64_t max_attempts = 0;
  std::chrono::milliseconds retry_backoff_base{}, retry_backoff_max{};
  int64_t max_depth = 0;
  std::vector<std::string> allow_host_suffixes, deny_host_suffixes, deny_regexes;
  int64_t max_urls_per_host = 0;
  int64_t max_url_length = 0;
  int64_t max_repeated_path_segments = 0;
  int64_t max_query_params = 0;
  int64_t max_path_depth = 0;
  std::string user_agent;
  bool respect_robots = true;
  bool check_live_counts = false;
  bool fetch_history = true;
  std::chrono::milliseconds robots_ttl{}, robots_error_backoff{}, robots_error_retry{};
  std::chrono::milliseconds sitemap_refetch{};
  std::chrono::milliseconds lease_check_interval{};
  int64_t queue_heads_bytes = 0;
  // [url]
  std::string host_key;
  bool sort_query = false;
  bool allow_credentials = false;
  std::vector<std::string> strip_params;
  // [bloom]  (user BF.* filters)
  int64_t bloom_max_bytes = 0;
  std::chrono::milliseconds bloom_snapshot_interval{};
  // [log]
  std::string log_level;
  std::string log_file;
  int64_t log_max_file_bytes = 0;
  int64_t log_max_files = 5;
};

// Every key with bounds, default and help (built once; thread-safe).
const ConfigTable<FrontierOptions>& FrontierConfigTable();
// Command-line shortcuts: --listen, --http, --data-dir, --port-file, ...
const std::vector<FlagAlias>& FrontierFlagAliases();

StoreOptions StoreOptionsOf(const FrontierOptions& o);
SeenSetOptions SeenSetOptionsOf(const FrontierOptions& o);
CrawlOptions CrawlOptionsOf(const FrontierOptions& o);
RespServerOptions RespServerOptionsOf(const FrontierOptions& o);
StatusServerOptions StatusServerOptionsOf(const FrontierOptions& o);
UserBloomOptions UserBloomOptionsOf(const FrontierOptions& o);

}  // namespace crawlfront
