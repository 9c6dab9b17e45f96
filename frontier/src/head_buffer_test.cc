// HeadBuffer against a plain sorted vector of heads, through random
// inserts, pops, clears and assigns.

#include "crawlfront/frontier/head_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace crawlfront {
namespace {

struct Owned {
  uint64_t rank, seq;
  std::string value;
  QueueHead view() const { return {rank, seq, value}; }
};

void ExpectSame(const HeadBuffer& b, const std::vector<Owned>& model) {
  ASSERT_EQ(b.size(), model.size());
  ASSERT_EQ(b.empty(), model.empty());
  if (model.empty()) {
    EXPECT_EQ(b.heap_bytes(), 0u) << "an empty buffer keeps memory";
    return;
  }
  uint64_t live = 0;
  for (const Owned& o : model) live += 20 + o.value.size();
  EXPECT_GE(b.heap_bytes(), live);
  for (const auto& [got, want] : {std::pair{b.front(), model.front().view()},
                                  std::pair{b.back(), model.back().view()}}) {
    EXPECT_EQ(got.rank, want.rank);
    EXPECT_EQ(got.seq, want.seq);
    EXPECT_EQ(got.value, want.value);
  }
  EXPECT_EQ(static_cast<const void*>(b.back_address() + 20), b.back().value.data());
}

// Reads every head by popping a copy from the front.
std::vector<Owned> Drain(HeadBuffer b) {
  std::vector<Owned> out;
  for (; !b.empty(); b.PopFront()) {
    const QueueHead h = b.front();
    out.push_back({h.rank, h.seq, std::string(h.value)});
  }
  return out;
}

TEST(HeadBufferTest, MatchesASortedVectorThroughRandomOperations) {
  std::mt19937 rng(7);
  HeadBuffer b;
  std::vector<Owned> model;
  auto by_key = [](const Owned& x, const Owned& y) { return x.view() < y.view(); };
  for (int step = 0; step < 20000; ++step) {
    const int op = rng() % 100;
    if (op < 50) {
      // Few ranks, so equal ranks meet; values of 0..300 bytes.
      Owned o{rng() % 4, rng() % 1000, std::string(rng() % 300, static_cast<char>('a' + step % 26))};
      b.Insert(o.view());
      model.insert(std::upper_bound(model.begin(), model.end(), o, by_key), o);
    } else if (op < 80 && !model.empty()) {
      b.PopFront();
      model.erase(model.begin());
    } else if (op < 95 && !model.empty()) {
      b.PopBack();
      model.pop_back();
    } else if (op < 97) {
      b.Clear();
      model.clear();
    } else {
      std::vector<char> records;  // the model is kept in order
      for (const Owned& o : model) HeadBuffer::AppendRecord(o.view(), &records);
      b.Assign(records, model.size());
      EXPECT_EQ(b.heap_bytes() == 0, records.empty());
    }
    ExpectSame(b, model);
    if (HasFailure()) FAIL() << "at step " << step;
  }
  const std::vector<Owned> all = Drain(b);
  ASSERT_EQ(all.size(), model.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].rank, model[i].rank);
    EXPECT_EQ(all[i].seq, model[i].seq);
    EXPECT_EQ(all[i].value, model[i].value);
  }
}

// A host whose whole queue fits in its heads takes new URLs at the back
// while leases pop the front: the popped space must be reused, not grow.
TEST(HeadBufferTest, PoppedFrontSpaceIsReused) {
  HeadBuffer b;
  const std::string value(80, 'v');
  for (uint64_t seq = 0; seq < 4; ++seq) b.Insert({0, seq, value});
  uint64_t most = 0;
  for (uint64_t seq = 4; seq < 100000; ++seq) {
    b.Insert({0, seq, value});
    b.PopFront();
    most = std::max(most, b.heap_bytes());
  }
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(b.front().seq, 99996u);
  EXPECT_LE(most, 4 * 5 * (20 + value.size()));
}

