// Restarts: a clean close and a SIGKILLed process both keep queues, leases
// (re-queued), host controls and counters.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

#include "crawl_test_util.h"
#include "crawlfront/frontier/crawl.h"

namespace crawlfront {
namespace {

class CrawlRestartTest : public CrawlFixture {};

TEST_F(CrawlRestartTest, ReopenRestoresQueuesLeasesControlsAndCounters) {
  Open(TestOptions());
  std::vector<std::string> urls;
  for (int i = 0; i < 50; ++i) urls.push_back("http://a.test/" + std::to_string(i));
  urls.push_back("http://b.test/1");
  AddUrls(urls);
  AddUrls({"http://c.test/1"}, "c2");
  AddUrls({"ftp://rejected/"});
  ASSERT_TRUE(core_->SetHostDelay("", "a.test", 5).ok());
  ASSERT_TRUE(core_->BlockHostUntil("", "b.test", clock_.NowMs() + 100'000).ok());
  ASSERT_TRUE(core_->SetHostRobots("", "a.test", "User-agent: *\nDisallow: /4\n").ok());
  ASSERT_TRUE(core_->Pause("c2").ok());
  std::set<std::string> leased;
  for (int i = 0; i < 20; ++i) {
    for (auto& l : LeaseN(1)) {
      leased.insert(l.url);
      EXPECT_TRUE(Done(l, Fetched()));
    }
    clock_.Advance(5);
  }
  auto open_lease = LeaseN(1);  // in flight at the restart
  ASSERT_EQ(open_lease.size(), 1u);
  CrawlStats before = core_->Stats("");
  EXPECT_EQ(before.urls_inflight, 1u);

  Reopen();
  CrawlStats after = core_->Stats("");
  EXPECT_EQ(after.urls_seen, before.urls_seen);
  EXPECT_EQ(after.urls_done, before.urls_done);
  EXPECT_EQ(after.urls_rejected, before.urls_rejected);
  EXPECT_EQ(after.urls_robots_blocked, before.urls_robots_blocked);
  EXPECT_EQ(after.fetched_2xx, before.fetched_2xx);
  EXPECT_EQ(after.urls_queued, before.urls_queued + 1) << "the open lease is queued again";
  EXPECT_EQ(after.urls_inflight, 0u);
  bool known = true;
  ASSERT_TRUE(core_->Done("w1", open_lease[0].lease_id, Fetched(), &known).ok());
  EXPECT_FALSE(known) << "leases of the previous run are forgotten";
  auto hosts = core_->ListHosts("default", 0);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "a.test");
  EXPECT_EQ(hosts[0].delay_ms, 5);
  EXPECT_EQ(hosts[0].robots_state, "manual");
  EXPECT_EQ(hosts[1].blocked_until_ms, clock_.NowMs() + 100'000 - 100);

  // Drain: every URL not yet done comes out exactly once, paused c2 none.
  clock_.Advance(1'000);
  size_t pages = 0;
  for (int i = 0; i < 200 && !core_->Finished("default"); ++i) {  // 2 s < block
    for (auto& l : LeaseN(10)) {
      EXPECT_NE(l.crawl, "c2");
      if (l.url == open_lease[0].url) {
        EXPECT_EQ(l.attempt, open_lease[0].attempt);
      }
      if (l.kind == LeaseKind::kPage) {
        EXPECT_TRUE(leased.insert(l.url).second) << "leased twice: " << l.url;
        ++pages;
      }
      EXPECT_TRUE(Done(l, l.kind == LeaseKind::kRobots ? RobotsBody("") : Fetched()));
    }
    clock_.Advance(10);
  }
  EXPECT_FALSE(core_->Finished("default")) << "b.test is still blocked";
  clock_.Advance(100'000);
  for (int i = 0; i < 10; ++i) {
    for (auto& l : LeaseN(10)) {
      EXPECT_TRUE(Done(l, l.kind == LeaseKind::kRobots ? RobotsBody("") : Fetched()));
    }
    clock_.Advance(1'000);
  }
  EXPECT_TRUE(core_->Finished("default"));
  EXPECT_FALSE(core_->Finished("c2"));
  EXPECT_EQ(core_->Stats("default").urls_robots_blocked, 11u);  // /4, /40../49
  EXPECT_EQ(core_->Stats("default").urls_done, 51u);
}

// A child adds URLs in batches and leases some, reporting each acknowledged
// batch on a pipe, and is SIGKILLed at a random moment. After reopening,
// every acknowledged URL is seen and comes out of the queue exactly once.
TEST_F(CrawlRestartTest, KilledProcessLosesNoAckedUrl) {
  for (int round = 0; round < 3; ++round) {
    CrawlTempDir dir;
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      auto store = Store::Open(dir.path(), StoreOptions{});
      if (!store.ok()) _exit(3);
      SeenSetOptions so;
      so.partitions = 16;
      so.snapshot_interval = std::chrono::milliseconds(0);
      auto seen = SeenSet::Open(store->get(), so);
      if (!seen.ok()) _exit(4);
      auto core = CrawlCore::Open(store->get(), seen->get(), NoRobotsOptions(0), Clock::Real());
      if (!core.ok()) _exit(5);
      for (uint64_t b = 0; b < 100'000; ++b) {  // bounded: killed long before
        std::vector<AddRequest> reqs;
        for (int j = 0; j < 50; ++j) {
          reqs.push_back({"http://h" + std::to_string(j % 7) + ".test/" + std::to_string(b) +
                              "/" + std::to_string(j), 0, 0, "", 0});
        }
        std::vector<AddResult> out;
        if (!(*core)->Add("", reqs, &out).ok()) _exit(6);
        std::vector<LeasedUrl> leases;
        if (!(*core)->Lease("w", 3, "", &leases).ok()) _exit(7);
        uint64_t acked = b + 1;
        if (write(fds[1], &acked, sizeof acked) != sizeof acked) _exit(8);
      }
      _exit(0);
    }
    close(fds[1]);
    uint64_t acked = 0, v;
    uint64_t kill_after = 20 + 37 * round;
    while (acked < kill_after && read(fds[0], &v, sizeof v) == sizeof v) acked = v;
    kill(pid, SIGKILL);
    while (read(fds[0], &v, sizeof v) == sizeof v) acked = v;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited early: " << status;

    auto store = Store::Open(dir.path(), StoreOptions{});
    ASSERT_TRUE(store.ok());
    SeenSetOptions so;
    so.partitions = 16;
    so.snapshot_interval = std::chrono::milliseconds(0);
    auto seen = SeenSet::Open(store->get(), so);
    ASSERT_TRUE(seen.ok());
    clock_.Set(Clock::Real()->NowMs() + 1000);  // past the child's real-time leases
    auto core = CrawlCore::Open(store->get(), seen->get(), NoRobotsOptions(0), &clock_);
    ASSERT_TRUE(core.ok()) << core.status().ToString();
    CrawlStats s = (*core)->Stats("");
    EXPECT_GE(s.urls_seen, acked * 50);
    EXPECT_EQ(s.urls_inflight, 0u);
    EXPECT_EQ(s.urls_queued, s.urls_seen) << "nothing was done, everything waits";
    std::set<std::string> out;
    for (int i = 0; i < 100'000 && out.size() < s.urls_seen; ++i) {
      std::vector<LeasedUrl> leases;
      ASSERT_TRUE((*core)->Lease("w", 100, "", &leases).ok());
      if (leases.empty()) break;
      for (auto& l : leases) {
        EXPECT_TRUE(out.insert(l.url).second) << "duplicate " << l.url;
        bool known;
        ASSERT_TRUE((*core)->Done("w", l.lease_id, Fetched(), &known).ok());
      }
    }
    EXPECT_EQ(out.size(), s.urls_seen);
    for (uint64_t b = 0; b < acked; ++b) {
      for (int j = 0; j < 50; j += 13) {
        std::string u = "http://h" + std::to_string(j % 7) + ".test/" + std::to_string(b) + "/" +
                        std::to_string(j);
        EXPECT_TRUE(out.count(u)) << "lost acked URL " << u;
      }
    }
    EXPECT_TRUE((*core)->Finished(""));
  }
}

}  // namespace
}  // namespace crawlfront
