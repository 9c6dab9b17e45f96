// BF.* against a real RespServer on 127.0.0.1 with real RocksDB, through
// our RespClient and through redis-cli. Expected replies are RedisBloom's
// (docs/commands/bf.*.md and src/rebloom.c).

#include "crawlfront/frontier/bf_commands.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bf_handlers.h"
#include "crawlfront/common/resp_client.h"
#include "crawlfront/frontier/resp_server.h"
#include "crawlfront/frontier/seen_set.h"

namespace crawlfront {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

// One frontier: store, seen-set, registry and server, in its own directory.
class Node {
 public:
  explicit Node(const std::string& tag) {
    dir_ = fs::temp_directory_path() /
           ("bf_commands_test." + std::to_string(getpid()) + "." + tag);
    fs::remove_all(dir_);
    Open();
  }
  ~Node() {
    Shutdown();
    fs::remove_all(dir_);
  }
  void Open() {
    store_ = std::move(Store::Open(dir_.string(), StoreOptions{})).value();
    SeenSetOptions so;
    so.partitions = 4;
    so.expected_urls = 4096;
    so.snapshot_interval = std::chrono::milliseconds(0);
    seen_ = std::move(SeenSet::Open(store_.get(), so)).value();
    registry_ =
        std::move(UserBloomRegistry::Open(store_.get(), UserBloomOptions{})).value();
    RespServerOptions ro;
    ro.listen = "127.0.0.1:0";
    ro.threads = 2;
    server_ = std::make_unique<RespServer>(ro);
    RegisterBfCommands(*server_, *registry_, seen_.get());
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void Shutdown() {
    server_.reset();
    registry_.reset();
    seen_.reset();
    store_.reset();
  }
  std::unique_ptr<RespClient> Client(int protocol = 2) {
    RespClientOptions o;
    o.protocol = protocol;
    auto c = RespClient::Connect("127.0.0.1", server_->port(), o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  SeenSet& seen() { return *seen_; }
  uint16_t port() const { return server_->port(); }

 private:
  fs::path dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<SeenSet> seen_;
  std::unique_ptr<UserBloomRegistry> registry_;
  std::unique_ptr<RespServer> server_;
};

RespValue Call(RespClient& c, const Args& args) {
  auto r = c.Command(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : RespValue::Error("network failure");
}

RespValue Int(int64_t v) { return RespValue::Integer(v); }
RespValue Ints(std::vector<int64_t> v) {
  std::vector<RespValue> e;
  for (int64_t x : v) e.push_back(Int(x));
  return RespValue::Array(std::move(e));
}

int64_t InfoField(RespClient& c, const std::string& key, const std::string& field) {
  RespValue v = Call(c, {"BF.INFO", key, field});
  EXPECT_EQ(v.type, RespType::kArray) << v.ToDebugString();
  return v.elements.empty() ? -1 : v.elements[0].integer;
}

class BfCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = std::make_unique<Node>("a");
    client_ = node_->Client();
    ASSERT_NE(client_, nullptr);
  }
  RespValue Do(const Args& args) { return Call(*client_, args); }
  std::unique_ptr<Node> node_;
  std::unique_ptr<RespClient> client_;
};

// The examples of RedisBloom's docs/commands/bf.*.md.
TEST_F(BfCommandsTest, DocumentedExamples) {
  EXPECT_EQ(Do({"BF.ADD", "key", "item"}), Int(1));
  EXPECT_EQ(Do({"BF.ADD", "key", "item"}), Int(0));
  RespValue info = Do({"BF.INFO", "key"});
  ASSERT_EQ(info.type, RespType::kArray);
  ASSERT_EQ(info.elements.size(), 10u);
  const char* names[] = {"Capacity", "Size", "Number of filters",
                         "Number of items inserted", "Expansion rate"};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(info.elements[2 * i].str, names[i]);
  EXPECT_EQ(*info.Find("Capacity"), Int(100));
  EXPECT_GT(info.Find("Size")->integer, 0);
  EXPECT_EQ(*info.Find("Number of filters"), Int(1));
  EXPECT_EQ(*info.Find("Number of items inserted"), Int(1));
  EXPECT_EQ(*info.Find("Expansion rate"), Int(2));
  EXPECT_EQ(Do({"BF.INFO", "key", "CAPACITY"}), Ints({100}));
  EXPECT_EQ(Do({"BF.INFO", "key", "items"}), Ints({1}));

  EXPECT_EQ(Do({"BF.ADD", "bf1", "item_foo"}), Int(1));
  EXPECT_EQ(Do({"BF.CARD", "bf1"}), Int(1));
  EXPECT_EQ(Do({"BF.CARD", "bf_new"}), Int(0));

  EXPECT_EQ(Do({"BF.MADD", "bf", "item1", "item2", "item2"}), Ints({1, 1, 0}));
  EXPECT_EQ(Do({"BF.EXISTS", "bf", "item1"}), Int(1));
  EXPECT_EQ(Do({"BF.EXISTS", "bf", "item3"}), Int(0));
  EXPECT_EQ(Do({"BF.EXISTS", "missing", "item1"}), Int(0));
  EXPECT_EQ(Do({"BF.MEXISTS", "bf", "item1", "item2", "item3"}), Ints({1, 1, 0}));

  EXPECT_EQ(Do({"BF.RESERVE", "bf_exp", "0.01", "1000", "EXPANSION", "2"}).str, "OK");
  EXPECT_EQ(Do({"BF.RESERVE", "bf_non", "0.01", "1000", "NONSCALING"}).str, "OK");
  EXPECT_EQ(Do({"BF.INFO", "bf_non", "EXPANSION"}).elements.at(0).type, RespType::kNull);

  EXPECT_EQ(Do({"BF.INSERT", "filter", "ITEMS", "foo", "bar", "baz"}), Ints({1, 1, 1}));
  EXPECT_EQ(Do({"BF.INSERT", "filter2", "CAPACITY", "10000", "ITEMS", "hello"}),
            Ints({1}));
  EXPECT_EQ(InfoField(*client_, "filter2", "CAPACITY"), 10000);
  EXPECT_EQ(Do({"BF.INSERT", "filter3", "NOCREATE", "ITEMS", "foo", "bar"}),
            RespValue::Error("ERR not found"));
}

TEST_F(BfCommandsTest, ErrorRepliesMatchRedisBloom) {
  ASSERT_EQ(Do({"BF.RESERVE", "taken", "0.01", "100"}).str, "OK");
  struct Case {
    Args args;
    std::string error;
  };
  const Case cases[] = {
      {{"BF.RESERVE", "taken", "0.01", "100"}, "ERR item exists"},
      {{"BF.RESERVE", "k", "abc", "100"}, "ERR bad error rate"},
      {{"BF.RESERVE", "k", "1.5", "100"}, "ERR (0 < error rate range < 1) "},
      {{"BF.RESERVE", "k", "0", "100"}, "ERR (0 < error rate range < 1) "},
      {{"BF.RESERVE", "k", "0.01", "1e3"}, "ERR bad capacity"},
      {{"BF.RESERVE", "k", "0.01", "0"}, "ERR (capacity should be larger than 0)"},
      {{"BF.RESERVE", "k", "0.01", "100", "EXPANSION"}, "ERR no expansion"},
      {{"BF.RESERVE", "k", "0.01", "100", "EXPANSION", "x"}, "ERR bad expansion"},
      {{"BF.RESERVE", "k", "0.01", "100", "EXPANSION", "0"},
       "ERR expansion should be greater or equal to 1"},
      {{"BF.RESERVE", "k", "0.01", "100", "NONSCALING", "EXPANSION", "2"},
       "Nonscaling filters cannot expand"},
      {{"BF.RESERVE", "k", "0.01"},
       "ERR wrong number of arguments for 'bf.reserve' command"},
      {{"BF.ADD", "k"}, "ERR wrong number of arguments for 'bf.add' command"},
      {{"BF.INFO", "missing"}, "ERR not found"},
      {{"BF.INFO", "taken", "bogus"}, "Invalid information value"},
      {{"BF.INSERT", "k", "ERROR", "x", "ITEMS", "a"}, "Bad error rate"},
      {{"BF.INSERT", "k", "CAPACITY", "x", "ITEMS", "a"}, "Bad capacity"},
      {{"BF.INSERT", "k", "EXPANSION", "x", "ITEMS", "a"}, "Bad expansion"},
      {{"BF.INSERT", "k", "CAPACITY", "0", "ITEMS", "a"}, "Bad argument received"},
      {{"BF.INSERT", "k", "WHAT", "ITEMS", "a"}, "Unknown argument received"},
      {{"BF.INSERT", "k", "CAPACITY", "10", "ITEMS"},
       "ERR wrong number of arguments for 'bf.insert' command"},
      {{"BF.SCANDUMP", "missing", "0"}, "ERR not found"},
      {{"BF.SCANDUMP", "taken", "x"}, "Second argument must be numeric"},
      {{"BF.LOADCHUNK", "k", "x", "data"}, "ERR Second argument must be numeric"},
      {{"BF.LOADCHUNK", "k", "1", "garbage"}, "ERR received bad data"},
      {{"BF.LOADCHUNK", "missing", "5", "data"}, "ERR not found"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Do(c.args), RespValue::Error(c.error)) << c.args[0] << " " << c.args[1];
  }
  EXPECT_EQ(Do({"BF.EXISTS", "k", "a"}), Int(0)) << "failed commands created nothing";
}

TEST_F(BfCommandsTest, GoClientReserveAndAdds) {
  // What the seeds' go-redis code sends: numbers as bulk strings.
  EXPECT_EQ(Do({"BF.RESERVE", "urls", "0.001", "100000000", "NONSCALING"}).str, "OK");
  EXPECT_EQ(Do({"BF.ADD", "urls", "http://a.example/"}), Int(1));
  EXPECT_EQ(Do({"BF.EXISTS", "urls", "http://a.example/"}), Int(1));
  EXPECT_EQ(Do({"BF.MADD", "urls", "http://a.example/", "http://b.example/"}),
            Ints({0, 1}));
  EXPECT_EQ(InfoField(*client_, "urls", "CAPACITY"), 100'000'000);
  EXPECT_EQ(Do({"BF.CARD", "urls"}), Int(2));
}

TEST_F(BfCommandsTest, ScalingAndNonScalingFull) {
  ASSERT_EQ(Do({"BF.RESERVE", "s", "0.01", "100"}).str, "OK");
  Args madd = {"BF.MADD", "s"};
  Args mexists = {"BF.MEXISTS", "s"};
  for (int i = 0; i < 1000; ++i) {
    madd.push_back("u" + std::to_string(i));
    mexists.push_back("u" + std::to_string(i));
  }
  ASSERT_EQ(Do(madd).elements.size(), 1000u);
  RespValue found = Do(mexists);
  ASSERT_EQ(found.elements.size(), 1000u);
  for (const RespValue& v : found.elements) ASSERT_EQ(v, Int(1));
  EXPECT_EQ(InfoField(*client_, "s", "FILTERS"), 4);  // 100 + 200 + 400 + 800

  ASSERT_EQ(Do({"BF.RESERVE", "n", "0.01", "5", "NONSCALING"}).str, "OK");
  Args fill = {"BF.MADD", "n"};
  for (int i = 0; i < 20; ++i) fill.push_back("x" + std::to_string(i));
  RespValue r = Do(fill);
  ASSERT_EQ(r.type, RespType::kArray);
  ASSERT_GE(r.elements.size(), 6u);
  EXPECT_EQ(r.elements.back(), RespValue::Error("ERR non scaling filter is full"));
  EXPECT_LT(r.elements.size(), 20u) << "stops at the first full error";
  EXPECT_EQ(Do({"BF.ADD", "n", "another"}),
            RespValue::Error("ERR non scaling filter is full"));
  EXPECT_EQ(Do({"BF.CARD", "n"}), Int(5));
}

// The replies of `head` + items sent in calls of `per` items, joined; an
// array reply that ends in an error ends the join (as one call would).
std::vector<RespValue> InCalls(RespClient& c, const Args& head, const Args& items,
                               size_t per) {
  std::vector<RespValue> all;
  for (size_t at = 0; at < items.size(); at += per) {
    Args call = head;
    call.insert(call.end(), items.begin() + at,
                items.begin() + std::min(items.size(), at + per));
    RespValue r = Call(c, call);
    EXPECT_EQ(r.type, RespType::kArray) << r.ToDebugString();
    for (RespValue& v : r.elements) all.push_back(std::move(v));
    if (!all.empty() && all.back().type == RespType::kError) break;
  }
  return all;
}

Args Numbered(const std::string& prefix, size_t n, size_t modulo) {
  Args items;
  for (size_t i = 0; i < n; ++i) items.push_back(prefix + std::to_string(i % modulo));
  return items;
}

// Calls of more than kBfPiece items run in pieces (one per turn of their
// io thread); the reply is the one a single call gives: the same filter
// fed the same items in short calls answers exactly the same.
TEST_F(BfCommandsTest, LongCallsAnswerAsShortOnes) {
  const size_t n = 3 * kBfPiece + 123;
  const Args items = Numbered("i", n, n * 3 / 4);  // the last quarter repeats
  ASSERT_EQ(Do({"BF.RESERVE", "long", "0.01", "1000"}).str, "OK");
  ASSERT_EQ(Do({"BF.RESERVE", "short", "0.01", "1000"}).str, "OK");
  Args madd = {"BF.MADD", "long"};
  madd.insert(madd.end(), items.begin(), items.end());
  auto replies = client_->Pipeline({madd, {"ECHO", "next"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), 2u);
  const std::vector<RespValue> in_short = InCalls(*client_, {"BF.MADD", "short"}, items, 1000);
  ASSERT_EQ(in_short.size(), n);
  EXPECT_TRUE((*replies)[0].elements == in_short);
  EXPECT_EQ((*replies)[1].str, "next");
  for (size_t i = n * 3 / 4; i < n; ++i) ASSERT_EQ((*replies)[0].elements[i], Int(0)) << i;
  EXPECT_EQ(Do({"BF.INFO", "long"}), Do({"BF.INFO", "short"}));

  Args probe = items;
  for (const std::string& s : Numbered("absent", kBfPiece, kBfPiece)) probe.push_back(s);
  Args mexists = {"BF.MEXISTS", "long"};
  mexists.insert(mexists.end(), probe.begin(), probe.end());
  RespValue found = Do(mexists);
  ASSERT_EQ(found.elements.size(), probe.size());
  EXPECT_TRUE(found.elements == InCalls(*client_, {"BF.MEXISTS", "short"}, probe, 1000));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(found.elements[i], Int(1)) << i;

  // Every piece is on disk: the earlier ones wrote their own records.
  client_.reset();
  node_->Shutdown();
  node_->Open();
  client_ = node_->Client();
  EXPECT_TRUE(Do(mexists) == found);
}

TEST_F(BfCommandsTest, LongCallsStopAtAFullFilterAndKeepTheirOptions) {
  const Args items = Numbered("x", 3 * kBfPiece, 3 * kBfPiece);  // full in the 2nd piece
  const std::string cap = std::to_string(kBfPiece + 500);
  for (const char* name : {"nl", "ns"}) {
    ASSERT_EQ(Do({"BF.RESERVE", name, "0.01", cap, "NONSCALING"}).str, "OK");
  }
  Args madd = {"BF.MADD", "nl"};
  madd.insert(madd.end(), items.begin(), items.end());
  RespValue r = Do(madd);
  ASSERT_EQ(r.type, RespType::kArray);
  ASSERT_LT(r.elements.size(), items.size()) << "stops at the first full error";
  EXPECT_EQ(r.elements.back(), RespValue::Error("ERR non scaling filter is full"));
  EXPECT_TRUE(r.elements == InCalls(*client_, {"BF.MADD", "ns"}, items, 1000));
  EXPECT_EQ(Do({"BF.CARD", "nl"}), Int(static_cast<int64_t>(kBfPiece + 500)));

  Args insert = {"BF.INSERT", "made", "CAPACITY", "70000", "ERROR", "0.001", "ITEMS"};
  insert.insert(insert.end(), items.begin(), items.end());
  EXPECT_EQ(Do(insert).elements.size(), items.size());
  EXPECT_EQ(InfoField(*client_, "made", "CAPACITY"), 70000);
  EXPECT_EQ(InfoField(*client_, "made", "ITEMS"), static_cast<int64_t>(items.size()));
  insert = {"BF.INSERT", "missing", "NOCREATE", "ITEMS"};
  insert.insert(insert.end(), items.begin(), items.end());
  EXPECT_EQ(Do(insert), RespValue::Error("ERR not found"));
  EXPECT_EQ(Do({"BF.CARD", "missing"}), Int(0));
}

TEST_F(BfCommandsTest, Resp3InfoIsAMap) {
  ASSERT_EQ(Do({"BF.ADD", "m", "x"}), Int(1));
  auto c3 = node_->Client(3);
  ASSERT_NE(c3, nullptr);
  RespValue info = Call(*c3, {"BF.INFO", "m"});
  ASSERT_EQ(info.type, RespType::kMap);
  EXPECT_EQ(info.map_size(), 5u);
  EXPECT_EQ(*info.Find("Number of items inserted"), Int(1));
}

// SCANDUMP every chunk of a scaled filter and LOADCHUNK it into another
// frontier: the copy answers the same and dumps to the same bytes.
TEST_F(BfCommandsTest, ScanDumpLoadChunkRoundTripAcrossFrontiers) {
  Args madd = {"BF.MADD", "src"};
  for (int i = 0; i < 700; ++i) madd.push_back("v" + std::to_string(i));
  ASSERT_EQ(Do(madd).elements.size(), 700u);
  auto dump = [](RespClient& c, const std::string& key) {
    std::vector<std::pair<int64_t, std::string>> chunks;
    int64_t iter = 0;
    for (int n = 0; n < 1000; ++n) {  // bounded
      RespValue r = Call(c, {"BF.SCANDUMP", key, std::to_string(iter)});
      EXPECT_EQ(r.elements.size(), 2u) << r.ToDebugString();
      if (r.elements.size() != 2) break;
      iter = r.elements[0].integer;
      if (iter == 0) break;
      chunks.emplace_back(iter, r.elements[1].str);
    }
    return chunks;
  };
  auto chunks = dump(*client_, "src");
  ASSERT_GE(chunks.size(), 2u);
  Node other("b");
  auto c2 = other.Client();
  for (const auto& [iter, data] : chunks) {
    ASSERT_EQ(Call(*c2, {"BF.LOADCHUNK", "copy", std::to_string(iter), data}).str, "OK");
  }
  EXPECT_EQ(dump(*c2, "copy"), chunks);
  EXPECT_EQ(Call(*c2, {"BF.INFO", "copy"}), Do({"BF.INFO", "src"}));
  Args mexists = madd;
  mexists[0] = "BF.MEXISTS";
  mexists[1] = "copy";
  for (const RespValue& v : Call(*c2, mexists).elements) ASSERT_EQ(v, Int(1));
  // The completed load is durable: it survives a restart of that frontier.
  other.Shutdown();
  other.Open();
  auto c3 = other.Client();
  EXPECT_EQ(dump(*c3, "copy"), chunks);
}

TEST_F(BfCommandsTest, FiltersSurviveRestart) {
  ASSERT_EQ(Do({"BF.INSERT", "r", "CAPACITY", "50", "ITEMS", "a", "b", "c"}),
            Ints({1, 1, 1}));
  RespValue before = Do({"BF.INFO", "r"});
  client_.reset();
  node_->Shutdown();
  node_->Open();
  client_ = node_->Client();
  EXPECT_EQ(Do({"BF.INFO", "r"}), before);
  EXPECT_EQ(Do({"BF.MEXISTS", "r", "a", "b", "c"}), Ints({1, 1, 1}));
}

// Connections of one io thread share a write per event-loop pass: every
// acknowledged add of many concurrent clients is on disk after a restart.
TEST_F(BfCommandsTest, ConcurrentAddsAllSurviveRestart) {
  ASSERT_EQ(Do({"BF.RESERVE", "c", "0.001", "100000"}), RespValue::SimpleString("OK"));
  constexpr int kClients = 16, kAdds = 150;
  std::vector<std::thread> threads;
  std::atomic<int> acknowledged{0};
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      auto c = node_->Client();
      if (c == nullptr) return;
      for (int i = 0; i < kAdds; ++i) {
        std::string item = "c" + std::to_string(t) + "-" + std::to_string(i);
        if (Call(*c, {"BF.ADD", "c", item}) == Int(1)) acknowledged.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(acknowledged.load(), kClients * kAdds);
  client_.reset();
  node_->Shutdown();
  node_->Open();
  client_ = node_->Client();
  EXPECT_EQ(Do({"BF.CARD", "c"}), Int(kClients * kAdds));
  for (int t = 0; t < kClients; ++t) {
    Args exists = {"BF.MEXISTS", "c"};
    for (int i = 0; i < kAdds; ++i)
      exists.push_back("c" + std::to_string(t) + "-" + std::to_string(i));
    EXPECT_EQ(Do(exists), Ints(std::vector<int64_t>(kAdds, 1))) << "client " << t;
  }
}

// Adds and probes keep a filter's lock across a pipelined run
// (pass_hold.h); any other command in the same run must still get it, and
// two connections trading filters must not deadlock.
TEST_F(BfCommandsTest, PipelinedRunsMixingFiltersAndCommands) {
  constexpr int kClients = 4, kRounds = 50;
  for (int t = 0; t < kClients; ++t) {  // a false positive would fail an add
    ASSERT_EQ(Do({"BF.RESERVE", "p" + std::to_string(t), "0.0000001", "10000"}),
              RespValue::SimpleString("OK"));
  }
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      auto c = node_->Client();
      if (c == nullptr) return;
      const std::string mine = "p" + std::to_string(t),
                        other = "p" + std::to_string(1 - t % 2);
      for (int r = 0; r < kRounds; ++r) {
        std::string item = "i" + std::to_string(t) + "-" + std::to_string(r);
        auto replies = c->Pipeline({{"BF.ADD", mine, item},
                                    {"BF.EXISTS", mine, item},
                                    {"BF.CARD", mine},
                                    {"BF.MADD", other, item + "a", item + "b"},
                                    {"BF.INFO", other, "ITEMS"},
                                    {"BF.ADD", mine, item},
                                    {"BF.MEXISTS", other, item + "a", item + "z"}});
        ASSERT_TRUE(replies.ok()) << replies.status().ToString();
        const auto& v = *replies;
        ASSERT_EQ(v.size(), 7u);
        bool ok = v[0] == Int(1) && v[1] == Int(1) && v[2].integer >= r + 1 &&
                  v[3] == Ints({1, 1}) && v[4].type == RespType::kArray &&
                  v[5] == Int(0) && v[6].elements.size() == 2 &&
                  v[6].elements[0] == Int(1);
        EXPECT_TRUE(ok) << "client " << t << " round " << r;
        if (ok) good.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), kClients * kRounds);
  // Both shared filters hold every MADD item of the clients writing to them.
  EXPECT_EQ(Do({"BF.CARD", "p0"}), Int(kRounds * (1 + 2 * (kClients / 2))));
}

TEST_F(BfCommandsTest, SeenSetIsReadableUnderReservedName) {
  auto canon = Canonicalize("http://Example.COM:80/a");
  ASSERT_TRUE(canon.ok());
  std::vector<SeenKey> keys = {
      SeenKey{HostHash(canon->host_key), FingerprintOf(canon->spec)}};
  std::vector<SeenResult> out;
  ASSERT_TRUE(node_->seen().InsertIfNew(keys, &out).ok());
  EXPECT_EQ(Do({"BF.EXISTS", "crawlfront:seen", "http://example.com/a"}), Int(1));
  EXPECT_EQ(Do({"BF.MEXISTS", "crawlfront:seen", "http://example.com/a",
                "http://example.com/b", "not a url"}),
            Ints({1, 0, 0}));
  EXPECT_EQ(Do({"BF.CARD", "crawlfront:seen"}), Int(1));
  EXPECT_EQ(InfoField(*client_, "crawlfront:seen", "ITEMS"), 1);
  EXPECT_EQ(InfoField(*client_, "crawlfront:seen", "FILTERS"), 4);
  const RespValue ro =
      RespValue::Error("ERR crawlfront:seen is read-only; use FRONTIER.ADD");
  EXPECT_EQ(Do({"BF.ADD", "crawlfront:seen", "http://example.com/c"}), ro);
  EXPECT_EQ(Do({"BF.MADD", "crawlfront:seen", "x"}), ro);
  EXPECT_EQ(Do({"BF.INSERT", "crawlfront:seen", "ITEMS", "x"}), ro);
  EXPECT_EQ(Do({"BF.RESERVE", "crawlfront:seen", "0.01", "10"}), ro);
  EXPECT_EQ(Do({"BF.EXISTS", "crawlfront:seen", "http://example.com/c"}), Int(0));
}

int64_t ResidentBytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
  std::fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

// A reserved filter's memory is mapped, not touched, until items arrive:
// persisting the new filter used to read all its bits (which faults in
// huge pages even for a read), so a 36 MB BF.RESERVE made 36 MB resident
// and held its io thread 0.4 s for a 180 MB one.
TEST_F(BfCommandsTest, ReserveLeavesTheFilterUntouched) {
  const int64_t before = ResidentBytes();
  ASSERT_GT(before, 0);
  ASSERT_EQ(Do({"BF.RESERVE", "lazy", "0.001", "20000000", "NONSCALING"}).str, "OK");
  EXPECT_GT(InfoField(*client_, "lazy", "SIZE"), 32 << 20);
  EXPECT_LT(ResidentBytes() - before, 16 << 20);
  EXPECT_EQ(Do({"BF.MADD", "lazy", "a", "b"}), Ints({1, 1}));
  client_.reset();
  node_->Shutdown();
  node_->Open();
  client_ = node_->Client();
  EXPECT_EQ(Do({"BF.MEXISTS", "lazy", "a", "b", "c"}), Ints({1, 1, 0}));
  EXPECT_EQ(InfoField(*client_, "lazy", "CAPACITY"), 20000000);
}

// The seen-set answers a long BF.MEXISTS exactly, in pieces of kSeenPiece.
TEST_F(BfCommandsTest, LongSeenSetProbe) {
  const size_t n = 2 * kSeenPiece + 7;
  Args probe = {"BF.MEXISTS", "crawlfront:seen"};
  std::vector<SeenKey> keys;
  for (size_t i = 0; i < n; ++i) {
    probe.push_back("http://s.test/p" + std::to_string(i));
    if (i % 3 != 0) continue;
    auto canon = Canonicalize(probe.back());
    ASSERT_TRUE(canon.ok());
    keys.push_back(SeenKey{HostHash(canon->host_key), FingerprintOf(canon->spec)});
  }
  std::vector<SeenResult> out;
  ASSERT_TRUE(node_->seen().InsertIfNew(keys, &out).ok());
  RespValue found = Do(probe);
  ASSERT_EQ(found.elements.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(found.elements[i], Int(i % 3 == 0 ? 1 : 0)) << i;
}

std::string RedisCli(uint16_t port, const std::string& args) {
  std::string cmd =
      "/usr/bin/redis-cli -h 127.0.0.1 -p " + std::to_string(port) + " " + args;
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

TEST_F(BfCommandsTest, RedisCliDrivesBfCommands) {
  if (access("/usr/bin/redis-cli", X_OK) != 0) GTEST_SKIP() << "redis-cli not installed";
  uint16_t port = node_->port();
  EXPECT_EQ(RedisCli(port, "BF.RESERVE cli 0.01 1000"), "OK\n");
  EXPECT_EQ(RedisCli(port, "BF.ADD cli hello"), "1\n");
  EXPECT_EQ(RedisCli(port, "BF.ADD cli hello"), "0\n");
  EXPECT_EQ(RedisCli(port, "BF.EXISTS cli hello"), "1\n");
  EXPECT_EQ(RedisCli(port, "BF.EXISTS cli nope"), "0\n");
  EXPECT_EQ(
      RedisCli(port, "BF.INFO cli"),
      "Capacity\n1000\nSize\n" + std::to_string(InfoField(*client_, "cli", "SIZE")) +
          "\nNumber of filters\n1\nNumber of items inserted\n1\nExpansion rate\n2\n");
}

}  // namespace
}  // namespace crawlfront
