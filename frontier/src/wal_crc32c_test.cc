#include "wal_crc32c.h"

#include <dlfcn.h>

#include <random>
#include <string>

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include "crawlfront/frontier/store.h"
#include "test_dir_util.h"

namespace rocksdb::crc32c {
uint32_t Extend(uint32_t crc, const char* buf, size_t size);
}

namespace crawlfront {
namespace {

TEST(WalCrc32cTest, RocksDbCallsResolveToTheReplacement) {
  void* resolved = dlsym(RTLD_DEFAULT, "_ZN7rocksdb6crc32c6ExtendEjPKcm");
  ASSERT_NE(resolved, nullptr);
  EXPECT_EQ(resolved, reinterpret_cast<void*>(&rocksdb::crc32c::Extend))
      << "the process's crc32c::Extend is not this binary's";
  ASSERT_NE(LibraryCrc32cExtend(), nullptr) << "RocksDB's own is not found";
  EXPECT_NE(reinterpret_cast<void*>(LibraryCrc32cExtend()), resolved);
}

// A write on this thread checksums its WAL record here, not in the library.
TEST(WalCrc32cTest, RocksDbsWalWritesUseTheReplacement) {
  testing::TestDir dir;
  auto store = Store::Open(dir.path(), StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const uint64_t before = WalCrc32cCallsOnThisThread();
  ASSERT_TRUE((*store)->PutMeta("x", std::string(1000, 'y')).ok());
  EXPECT_GT(WalCrc32cCallsOnThisThread(), before);
}

TEST(WalCrc32cTest, KnownValues) {
  // CRC-32C check value (RFC 3720 B.4 and the usual "123456789").
  EXPECT_EQ(rocksdb::crc32c::Extend(0, "123456789", 9), 0xe3069283u);
  const std::string zeros(32, '\0'), ones(32, '\xff');
  EXPECT_EQ(rocksdb::crc32c::Extend(0, zeros.data(), zeros.size()), 0x8a9136aau);
  EXPECT_EQ(rocksdb::crc32c::Extend(0, ones.data(), ones.size()), 0x62a8ab43u);
  EXPECT_EQ(rocksdb::crc32c::Extend(0, "", 0), 0u);
}

// Every length 0-300 at every alignment 0-7, chained from random CRCs.
TEST(WalCrc32cTest, AgreesWithRocksDbsOwn) {
  const Crc32cExtendFn own = LibraryCrc32cExtend();
  ASSERT_NE(own, nullptr);
  std::mt19937_64 rng(7);
  std::string bytes(400, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  for (size_t align = 0; align < 8; ++align) {
    for (size_t n = 0; n <= 300; ++n) {
      const uint32_t init = static_cast<uint32_t>(rng());
      ASSERT_EQ(rocksdb::crc32c::Extend(init, bytes.data() + align, n),
                own(init, bytes.data() + align, n))
          << "length " << n << ", alignment " << align;
    }
  }
}

}  // namespace
}  // namespace crawlfront
