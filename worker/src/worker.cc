#include "crawlfront/worker/worker.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "crawlfront/common/url.h"
#include "crawlfront/worker/robots.h"
#include "worker_internal.h"

namespace crawlfront {

using worker_internal::FrontierLink;
using worker_internal::Lease;
using Clock = std::chrono::steady_clock;

namespace {

std::string DefaultId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "worker") + "-" + std::to_string(getpid());
}

// WARC file names allow [A-Za-z0-9._-]; anything else becomes '_'.
std::string SafePrefix(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return s;
}

// "1 transfer", "2 transfers".
std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

class Worker::Impl {
 public:
  explicit Impl(WorkerOptions options) : opts_(std::move(options)) {}
  Status Init();
  Status Run(const std::atomic<bool>& stop);

  WorkerOptions opts_;
  WorkerStats stats_;

 private:
  struct InFlight {
    Lease lease;
    size_t link = 0;
  };
  void LeaseMore();
  Status HandleResults(std::chrono::milliseconds wait);
  void FlushAll();
  void Flush(FrontierLink& link);
  void UpdateStats();
  void CountOutcome(const std::string& outcome);
  void WarnPrivate(const std::string& url, const std::string& why);
  Status Fatal() const;
  void NoteStopping(const char* why);
  void ReturnAbandoned();
  void LogSummary() const;
  bool StopForPages() const {
    return opts_.max_pages > 0 && pages_leased_ >= opts_.max_pages;
  }

  std::unique_ptr<Fetcher> fetcher_;
  std::unique_ptr<WarcWriter> warc_;
  std::vector<FrontierLink> links_;
  std::unordered_map<uint64_t, InFlight> in_flight_;
  uint64_t next_request_id_ = 1;
  int64_t pages_leased_ = 0;
  size_t next_link_ = 0;  // round robin start
  worker_internal::ReportOptions report_opts_;
  Clock::time_point last_activity_ = Clock::now();
  std::unordered_set<std::string> private_hosts_;  // warned about once each
};

Status Worker::Impl::Init() {
  CRAWLFRONT_RETURN_IF_ERROR(ValidateWorkerOptions(opts_));
  const bool fixed_id = !opts_.id.empty();
  if (opts_.id.empty()) opts_.id = DefaultId();
  worker_internal::FrontierLinkOptions link_opts;
  // A default id is new with each process: no earlier leases to end.
  if (fixed_id && opts_.release_at_start) link_opts.release_id = opts_.id;
  link_opts.client.timeout = opts_.frontier_timeout + opts_.lease_block;
  link_opts.client.auth_token = opts_.auth_token;
  link_opts.backoff_min = opts_.reconnect_min;
  link_opts.backoff_max = opts_.reconnect_max;
  link_opts.user_agent = opts_.user_agent;
  for (const std::string& address : opts_.frontiers) links_.emplace_back(address, link_opts);
  report_opts_ = {opts_.id, opts_.respect_nofollow, static_cast<size_t>(opts_.max_links),
                  opts_.default_retry_delay.count(),
                  static_cast<size_t>(opts_.max_sitemap_links)};
  report_opts_.robots_token = std::string(RobotsProductToken(opts_.user_agent));
  auto fetcher = Fetcher::Start(FetchOptionsOf(opts_));
  if (!fetcher.ok()) return fetcher.status();
  fetcher_ = std::move(*fetcher);
  if (opts_.warc_enabled) {
    WarcOptions w;
    w.dir = opts_.warc_dir;
    w.prefix = opts_.warc_prefix.empty() ? SafePrefix("crawlfront-" + opts_.id) : opts_.warc_prefix;
    w.max_file_bytes = static_cast<uint64_t>(opts_.warc_max_file_bytes);
    w.gzip_level = opts_.warc_gzip_level;
    w.operator_info = opts_.warc_operator;
    auto writer = WarcWriter::Open(std::move(w));
    if (!writer.ok()) return writer.status();
    warc_ = std::move(*writer);
  }
  return Status::Ok();
}

