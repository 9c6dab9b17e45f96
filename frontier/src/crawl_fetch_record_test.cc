// Each URL's last fetch result (kFetch, crawl.fetch_history): what every
// DONE outcome, an expiry, a release and a robots block leave for
// FRONTIER.URL, across restarts and recrawls; and its encoding.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"
#include "crawlfront/frontier/fetch_record.h"

namespace crawlfront {
namespace {

TEST(FetchRecordTest, RoundTripsAndCutsLongReasons) {
  FetchRecord r{UrlOutcome::kRetry, 503, 2, 1'700'000'000'123, 45, "HTTP 503"};
  FetchRecord back;
  ASSERT_TRUE(DecodeFetchRecord(EncodeFetchRecord(r), &back));
  EXPECT_EQ(back.outcome, UrlOutcome::kRetry);
  EXPECT_EQ(back.status, 503);
  EXPECT_EQ(back.attempt, 2u);
  EXPECT_EQ(back.at_ms, 1'700'000'000'123);
  EXPECT_EQ(back.fetch_ms, 45);
  EXPECT_EQ(back.reason, "HTTP 503");

  r.reason = std::string(1000, 'x');
  ASSERT_TRUE(DecodeFetchRecord(EncodeFetchRecord(r), &back));
  EXPECT_EQ(back.reason, std::string(kMaxFetchReason, 'x'));
}

TEST(FetchRecordTest, KeepsValidators) {
  FetchRecord r{UrlOutcome::kFetched, 200, 1, 5, 6, "", "\"abc\"",
                "Tue, 01 Dec 2026 00:00:00 GMT"};
  FetchRecord back;
  ASSERT_TRUE(DecodeFetchRecord(EncodeFetchRecord(r), &back));
  EXPECT_EQ(back.etag, "\"abc\"");
  EXPECT_EQ(back.last_modified, "Tue, 01 Dec 2026 00:00:00 GMT");
  EXPECT_FALSE(back.sitemap);
  r.sitemap = true;
  ASSERT_TRUE(DecodeFetchRecord(EncodeFetchRecord(r), &back));
  EXPECT_TRUE(back.sitemap);
}

// Queue entries carry a recrawl's validators (version 2); others stay in
// version 1's bytes.
TEST(FetchRecordTest, QueueEntriesCarryValidatorsOnlyWhenSet) {
  QueueItem item;
  item.url = "http://a.test/x";
  item.seq = 7;
  const std::string plain = EncodeItem(item);
  EXPECT_EQ(plain[0], 1);
  item.etag = "W/\"1\"";
  item.last_modified = "Tue, 01 Dec 2026 00:00:00 GMT";
  const std::string with = EncodeItem(item);
  EXPECT_EQ(with[0], 2);
  QueueItem back;
  ASSERT_TRUE(DecodeItem(with, &back).ok());
  EXPECT_EQ(back.url, item.url);
  EXPECT_EQ(back.seq, 7u);
  EXPECT_EQ(back.etag, item.etag);
  EXPECT_EQ(back.last_modified, item.last_modified);
  ASSERT_TRUE(DecodeItem(plain, &back).ok());
  EXPECT_EQ(back.etag, "");
  EXPECT_EQ(back.last_modified, "");
  EXPECT_FALSE(DecodeItem(with.substr(0, with.size() - 1), &back).ok());
  std::string v1_with_tail = plain + "x";
  EXPECT_FALSE(DecodeItem(v1_with_tail, &back).ok());
}

TEST(FetchRecordTest, RejectsMalformedBytes) {
  const std::string good =
      EncodeFetchRecord({UrlOutcome::kFetched, 200, 1, 5, 6, "because"});
  FetchRecord r;
  EXPECT_FALSE(DecodeFetchRecord("", &r));
  EXPECT_FALSE(DecodeFetchRecord(good.substr(0, good.size() - 1), &r));  // reason cut
  EXPECT_FALSE(DecodeFetchRecord(good + "z", &r));                        // trailing byte
  std::string bad_version = good;
  bad_version[0] = 9;
  EXPECT_FALSE(DecodeFetchRecord(bad_version, &r));
  std::string bad_flags = good;
  bad_flags[26] = 2;  // no such flag
  EXPECT_FALSE(DecodeFetchRecord(bad_flags, &r));
  for (char outcome : {char{0}, char{7}, char{-1}}) {
    std::string bad = good;
    bad[1] = outcome;
    EXPECT_FALSE(DecodeFetchRecord(bad, &r)) << int{outcome};
  }
}

class CrawlFetchRecordTest : public CrawlFixture {
 protected:
  FetchRecord Last(const std::string& url) {
    UrlReport r;
    Status s = core_->Explain("", url, &r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r.last;
  }
  LeasedUrl LeaseOne() {
    auto leased = LeaseN(1);
    EXPECT_EQ(leased.size(), 1u);
    return leased.empty() ? LeasedUrl{} : leased[0];
  }
  static DoneReport Outcome(DoneOutcome o, int status, std::string reason) {
    DoneReport r;
    r.outcome = o;
    r.http_status = status;
    r.reason = std::move(reason);
    return r;
  }
};

TEST_F(CrawlFetchRecordTest, KeepsTheResultOfEachDoneOutcome) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/ok", "http://b.test/gone", "http://c.test/no"});
  EXPECT_EQ(Last("http://a.test/ok").outcome, UrlOutcome::kNone);
  for (int i = 0; i < 3; ++i) {
    LeasedUrl l = LeaseOne();
    clock_.Advance(10);
    const int64_t at = clock_.NowMs();
    if (l.url == "http://a.test/ok") {
      DoneReport r = Fetched(404);
      r.fetch_ms = 37;
      ASSERT_TRUE(Done(l, r));
      FetchRecord f = Last(l.url);
      EXPECT_EQ(f.outcome, UrlOutcome::kFetched);
      EXPECT_EQ(f.status, 404);
      EXPECT_EQ(f.fetch_ms, 37);
      EXPECT_EQ(f.attempt, 1u);
      EXPECT_EQ(f.at_ms, at);
      EXPECT_EQ(f.reason, "");
    } else if (l.url == "http://b.test/gone") {
      ASSERT_TRUE(Done(l, Outcome(DoneOutcome::kFailed, 0, "dns: no such host")));
      FetchRecord f = Last(l.url);
      EXPECT_EQ(f.outcome, UrlOutcome::kFailed);
      EXPECT_EQ(f.reason, "dns: no such host");
      EXPECT_EQ(f.at_ms, at);
    } else {
      ASSERT_EQ(l.url, "http://c.test/no");
      ASSERT_TRUE(Done(l, Outcome(DoneOutcome::kDisallowed, 0, "private address")));
      FetchRecord f = Last(l.url);
      EXPECT_EQ(f.outcome, UrlOutcome::kDisallowed);
      EXPECT_EQ(f.reason, "private address");
    }
  }
  // Kept on disk: a restart still reports them.
  Reopen();
  EXPECT_EQ(Last("http://a.test/ok").status, 404);
  EXPECT_EQ(Last("http://b.test/gone").outcome, UrlOutcome::kFailed);
  EXPECT_EQ(Last("http://c.test/no").outcome, UrlOutcome::kDisallowed);
}

TEST_F(CrawlFetchRecordTest, RetriesThenFailureAfterTheLastAttempt) {
  CrawlOptions o = NoRobotsOptions(0);
  o.max_attempts = 2;
  Open(o);
  AddUrls({"http://a.test/busy"});
  ASSERT_TRUE(Done(LeaseOne(), Outcome(DoneOutcome::kRetry, 503, "HTTP 503")));
  FetchRecord f = Last("http://a.test/busy");
  EXPECT_EQ(f.outcome, UrlOutcome::kRetry);
  EXPECT_EQ(f.status, 503);
  EXPECT_EQ(f.attempt, 1u);
  EXPECT_EQ(f.reason, "HTTP 503");

  clock_.Advance(60'000);  // past the backoff
  LeasedUrl second = LeaseOne();
  ASSERT_EQ(second.attempt, 2u);
  ASSERT_TRUE(Done(second, Outcome(DoneOutcome::kRetry, 503, "HTTP 503")));
  f = Last("http://a.test/busy");
  EXPECT_EQ(f.outcome, UrlOutcome::kFailed);
  EXPECT_EQ(f.status, 503);
  EXPECT_EQ(f.attempt, 2u);
  EXPECT_EQ(f.reason, "max attempts (2) reached: HTTP 503");
}

TEST_F(CrawlFetchRecordTest, ExpiriesReleasesAndRobotsBlocksAreKept) {
  CrawlOptions o = TestOptions();  // robots.txt respected
  o.default_delay = std::chrono::milliseconds(0);
  o.max_attempts = 3;
  Open(o);
  AddUrls({"http://a.test/private/x", "http://a.test/page"});
  LeasedUrl robots = LeaseOne();
  ASSERT_EQ(robots.kind, LeaseKind::kRobots);
  ASSERT_TRUE(Done(robots, RobotsBody("User-agent: *\nDisallow: /private\n")));

  LeasedUrl page = LeaseOne();  // the blocked one, first in line, is settled
  ASSERT_EQ(page.url, "http://a.test/page");
  FetchRecord f = Last("http://a.test/private/x");
  EXPECT_EQ(f.outcome, UrlOutcome::kRobotsBlocked);
  EXPECT_EQ(f.reason, "robots.txt disallows it");

  clock_.Advance(options_.lease_timeout.count() + 1);
  ASSERT_TRUE(core_->ExpireLeases().ok());
  f = Last(page.url);
  EXPECT_EQ(f.outcome, UrlOutcome::kExpired);
  EXPECT_EQ(f.reason, "lease expired");
  EXPECT_EQ(f.attempt, 1u);

  LeasedUrl again = LeaseOne();
  ASSERT_EQ(again.attempt, 2u);
  size_t released = 0;
  ASSERT_TRUE(core_->ReleaseLeases("w1", {}, &released).ok());
  ASSERT_EQ(released, 1u);
  f = Last(page.url);
  EXPECT_EQ(f.outcome, UrlOutcome::kExpired);
  EXPECT_EQ(f.reason, "lease released");
  EXPECT_EQ(f.attempt, 2u);

  LeaseOne();  // attempt 3, the last
  clock_.Advance(options_.lease_timeout.count() + 1);
  ASSERT_TRUE(core_->ExpireLeases().ok());
  f = Last(page.url);
  EXPECT_EQ(f.outcome, UrlOutcome::kFailed);
  EXPECT_EQ(f.reason, "lease expired 3 times");
}

TEST_F(CrawlFetchRecordTest, ARecrawlShowsThePreviousResultUntilItsOwn) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/daily"});
  ASSERT_TRUE(Done(LeaseOne(), Fetched(200)));
  const int64_t due = clock_.NowMs() + 60'000;
  std::vector<AddRequest> again{AddRequest{"http://a.test/daily", 0, 0, "", due}};
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("", again, &out).ok());
  UrlReport r;
  ASSERT_TRUE(core_->Explain("", "http://a.test/daily", &r).ok());
  EXPECT_EQ(r.state, "scheduled");
  EXPECT_EQ(r.last.outcome, UrlOutcome::kFetched);
  EXPECT_EQ(r.last.status, 200);

