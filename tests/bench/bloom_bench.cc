// Benchmarks for BlockedBloom against a textbook (non-blocked) Bloom filter.
//
// Key count: CRAWLFRONT_BENCH_KEYS (default 1e8; ~120 MB per filter at 1%).
// All hashes are SplitMix64 of a counter (a bijection, so "miss" keys were
// never inserted); generating one costs ~1 ns and is included in the times.
// At the end a table prints textbook / blocked time ratios.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "crawlfront/common/bloom.h"

namespace crawlfront {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr double kP = 0.01;
constexpr uint64_t kMissBase = uint64_t{1} << 48;  // never inserted

uint64_t NumKeys() {
  const char* env = std::getenv("CRAWLFRONT_BENCH_KEYS");
  const double n = env != nullptr ? std::atof(env) : 1e8;
  return n >= 1000 ? static_cast<uint64_t>(n) : 1000;
}

// The baseline: one flat bit array, k probes anywhere in it (Kirsch-
// Mitzenmacher double hashing), sized at the textbook optimum. Plain,
// non-atomic single-threaded code, which only flatters it.
class TextbookBloom {
 public:
  TextbookBloom(uint64_t n, double p)
      : bits_(static_cast<uint64_t>(
            std::ceil(-double(n) * std::log(p) / (std::log(2.0) * std::log(2.0))))),
        k_(static_cast<uint32_t>(std::lround(-std::log2(p)))),
        words_((bits_ + 63) / 64) {}
  void Add(uint64_t hash) {
    uint64_t h = hash, step = Mix(hash) | 1;
    for (uint32_t i = 0; i < k_; ++i, h += step) {
      const uint64_t bit = Range(h);
      words_[bit >> 6] |= uint64_t{1} << (bit & 63);
    }
  }
  bool MayContain(uint64_t hash) const {
    uint64_t h = hash, step = Mix(hash) | 1;
    for (uint32_t i = 0; i < k_; ++i, h += step) {
      const uint64_t bit = Range(h);
      if (((words_[bit >> 6] >> (bit & 63)) & 1) == 0) return false;
    }
    return true;
  }
  uint64_t bits() const { return bits_; }

 private:
  uint64_t Range(uint64_t h) const {
    __extension__ using U128 = unsigned __int128;
    return static_cast<uint64_t>((U128{h} * bits_) >> 64);
  }
  uint64_t bits_;
  uint32_t k_;
  std::vector<uint64_t> words_;
};

// Benchmark variants of the blocked filter (the benchmark's integer arg).
enum Variant : int { kFourKPages = 0, kDefault = 1, kScalar = 2 };

BloomOptions OptionsFor(int variant, bool single_writer) {
  return BloomOptions{.single_writer = single_writer,
                      .huge_pages = variant != kFourKPages,
                      .simd = variant != kScalar};
}

// Filters filled with keys Mix(0..n), built once per variant on first use.
const BlockedBloom& FilledBlocked(int variant) {
  static std::unique_ptr<BlockedBloom> filters[3];
  static std::once_flag once[3];
  std::call_once(once[variant], [&] {
    const uint64_t n = NumKeys();
    const BlockedBloom::Geometry g = BlockedBloom::ChooseGeometry(n, kP);
    filters[variant] =
        std::make_unique<BlockedBloom>(g.num_blocks, g.k, OptionsFor(variant, true));
    std::vector<uint64_t> batch(1 << 16);
    for (uint64_t i = 0; i < n; i += batch.size()) {
      const uint64_t len = std::min<uint64_t>(batch.size(), n - i);
      for (uint64_t j = 0; j < len; ++j) batch[j] = Mix(i + j);
      filters[variant]->AddBatch(std::span(batch).first(len), nullptr);
    }
  });
  return *filters[variant];
}

const TextbookBloom& FilledTextbook() {
  static const TextbookBloom* filter = [] {
    auto* f = new TextbookBloom(NumKeys(), kP);
    for (uint64_t i = 0; i < NumKeys(); ++i) f->Add(Mix(i));
    return f;
  }();
  return *filter;
}

// Alternating hit / miss keys, streamed sequentially by lookups.
const std::vector<uint64_t>& LookupPool() {
  static const std::vector<uint64_t> pool = [] {
    std::vector<uint64_t> keys(uint64_t{1} << 22);
    const uint64_t n = NumKeys();
    for (uint64_t i = 0; i < keys.size(); ++i) {
      keys[i] = (i & 1) ? Mix(kMissBase + i) : Mix(Mix(i) % n);
    }
    return keys;
  }();
  return pool;
}

template <typename Filter>
void RunContains(benchmark::State& state, const Filter& filter) {
  const std::vector<uint64_t>& pool = LookupPool();
  const uint64_t mask = pool.size() - 1;
  uint64_t i = static_cast<uint64_t>(state.thread_index()) * (pool.size() / 2 + 1);
  uint64_t found = 0;
  for (auto _ : state) found += filter.MayContain(pool[i++ & mask]);
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
}

void BM_BlockedContains(benchmark::State& state) {
  RunContains(state, FilledBlocked(static_cast<int>(state.range(0))));
}

// The machine's floor for one filter op: a random 64-byte line of a
// huge-page array the size of the filter, read (lookup) or read, changed and
// written (add), in the same loop shape. A blocked filter touches exactly
// one such line per key, so no single op can beat these on this machine.
struct Lines {
  uint64_t* words;
  uint64_t count;
};

const Lines& FloorLines() {
  static const Lines lines = [] {
    const uint64_t count = FilledBlocked(kDefault).num_blocks();
    const size_t bytes = count * 64;
    void* p = nullptr;
    if (posix_memalign(&p, 2 << 20, bytes) != 0) std::abort();
    madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 0x5a, bytes);  // fault every page in before timing
    return Lines{static_cast<uint64_t*>(p), count};
  }();
  return lines;
}

