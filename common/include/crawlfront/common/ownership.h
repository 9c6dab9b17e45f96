#pragma once
// Where a host's URLs live: its seen-set partition, and the cluster member
// that owns that partition (ARCHITECTURE decision 10). The frontier's
// seen-set and crawlctl's seed routing both call these, so a client and the
// daemons always agree. Everything here is pure, stable across runs and
// machines (partitions persist on disk), and thread-safe.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace crawlfront {

// The seen-set host hash of `host_key` (CanonicalUrl::host_key) in `crawl`.
// The default crawl ("default", or an empty id) hashes the host key alone;
// other crawls hash "<crawl>\n<host key>" so their hosts never collide.
uint64_t CrawlHostHash(std::string_view crawl, std::string_view host_key);

// The seen-set partition of a host hash: its low bits.
// REQUIRES: `partitions` is a power of two (SeenSet::Open enforces it).
uint32_t PartitionOfHost(uint64_t host_hash, uint32_t partitions);

// Rendezvous (highest-random-weight) hashing: the index in `members` of the
// member that owns `partition`. Members are names such as "10.0.0.7:6380";
// the answer depends on the names, not their order, and adding a member
// moves only the partitions the newcomer wins (about 1/N of them). Equal
// names are one member: the first of them is returned.
// REQUIRES: `members` is not empty.
size_t OwnerOfPartition(uint32_t partition, std::span<const std::string> members);

// OwnerOfPartition for every partition in [0, partitions).
std::vector<size_t> PartitionOwners(uint32_t partitions,
                                    std::span<const std::string> members);

}  // namespace crawlfront
