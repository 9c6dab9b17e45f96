#include "fetcher_transfer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace crawlfront::fetcher_internal {
namespace {

bool IsPrivateV4(const uint8_t* a) {
  return a[0] == 0 ||                                   // 0.0.0.0/8 "this network"
         a[0] == 10 ||                                  // RFC 1918
         a[0] == 127 ||                                 // loopback
         (a[0] == 100 && (a[1] & 0xC0) == 64) ||        // 100.64/10 carrier NAT
         (a[0] == 169 && a[1] == 254) ||                // link-local
         (a[0] == 172 && (a[1] & 0xF0) == 16) ||        // RFC 1918
         (a[0] == 192 && a[1] == 168);                  // RFC 1918
}

bool IsPrivateV6(const uint8_t* a) {
  static const uint8_t kZero[16] = {};
  if (std::memcmp(a, kZero, 15) == 0 && (a[15] == 0 || a[15] == 1)) return true;  // :: and ::1
  if ((a[0] & 0xFE) == 0xFC) return true;                  // fc00::/7 unique local
  if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80) return true;  // fe80::/10 link-local
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  if (std::memcmp(a, kMapped, 12) == 0) return IsPrivateV4(a + 12);  // ::ffff:a.b.c.d
  return false;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' ||
                   s[e - 1] == '\n')) {
    --e;
  }
  return std::string(s.substr(b, e - b));
}

FetchOutcome OutcomeOf(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return FetchOutcome::kResponse;
    case CURLE_OPERATION_TIMEDOUT:
      return FetchOutcome::kTimeout;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_BAD_CONTENT_ENCODING:
      return FetchOutcome::kConnectError;
    default:
      return FetchOutcome::kError;
  }
}

const char* HttpVersionName(long version) {
  switch (version) {
    case CURL_HTTP_VERSION_1_0: return "1.0";
    case CURL_HTTP_VERSION_1_1: return "1.1";
    case CURL_HTTP_VERSION_2_0: return "2";
    case CURL_HTTP_VERSION_3: return "3";
    default: return "";
  }
}

}  // namespace

bool IsPrivateAddress(const struct sockaddr* addr, size_t len) {
  if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    return IsPrivateV4(reinterpret_cast<const uint8_t*>(&in->sin_addr));
  }
  if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    return IsPrivateV6(reinterpret_cast<const uint8_t*>(&in6->sin6_addr));
  }
  return true;  // unix sockets and unknown families are never crawl targets
}

std::string CurlListEntryProblem(std::string_view entry, int min_colons) {
  if (entry.empty()) return "empty entry";
  for (unsigned char c : entry) {
    if (c <= ' ' || c == 0x7F) return "whitespace or control byte in '" + std::string(entry) + "'";
  }
  if (std::count(entry.begin(), entry.end(), ':') < min_colons) {
    return "'" + std::string(entry) + "' needs at least " + std::to_string(min_colons) +
           " ':' separators";
  }
  return "";
}

namespace {

bool IsNumericAddress(std::string_view a) {
  unsigned char buf[sizeof(in6_addr)];
  if (a.size() > 2 && a.front() == '[' && a.back() == ']') {
    return inet_pton(AF_INET6, std::string(a.substr(1, a.size() - 2)).c_str(), buf) == 1;
  }
  return inet_pton(AF_INET, std::string(a).c_str(), buf) == 1;
}

bool IsPort(std::string_view p) {
  if (p.empty() || p.size() > 5) return false;
  int v = 0;
  for (char c : p) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  return v >= 1 && v <= 65535;
}

// The PORT of a RESOLVE entry "[+-]HOST:PORT[:ADDRESS]".
std::string_view ResolvePort(std::string_view e) {
  const size_t a = e.find(':');
  if (a == std::string_view::npos) return {};
  const size_t b = e.find(':', a + 1);
  return e.substr(a + 1, b == std::string_view::npos ? std::string_view::npos : b - a - 1);
}

}  // namespace

