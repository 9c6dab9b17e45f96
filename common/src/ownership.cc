// Partitions of hosts and their owners (see ownership.h).

#include "crawlfront/common/ownership.h"

#include <xxhash.h>

#include "crawlfront/common/url.h"

namespace crawlfront {
namespace {

// Must equal the frontier's kDefaultCrawl: its hosts hash without a prefix.
constexpr std::string_view kDefaultCrawlId = "default";

// The member's score for a partition; the highest score owns it. Seeding
// XXH3 with the partition gives each partition an independent ranking.
uint64_t Weight(const std::string& member, uint32_t partition) {
  return XXH3_64bits_withSeed(member.data(), member.size(), partition);
}

}  // namespace

uint64_t CrawlHostHash(std::string_view crawl, std::string_view host_key) {
  if (crawl.empty() || crawl == kDefaultCrawlId) return HostHash(host_key);
  std::string s;
  s.reserve(crawl.size() + 1 + host_key.size());
  s.append(crawl).push_back('\n');
  s.append(host_key);
  return HostHash(s);
}

uint32_t PartitionOfHost(uint64_t host_hash, uint32_t partitions) {
  return static_cast<uint32_t>(host_hash & (partitions - 1));
}

size_t OwnerOfPartition(uint32_t partition, std::span<const std::string> members) {
  size_t best = 0;
  uint64_t best_weight = Weight(members[0], partition);
  for (size_t i = 1; i < members.size(); ++i) {
    uint64_t w = Weight(members[i], partition);
    // Ties between different names are broken by name, so order never matters.
    if (w > best_weight || (w == best_weight && members[i] < members[best])) {
      best = i;
      best_weight = w;
    }
  }
  return best;
}

std::vector<size_t> PartitionOwners(uint32_t partitions,
                                    std::span<const std::string> members) {
  std::vector<size_t> owners(partitions);
  for (uint32_t p = 0; p < partitions; ++p) owners[p] = OwnerOfPartition(p, members);
  return owners;
}

}  // namespace crawlfront
