// Group commit in RespServer: a round's RoundCommits run once, before any of
// the round's replies is sent, and a failed commit turns exactly the replies
// of the commands that joined it into errors.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "crawlfront/common/resp_client.h"
#include "crawlfront/frontier/resp_server.h"

namespace crawlfront {
namespace {

using namespace std::chrono_literals;

// Stands in for a store: GCADD stages items, a commit publishes them.
struct FakeStore {
  std::mutex mu;
  std::set<std::string> committed;
  int commits = 0;
  size_t largest_commit = 0;
  Status fail;  // returned by every commit when set
  bool async = false;  // commits finish on a thread of their own
  bool hold = false;   // commits wait until this is false again
  std::condition_variable released;
  std::vector<std::thread> threads;
};

class FakeCommit : public RoundCommit {
 public:
  explicit FakeCommit(FakeStore* store) : store_(store) {}
  void Stage(std::string item) { staged_.push_back(std::move(item)); }
  Status Commit() override {
    // Slow on purpose: a reply sent before the commit ended would reach
    // the client while its item is still unpublished.
    std::this_thread::sleep_for(5ms);
    std::unique_lock<std::mutex> lock(store_->mu);
    store_->released.wait(lock, [&] { return !store_->hold; });
    ++store_->commits;
    store_->largest_commit = std::max(store_->largest_commit, staged_.size());
    if (!store_->fail.ok()) return store_->fail;
    store_->committed.insert(staged_.begin(), staged_.end());
    return Status::Ok();
  }
  bool async() const override { return store_->async; }
  void CommitAsync(std::function<void(const Status&)> done) override {
    std::lock_guard<std::mutex> lock(store_->mu);
    store_->threads.emplace_back([this, done] { done(Commit()); });
  }

 private:
  FakeStore* store_;
  std::vector<std::string> staged_;
};

// Run with synchronous commits and with commits that finish on another
// thread (as the crawl core's do), on one io thread then.
class RespCommitTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    store_.async = GetParam();
    RespServerOptions options;
    options.listen = "127.0.0.1:0";
    options.threads = store_.async ? 1 : 2;
    server_ = std::make_unique<RespServer>(options);
    CommandSpec add;  // GCADD item: staged, published by the round's commit
    add.arity = 2;
    add.handler = [this](CallContext& ctx) {
      auto* commit = ctx.JoinCommit<FakeCommit>(
          &store_, [this] { return std::make_unique<FakeCommit>(&store_); });
      ASSERT_NE(commit, nullptr);
      commit->Stage(ctx.args()[1]);
      ctx.reply().Integer(1);
    };
    server_->Register("GCADD", add);
    CommandSpec later;  // LATER x: replies x from another thread
    later.arity = 2;
    later.handler = [this](CallContext& ctx) {
      auto deferred = ctx.Defer();
      std::string text = ctx.args()[1];
      completers_.emplace_back([deferred, text] {
        std::string out;
        RespWriter(&out, deferred->protocol()).Bulk(text);
        deferred->Complete(out);
      });
    };
    server_->Register("LATER", later);
    ASSERT_TRUE(server_->Start().ok());
    auto c = RespClient::Connect("127.0.0.1", server_->port(), RespClientOptions{});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    client_ = std::move(c).value();
  }
  void TearDown() override {
    Release();
    server_->Stop();
    for (auto& t : completers_) t.join();
    // Commits end before the server's io_context goes.
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(store_.mu);
      threads.swap(store_.threads);
    }
    for (auto& t : threads) t.join();
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(store_.mu);
      store_.hold = false;
    }
    store_.released.notify_all();
  }
  bool Committed(const std::string& item) {
    std::lock_guard<std::mutex> lock(store_.mu);
    return store_.committed.count(item) > 0;
  }

  FakeStore store_;
  std::unique_ptr<RespServer> server_;
  std::unique_ptr<RespClient> client_;
  std::vector<std::thread> completers_;
};

