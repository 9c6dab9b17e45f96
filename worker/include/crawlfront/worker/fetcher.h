#pragma once
// HTTP fetcher over the libcurl multi interface. One dedicated thread drives
// one multi handle with curl's socket API and epoll (it sleeps until a socket
// is ready, curl's timer is due or a new request is submitted), so many
// transfers share one connection cache and never busy-poll. docs/worker.md
// describes the behaviour.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront {

struct FetchOptions {
  // Transfers running at once. More overlaps more slow servers; each costs a
  // socket and buffers. Default: 64.
  int max_transfers = 64;
  // Connections kept open for reuse after their transfer (libcurl's
  // connection cache, CURLMOPT_MAXCONNECTS; the oldest idle one is closed
  // past it). A crawl comes back to a host after its politeness delay, so
  // this should cover the hosts being crawled: libcurl's own default (4 x
  // the transfers running) reopened about one connection in nine on a
  // 100-host crawl. Each costs a file descriptor; the fetcher raises the
  // process's soft limit if it can, else lowers this and logs it.
  // Default: 1024.
  int connection_cache = 1024;
  // Fill FetchResult::request_head (the WARC request record needs it). It
  // takes libcurl's verbose mode, whose messages cost a few percent of the
  // worker's CPU, so the worker turns it off when WARC is off.
  // Default: true.
  bool record_request_head = true;
  // User-Agent header; should name the crawler and a contact URL.
  // Default: "crawlfront/0.1 (+https://example.invalid/crawlfront)".
  std::string user_agent = "crawlfront/0.1 (+https://example.invalid/crawlfront)";
  // Limit on TCP (+TLS) connection set-up. Default: 10 s.
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
  // Limit on a whole transfer. Default: 60 s.
  std::chrono::milliseconds total_timeout = std::chrono::seconds(60);
  // A transfer slower than low_speed_bytes per second for low_speed_time is
  // aborted as a timeout (trickling servers). Default: 100 B/s for 30 s.
  int64_t low_speed_bytes = 100;
  std::chrono::milliseconds low_speed_time = std::chrono::seconds(30);
  // Decoded body bytes kept; the transfer stops there and is marked
  // truncated. Also bounds decompression bombs. Default: 10 MiB.
  int64_t max_body_bytes = int64_t{10} << 20;
  // CURLOPT_CONNECT_TO entries "HOST:PORT:CONNECT-HOST:CONNECT-PORT"
  // ("::127.0.0.1:8080" sends every request to 127.0.0.1:8080).
  // Default: empty.
  std::vector<std::string> connect_to;
  // CURLOPT_RESOLVE entries "HOST:PORT:ADDRESS[,ADDRESS]". Default: empty.
  std::vector<std::string> resolve;
  // Allow connecting to loopback, private (RFC 1918, fc00::/7), link-local
  // and unspecified addresses. Off protects internal services from crawled
  // links; tests and the demo turn it on. Default: false.
  bool allow_private_networks = false;
  // PEM file of the CA certificates trusted for https, instead of the system
  // store (a private CA, or a test's self-signed certificate). Verification
  // is never switched off. Default: "" = the system store.
  std::string tls_ca_file;
};

// One request. `id` is the caller's, echoed in the result.
struct FetchRequest {
  uint64_t id = 0;
  std::string url;  // absolute http(s) URL
  // Extra request headers, "Name: value" (a recrawl's If-None-Match and
  // If-Modified-Since). The caller keeps CR and LF out.
  std::vector<std::string> headers{};  // {}: aggregates may omit it
};

enum class FetchOutcome {
  kResponse,     // a response arrived (any status); see truncated
  kTimeout,      // connect, total or low-speed timeout
  kConnectError, // DNS failure, refused, reset, TLS failure
  kDisallowed,   // refused by us: private address
  kError,        // anything else (bad URL, internal curl error)
};

// "response", "timeout", ...
const char* FetchOutcomeName(FetchOutcome outcome);

struct FetchResult {
  uint64_t id = 0;
  std::string url;
  FetchOutcome outcome = FetchOutcome::kError;
  std::string error;       // why, when outcome != kResponse
  int status = 0;          // HTTP status code, 0 without a response
  // HTTP version of the response: "1.0", "1.1", "2" or "3"; "" without one.
  std::string http_version;
  std::string primary_ip;  // address connected to; empty if none
  // Request line and headers as sent (ends with a blank line); empty
  // unless FetchOptions::record_request_head.
  std::string request_head;
  // Status line and headers of the final response as received.
  std::string response_head;
  // (lower-case name, value) pairs of response_head, in order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;        // content-decoded, at most max_body_bytes
  bool truncated = false;  // the body was cut at max_body_bytes
  int64_t total_ms = 0;    // from start to the end of the transfer
  std::chrono::system_clock::time_point fetch_time;  // when the transfer started

  // The first value of header `lower_name`, or "" if absent.
  std::string Header(std::string_view lower_name) const;
};

// Runs transfers on its own thread. Submit() and TakeResults() are
// thread-safe; results are delivered through TakeResults().
class Fetcher {
 public:
  // Initializes libcurl (once per process) and starts the thread.
  // InvalidArgument for bad options (max_transfers < 1, negative limits,
  // malformed connect_to/resolve entries, unreadable tls_ca_file); Internal
  // if curl cannot start.
  static Result<std::unique_ptr<Fetcher>> Start(FetchOptions options);
  // Abandons running transfers (no results for them) and joins the thread.
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // Queues a request; at most max_transfers run at once, the rest wait in
  // order. Busy after Shutdown().
  Status Submit(FetchRequest request);

  // Moves finished results into *out (appending). Waits up to `wait` for at
  // least one when none is ready. Returns the number appended.
  size_t TakeResults(std::vector<FetchResult>* out, std::chrono::milliseconds wait);

  // Requests submitted whose result has not been taken yet.
  size_t outstanding() const;

  // Stops the thread, abandoning queued and running transfers. Idempotent.
  void Shutdown();

  const FetchOptions& options() const { return options_; }

 private:
  struct Shared;
  explicit Fetcher(FetchOptions options);
  void Loop();

  const FetchOptions options_;
  std::unique_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace crawlfront
