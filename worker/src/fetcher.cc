#include "crawlfront/worker/fetcher.h"

#include <curl/curl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "fetcher_loop.h"
#include "fetcher_transfer.h"

namespace crawlfront {

using fetcher_internal::Transfer;

namespace {

// curl_global_init is not thread-safe; run it once for the process.
Status GlobalInitOnce() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) {
    return Status::Internal(std::string("curl_global_init: ") + curl_easy_strerror(rc));
  }
  return Status::Ok();
}

Status BuildList(std::string_view what, const std::vector<std::string>& entries,
                 int min_colons, curl_slist** out) {
  for (const std::string& e : entries) {
    std::string problem = fetcher_internal::CurlListEntryProblem(e, min_colons);
    if (!problem.empty()) return Status::InvalidArgument(std::string(what) + ": " + problem);
    curl_slist* next = curl_slist_append(*out, e.c_str());
    if (next == nullptr) return Status::Internal("curl_slist_append failed");
    *out = next;
  }
  return Status::Ok();
}

Status CheckOptions(const FetchOptions& o) {
  if (o.max_transfers < 1) return Status::InvalidArgument("max_transfers must be >= 1");
  if (o.connection_cache < 1) {
    return Status::InvalidArgument("connection_cache must be >= 1");
  }
  if (o.max_body_bytes < 0 || o.low_speed_bytes < 0) {
    return Status::InvalidArgument("byte limits must not be negative");
  }
  if (o.connect_timeout.count() < 0 || o.total_timeout.count() < 0 ||
      o.low_speed_time.count() < 0) {
    return Status::InvalidArgument("timeouts must not be negative");
  }
  for (char c : o.user_agent) {
    if (c == '\r' || c == '\n') return Status::InvalidArgument("user_agent has a line break");
  }
  // Checked here so a typo fails at start-up, not as a TLS error per fetch.
  if (!o.tls_ca_file.empty() && access(o.tls_ca_file.c_str(), R_OK) != 0) {
    return Status::InvalidArgument("tls_ca_file: cannot read '" + o.tls_ca_file + "'");
  }
  return Status::Ok();
}

// The connection cache that fits the open-file limit next to the running
// transfers and some spare descriptors, raising the soft limit if needed.
long FittingConnectionCache(const FetchOptions& o) {
  const rlim_t want = static_cast<rlim_t>(o.connection_cache) + o.max_transfers + 256;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return o.connection_cache;
  if (lim.rlim_cur < want && lim.rlim_cur != RLIM_INFINITY) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max == RLIM_INFINITY ? want : std::min(want, lim.rlim_max);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= want) return o.connection_cache;
  const rlim_t spare = static_cast<rlim_t>(o.max_transfers) + 256;
  const long fit = lim.rlim_cur > spare + 1 ? static_cast<long>(lim.rlim_cur - spare) : 1;
  spdlog::warn("fetcher: connection_cache {} lowered to {}: the open-file limit is {}",
               o.connection_cache, fit, static_cast<unsigned long long>(lim.rlim_cur));
  return fit;
}

}  // namespace

const char* FetchOutcomeName(FetchOutcome outcome) {
  switch (outcome) {
    case FetchOutcome::kResponse: return "response";
    case FetchOutcome::kTimeout: return "timeout";
    case FetchOutcome::kConnectError: return "connect error";
    case FetchOutcome::kDisallowed: return "disallowed";
    case FetchOutcome::kError: return "error";
  }
  return "error";
}

std::string FetchResult::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return "";
}

// State shared between callers and the fetcher thread. `multi` and `active`
// belong to the thread, `events` too except Wake(); the rest is guarded by
// `mu`.
struct Fetcher::Shared {
  // First member, so destroyed last: curl calls its callbacks until the end
  // of curl_multi_cleanup.
  fetcher_internal::EventLoop events;
  CURLM* multi = nullptr;
  curl_slist* connect_to = nullptr;
  curl_slist* resolve = nullptr;
  std::map<CURL*, std::unique_ptr<Transfer>> active;

  mutable std::mutex mu;
  std::condition_variable results_cv;
  std::deque<FetchRequest> queued;
  std::vector<FetchResult> done;
  size_t outstanding = 0;
  bool stop = false;

  ~Shared() {
    for (auto& [easy, transfer] : active) curl_multi_remove_handle(multi, easy);
    active.clear();  // easy handles go before the multi handle
    if (multi != nullptr) curl_multi_cleanup(multi);
    curl_slist_free_all(connect_to);
    curl_slist_free_all(resolve);
  }
};

