// RocksDB memtable layouts for the seen-set's random fingerprint keys
// ([partition:2][fingerprint:16]), batches of 100 through DB::Write with the
// WAL on, 10^6 keys into a fresh DB per layout (flushes and compactions of
// the 64 MiB memtables included, as in the daemon, and a final flush):
//   layout:0 skiplist       RocksDB's default: one list over all keys
//   layout:1 hash_prefix2   one skip list per partition (until session 4)
//   layout:2 hash_prefix3   one per partition and fingerprint byte (until session 11)
//   layout:3 vector         RocksDB's VectorRep (no point reads: for reference)
//   layout:4 hashed_vector  HashedVectorRep: a vector plus a hash index,
//                           sorted on key prefixes to flush (store_memtable.cc)
//   layout:5 prefix_bucket  PrefixBucketRep, one sorted run per 2-byte
//                           partition (the queue's layout, with host prefixes)
// cpu_s is the process's CPU time at the end (flush threads included): run
// one layout per process, e.g. --benchmark_filter=layout:4/
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
#include <sys/resource.h>
#include <unistd.h>

#include "crawlfront/frontier/hashed_vector_rep.h"
#include "crawlfront/frontier/prefix_bucket_rep.h"

namespace {

constexpr int64_t kKeys = 1'000'000;
constexpr int kBatch = 100;
constexpr uint32_t kPartitions = 1024;

enum Layout { kSkipList, kHashPrefix2, kHashPrefix3, kVector, kHashedVector, kPrefixBucket };

size_t PartitionPrefix(const rocksdb::Slice& k) { return k.size() > 2 ? 2 : 0; }

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
  } else if (layout == kVector) {
    o.memtable_factory.reset(new rocksdb::VectorRepFactory());
  } else if (layout == kHashedVector) {
    o.memtable_factory.reset(
        new crawlfront::HashedVectorRepFactory(1 << 20, o.comparator));
  } else if (layout == kPrefixBucket) {
    o.memtable_factory.reset(new crawlfront::PrefixBucketRepFactory(PartitionPrefix));
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
  db->Flush(rocksdb::FlushOptions());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["cpu_s"] = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
                            1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  state.SetItemsProcessed(state.iterations() * kBatch);
  db.reset();
  std::filesystem::remove_all(dir);
}

BENCHMARK(BM_Insert)
    ->ArgName("layout")
    ->Arg(kSkipList)
    ->Arg(kHashPrefix2)
    ->Arg(kHashPrefix3)
    ->Arg(kVector)
    ->Arg(kHashedVector)
    ->Arg(kPrefixBucket)
    ->Iterations(kKeys / kBatch)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
