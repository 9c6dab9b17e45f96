#include "crawlfront/frontier/host_state.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace crawlfront {
namespace {

TEST(HostCodecTest, RecordsRoundTripAndTruncationIsCorruption) {
  QueueItem item{"http://a.test/x", "http://a.test/", 3, 2, -7, 42, 1234};
  LeaseRecord lr{LeaseKind::kRobots, "c2", "a.test", "worker-1", 99, item};
  std::string enc = EncodeStoredLease(StoredLease{lr, -1, {}});
  StoredLease stored;
  ASSERT_TRUE(DecodeStoredLease(enc, &stored).ok());
  const LeaseRecord& back = stored.rec;
  EXPECT_EQ(back.kind, lr.kind);
  EXPECT_EQ(back.crawl, "c2");
  EXPECT_EQ(back.worker, "worker-1");
  EXPECT_EQ(back.item.url, item.url);
  EXPECT_EQ(back.item.priority, -7);
  EXPECT_EQ(back.item.due_ms, 1234);
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    EXPECT_FALSE(DecodeStoredLease(enc.substr(0, cut), &stored).ok()) << cut;
  }
  HostRecord h;
  h.delay_override_ms = 5;
  h.budget = -1;
  h.queued = 7;
  h.ready_at_ms = 1'700'000'000'000;
  h.seq_mark = 123'456;
  HostRecord hb;
  ASSERT_TRUE(DecodeHostRecord(EncodeHostRecord(h), &hb).ok());
  EXPECT_EQ(hb.delay_override_ms, 5);
  EXPECT_EQ(hb.budget, -1);
  EXPECT_EQ(hb.queued, 7u);
  EXPECT_EQ(hb.ready_at_ms, h.ready_at_ms);
  EXPECT_EQ(hb.seq_mark, 123'456u);
  // A record of an older version (ten values, no mark) reads with mark 0.
  const std::vector<uint64_t> ten = {5, 0, static_cast<uint64_t>(int64_t{-1}), 3, 7, 0, 1,
                                     0, 0, 2};
  HostRecord old;
  ASSERT_TRUE(DecodeHostRecord(EncodeU64s(ten), &old).ok());
  EXPECT_EQ(old.queued, 7u);
  EXPECT_EQ(old.leased, 2u);
  EXPECT_EQ(old.seq_mark, 0u);
  EXPECT_FALSE(DecodeHostRecord("xyz", &hb).ok());
  RobotsRecord rr{RobotsState::kError, 77, "rules", 3}, rb;
  ASSERT_TRUE(DecodeRobotsRecord(EncodeRobotsRecord(rr), &rb).ok());
  EXPECT_EQ(rb.state, RobotsState::kError);
  EXPECT_EQ(rb.rules, "rules");
  EXPECT_EQ(rb.errors, 3u);
  // An older version's record has no failure count: 0.
  const std::string encoded = EncodeRobotsRecord(rr);
  ASSERT_TRUE(DecodeRobotsRecord(encoded.substr(0, encoded.size() - 4), &rb).ok());
  EXPECT_EQ(rb.errors, 0u);
  EXPECT_EQ(rb.expires_ms, 77);
  EXPECT_FALSE(DecodeRobotsRecord(encoded.substr(0, encoded.size() - 2), &rb).ok());
  EXPECT_FALSE(DecodeRobotsRecord(encoded + "x", &rb).ok());
  EXPECT_FALSE(DecodeRobotsRecord(std::string("\x09", 1) + EncodeRobotsRecord(rr).substr(1), &rb).ok());
}

// A lease kept by a clean close carries its time left and queue key; a
// record of an older version reads with left_ms -1.
TEST(HostCodecTest, KeptLeaseRecordsRoundTripAndOldOnesReadAsNotKept) {
  QueueItem item{"http://a.test/x", "", 1, 3, 2, 9, 0};
  LeaseRecord rec{LeaseKind::kPage, "default", "a.test", "w1", 1'700'000'000'000, item};
  const StoredLease kept{rec, 12'345, std::string("\0\x01key", 6)};
  const std::string enc = EncodeStoredLease(kept);
  StoredLease back;
  ASSERT_TRUE(DecodeStoredLease(enc, &back).ok());
  EXPECT_EQ(back.rec.kind, LeaseKind::kPage);
  EXPECT_EQ(back.left_ms, 12'345);
  EXPECT_EQ(back.queue_key, kept.queue_key);
  EXPECT_EQ(back.rec.start_ms, rec.start_ms);
  EXPECT_EQ(back.rec.item.attempt, 3u);
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    EXPECT_FALSE(DecodeStoredLease(enc.substr(0, cut), &back).ok()) << cut;
  }
  ASSERT_TRUE(DecodeStoredLease(EncodeStoredLease(StoredLease{rec, -1, {}}), &back).ok());
  EXPECT_EQ(back.left_ms, -1);
  EXPECT_TRUE(back.queue_key.empty());
  EXPECT_EQ(back.rec.item.url, item.url);
  std::string bad_kind = enc;
  bad_kind[0] = static_cast<char>(0x82);
  EXPECT_FALSE(DecodeStoredLease(bad_kind, &back).ok());
}

// A RAM head orders as its RocksDB key does, and the key comes back whole
// from the head's rank and seq.
TEST(HostCodecTest, HeadsOrderAsTheirKeysAndRebuildThem) {
  const std::string p = HostPrefix(3, "crawl", "a.test");
  std::mt19937 rng(11);
  const int32_t priorities[] = {INT32_MIN, -5, 0, 1, 7, INT32_MAX};
  std::vector<std::pair<std::string, QueueHead>> all;
  for (int i = 0; i < 200; ++i) {
    QueueItem item;
    item.priority = priorities[rng() % 6];
    item.depth = rng() % 2 ? rng() % 4 : UINT32_MAX - rng() % 2;
    item.seq = rng() % 3 ? rng() % 100 : UINT64_MAX - rng() % 3;
    const std::string key = ReadyKey(p, item);
    QueueHead head{HeadRank(item), item.seq, {}};
    EXPECT_EQ(ReadyKeyOf(p, head.rank, head.seq), key);
    uint64_t rank = 0, seq = 0;
    ASSERT_TRUE(ParseReadyKey(key, p.size(), &rank, &seq));
    EXPECT_EQ(rank, head.rank);
    EXPECT_EQ(seq, head.seq);
    all.emplace_back(key, head);
  }
  for (const auto& [ka, ha] : all) {
    for (const auto& [kb, hb] : all) EXPECT_EQ(ka < kb, ha < hb) << ka.size();
  }
  uint64_t rank, seq;
  EXPECT_FALSE(ParseReadyKey(all[0].first.substr(0, all[0].first.size() - 1), p.size(), &rank,
                             &seq));
  QueueItem due;
  due.due_ms = 5;
  EXPECT_FALSE(ParseReadyKey(ScheduledKey(p, due), p.size(), &rank, &seq));
}

TEST(HostCodecTest, QueueKeysSortByPriorityDepthArrival) {
  std::string p = HostPrefix(3, "default", "a.test");
  auto key = [&](int32_t prio, uint32_t depth, uint64_t seq) {
    QueueItem i;
    i.priority = prio;
    i.depth = depth;
    i.seq = seq;
    return ReadyKey(p, i);
  };
  EXPECT_LT(key(5, 9, 9), key(0, 0, 0));
  EXPECT_LT(key(0, 0, 0), key(-5, 0, 0));
  EXPECT_LT(key(INT32_MAX, 0, 0), key(INT32_MIN, 0, 0));
  EXPECT_LT(key(0, 1, 9), key(0, 2, 0));
  EXPECT_LT(key(0, 1, 1), key(0, 1, 2));
  uint16_t part;
  std::string crawl, host;
  size_t len;
  ASSERT_TRUE(ParseHostPrefix(key(0, 0, 0), &part, &crawl, &host, &len));
  EXPECT_EQ(part, 3);
  EXPECT_EQ(crawl, "default");
  EXPECT_EQ(host, "a.test");
  EXPECT_EQ(len, p.size());
  EXPECT_FALSE(ParseHostPrefix(p.substr(0, 5), &part, &crawl, &host, &len));
}

TEST(HostCodecTest, RecrawlRefsRoundTripAndNameTheEntrysKeys) {
  QueueItem item;
  item.url = "http://a.test/x";
  item.seq = 77;
  item.due_ms = 1'700'000'123'456;
  item.priority = -3;
  item.depth = 4;
  const std::string prefix = HostPrefix(5, "c1", "a.test");
  EXPECT_EQ(RecrawlKey(prefix, item.url), prefix + item.url);
  const std::string bytes = EncodeRecrawlRef(item);
  QueueItem ref;
  ASSERT_TRUE(DecodeRecrawlRef(bytes, &ref));
  EXPECT_EQ(ReadyKey(prefix, ref), ReadyKey(prefix, item));
  EXPECT_EQ(ScheduledKey(prefix, ref), ScheduledKey(prefix, item));
  EXPECT_FALSE(DecodeRecrawlRef(bytes.substr(0, bytes.size() - 1), &ref));
  EXPECT_FALSE(DecodeRecrawlRef(bytes + "x", &ref));
}

}  // namespace
}  // namespace crawlfront