Fetcher::Fetcher(FetchOptions options)
    : options_(std::move(options)), shared_(std::make_unique<Shared>()) {}

Result<std::unique_ptr<Fetcher>> Fetcher::Start(FetchOptions options) {
  CRAWLFRONT_RETURN_IF_ERROR(CheckOptions(options));
  CRAWLFRONT_RETURN_IF_ERROR(GlobalInitOnce());
  std::unique_ptr<Fetcher> f(new Fetcher(std::move(options)));
  Shared& s = *f->shared_;
  std::vector<std::string> connect_to = f->options_.connect_to, resolve = f->options_.resolve;
  fetcher_internal::SplitWildcardConnectTo(&connect_to, &resolve);
  CRAWLFRONT_RETURN_IF_ERROR(BuildList("connect_to", connect_to, 3, &s.connect_to));
  CRAWLFRONT_RETURN_IF_ERROR(BuildList("resolve", resolve, 2, &s.resolve));
  s.multi = curl_multi_init();
  if (s.multi == nullptr) return Status::Internal("curl_multi_init failed");
  // Multiplex HTTP/2 streams on one connection where the server offers it.
  curl_multi_setopt(s.multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  curl_multi_setopt(s.multi, CURLMOPT_MAXCONNECTS, FittingConnectionCache(f->options_));
  CRAWLFRONT_RETURN_IF_ERROR(s.events.Init(s.multi));
  f->thread_ = std::thread([p = f.get()] { p->Loop(); });
  return f;
}

Fetcher::~Fetcher() { Shutdown(); }

void Fetcher::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->stop = true;
  }
  shared_->results_cv.notify_all();
  if (thread_.joinable()) {
    shared_->events.Wake();
    thread_.join();
  }
}

Status Fetcher::Submit(FetchRequest request) {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (shared_->stop) return Status::Busy("fetcher is shut down");
    shared_->queued.push_back(std::move(request));
    ++shared_->outstanding;
  }
  shared_->events.Wake();
  return Status::Ok();
}

size_t Fetcher::TakeResults(std::vector<FetchResult>* out, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->results_cv.wait_for(lock, wait,
                               [&] { return !shared_->done.empty() || shared_->stop; });
  const size_t n = shared_->done.size();
  for (FetchResult& r : shared_->done) out->push_back(std::move(r));
  shared_->done.clear();
  shared_->outstanding -= n;
  return n;
}

size_t Fetcher::outstanding() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->outstanding;
}

void Fetcher::Loop() {
  Shared& s = *shared_;
  std::vector<FetchResult> finished;
  for (;;) {  // ends when Shutdown() sets stop; each pass sleeps in RunOnce
    std::vector<FetchRequest> starting;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.stop) break;
      for (FetchResult& r : finished) s.done.push_back(std::move(r));
      while (!s.queued.empty() &&
             s.active.size() + starting.size() < static_cast<size_t>(options_.max_transfers)) {
        starting.push_back(std::move(s.queued.front()));
        s.queued.pop_front();
      }
    }
    if (!finished.empty()) s.results_cv.notify_all();
    finished.clear();
    for (const FetchRequest& req : starting) {
      Result<std::unique_ptr<Transfer>> t =
          Transfer::Create(req, options_, s.connect_to, s.resolve);
      if (!t.ok()) {
        FetchResult r;
        r.id = req.id;
        r.url = req.url;
        r.error = t.status().message();
        finished.push_back(std::move(r));
        continue;
      }
      CURL* easy = (*t)->easy();
      if (curl_multi_add_handle(s.multi, easy) != CURLM_OK) {
        finished.push_back((*t)->Finish(CURLE_FAILED_INIT));
        continue;
      }
      s.active.emplace(easy, std::move(*t));
    }
    // Sleeps only with nothing to deliver. Added handles asked for a timeout
    // of 0, so RunOnce starts them without sleeping.
    s.events.RunOnce(finished.empty());
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(s.multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      auto it = s.active.find(msg->easy_handle);
      if (it == s.active.end()) continue;
      const CURLcode code = msg->data.result;
      curl_multi_remove_handle(s.multi, msg->easy_handle);
      finished.push_back(it->second->Finish(code));
      s.active.erase(it);
    }
  }
}

}  // namespace crawlfront
