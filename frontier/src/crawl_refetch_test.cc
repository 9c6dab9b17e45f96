// Recrawls across calls: a REFETCH finds the entry an earlier one queued
// (kRecrawl), whether it waits, is due, is leased, retries or survived a
// restart, and queues no second one; once the entry is done the URL is
// queued again.

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

using Kind = AddResult::Kind;
using State = QueuedUrl::State;

class RefetchTest : public CrawlFixture {
 protected:
  void SetUp() override { Open(NoRobotsOptions()); }

  // Fetches `url` once so that it is seen and no longer queued.
  void FetchOnce(const std::string& url) {
    AddUrls({url});
    auto l = LeaseN(1);
    ASSERT_EQ(l.size(), 1u);
    ASSERT_TRUE(Done(l[0], Fetched()));
    ASSERT_EQ(core_->Stats("").urls_queued, 0u);
  }
  Kind Refetch(const std::string& url, int64_t due_ms) {
    std::vector<AddRequest> req{AddRequest{url, 0, 0, "", due_ms}};
    std::vector<AddResult> out;
    Status s = core_->Add("", req, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out.empty() ? Kind::kRejected : out[0].kind;
  }
  std::vector<QueuedUrl> Queue(const std::string& host = "a.test") {
    std::vector<QueuedUrl> q;
    Status s = core_->PeekHost("", host, 100, &q);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return q;
  }
};

TEST_F(RefetchTest, AWaitingRecrawlMovesOnlyEarlier) {
  FetchOnce("http://a.test/1");
  const int64_t now = clock_.NowMs();
  EXPECT_EQ(Refetch("http://a.test/1", now + 5'000), Kind::kRecrawl);  // queued
  EXPECT_EQ(Refetch("http://a.test/1", now + 8'000), Kind::kSeen);  // later: stays
  auto q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].state, State::kScheduled);
  EXPECT_EQ(q[0].due_ms, now + 5'000);
  EXPECT_EQ(Refetch("http://A.TEST/1", now + 3'000), Kind::kRecrawl);  // earlier: moved
  q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].due_ms, now + 3'000);
  EXPECT_EQ(core_->Stats("").urls_queued, 1u);
  clock_.Advance(2'999);
  EXPECT_TRUE(LeaseN(5).empty());
  clock_.Advance(1);
  auto l = LeaseN(5);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].url, "http://a.test/1");
  clock_.Advance(10'000);
  EXPECT_TRUE(LeaseN(5).empty()) << "the moved entry left nothing at its old time";
}

TEST_F(RefetchTest, ADueOrLeasedRecrawlStaysAndTheNextIsQueuedAfterDone) {
  FetchOnce("http://a.test/1");
  EXPECT_EQ(Refetch("http://a.test/1", clock_.NowMs() + 1'000), Kind::kRecrawl);
  clock_.Advance(1'000);
  // Due: a REFETCH for tomorrow leaves today's recrawl where it is.
  EXPECT_EQ(Refetch("http://a.test/1", clock_.NowMs() + 86'400'000), Kind::kSeen);
  auto q = Queue();
  ASSERT_EQ(q.size(), 1u);
  auto l = LeaseN(5);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(Refetch("http://a.test/1", clock_.NowMs() + 86'400'000), Kind::kSeen);
  q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].state, State::kLeased);
  ASSERT_TRUE(Done(l[0], Fetched()));
  EXPECT_EQ(core_->Stats("").urls_queued, 0u);
  // Done: its reference is stale, and the next REFETCH queues the URL.
  const int64_t tomorrow = clock_.NowMs() + 86'400'000;
  EXPECT_EQ(Refetch("http://a.test/1", tomorrow), Kind::kRecrawl);
  q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].state, State::kScheduled);
  EXPECT_EQ(q[0].due_ms, tomorrow);
}

TEST_F(RefetchTest, ARetryingRecrawlKeepsItsBackoff) {
  FetchOnce("http://a.test/1");
  Refetch("http://a.test/1", clock_.NowMs() + 1'000);
  clock_.Advance(1'000);
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  DoneReport r;
  r.outcome = DoneOutcome::kRetry;
  r.retry_delay_ms = 60'000;
  ASSERT_TRUE(Done(l[0], r));
  const int64_t retry_due = clock_.NowMs() + 60'000;
  EXPECT_EQ(Refetch("http://a.test/1", clock_.NowMs() + 5'000), Kind::kSeen);
  auto q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].attempt, 2u);
  EXPECT_EQ(q[0].due_ms, retry_due);
}

TEST_F(RefetchTest, ANewUrlQueuedWithARefetchTimeIsFoundToo) {
  const int64_t now = clock_.NowMs();
  EXPECT_EQ(Refetch("http://a.test/new", now + 5'000), Kind::kNew);
  EXPECT_EQ(Refetch("http://a.test/new", now + 2'000), Kind::kRecrawl);  // moved earlier
  auto q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].due_ms, now + 2'000);
}

TEST_F(RefetchTest, TheIndexSurvivesARestart) {
  FetchOnce("http://a.test/1");
  FetchOnce("http://b.test/1");
  const int64_t now = clock_.NowMs();
  Refetch("http://a.test/1", now + 5'000);
  Refetch("http://b.test/1", now);  // due at once: ready
  Reopen();
  EXPECT_EQ(Refetch("http://a.test/1", now + 4'000), Kind::kRecrawl);  // moved
  EXPECT_EQ(Refetch("http://b.test/1", now + 6'000), Kind::kSeen);     // ready: stays
  EXPECT_EQ(core_->Stats("").urls_queued, 2u);
  auto a = Queue("a.test");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].due_ms, now + 4'000);
  auto b = Queue("b.test");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].state, State::kReady);
}

// An unreadable reference is not an error for the call: it counts as
// absent (one more recrawl is queued) and is overwritten.
TEST_F(RefetchTest, AnUnreadableReferenceIsReplaced) {
  FetchOnce("http://a.test/1");
  const int64_t now = clock_.NowMs();
  Refetch("http://a.test/1", now + 5'000);
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kRecrawl)));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  const std::string key = it->key().ToString();
  it.reset();
  ASSERT_TRUE(store_->db()->Put({}, store_->cf(Cf::kRecrawl), key, "garbage").ok());
  EXPECT_EQ(Refetch("http://a.test/1", now + 3'000), Kind::kRecrawl);  // queued again
  EXPECT_EQ(core_->Stats("").urls_queued, 2u);
  EXPECT_EQ(Refetch("http://a.test/1", now + 1'000), Kind::kRecrawl);  // repaired: moves
  auto q = Queue();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].due_ms, now + 1'000);
  EXPECT_EQ(q[1].due_ms, now + 5'000);
}

// FRONTIER.HOST h DROP and FRONTIER.DROPCRAWL take the host's or crawl's
// recrawl references with them, but keep those of leased entries, which
// the drop keeps: a REFETCH still finds such an entry.
TEST_F(RefetchTest, DropsTakeTheirReferencesButNotALeasedOnes) {
  auto refs = [&] {
    size_t n = 0;
    std::unique_ptr<rocksdb::Iterator> it(
        store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kRecrawl)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_TRUE(it->status().ok());
    return n;
  };
  FetchOnce("http://a.test/1");
  FetchOnce("http://b.test/1");
  const int64_t now = clock_.NowMs();
  EXPECT_EQ(Refetch("http://a.test/1", now + 5'000), Kind::kRecrawl);
  EXPECT_EQ(Refetch("http://b.test/1", now), Kind::kRecrawl);
  auto leased = LeaseN(5);
  ASSERT_EQ(leased.size(), 1u);
  EXPECT_EQ(leased[0].url, "http://b.test/1");
  EXPECT_EQ(refs(), 2u);

  uint64_t dropped = 0;
  ASSERT_TRUE(core_->DropHost("", "a.test", &dropped).ok());
  EXPECT_EQ(dropped, 1u);
  EXPECT_EQ(refs(), 1u) << "a.test's reference went with its entry";

  ASSERT_TRUE(core_->DropCrawl("", &dropped).ok());
  EXPECT_EQ(refs(), 1u) << "the leased entry and its reference stay";
  EXPECT_EQ(Refetch("http://b.test/1", now + 1), Kind::kSeen) << "found, not queued twice";
  EXPECT_EQ(Queue("b.test").size(), 1u);

  EXPECT_TRUE(Done(leased[0], Fetched()));
  ASSERT_TRUE(core_->DropCrawl("", &dropped).ok());
  EXPECT_EQ(dropped, 0u);
  EXPECT_EQ(refs(), 0u) << "a stale reference of an empty queue goes too";
}

// A DONE that says its body was a sitemap queues the URL again
// crawl.sitemap_refetch after the read, so what a site adds to it is found;
// its own links (itself included) are plain links, so nothing piles up, and
// a read that is no sitemap any more ends it.
TEST_F(RefetchTest, AReadSitemapIsQueuedAgainAfterSitemapRefetch) {
  const std::string sitemap = "http://a.test/sitemap.xml";
  DoneReport read = Fetched(200, {sitemap, "http://a.test/new"});
  read.sitemap = true;
  AddUrls({sitemap});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_TRUE(Done(l[0], read));
  l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].url, "http://a.test/new") << "sitemap_refetch 0: the sitemap is read once";
  ASSERT_TRUE(Done(l[0], Fetched()));
  EXPECT_EQ(core_->Stats("").urls_queued, 0u);

  Close();
  CrawlOptions o = NoRobotsOptions();
  o.sitemap_refetch = std::chrono::milliseconds(60'000);
  Open(o);
  ASSERT_EQ(Refetch(sitemap, clock_.NowMs()), Kind::kRecrawl);
  for (int read_no = 1; read_no <= 2; ++read_no) {
    l = LeaseN(5);
    ASSERT_EQ(l.size(), 1u) << "read " << read_no;
    ASSERT_EQ(l[0].url, sitemap);
    EXPECT_EQ(l[0].attempt, 1u);
    const int64_t read_at = clock_.NowMs();
    ASSERT_TRUE(Done(l[0], read));
    auto q = Queue();
    ASSERT_EQ(q.size(), 1u) << "one entry: the recrawl, not the link to itself";
    EXPECT_EQ(q[0].state, State::kScheduled);
    EXPECT_EQ(q[0].due_ms, read_at + 60'000);
    clock_.Advance(59'999);
    EXPECT_TRUE(LeaseN(5).empty()) << "1 ms before it is due";
    clock_.Advance(1);
  }
  l = LeaseN(5);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_TRUE(Done(l[0], Fetched(404)));
  EXPECT_EQ(core_->Stats("").urls_queued, 0u) << "a read that was no sitemap ends it";
  clock_.Advance(120'000);
  EXPECT_TRUE(LeaseN(5).empty());
}

// A sitemap read again recrawls (due now) the links whose <lastmod> is
// later than its previous read; the first read recrawls nothing.
TEST_F(RefetchTest, ASitemapReadAgainRecrawlsTheLinksChangedSince) {
  Close();
  CrawlOptions o = NoRobotsOptions();
  o.sitemap_refetch = std::chrono::milliseconds(60'000);
  Open(o);
  const std::string sitemap = "http://a.test/sitemap.xml";
  for (const char* u : {"http://a.test/old", "http://a.test/none", "http://a.test/changed"}) {
    FetchOnce(u);
  }
  const int64_t first_read_s = clock_.NowMs() / 1000;
  DoneReport read = Fetched(200, {"http://a.test/old", "http://a.test/none",
                                  "http://a.test/changed", "http://a.test/new"});
  read.sitemap = true;
  read.lastmod_s = {first_read_s - 10, 0, first_read_s + 30, first_read_s + 30};
  AddUrls({sitemap});
  auto l = LeaseN(1);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_TRUE(Done(l[0], read));
  l = LeaseN(5);
  ASSERT_EQ(l.size(), 1u) << "the first read recrawls nothing";
  EXPECT_EQ(l[0].url, "http://a.test/new");
  ASSERT_TRUE(Done(l[0], Fetched()));

  clock_.Advance(60'000);
  l = LeaseN(5);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_EQ(l[0].url, sitemap);
  ASSERT_TRUE(Done(l[0], read));
  std::vector<std::string> leased;
  for (auto lease = LeaseN(5); !lease.empty(); lease = LeaseN(5)) {
    for (const auto& x : lease) {
      leased.push_back(x.url);
      ASSERT_TRUE(Done(x, Fetched()));
    }
  }
  EXPECT_EQ(leased, (std::vector<std::string>{"http://a.test/changed", "http://a.test/new"}))
      << "changed after the first read: /changed, and /new (fetched since, but listed "
         "with a later lastmod)";
  auto q = Queue();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].url, sitemap);
}

}  // namespace
}  // namespace crawlfront