uint64_t LineOf(uint64_t hash, uint64_t count) {
  __extension__ using U128 = unsigned __int128;
  return static_cast<uint64_t>((U128{hash} * count) >> 64);
}

void BM_FloorRead(benchmark::State& state) {
  const Lines& lines = FloorLines();
  const std::vector<uint64_t>& pool = LookupPool();
  const uint64_t mask = pool.size() - 1;
  uint64_t i = static_cast<uint64_t>(state.thread_index()) * (pool.size() / 2 + 1);
  uint64_t sum = 0;
  for (auto _ : state) sum += lines.words[LineOf(pool[i++ & mask], lines.count) * 8];
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

void BM_FloorReadModifyWrite(benchmark::State& state) {
  const Lines& lines = FloorLines();
  uint64_t key = 0;
  for (auto _ : state) {
    const uint64_t h = Mix(key++);
    lines.words[LineOf(h, lines.count) * 8] |= h;
  }
  benchmark::ClobberMemory();
  state.SetItemsProcessed(state.iterations());
}

void BM_TextbookContains(benchmark::State& state) {
  RunContains(state, FilledTextbook());
}

void BM_BlockedContainsBatch(benchmark::State& state) {
  const BlockedBloom& bloom = FilledBlocked(kDefault);
  const std::vector<uint64_t>& pool = LookupPool();
  const uint64_t batch = static_cast<uint64_t>(state.range(0));
  std::vector<uint8_t> out(batch);
  uint64_t at = static_cast<uint64_t>(state.thread_index()) * (pool.size() / 2);
  for (auto _ : state) {
    at = (at + batch) % (pool.size() - batch);
    bloom.MayContainBatch(std::span(pool).subspan(at, batch), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["ns_per_key"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Adds keys 0..n to an empty filter sized for n (so it ends at capacity).
// Threads split the keys; iterations are fixed to n / threads. Arg 1: single
// writer mode (1 thread only), 2: the same without vector instructions, 0:
// concurrent adds (locked or).
void BM_BlockedAdd(benchmark::State& state) {
  static std::unique_ptr<BlockedBloom> bloom;
  const uint64_t n = NumKeys();
  if (state.thread_index() == 0) {
    const int variant = state.range(0) == 0 ? kDefault : static_cast<int>(state.range(0));
    bloom = std::make_unique<BlockedBloom>(
        BlockedBloom::ForCapacity(n, kP, OptionsFor(variant, state.range(0) != 0)));
  }
  uint64_t key = static_cast<uint64_t>(state.thread_index()) * (n / state.threads());
  for (auto _ : state) bloom->Add(Mix(key++));
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    state.counters["fill"] = bloom->fill_ratio();
    bloom.reset();
  }
}

void BM_BlockedAddBatch(benchmark::State& state) {
  const uint64_t n = NumKeys();
  BlockedBloom bloom = BlockedBloom::ForCapacity(
      n, kP, BloomOptions{.single_writer = state.range(1) != 0});
  std::vector<uint64_t> hashes(static_cast<size_t>(state.range(0)));
  uint64_t key = 0;
  for (auto _ : state) {
    state.PauseTiming();  // hashing is not what this measures
    for (uint64_t& h : hashes) h = Mix(key++);
    state.ResumeTiming();
    bloom.AddBatch(hashes, nullptr);
  }
  state.SetItemsProcessed(state.iterations() * hashes.size());
  state.counters["ns_per_key"] =
      benchmark::Counter(static_cast<double>(state.iterations() * hashes.size()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TextbookAdd(benchmark::State& state) {
  TextbookBloom bloom(NumKeys(), kP);
  uint64_t key = 0;
  for (auto _ : state) bloom.Add(Mix(key++));
  state.SetItemsProcessed(state.iterations());
}

// Memory per key at capacity and the measured FP rate (1e7 keys is plenty
// for the ratio; it does not depend on n).
void BM_BitsPerKey(benchmark::State& state) {
  const double p = state.range(0) == 1 ? 0.01 : 0.001;
  const uint64_t n = std::min<uint64_t>(NumKeys(), 10'000'000);
  double bits_per_key = 0, fp = 0;
  uint32_t k = 0;
  for (auto _ : state) {
    BlockedBloom bloom = BlockedBloom::ForCapacity(n, p);
    for (uint64_t i = 0; i < n; ++i) bloom.Add(Mix(i));
    uint64_t hits = 0;
    for (uint64_t i = 0; i < n; ++i) hits += bloom.MayContain(Mix(kMissBase + i));
    bits_per_key = static_cast<double>(bloom.bit_count()) / n;
    fp = static_cast<double>(hits) / n;
    k = bloom.k();
  }
  const double textbook = -std::log(p) / (std::log(2.0) * std::log(2.0));
  state.counters["target_fp"] = p;
  state.counters["measured_fp"] = fp;
  state.counters["k"] = k;
  state.counters["bits_per_key"] = bits_per_key;
  state.counters["textbook_bits"] = textbook;
  state.counters["overhead"] = bits_per_key / textbook;
}

// Console output plus, at the end, textbook / blocked time ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      ns_per_op_[run.benchmark_name()] = run.GetAdjustedRealTime();
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    Ratio("contains, textbook/blocked (1 thread)", "BM_TextbookContains/real_time",
          "BM_BlockedContains/1/real_time");
    const std::string iters = "/iterations:" + std::to_string(NumKeys());
    Ratio("add, textbook/blocked (1 thread, single writer)", "BM_TextbookAdd" + iters + "/real_time",
          "BM_BlockedAdd/1" + iters + "/real_time");
    Ratio("add, textbook/blocked (1 thread, concurrent mode)", "BM_TextbookAdd" + iters + "/real_time",
          "BM_BlockedAdd/0" + iters + "/real_time");
    Ratio("contains, scalar/vector (1 thread)", "BM_BlockedContains/2/real_time",
          "BM_BlockedContains/1/real_time");
    Ratio("add, scalar/vector (1 thread)", "BM_BlockedAdd/2" + iters + "/real_time",
          "BM_BlockedAdd/1" + iters + "/real_time");
    // Below 1.0: time above the machine's floor (one random line per op).
    Ratio("contains, floor/blocked (1 thread)", "BM_FloorRead/real_time",
          "BM_BlockedContains/1/real_time");
    Ratio("add, floor/blocked (1 thread, single writer)",
          "BM_FloorReadModifyWrite" + iters + "/real_time", "BM_BlockedAdd/1" + iters + "/real_time");
  }

 private:
  void Ratio(const char* what, const std::string& base, const std::string& ours) {
    if (!ns_per_op_.count(base) || !ns_per_op_.count(ours)) return;
    std::printf("ratio %s: %.2fx (%.1f ns vs %.1f ns)\n", what,
                ns_per_op_[base] / ns_per_op_[ours], ns_per_op_[base], ns_per_op_[ours]);
  }
  std::map<std::string, double> ns_per_op_;
};

void Register() {
  const int64_t n = static_cast<int64_t>(NumKeys());
  benchmark::RegisterBenchmark("BM_BlockedContains", BM_BlockedContains)
      ->Arg(kDefault)
      ->Arg(kScalar)
      ->Arg(kFourKPages)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BlockedContains", BM_BlockedContains)
      ->Arg(1)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_TextbookContains", BM_TextbookContains)->UseRealTime();
  benchmark::RegisterBenchmark("BM_FloorRead", BM_FloorRead)->UseRealTime();
  benchmark::RegisterBenchmark("BM_FloorReadModifyWrite", BM_FloorReadModifyWrite)
      ->Iterations(n)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BlockedContainsBatch", BM_BlockedContainsBatch)
      ->RangeMultiplier(2)
      ->Range(64, 1024)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BlockedContainsBatch", BM_BlockedContainsBatch)
      ->Arg(256)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BlockedAdd", BM_BlockedAdd)
      ->Arg(1)
      ->Arg(2)
      ->Arg(0)
      ->Iterations(n)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BlockedAdd", BM_BlockedAdd)
      ->Arg(0)
      ->Iterations(n / 2)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BlockedAddBatch", BM_BlockedAddBatch)
      ->Args({256, 1})
      ->Args({256, 0})
      ->Iterations(n / 256)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_TextbookAdd", BM_TextbookAdd)
      ->Iterations(n)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_BitsPerKey", BM_BitsPerKey)
      ->Arg(1)
      ->Arg(2)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace crawlfront

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  crawlfront::Register();
  crawlfront::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
