#pragma once
// One libcurl easy transfer and its callbacks (internal to the fetcher).

#include <curl/curl.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/worker/fetcher.h"

namespace crawlfront::fetcher_internal {

// True for addresses a crawler must not reach unless allowed: loopback,
// RFC 1918 / RFC 6598 private, link-local, unspecified, unique-local IPv6,
// IPv4-mapped forms of those. `addr` is a sockaddr of `len` bytes.
bool IsPrivateAddress(const struct sockaddr* addr, size_t len);

// Checks one CONNECT_TO ("HOST:PORT:CONNECT-HOST:CONNECT-PORT") or RESOLVE
// ("HOST:PORT:ADDRESS") entry's shape; `min_colons` is 3 or 2. Returns what
// is wrong with it, or "".
std::string CurlListEntryProblem(std::string_view entry, int min_colons);

// Rewrites each CONNECT_TO entry "::ADDR:PORT" (every host and port to a
// numeric ADDR) into ":::PORT" (keep the host name, connect to PORT) plus a
// RESOLVE entry "*:PORT:ADDR". Requests still reach ADDR:PORT, but libcurl
// 7.88 keys its connection cache by the connect-to host, so with the first
// form every host shared one list of idle connections and each new transfer
// polled all of them; keyed by host name each list is short. Left alone when
// a RESOLVE entry already names PORT (it would take precedence).
void SplitWildcardConnectTo(std::vector<std::string>* connect_to,
                            std::vector<std::string>* resolve);

// The state of one transfer. Owned by the fetcher thread.
class Transfer {
 public:
  // Creates and configures the easy handle. `connect_to` and `resolve` may be
  // null and must outlive the transfer. Internal if curl refuses an option.
  static Result<std::unique_ptr<Transfer>> Create(const FetchRequest& request,
                                                  const FetchOptions& options,
                                                  curl_slist* connect_to,
                                                  curl_slist* resolve);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  CURL* easy() const { return easy_; }
  // Fills in the result from the transfer's final code; call once, after the
  // multi handle reported it done (or with a code when adding it failed).
  FetchResult Finish(CURLcode code);

 private:
  Transfer(const FetchOptions& options) : options_(options) {}
  Status Configure(curl_slist* connect_to, curl_slist* resolve,
                   const std::vector<std::string>& headers);
  void Classify(CURLcode code);

  static size_t OnWrite(char* data, size_t size, size_t n, void* self);
  static size_t OnHeader(char* data, size_t size, size_t n, void* self);
  static int OnDebug(CURL* easy, curl_infotype type, char* data, size_t size, void* self);
  static curl_socket_t OnOpenSocket(void* self, curlsocktype purpose,
                                    struct curl_sockaddr* address);

  const FetchOptions& options_;
  CURL* easy_ = nullptr;
  FetchResult result_;
  curl_slist* headers_ = nullptr;  // CURLOPT_HTTPHEADER, freed with the handle
  bool refused_private_ = false;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace crawlfront::fetcher_internal
