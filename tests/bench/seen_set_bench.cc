// Seen-set throughput: insert_if_new in exact and bloom-only modes against
// RocksDB alone (every key looked up on disk) and std::unordered_set (RAM
// only, no durability), with 10% and 90% duplicates, batches of 100.
// Run: build/bench/seen_set_bench --benchmark_counters_tabular=true
// (tests/bench/run_seen_set.sh prints the ratios.)
//
// Duplicates are drawn like links in a crawl: 80% from a hot set of 10^4
// URLs (navigation links), 20% uniformly from everything seen so far.
// CRAWLFRONT_BENCH_PREFILL sets how many URLs are seen before timing
// (default 10^6).

#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_set>

#include <benchmark/benchmark.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include "bench_keys.h"
#include "crawlfront/frontier/seen_set.h"

namespace crawlfront {
namespace {

namespace fs = std::filesystem;
constexpr size_t kBatch = 100;
constexpr uint64_t kHot = 10'000;

using bench::EnvOr;
using bench::KeyAt;

// Generates batches with a duplicate fraction; fresh keys continue the
// global sequence so they are new to every subject.
class Workload {
 public:
  Workload(uint64_t prefill, double dup, uint64_t seed) : next_(prefill), dup_(dup), rng_(seed) {}
  void Fill(std::vector<SeenKey>* keys) {
    keys->clear();
    for (size_t i = 0; i < kBatch; ++i) {
      if (std::uniform_real_distribution<double>(0, 1)(rng_) < dup_) {
        bool hot = rng_() % 10 < 8;
        uint64_t range = hot ? std::min<uint64_t>(kHot, next_) : next_;
        keys->push_back(KeyAt(rng_() % range));
      } else {
        keys->push_back(KeyAt(fresh_base_ + fresh_++));
      }
    }
  }
  void SetFreshBase(uint64_t base) { fresh_base_ = base; }

