// FrontierNode in-process: admin commands run on the admin thread, so a slow
// one leaves the other connections of its io thread served.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "crawlfront/common/resp_client.h"
#include "crawlfront/frontier/frontier_node.h"
#include "crawlfront/frontier/frontier_options.h"

namespace crawlfront {
namespace {

namespace fs = std::filesystem;

class FrontierNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("frontier_node_test." + std::to_string(getpid()));
    fs::remove_all(dir_);
    FrontierOptions o = FrontierConfigTable().Defaults();
    o.listen = "127.0.0.1:0";
    o.http = "";
    o.threads = 1;  // every connection on the same io thread
    o.data_dir = (dir_ / "data").string();
    o.snapshot_interval = std::chrono::milliseconds(0);
    auto node = FrontierNode::Open(o);
    ASSERT_TRUE(node.ok()) << node.status().ToString();
    node_ = std::move(node).value();
    ASSERT_TRUE(node_->Start().ok());
  }
  void TearDown() override {
    node_.reset();
    fs::remove_all(dir_);
  }
  std::unique_ptr<RespClient> Connect() {
    auto c = RespClient::Connect("127.0.0.1", node_->resp_port(), std::chrono::seconds(30));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  fs::path dir_;
  std::unique_ptr<FrontierNode> node_;
};

TEST_F(FrontierNodeTest, SlowAdminCommandDoesNotHoldUpOtherConnections) {
  // Occupy the admin thread until released: the snapshot queues behind it.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_TRUE(node_->RunAdmin([released] { released.wait(); }));

  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  std::atomic<bool> a_replied{false};
  Result<RespValue> a_reply = Status::Unavailable("no reply");
  std::thread snapshot([&] {
    a_reply = a->Command({"FRONTIER.SNAPSHOT"});
    a_replied = true;
  });
  // Same io thread, another connection: served while the snapshot waits.
  for (int i = 0; i < 20; ++i) {
    auto pong = b->Command({"PING"});
    ASSERT_TRUE(pong.ok()) << pong.status().ToString();
    EXPECT_EQ(pong->str, "PONG");
  }
  // Time for a snapshot run in place to reply (the admin thread's cannot).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(a_replied.load()) << "the snapshot did not wait for the admin thread";
  release.set_value();
  snapshot.join();
  ASSERT_TRUE(a_reply.ok()) << a_reply.status().ToString();
  EXPECT_EQ(a_reply->str, "OK") << a_reply->ToDebugString();
  // The connection goes on in order after its deferred reply.
  auto after = a->Pipeline({{"FRONTIER.SNAPSHOT"}, {"ECHO", "next"}});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)[0].str, "OK");
  EXPECT_EQ((*after)[1].str, "next");
}

