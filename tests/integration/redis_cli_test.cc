// redis-cli (the real Redis client) drives crawl-frontier: the Redis basics,
// the RedisBloom-compatible BF.* replies and a FRONTIER.* round trip. This is
// the "any Redis client works" promise of docs/protocol.md, checked with the
// client people will actually use.

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using integ::Lines;
using testutil::Daemon;
using testutil::TempDir;

constexpr const char* kRedisCli = "/usr/bin/redis-cli";

class RedisCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kRedisCli, X_OK) != 0) GTEST_SKIP() << kRedisCli << " not installed";
    std::string err;
    // No politeness delay: the page lease follows the robots lease at once.
    ASSERT_TRUE(testutil::StartFrontier(&frontier_, dir_, dir_ / "data",
                                        {"--set", "crawl.default_delay=0ms"}, &err))
        << err;
  }

  // redis-cli's output lines. Its stdout is a file, so it prints raw
  // replies: one line per scalar, nested arrays flattened.
  std::vector<std::string> Cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kRedisCli, "-h", "127.0.0.1", "-p",
                                     std::to_string(frontier_.Port("resp"))};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = integ::Run(argv, dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> out;
    for (auto& l : Lines(r.out)) {
      if (!l.empty()) out.push_back(l);  // redis-cli adds a blank line after errors
    }
    return out;
  }
  // `INFO section` as name -> value.
  std::map<std::string, std::string> Info(const std::string& section) {
    std::map<std::string, std::string> fields;
    for (const auto& l : Cli({"INFO", section})) {
      auto colon = l.find(':');
      if (colon != std::string::npos) fields[l.substr(0, colon)] = l.substr(colon + 1);
    }
    return fields;
  }

  TempDir dir_;
  Daemon frontier_;
};

using V = std::vector<std::string>;

TEST_F(RedisCliTest, PingAndEcho) {
  EXPECT_EQ(Cli({"PING"}), V{"PONG"});
  EXPECT_EQ(Cli({"PING", "hello there"}), V{"hello there"});
  EXPECT_EQ(Cli({"ECHO", "x y"}), V{"x y"});
}

TEST_F(RedisCliTest, BloomCommandsReplyLikeRedisBloom) {
  const std::string capacity = "1000";
  EXPECT_EQ(Cli({"BF.RESERVE", "bf", "0.01", capacity}), V{"OK"});
  EXPECT_EQ(Cli({"BF.RESERVE", "bf", "0.01", capacity}), V{"ERR item exists"});
  EXPECT_EQ(Cli({"BF.ADD", "bf", "a"}), V{"1"});
  EXPECT_EQ(Cli({"BF.ADD", "bf", "a"}), V{"0"});
  EXPECT_EQ(Cli({"BF.EXISTS", "bf", "a"}), V{"1"});
  EXPECT_EQ(Cli({"BF.EXISTS", "bf", "never-added"}), V{"0"});
  // "a" is already there; "b" and "c" are new.
  EXPECT_EQ(Cli({"BF.MADD", "bf", "a", "b", "c"}), (V{"0", "1", "1"}));
  EXPECT_EQ(Cli({"BF.MEXISTS", "bf", "c", "never-added"}), (V{"1", "0"}));
  const int inserted = 3;  // a, b, c

  V info = Cli({"BF.INFO", "bf"});
  ASSERT_EQ(info.size(), 10u) << ::testing::PrintToString(info);
  EXPECT_EQ(info[0], "Capacity");
  EXPECT_EQ(info[1], capacity);
  EXPECT_EQ(info[2], "Size");
  EXPECT_GT(std::stoll(info[3]), 0);
  EXPECT_EQ(info[4], "Number of filters");
  EXPECT_EQ(info[5], "1");
  EXPECT_EQ(info[6], "Number of items inserted");
  EXPECT_EQ(info[7], std::to_string(inserted));
  EXPECT_EQ(info[8], "Expansion rate");
  EXPECT_EQ(info[9], "2");  // RedisBloom's default expansion
  EXPECT_EQ(Cli({"BF.INFO", "bf", "ITEMS"}), V{std::to_string(inserted)});
  EXPECT_EQ(Cli({"BF.CARD", "bf"}), V{std::to_string(inserted)});
}