void SplitWildcardConnectTo(std::vector<std::string>* connect_to,
                            std::vector<std::string>* resolve) {
  for (std::string& entry : *connect_to) {
    if (!entry.starts_with("::")) continue;
    const std::string_view target = std::string_view(entry).substr(2);
    const size_t colon = target.rfind(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view addr = target.substr(0, colon), port = target.substr(colon + 1);
    if (!IsNumericAddress(addr) || !IsPort(port)) continue;
    const bool port_resolved = std::any_of(resolve->begin(), resolve->end(), [&](const auto& r) {
      return ResolvePort(r) == port;
    });
    if (port_resolved) continue;
    resolve->push_back("*:" + std::string(port) + ":" + std::string(addr));
    entry = ":::" + std::string(port);
  }
}

Result<std::unique_ptr<Transfer>> Transfer::Create(const FetchRequest& request,
                                                   const FetchOptions& options,
                                                   curl_slist* connect_to,
                                                   curl_slist* resolve) {
  std::unique_ptr<Transfer> t(new Transfer(options));
  t->result_.id = request.id;
  t->result_.url = request.url;
  t->result_.fetch_time = std::chrono::system_clock::now();
  t->easy_ = curl_easy_init();
  if (t->easy_ == nullptr) return Status::Internal("curl_easy_init failed");
  CRAWLFRONT_RETURN_IF_ERROR(t->Configure(connect_to, resolve, request.headers));
  return t;
}

Transfer::~Transfer() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  curl_slist_free_all(headers_);  // after the handle that used it
}

Status Transfer::Configure(curl_slist* connect_to, curl_slist* resolve,
                           const std::vector<std::string>& headers) {
  for (const std::string& h : headers) {
    curl_slist* next = curl_slist_append(headers_, h.c_str());
    if (next == nullptr) return Status::Internal("curl_slist_append failed");
    headers_ = next;
  }
  CURLcode rc = CURLE_OK;
  // Stops at the first failing option; the rest are skipped.
  auto set = [&](CURLoption opt, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy_, opt, value);
  };
  set(CURLOPT_URL, result_.url.c_str());
  set(CURLOPT_PRIVATE, static_cast<void*>(this));
  set(CURLOPT_ERRORBUFFER, error_buffer_);
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_FOLLOWLOCATION, 0L);  // the frontier schedules redirect targets
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  set(CURLOPT_PIPEWAIT, 1L);        // prefer multiplexing over a new connection
  set(CURLOPT_ACCEPT_ENCODING, "");  // every encoding this libcurl decodes
  set(CURLOPT_USERAGENT, options_.user_agent.c_str());
  set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  set(CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
  set(CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(options_.low_speed_bytes));
  set(CURLOPT_LOW_SPEED_TIME,
      static_cast<long>(std::max<int64_t>(1, options_.low_speed_time.count() / 1000)));
  set(CURLOPT_WRITEFUNCTION, &Transfer::OnWrite);
  set(CURLOPT_WRITEDATA, static_cast<void*>(this));
  set(CURLOPT_HEADERFUNCTION, &Transfer::OnHeader);
  set(CURLOPT_HEADERDATA, static_cast<void*>(this));
  if (options_.record_request_head) {
    set(CURLOPT_DEBUGFUNCTION, &Transfer::OnDebug);
    set(CURLOPT_DEBUGDATA, static_cast<void*>(this));
    set(CURLOPT_VERBOSE, 1L);  // required for the debug callback (request head)
  }
  set(CURLOPT_OPENSOCKETFUNCTION, &Transfer::OnOpenSocket);
  set(CURLOPT_OPENSOCKETDATA, static_cast<void*>(this));
  if (connect_to != nullptr) set(CURLOPT_CONNECT_TO, connect_to);
  if (resolve != nullptr) set(CURLOPT_RESOLVE, resolve);
  if (!options_.tls_ca_file.empty()) set(CURLOPT_CAINFO, options_.tls_ca_file.c_str());
  if (headers_ != nullptr) set(CURLOPT_HTTPHEADER, headers_);
  if (rc != CURLE_OK) {
    return Status::Internal(std::string("curl_easy_setopt: ") + curl_easy_strerror(rc));
  }
  return Status::Ok();
}