  clock_.Set(due);
  ASSERT_TRUE(Done(LeaseOne(), Fetched(500)));
  EXPECT_EQ(Last("http://a.test/daily").status, 500);
}

// A recrawl is leased with the validators its last fetch reported, also
// after a restart; a 304 that confirms them keeps them for the next one.
TEST_F(CrawlFetchRecordTest, ARecrawlIsLeasedWithTheLastFetchsValidators) {
  Open(NoRobotsOptions(0));
  const std::string url = "http://a.test/daily";
  AddUrls({url});
  LeasedUrl first = LeaseOne();
  EXPECT_EQ(first.etag, "");
  EXPECT_EQ(first.last_modified, "");
  DoneReport ok = Fetched(200);
  ok.etag = "\"v1\"";
  ok.last_modified = "Tue, 01 Dec 2026 00:00:00 GMT";
  ASSERT_TRUE(Done(first, ok));
  EXPECT_EQ(Last(url).etag, "\"v1\"");

  auto recrawl = [&] {
    std::vector<AddRequest> again{AddRequest{url, 0, 0, "", clock_.NowMs()}};
    std::vector<AddResult> out;
    ASSERT_TRUE(core_->Add("", again, &out).ok());
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].kind, AddResult::Kind::kRecrawl);
  };
  recrawl();
  Reopen();  // the queue entry keeps them
  LeasedUrl second = LeaseOne();
  ASSERT_EQ(second.url, url);
  EXPECT_EQ(second.etag, "\"v1\"");
  EXPECT_EQ(second.last_modified, "Tue, 01 Dec 2026 00:00:00 GMT");
  DoneReport same = Fetched(304);
  same.etag = second.etag;  // the worker echoes them when the 304 has none
  same.last_modified = second.last_modified;
  ASSERT_TRUE(Done(second, same));
  EXPECT_EQ(Last(url).status, 304);

  recrawl();
  LeasedUrl third = LeaseOne();
  EXPECT_EQ(third.etag, "\"v1\"");
  ASSERT_TRUE(Done(third, Fetched(200)));  // changed, and no validators now
  recrawl();
  LeasedUrl fourth = LeaseOne();
  EXPECT_EQ(fourth.etag, "");
  EXPECT_EQ(fourth.last_modified, "");
}