TEST_F(RedisCliTest, FrontierAddLeaseDoneRoundTrip) {
  const std::string url = "http://a.test/x";
  // The duplicate inside one batch is already "seen".
  EXPECT_EQ(Cli({"FRONTIER.ADD", url, url}), (V{"1", "0"}));
  EXPECT_EQ(Cli({"FRONTIER.SEEN", url}), V{"1"});
  EXPECT_EQ(Cli({"FRONTIER.SEEN", "http://a.test/never"}), V{"0"});

  // respect_robots is on: the host's robots.txt is leased before its pages.
  // A lease is 6 flattened lines: id, url, depth, attempt, kind, crawl.
  V robots = Cli({"FRONTIER.LEASE", "w1", "1", "BLOCK", "5000"});
  ASSERT_EQ(robots.size(), 6u) << ::testing::PrintToString(robots);
  EXPECT_EQ(robots[1], "http://a.test/robots.txt");
  EXPECT_EQ(robots[3], "1");
  EXPECT_EQ(robots[4], "robots");
  EXPECT_EQ(robots[5], "default");
  EXPECT_EQ(Cli({"FRONTIER.DONE", "w1", robots[0], "robots", "STATUS", "404"}), V{"1"});

  V page = Cli({"FRONTIER.LEASE", "w1", "1", "BLOCK", "5000"});
  ASSERT_EQ(page.size(), 6u) << ::testing::PrintToString(page);
  EXPECT_EQ(page[1], url);
  EXPECT_EQ(page[2], "0");
  EXPECT_EQ(page[3], "1");
  EXPECT_EQ(page[4], "page");
  EXPECT_EQ(Cli({"FRONTIER.DONE", "w1", page[0], "fetched", "STATUS", "200"}), V{"1"});
  // A second report of the same lease is ignored, not an error.
  EXPECT_EQ(Cli({"FRONTIER.DONE", "w1", page[0], "fetched", "STATUS", "200"}), V{"0"});
  // Nothing left: an empty array prints nothing.
  EXPECT_EQ(Cli({"FRONTIER.LEASE", "w1", "1"}), V{});

  std::map<std::string, std::string> info = Info("crawl");
  EXPECT_EQ(info["urls_seen"], "1");
  EXPECT_EQ(info["urls_queued"], "0");
  EXPECT_EQ(info["urls_inflight"], "0");
  EXPECT_EQ(info["urls_done"], "1");
  EXPECT_EQ(info["fetched_2xx"], "1");
  EXPECT_EQ(info["finished"], "1");
}

