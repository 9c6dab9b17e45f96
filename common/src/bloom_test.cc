#include "crawlfront/common/bloom.h"

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <xxhash.h>

#include "crawlfront/common/huge_pages.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace crawlfront {
namespace {

// SplitMix64 is a bijection on uint64_t, so distinct inputs give distinct
// hashes: "fresh" keys are guaranteed never to have been added.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Keys [first, first + count) of one stream; streams use disjoint ranges.
std::vector<uint64_t> Keys(uint64_t first, uint64_t count) {
  std::vector<uint64_t> keys(count);
  for (uint64_t i = 0; i < count; ++i) keys[i] = Mix(first + i);
  return keys;
}

constexpr uint64_t kFreshBase = uint64_t{1} << 40;  // never inserted

double MeasuredFpRate(const BlockedBloom& bloom, uint64_t probes) {
  const std::vector<uint64_t> fresh = Keys(kFreshBase, probes);
  std::vector<uint8_t> out(fresh.size());
  bloom.MayContainBatch(fresh, out.data());
  uint64_t hits = 0;
  for (uint8_t o : out) hits += o;
  return static_cast<double>(hits) / static_cast<double>(probes);
}

// Serializes through header + chunks of chunk_bytes and loads into a new
// filter.
BlockedBloom RoundTrip(const BlockedBloom& src, uint64_t chunk_bytes) {
  Result<BlockedBloom> dst = BlockedBloom::FromHeader(src.SerializeHeader());
  EXPECT_TRUE(dst.ok()) << dst.status().ToString();
  std::string chunk;
  uint64_t offset = 0;
  for (uint64_t rounds = 0; rounds <= src.bytes(); ++rounds) {
    const uint64_t next = src.ReadChunk(offset, chunk_bytes, &chunk);
    EXPECT_TRUE(dst->WriteChunk(offset, chunk).ok());
    if (next == 0) break;
    offset = next;
  }
  return std::move(dst).value();
}

TEST(BloomHashTest, IsXxh3OfTheBytes) {
  for (std::string key : {"", "a", "https://example.com/path?q=1"}) {
    EXPECT_EQ(BloomHash(key), XXH3_64bits(key.data(), key.size())) << key;
  }
}

TEST(BlockedBloomTest, NoFalseNegativesIncludingAfterRoundTrip) {
  constexpr uint64_t kN = 3'000'000;
  BlockedBloom bloom = BlockedBloom::ForCapacity(kN, 0.01);
  const std::vector<uint64_t> keys = Keys(0, kN);
  for (uint64_t i = 0; i < kN / 2; ++i) bloom.Add(keys[i]);
  bloom.AddBatch(std::span(keys).subspan(kN / 2), nullptr);
  for (uint64_t h : keys) ASSERT_TRUE(bloom.MayContain(h));

  for (uint64_t chunk : {uint64_t{7}, uint64_t{4093}, uint64_t{(1 << 20) + 1}}) {
    BlockedBloom copy = RoundTrip(bloom, chunk);
    EXPECT_EQ(copy.num_blocks(), bloom.num_blocks());
    EXPECT_EQ(copy.k(), bloom.k());
    EXPECT_EQ(copy.bits_set(), bloom.bits_set());
    EXPECT_EQ(copy.inserted_count(), bloom.inserted_count());
    std::vector<uint8_t> out(keys.size());
    copy.MayContainBatch(keys, out.data());
    for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], 1) << "chunk " << chunk;
  }
}

TEST(BlockedBloomTest, AddReportsWhetherTheKeyWasNew) {
  BlockedBloom bloom(16, 7);
  const uint64_t h = Mix(42);
  EXPECT_TRUE(bloom.Add(h));
  const uint64_t bits = bloom.bits_set();
  EXPECT_GE(bits, 1u);
  EXPECT_LE(bits, 7u);
  EXPECT_FALSE(bloom.Add(h));
  EXPECT_EQ(bloom.bits_set(), bits);
  EXPECT_EQ(bloom.inserted_count(), 1u);
  uint8_t changed[2] = {9, 9};
  const uint64_t batch[2] = {h, Mix(43)};
  bloom.AddBatch(batch, changed);
  EXPECT_EQ(changed[0], 0);
  EXPECT_EQ(changed[1], 1);  // 16 nearly empty blocks: a new key sets a bit
}

