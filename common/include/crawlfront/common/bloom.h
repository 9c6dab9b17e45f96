#pragma once
// Cache-line-blocked Bloom filter (the seen-set's fast path).
//
// Every key touches one 64-byte block (one cache line), so a lookup costs one
// memory access instead of k. The layout follows RocksDB's FastLocalBloom:
// the block comes from the hash's low 32 bits by multiply-shift (fastrange),
// the k bit positions inside the 512-bit block from the high 32 bits by
// repeated multiplication with the golden-ratio constant, top 9 bits each.
// Blocking costs some accuracy, so ForCapacity() sizes the filter with an
// exact model over the Poisson-distributed block loads (docs/bloom.md).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "crawlfront/common/status.h"

namespace crawlfront {

// Hash used for Bloom keys: XXH3-64 of the bytes. Stable across runs and
// machines (it is part of the serialized format).
uint64_t BloomHash(std::string_view key);

struct BloomOptions {
  // One writer thread at a time (readers may be many) lets Add use plain
  // stores instead of locked read-modify-writes, several times faster (each
  // locked op is a full barrier that also stops the next keys' cache misses
  // from overlapping; docs/bloom.md). Two threads adding at once then lose
  // bits, i.e. false negatives. Default: false (any thread may Add).
  bool single_writer = false;
  // Transparent huge pages for filters of 4 MiB and up: fewer TLB misses on
  // random probes, at the cost of 2 MiB granularity. Default: true.
  bool huge_pages = true;
  // Vector instructions (AVX2 probes, AVX-512 single-writer adds) where the
  // CPU has them; same bits either way. Off only to compare paths in tests
  // and benchmarks. Default: true.
  bool simd = true;
};

class BlockedBloom {
 public:
  static constexpr uint32_t kBlockBits = 512;  // one cache line
  static constexpr uint32_t kBlockWords = kBlockBits / 64;
  static constexpr uint32_t kMaxK = 32;
  // Size of SerializeHeader()'s output.
  static constexpr size_t kHeaderBytes = 56;
  // FromHeader() refuses geometries larger than this unless told otherwise.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{64} << 30;

  // A filter for n keys whose false-positive rate at n keys is <= p under the
  // blocked model (k and the block count are both chosen to minimise memory).
  // n == 0 is treated as 1; p is clamped into [1e-9, 0.5] (NaN -> 0.5). Use
  // Make() to get an error instead of clamping. Allocates zeroed memory;
  // throws std::bad_alloc if it cannot (start-up only).
  static BlockedBloom ForCapacity(uint64_t n, double p, BloomOptions options = {});
  // Same as ForCapacity() but rejects p outside [1e-9, 1), n == 0 and
  // filters larger than max_bytes with InvalidArgument, and allocation
  // failure with Internal. p above 0.5 is served by a 0.5 filter.
  static Result<BlockedBloom> Make(uint64_t n, double p, BloomOptions options = {},
                                   uint64_t max_bytes = kDefaultMaxBytes);

  // The geometry ForCapacity(n, p) would choose, without allocating.
  struct Geometry {
    uint64_t num_blocks;
    uint32_t k;
  };
  static Geometry ChooseGeometry(uint64_t n, double p);
  // Expected false-positive rate of a filter of num_blocks blocks and k
  // probes holding n keys: sum over block loads j ~ Poisson(n / num_blocks)
  // of P(a fresh key's k probe bits are all set in a block that took k j
  // uniform bits), computed exactly (docs/bloom.md). Pure; tens of us.
  static double ModelFalsePositiveRate(uint64_t n, uint64_t num_blocks, uint32_t k);

  // Explicit geometry (used when loading). REQUIRES: num_blocks >= 1,
  // 1 <= k <= kMaxK. Zeroed memory, 64-byte aligned; filters of 4 MiB and up
  // are 2 MiB-aligned (options.huge_pages). Throws std::bad_alloc if memory
  // is short.
  BlockedBloom(uint64_t num_blocks, uint32_t k, BloomOptions options = {});
  ~BlockedBloom();
  // A moved-from filter may only be destroyed or assigned to.
  BlockedBloom(BlockedBloom&& other) noexcept;
  BlockedBloom& operator=(BlockedBloom&& other) noexcept;
  BlockedBloom(const BlockedBloom&) = delete;
  BlockedBloom& operator=(const BlockedBloom&) = delete;

  // Inserts a key's hash. Returns true if any bit changed, i.e. the key was
  // definitely not in the filter before. Thread-safe against concurrent
  // Add/MayContain/ReadChunk (relaxed atomics; a repeat add does no writes),
  // except that with options.single_writer only one thread may Add at a time.
  bool Add(uint64_t hash);
  // False: the key was never added. True: probably added. Thread-safe.
  bool MayContain(uint64_t hash) const;
  // Same as Add/MayContain for each hash, with software prefetching a few
  // keys ahead so memory accesses overlap. out[i] (0 or 1) is the result for
  // hashes[i]; out must hold hashes.size() bytes (out_changed may be null).
  void AddBatch(std::span<const uint64_t> hashes, uint8_t* out_changed);
  void MayContainBatch(std::span<const uint64_t> hashes, uint8_t* out) const;
  // Starts loading the hash's block into the cache for a write; returns at
  // once. Thread-safe.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(BlockFor(hash), 1); }