// The default durability fsyncs the WAL every second after writes, and
// `INFO persistence` says so.
TEST_F(RedisCliTest, InfoPersistenceShowsTheWalSyncs) {
  auto info = [&] { return Info("persistence"); };
  EXPECT_EQ(info()["durability"], "everysec");
  EXPECT_EQ(Cli({"FRONTIER.ADD", "http://127.0.0.1:1/a"}), V{"1"});
  std::map<std::string, std::string> after;
  for (int i = 0; i < 100; ++i) {  // the first sync comes within a second
    after = info();
    if (after["wal_syncs"] != "0") break;
    usleep(100'000);
  }
  EXPECT_NE(after["wal_syncs"], "0");
  EXPECT_EQ(after["wal_sync_errors"], "0");
  EXPECT_EQ(after["wal_sync_failed"], "0");
  // The add's batch went through the writer thread and was acknowledged.
  EXPECT_NE(after["batches_written"], "0");
  EXPECT_EQ(after["write_queue"], "0");
  // RocksDB's background work, shown as Redis shows its AOF rewrite.
  EXPECT_TRUE(after["flush_in_progress"] == "0" || after["flush_in_progress"] == "1");
  EXPECT_TRUE(after["compaction_in_progress"] == "0" || after["compaction_in_progress"] == "1");
  EXPECT_FALSE(after["immutable_memtables"].empty());
}

// `INFO memory`: resident memory, the queue heads added URLs put in RAM, and
// the refills that read them back after a restart.
TEST_F(RedisCliTest, InfoMemoryShowsResidentBytesAndQueueHeads) {
  auto info = [&] { return Info("memory"); };
  auto before = info();
  EXPECT_GT(std::stoull(before["used_memory_rss"]), uint64_t{1} << 20);
  EXPECT_EQ(before["queue_heads"], "0");
  EXPECT_EQ(before["queue_heads_bytes"], "0");
  EXPECT_EQ(before["queue_heads_max_bytes"], std::to_string(uint64_t{256} << 20));
  EXPECT_EQ(before["queue_head_refills"], "0");
  EXPECT_EQ(before["queue_heads_refilled"], "0");
  EXPECT_EQ(Cli({"FRONTIER.ADD", "http://127.0.0.1:1/a", "http://127.0.0.1:1/b",
                 "http://127.0.0.2:1/c"}),
            (V{"1", "1", "1"}));
  auto after = info();
  EXPECT_EQ(after["queue_heads"], "3");
  EXPECT_EQ(after["queue_heads_hosts"], "2");
  EXPECT_GT(std::stoull(after["queue_heads_bytes"]), 3 * sizeof(std::string));
  EXPECT_EQ(after["queue_head_refills"], "0") << "an add places heads without a read";
  // Four more for the first host: past head_buffer (4), but its buffer holds
  // its whole queue, so within the budget (256 MiB) it keeps all six and no
  // lease reads RocksDB.
  EXPECT_EQ(Cli({"FRONTIER.ADD", "http://127.0.0.1:1/d", "http://127.0.0.1:1/e",
                 "http://127.0.0.1:1/f", "http://127.0.0.1:1/g"}),
            (V{"1", "1", "1", "1"}));
  EXPECT_EQ(info()["queue_heads"], "7");
  // A restart leaves the heads on disk: the leases read them back.
  frontier_.Stop();
  std::string err;
  ASSERT_TRUE(testutil::StartFrontier(&frontier_, dir_, dir_ / "data",
                                      {"--set", "crawl.default_delay=0ms"}, &err))
      << err;
  EXPECT_EQ(info()["queue_heads"], "0");
  for (int i = 0; i < 9; ++i) {  // two robots.txt leases, seven pages
    V l = Cli({"FRONTIER.LEASE", "w1", "1", "BLOCK", "5000"});
    ASSERT_EQ(l.size(), 6u) << i << ::testing::PrintToString(l);
    V done = l[4] == "robots" ? V{"FRONTIER.DONE", "w1", l[0], "robots", "STATUS", "404"}
                              : V{"FRONTIER.DONE", "w1", l[0], "fetched", "STATUS", "200"};
    EXPECT_EQ(Cli(done), V{"1"});
  }
  auto drained = info();
  EXPECT_GE(std::stoull(drained["queue_head_refills"]), 2u) << "one per host at least";
  EXPECT_EQ(drained["queue_heads_refilled"], "7") << "each queued URL read back once";
  EXPECT_EQ(drained["queue_heads"], "0");
}

TEST_F(RedisCliTest, ErrorsAreRedisStyle) {
  // Redis 7's text, trailing blank included.
  EXPECT_EQ(Cli({"NOPE", "a", "b"}),
            V{"ERR unknown command 'NOPE', with args beginning with: 'a' 'b' "});
  EXPECT_EQ(Cli({"FRONTIER.ADD"}),
            V{"ERR wrong number of arguments for 'frontier.add' command"});
}

}  // namespace
}  // namespace crawlfront