struct FpCase {
  double p;
};

class FpRateTest : public testing::TestWithParam<FpCase> {};

// Deterministic (fixed keys): the rate at capacity is within 15% of p.
TEST_P(FpRateTest, MeasuredRateAtCapacityIsNearTarget) {
  constexpr uint64_t kN = 1'000'000;
  const double p = GetParam().p;
  BlockedBloom bloom = BlockedBloom::ForCapacity(kN, p);
  const std::vector<uint64_t> keys = Keys(0, kN);
  bloom.AddBatch(keys, nullptr);
  const double measured = MeasuredFpRate(bloom, 4'000'000);
  EXPECT_GE(measured, 0.85 * p);
  EXPECT_LE(measured, 1.15 * p);
  // The fill-based estimate agrees with the measurement too.
  EXPECT_NEAR(bloom.EstimatedFalsePositiveRate(), measured, 0.15 * p);
  RecordProperty("measured_fp", std::to_string(measured));
  std::printf("p=%g k=%u bits/key=%.3f measured=%.5f estimated=%.5f\n", p, bloom.k(),
              static_cast<double>(bloom.bit_count()) / kN, measured,
              bloom.EstimatedFalsePositiveRate());
}

INSTANTIATE_TEST_SUITE_P(Targets, FpRateTest,
                         testing::Values(FpCase{0.01}, FpCase{0.001}));

// Mean and variance of the number of set bits in one block under the model:
// J ~ Poisson(lambda) keys, each throwing k darts into 512 bits.
struct BlockFill {
  double mean = 0;
  double variance = 0;
};

BlockFill ModelBlockFill(double lambda, uint32_t k) {
  const double m = BlockedBloom::kBlockBits;
  double mean = 0, second = 0;
  for (int j = 0; j < 20 * lambda + 100; ++j) {
    const double pmf = std::exp(-lambda + j * std::log(lambda) - std::lgamma(j + 1.0));
    const double t = static_cast<double>(k) * j;
    const double q1 = std::pow(1 - 1 / m, t), q2 = std::pow(1 - 2 / m, t);
    const double occ_mean = m * (1 - q1);
    // Classical occupancy variance of empty bins, which equals that of
    // occupied ones.
    const double occ_var = m * (m - 1) * q2 + m * q1 - m * m * q1 * q1;
    mean += pmf * occ_mean;
    second += pmf * (occ_var + occ_mean * occ_mean);
  }
  return {mean, second - mean * mean};
}

TEST(BlockedBloomTest, FillRatioAtCapacityMatchesModelNearHalf) {
  constexpr uint64_t kN = 1'000'000;
  BlockedBloom bloom = BlockedBloom::ForCapacity(kN, 0.01);
  bloom.AddBatch(Keys(0, kN), nullptr);
  const double lambda = static_cast<double>(kN) / bloom.num_blocks();
  const BlockFill block = ModelBlockFill(lambda, bloom.k());
  const double expected = block.mean / BlockedBloom::kBlockBits;
  // Blocks are independent given their loads; 6 sigma of the sum.
  const double sigma = std::sqrt(block.variance * bloom.num_blocks()) / bloom.bit_count();
  EXPECT_NEAR(bloom.fill_ratio(), expected, 6 * sigma);
  // At the optimum half the bits are set; integer k and blocking move it a
  // little (docs/bloom.md).
  EXPECT_NEAR(expected, 0.5, 0.05);
  std::printf("fill=%.5f model=%.5f sigma=%.6f\n", bloom.fill_ratio(), expected, sigma);
}

