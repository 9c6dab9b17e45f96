#include "crawlfront/frontier/frontier_node.h"

#include <algorithm>
#include <fstream>

#include <spdlog/spdlog.h>

namespace crawlfront {
namespace {
constexpr size_t kMaxErrors = 50;
constexpr int64_t kRateWindowMs = 10'000;
constexpr int64_t kSharedIdWarnMs = 60'000;  // one warning a minute per id
}  // namespace

Result<std::unique_ptr<FrontierNode>> FrontierNode::Open(const FrontierOptions& options) {
  std::unique_ptr<FrontierNode> node(new FrontierNode(options));
  spdlog::info("frontier: opening {}", options.data_dir);
  auto store = Store::Open(options.data_dir, StoreOptionsOf(options));
  if (!store.ok()) return store.status();
  node->store_ = std::move(store.value());
  auto seen = SeenSet::Open(node->store_.get(), SeenSetOptionsOf(options));
  if (!seen.ok()) return seen.status();
  node->seen_ = std::move(seen.value());
  auto crawl = CrawlCore::Open(node->store_.get(), node->seen_.get(), CrawlOptionsOf(options),
                               Clock::Real());
  if (!crawl.ok()) return crawl.status();
  node->crawl_ = std::move(crawl.value());
  auto blooms = UserBloomRegistry::Open(node->store_.get(), UserBloomOptionsOf(options));
  if (!blooms.ok()) return blooms.status();
  node->blooms_ = std::move(blooms.value());
  // Wakes the lease-waiter thread only when a LEASE is blocked: waking it on
  // every DONE that queued new links cost a futex wake and two context
  // switches per page (13% of the frontier's CPU during a crawl).
  node->crawl_->SetWorkCallback([n = node.get()] {
    std::lock_guard lock(n->mu_);
    if (!n->waiters_.empty()) n->cv_.notify_all();
  });
  return node;
}

FrontierNode::~FrontierNode() {
  Stop();
  http_.reset();
  resp_.reset();
  blooms_.reset();
  crawl_.reset();
  seen_.reset();  // final seen-set snapshot
  store_.reset();
  spdlog::info("frontier: closed");
}

Status FrontierNode::Start() {
  resp_ = std::make_unique<RespServer>(RespServerOptionsOf(options_));
  RegisterFrontierCommands(*resp_, *this, *store_);
  RegisterBfCommands(*resp_, *blooms_, seen_.get());
  resp_->SetInfoProvider([this](std::string_view s) { return RenderInfo(s); });
  CRAWLFRONT_RETURN_IF_ERROR(resp_->Start());
  spdlog::info("frontier: RESP on port {} with {} io thread(s) (redis-cli -p {} INFO crawl)",
               resp_->port(), resp_->io_threads(), resp_->port());
  if (!options_.http.empty()) {
    http_ = std::make_unique<StatusServer>(
        StatusServerOptionsOf(options_), [this] { return BuildSnapshot(); },
        [this] { return SampleTotals(); });
    CRAWLFRONT_RETURN_IF_ERROR(http_->Start());
    spdlog::info("frontier: status page on http://127.0.0.1:{}/", http_->port());
  }
  {
    std::lock_guard lock(mu_);
    running_ = true;
  }
  waiter_thread_ = std::thread([this] { LeaseWaiterLoop(); });
  expiry_thread_ = std::thread([this] { ExpiryLoop(); });
  admin_thread_ = std::thread([this] { AdminLoop(); });
  return WritePortFile();
}

void FrontierNode::Stop() {
  {
    std::lock_guard lock(mu_);
    if (!running_) return;
    running_ = false;
    stopping_ = true;
  }
  spdlog::info("frontier: stopping");
  cv_.notify_all();
  if (waiter_thread_.joinable()) waiter_thread_.join();
  if (expiry_thread_.joinable()) expiry_thread_.join();
  if (admin_thread_.joinable()) admin_thread_.join();  // after its queued jobs
  if (resp_) resp_->Stop();
  // Connections waiting on writes are told through their io_context, which
  // must still exist then.
  if (crawl_) crawl_->WaitForWrites();
  if (http_) http_->Stop();
  Status s = seen_->SnapshotNow();
  if (!s.ok()) spdlog::error("frontier: snapshot at shutdown failed: {}", s.ToString());
}

Status FrontierNode::WritePortFile() {
  if (options_.port_file.empty()) return Status::Ok();
  std::string tmp = options_.port_file + ".tmp";
  {
    std::ofstream out(tmp);
    out << "resp=" << resp_port() << "\nhttp=" << http_port() << "\n";
    if (!out) return Status::IoError("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), options_.port_file.c_str()) != 0) {
    return Status::IoError("cannot rename " + tmp);
  }
  return Status::Ok();
}

void FrontierNode::ExpiryLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, options_.lease_check_interval, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    size_t expired = 0;
    Status s = crawl_->ExpireLeases(&expired);
    if (!s.ok()) NoteError("lease expiry: " + s.ToString());
    if (expired > 0) spdlog::info("frontier: {} lease(s) expired and re-queued", expired);
    lock.lock();
  }
}

