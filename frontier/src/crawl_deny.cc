// Deny patterns added at run time (FRONTIER.DENY): per crawl, persisted in
// kMeta as "crawl.c.deny.<id>", applied to every add like
// crawl.deny_regexes but without a restart.

#include <algorithm>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

constexpr size_t kMaxDenyPatterns = 1000;
constexpr size_t kMaxDenyPatternBytes = 4096;

std::string DenyKey(std::string_view crawl) {
  return std::string(kMetaCrawlPrefix) + "deny." + std::string(crawl);
}

std::string EncodePatterns(const std::vector<std::string>& patterns) {
  std::string out;
  for (const std::string& p : patterns) {
    AppendBe32(&out, static_cast<uint32_t>(p.size()));
    out += p;
  }
  return out;
}

Status DecodePatterns(std::string_view b, std::vector<std::string>* out) {
  while (!b.empty()) {
    if (b.size() < 4) return Status::Corruption("deny patterns truncated");
    const uint32_t n = ReadBe32(b.data());
    if (b.size() - 4 < n) return Status::Corruption("deny patterns truncated");
    out->emplace_back(b.substr(4, n));
    b.remove_prefix(4 + n);
  }
  return Status::Ok();
}

// libstdc++'s regex_search tries a "^..." pattern at every position of the
// URL: 10 such patterns doubled an add's server CPU. match_continuous tries
// position 0 only, which is the same answer unless a '|' makes the '^' part
// of one alternative.
bool AnchoredAtStart(std::string_view pattern) {
  return pattern.starts_with('^') && pattern.find('|') == std::string_view::npos;
}

}  // namespace

Result<std::regex> CompileUrlPattern(std::string_view pattern) {
  if (pattern.empty() || pattern.size() > kMaxDenyPatternBytes) {
    return Status::InvalidArgument("a pattern has 1 to 4096 bytes");
  }
  try {
    return std::regex(std::string(pattern), std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return Status::InvalidArgument(std::string("bad pattern: ") + e.what());
  }
}

bool DenyPatterns::Matches(std::string_view url) const {
  for (size_t i = 0; i < compiled.size(); ++i) {
    const auto flags = AnchoredAtStart(text[i]) ? std::regex_constants::match_continuous
                                                : std::regex_constants::match_default;
    if (std::regex_search(url.begin(), url.end(), compiled[i], flags)) return true;
  }
  return false;
}

Status CrawlCore::AddDenyPattern(std::string_view crawl, std::string_view pattern, bool* added) {
  *added = false;
  if (crawl.empty()) crawl = kDefaultCrawl;
  if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
  auto re = CompileUrlPattern(pattern);  // outside the lock: compiling can take a while
  if (!re.ok()) return re.status();
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(sticky_error_);
  CrawlState& c = CrawlFor(crawl);
  auto next = std::make_shared<DenyPatterns>(c.deny ? *c.deny : DenyPatterns{});
  if (std::find(next->text.begin(), next->text.end(), pattern) != next->text.end()) {
    return Status::Ok();
  }
  if (next->text.size() >= kMaxDenyPatterns) {
    return Status::InvalidArgument("a crawl has at most 1000 deny patterns");
  }
  next->text.emplace_back(pattern);
  next->compiled.push_back(std::move(re).value());
  CRAWLFRONT_RETURN_IF_ERROR(StoreDeny(c, std::move(next)));
  spdlog::info("crawl core: crawl {} denies URLs matching {}", c.id, pattern);
  *added = true;
  return Status::Ok();
}

Status CrawlCore::RemoveDenyPattern(std::string_view crawl, std::string_view pattern,
                                    bool* removed) {
  *removed = false;
  if (crawl.empty()) crawl = kDefaultCrawl;
  std::lock_guard lock(mu_);
  CRAWLFRONT_RETURN_IF_ERROR(sticky_error_);
  auto it = crawls_.find(crawl);
  if (it == crawls_.end() || !it->second->deny) return Status::Ok();
  CrawlState& c = *it->second;
  auto next = std::make_shared<DenyPatterns>(*c.deny);
  auto at = std::find(next->text.begin(), next->text.end(), pattern);
  if (at == next->text.end()) return Status::Ok();
  next->compiled.erase(next->compiled.begin() + (at - next->text.begin()));
  next->text.erase(at);
  CRAWLFRONT_RETURN_IF_ERROR(StoreDeny(c, std::move(next)));
  spdlog::info("crawl core: crawl {} no longer denies URLs matching {}", c.id, pattern);
  *removed = true;
  return Status::Ok();
}

std::vector<std::string> CrawlCore::ListDenyPatterns(std::string_view crawl) {
  if (crawl.empty()) crawl = kDefaultCrawl;
  std::lock_guard lock(mu_);
  auto it = crawls_.find(crawl);
  if (it == crawls_.end() || !it->second->deny) return {};
  return it->second->deny->text;
}

std::shared_ptr<const DenyPatterns> CrawlCore::DenyOf(std::string_view crawl) {
  if (!any_deny_.load(std::memory_order_acquire)) return nullptr;  // the usual case
  std::lock_guard lock(mu_);
  auto it = crawls_.find(crawl);
  return it == crawls_.end() ? nullptr : it->second->deny;
}

Status CrawlCore::StoreDeny(CrawlState& c, std::shared_ptr<const DenyPatterns> next) {
  if (next->text.empty()) {
    pending_.Delete(store_->cf(Cf::kMeta), DenyKey(c.id));
    next = nullptr;
  } else {
    pending_.Put(store_->cf(Cf::kMeta), DenyKey(c.id), EncodePatterns(next->text));
  }
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  c.deny = std::move(next);
  if (c.deny) any_deny_.store(true, std::memory_order_release);
  return Status::Ok();
}

Status CrawlCore::RestoreDeny(CrawlState& c, std::string_view value) {
  std::vector<std::string> text;
  CRAWLFRONT_RETURN_IF_ERROR(DecodePatterns(value, &text));
  auto deny = std::make_shared<DenyPatterns>();
  for (std::string& p : text) {
    auto re = CompileUrlPattern(p);
    if (!re.ok()) {  // e.g. a regex library that no longer takes it
      spdlog::warn("crawl core: crawl {}: skipping stored deny pattern {}: {}", c.id, p,
                   re.status().message());
      continue;
    }
    deny->text.push_back(std::move(p));
    deny->compiled.push_back(std::move(re).value());
  }
  if (deny->text.empty()) return Status::Ok();
  c.deny = std::move(deny);
  any_deny_.store(true, std::memory_order_release);
  return Status::Ok();
}

}  // namespace crawlfront
