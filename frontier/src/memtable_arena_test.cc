// HugePageArena on its own (alignment, disjoint allocations, accounting),
// and the memtable reps that use it behind a real RocksDB: a memtable still
// flushes at its write buffer size now that its entries are outside
// RocksDB's arena.
#include "memtable_arena.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "crawlfront/common/huge_pages.h"
#include "crawlfront/frontier/hashed_vector_rep.h"
#include "crawlfront/frontier/prefix_bucket_rep.h"
#include "test_dir_util.h"

namespace crawlfront {
namespace {

TEST(HugePageArenaTest, AllocationsAreAlignedDisjointAndCounted) {
  HugePageArena arena;
  struct Piece {
    unsigned char* p;
    size_t n;
  };
  std::vector<Piece> pieces;
  std::mt19937 rng(7);
  const size_t aligns[] = {1, 8, 64};
  size_t asked = 0, slack = 0;
  for (int i = 0; i < 5000; ++i) {  // ~7 MiB: several chunks
    const size_t n = 1 + rng() % 3000, align = aligns[rng() % 3];
    auto* p = reinterpret_cast<unsigned char*>(arena.Allocate(n, align));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u) << i;
    std::fill_n(p, n, static_cast<unsigned char>(i));
    pieces.push_back({p, n});
    asked += n;
    slack += align - 1;
  }
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (size_t j = 0; j < pieces[i].n; ++j) {
      ASSERT_EQ(pieces[i].p[j], static_cast<unsigned char>(i)) << "piece " << i << " byte " << j;
    }
  }
  EXPECT_GE(arena.bytes(), asked);
  EXPECT_LE(arena.bytes(), asked + slack);
}

TEST(HugePageArenaTest, LargeRequestsAreCountedExactly) {
  HugePageArena arena;
  char* a = arena.Allocate(1 << 20, 8);
  char* b = arena.Allocate(5 << 20, 8);
  a[0] = a[(1 << 20) - 1] = 'a';
  b[0] = b[(5 << 20) - 1] = 'b';
  EXPECT_EQ(arena.bytes(), size_t{6} << 20);
  char* small = arena.Allocate(10, 1);
  small[9] = 's';
  EXPECT_EQ(arena.bytes(), (size_t{6} << 20) + 10);
  EXPECT_EQ(a[(1 << 20) - 1], 'a');
  EXPECT_EQ(b[(5 << 20) - 1], 'b');
}

// Chunks come from one process-wide supply faulted in by a background
// thread; arenas on several threads must still get disjoint, zeroed memory.
TEST(HugePageArenaTest, ArenasOnSeveralThreadsGetDisjointZeroedChunks) {
  constexpr int kThreads = 3, kChunks = 12;
  constexpr ptrdiff_t kPiece = kHugePageBytes / 4;  // four to a chunk
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &errors] {
      HugePageArena arena;
      std::vector<unsigned char*> pieces;
      for (int i = 0; i < kChunks; ++i) {
        auto* p = reinterpret_cast<unsigned char*>(arena.Allocate(kPiece, 64));
        if (std::count(p, p + kPiece, 0) != kPiece) {
          errors[t] = "piece " + std::to_string(i) + " was not zeroed";
          return;
        }
        std::fill_n(p, kPiece, static_cast<unsigned char>(t * kChunks + i));
        pieces.push_back(p);
      }
      for (int i = 0; i < kChunks; ++i) {
        const auto want = static_cast<unsigned char>(t * kChunks + i);
        if (std::count(pieces[i], pieces[i] + kPiece, want) != kPiece) {
          errors[t] = "piece " + std::to_string(i) + " was overwritten";
          return;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

size_t FirstByte(const rocksdb::Slice& k) { return k.size() > 1 ? 1 : 0; }

// Writes 8 MiB through a 1 MiB write buffer; the memtables must flush
// along the way (RocksDB asks the rep for its memory, entries included).
void ExpectFlushesAtBufferSize(rocksdb::MemTableRepFactory* factory) {
  testing::TestDir dir;
  rocksdb::Options o;
  o.create_if_missing = true;
  o.allow_concurrent_memtable_write = false;
  o.disable_auto_compactions = true;
  o.write_buffer_size = 1 << 20;
  o.memtable_factory.reset(factory);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  const std::string value(200, 'v');
  std::mt19937_64 rng(3);
  for (int batch = 0; batch < 400; ++batch) {
    rocksdb::WriteBatch wb;
    for (int i = 0; i < 100; ++i) {
      wb.Put(std::string(1, static_cast<char>('a' + rng() % 16)) + std::to_string(rng()), value);
    }
    ASSERT_TRUE(db->Write(rocksdb::WriteOptions(), &wb).ok());
  }
  // ~4,500 entries of ~230 bytes fill 1 MiB; 40,000 were written.
  uint64_t active = 0, immutable = 0;
  ASSERT_TRUE(db->GetIntProperty("rocksdb.num-entries-active-mem-table", &active));
  EXPECT_LT(active, 10'000u);
  ASSERT_TRUE(db->GetIntProperty("rocksdb.num-immutable-mem-table", &immutable));
  std::string files;  // a string property
  ASSERT_TRUE(db->GetProperty("rocksdb.num-files-at-level0", &files));
  EXPECT_GE(std::stoull(files) + immutable, 4u) << "8 MiB through a 1 MiB buffer";
}

TEST(HugePageArenaTest, HashedVectorMemtableFlushesAtBufferSize) {
  ExpectFlushesAtBufferSize(
      new HashedVectorRepFactory(1 << 14, rocksdb::BytewiseComparator()));
}

TEST(HugePageArenaTest, PrefixBucketMemtableFlushesAtBufferSize) {
  ExpectFlushesAtBufferSize(new PrefixBucketRepFactory(FirstByte));
}

}  // namespace
}  // namespace crawlfront
