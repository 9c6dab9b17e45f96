#include "worker_test_util.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <iterator>

extern char** environ;

namespace crawlfront::worker_test {

namespace fs = std::filesystem;

void FakeFrontier::Add(std::string id, std::string url, std::string kind) {
  std::lock_guard<std::mutex> lock(mu);
  open.insert(id);
  leases.push_back({std::move(id), std::move(url), std::move(kind)});
}

size_t FakeFrontier::done_count() {
  std::lock_guard<std::mutex> lock(mu);
  return done.size();
}

size_t FakeFrontier::CallsOf(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu);
  return std::count(calls.begin(), calls.end(), name);
}

void FakeFrontier::Lease(CallContext& ctx) {
  const size_t count = std::stoul(ctx.args()[2]);
  std::vector<std::vector<std::string>> out;
  {
    std::lock_guard<std::mutex> lock(mu);
    ++lease_calls;
    calls.push_back("LEASE");
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

void FakeFrontier::Done(CallContext& ctx) {
  std::lock_guard<std::mutex> lock(mu);
  ++done_calls;
  calls.push_back("DONE");
  const std::string id = ctx.args()[2];
  done[id] = std::vector<std::string>(ctx.args().begin() + 3, ctx.args().end());
  ctx.reply().Integer(open.erase(id) ? 1 : 0);
}

void FakeFrontier::Renew(CallContext& ctx) {
  std::lock_guard<std::mutex> lock(mu);
  calls.push_back("RENEW");
  const std::string id = ctx.args()[2];
  renewed[id] = ctx.args().size() > 3 ? ctx.args()[3] : "";
  ctx.reply().Integer(open.count(id) ? 1 : 0);
}

// Records the call; the fake's leases are not kept per worker, so it ends none.
// Answers release_errors first.
void FakeFrontier::Release(CallContext& ctx) {
  std::lock_guard<std::mutex> lock(mu);
  calls.push_back("RELEASE " + std::string(ctx.args()[1]));
  if (!release_errors.empty()) {
    const std::string error = release_errors.front();
    release_errors.pop_front();
    return ctx.reply().Error(error);
  }
  ctx.reply().Integer(0);
}

std::string FakeFrontier::Info(std::string_view section) {
  std::lock_guard<std::mutex> lock(mu);
  calls.push_back("INFO");
  if ((!section.empty() && section != "robots") || robots_line.empty()) return "";
  return "# Robots\r\n" + robots_line + "\r\n";
}

std::unique_ptr<RespServer> FakeFrontier::Start(uint16_t port) {
  RespServerOptions o;
  o.listen = "127.0.0.1:" + std::to_string(port);
  o.threads = 1;
  auto server = std::make_unique<RespServer>(o);
  auto spec = [](int arity, std::function<void(CallContext&)> handler) {
    CommandSpec s;
    s.arity = arity;
    s.handler = std::move(handler);
    return s;
  };
  server->Register("FRONTIER.LEASE", spec(-3, [this](CallContext& c) { Lease(c); }));
  server->Register("FRONTIER.DONE", spec(-4, [this](CallContext& c) { Done(c); }));
  server->Register("FRONTIER.RENEW", spec(-3, [this](CallContext& c) { Renew(c); }));
  server->Register("FRONTIER.RELEASE", spec(-2, [this](CallContext& c) { Release(c); }));
  server->SetInfoProvider([this](std::string_view section) { return Info(section); });
  if (!server->Start().ok()) return nullptr;
  return server;
}

testing::TestResponse Site(const std::string& path, const std::string&) {
  testing::TestResponse r;
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

std::string ReadWarcs(const fs::path& dir) {
  std::string text;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string gz = ReadFile(entry.path());
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

LogCapture::LogCapture()
    : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10000)),
      old_(spdlog::default_logger()) {
  sink_->set_pattern("%l %v");
  auto logger = std::make_shared<spdlog::logger>("capture", sink_);
  logger->set_level(spdlog::level::debug);
  spdlog::set_default_logger(logger);
}

LogCapture::~LogCapture() { spdlog::set_default_logger(old_); }

size_t LogCapture::Lines(spdlog::level::level_enum level, const std::string& needle) {
  const std::string prefix = std::string(spdlog::level::to_string_view(level).data()) + " ";
  size_t n = 0;
  for (const std::string& line : sink_->last_formatted()) {
    n += line.starts_with(prefix) && line.find(needle) != std::string::npos;
  }
  return n;
}

std::string LogCapture::All() {
  std::string out;
  for (const std::string& line : sink_->last_formatted()) out += line;
  return out;
}

std::string WorkerBinary() {
  const char* bin_dir = std::getenv("CRAWLFRONT_BIN_DIR");
  return bin_dir != nullptr ? std::string(bin_dir) + "/crawl-worker" : CRAWLFRONT_WORKER_BIN;
}

pid_t SpawnWorker(const std::vector<std::string>& args, const std::string& output) {
  std::vector<std::string> all = {WorkerBinary()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  if (posix_spawn(&pid, all[0].c_str(), &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int WaitExit(pid_t pid, std::chrono::milliseconds limit) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

WorkerTest::WorkerTest() : http_(Site) {
  dir_ = fs::temp_directory_path() /
         ("crawlfront_worker_test_" + std::to_string(getpid()) + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

WorkerTest::~WorkerTest() { fs::remove_all(dir_); }

WorkerOptions WorkerTest::Options(uint16_t frontier_port) {
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

}  // namespace crawlfront::worker_test
