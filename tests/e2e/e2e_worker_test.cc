// The worker against a real frontier where their settings meet: the robots
// product token they must agree on, and hosts the worker refuses to contact.
// simweb, crawl-frontier and crawl-worker on 127.0.0.1 (docs/e2e.md).

#include <gtest/gtest.h>

#include <sstream>

#include "e2e_env.h"
#include "e2e_logs.h"

namespace crawlfront::e2e {
namespace {

constexpr auto kLimit = std::chrono::seconds(60);

// A small synthetic web; `frontier_sets` are --set KEY=VALUE for the frontier.
WebOptions SmallWeb(int hosts, std::vector<std::string> frontier_sets = {}) {
  WebOptions o;
  o.hosts = hosts;
  o.pages = 5;
  o.frontier_sets = std::move(frontier_sets);
  return o;
}

size_t AccessLines(CrawlEnv& env) {
  auto log = ReadAccessLog(env.access_log());
  return log.ok() ? log->size() : 0;
}

// The frontier picks robots.txt groups for crawl.user_agent; a worker whose
// fetch.user_agent names another crawler fetches nothing and exits 2.
TEST(E2eWorkerTest, WorkerRefusesAnotherRobotsProductToken) {
  CrawlEnv env(SmallWeb(2));
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  auto rc = env.RunWorker(0, {"--set", "fetch.user_agent=mybot/1.0 (+https://example.invalid/)"},
                          kLimit);
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 2);
  const std::string log = testutil::Tail(env.worker_log(0), 100000);
  EXPECT_NE(log.find("robots product token 'mybot' but frontier"), std::string::npos) << log;
  EXPECT_NE(log.find("matches robots.txt groups for 'crawlfront' (its crawl.user_agent)"),
            std::string::npos) << log;
  EXPECT_NE(log.find("Set crawl.user_agent = \"mybot\""), std::string::npos) << log;
  EXPECT_EQ(AccessLines(env), 0u);
  auto inflight = env.Info("urls_inflight");
  ASSERT_TRUE(inflight.ok());
  EXPECT_EQ(*inflight, "0");  // not even robots.txt was leased
}

// With the frontier set to the worker's token the same worker crawls.
TEST(E2eWorkerTest, MatchingRobotsProductTokensCrawl) {
  CrawlEnv env(SmallWeb(2, {"crawl.user_agent=MyBot"}));
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0, {"--set", "fetch.user_agent=mybot/1.0 (+https://x.invalid/)"})
                  .ok());
  Status finished = env.WaitFinished(kLimit);
  EXPECT_TRUE(finished.ok()) << finished.message();
  EXPECT_TRUE(env.StopWorkers().ok());
  EXPECT_GT(AccessLines(env), 0u);
}

// Without fetch.allow_private_networks the worker refuses simweb (127.0.0.1)
// and reports robots leases `disallowed`: the frontier takes that as
// complete disallow at once (not as a robots error retried an hour later),
// so the hosts' pages are settled as robots-blocked and the crawl finishes.
TEST(E2eWorkerTest, PrivateAddressRobotsSettleTheHosts) {
  const WebOptions o =
      SmallWeb(3, {"crawl.robots_error_backoff=1h", "crawl.robots_error_retry=1h"});
  CrawlEnv env(o);
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0, {"--set", "fetch.allow_private_networks=false"}).ok());
  Status finished = env.WaitFinished(kLimit);
  ASSERT_TRUE(finished.ok()) << finished.message();
  auto blocked = env.Info("urls_robots_blocked");
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(*blocked, std::to_string(o.hosts));  // each host's seed
  EXPECT_EQ(*env.Info("urls_failed"), "0");
  EXPECT_TRUE(env.StopWorkers().ok());
  EXPECT_EQ(AccessLines(env), 0u);
  const std::string log = testutil::Tail(env.worker_log(0), 100000);
  size_t warnings = 0;  // "... warning crawl-worker[tid N] host hN.simweb.test: not fetched, ..."
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    warnings += line.find(" warning ") != std::string::npos &&
                line.find("not fetched, private address") != std::string::npos;
  }
  EXPECT_EQ(warnings, static_cast<size_t>(o.hosts)) << log;  // once per host
  EXPECT_NE(log.find("-> disallowed "), std::string::npos) << log;
}

// A worker restarted under a fixed id ends, on connecting, the leases its
// dead predecessor held: their hosts do not wait for the lease timeout
// (10 min here, far beyond the test's limit).
constexpr int kHeldHosts = 2;

// Leases every host's first URL (its robots.txt) as worker "w0", a process
// that then dies without reporting (its connection closes).
void LeaseAsDeadWorker(CrawlEnv& env) {
  auto dead = env.Connect();
  ASSERT_TRUE(dead.ok()) << dead.status().ToString();
  auto reply = (*dead)->Command({"FRONTIER.LEASE", "w0", "100"});
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  ASSERT_EQ(reply->elements.size(), size_t{kHeldHosts}) << "one lease per host";
}

TEST(E2eWorkerTest, RestartedWorkerReleasesItsIdsEarlierLeases) {
  CrawlEnv env(SmallWeb(kHeldHosts, {"crawl.lease_timeout=10m"}));
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  LeaseAsDeadWorker(env);
  ASSERT_TRUE(env.StartWorker(0).ok());  // worker id "w0"
  Status finished = env.WaitFinished(kLimit);
  EXPECT_TRUE(finished.ok()) << finished.message();
  EXPECT_TRUE(env.StopWorkers().ok());
  const std::string log = testutil::Tail(env.worker_log(0), 100000);
  EXPECT_NE(log.find("released 2 lease(s) that worker id w0 held from before this process"),
            std::string::npos) << log;
  EXPECT_GT(AccessLines(env), 0u);
}

TEST(E2eWorkerTest, ReleaseAtStartCanBeTurnedOff) {
  CrawlEnv env(SmallWeb(kHeldHosts, {"crawl.lease_timeout=10m"}));
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  LeaseAsDeadWorker(env);
  auto rc = env.RunWorker(0, {"--set", "worker.release_at_start=false", "--exit-when-idle", "2"},
                          kLimit);
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 0);
  const std::string log = testutil::Tail(env.worker_log(0), 100000);
  EXPECT_EQ(log.find("released"), std::string::npos) << log;
  EXPECT_EQ(AccessLines(env), 0u) << "every host waits for the dead worker's leases";
  // [worker, leases, next_deadline_in_ms] per worker holding leases.
  auto workers = env.Command({"FRONTIER.WORKERS"});
  ASSERT_TRUE(workers.ok()) << workers.status().ToString();
  ASSERT_EQ(workers->elements.size(), 1u);
  const RespValue& w0 = workers->elements[0];
  ASSERT_EQ(w0.elements.size(), 3u);
  EXPECT_EQ(w0.elements[0].str, "w0");
  EXPECT_EQ(w0.elements[1].integer, kHeldHosts);
}

}  // namespace
}  // namespace crawlfront::e2e