bool FrontierNode::RunAdmin(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    admin_jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
  return true;
}

void FrontierNode::AdminLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !admin_jobs_.empty(); });
    if (admin_jobs_.empty()) return;  // stopping, nothing left
    std::function<void()> job = std::move(admin_jobs_.front());
    admin_jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

void FrontierNode::AddLeaseWaiter(LeaseWaiter waiter) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      waiters_.push_back(std::move(waiter));
      cv_.notify_all();
      return;
    }
  }
  std::string out;  // shutting down: nothing more will be leased
  RespWriter writer(&out, waiter.reply->protocol());
  writer.ArrayHeader(0);
  waiter.reply->Complete(std::move(out));
}

void EncodeLeases(RespWriter& w, const std::vector<LeasedUrl>& leases);

// Serves blocked FRONTIER.LEASE calls: retries them when work may have
// arrived (the core's callback) or every 20 ms, answers empty at deadline.
void FrontierNode::LeaseWaiterLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (waiters_.empty()) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
      continue;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(20));
    std::deque<LeaseWaiter> pending;
    pending.swap(waiters_);
    lock.unlock();
    int64_t now = Clock::Real()->NowMs();
    std::deque<LeaseWaiter> still;
    for (auto& w : pending) {
      std::vector<LeasedUrl> leases;
      Status s = crawl_->Lease(w.worker, w.count, w.crawl, &leases);
      if (!s.ok() || !leases.empty() || now >= w.deadline_ms) {
        std::string out;
        RespWriter writer(&out, w.reply->protocol());
        if (!s.ok()) {
          writer.Error("ERR " + s.message());
        } else {
          EncodeLeases(writer, leases);
          NoteWorker(w.worker, 0, w.client, w.peer);
        }
        w.reply->Complete(std::move(out));
      } else {
        still.push_back(std::move(w));
      }
    }
    lock.lock();
    for (auto& w : still) waiters_.push_back(std::move(w));
  }
  for (auto& w : waiters_) {  // shutting down: answer everyone
    std::string out;
    RespWriter writer(&out, w.reply->protocol());
    writer.ArrayHeader(0);
    w.reply->Complete(std::move(out));
  }
  waiters_.clear();
}

void FrontierNode::NoteError(std::string text) {
  spdlog::warn("frontier: {}", text);
  std::lock_guard lock(mu_);
  errors_.push_back({Clock::Real()->NowMs(), std::move(text)});
  while (errors_.size() > kMaxErrors) errors_.pop_front();
}

void FrontierNode::NoteWorker(std::string_view id, uint64_t done, uint64_t client,
                              std::string_view peer) {
  int64_t now = Clock::Real()->NowMs();
  std::lock_guard lock(mu_);
  auto it = workers_.find(id);
  if (it == workers_.end()) it = workers_.emplace(std::string(id), WorkerActivity{}).first;
  WorkerActivity& w = it->second;
  w.dones += done;
  w.last_seen_ms = now;
  if (w.client != client) {
    // Another connection while the last one is open: two workers share the
    // id (or one worker reconnected and its old connection lingers).
    if (w.client != 0 && now - w.shared_warned_ms >= kSharedIdWarnMs && resp_ != nullptr &&
        resp_->IsOpen(w.client)) {
      w.shared_warned_ms = now;
      spdlog::warn("frontier: worker id '{}' is used by connections from {} and {}; if two "
                   "workers share it, give each its own id", PrintableWorkerId(id), w.peer, peer);
    }
    w.client = client;
    w.peer = peer;
  }
  if (done > 0) w.done_times.emplace_back(now, done);
  while (!w.done_times.empty() && w.done_times.front().first < now - kRateWindowMs) {
    w.done_times.pop_front();
  }
}

std::string PrintableWorkerId(std::string_view id) {
  std::string who(id.substr(0, 64));
  for (char& c : who) c = (c >= 0x20 && c < 0x7f) ? c : '?';
  return who;
}

std::optional<std::string> FrontierNode::WorkerIdInUse(std::string_view id, uint64_t client) {
  uint64_t other = 0;
  std::string peer;
  int64_t last_seen_ms = 0;
  {
    std::lock_guard lock(mu_);
    auto it = workers_.find(id);
    if (it == workers_.end()) return std::nullopt;
    other = it->second.client;
    peer = it->second.peer;
    last_seen_ms = it->second.last_seen_ms;
  }
  if (other == 0 || other == client || resp_ == nullptr || !resp_->IsOpen(other)) {
    return std::nullopt;
  }
  const int64_t ago_s = std::max<int64_t>(0, Clock::Real()->NowMs() - last_seen_ms) / 1000;
  return "from " + (peer.empty() ? std::string("an unknown address") : peer) + ", last used " +
         std::to_string(ago_s) + " s ago";
}

}  // namespace crawlfront