 private:
  uint64_t next_;
  uint64_t fresh_base_ = 0;
  uint64_t fresh_ = 0;
  double dup_;
  std::mt19937_64 rng_;
};

struct Env {
  std::string dir;
  std::unique_ptr<Store> store;
  std::unique_ptr<SeenSet> seen;
  uint64_t prefill = 0;
  std::atomic<uint64_t> fresh_base{1ull << 40};
  ~Env() {
    seen.reset();
    store.reset();
    fs::remove_all(dir);
  }
};

std::unique_ptr<Env> MakeEnv(SeenMode mode, bool with_seen_set) {
  auto env = std::make_unique<Env>();
  env->dir = (fs::temp_directory_path() / ("seen_bench." + std::to_string(getpid()))).string();
  fs::remove_all(env->dir);
  env->store = std::move(Store::Open(env->dir, StoreOptions{}).value());
  env->prefill = EnvOr("CRAWLFRONT_BENCH_PREFILL", 1'000'000);
  SeenSetOptions o;
  o.mode = mode;
  o.expected_urls = env->prefill * 4;
  o.snapshot_interval = std::chrono::milliseconds(0);
  if (with_seen_set) env->seen = std::move(SeenSet::Open(env->store.get(), o).value());
  std::vector<SeenKey> keys;
  std::vector<SeenResult> out;
  rocksdb::WriteBatch batch;
  for (uint64_t i = 0; i < env->prefill; i += 1000) {
    keys.clear();
    for (uint64_t j = i; j < std::min(env->prefill, i + 1000); ++j) keys.push_back(KeyAt(j));
    if (env->seen) {
      (void)env->seen->InsertIfNew(keys, &out);
    } else {
      batch.Clear();
      for (auto& k : keys) {
        std::string key;
        k.fingerprint.AppendTo(&key);
        batch.Put(env->store->cf(Cf::kSeen), key, "");
      }
      (void)env->store->Write(&batch);
    }
  }
  return env;
}

// One environment per benchmark run (Setup/Teardown run once per run,
// before and after its threads), shared by the run's threads.
std::unique_ptr<Env> g_env;

void SetupExact(const benchmark::State&) { g_env = MakeEnv(SeenMode::kExact, true); }
void SetupBloomOnly(const benchmark::State&) { g_env = MakeEnv(SeenMode::kBloomOnly, true); }
void SetupRocksOnly(const benchmark::State&) { g_env = MakeEnv(SeenMode::kExact, false); }
void Teardown(const benchmark::State&) { g_env.reset(); }

void RunSeenSet(benchmark::State& state, SeenMode mode) {
  double dup = state.range(0) / 100.0;
  Workload w(g_env->prefill, dup, 99 + state.thread_index());
  w.SetFreshBase(g_env->fresh_base.fetch_add(1ull << 32));
  std::vector<SeenKey> keys;
  std::vector<SeenResult> out;
  uint64_t fresh = 0;
  const SeenSetStats before = g_env->seen->GetStats();
  for (auto _ : state) {
    w.Fill(&keys);
    if (!g_env->seen->InsertIfNew(keys, &out).ok()) state.SkipWithError("insert failed");
    for (auto r : out) fresh += r == SeenResult::kNew;
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["new_frac"] = benchmark::Counter(
      static_cast<double>(fresh) / (state.iterations() * kBatch), benchmark::Counter::kAvgThreads);
  if (state.thread_index() == 0) {
    // How the timed lookups ended (all threads): RocksDB or popular cache.
    SeenSetStats s = g_env->seen->GetStats();
    const double lookups = static_cast<double>(std::max<uint64_t>(s.lookups - before.lookups, 1));
    state.counters["disk_frac"] = (s.disk_lookups - before.disk_lookups) / lookups;
    state.counters["cache_frac"] = (s.cache_hits - before.cache_hits) / lookups;
  }
}

void BM_SeenSetExact(benchmark::State& state) { RunSeenSet(state, SeenMode::kExact); }
void BM_SeenSetBloomOnly(benchmark::State& state) { RunSeenSet(state, SeenMode::kBloomOnly); }

// Baseline: RocksDB alone, the same batch: MultiGet, then write the new keys.
void BM_RocksDbOnly(benchmark::State& state) {
  double dup = state.range(0) / 100.0;
  Workload w(g_env->prefill, dup, 99 + state.thread_index());
  w.SetFreshBase(g_env->fresh_base.fetch_add(1ull << 32));
  std::vector<SeenKey> keys;
  auto* cf = g_env->store->cf(Cf::kSeen);
  std::vector<std::string> raw(kBatch);
  std::vector<rocksdb::Slice> slices(kBatch);
  std::vector<rocksdb::PinnableSlice> values(kBatch);
  std::vector<rocksdb::Status> st(kBatch);
  rocksdb::WriteBatch batch;
  for (auto _ : state) {
    w.Fill(&keys);
    for (size_t i = 0; i < kBatch; ++i) {
      raw[i].clear();
      keys[i].fingerprint.AppendTo(&raw[i]);
      slices[i] = raw[i];
    }
    g_env->store->db()->MultiGet(rocksdb::ReadOptions(), cf, kBatch, slices.data(),
                                 values.data(), st.data());
    batch.Clear();
    for (size_t i = 0; i < kBatch; ++i) {
      if (st[i].IsNotFound()) batch.Put(cf, slices[i], "");
    }
    if (batch.Count() > 0 && !g_env->store->Write(&batch).ok()) state.SkipWithError("write");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// Baseline: std::unordered_set under one mutex (RAM only, not durable).
std::unordered_set<Fingerprint, FingerprintHash> g_set;
std::mutex g_set_mu;

void SetupUnordered(const benchmark::State&) {
  uint64_t prefill = EnvOr("CRAWLFRONT_BENCH_PREFILL", 1'000'000);
  g_set.clear();
  g_set.reserve(prefill * 2);
  for (uint64_t i = 0; i < prefill; ++i) g_set.insert(KeyAt(i).fingerprint);
}

void BM_UnorderedSet(benchmark::State& state) {
  uint64_t prefill = EnvOr("CRAWLFRONT_BENCH_PREFILL", 1'000'000);
  Workload w(prefill, state.range(0) / 100.0, 99 + state.thread_index());
  w.SetFreshBase((1ull << 41) + (static_cast<uint64_t>(state.thread_index()) << 32));
  std::vector<SeenKey> keys;
  uint64_t fresh = 0;
  for (auto _ : state) {
    w.Fill(&keys);
    std::lock_guard lock(g_set_mu);
    for (auto& k : keys) fresh += g_set.insert(k.fingerprint).second;
  }
  benchmark::DoNotOptimize(fresh);
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgName("dup_pct")->Arg(10)->Arg(90)->Threads(1)->Threads(2)->UseRealTime()
      ->MinTime(3.0);
}

BENCHMARK(BM_SeenSetExact)->Apply(Args)->Setup(SetupExact)->Teardown(Teardown);
BENCHMARK(BM_SeenSetBloomOnly)->Apply(Args)->Setup(SetupBloomOnly)->Teardown(Teardown);
BENCHMARK(BM_RocksDbOnly)->Apply(Args)->Setup(SetupRocksOnly)->Teardown(Teardown);
BENCHMARK(BM_UnorderedSet)->Apply(Args)->Setup(SetupUnordered);

}  // namespace
}  // namespace crawlfront

BENCHMARK_MAIN();