// A sitemap's recrawl is an unconditional GET: it must be read again.
TEST_F(CrawlFetchRecordTest, ASitemapsRecrawlHasNoValidators) {
  Open(NoRobotsOptions(0));
  const std::string url = "http://a.test/sitemap.xml";
  AddUrls({url});
  DoneReport read = Fetched(200);
  read.sitemap = true;
  read.etag = "\"s1\"";
  ASSERT_TRUE(Done(LeaseOne(), read));
  EXPECT_TRUE(Last(url).sitemap);
  std::vector<AddRequest> again{AddRequest{url, 0, 0, "", clock_.NowMs()}};
  std::vector<AddResult> out;
  ASSERT_TRUE(core_->Add("", again, &out).ok());
  LeasedUrl recrawl = LeaseOne();
  ASSERT_EQ(recrawl.url, url);
  EXPECT_EQ(recrawl.etag, "");
}

TEST_F(CrawlFetchRecordTest, OffKeepsNothing) {
  CrawlOptions o = NoRobotsOptions(0);
  o.fetch_history = false;
  Open(o);
  AddUrls({"http://a.test/x"});
  ASSERT_TRUE(Done(LeaseOne(), Fetched(200)));
  EXPECT_EQ(Last("http://a.test/x").outcome, UrlOutcome::kNone);
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->cf(Cf::kFetch)));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
}

// Records are per crawl: the same URL in another crawl has its own.
TEST_F(CrawlFetchRecordTest, EachCrawlKeepsItsOwn) {
  Open(NoRobotsOptions(0));
  AddUrls({"http://a.test/x"});
  AddUrls({"http://a.test/x"}, "other");
  auto leased = LeaseN(1, "w1", "other");
  ASSERT_EQ(leased.size(), 1u);
  ASSERT_TRUE(Done(leased[0], Fetched(301)));
  UrlReport r;
  ASSERT_TRUE(core_->Explain("other", "http://a.test/x", &r).ok());
  EXPECT_EQ(r.last.status, 301);
  EXPECT_EQ(Last("http://a.test/x").outcome, UrlOutcome::kNone);
}

}  // namespace
}  // namespace crawlfront
