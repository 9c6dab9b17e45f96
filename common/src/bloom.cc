#include "crawlfront/common/bloom.h"

#include "bloom_simd.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "crawlfront/common/huge_pages.h"

namespace crawlfront {
namespace {

constexpr uint32_t kGolden = 0x9e3779b9;  // 2^32 / golden ratio, as RocksDB
constexpr uint32_t kBitShift = 32 - 9;    // top 9 bits address 512 bits
constexpr uint64_t kMmapThreshold = uint64_t{4} << 20;
constexpr uint64_t kMaxBlocks = uint64_t{1} << 40;  // 64 TiB: beyond any use

uint64_t LoadRelaxed(const uint64_t* p) {
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(p))
      .load(std::memory_order_relaxed);
}

void StoreRelaxed(uint64_t* p, uint64_t v) {
  std::atomic_ref<uint64_t>(*p).store(v, std::memory_order_relaxed);
}

// For one fresh key and a block hit by t uniform darts (t = k j for j keys):
// P(all k probe bits set) = sum over d distinct probe bits of P(d) times
// P(d given bits all set), the latter by inclusion-exclusion. Collected by
// powers: sum_i coef[i] (1 - i/512)^t. Exact for independent probes, unlike
// the textbook (1 - q^t)^k, which ignores how the block's fill varies (docs/
// bloom.md). long double keeps the alternating sum's cancellation small.
class BlockProbeModel {
 public:
  explicit BlockProbeModel(uint32_t k) : k_(k), coef_(k + 1, 0), log_free_(k + 1) {
    const long double m = BlockedBloom::kBlockBits;
    std::vector<long double> distinct(k + 1, 0);  // P(d distinct of k draws)
    distinct[0] = 1;
    for (uint32_t r = 0; r < k; ++r) {
      for (uint32_t d = r + 1; d >= 1; --d) {
        distinct[d] = distinct[d] * d / m + distinct[d - 1] * (m - d + 1) / m;
      }
      distinct[0] = 0;
    }
    for (uint32_t d = 0; d <= k; ++d) {
      long double binom = 1;  // C(d, i)
      for (uint32_t i = 0; i <= d; ++i) {
        coef_[i] += distinct[d] * ((i % 2) ? -binom : binom);
        binom = binom * (d - i) / (i + 1);
      }
    }
    for (uint32_t i = 0; i <= k; ++i) log_free_[i] = std::log1p(-(long double)i / m);
  }

  // Sum over j in [lo, hi] of weight(j) * P(all probe bits set | j keys).
  // Powers advance by one key per step, so the loop needs no exp().
  template <typename Weight>
  double SumOverKeys(uint64_t lo, uint64_t hi, Weight weight) const {
    std::vector<long double> power(k_ + 1), step(k_ + 1);
    for (uint32_t i = 0; i <= k_; ++i) {
      power[i] = std::exp(static_cast<long double>(k_) * lo * log_free_[i]);
      step[i] = std::exp(static_cast<long double>(k_) * log_free_[i]);
    }
    long double total = 0;
    for (uint64_t j = lo; j <= hi; ++j) {
      long double fp = 0;
      for (uint32_t i = 0; i <= k_; ++i) {
        fp += coef_[i] * power[i];
        power[i] *= step[i];
      }
      total += weight(j) * std::clamp<long double>(fp, 0, 1);
    }
    return static_cast<double>(total);
  }

