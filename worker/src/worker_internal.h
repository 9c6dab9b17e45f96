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
};

// A FRONTIER.DONE command for `result` of `lease`, and the links it reports
// (also written to the WARC metadata record).
struct Report {
  std::vector<std::string> command;
  std::string outcome;
  std::vector<std::string> links;
};

Report BuildReport(const Lease& lease, const FetchResult& result,
                   const ReportOptions& opts);

// True for text/html and application/xhtml+xml Content-Types.
bool IsHtml(std::string_view content_type);

// The WARC exchange of a response. The body is stored decoded, so a
// Content-Encoding header is renamed to X-Crawlfront-Content-Encoding and
// Content-Length / Transfer-Encoding are replaced by the decoded length
// (docs/worker.md explains why).
WarcExchange BuildExchange(const FetchResult& result, std::vector<std::string> outlinks);

// Splits "host:port" or "[v6]:port". InvalidArgument when malformed.
Status ParseHostPort(std::string_view address, std::string* host, uint16_t* port);

// One frontier: its connection, reconnect backoff and the DONE commands not
// yet acknowledged. Not thread-safe (used by the worker loop only).
class FrontierLink {
 public:
  FrontierLink(std::string address, RespClientOptions client_options,
               std::chrono::milliseconds backoff_min, std::chrono::milliseconds backoff_max);

  const std::string& address() const { return address_; }
  // Connects if disconnected and the backoff allows it; true when connected.
  bool EnsureConnected();
  bool connected() const { return client_ != nullptr; }
  // When the next connect attempt is allowed.
  std::chrono::steady_clock::time_point next_attempt() const { return next_attempt_; }
  // Sends LEASE; a network failure disconnects and returns the error.
  Result<std::vector<Lease>> LeaseBatch(const std::vector<std::string>& command);
  // Queues a DONE command until the frontier acknowledges it.
  void QueueDone(std::vector<std::string> command) { pending_.push_back(std::move(command)); }
  // Sends every queued DONE in one pipeline; drops those answered (integer
  // or error reply) and returns how many. On a network failure all stay
  // queued for the next connection (the frontier ignores duplicates).
  size_t FlushDone();
  size_t pending() const { return pending_.size(); }
  // Connections made after the first one.
  uint64_t reconnects() const { return reconnects_; }

 private:
  void Disconnect(const Status& why);

  std::string address_;
  std::string host_;
  uint16_t port_ = 0;
  RespClientOptions client_options_;
  std::chrono::milliseconds backoff_min_, backoff_max_, backoff_;
  std::chrono::steady_clock::time_point next_attempt_{};
  std::unique_ptr<RespClient> client_;
  uint64_t connects_ = 0;
  uint64_t reconnects_ = 0;
  std::deque<std::vector<std::string>> pending_;
};

}  // namespace crawlfront::worker_internal