void Worker::Impl::LeaseMore() {
  const size_t n = links_.size();
  for (size_t i = 0; i < n && !StopForPages(); ++i) {
    FrontierLink& link = links_[(next_link_ + i) % n];
    const int64_t free_slots = opts_.max_transfers - static_cast<int64_t>(in_flight_.size());
    if (free_slots <= 0) break;
    if (!link.EnsureConnected()) continue;
    // Results first: re-sent after a reconnect, they must reach the
    // frontier before a new LEASE could hand out their URLs again.
    while (link.pending() > 0 && link.connected()) Flush(link);
    if (!link.connected()) continue;
    int64_t count = opts_.lease_batch > 0 ? std::min<int64_t>(opts_.lease_batch, free_slots)
                                          : free_slots;
    if (opts_.max_pages > 0) count = std::min(count, opts_.max_pages - pages_leased_);
    // Block only when idle, so finished transfers are not left waiting.
    const auto block = in_flight_.empty() ? opts_.lease_block / static_cast<int64_t>(n)
                                          : std::chrono::milliseconds(0);
    std::vector<std::string> cmd = {"FRONTIER.LEASE", opts_.id, std::to_string(count),
                                    "BLOCK", std::to_string(block.count())};
    if (!opts_.crawl.empty()) cmd.insert(cmd.end(), {"CRAWL", opts_.crawl});
    auto leases = link.LeaseBatch(cmd);
    if (!leases.ok()) {
      // A lost connection was logged when the link dropped it.
      if (link.connected()) {
        spdlog::warn("frontier {}: {}", link.address(), leases.status().ToString());
      }
      continue;
    }
    for (Lease& lease : *leases) {
      const uint64_t rid = next_request_id_++;
      spdlog::debug("leased {} {} ({})", lease.kind, lease.url, lease.id);
      if (lease.kind == "page") ++pages_leased_;
      ++stats_.leases;
      if (!fetcher_->Submit({rid, lease.url, ConditionalHeaders(lease)}).ok()) {
        continue;  // only after Shutdown
      }
      in_flight_.emplace(rid, InFlight{std::move(lease), (next_link_ + i) % n});
      last_activity_ = Clock::now();
    }
  }
  next_link_ = (next_link_ + 1) % n;
}

void Worker::Impl::CountOutcome(const std::string& outcome) {
  if (outcome == "fetched") ++stats_.fetched;
  else if (outcome == "robots") ++stats_.robots;
  else if (outcome == "retry") ++stats_.retries;
  else if (outcome == "failed") ++stats_.failed;
  else if (outcome == "disallowed") ++stats_.disallowed;
}

Status Worker::Impl::HandleResults(std::chrono::milliseconds wait) {
  std::vector<FetchResult> results;
  fetcher_->TakeResults(&results, wait);
  for (const FetchResult& r : results) {
    auto it = in_flight_.find(r.id);
    if (it == in_flight_.end()) continue;
    InFlight job = std::move(it->second);
    in_flight_.erase(it);
    last_activity_ = Clock::now();
    report_opts_.mark_sitemaps = links_[job.link].marks_sitemaps();
    report_opts_.send_lastmods = links_[job.link].sends_lastmods();
    worker_internal::Report rep =
        worker_internal::BuildReport(job.lease, r, report_opts_);
    if (warc_ != nullptr && r.outcome == FetchOutcome::kResponse) {
      Status st = warc_->WriteExchange(worker_internal::BuildExchange(r, rep.links));
      if (!st.ok()) return st;  // lease expires at the frontier; refetched later
      ++stats_.warc_records;
    }
    spdlog::info("{}", worker_internal::DescribeResult(job.lease, r, rep));
    if (r.outcome == FetchOutcome::kDisallowed) WarnPrivate(r.url, r.error);
    CountOutcome(rep.outcome);
    if (r.http_version == "2") ++stats_.http2;
    if (r.outcome == FetchOutcome::kResponse && r.status == 304) ++stats_.not_modified;
    links_[job.link].QueueDone(std::move(rep.command), r.url);
  }
  return Status::Ok();
}

// docs/operations.md tells operators to look for "private address".
void Worker::Impl::WarnPrivate(const std::string& url, const std::string& why) {
  Result<CanonicalUrl> u = Canonicalize(url);
  const std::string host = u.ok() ? u->host : url;
  if (private_hosts_.size() >= 10000 || !private_hosts_.insert(host).second) return;
  spdlog::warn("host {}: not fetched, {} (fetch.allow_private_networks is false); its URLs "
               "are reported disallowed", host, why);
}

void Worker::Impl::Flush(FrontierLink& link) {
  const worker_internal::FlushCounts c = link.FlushDone();
  stats_.acked += c.acked;
  stats_.late += c.late;
  stats_.rejected += c.rejected;
}

void Worker::Impl::FlushAll() {
  for (FrontierLink& link : links_) {
    if (link.pending() > 0 && link.EnsureConnected()) Flush(link);
  }
  UpdateStats();
}

