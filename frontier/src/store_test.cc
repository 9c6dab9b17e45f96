#include "crawlfront/frontier/store.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

TEST(StoreTest, KeyEncodingSortsNumerically) {
  std::string a, b;
  AppendBe64(&a, 255);
  AppendBe64(&b, 256);
  EXPECT_LT(a, b);
  EXPECT_EQ(ReadBe64(b.data()), 256u);
  std::string c;
  AppendBe16(&c, 0xabcd);
  AppendBe32(&c, 0x01020304);
  EXPECT_EQ(ReadBe16(c.data()), 0xabcd);
  EXPECT_EQ(ReadBe32(c.data() + 2), 0x01020304u);
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff\xff", 2)), "");
}

TEST(StoreTest, MetaRoundTripAndCheckpoint) {
  auto dir = std::filesystem::temp_directory_path() / ("store_test." + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  {
    auto store = Store::Open(dir.string(), StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ((*store)->GetMeta("x").status().code(), Status::Code::kNotFound);
    ASSERT_TRUE((*store)->PutMeta("x", "42").ok());
    EXPECT_EQ((*store)->GetMeta("x").value(), "42");
    ASSERT_TRUE((*store)->Checkpoint((dir / "ckpt").string()).ok());
    EXPECT_FALSE((*store)->Checkpoint((dir / "ckpt").string()).ok()) << "target exists";
  }
  auto copy = Store::Open((dir / "ckpt").string(), StoreOptions{});
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ((*copy)->GetMeta("x").value(), "42");
  copy->reset();
  std::filesystem::remove_all(dir);
}

TEST(StoreTest, OpenFailsClearlyOnUnwritableDir) {
  auto r = Store::Open("/proc/crawlfront-cannot-exist", StoreOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.status().message().empty());
}

}  // namespace
}  // namespace crawlfront