size_t Transfer::OnWrite(char* data, size_t size, size_t n, void* self) {
  auto* t = static_cast<Transfer*>(self);
  const size_t bytes = size * n;
  const size_t limit = static_cast<size_t>(t->options_.max_body_bytes);
  const size_t room = limit - std::min(limit, t->result_.body.size());
  if (bytes > room) {
    t->result_.body.append(data, room);
    t->result_.truncated = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->result_.body.append(data, bytes);
  return bytes;
}

size_t Transfer::OnHeader(char* data, size_t size, size_t n, void* self) {
  auto* t = static_cast<Transfer*>(self);
  std::string_view line(data, size * n);
  // A new status line starts a new response (after 1xx interim responses).
  if (line.starts_with("HTTP/")) {
    t->result_.response_head.clear();
    t->result_.headers.clear();
  }
  t->result_.response_head.append(line);
  const size_t colon = line.find(':');
  if (!line.starts_with("HTTP/") && colon != std::string_view::npos && colon > 0) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    t->result_.headers.emplace_back(std::move(name), Trim(line.substr(colon + 1)));
  }
  return size * n;
}

int Transfer::OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* self) {
  // CURLINFO_HEADER_OUT carries the complete request head as sent.
  if (type == CURLINFO_HEADER_OUT) {
    static_cast<Transfer*>(self)->result_.request_head.assign(data, size);
  }
  return 0;
}

curl_socket_t Transfer::OnOpenSocket(void* self, curlsocktype, struct curl_sockaddr* a) {
  auto* t = static_cast<Transfer*>(self);
  if (!t->options_.allow_private_networks &&
      IsPrivateAddress(&a->addr, static_cast<size_t>(a->addrlen))) {
    t->refused_private_ = true;
    return CURL_SOCKET_BAD;
  }
  return ::socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

void Transfer::Classify(CURLcode code) {
  if (refused_private_ && code != CURLE_OK) {
    result_.outcome = FetchOutcome::kDisallowed;
    result_.error = "private address";
    return;
  }
  if (code == CURLE_WRITE_ERROR && result_.truncated) {
    result_.outcome = FetchOutcome::kResponse;  // we stopped it at the size limit
    return;
  }
  result_.outcome = OutcomeOf(code);
  if (code != CURLE_OK) {
    result_.error = error_buffer_[0] != '\0' ? error_buffer_ : curl_easy_strerror(code);
  }
}

FetchResult Transfer::Finish(CURLcode code) {
  Classify(code);
  long status = 0;
  if (curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) {
    result_.status = static_cast<int>(status);
  }
  long version = 0;
  if (result_.status != 0 &&
      curl_easy_getinfo(easy_, CURLINFO_HTTP_VERSION, &version) == CURLE_OK) {
    result_.http_version = HttpVersionName(version);
  }
  char* ip = nullptr;
  if (curl_easy_getinfo(easy_, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip != nullptr) {
    result_.primary_ip = ip;
  }
  curl_off_t total_us = 0;
  if (curl_easy_getinfo(easy_, CURLINFO_TOTAL_TIME_T, &total_us) == CURLE_OK) {
    result_.total_ms = static_cast<int64_t>(total_us / 1000);
  }
  if (result_.outcome == FetchOutcome::kResponse && result_.status == 0) {
    result_.outcome = FetchOutcome::kConnectError;  // e.g. truncated before a status line
    result_.error = "no HTTP status";
  }
  if (result_.outcome == FetchOutcome::kDisallowed) result_.primary_ip.clear();
  return std::move(result_);
}

}  // namespace crawlfront::fetcher_internal
