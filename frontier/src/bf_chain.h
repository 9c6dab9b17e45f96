#pragma once
// BfChain: a scalable Bloom filter (RedisBloom's SBChain) made of
// cache-blocked sub-filters. Items go to the last sub-filter; when it holds
// its capacity a new one is added with capacity x expansion and half the
// error rate, so the compound false-positive rate stays below the target.
// Not thread-safe: the registry guards each chain with a mutex (its
// sub-filters are single-writer).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/bloom.h"
#include "crawlfront/common/status.h"
#include "crawlfront/frontier/bf_commands.h"

namespace crawlfront {

// One sub-filter of a chain.
struct BfLink {
  std::unique_ptr<BlockedBloom> filter;
  uint64_t capacity = 0;  // items it was sized for
  double error = 0;       // its own target error rate
  uint64_t items = 0;     // adds that changed a bit in it
};

enum class BfStep : uint8_t {
  kExists,    // probably present already: nothing changed
  kAdded,     // bits changed in the last sub-filter
  kFull,      // non-scaling chain at capacity
  kNeedLink,  // scaling chain at capacity: call AddLink() and retry
};

class BfChain {
 public:
  // Most sub-filters a chain may have (RedisBloom's load sanity limit).
  static constexpr uint32_t kMaxLinks = 1000;
  // RedisBloom's ERROR_TIGHTENING_RATIO.
  static constexpr double kTightening = 0.5;

  // A chain with one empty sub-filter. Scaling chains start at half the
  // error rate, as RedisBloom does. InvalidArgument for bad parameters or a
  // first sub-filter larger than max_bytes; Internal if memory is short.
  static Result<BfChain> Create(const BfParams& params, uint64_t max_bytes);
  // The size in bytes Create(params) would allocate (no allocation).
  static uint64_t FirstLinkBytes(const BfParams& params);

  // Adds one item hash. See BfStep. The first `skip` sub-filters are not
  // probed: the caller knows they do not contain the hash (ContainsBatch).
  BfStep Add(uint64_t hash, size_t skip = 0);
  // out[i] = 1 if one of the first `links` sub-filters may contain
  // hashes[i]. Each sub-filter probes all hashes with prefetching, so a
  // batch pays for its cache misses in parallel, not one after another.
  void ContainsBatch(std::span<const uint64_t> hashes, size_t links, uint8_t* out) const;
  // For a batch of adds: ContainsBatch over all sub-filters but the last
  // (returns how many that is, for Add's `skip`), and loads the last one's
  // blocks for the hashes into the cache.
  size_t PrepareAdds(std::span<const uint64_t> hashes, uint8_t* in_older) const;
  // Whether a sub-filter from index `skip` on may contain the hash.
  bool Contains(uint64_t hash, size_t skip = 0) const;
  // Bytes the next sub-filter would take (for the caller's memory budget).
  uint64_t NextLinkBytes() const;
  // Appends the next sub-filter. InvalidArgument when kMaxLinks is reached,
  // Internal if memory is short.
  Status AddLink();

  const BfParams& params() const { return params_; }
  uint64_t items() const { return items_; }
  uint64_t capacity() const;  // sum of the sub-filters' capacities
  uint64_t bytes() const;     // sum of the sub-filters' bit arrays
  size_t link_count() const { return links_.size(); }
  const BfLink& link(size_t i) const { return links_[i]; }
  BlockedBloom& link_filter(size_t i) { return *links_[i].filter; }

  // Self-describing header: parameters, item counts and every sub-filter's
  // geometry (BlockedBloom::SerializeHeader). Used by BF.SCANDUMP and by
  // persistence.
  std::string EncodeHeader() const;
  // An all-zero chain with a header's geometry and counts. Corruption for a
  // malformed or inconsistent header; InvalidArgument if the sub-filters
  // together exceed max_bytes; Internal if memory is short.
  static Result<BfChain> FromHeader(std::string_view header, uint64_t max_bytes);

  // The bit arrays of all sub-filters seen as one byte range. Replaces *out
  // with up to max_bytes bytes at offset, never crossing a sub-filter's end;
  // *out is empty when offset is past the end.
  void ReadRange(uint64_t offset, uint64_t max_bytes, std::string* out) const;
  // Writes data at offset of that range. InvalidArgument when the offset is
  // past the end or data crosses a sub-filter's end; Corruption from
  // BlockedBloom::WriteChunk.
  Status WriteRange(uint64_t offset, std::string_view data);

 private:
  BfChain() = default;
  // The sub-filter holding byte `offset` of the range, and the offset in it.
  bool Locate(uint64_t offset, size_t* link, uint64_t* inner) const;

  BfParams params_;
  std::vector<BfLink> links_;
  uint64_t items_ = 0;
};

}  // namespace crawlfront