// A call longer than CrawlCore::kAddChunk URLs runs in pieces, between
// which the io thread serves its other connections (resp_server_test shows
// that part); its reply is still one, in its place in the pipeline.
TEST_F(FrontierNodeTest, LongAddsAndDonesAreAnsweredAsOne) {
  auto a = Connect();
  ASSERT_TRUE(a);
  const size_t n = 2 * CrawlCore::kAddChunk + 300;
  std::vector<std::string> add{"FRONTIER.ADD"};
  std::vector<std::string> want;  // "1", "0" or "rejected"
  std::set<std::string> added;
  for (size_t i = 0; i < n; ++i) {
    // The last 200 repeat URLs of the first piece.
    std::string url = "http://a.test/p" + std::to_string(i < n - 200 ? i : i - (n - 200));
    if (i % 500 == 499) url = "http://[bad/" + std::to_string(i);
    add.push_back(url);
    if (i % 500 == 499) {
      want.push_back("rejected");
    } else {
      want.push_back(added.insert(url).second ? "1" : "0");
    }
  }
  auto replies = a->Pipeline({add, {"ECHO", "next"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), 2u);
  ASSERT_EQ((*replies)[0].elements.size(), n) << (*replies)[0].ToDebugString().substr(0, 200);
  for (size_t i = 0; i < n; ++i) {
    const RespValue& v = (*replies)[0].elements[i];
    std::string got = v.type == RespType::kInteger ? std::to_string(v.integer)
                                                           : v.str.substr(0, 8);
    ASSERT_EQ(got, want[i]) << "URL " << i << ": " << v.ToDebugString();
  }
  EXPECT_EQ((*replies)[1].str, "next");

  // A page whose links are more than a piece: the robots lease first.
  auto lease = a->Command({"FRONTIER.LEASE", "w", "1", "BLOCK", "10000"});
  ASSERT_TRUE(lease.ok() && lease->elements.size() == 1) << lease->ToDebugString();
  auto robots = a->Command({"FRONTIER.DONE", "w", lease->elements[0].elements[0].str, "robots",
                            "STATUS", "404"});
  ASSERT_TRUE(robots.ok() && robots->integer == 1) << robots->ToDebugString();
  lease = a->Command({"FRONTIER.LEASE", "w", "1", "BLOCK", "10000"});
  ASSERT_TRUE(lease.ok() && lease->elements.size() == 1) << lease->ToDebugString();
  std::vector<std::string> done{"FRONTIER.DONE", "w", lease->elements[0].elements[0].str,
                                "fetched", "STATUS", "200", "LINKS"};
  const size_t links = CrawlCore::kAddChunk + 500;
  for (size_t i = 0; i < links; ++i) done.push_back("http://b.test/l" + std::to_string(i));
  done.push_back("http://a.test/p1");  // seen before
  replies = a->Pipeline({done, {"ECHO", "after done"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  EXPECT_EQ((*replies)[0].integer, 1) << (*replies)[0].ToDebugString();
  EXPECT_EQ((*replies)[1].str, "after done");
  for (size_t i : {size_t{0}, CrawlCore::kAddChunk, links - 1}) {
    auto seen = a->Command({"FRONTIER.SEEN", "http://b.test/l" + std::to_string(i)});
    ASSERT_TRUE(seen.ok());
    EXPECT_EQ(seen->integer, 1) << i;
  }
  EXPECT_EQ(node_->crawl().Stats("default").urls_seen, static_cast<int64_t>(added.size() + links));
}

// A client's reply timeout can be raised after connecting (crawlctl does
// for snapshots); one that gives up leaves a deferred reply with no reader.
TEST_F(FrontierNodeTest, ClientWaitsForASlowAdminReplyOnlyWithALongerTimeout) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_TRUE(node_->RunAdmin([released] { released.wait(); }));
  auto connect = [&] {
    auto c = RespClient::Connect("127.0.0.1", node_->resp_port(),
                                 std::chrono::milliseconds(200));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  };
  auto impatient = connect();
  auto patient = connect();
  ASSERT_TRUE(impatient && patient);
  auto gave_up = impatient->Command({"FRONTIER.SNAPSHOT"});
  EXPECT_FALSE(gave_up.ok()) << "the admin thread is still blocked";
  patient->set_timeout(std::chrono::seconds(60));
  Result<RespValue> waited = Status::Unavailable("no reply");
  std::thread t([&] { waited = patient->Command({"FRONTIER.SNAPSHOT"}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // past 200 ms
  release.set_value();
  t.join();
  ASSERT_TRUE(waited.ok()) << waited.status().ToString();
  EXPECT_EQ(waited->str, "OK");
  auto other = Connect();
  ASSERT_TRUE(other);
  auto pong = other->Command({"PING"});
  ASSERT_TRUE(pong.ok());
  EXPECT_EQ(pong->str, "PONG");
}

// The rate history's sample reads the same totals as the full snapshot.
TEST_F(FrontierNodeTest, SampledTotalsAreTheSnapshots) {
  auto a = Connect();
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->Command({"FRONTIER.ADD", "http://s.test/1", "http://s.test/2"}).ok());
  auto lease = a->Command({"FRONTIER.LEASE", "w", "1", "BLOCK", "10000"});  // robots.txt
  ASSERT_TRUE(lease.ok() && lease->elements.size() == 1) << lease->ToDebugString();
  ASSERT_EQ(a->Command({"FRONTIER.DONE", "w", lease->elements[0].elements[0].str, "robots",
                        "STATUS", "404"})->integer, 1);
  for (const char* outcome : {"fetched", "failed"}) {
    lease = a->Command({"FRONTIER.LEASE", "w", "1", "BLOCK", "10000"});
    ASSERT_TRUE(lease.ok() && lease->elements.size() == 1) << lease->ToDebugString();
    ASSERT_EQ(a->Command({"FRONTIER.DONE", "w", lease->elements[0].elements[0].str, outcome,
                          "STATUS", "200"})->integer, 1);
  }
  const StatusSnapshot full = node_->BuildSnapshot();
  const StatusSnapshot sampled = node_->SampleTotals();
  EXPECT_EQ(full.totals.urls_seen, 2u);
  EXPECT_EQ(full.totals.urls_fetched, 1u);
  EXPECT_EQ(full.totals.urls_failed, 1u);
  EXPECT_EQ(sampled.totals.urls_seen, full.totals.urls_seen);
  EXPECT_EQ(sampled.totals.urls_fetched, full.totals.urls_fetched);
  EXPECT_EQ(sampled.totals.urls_failed, full.totals.urls_failed);
}

// The status page's crawl rows (and crawlfront_crawl_paused) said
// "running" for a paused crawl until ListCrawls carried the state.
TEST_F(FrontierNodeTest, StatusSnapshotShowsWhichCrawlsArePaused) {
  auto c = Connect();
  ASSERT_TRUE(c);
  for (const char* crawl : {"on", "off"}) {
    auto r = c->Command({"FRONTIER.ADDX", "CRAWL", crawl, "URLS", "http://a.test/"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  auto paused = c->Command({"FRONTIER.PAUSE", "CRAWL", "off"});
  ASSERT_TRUE(paused.ok() && paused->str == "OK");
  StatusSnapshot s = node_->BuildSnapshot();
  ASSERT_EQ(s.crawls.size(), 2u);
  EXPECT_EQ(s.crawls[0].id, "off");
  EXPECT_TRUE(s.crawls[0].paused);
  EXPECT_EQ(s.crawls[1].id, "on");
  EXPECT_FALSE(s.crawls[1].paused);
  EXPECT_EQ(s.crawls[1].urls_queued, 1u);
}

// Each crawl's row has its own leases, hosts, ready hosts and finished
// state, as FRONTIER.CRAWLS counts them.
TEST_F(FrontierNodeTest, StatusSnapshotCountsEachCrawl) {
  auto c = Connect();
  ASSERT_TRUE(c);
  auto r = c->Command({"FRONTIER.ADDX", "CRAWL", "one", "URLS", "http://a.test/1"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  r = c->Command({"FRONTIER.ADDX", "CRAWL", "two", "URLS", "http://b.test/1", "http://c.test/1"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Crawl one: its robots.txt (404), then its page, leased and kept.
  auto lease = c->Command({"FRONTIER.LEASE", "w", "1", "CRAWL", "one"});
  ASSERT_TRUE(lease.ok() && lease->elements.size() == 1) << lease->ToDebugString();
  ASSERT_EQ(c->Command({"FRONTIER.DONE", "w", lease->elements[0].elements[0].str, "robots",
                        "STATUS", "404"})->integer, 1);
  lease = c->Command({"FRONTIER.LEASE", "w", "1", "CRAWL", "one", "BLOCK", "10000"});
  ASSERT_TRUE(lease.ok() && lease->elements.size() == 1) << lease->ToDebugString();
  StatusSnapshot s = node_->BuildSnapshot();
  ASSERT_EQ(s.crawls.size(), 2u);
  EXPECT_EQ(s.crawls[0].id, "one");
  EXPECT_EQ(s.crawls[0].urls_inflight, 1u);
  EXPECT_EQ(s.crawls[0].urls_queued, 0u);
  EXPECT_EQ(s.crawls[0].hosts, 1u);
  EXPECT_EQ(s.crawls[0].hosts_ready, 0u);
  EXPECT_FALSE(s.crawls[0].finished);
  EXPECT_EQ(s.crawls[1].urls_inflight, 0u);
  EXPECT_EQ(s.crawls[1].hosts, 2u);
  EXPECT_EQ(s.crawls[1].hosts_ready, 2u);  // their robots.txt is due
  ASSERT_EQ(c->Command({"FRONTIER.DONE", "w", lease->elements[0].elements[0].str, "fetched",
                        "STATUS", "200"})->integer, 1);
  s = node_->BuildSnapshot();
  EXPECT_EQ(s.crawls[0].urls_inflight, 0u);
  EXPECT_TRUE(s.crawls[0].finished);
  EXPECT_FALSE(s.crawls[1].finished);
  EXPECT_EQ(s.totals.hosts_ready, 2u);
}

// The status page's worker table says where each worker id leases from
// (the connection that used it last), so an operator can find its machine.
TEST_F(FrontierNodeTest, StatusSnapshotNamesEachWorkersAddress) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  auto added = a->Command({"FRONTIER.ADD", "http://a.test/", "http://b.test/"});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  ASSERT_TRUE(a->Command({"FRONTIER.LEASE", "wa", "1"}).ok());
  ASSERT_TRUE(b->Command({"FRONTIER.LEASE", "wb", "1"}).ok());
  StatusSnapshot s = node_->BuildSnapshot();
  ASSERT_EQ(s.workers.size(), 2u);
  EXPECT_EQ(s.workers[0].id, "wa");
  EXPECT_EQ(s.workers[1].id, "wb");
  for (const WorkerStatus& w : s.workers) {
    EXPECT_TRUE(w.address.starts_with("127.0.0.1:")) << w.id << " " << w.address;
    EXPECT_EQ(w.leases, 1u) << w.id;
  }
  EXPECT_NE(s.workers[0].address, s.workers[1].address);  // two connections, two ports
  // The id in use answers BUSY to the other connection, and names a's address.
  auto busy = b->Command({"FRONTIER.RELEASE", "wa"});
  ASSERT_TRUE(busy.ok());
  EXPECT_NE(busy->str.find("(from " + s.workers[0].address + ", last used "),
            std::string::npos)
      << busy->str;
}

TEST_F(FrontierNodeTest, CheckpointWritesAnOpenableCopyAndRefusesAnExistingDir) {
  auto c = Connect();
  ASSERT_TRUE(c);
  auto add = c->Command({"FRONTIER.ADD", "http://a.test/1", "http://a.test/2"});
  ASSERT_TRUE(add.ok());
  const std::string target = (dir_ / "copy").string();
  auto ok = c->Command({"FRONTIER.CHECKPOINT", target});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->str, "OK") << ok->ToDebugString();
  EXPECT_TRUE(fs::exists(fs::path(target) / "CURRENT"));
  auto again = c->Command({"FRONTIER.CHECKPOINT", target});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->is_error()) << again->ToDebugString();

  // The copy is a frontier's data dir: it knows the URLs.
  node_.reset();
  FrontierOptions o = FrontierConfigTable().Defaults();
  o.listen = "127.0.0.1:0";
  o.http = "";
  o.data_dir = target;
  auto copy = FrontierNode::Open(o);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  node_ = std::move(copy).value();
  ASSERT_TRUE(node_->Start().ok());
  auto d = Connect();
  ASSERT_TRUE(d);
  auto seen = d->Command({"FRONTIER.SEEN", "http://a.test/2"});
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->integer, 1);
}

}  // namespace
}  // namespace crawlfront
