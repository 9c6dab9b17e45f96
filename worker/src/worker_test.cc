// The worker against a fake frontier (a RespServer with FRONTIER.LEASE/DONE
// handlers that hand out a fixed set of leases and record every DONE) and a
// local HTTP server. Everything stays on 127.0.0.1.

#include "crawlfront/worker/worker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <zlib.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "crawlfront/frontier/resp_server.h"
#include "fetcher_test_server.h"

extern char** environ;

namespace crawlfront {
namespace {

using testing::TestHttpServer;
using testing::TestResponse;
namespace fs = std::filesystem;

// Frontier state that survives a restart of the fake server.
struct FakeFrontier {
  std::mutex mu;
  std::deque<std::vector<std::string>> leases;  // {id, url, kind}
  std::set<std::string> open;
  std::map<std::string, std::vector<std::string>> done;  // lease id -> DONE args
  int done_calls = 0;
  int lease_calls = 0;

  void Add(std::string id, std::string url, std::string kind) {
    std::lock_guard<std::mutex> lock(mu);
    open.insert(id);
    leases.push_back({std::move(id), std::move(url), std::move(kind)});
  }
  size_t done_count() {
    std::lock_guard<std::mutex> lock(mu);
    return done.size();
  }

  void Lease(CallContext& ctx) {
    const size_t count = std::stoul(ctx.args()[2]);
    std::vector<std::vector<std::string>> out;
    {
      std::lock_guard<std::mutex> lock(mu);
      ++lease_calls;
      while (out.size() < count && !leases.empty()) {
        out.push_back(leases.front());
        leases.pop_front();
      }
    }
    // Stands in for BLOCK: an empty answer comes back a little later.
    if (out.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ctx.reply().ArrayHeader(out.size());
    for (const auto& l : out) {
      ctx.reply().ArrayHeader(6);
      ctx.reply().Bulk(l[0]);
      ctx.reply().Bulk(l[1]);
      ctx.reply().Integer(0);
      ctx.reply().Integer(1);
      ctx.reply().Bulk(l[2]);
      ctx.reply().Bulk("default");
    }
  }

  void Done(CallContext& ctx) {
    std::lock_guard<std::mutex> lock(mu);
    ++done_calls;
    const std::string id = ctx.args()[2];
    done[id] = std::vector<std::string>(ctx.args().begin() + 3, ctx.args().end());
    ctx.reply().Integer(open.erase(id) ? 1 : 0);
  }

  std::unique_ptr<RespServer> Start(uint16_t port) {
    RespServerOptions o;
    o.listen = "127.0.0.1:" + std::to_string(port);
    o.threads = 1;
    auto server = std::make_unique<RespServer>(o);
    CommandSpec lease;
    lease.arity = -3;
    lease.handler = [this](CallContext& ctx) { Lease(ctx); };
    server->Register("FRONTIER.LEASE", lease);
    CommandSpec done_spec;
    done_spec.arity = -4;
    done_spec.handler = [this](CallContext& ctx) { Done(ctx); };
    server->Register("FRONTIER.DONE", done_spec);
    EXPECT_TRUE(server->Start().ok());
    return server;
  }
};

TestResponse Site(const std::string& path, const std::string&) {
  TestResponse r;
  if (path == "/robots.txt") {
    r.body = "User-agent: *\nDisallow: /private\n";
  } else if (path == "/index.html") {
    r.headers = {{"Content-Type", "text/html; charset=utf-8"}};
    r.body = "<html><a href=a.html>a</a><a rel=nofollow href=/b>b</a>"
             "<a href='http://other.test/c#x'>c</a></html>";
  } else if (path == "/moved") {
    r.status = 302;
    r.headers = {{"Location", "/index.html"}};
  } else if (path == "/busy") {
    r.status = 503;
    r.headers = {{"Retry-After", "3"}};
  } else if (path == "/slow") {
    r.wait_for_gate = true;
    r.body = "finally";
  } else {
    r.status = 404;
  }
  return r;
}

// Waits (bounded, 20 s) until `done` holds.
template <typename Pred>
bool WaitFor(Pred done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// The decompressed text of every .warc.gz file in dir.
std::string ReadWarcs(const fs::path& dir) {
  std::string text;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t pos = 0;
    while (pos < gz.size()) {  // one gzip member per pass
      z_stream zs{};
      if (inflateInit2(&zs, 31) != Z_OK) break;
      zs.next_in = reinterpret_cast<Bytef*>(gz.data() + pos);
      zs.avail_in = static_cast<uInt>(gz.size() - pos);
      char buf[65536];
      int rc = Z_OK;
      while (rc == Z_OK) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof(buf);
        rc = inflate(&zs, Z_NO_FLUSH);
        text.append(buf, sizeof(buf) - zs.avail_out);
      }
      pos += zs.total_in;
      inflateEnd(&zs);
      if (rc != Z_STREAM_END) break;
    }
  }
  return text;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

class WorkerTest : public ::testing::Test {
 protected:
  WorkerTest() : http_(Site) {
    dir_ = fs::temp_directory_path() /
           ("crawlfront_worker_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  ~WorkerTest() override { fs::remove_all(dir_); }

  WorkerOptions Options(uint16_t frontier_port) {
    WorkerOptions o;
    o.id = "w1";
    o.frontiers = {"127.0.0.1:" + std::to_string(frontier_port)};
    o.connect_to = {"site.test:80:127.0.0.1:" + std::to_string(http_.port()),
                    "other.test:80:127.0.0.1:" + std::to_string(http_.port())};
    o.allow_private_networks = true;
    o.warc_dir = (dir_ / "warc").string();
    o.lease_block = std::chrono::milliseconds(100);
    o.max_transfers = 4;
    o.reconnect_min = std::chrono::milliseconds(20);
    o.reconnect_max = std::chrono::milliseconds(200);
    o.log_level = "warn";
    return o;
  }

  TestHttpServer http_;
  FakeFrontier frontier_;
  fs::path dir_;
};

using Args = std::vector<std::string>;

TEST_F(WorkerTest, FetchesReportsAndArchives) {
  frontier_.Add("R1", "http://site.test/robots.txt", "robots");
  frontier_.Add("P1", "http://site.test/index.html", "page");
  frontier_.Add("P2", "http://site.test/moved", "page");
  frontier_.Add("P3", "http://site.test/busy", "page");
  frontier_.Add("P4", "http://site.test/missing", "page");
  auto server = frontier_.Start(0);
  WorkerOptions o = Options(server->port());
  o.exit_when_idle = std::chrono::milliseconds(500);
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  std::atomic<bool> stop{false};
  ASSERT_TRUE((*worker)->Run(stop).ok());

  std::lock_guard<std::mutex> lock(frontier_.mu);
  ASSERT_EQ(frontier_.done.size(), 5u);
  const auto& robots = frontier_.done["R1"];
  ASSERT_GE(robots.size(), 3u);
  EXPECT_EQ(robots[0], "robots");
  EXPECT_EQ(robots[2], "200");
  EXPECT_EQ(robots.back(), "User-agent: *\nDisallow: /private\n");
  // Drop the measured MS value: it is the only non-deterministic part.
  auto without_ms = [](Args a) {
    for (size_t i = 0; i + 1 < a.size(); ++i) {
      if (a[i] == "MS") a.erase(a.begin() + i, a.begin() + i + 2);
    }
    return a;
  };
  EXPECT_EQ(without_ms(frontier_.done["P1"]),
            (Args{"fetched", "STATUS", "200", "LINKS", "http://site.test/a.html",
                  "http://other.test/c"}));
  EXPECT_EQ(without_ms(frontier_.done["P2"]),
            (Args{"fetched", "STATUS", "302", "LINKS", "http://site.test/index.html"}));
  EXPECT_EQ(without_ms(frontier_.done["P3"]),
            (Args{"retry", "STATUS", "503", "DELAY", "3000", "REASON", "http 503"}));
  EXPECT_EQ(without_ms(frontier_.done["P4"]), (Args{"fetched", "STATUS", "404"}));
  EXPECT_TRUE(frontier_.open.empty());
  EXPECT_EQ((*worker)->stats().fetched, 3u);
  EXPECT_EQ((*worker)->stats().pending_done, 0u);

  const std::string warc = ReadWarcs(dir_ / "warc");
  EXPECT_EQ(Count(warc, "WARC-Type: response"), 5u);
  EXPECT_EQ(Count(warc, "WARC-Type: request"), 5u);
  EXPECT_NE(warc.find("WARC-Target-URI: http://site.test/index.html"), std::string::npos);
  EXPECT_NE(warc.find("http://other.test/c"), std::string::npos);  // metadata outlink
  EXPECT_NE(warc.find("WARC-IP-Address: 127.0.0.1"), std::string::npos);
}

TEST_F(WorkerTest, ResultsAreResentAfterFrontierRestart) {
  frontier_.Add("S1", "http://site.test/slow", "page");
  auto server = frontier_.Start(0);
  const uint16_t port = server->port();
  auto worker = Worker::Open(Options(port));
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  std::atomic<bool> stop{false};
  Status run_status;
  std::thread runner([&] { run_status = (*worker)->Run(stop); });

  // The fetch is held by the HTTP server; take the frontier away meanwhile.
  ASSERT_TRUE(WaitFor([&] { return !http_.requests().empty(); }));
  server->Stop();
  server.reset();
  http_.OpenGate();
  EXPECT_TRUE(WaitFor([&] { return (*worker)->stats().fetched == 1; }));
  EXPECT_EQ(frontier_.done_count(), 0u);  // nobody could hear it

  server = frontier_.Start(port);
  EXPECT_TRUE(WaitFor([&] { return frontier_.done_count() == 1; }));
  EXPECT_TRUE(WaitFor([&] { return (*worker)->stats().pending_done == 0; }));
  stop = true;
  runner.join();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
  EXPECT_GE((*worker)->stats().reconnects, 1u);
  std::lock_guard<std::mutex> lock(frontier_.mu);
  ASSERT_EQ(frontier_.done.count("S1"), 1u);
  EXPECT_EQ(frontier_.done["S1"][0], "fetched");
  EXPECT_EQ(frontier_.done["S1"][2], "200");
}

TEST_F(WorkerTest, MaxPagesLimitsLeases) {
  for (int i = 0; i < 5; ++i) {
    frontier_.Add("P" + std::to_string(i), "http://site.test/p" + std::to_string(i), "page");
  }
  auto server = frontier_.Start(0);
  WorkerOptions o = Options(server->port());
  o.max_pages = 2;
  o.warc_enabled = false;
  auto worker = Worker::Open(o);
  ASSERT_TRUE(worker.ok());
  std::atomic<bool> stop{false};
  ASSERT_TRUE((*worker)->Run(stop).ok());
  std::lock_guard<std::mutex> lock(frontier_.mu);
  EXPECT_EQ(frontier_.done.size(), 2u);
  EXPECT_EQ(frontier_.leases.size(), 3u);
  EXPECT_FALSE(fs::exists(dir_ / "warc"));
}

TEST_F(WorkerTest, BadOptionsAreRejected) {
  WorkerOptions o = Options(1);
  o.frontiers = {"no-port"};
  EXPECT_EQ(Worker::Open(o).status().code(), Status::Code::kInvalidArgument);
  o = Options(1);
  o.frontiers.clear();
  EXPECT_EQ(Worker::Open(o).status().code(), Status::Code::kInvalidArgument);
  o = Options(1);
  o.connect_to = {"bad"};
  EXPECT_EQ(Worker::Open(o).status().code(), Status::Code::kInvalidArgument);
}

// The binary: command-line flags, then SIGTERM ends it with exit code 0.
TEST_F(WorkerTest, BinaryStopsCleanlyOnSigterm) {
  frontier_.Add("P1", "http://site.test/index.html", "page");
  auto server = frontier_.Start(0);
  // CRAWLFRONT_BIN_DIR when ctest sets it, else the path CMake compiled in.
  const char* bin_dir = std::getenv("CRAWLFRONT_BIN_DIR");
  const std::string bin =
      bin_dir != nullptr ? std::string(bin_dir) + "/crawl-worker" : CRAWLFRONT_WORKER_BIN;
  const std::string frontier = "127.0.0.1:" + std::to_string(server->port());
  const std::string connect = "site.test:80:127.0.0.1:" + std::to_string(http_.port());
  const std::string warc = (dir_ / "warc").string();
  std::vector<std::string> args = {bin, "--frontier", frontier, "--connect-to", connect,
                                   "--warc-dir", warc, "--set",
                                   "fetch.allow_private_networks=true", "--set",
                                   "lease.block=100ms", "--log-level", "warn"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, bin.c_str(), nullptr, nullptr, argv.data(), environ), 0);
  const bool reported = WaitFor([&] { return frontier_.done_count() == 1; });
  kill(pid, SIGTERM);
  int status = 0;
  bool exited = WaitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; });
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  EXPECT_TRUE(reported);
  ASSERT_TRUE(exited);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(ReadWarcs(warc).find("WARC-Target-URI: http://site.test/index.html"),
            std::string::npos);
}

}  // namespace
}  // namespace crawlfront
