// FrontierLink: one frontier connection with backoff and unacknowledged DONEs.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "crawlfront/common/ascii.h"
#include "crawlfront/worker/robots.h"
#include "worker_internal.h"

namespace crawlfront::worker_internal {

Status ParseHostPort(std::string_view address, std::string* host, uint16_t* port) {
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument("frontier address '" + std::string(address) +
                                   "' is not host:port");
  }
  std::string_view h = address.substr(0, colon);
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') {
      return Status::InvalidArgument("frontier address '" + std::string(address) +
                                     "': bad [ipv6] host");
    }
    h = h.substr(1, h.size() - 2);
  }
  std::string_view p = address.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
  if (ec != std::errc() || end != p.data() + p.size() || value == 0 || value > 65535) {
    return Status::InvalidArgument("frontier address '" + std::string(address) +
                                   "': bad port");
  }
  *host = std::string(h);
  *port = static_cast<uint16_t>(value);
  return Status::Ok();
}

FrontierLink::FrontierLink(std::string address, FrontierLinkOptions options)
    : address_(std::move(address)), options_(std::move(options)), backoff_(options_.backoff_min) {
  // Validated by Worker::Open; a bad address here just never connects.
  ParseHostPort(address_, &host_, &port_).IgnoreError();
}

bool FrontierLink::EnsureConnected() {
  if (client_ != nullptr) return true;
  const auto now = std::chrono::steady_clock::now();
  if (!fatal_.ok() || now < next_attempt_ || port_ == 0) return false;
  auto client = RespClient::Connect(host_, port_, options_.client);
  if (!client.ok()) {
    NoteConnectFailure(client.status(), now);
    return false;
  }
  client_ = std::move(*client);
  if (!CheckRobotsToken().ok()) return false;  // logged there
  if (connects_ == 0 && !ReleaseEarlierLeases().ok()) return false;  // logged there
  backoff_ = options_.backoff_min;
  if (connects_++ > 0) ++reconnects_;
  const std::string resend = std::to_string(pending_.size()) +
                             (pending_.size() == 1 ? " result" : " results") + " to re-send";
  if (failures_ > 0) {
    spdlog::info("frontier {}: connected after {} failed attempts ({})", address_, failures_,
                 resend);
  } else {
    spdlog::info("frontier {}: connected ({})", address_, resend);
  }
  failures_ = 0;
  return true;
}

// A warning for the first failure of a run and then every warn_interval, so
// an unreachable frontier shows at the default log level without flooding it.
void FrontierLink::NoteConnectFailure(const Status& why, std::chrono::steady_clock::time_point now,
                                      spdlog::level::level_enum level_to_show,
                                      std::string_view what) {
  if (failures_++ == 0) failing_since_ = now;
  next_attempt_ = now + backoff_;
  const bool warn = failures_ == 1 || now - last_warn_ >= options_.warn_interval;
  const auto level = warn ? level_to_show : spdlog::level::debug;
  if (warn) last_warn_ = now;
  const auto failing_s =
      std::chrono::duration_cast<std::chrono::seconds>(now - failing_since_).count();
  if (failures_ == 1) {
    spdlog::log(level, "frontier {}: {} ({}); next try in {} ms", address_, what,
                why.ToString(), backoff_.count());
  } else {
    spdlog::log(level, "frontier {}: still {} after {} attempts in {} s ({}); next try in {} ms",
                address_, what, failures_, failing_s, why.ToString(), backoff_.count());
  }
  backoff_ = std::min(backoff_ * 2, options_.backoff_max);
}

// Counts as the first failure of a run, already warned about: the reconnect
// attempts that follow stay quiet until warn_interval has passed.
void FrontierLink::Disconnect(const Status& why) {
  spdlog::warn("frontier {}: connection lost ({}); reconnecting", address_, why.ToString());
  client_.reset();
  const auto now = std::chrono::steady_clock::now();
  failures_ = 1;
  failing_since_ = last_warn_ = now;
  next_attempt_ = now + backoff_;
  backoff_ = std::min(backoff_ * 2, options_.backoff_max);
}

