// robots.txt per origin (RFC 9309: scheme, host and port) within one host
// queue, which holds every origin of a host name (and, with the
// registered-domain host key, every host of a domain).

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class RobotsOriginTest : public CrawlFixture {
 protected:
  void SetUp() override {
    CrawlOptions o = TestOptions();
    o.default_delay = std::chrono::milliseconds(0);
    o.robots_error_retry = std::chrono::milliseconds(60'000);
    Open(o);
  }
  // Leases one URL at a time until nothing is leasable, answering robots.txt
  // from `robots` (by robots URL; 404 when missing) and pages as fetched.
  // Returns the leased URLs in order.
  std::vector<std::string> Drain(const std::map<std::string, std::string>& robots) {
    std::vector<std::string> leased;
    for (int i = 0; i < 100; ++i) {
      auto l = LeaseN(1);
      if (l.empty()) break;
      leased.push_back(l[0].url);
      if (l[0].kind == LeaseKind::kRobots) {
        auto it = robots.find(l[0].url);
        EXPECT_TRUE(Done(l[0], it == robots.end() ? RobotsBody("", 404) : RobotsBody(it->second)));
      } else {
        EXPECT_TRUE(Done(l[0], Fetched()));
      }
      clock_.Advance(1);
    }
    return leased;
  }
};

const std::map<std::string, std::string> kRules = {
    {"http://a.test/robots.txt", "User-agent: *\nDisallow: /x\n"},
    {"https://a.test/robots.txt", "User-agent: *\nDisallow: /y\n"},
};

TEST_F(RobotsOriginTest, EachOriginOfAQueueIsRuledByItsOwnRobotsTxt) {
  AddUrls({"http://a.test/x1", "http://a.test:8080/x1", "https://a.test/x1",
           "https://a.test/y1", "http://a.test/y1", "http://a.test/x2"});
  ASSERT_EQ(core_->ListHosts("", 10).size(), 1u) << "one queue for the host name";
  EXPECT_EQ(Drain(kRules), (std::vector<std::string>{
                               "http://a.test/robots.txt",       // x1 blocked by it
                               "http://a.test:8080/robots.txt",  // 404: all allowed
                               "http://a.test:8080/x1",
                               "https://a.test/robots.txt",
                               "https://a.test/x1",  // y1 blocked
                               "http://a.test/y1",   // http's rules again, not fetched again
                           }));
  CrawlStats s = core_->Stats("");
  EXPECT_EQ(s.urls_robots_blocked, 3u) << "http x1 and x2, https y1";
  EXPECT_EQ(s.robots_fetched, 3u);
  EXPECT_TRUE(core_->Finished(""));
}

TEST_F(RobotsOriginTest, EveryOriginsRulesSurviveARestart) {
  AddUrls({"http://a.test/1", "https://a.test/1"});
  ASSERT_EQ(Drain(kRules).size(), 4u);
  Reopen();
  AddUrls({"https://a.test/y2", "http://a.test/x3", "https://a.test/x3", "http://a.test/y3"});
  EXPECT_EQ(Drain(kRules), (std::vector<std::string>{"https://a.test/x3", "http://a.test/y3"}))
      << "no robots.txt fetched again, each origin's rules applied";
  EXPECT_EQ(core_->Stats("").urls_robots_blocked, 2u);
}

// The robots records on disk, by the origin in their key.
std::map<std::string, RobotsRecord> StoredRobots(Store& store) {
  std::unique_ptr<rocksdb::Iterator> it(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.cf(Cf::kHost)));
  std::map<std::string, RobotsRecord> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    uint16_t part;
    std::string crawl, host;
    size_t plen;
    if (!ParseHostPrefix(key, &part, &crawl, &host, &plen) || key.size() <= plen ||
        key[plen] != 'R') {
      continue;
    }
    EXPECT_TRUE(DecodeRobotsRecord(it->value().ToStringView(),
                                   &out[std::string(key.substr(plen + 1))])
                    .ok());
  }
  return out;
}

// A robots.txt result writes its own origin's record only, so a queue with
// many origins (the registered-domain host key) does not rewrite them all.
TEST_F(RobotsOriginTest, EachOriginIsStoredUnderItsOwnKey) {
  AddUrls({"http://a.test/1", "https://a.test/1", "http://a.test:8080/1"});
  Drain(kRules);
  auto stored = StoredRobots(*store_);
  ASSERT_EQ(stored.size(), 3u);
  EXPECT_EQ(stored.count("http://a.test:8080"), 1u);
  for (const std::string origin : {"http://a.test", "https://a.test"}) {
    auto rules = RobotsRules::Deserialize(stored.at(origin).rules);
    ASSERT_TRUE(rules.ok());
    EXPECT_EQ(stored.at(origin).state, RobotsState::kOk);
    EXPECT_EQ(rules->Allowed("/x"), origin != "http://a.test") << origin;
    EXPECT_EQ(rules->Allowed("/y"), origin != "https://a.test") << origin;
  }
  // Operator rules replace every origin's, on disk too.
  ASSERT_TRUE(core_->SetHostRobots("", "a.test", "User-agent: *\nDisallow: /z\n").ok());
  stored = StoredRobots(*store_);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored.begin()->second.state, RobotsState::kManual);
}