TEST_P(RespCommitTest, OneCommitPerRoundBeforeTheReplies) {
  std::string pipeline;
  for (int i = 0; i < 100; ++i)
    pipeline += EncodeCommand({"GCADD", "i" + std::to_string(i)});
  ASSERT_TRUE(client_->SendRaw(pipeline).ok());  // one write: one round, mostly
  for (int i = 0; i < 100; ++i) {
    Result<RespValue> r = client_->ReadReply();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->integer, 1);
    // The reply came after the commit that published the item.
    ASSERT_TRUE(Committed("i" + std::to_string(i))) << i;
  }
  std::lock_guard<std::mutex> lock(store_.mu);
  EXPECT_GE(store_.commits, 1);
  EXPECT_GT(store_.largest_commit, 1u);  // commands shared a commit
  EXPECT_LT(store_.commits, 100);
}

TEST_P(RespCommitTest, FailedCommitTurnsOnlyItsRepliesIntoErrors) {
  {
    std::lock_guard<std::mutex> lock(store_.mu);
    store_.fail = Status::IoError("disk on fire");
  }
  auto replies = client_->Pipeline(
      {{"GCADD", "a"}, {"ECHO", "b"}, {"GCADD", "c"}, {"PING"}, {"GCADD", "d"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), 5u);
  EXPECT_EQ((*replies)[0], RespValue::Error("ERR disk on fire"));
  EXPECT_EQ((*replies)[1].str, "b");
  EXPECT_EQ((*replies)[2], RespValue::Error("ERR disk on fire"));
  EXPECT_EQ((*replies)[3].str, "PONG");
  EXPECT_EQ((*replies)[4], RespValue::Error("ERR disk on fire"));
  {
    std::lock_guard<std::mutex> lock(store_.mu);
    store_.fail = Status::IoError("IOERR already coded");  // no second code
  }
  auto coded = client_->Pipeline({{"GCADD", "e"}, {"ECHO", "f"}});
  ASSERT_TRUE(coded.ok());
  EXPECT_EQ((*coded)[0], RespValue::Error("IOERR already coded"));
  EXPECT_EQ((*coded)[1].str, "f");
  EXPECT_FALSE(Committed("a") || Committed("c") || Committed("e"));
  {
    std::lock_guard<std::mutex> lock(store_.mu);
    store_.fail = Status::Ok();
  }
  auto ok = client_->Pipeline({{"GCADD", "g"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].integer, 1);  // a failure does not stick to the connection
  EXPECT_TRUE(Committed("g"));
}

TEST_P(RespCommitTest, DeferredReplyEndsTheRoundAndKeepsOrder) {
  auto replies = client_->Pipeline(
      {{"GCADD", "x"}, {"LATER", "y"}, {"GCADD", "z"}, {"ECHO", "w"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), 4u);
  EXPECT_EQ((*replies)[0].integer, 1);
  EXPECT_EQ((*replies)[1].str, "y");
  EXPECT_EQ((*replies)[2].integer, 1);
  EXPECT_EQ((*replies)[3].str, "w");
  EXPECT_TRUE(Committed("x"));
  EXPECT_TRUE(Committed("z"));
  std::lock_guard<std::mutex> lock(store_.mu);
  EXPECT_GE(store_.commits, 2);  // x was committed before waiting for LATER
}

// While one connection's commit is still being written elsewhere, the io
// thread (one here) serves other connections; the reply waits for it.
class RespAsyncCommitTest : public RespCommitTest {};

TEST_P(RespAsyncCommitTest, PendingCommitDoesNotHoldUpOtherConnections) {
  {
    std::lock_guard<std::mutex> lock(store_.mu);
    store_.hold = true;
  }
  ASSERT_TRUE(client_->SendRaw(EncodeCommand({"GCADD", "held"})).ok());
  RespClientOptions quick;
  quick.timeout = std::chrono::seconds(2);  // a blocked io thread fails, not hangs
  auto other = RespClient::Connect("127.0.0.1", server_->port(), quick);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  for (int i = 0; i < 20; ++i) {
    auto pong = (*other)->Pipeline({{"PING"}});
    ASSERT_TRUE(pong.ok()) << pong.status().ToString();
    EXPECT_EQ((*pong)[0].str, "PONG");
  }
  EXPECT_FALSE(Committed("held"));
  Release();
  Result<RespValue> r = client_->ReadReply();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->integer, 1);
  EXPECT_TRUE(Committed("held"));
}

INSTANTIATE_TEST_SUITE_P(Commits, RespCommitTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Async" : "Sync"; });
INSTANTIATE_TEST_SUITE_P(Commits, RespAsyncCommitTest, ::testing::Values(true),
                         [](const auto&) { return "Async"; });

}  // namespace
}  // namespace crawlfront