 private:
  uint32_t k_;
  std::vector<long double> coef_;
  std::vector<long double> log_free_;
};

// FP of a fresh key, its block holding j ~ Poisson(lambda) keys. The window
// of +-10 sigma leaves out < 1e-20 of the mass.
double FpAtLoad(double lambda, uint32_t k) {
  if (lambda <= 0) return 0.0;
  if (lambda > 1e5) return 1.0;  // 195 keys per bit: every block is full
  const double sigma = std::sqrt(lambda);
  const auto lo = static_cast<uint64_t>(std::max(0.0, lambda - 10 * sigma - 10));
  const auto hi = static_cast<uint64_t>(lambda + 10 * sigma + 10);
  // pmf(j + 1) = pmf(j) * lambda / (j + 1), started in log space.
  long double pmf = std::exp(-lambda + lo * std::log(lambda) - std::lgamma(lo + 1.0));
  const double sum = BlockProbeModel(k).SumOverKeys(lo, hi, [&](uint64_t j) {
    const long double w = pmf;
    pmf = pmf * lambda / static_cast<long double>(j + 1);
    return w;
  });
  return std::min(sum, 1.0);
}

// Fewest blocks whose model FP for n keys with k probes is <= p (binary
// search: the FP falls as blocks are added).
uint64_t MinBlocks(uint64_t n, double p, uint32_t k, uint64_t lo, uint64_t hi) {
  if (BlockedBloom::ModelFalsePositiveRate(n, hi, k) > p) return 0;
  while (lo < hi) {  // at most 64 rounds
    const uint64_t mid = lo + (hi - lo) / 2;
    if (BlockedBloom::ModelFalsePositiveRate(n, mid, k) <= p) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void PutU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// Header layout, little-endian (docs/bloom.md).
constexpr char kMagic[4] = {'C', 'F', 'B', 'L'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kHashId = 1;  // XXH3-64 + FastLocalBloom probe scheme
constexpr size_t kChecksumOffset = 48;

}  // namespace

uint64_t BloomHash(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

// ---- sizing ----------------------------------------------------------------

double BlockedBloom::ModelFalsePositiveRate(uint64_t n, uint64_t num_blocks, uint32_t k) {
  if (num_blocks == 0) return 1.0;
  return FpAtLoad(static_cast<double>(n) / static_cast<double>(num_blocks), k);
}

BlockedBloom::Geometry BlockedBloom::ChooseGeometry(uint64_t n, double p) {
  // The search costs milliseconds and callers repeat it for equal arguments
  // (a seen-set sizes 1024 partitions alike at start-up).
  struct Memo {
    uint64_t n = 0;
    double p = 0;
    Geometry g{0, 0};
  };
  thread_local Memo memo;
  if (memo.g.num_blocks != 0 && memo.n == n && memo.p == p) return memo.g;
  const Geometry g = SearchGeometry(n, p);
  memo = Memo{n, p, g};
  return g;
}

BlockedBloom::Geometry BlockedBloom::SearchGeometry(uint64_t n, double p) {
  n = std::max<uint64_t>(n, 1);
  if (!(p >= 1e-9)) p = std::isnan(p) ? 0.5 : 1e-9;
  p = std::min(p, 0.5);
  // Textbook optimum, -ln p / ln2^2 bits per key; blocking needs a little
  // more, so search up to 2x that (plus slack for tiny n).
  const double textbook_bits = -std::log(p) / (std::log(2.0) * std::log(2.0));
  const double hi_blocks = std::ceil(n * (2 * textbook_bits + 8) / kBlockBits);
  const uint64_t hi =
      static_cast<uint64_t>(std::min(hi_blocks, static_cast<double>(kMaxBlocks)));
  // No filter beats the textbook bound, so start the search there.
  const uint64_t lo =
      std::clamp<uint64_t>(static_cast<uint64_t>(n * textbook_bits / kBlockBits), 1, hi);
  // The best k sits near log2(1/p); try a few either side.
  const int k_mid = static_cast<int>(std::lround(-std::log2(p)));
  Geometry best{hi, static_cast<uint32_t>(std::clamp(k_mid, 1, 32))};
  for (int k = std::max(1, k_mid - 3); k <= std::min<int>(kMaxK, k_mid + 4); ++k) {
    const uint64_t blocks = MinBlocks(n, p, static_cast<uint32_t>(k), lo, hi);
    if (blocks != 0 && blocks < best.num_blocks) {
      best = {blocks, static_cast<uint32_t>(k)};
    }
  }
  return best;
}

BlockedBloom BlockedBloom::ForCapacity(uint64_t n, double p, BloomOptions options) {
  const Geometry g = ChooseGeometry(n, p);
  return BlockedBloom(g.num_blocks, g.k, options);
}

Result<BlockedBloom> BlockedBloom::Make(uint64_t n, double p, BloomOptions options,
                                        uint64_t max_bytes) {
  if (n == 0) return Status::InvalidArgument("bloom capacity must be > 0");
  if (!(p >= 1e-9 && p < 1)) {
    return Status::InvalidArgument("bloom error rate must be in [1e-9, 1), got " +
                                   std::to_string(p));
  }
  const Geometry g = ChooseGeometry(n, p);
  if (g.num_blocks > max_bytes / (kBlockBits / 8)) {
    return Status::InvalidArgument("bloom filter for " + std::to_string(n) +
                                   " keys needs more than " + std::to_string(max_bytes) +
                                   " bytes");
  }
  return TryCreate(g.num_blocks, g.k, options);
}

Result<BlockedBloom> BlockedBloom::TryCreate(uint64_t num_blocks, uint32_t k,
                                             BloomOptions options) {
  try {
    return BlockedBloom(num_blocks, k, options);
  } catch (const std::bad_alloc&) {
    return Status::Internal("out of memory for a bloom filter of " +
                            std::to_string(num_blocks) + " blocks");
  }
}

// ---- memory ------------------------------------------------------------------

uint64_t* BlockedBloom::Allocate(uint64_t bytes, bool huge_pages, bool* mapped) {
  *mapped = bytes >= kMmapThreshold;
  if (!*mapped) {
    void* p = ::operator new (bytes, std::align_val_t{64}, std::nothrow);
    if (p != nullptr) std::memset(p, 0, bytes);
    return static_cast<uint64_t*>(p);
  }
  // Huge pages save TLB misses on random probes (docs/bloom.md measures it).
  return static_cast<uint64_t*>(MapAligned(bytes, huge_pages));
}

void BlockedBloom::Release() {
  if (words_ == nullptr) return;
  if (mapped_) {
    UnmapAligned(words_, bytes());
  } else {
    ::operator delete (words_, std::align_val_t{64});
  }
  words_ = nullptr;
}

BlockedBloom::BlockedBloom(uint64_t num_blocks, uint32_t k, BloomOptions options)
    : num_blocks_(std::max<uint64_t>(num_blocks, 1)),
      k_(std::clamp<uint32_t>(k, 1, kMaxK)),
      single_writer_(options.single_writer),
      simd_probe_(options.simd && bloom_simd::HaveAvx2()),
      simd_add_(options.simd && options.single_writer && bloom_simd::HaveAvx512()),
      counters_(new Counter[kStripes]) {
  words_ = Allocate(bytes(), options.huge_pages, &mapped_);
  if (words_ == nullptr) throw std::bad_alloc();
}

BlockedBloom::~BlockedBloom() { Release(); }

BlockedBloom::BlockedBloom(BlockedBloom&& other) noexcept
    : words_(std::exchange(other.words_, nullptr)),
      num_blocks_(std::exchange(other.num_blocks_, 0)),
      k_(std::exchange(other.k_, 0)),
      mapped_(other.mapped_),
      single_writer_(other.single_writer_),
      simd_probe_(other.simd_probe_),
      simd_add_(other.simd_add_),
      header_bits_set_(other.header_bits_set_),
      counters_(std::move(other.counters_)) {}

BlockedBloom& BlockedBloom::operator=(BlockedBloom&& other) noexcept {
  if (this != &other) {
    Release();
    words_ = std::exchange(other.words_, nullptr);
    num_blocks_ = std::exchange(other.num_blocks_, 0);
    k_ = std::exchange(other.k_, 0);
    mapped_ = other.mapped_;
    single_writer_ = other.single_writer_;
    simd_probe_ = other.simd_probe_;
    simd_add_ = other.simd_add_;
    header_bits_set_ = other.header_bits_set_;
    counters_ = std::move(other.counters_);
  }
  return *this;
}

void BlockedBloom::set_single_writer(bool single_writer) {
  single_writer_ = single_writer;
  simd_add_ = simd_probe_ && single_writer && bloom_simd::HaveAvx512();
}

// ---- add / query -------------------------------------------------------------

uint64_t* BlockedBloom::BlockFor(uint64_t hash) const {
  return words_ + bloom_simd::BlockIndex(hash, num_blocks_) * kBlockWords;
}

namespace {

// Sets masks[w] in word w of block; returns how many bits it turned on.
// Concurrent writers: check before or (a repeat add only reads, so the line
// stays shared), then a locked or of the missing bits only; fetch_or's old
// value makes the count exact even when threads race on a word.
uint64_t SetBitsShared(uint64_t* block, const uint64_t* masks) {
  uint64_t added = 0;
  for (uint32_t w = 0; w < BlockedBloom::kBlockWords; ++w) {
    const uint64_t missing = masks[w] & ~LoadRelaxed(block + w);
    if (missing == 0) continue;
    const uint64_t before =
        std::atomic_ref<uint64_t>(block[w]).fetch_or(missing, std::memory_order_relaxed);
    added += std::popcount(missing & ~before);
  }
  return added;
}

// One writer: plain stores, and no per-word branch (which mispredicts and
// was measured 25% slower at 1e8 keys); stores only if some bit is new.
uint64_t SetBitsAlone(uint64_t* block, const uint64_t* masks) {
  uint64_t now[BlockedBloom::kBlockWords];
  uint64_t added = 0;
  for (uint32_t w = 0; w < BlockedBloom::kBlockWords; ++w) {
    now[w] = LoadRelaxed(block + w);
    added += std::popcount(masks[w] & ~now[w]);
  }
  if (added == 0) return 0;
  for (uint32_t w = 0; w < BlockedBloom::kBlockWords; ++w) {
    StoreRelaxed(block + w, now[w] | masks[w]);
  }
  return added;
}

}  // namespace

bool BlockedBloom::AddToBlock(uint64_t* block, uint64_t hash) {
  if (simd_add_) {
    const uint64_t added =
        bloom_simd::AddAvx512(block, static_cast<uint32_t>(hash >> 32), k_);
    if (added == 0) return false;
    CountAlone(block, added);
    return true;
  }
  uint64_t masks[kBlockWords] = {};
  uint32_t h = static_cast<uint32_t>(hash >> 32);
  for (uint32_t i = 0; i < k_; ++i, h *= kGolden) {
    const uint32_t bit = h >> kBitShift;
    masks[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
  const uint64_t added =
      single_writer_ ? SetBitsAlone(block, masks) : SetBitsShared(block, masks);
  if (added == 0) return false;
  if (single_writer_) {
    CountAlone(block, added);
  } else {
    Counter& c = counters_[StripeOf(block)];
    c.bits.fetch_add(added, std::memory_order_relaxed);
    c.items.fetch_add(1, std::memory_order_relaxed);
  }
  return true;
}

uint32_t BlockedBloom::StripeOf(const uint64_t* block) const {
  return static_cast<uint32_t>(((block - words_) / kBlockWords) % kStripes);
}

// One writer: no locked adds (readers only load the counters).
void BlockedBloom::CountAlone(const uint64_t* block, uint64_t added) {
  Counter& c = counters_[StripeOf(block)];
  c.bits.store(c.bits.load(std::memory_order_relaxed) + added, std::memory_order_relaxed);
  c.items.store(c.items.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

bool BlockedBloom::ProbeBlock(const uint64_t* block, uint64_t hash) const {
  if (simd_probe_) return bloom_simd::ProbeAvx2(block, static_cast<uint32_t>(hash >> 32), k_);
  // Early exit, as RocksDB's scalar path: measured faster at 1e8 keys than a
  // branch-free loop over all k probes (51 vs 68 ns CPU, docs/bloom.md).
  uint32_t h = static_cast<uint32_t>(hash >> 32);
  for (uint32_t i = 0; i < k_; ++i, h *= kGolden) {
    const uint32_t bit = h >> kBitShift;
    if (((LoadRelaxed(block + (bit >> 6)) >> (bit & 63)) & 1) == 0) return false;
  }
  return true;
}

bool BlockedBloom::Add(uint64_t hash) { return AddToBlock(BlockFor(hash), hash); }

bool BlockedBloom::MayContain(uint64_t hash) const {
  return ProbeBlock(BlockFor(hash), hash);
}

using bloom_simd::kPrefetchAhead;

void BlockedBloom::AddBatch(std::span<const uint64_t> hashes, uint8_t* out_changed) {
  const size_t n = hashes.size();
  for (size_t i = 0; i < std::min(n, kPrefetchAhead); ++i) {
    __builtin_prefetch(BlockFor(hashes[i]), 1, 3);
  }
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) {
      __builtin_prefetch(BlockFor(hashes[i + kPrefetchAhead]), 1, 3);
    }
    const bool changed = AddToBlock(BlockFor(hashes[i]), hashes[i]);
    if (out_changed != nullptr) out_changed[i] = changed ? 1 : 0;
  }
}

void BlockedBloom::MayContainBatch(std::span<const uint64_t> hashes, uint8_t* out) const {
  const size_t n = hashes.size();
  if (simd_probe_) {
    bloom_simd::MayContainBatchAvx2(words_, num_blocks_, k_, hashes.data(), n, out);
    return;
  }
  for (size_t i = 0; i < std::min(n, kPrefetchAhead); ++i) {
    __builtin_prefetch(BlockFor(hashes[i]), 0, 3);
  }
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) {
      __builtin_prefetch(BlockFor(hashes[i + kPrefetchAhead]), 0, 3);
    }
    out[i] = ProbeBlock(BlockFor(hashes[i]), hashes[i]) ? 1 : 0;
  }
}

// ---- statistics --------------------------------------------------------------

uint64_t BlockedBloom::bits_set() const {
  uint64_t sum = 0;
  for (uint32_t s = 0; s < kStripes; ++s) {
    sum += counters_[s].bits.load(std::memory_order_relaxed);
  }
  return sum;
}

uint64_t BlockedBloom::inserted_count() const {
  uint64_t sum = 0;
  for (uint32_t s = 0; s < kStripes; ++s) {
    sum += counters_[s].items.load(std::memory_order_relaxed);
  }
  return sum;
}

double BlockedBloom::fill_ratio() const {
  return static_cast<double>(bits_set()) / static_cast<double>(bit_count());
}

double BlockedBloom::EstimatedFalsePositiveRate() const {
  // A bit stays clear with probability E[q^(kJ)] = exp(lambda (q^k - 1)) for
  // J ~ Poisson(lambda), q = 1 - 1/512; solve fill = 1 - that for lambda.
  const double fill = fill_ratio();
  if (fill >= 1.0) return 1.0;
  const double q_k = std::exp(k_ * std::log1p(-1.0 / kBlockBits));
  const double lambda = -std::log1p(-fill) / (1.0 - q_k);
  return FpAtLoad(lambda, k_);
}

void BlockedBloom::RecountBits() {
  const uint64_t words = num_blocks_ * kBlockWords;
  uint64_t bits = 0;
  for (uint64_t i = 0; i < words; ++i) bits += std::popcount(LoadRelaxed(words_ + i));
  counters_[0].bits.store(bits, std::memory_order_relaxed);
  for (uint32_t s = 1; s < kStripes; ++s) {
    counters_[s].bits.store(0, std::memory_order_relaxed);
  }
}

// ---- serialization -----------------------------------------------------------

std::string BlockedBloom::SerializeHeader() const {
  std::string h(kHeaderBytes, '\0');
  std::memcpy(h.data(), kMagic, sizeof(kMagic));
  PutU32(h.data() + 4, kVersion);
  PutU64(h.data() + 8, num_blocks_);
  PutU32(h.data() + 16, k_);
  PutU32(h.data() + 20, kBlockBits);
  PutU32(h.data() + 24, kHashId);
  PutU32(h.data() + 28, 0);  // reserved
  PutU64(h.data() + 32, bits_set());
  PutU64(h.data() + 40, inserted_count());
  PutU64(h.data() + kChecksumOffset, XXH3_64bits(h.data(), kChecksumOffset));
  return h;
}

Result<BlockedBloom> BlockedBloom::FromHeader(std::string_view h, BloomOptions options,
                                              uint64_t max_bytes) {
  if (h.size() != kHeaderBytes) {
    return Status::Corruption("bloom header has " + std::to_string(h.size()) +
                              " bytes, expected " + std::to_string(kHeaderBytes));
  }
  if (std::memcmp(h.data(), kMagic, sizeof(kMagic)) != 0) {
    return Status::Corruption("bloom header: bad magic");
  }
  if (GetU64(h.data() + kChecksumOffset) != XXH3_64bits(h.data(), kChecksumOffset)) {
    return Status::Corruption("bloom header: checksum mismatch");
  }
  if (GetU32(h.data() + 4) != kVersion || GetU32(h.data() + 24) != kHashId ||
      GetU32(h.data() + 20) != kBlockBits) {
    return Status::Corruption("bloom header: unsupported version, hash or block size");
  }
  const uint64_t blocks = GetU64(h.data() + 8);
  const uint32_t k = GetU32(h.data() + 16);
  const uint64_t bits = GetU64(h.data() + 32);
  if (blocks == 0 || blocks > kMaxBlocks || k == 0 || k > kMaxK ||
      bits > blocks * kBlockBits) {
    return Status::Corruption("bloom header: impossible geometry");
  }
  if (blocks > max_bytes / (kBlockBits / 8)) {
    return Status::InvalidArgument("bloom filter of " + std::to_string(blocks) +
                                   " blocks exceeds the " + std::to_string(max_bytes) +
                                   "-byte limit");
  }
  Result<BlockedBloom> made = TryCreate(blocks, k, options);
  if (!made.ok()) return made;
  made->header_bits_set_ = bits;
  made->counters_[0].items.store(GetU64(h.data() + 40), std::memory_order_relaxed);
  return made;
}

uint64_t BlockedBloom::ReadChunk(uint64_t offset, uint64_t max_bytes,
                                 std::string* out) const {
  out->clear();
  const uint64_t total = bytes();
  if (offset >= total) return 0;
  const uint64_t end =
      offset + std::min(std::max<uint64_t>(max_bytes, 1), total - offset);
  out->resize(end - offset);
  CopyBytes(offset, end, out->data());
  return end == total ? 0 : end;
}

void BlockedBloom::CopyBytes(uint64_t offset, uint64_t end, char* dst) const {
  // Whole words are read atomically, then cut to the byte range. A byte is
  // its word's bits 8*i.. (little-endian order), so on a little-endian
  // machine an inner word is copied whole: byte by byte, a snapshot of a
  // 144 MB filter spent ~0.2 s here while holding the filter's lock.
  for (uint64_t w = offset / 8; w * 8 < end; ++w) {
    const uint64_t word = LoadRelaxed(words_ + w);
    const uint64_t from = std::max(offset, w * 8);
    const uint64_t to = std::min(end, w * 8 + 8);
    if constexpr (std::endian::native == std::endian::little) {
      if (to - from == 8) {
        std::memcpy(dst, &word, 8);
        dst += 8;
        continue;
      }
    }
    for (uint64_t b = from; b < to; ++b) {
      *dst++ = static_cast<char>(word >> (8 * (b - w * 8)));
    }
  }
}

Status BlockedBloom::WriteChunk(uint64_t offset, std::string_view data) {
  const uint64_t total = bytes();
  if (offset > total || data.size() > total - offset) {
    return Status::InvalidArgument("bloom chunk [" + std::to_string(offset) + ", +" +
                                   std::to_string(data.size()) + ") is outside the " +
                                   std::to_string(total) + "-byte filter");
  }
  const uint64_t end = offset + data.size();
  for (uint64_t w = offset / 8; w * 8 < end; ++w) {
    uint64_t word = LoadRelaxed(words_ + w);
    const uint64_t from = std::max(offset, w * 8);
    const uint64_t to = std::min(end, w * 8 + 8);
    for (uint64_t b = from; b < to; ++b) {
      const uint32_t shift = 8 * static_cast<uint32_t>(b - w * 8);
      word = (word & ~(uint64_t{0xff} << shift)) |
             (uint64_t{static_cast<uint8_t>(data[b - offset])} << shift);
    }
    StoreRelaxed(words_ + w, word);
  }
  if (end != total || data.empty()) return Status::Ok();
  RecountBits();
  if (bits_set() < header_bits_set_) {
    return Status::Corruption("bloom data has " + std::to_string(bits_set()) +
                              " bits set, header promised at least " +
                              std::to_string(header_bits_set_));
  }
  return Status::Ok();
}

}  // namespace crawlfront