  // Switches writer mode (e.g. after the only concurrent writer finished).
  // Not thread-safe with Add; the caller orders it after all earlier adds.
  void set_single_writer(bool single_writer);

  uint64_t num_blocks() const { return num_blocks_; }
  uint32_t k() const { return k_; }
  uint64_t bit_count() const { return num_blocks_ * kBlockBits; }
  uint64_t bytes() const { return num_blocks_ * (kBlockBits / 8); }
  // Exact number of set bits, maintained by Add (and by RecountBits).
  uint64_t bits_set() const;
  // Number of Add calls that returned true (RedisBloom's BF.CARD).
  uint64_t inserted_count() const;
  double fill_ratio() const;  // bits_set / bit_count
  // False-positive rate now, from the fill: the fill gives the mean block
  // load (inverting the Poisson model), which gives the rate as in
  // ModelFalsePositiveRate. See docs/bloom.md.
  double EstimatedFalsePositiveRate() const;

  // Serialization in chunks, like RedisBloom's BF.SCANDUMP / BF.LOADCHUNK:
  // header first, then the bit array in chunks. Reading may run while other
  // threads Add (the dump then is a fuzzy snapshot holding at least the bits
  // set before the header was taken).
  //
  // kHeaderBytes bytes: magic, version, geometry, bits_set, inserted_count,
  // XXH3 checksum (layout in docs/bloom.md). Thread-safe.
  std::string SerializeHeader() const;
  // An all-zero filter with the header's geometry, ready for WriteChunk.
  // Corruption if the header is truncated, has a wrong magic, version or
  // checksum, or an impossible geometry; InvalidArgument if larger than
  // max_bytes; Internal if memory is short.
  static Result<BlockedBloom> FromHeader(std::string_view header,
                                         BloomOptions options = {},
                                         uint64_t max_bytes = kDefaultMaxBytes);
  // Replaces *out with bytes [offset, offset + max(max_bytes, 1)) of the bit
  // array, clipped to its end (little-endian words). Returns the offset of
  // the next chunk, or 0 when this chunk reached the end (also when offset is
  // already past it; *out is then empty). Thread-safe.
  uint64_t ReadChunk(uint64_t offset, uint64_t max_bytes, std::string* out) const;
  // Copies bytes [offset, end) of the bit array to dst, as ReadChunk does.
  // REQUIRES: offset <= end <= bytes(). Thread-safe.
  void CopyBytes(uint64_t offset, uint64_t end, char* dst) const;
  // Writes data at offset of the bit array. InvalidArgument if the range
  // does not fit in bytes(). When a chunk ends at the array's end, recounts
  // bits_set; Corruption if that finds fewer bits than the header said (a
  // dump only gains bits while it runs). Chunks must then be written in
  // order, last one last, as ReadChunk's cursor yields them. Not thread-safe
  // with any other call on this filter.
  Status WriteChunk(uint64_t offset, std::string_view data);
  // Recomputes bits_set from the bit array. Not thread-safe with Add.
  void RecountBits();

 private:
  // Per-stripe counters on their own cache lines: threads adding to
  // different blocks do not fight over one counter.
  struct alignas(64) Counter {
    std::atomic<uint64_t> bits{0};
    std::atomic<uint64_t> items{0};
  };
  static constexpr uint32_t kStripes = 8;

  // The constructor with std::bad_alloc turned into Status::Internal.
  static Geometry SearchGeometry(uint64_t n, double p);
  static Result<BlockedBloom> TryCreate(uint64_t num_blocks, uint32_t k,
                                        BloomOptions options);
  static uint64_t* Allocate(uint64_t bytes, bool huge_pages, bool* mapped);
  void Release();
  uint64_t* BlockFor(uint64_t hash) const;
  bool AddToBlock(uint64_t* block, uint64_t hash);
  uint32_t StripeOf(const uint64_t* block) const;
  void CountAlone(const uint64_t* block, uint64_t added);
  bool ProbeBlock(const uint64_t* block, uint64_t hash) const;

  uint64_t* words_ = nullptr;
  uint64_t num_blocks_ = 0;
  uint32_t k_ = 0;
  bool mapped_ = false;  // words_ came from mmap, not operator new
  bool single_writer_ = false;
  bool simd_probe_ = false;  // ProbeAvx2 usable
  bool simd_add_ = false;    // AddAvx512 usable (single writer only)
  uint64_t header_bits_set_ = 0;  // from FromHeader; checked after loading
  std::unique_ptr<Counter[]> counters_;
};

}  // namespace crawlfront