// Records of older versions had no origin: fetched rules are fetched again
// (which origin they came from is unknown), operator rules still hold.
TEST_F(RobotsOriginTest, OlderRecordsWithoutOriginAreFetchedAgainUnlessSetByAnOperator) {
  AddUrls({"http://a.test/1", "http://b.test/1"});
  Reopen();  // a clean close writes the host records, whose keys give the prefixes
  std::map<std::string, std::string> prefixes;  // host -> its kHost prefix
  {
    std::unique_ptr<rocksdb::Iterator> it(
        store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kHost)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view key = it->key().ToStringView();
      uint16_t part;
      std::string crawl, host;
      size_t plen;
      if (ParseHostPrefix(key, &part, &crawl, &host, &plen)) prefixes[host] = key.substr(0, plen);
    }
  }
  ASSERT_EQ(prefixes.size(), 2u);
  const std::string disallow_all = ParseRobots("User-agent: *\nDisallow: /\n", "crawlfront").Serialize();
  rocksdb::WriteBatch old;
  old.Put(store_->cf(Cf::kHost), prefixes.at("a.test") + 'R',
          EncodeRobotsRecord({RobotsState::kOk, clock_.NowMs() + 3'600'000, disallow_all}));
  old.Put(store_->cf(Cf::kHost), prefixes.at("b.test") + 'R',
          EncodeRobotsRecord({RobotsState::kManual, kNever, disallow_all}));
  ASSERT_TRUE(store_->db()->Write(rocksdb::WriteOptions(), &old).ok());
  Reopen();
  AddUrls({"https://b.test/1"});
  EXPECT_EQ(Drain({}), (std::vector<std::string>{"http://a.test/robots.txt", "http://a.test/1"}))
      << "a's rules fetched again (404: all allowed); b's operator rules block both origins";
  EXPECT_EQ(core_->Stats("").urls_robots_blocked, 2u);
  auto stored = StoredRobots(*store_);
  EXPECT_EQ(stored.count("http://a.test"), 1u);
  EXPECT_EQ(stored.count(""), 1u) << "b's operator rules stay";
  EXPECT_EQ(stored.at("").state, RobotsState::kManual);
}

TEST_F(RobotsOriginTest, OperatorRulesCoverEveryOrigin) {
  ASSERT_TRUE(core_->SetHostRobots("", "a.test", "User-agent: *\nDisallow: /x\n").ok());
  AddUrls({"http://a.test/x1", "https://a.test/x1", "http://a.test:8080/ok"});
  EXPECT_EQ(Drain(kRules), (std::vector<std::string>{"http://a.test:8080/ok"}));
  EXPECT_EQ(core_->Stats("").robots_fetched, 0u);
  EXPECT_EQ(core_->ListHosts("", 1).at(0).robots_state, "manual");
}

// Rules set while a robots.txt fetch is in flight stay when its lease
// expires or is kept across a restart (both used to reset them).
TEST_F(RobotsOriginTest, OperatorRulesOutliveARobotsLeaseInFlight) {
  AddUrls({"http://a.test/x1", "http://a.test/ok"});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_EQ(l[0].kind, LeaseKind::kRobots);
  ASSERT_TRUE(core_->SetHostRobots("", "a.test", "User-agent: *\nDisallow: /x\n").ok());
  Reopen();  // a clean close keeps the lease
  clock_.Advance(options_.lease_timeout.count() + 1);
  size_t expired = 0;
  ASSERT_TRUE(core_->ExpireLeases(&expired).ok());
  EXPECT_EQ(expired, 1u);
  EXPECT_EQ(core_->ListHosts("", 1).at(0).robots_state, "manual");
  EXPECT_EQ(Drain(kRules), (std::vector<std::string>{"http://a.test/ok"}));
  EXPECT_EQ(core_->Stats("").urls_robots_blocked, 1u);
}

// An origin whose robots.txt failed holds the queue while its page is next
// (complete disallow, RFC 9309), without dropping anything, and without
// touching the other origins' rules.
TEST_F(RobotsOriginTest, AFailingOriginWaitsForItsRetry) {
  AddUrls({"http://a.test/1", "https://a.test/1", "http://a.test/2"});
  auto l = LeaseN(1);  // http robots.txt
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(Done(l[0], RobotsBody("User-agent: *\nDisallow:\n")));
  l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].url, "http://a.test/1");
  EXPECT_TRUE(Done(l[0], Fetched()));
  l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].url, "https://a.test/robots.txt");
  EXPECT_TRUE(Done(l[0], RobotsBody("", 503)));
  clock_.Advance(30'000);
  EXPECT_TRUE(LeaseN(5).empty());
  EXPECT_EQ(core_->Stats("").urls_queued, 2u) << "pages wait, they are not dropped";
  EXPECT_EQ(core_->ListHosts("", 1).at(0).robots_state, "error");
  clock_.Advance(30'000);
  EXPECT_EQ(Drain({}), (std::vector<std::string>{"https://a.test/robots.txt", "https://a.test/1",
                                                 "http://a.test/2"}));
  EXPECT_EQ(core_->Stats("").urls_robots_blocked, 0u);
}

}  // namespace
}  // namespace crawlfront