// The first frontier found unusable with this configuration, or OK.
Status Worker::Impl::Fatal() const {
  for (const FrontierLink& link : links_) {
    if (!link.fatal().ok()) return link.fatal();
  }
  return Status::Ok();
}

void Worker::Impl::NoteStopping(const char* why) {
  spdlog::info("stopping ({}): finishing {}, grace {} ms", why,
               Count(in_flight_.size(), "transfer"), opts_.shutdown_grace.count());
}

// Transfers still running are given back to their frontiers, which re-queue
// them at once instead of keeping their hosts busy until lease_timeout.
void Worker::Impl::ReturnAbandoned() {
  std::vector<std::vector<std::string>> ids(links_.size());
  for (const auto& [rid, job] : in_flight_) ids[job.link].push_back(job.lease.id);
  size_t returned = 0;
  for (size_t i = 0; i < links_.size(); ++i) {
    returned += links_[i].ReturnLeases(opts_.id, ids[i]);
  }
  spdlog::warn("abandoned {}; {} returned to their frontiers to be leased again now, the "
               "rest expire there", Count(in_flight_.size(), "transfer"), returned);
  in_flight_.clear();
}

void Worker::Impl::UpdateStats() {
  uint64_t pending = 0, reconnects = 0;
  for (const FrontierLink& link : links_) {
    pending += link.pending();
    reconnects += link.reconnects();
  }
  stats_.pending_done = pending;
  stats_.reconnects = reconnects;
}

Status Worker::Impl::Run(const std::atomic<bool>& stop) {
  spdlog::info("worker {} starting: {} frontier(s), {} transfers", opts_.id, links_.size(),
               opts_.max_transfers);
  Status result;
  std::optional<Clock::time_point> grace_end;
  bool page_limit_noted = false;
  for (;;) {  // each pass waits in TakeResults, LEASE BLOCK or a short sleep
    if (stop.load() && !grace_end) {
      grace_end = Clock::now() + opts_.shutdown_grace;
      NoteStopping("signal; a second one exits at once");
    }
    if (StopForPages() && !page_limit_noted) {
      page_limit_noted = true;
      NoteStopping("worker.max_pages reached");
    }
    const bool stopping = stop.load() || StopForPages();
    if (!stopping) LeaseMore();
    const auto wait = in_flight_.empty() ? std::chrono::milliseconds(0)
                                         : std::chrono::milliseconds(50);
    result = HandleResults(wait);
    if (!result.ok()) break;
    FlushAll();
    result = Fatal();
    if (!result.ok()) break;  // logged by the link
    if (stopping && (in_flight_.empty() || (grace_end && Clock::now() >= *grace_end))) break;
    if (!stopping && opts_.exit_when_idle.count() > 0 && in_flight_.empty() &&
        Clock::now() - last_activity_ >= opts_.exit_when_idle) {
      spdlog::info("idle for {} ms, exiting", opts_.exit_when_idle.count());
      break;
    }
    const bool any_connected = std::any_of(links_.begin(), links_.end(),
                                           [](const FrontierLink& l) { return l.connected(); });
    if (in_flight_.empty() && !any_connected) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // waiting for a reconnect
    }
  }
  fetcher_->Shutdown();
  if (!in_flight_.empty()) ReturnAbandoned();
  FlushAll();
  if (stats_.pending_done > 0) {
    spdlog::warn("{} could not be reported", Count(stats_.pending_done.load(), "result"));
  }
  if (warc_ != nullptr) {
    Status st = warc_->Close();
    if (result.ok()) result = st;
  }
  LogSummary();
  return result;
}

void Worker::Impl::LogSummary() const {
  spdlog::info("worker {} done: {} leases, {} fetched, {} robots, {} retry, {} failed, "
               "{} disallowed; {} acknowledged, {} too late, {} rejected; {} responses over "
               "HTTP/2, {} not modified (304)", opts_.id, stats_.leases.load(),
               stats_.fetched.load(), stats_.robots.load(), stats_.retries.load(),
               stats_.failed.load(), stats_.disallowed.load(), stats_.acked.load(),
               stats_.late.load(), stats_.rejected.load(), stats_.http2.load(),
               stats_.not_modified.load());
}

Worker::Worker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Worker::~Worker() = default;

Result<std::unique_ptr<Worker>> Worker::Open(WorkerOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  CRAWLFRONT_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<Worker>(new Worker(std::move(impl)));
}

Status Worker::Run(const std::atomic<bool>& stop) { return impl_->Run(stop); }
const WorkerStats& Worker::stats() const { return impl_->stats_; }
const std::string& Worker::id() const { return impl_->opts_.id; }

}  // namespace crawlfront
