// crawlctl seed's routing: each URL to the frontier owning its host's
// partition, so no host is split across frontiers (docs/operations.md).

#include <cstdlib>
#include <set>

#include "crawlfront/common/ownership.h"
#include "ctl.h"

namespace crawlfront::ctl {
namespace {

// seen_partitions of one frontier's INFO seen reply (0 when missing or bad).
uint32_t PartitionsOf(const RespValue& info) {
  for (const auto& [k, v] : ParseInfo(info.str)) {
    if (k != "seen_partitions") continue;
    char* end = nullptr;
    unsigned long n = std::strtoul(v.c_str(), &end, 10);
    bool pow2 = n > 0 && n <= (1u << 16) && (n & (n - 1)) == 0;
    return end != v.c_str() && *end == '\0' && pow2 ? static_cast<uint32_t>(n) : 0;
  }
  return 0;
}

// The partition count every frontier agrees on.
Result<uint32_t> AgreedPartitions(const GlobalOptions& g) {
  auto replies = CommandAll(g, {"INFO", "seen"});
  if (!replies.ok()) return replies.status();
  uint32_t agreed = 0;
  for (size_t i = 0; i < replies->size(); ++i) {
    uint32_t n = PartitionsOf((*replies)[i]);
    if (n == 0) {
      return Status::InvalidArgument("frontier " + g.frontiers[i] +
                                     ": INFO seen has no valid seen_partitions");
    }
    if (i > 0 && n != agreed) {
      return Status::InvalidArgument(
          "frontiers disagree on seen_partitions: " + g.frontiers[0] + " has " +
          std::to_string(agreed) + ", " + g.frontiers[i] + " has " + std::to_string(n) +
          " (every frontier of a cluster needs the same seen.partitions)");
    }
    agreed = n;
  }
  return agreed;
}

}  // namespace

Result<SeedRouter> SeedRouter::Open(const GlobalOptions& g, HostKeyMode host_key) {
  SeedRouter r;
  if (g.frontiers.size() < 2) return r;
  std::set<std::string> names;
  for (const auto& f : g.frontiers) {
    if (!names.insert(f).second) {
      return Status::InvalidArgument("--frontier " + f + " is listed twice");
    }
  }
  auto partitions = AgreedPartitions(g);
  if (!partitions.ok()) return partitions.status();
  r.partitions_ = *partitions;
  r.owners_ = PartitionOwners(r.partitions_, g.frontiers);
  r.crawl_ = g.crawl;
  // Only the host matters here: accept more than any frontier does (longer
  // URLs, credentials) and leave the rejecting to the owner.
  r.url_.max_length = size_t{1} << 20;
  r.url_.allow_credentials = true;
  r.url_.strip_params.clear();
  r.url_.host_key_mode = host_key;
  return r;
}

size_t SeedRouter::FrontierFor(std::string_view url) const {
  if (owners_.empty()) return 0;
  auto canon = Canonicalize(url, url_);
  if (!canon.ok()) return 0;
  return owners_[PartitionOfHost(CrawlHostHash(crawl_, canon->host_key), partitions_)];
}

}  // namespace crawlfront::ctl