TEST(BlockedBloomTest, GeometryIsTheSmallestMeetingTheModel) {
  for (double p : {0.1, 0.01, 0.001, 1e-6}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{1000}, uint64_t{10'000'000}}) {
      const BlockedBloom::Geometry g = BlockedBloom::ChooseGeometry(n, p);
      EXPECT_LE(BlockedBloom::ModelFalsePositiveRate(n, g.num_blocks, g.k), p);
      if (g.num_blocks > 1) {
        EXPECT_GT(BlockedBloom::ModelFalsePositiveRate(n, g.num_blocks - 1, g.k), p);
      }
      const double textbook = -std::log(p) / (std::log(2.0) * std::log(2.0));
      const double bits_per_key =
          static_cast<double>(g.num_blocks) * BlockedBloom::kBlockBits / n;
      if (n >= 1000) {
        EXPECT_GE(bits_per_key, textbook) << p << " " << n;
      }
    }
  }
}

TEST(BlockedBloomTest, ConcurrentAddsFromTwoThreadsLoseNothing) {
  constexpr uint64_t kPerThread = 1'000'000;
  BlockedBloom bloom = BlockedBloom::ForCapacity(2 * kPerThread, 0.01);
  // Each thread adds its own keys plus a shared range, so both threads race
  // on the same blocks and words.
  const std::vector<uint64_t> shared = Keys(10 * kPerThread, kPerThread / 4);
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 2; ++t) {
    threads.emplace_back([&bloom, &shared, t] {
      const std::vector<uint64_t> own = Keys(t * kPerThread, kPerThread);
      for (uint64_t i = 0; i < own.size(); ++i) {
        bloom.Add(own[i]);
        if (i < shared.size()) bloom.Add(shared[i]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (uint64_t h : Keys(0, 2 * kPerThread)) ASSERT_TRUE(bloom.MayContain(h));
  for (uint64_t h : shared) ASSERT_TRUE(bloom.MayContain(h));
  const uint64_t counted = bloom.bits_set();
  bloom.RecountBits();
  EXPECT_EQ(counted, bloom.bits_set());  // the incremental count is exact
}

// Single-writer adds set exactly the bits concurrent adds set, while a
// reader thread queries alongside.
TEST(BlockedBloomTest, SingleWriterModeMatchesConcurrentMode) {
  constexpr uint64_t kN = 500'000;
  BlockedBloom shared = BlockedBloom::ForCapacity(kN, 0.01);
  BlockedBloom owned =
      BlockedBloom::ForCapacity(kN, 0.01, BloomOptions{.single_writer = true});
  const std::vector<uint64_t> keys = Keys(0, kN);
  // The reader's answers are racy by design; it is here so sanitizers (TSan)
  // see reads overlapping single-writer stores.
  uint64_t reader_hits = 0;
  std::thread reader([&] {
    for (uint64_t h : keys) reader_hits += owned.MayContain(h);
  });
  for (uint64_t i = 0; i < kN; ++i) {
    EXPECT_EQ(owned.Add(keys[i]), shared.Add(keys[i]));
  }
  reader.join();
  std::string a, b;
  EXPECT_EQ(owned.ReadChunk(0, owned.bytes(), &a), 0u);
  EXPECT_EQ(shared.ReadChunk(0, shared.bytes(), &b), 0u);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(owned.bits_set(), shared.bits_set());
  EXPECT_EQ(owned.inserted_count(), shared.inserted_count());
  for (uint64_t h : keys) ASSERT_TRUE(owned.MayContain(h));
}

TEST(BlockedBloomTest, MovedFilterKeepsItsBits) {
  BlockedBloom a(100, 6);
  a.Add(Mix(1));
  BlockedBloom b = std::move(a);
  EXPECT_TRUE(b.MayContain(Mix(1)));
  BlockedBloom c(1, 1);
  c = std::move(b);
  EXPECT_TRUE(c.MayContain(Mix(1)));
  EXPECT_EQ(c.num_blocks(), 100u);
  EXPECT_EQ(c.inserted_count(), 1u);
}

TEST(BlockedBloomTest, MakeRejectsBadArguments) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double p : {0.0, 1e-12, 1.0, -0.5, 2.0, nan}) {
    Result<BlockedBloom> r = BlockedBloom::Make(1000, p);
    ASSERT_FALSE(r.ok()) << p;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  }
  EXPECT_FALSE(BlockedBloom::Make(0, 0.01).ok());
  Result<BlockedBloom> big = BlockedBloom::Make(1'000'000'000, 0.01, {}, 1 << 20);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(BlockedBloom::Make(1000, 0.01).ok());
}

// Returns a header with field bytes replaced and, if reseal, a checksum
// recomputed so only the field check can catch it.
std::string EditHeader(std::string h, size_t at, std::string_view bytes, bool reseal) {
  h.replace(at, bytes.size(), bytes);
  if (reseal) {
    const uint64_t sum = XXH3_64bits(h.data(), 48);
    for (int i = 0; i < 8; ++i) h[48 + i] = static_cast<char>(sum >> (8 * i));
  }
  return h;
}

TEST(BlockedBloomTest, BadHeadersAreRejected) {
  BlockedBloom bloom(1000, 7);
  bloom.Add(Mix(5));
  const std::string good = bloom.SerializeHeader();
  ASSERT_EQ(good.size(), BlockedBloom::kHeaderBytes);
  ASSERT_TRUE(BlockedBloom::FromHeader(good).ok());
  const std::string zero4("\0\0\0\0", 4);
  struct Case {
    const char* name;
    std::string header;
  } cases[] = {
      {"empty", ""},
      {"truncated", good.substr(0, good.size() - 1)},
      {"too long", good + "x"},
      {"bad magic", EditHeader(good, 0, "XXXX", true)},
      {"wrong checksum", EditHeader(good, 50, "\x55", false)},
      {"geometry changed", EditHeader(good, 8, "\x07", false)},
      {"version 2", EditHeader(good, 4, std::string("\x02\0\0\0", 4), true)},
      {"k = 0", EditHeader(good, 16, zero4, true)},
      {"k = 33", EditHeader(good, 16, std::string("\x21\0\0\0", 4), true)},
      {"no blocks", EditHeader(good, 8, std::string(8, '\0'), true)},
      {"bits beyond size", EditHeader(good, 32, std::string(8, '\xff'), true)},
  };
  for (const Case& c : cases) {
    Result<BlockedBloom> r = BlockedBloom::FromHeader(c.header);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << c.name;
  }
  Result<BlockedBloom> big = BlockedBloom::FromHeader(good, {}, 1000);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Status::Code::kInvalidArgument);
}

TEST(BlockedBloomTest, BadChunksAreRejected) {
  BlockedBloom bloom(10, 7);  // 640 bytes
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  struct Case {
    uint64_t offset;
    size_t size;
  } cases[] = {{641, 0}, {640, 1}, {639, 2}, {0, 641}, {max, 2}, {max - 1, 3}};
  for (const Case& c : cases) {
    const Status st = bloom.WriteChunk(c.offset, std::string(c.size, '\xff'));
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << c.offset << "+" << c.size;
  }
  EXPECT_EQ(bloom.bits_set(), 0u);  // nothing was written
  EXPECT_TRUE(bloom.WriteChunk(640, "").ok());
}

TEST(BlockedBloomTest, LoadThatLostBitsIsCorruption) {
  BlockedBloom src(10, 7);
  for (uint64_t i = 0; i < 50; ++i) src.Add(Mix(i));
  Result<BlockedBloom> dst = BlockedBloom::FromHeader(src.SerializeHeader());
  ASSERT_TRUE(dst.ok());
  std::string chunk;
  EXPECT_EQ(src.ReadChunk(0, 1 << 20, &chunk), 0u);
  ASSERT_GT(src.bits_set(), 0u);
  chunk.assign(chunk.size(), '\0');  // every bit lost in transit
  const Status st = dst->WriteChunk(0, chunk);
  EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
}

TEST(BlockedBloomTest, ReadChunkCursor) {
  BlockedBloom bloom(2, 3);  // 128 bytes
  std::string out = "stale";
  EXPECT_EQ(bloom.ReadChunk(0, 0, &out), 1u);  // max 0 still makes progress
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(bloom.ReadChunk(120, 100, &out), 0u);
  EXPECT_EQ(out.size(), 8u);
  EXPECT_EQ(bloom.ReadChunk(128, 100, &out), 0u);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(bloom.ReadChunk(5, 50, &out), 55u);
}

}  // namespace
}  // namespace crawlfront

