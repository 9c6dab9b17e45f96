#pragma once
// Pieces of the worker that are pure functions or small classes, kept apart
// so tests can reach them: result -> DONE arguments, WARC exchange building,
// and one frontier connection with its unacknowledged results. Lease and
// Retry-After parsing are in worker_parse.h.

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/common.h>

#include "crawlfront/common/resp.h"
#include "crawlfront/common/resp_client.h"
#include "crawlfront/common/status.h"
#include "crawlfront/worker/fetcher.h"
#include "crawlfront/worker/warc.h"
#include "worker_parse.h"

namespace crawlfront::worker_internal {

// Largest robots.txt body reported to the frontier (protocol contract).
inline constexpr size_t kMaxRobotsBytes = 500 * 1024;

// Settings the report needs.
struct ReportOptions {
  std::string worker_id;
  bool respect_nofollow = true;
  size_t max_links = 2000;
  int64_t default_retry_delay_ms = 60000;
  size_t max_sitemap_links = 50000;  // 0: sitemaps are not read
  bool mark_sitemaps = false;        // DONE says SITEMAP 1 for a sitemap's body
  bool send_lastmods = false;        // ... and LASTMOD with its links' <lastmod>s
  std::string robots_token{};        // for <meta name=TOKEN> and "TOKEN:" X-Robots-Tag
};

// A FRONTIER.DONE command for `result` of `lease`, and the links it reports
// (also written to the WARC metadata record).
struct Report {
  std::vector<std::string> command;
  std::string outcome;
  std::vector<std::string> links;
  std::vector<int64_t> lastmod_s;  // a sitemap's: each link's <lastmod>, 0 if none
  int64_t retry_delay_ms = -1;  // the DELAY sent for a 429/503, else -1
  std::string sitemap;          // "sitemap" or "sitemap index" when the body was one
  std::string note;  // why links were cut short or not followed (limit, bad XML, nofollow)
};

Report BuildReport(const Lease& lease, const FetchResult& result,
                   const ReportOptions& opts);

// A recrawl's conditional request headers (If-None-Match, If-Modified-Since)
// from its lease's validators; none for robots.txt or a first fetch.
std::vector<std::string> ConditionalHeaders(const Lease& lease);

// The result's log line: "page URL -> fetched status 200 HTTP/2 12 ms, 3
// links"; without a response it ends with the reason (": timeout: ..."), a
// 429/503 retry with the delay, and robots leases have no link count.
std::string DescribeResult(const Lease& lease, const FetchResult& result, const Report& report);

// True for text/html and application/xhtml+xml Content-Types.
bool IsHtml(std::string_view content_type);

// The WARC exchange of a response. The body is stored decoded, so a
// Content-Encoding header is renamed to X-Crawlfront-Content-Encoding and
// Content-Length / Transfer-Encoding are replaced by the decoded length
// (docs/worker.md explains why).
WarcExchange BuildExchange(const FetchResult& result, std::vector<std::string> outlinks);

// Splits "host:port" or "[v6]:port". InvalidArgument when malformed.
Status ParseHostPort(std::string_view address, std::string* host, uint16_t* port);

struct FrontierLinkOptions {
  RespClientOptions client;
  // Reconnect backoff: the first delay, doubled per failure up to the maximum.
  std::chrono::milliseconds backoff_min{100};
  std::chrono::milliseconds backoff_max{10000};
  // While a frontier stays unreachable, a warning at most this often (the
  // other failures are logged at debug).
  std::chrono::milliseconds warn_interval = std::chrono::seconds(30);
  // This worker's User-Agent; on each connect its robots product token must
  // be the frontier's (INFO robots), or the link fails for good.
  std::string user_agent;
  // Non-empty: on the link's first connection, FRONTIER.RELEASE this worker
  // id (the leases an earlier process under the same id left behind).
  std::string release_id;
};

// What the frontier answered to the DONEs of one FlushDone().
struct FlushCounts {
  size_t acked = 0;     // 1: the lease was open and is now closed
  size_t late = 0;      // 0: the lease was unknown, expired or closed already
  size_t rejected = 0;  // an error reply: the frontier could not read it
};

// One frontier: its connection, reconnect backoff and the DONE commands not
// yet acknowledged. Not thread-safe (used by the worker loop only).
class FrontierLink {
 public:
  FrontierLink(std::string address, FrontierLinkOptions options);

  const std::string& address() const { return address_; }
  // Connects if disconnected and the backoff allows it, and checks the
  // frontier's robots product token; true when connected.
  bool EnsureConnected();
  bool connected() const { return client_ != nullptr; }
  // Not OK once the frontier turned out to be unusable with this
  // configuration (InvalidArgument: robots product tokens differ); the link
  // then never connects again.
  const Status& fatal() const { return fatal_; }
  // When the next connect attempt is allowed.
  std::chrono::steady_clock::time_point next_attempt() const { return next_attempt_; }
  // Sends LEASE; a network failure disconnects (logging it) and returns the error.
  Result<std::vector<Lease>> LeaseBatch(const std::vector<std::string>& command);
  // Queues a DONE command (for `url`) until the frontier answers it.
  void QueueDone(std::vector<std::string> command, std::string url);
  // Sends up to 512 queued DONEs in one pipeline and drops those answered.
  // On a network failure all stay queued for the next connection (the
  // frontier answers 0 to a duplicate).
  FlushCounts FlushDone();
  size_t pending() const { return pending_.size(); }
  // Gives leases back (FRONTIER.RENEW with a 1 ms deadline, so the frontier
  // re-queues them at its next expiry check, as if they had expired); one
  // attempt, connecting if the backoff allows. Returns how many it accepted.
  size_t ReturnLeases(const std::string& worker_id, const std::vector<std::string>& lease_ids);
  // Connections made after the first one.
  uint64_t reconnects() const { return reconnects_; }
  // The frontier queues read sitemaps again (INFO robots sitemap_refetch_ms
  // > 0), so DONEs mark them; an older frontier would refuse the option.
  bool marks_sitemaps() const { return marks_sitemaps_; }
  // ... and reads their <lastmod>s (INFO robots sitemap_lastmod:1).
  bool sends_lastmods() const { return sends_lastmods_; }

 private:
  struct PendingDone {
    std::vector<std::string> command;
    std::string url;
  };
  void Disconnect(const Status& why);
  void NoteConnectFailure(const Status& why, std::chrono::steady_clock::time_point now,
                          spdlog::level::level_enum level_to_show = spdlog::level::warn,
                          std::string_view what = "cannot connect");
  // Non-OK on a network failure (disconnects) or a token mismatch (fatal_).
  Status CheckRobotsToken();
  // FRONTIER.RELEASE of options_.release_id; non-OK on a network failure
  // (disconnects).
  Status ReleaseEarlierLeases();

  std::string address_;
  std::string host_;
  uint16_t port_ = 0;
  FrontierLinkOptions options_;
  std::chrono::milliseconds backoff_;
  std::chrono::steady_clock::time_point next_attempt_{};
  std::unique_ptr<RespClient> client_;
  Status fatal_;
  bool marks_sitemaps_ = false;
  bool sends_lastmods_ = false;
  uint64_t connects_ = 0;
  uint64_t reconnects_ = 0;
  // The current run of failed connects: how many, since when, last warning.
  uint64_t failures_ = 0;
  std::chrono::steady_clock::time_point failing_since_{}, last_warn_{};
  std::deque<PendingDone> pending_;
};

}  // namespace crawlfront::worker_internal
