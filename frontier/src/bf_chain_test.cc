#include "bf_chain.h"

#include <gtest/gtest.h>

#include <string>

namespace crawlfront {
namespace {

BfChain MakeChain(BfParams p) {
  auto c = BfChain::Create(p, BlockedBloom::kDefaultMaxBytes);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

// Adds keys [from, to); grows when asked. Returns the number added.
uint64_t AddRange(BfChain& c, uint64_t from, uint64_t to) {
  uint64_t added = 0;
  for (uint64_t i = from; i < to; ++i) {
    uint64_t h = BloomHash("item-" + std::to_string(i));
    BfStep s = c.Add(h);
    if (s == BfStep::kNeedLink) {
      EXPECT_TRUE(c.AddLink().ok());
      s = c.Add(h);
    }
    if (s == BfStep::kAdded) ++added;
  }
  return added;
}

TEST(BfChainTest, ScalesWithoutFalseNegatives) {
  BfChain c = MakeChain(BfParams{0.01, 100, 2, false});
  uint64_t added = AddRange(c, 0, 1000);
  EXPECT_EQ(c.items(), added);
  EXPECT_GT(added, 980u);  // at most a few false "exists" at 1%
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(c.Contains(BloomHash("item-" + std::to_string(i)))) << i;
  }
  // 100 + 200 + 400 + 800 >= 1000: four sub-filters, each twice the last
  // and with half its error rate (the first at half the target).
  ASSERT_EQ(c.link_count(), 4u);
  for (size_t i = 0; i < c.link_count(); ++i) {
    EXPECT_EQ(c.link(i).capacity, 100u << i);
    EXPECT_DOUBLE_EQ(c.link(i).error, 0.005 / (1 << i));
    if (i + 1 < c.link_count()) {
      EXPECT_EQ(c.link(i).items, c.link(i).capacity);
    }
  }
  EXPECT_EQ(c.capacity(), 1500u);
}

TEST(BfChainTest, NonScalingStopsAtCapacity) {
  BfChain c = MakeChain(BfParams{0.01, 10, 2, true});
  EXPECT_DOUBLE_EQ(c.link(0).error, 0.01);  // no tightening without scaling
  int full_at = -1;
  for (int i = 0; i < 100 && full_at < 0; ++i) {
    if (c.Add(BloomHash("k" + std::to_string(i))) == BfStep::kFull) full_at = i;
  }
  ASSERT_GE(full_at, 10);
  EXPECT_EQ(c.items(), 10u);
  EXPECT_EQ(c.link_count(), 1u);
  // A present item still answers "exists", not "full".
  EXPECT_EQ(c.Add(BloomHash("k0")), BfStep::kExists);
}

TEST(BfChainTest, HeaderAndRangeRoundTripIsExact) {
  BfChain a = MakeChain(BfParams{0.001, 50, 3, false});
  AddRange(a, 0, 400);
  auto b = BfChain::FromHeader(a.EncodeHeader(), BlockedBloom::kDefaultMaxBytes);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::string chunk;
  for (uint64_t off = 0; off < a.bytes(); off += chunk.size()) {
    a.ReadRange(off, 1000, &chunk);
    ASSERT_FALSE(chunk.empty());
    ASSERT_TRUE(b->WriteRange(off, chunk).ok());
  }
  EXPECT_EQ(b->EncodeHeader(), a.EncodeHeader());
  EXPECT_EQ(b->link_count(), a.link_count());
  for (uint64_t i = 0; i < 2000; ++i) {
    uint64_t h = BloomHash("item-" + std::to_string(i));
    ASSERT_EQ(b->Contains(h), a.Contains(h)) << i;
  }
  a.ReadRange(a.bytes(), 1000, &chunk);
  EXPECT_TRUE(chunk.empty());
  EXPECT_FALSE(b->WriteRange(a.bytes(), "x").ok());
}

TEST(BfChainTest, RejectsBadParamsAndHeaders) {
  EXPECT_FALSE(BfChain::Create(BfParams{0, 100, 2, false}, 1 << 20).ok());
  EXPECT_FALSE(BfChain::Create(BfParams{1, 100, 2, false}, 1 << 20).ok());
  EXPECT_FALSE(BfChain::Create(BfParams{0.01, 0, 2, false}, 1 << 20).ok());
  EXPECT_FALSE(BfChain::Create(BfParams{0.01, 100, 0, false}, 1 << 20).ok());
  EXPECT_FALSE(BfChain::Create(BfParams{0.001, 100'000'000, 2, false}, 1 << 20).ok());

  BfChain c = MakeChain(BfParams{});
  AddRange(c, 0, 300);
  const std::string good = c.EncodeHeader();
  struct Case {
    const char* what;
    std::string header;
  };
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  std::string bad_items = good;
  bad_items[4 + 1 + 1 + 4 + 8 + 8 + 7] ^= 1;  // total items != sum of links
  std::string bad_link = good;
  bad_link[good.size() - 1] ^= 1;  // a sub-filter header's checksum
  const Case cases[] = {{"empty", ""},
                        {"truncated", good.substr(0, good.size() - 1)},
                        {"too long", good + "x"},
                        {"bad magic", bad_magic},
                        {"bad items", bad_items},
                        {"bad link", bad_link}};
  for (const Case& k : cases) {
    auto r = BfChain::FromHeader(k.header, BlockedBloom::kDefaultMaxBytes);
    EXPECT_FALSE(r.ok()) << k.what;
  }
  EXPECT_FALSE(BfChain::FromHeader(good, 64).ok()) << "over max bytes";
}

}  // namespace
}  // namespace crawlfront