namespace {

std::optional<std::string> InfoField(const std::string& info, std::string_view name) {
  size_t pos = 0;
  while (pos < info.size()) {  // one "name:value\r\n" line per pass
    size_t end = info.find('\n', pos);
    if (end == std::string::npos) end = info.size();
    std::string_view line(info.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > name.size() && line.starts_with(name) && line[name.size()] == ':') {
      return std::string(line.substr(name.size() + 1));
    }
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace

// The frontier picks robots.txt groups for its crawl.user_agent; the sites
// see this worker's fetch.user_agent. If the two name different crawlers,
// the rules sites wrote for this one (or for "*") would be ignored.
Status FrontierLink::CheckRobotsToken() {
  Result<RespValue> reply = client_->Command({"INFO", "robots"});
  if (!reply.ok()) {
    Disconnect(reply.status());
    return reply.status();
  }
  const std::optional<std::string> field =
      reply->is_error() ? std::nullopt : InfoField(reply->str, "robots_user_agent");
  const std::string theirs = field.value_or("");
  const std::optional<std::string> refetch =
      reply->is_error() ? std::nullopt : InfoField(reply->str, "sitemap_refetch_ms");
  marks_sitemaps_ = refetch && !refetch->empty() && *refetch != "0";
  const std::optional<std::string> lastmod =
      reply->is_error() ? std::nullopt : InfoField(reply->str, "sitemap_lastmod");
  sends_lastmods_ = marks_sitemaps_ && lastmod == "1";
  const std::string_view ours = RobotsProductToken(options_.user_agent);
  if (!field) {
    fatal_ = Status::InvalidArgument(
        "frontier " + address_ + " does not report robots_user_agent (INFO robots): it is "
        "older than this worker, which cannot check that both match robots.txt groups for "
        "the same crawler; not fetching");
  } else if (!theirs.empty() && !EqualsIgnoreCase(theirs, ours)) {
    fatal_ = Status::InvalidArgument(
        "fetch.user_agent \"" + options_.user_agent + "\" has the robots product token '" +
        std::string(ours) + "' but frontier " + address_ + " matches robots.txt groups for '" +
        theirs + "' (its crawl.user_agent): sites' rules for '" + std::string(ours) +
        "' would be ignored. Set crawl.user_agent = \"" + std::string(ours) +
        "\" on the frontier, or a fetch.user_agent starting with \"" + theirs +
        "/\"; not fetching");
  }
  if (fatal_.ok()) return Status::Ok();
  spdlog::error("{}", fatal_.message());
  client_.reset();
  return fatal_;
}

Result<std::vector<Lease>> FrontierLink::LeaseBatch(const std::vector<std::string>& command) {
  if (client_ == nullptr) return Status::Unavailable("not connected");
  Result<RespValue> reply = client_->Command(command);
  if (!reply.ok()) {
    Disconnect(reply.status());
    return reply.status();
  }
  size_t skipped = 0;
  Result<std::vector<Lease>> leases = ParseLeases(*reply, &skipped);
  if (skipped > 0) spdlog::warn("frontier {}: skipped {} malformed leases", address_, skipped);
  return leases;
}

void FrontierLink::QueueDone(std::vector<std::string> command, std::string url) {
  pending_.push_back({std::move(command), std::move(url)});
}

FlushCounts FrontierLink::FlushDone() {
  FlushCounts counts;
  if (pending_.empty() || client_ == nullptr) return counts;
  // Bounded batches keep one pipeline's reply time under the call timeout.
  const size_t n = std::min<size_t>(pending_.size(), 512);
  std::vector<std::vector<std::string>> batch;
  for (size_t i = 0; i < n; ++i) batch.push_back(pending_[i].command);
  Result<std::vector<RespValue>> replies = client_->Pipeline(batch);
  if (!replies.ok()) {
    Disconnect(replies.status());
    return counts;
  }
  for (size_t i = 0; i < n; ++i) {
    const RespValue& r = (*replies)[i];
    const PendingDone& done = pending_[i];
    const std::string& lease = done.command.size() > 2 ? done.command[2] : "?";
    if (r.is_error()) {
      // Malformed on the frontier's reading: re-sending would fail the same way.
      ++counts.rejected;
      spdlog::error("frontier {}: result for {} (lease {}) rejected: {}", address_, done.url,
                    lease, r.str);
    } else if (r.type == RespType::kInteger && r.integer == 0) {
      ++counts.late;
      spdlog::info("frontier {}: result for {} came too late: lease {} was closed, expired or "
                   "forgotten (a frontier restart); the URL may be fetched again",
                   address_, done.url, lease);
    } else {
      ++counts.acked;
    }
  }
  pending_.erase(pending_.begin(), pending_.begin() + n);
  return counts;
}

// Only before the first LEASE of this process: later, the id's leases are
// this process's own.
Status FrontierLink::ReleaseEarlierLeases() {
  if (options_.release_id.empty()) return Status::Ok();
  Result<RespValue> reply = client_->Command({"FRONTIER.RELEASE", options_.release_id});
  if (!reply.ok()) {
    Disconnect(reply.status());
    return reply.status();
  }
  if (reply->is_error() && reply->str.starts_with("BUSY")) {
    // A running worker uses this id here: releasing, or leasing beside it,
    // would mix the two workers' leases. Retried until that connection ends
    // (its worker stops, or the frontier drops a lost machine's connection).
    client_.reset();
    const std::string_view why =  // without "BUSY "
        std::string_view(reply->str).substr(std::min<size_t>(5, reply->str.size()));
    const Status busy = Status::Busy(std::string(why.empty() ? "worker id in use" : why));
    NoteConnectFailure(busy, std::chrono::steady_clock::now(), spdlog::level::err,
                       "will not lease");
    return busy;
  }
  if (reply->type == RespType::kInteger) {
    if (reply->integer > 0) {
      spdlog::info("frontier {}: released {} lease(s) that worker id {} held from before this "
                   "process; their URLs are queued again", address_, reply->integer,
                   options_.release_id);
    }
  } else {
    // An older frontier without the command: its leases expire as before.
    spdlog::warn("frontier {}: could not release earlier leases of worker id {}: {}", address_,
                 options_.release_id, reply->str);
  }
  return Status::Ok();
}

size_t FrontierLink::ReturnLeases(const std::string& worker_id,
                                  const std::vector<std::string>& lease_ids) {
  size_t returned = 0;
  for (size_t start = 0; start < lease_ids.size(); start += 512) {  // bounded pipelines
    if (!EnsureConnected()) break;
    std::vector<std::vector<std::string>> batch;
    for (size_t i = start; i < std::min(lease_ids.size(), start + 512); ++i) {
      batch.push_back({"FRONTIER.RENEW", worker_id, lease_ids[i], "1"});
    }
    Result<std::vector<RespValue>> replies = client_->Pipeline(batch);
    if (!replies.ok()) {
      Disconnect(replies.status());
      break;
    }
    for (const RespValue& r : *replies) returned += r.type == RespType::kInteger && r.integer == 1;
  }
  return returned;
}

}  // namespace crawlfront::worker_internal
