// RocksDB memtable layouts for the seen-set's random fingerprint keys
// ([partition:2][fingerprint:16]), batches of 100 through DB::Write with the
// WAL on, 10^6 keys into a fresh DB per layout (flushes and compactions of
// the 64 MiB memtables included, as in the daemon):
//   skiplist        RocksDB's default: one list over all keys
//   hash_prefix2    one skip list per partition (the layout before 2026-12)
//   hash_prefix3    one per partition and fingerprint byte (store_memtable.cc)
// Usage: memtable_bench [--benchmark_filter=...]
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

namespace {

constexpr int64_t kKeys = 1'000'000;
constexpr int kBatch = 100;
constexpr uint32_t kPartitions = 1024;

enum Layout { kSkipList, kHashPrefix2, kHashPrefix3 };

rocksdb::Options OptionsFor(Layout layout) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 20;
  o.enable_pipelined_write = true;
  o.allow_concurrent_memtable_write = false;
  if (layout == kHashPrefix2) {
    o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(2));
    o.memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(1 << 16, 12, 4));
  } else if (layout == kHashPrefix3) {
    o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(3));
    o.memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(1 << 16, 4, 4));
  }
  return o;
}

void BM_Insert(benchmark::State& state) {
  const auto layout = static_cast<Layout>(state.range(0));
  const std::string dir = "/tmp/memtable_bench." + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(OptionsFor(layout), dir, &raw);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::mt19937_64 rng(42);
  for (auto _ : state) {
    rocksdb::WriteBatch batch;
    for (int i = 0; i < kBatch; ++i) {
      char key[18];
      const uint64_t p = rng() % kPartitions, hi = rng(), lo = rng();
      key[0] = static_cast<char>(p >> 8);
      key[1] = static_cast<char>(p);
      std::memcpy(key + 2, &hi, 8);
      std::memcpy(key + 10, &lo, 8);
      batch.Put(rocksdb::Slice(key, sizeof key), rocksdb::Slice());
    }
    s = db->Write(rocksdb::WriteOptions(), &batch);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  db.reset();
  std::filesystem::remove_all(dir);
}

BENCHMARK(BM_Insert)
    ->ArgName("layout")
    ->Arg(kSkipList)
    ->Arg(kHashPrefix2)
    ->Arg(kHashPrefix3)
    ->Iterations(kKeys / kBatch)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