// The budget counts held bytes: a buffer being leased from must hold
// about what it still has, not what its refill read.
TEST(HeadBufferTest, DrainingGivesMemoryBack) {
  HeadBuffer b;
  std::vector<char> records;
  for (uint64_t seq = 0; seq < 64; ++seq) {
    HeadBuffer::AppendRecord({0, seq, std::string(80, 'v')}, &records);
  }
  b.Assign(records, 64);
  for (uint64_t live = 63; live > 0; --live) {
    b.PopFront();
    const uint64_t bytes = live * 100;
    EXPECT_LE(b.heap_bytes(), std::max(bytes * 4 / 3, bytes + 256) * 5 / 4 + 16) << live;
    EXPECT_EQ(b.front().seq, 64 - live);
  }
}

// Adds grow a host's buffer one head at a time: doubling reallocates it a
// few times, size classes dozens (each a copy of the whole buffer).
TEST(HeadBufferTest, DoublingGrowsInFewReallocations) {
  const std::string value(60, 'v');
  auto reallocations = [&](HeadBuffer::Growth growth) {
    HeadBuffer b;
    int changes = 0;
    uint64_t bytes = 0;
    for (uint64_t seq = 0; seq < 256; ++seq) {
      b.Insert({0, seq, value}, growth);
      if (b.heap_bytes() != bytes) ++changes;
      bytes = b.heap_bytes();
    }
    EXPECT_EQ(b.size(), 256u);
    EXPECT_EQ(b.back().seq, 255u);
    return std::pair{changes, bytes};
  };
  const auto [doubled, doubled_bytes] = reallocations(HeadBuffer::Growth::kDouble);
  const auto [classed, classed_bytes] = reallocations(HeadBuffer::Growth::kSizeClass);
  EXPECT_LE(doubled, 10);
  EXPECT_GE(classed, 20);
  EXPECT_LE(classed_bytes, 256 * 80 * 5 / 4);
  EXPECT_LE(doubled_bytes, 2 * 256 * 80);
}

// Room left at the back by doubling is for adds: popping the front must not
// give it back at once, or a host taking and leasing URLs in turn would
// reallocate on every pop and insert.
TEST(HeadBufferTest, PopsKeepTheRoomGrowthLeft) {
  HeadBuffer b;
  const std::string value(60, 'v');
  uint64_t seq = 0;
  while (b.size() < 65) b.Insert({0, seq++, value}, HeadBuffer::Growth::kDouble);
  const uint64_t grown = b.heap_bytes();
  int changes = 0;
  for (int i = 0; i < 1000; ++i) {
    b.PopFront();
    if (b.heap_bytes() != grown) ++changes;
    b.Insert({0, seq++, value}, HeadBuffer::Growth::kDouble);
    if (b.heap_bytes() != grown) ++changes;
  }
  EXPECT_EQ(changes, 0);
  EXPECT_EQ(b.size(), 65u);
  EXPECT_EQ(b.front().seq, seq - 65);
  // Drained, it gives the memory back all the same.
  while (b.size() > 4) b.PopFront();
  EXPECT_LE(b.heap_bytes(), 1024u);
}

TEST(HeadBufferTest, HeapBytesFollowTheAllocatorsSizeClasses) {
  HeadBuffer b;
  std::vector<char> records;
  HeadBuffer::AppendRecord({1, 2, std::string(80, 'x')}, &records);  // 100 bytes
  b.Assign(records, 1);
  EXPECT_EQ(b.heap_bytes(), 112u);
  HeadBuffer::AppendRecord({1, 3, std::string(80, 'x')}, &records);  // 200 bytes
  b.Assign(records, 2);
  EXPECT_EQ(b.heap_bytes(), 224u);
  HeadBuffer::AppendRecord({1, 4, std::string(80, 'x')}, &records);  // 300 bytes
  b.Assign(records, 3);
  EXPECT_EQ(b.heap_bytes(), 320u);
}

}  // namespace
}  // namespace crawlfront
