// Deny patterns added at run time (FRONTIER.DENY): per crawl, persisted in
// kMeta as "crawl.c.deny.<id>", applied to every add like
// crawl.deny_regexes but without a restart.

#include <algorithm>

#include <spdlog/spdlog.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

constexpr size_t kMaxDenyPatterns = 1000;

std::string DenyKey(std::string_view crawl) {
  return std::string(kMetaCrawlPrefix) + "deny." + std::string(crawl);
}

std::string EncodePatterns(const std::vector<UrlPattern>& patterns) {
  std::string out;
  for (const UrlPattern& p : patterns) {
    AppendBe32(&out, static_cast<uint32_t>(p.text().size()));
    out += p.text();
  }
  return out;
}

auto FindText(std::vector<UrlPattern>& patterns, std::string_view text) {
  return std::find_if(patterns.begin(), patterns.end(),
                      [text](const UrlPattern& p) { return p.text() == text; });
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

}  // namespace

Status CrawlCore::AddDenyPattern(std::string_view crawl, std::string_view pattern, bool* added) {
  if (crawl.empty()) crawl = kDefaultCrawl;
  *added = false;
  if (!ValidCrawlId(crawl)) return Status::InvalidArgument("bad crawl id");
  auto re = UrlPattern::Compile(pattern);
  if (!re.ok()) return re.status();
  auto add = [&](std::vector<UrlPattern>& patterns) -> Result<bool> {
    if (FindText(patterns, pattern) != patterns.end()) return false;
    if (patterns.size() >= kMaxDenyPatterns) {
      return Status::InvalidArgument("a crawl has at most 1000 deny patterns");
    }
    patterns.push_back(*re);
    return true;
  };
  CRAWLFRONT_RETURN_IF_ERROR(EditDeny(crawl, /*create=*/true, add, added));
  if (*added) spdlog::info("crawl core: crawl {} denies URLs matching {}", crawl, pattern);
  return Status::Ok();
}

Status CrawlCore::RemoveDenyPattern(std::string_view crawl, std::string_view pattern,
                                    bool* removed) {
  if (crawl.empty()) crawl = kDefaultCrawl;
  auto remove = [&](std::vector<UrlPattern>& patterns) -> Result<bool> {
    auto at = FindText(patterns, pattern);
    if (at == patterns.end()) return false;
    patterns.erase(at);
    return true;
  };
  CRAWLFRONT_RETURN_IF_ERROR(EditDeny(crawl, /*create=*/false, remove, removed));
  if (*removed) {
    spdlog::info("crawl core: crawl {} no longer denies URLs matching {}", crawl, pattern);
  }
  return Status::Ok();
}

// The new set is built outside the lock (one RE2::Set of a thousand
// patterns takes a while) from the compiled patterns published when the
// edit began; if another edit was published meanwhile, this one starts
// again from its result.
Status CrawlCore::EditDeny(std::string_view crawl, bool create, const DenyEdit& edit,
                           bool* changed) {
  *changed = false;
  for (;;) {
    std::shared_ptr<const DenyPatterns> base;
    {
      std::lock_guard lock(mu_);
      CRAWLFRONT_RETURN_IF_ERROR(Health());
      auto it = crawls_.find(crawl);
      if (it == crawls_.end() && !create) return Status::Ok();
      base = CrawlFor(crawl).deny;
    }
    std::vector<UrlPattern> patterns;
    if (base) patterns = base->set.patterns();
    auto edited = edit(patterns);
    if (!edited.ok() || !*edited) return edited.status();
    auto next = std::make_shared<DenyPatterns>();
    next->set = UrlPatternSet::Of(std::move(patterns));
    std::lock_guard lock(mu_);
    CRAWLFRONT_RETURN_IF_ERROR(Health());
    CrawlState& c = CrawlFor(crawl);
    if (c.deny != base) continue;
    CRAWLFRONT_RETURN_IF_ERROR(StoreDeny(c, std::move(next)));
    *changed = true;
    return Status::Ok();
  }
}

std::vector<std::string> CrawlCore::ListDenyPatterns(std::string_view crawl) {
  if (crawl.empty()) crawl = kDefaultCrawl;
  std::lock_guard lock(mu_);
  auto it = crawls_.find(crawl);
  if (it == crawls_.end() || !it->second->deny) return {};
  std::vector<std::string> out;
  for (const UrlPattern& p : it->second->deny->set.patterns()) out.push_back(p.text());
  return out;
}

std::shared_ptr<const DenyPatterns> CrawlCore::DenyOf(std::string_view crawl) {
  if (!any_deny_.load(std::memory_order_acquire)) return nullptr;  // the usual case
  std::lock_guard lock(mu_);
  auto it = crawls_.find(crawl);
  return it == crawls_.end() ? nullptr : it->second->deny;
}

Status CrawlCore::StoreDeny(CrawlState& c, std::shared_ptr<const DenyPatterns> next) {
  if (next->set.empty()) {
    pending_.Delete(store_->cf(Cf::kMeta), DenyKey(c.id));
    next = nullptr;
  } else {
    pending_.Put(store_->cf(Cf::kMeta), DenyKey(c.id), EncodePatterns(next->set.patterns()));
  }
  CRAWLFRONT_RETURN_IF_ERROR(Flush());
  c.deny = std::move(next);
  if (c.deny) any_deny_.store(true, std::memory_order_release);
  return Status::Ok();
}

Status CrawlCore::RestoreDeny(CrawlState& c, std::string_view value) {
  std::vector<std::string> text;
  CRAWLFRONT_RETURN_IF_ERROR(DecodePatterns(value, &text));
  std::vector<UrlPattern> compiled;
  for (const std::string& p : text) {
    auto re = UrlPattern::Compile(p);
    if (!re.ok()) {  // e.g. one stored before patterns were RE2's
      spdlog::warn("crawl core: crawl {}: skipping stored deny pattern {}: {}", c.id, p,
                   re.status().message());
      continue;
    }
    compiled.push_back(std::move(re).value());
  }
  if (compiled.empty()) return Status::Ok();
  auto deny = std::make_shared<DenyPatterns>();
  deny->set = UrlPatternSet::Of(std::move(compiled));
  c.deny = std::move(deny);
  any_deny_.store(true, std::memory_order_release);
  return Status::Ok();
}

}  // namespace crawlfront