namespace crawlfront {
namespace {

std::string AllBits(const BlockedBloom& b) {
  std::string all, chunk;
  uint64_t at = 0;
  do {
    at = b.ReadChunk(at, 1 << 20, &chunk);
    all += chunk;
  } while (at != 0);
  return all;
}

// The vector paths (AVX2 probe, AVX-512 add) must set and test exactly the
// scalar bits, for every k (one, several and partial rounds of 8 probes),
// so snapshots stay portable between machines.
TEST(BloomSimdTest, VectorAndScalarPathsAgreeBitForBit) {
  for (uint32_t k : {1u, 3u, 7u, 8u, 9u, 10u, 16u, 17u, 32u}) {
    BloomOptions vec{.single_writer = true, .simd = true};
    BloomOptions plain{.single_writer = true, .simd = false};
    BlockedBloom a(64, k, vec), b(64, k, plain);
    const std::vector<uint64_t> keys = Keys(uint64_t{k} << 20, 3000);
    for (uint64_t h : keys) ASSERT_EQ(a.Add(h), b.Add(h)) << "k=" << k;
    EXPECT_EQ(AllBits(a), AllBits(b)) << "k=" << k;
    EXPECT_EQ(a.bits_set(), b.bits_set());
    EXPECT_EQ(a.inserted_count(), b.inserted_count());
    const std::vector<uint64_t> probes = Keys(kFreshBase + (uint64_t{k} << 20), 20000);
    uint64_t hits = 0;
    for (uint64_t h : probes) {
      ASSERT_EQ(a.MayContain(h), b.MayContain(h)) << "k=" << k;
      hits += a.MayContain(h) ? 1 : 0;
    }
    // A crowded small filter gives both answers, so both branches are tested.
    EXPECT_GT(hits, 0u) << "k=" << k;
    EXPECT_LT(hits, probes.size()) << "k=" << k;
    // The batch path (its own vector loop) answers as the scalar probe.
    std::vector<uint8_t> batch(probes.size());
    a.MayContainBatch(probes, batch.data());
    for (size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(batch[i] != 0, b.MayContain(probes[i])) << "k=" << k << " i=" << i;
    }
    for (uint64_t h : keys) ASSERT_TRUE(a.MayContain(h) && b.MayContain(h));
  }
}

// Pages of [p, p + bytes) in RAM, by mincore.
size_t ResidentPages(void* p, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((bytes + page - 1) / page);
  EXPECT_EQ(mincore(p, bytes, in_core.data()), 0);
  size_t n = 0;
  for (unsigned char c : in_core) n += c & 1;
  return n;
}

TEST(HugePagesTest, PrefaultMakesEveryPageResidentAndLeavesItZero) {
  const size_t bytes = 3 * kHugePageBytes;
  for (bool huge : {false, true}) {
    auto* p = static_cast<char*>(MapAligned(bytes, huge));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePageBytes, 0u);
    EXPECT_EQ(ResidentPages(p, bytes), 0u) << "huge " << huge;  // nothing touched yet
    Prefault(p, bytes);
    const size_t pages = bytes / static_cast<size_t>(sysconf(_SC_PAGESIZE));
    EXPECT_EQ(ResidentPages(p, bytes), pages) << "huge " << huge;
    const std::vector<char> zeros(bytes, 0);
    EXPECT_EQ(std::memcmp(p, zeros.data(), bytes), 0);
    UnmapAligned(p, bytes);
  }
}

}  // namespace
}  // namespace crawlfront
