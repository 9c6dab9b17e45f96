#include "e2e_env.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <thread>

namespace crawlfront::e2e {
namespace {

using Clock = std::chrono::steady_clock;

std::string InfoField(const std::string& info, const std::string& field) {
  std::istringstream in(info);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(field + ":", 0) == 0) return line.substr(field.size() + 1);
  }
  return "";
}

}  // namespace

Result<int> RunTool(const std::string& binary, const std::vector<std::string>& args,
                    const std::string& out_path, const std::string& err_path,
                    std::chrono::seconds timeout) {
  return RunProgram(testutil::BinDir() + "/" + binary, args, out_path, err_path, timeout);
}

Result<int> RunProgram(const std::string& exe, const std::vector<std::string>& args,
                       const std::string& out_path, const std::string& err_path,
                       std::chrono::seconds timeout) {
  const std::string& binary = exe;
  pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork failed");
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) dup2(out, STDOUT_FILENO);
    if (err >= 0) dup2(err, STDERR_FILENO);
    std::vector<char*> argv = {const_cast<char*>(exe.c_str())};
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(exe.c_str(), argv.data());
    _exit(127);
  }
  auto deadline = Clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return Status::Unavailable(binary + " did not finish in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!WIFEXITED(status)) return Status::Internal(binary + " was killed by a signal");
  return WEXITSTATUS(status);
}

CrawlEnv::CrawlEnv(WebOptions options) : options_(std::move(options)) {}

CrawlEnv::~CrawlEnv() {
  for (auto& [n, w] : workers_) w.Stop();
  client_.reset();
  frontier_.Stop();
  simweb_.Stop();
}

Status CrawlEnv::Start() {
  std::string error;
  const WebOptions& o = options_;
  std::vector<std::string> web_args = {
      "--listen", "127.0.0.1:0", "--hosts", std::to_string(o.hosts), "--pages",
      std::to_string(o.pages), "--seed", std::to_string(o.seed), "--port-file",
      dir_ / "simweb.port", "--access-log", access_log()};
  web_args.insert(web_args.end(), o.simweb_args.begin(), o.simweb_args.end());
  if (!simweb_.Start("simweb", web_args, dir_ / "simweb.log", dir_ / "simweb.port", &error)) {
    return Status::Unavailable(error);
  }
  std::vector<std::string> sets = {
      "crawl.default_delay=" + std::to_string(o.delay_ms) + "ms",
      "crawl.max_depth=" + std::to_string(o.max_depth),
      "crawl.allow_host_suffixes=[\".simweb.test\"]", "crawl.robots_error_retry=1s",
      "crawl.check_live_counts=true"};
  sets.insert(sets.end(), o.frontier_sets.begin(), o.frontier_sets.end());
  for (auto& s : sets) frontier_args_.insert(frontier_args_.end(), {"--set", s});
  CRAWLFRONT_RETURN_IF_ERROR(StartFrontier(0, 0));
  return Seed();
}

Status CrawlEnv::StartFrontier(int resp_port, int http_port) {
  std::string error;
  if (!testutil::StartFrontier(&frontier_, dir_, dir_ / "data", frontier_args_, &error,
                               resp_port, http_port)) {
    return Status::Unavailable(error);
  }
  auto client = RespClient::Connect("127.0.0.1", static_cast<uint16_t>(frontier_.Port("resp")),
                                    std::chrono::seconds(10));
  if (!client.ok()) return client.status();
  client_ = std::move(*client);
  return Status::Ok();
}

void CrawlEnv::KillFrontier() {
  client_.reset();
  frontier_.Kill9();
}

Status CrawlEnv::RestartFrontier() {
  const int resp = frontier_.Port("resp"), http = frontier_.Port("http");
  Status s;
  // A port can be taken meanwhile (e.g. as a client's local port); rare.
  for (int attempt = 0; attempt < 5; ++attempt) {
    s = StartFrontier(resp, http);
    if (s.ok()) return s;
    frontier_.Stop();  // one that started but did not answer: no second copy
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return s;
}

Status CrawlEnv::Seed() {
  std::vector<std::string> cmd = {"FRONTIER.ADDX", "URLS"};
  for (int h = 0; h < options_.hosts; ++h) {
    cmd.push_back("http://h" + std::to_string(h) + ".simweb.test/");
  }
  auto reply = client_->Command(cmd);
  if (!reply.ok()) return reply.status();
  if (reply->is_error()) return Status::InvalidArgument("ADDX: " + reply->str);
  for (const auto& e : reply->elements) {
    if (e.integer != 1) return Status::InvalidArgument("a seed was not queued: " + e.str);
  }
  return Status::Ok();
}

std::vector<std::string> CrawlEnv::WorkerArgs(int n, const std::vector<std::string>& extra) const {
  std::vector<std::string> args = {
      "--frontier", "127.0.0.1:" + std::to_string(frontier_.Port("resp")), "--warc-dir",
      warc_dir(), "--worker-id", "w" + std::to_string(n), "--connect-to",
      "::127.0.0.1:" + std::to_string(simweb_.Port()), "--set",
      "fetch.allow_private_networks=true"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

Status CrawlEnv::StartWorker(int n, const std::vector<std::string>& extra) {
  std::string error;
  testutil::Daemon& w = workers_[n];
  if (!w.Start("crawl-worker", WorkerArgs(n, extra), worker_log(n), "", &error)) {
    return Status::Unavailable(error);
  }
  return Status::Ok();
}

Result<int> CrawlEnv::RunWorker(int n, const std::vector<std::string>& extra,
                                std::chrono::seconds limit) {
  return RunTool("crawl-worker", WorkerArgs(n, extra), worker_log(n) + ".out", worker_log(n),
                 limit);
}

void CrawlEnv::KillWorker(int n) { workers_[n].Kill9(); }

Status CrawlEnv::StopWorkers() {
  Status result;
  for (auto& [n, w] : workers_) {
    if (w.pid() <= 0) continue;  // killed earlier
    int status = w.Stop();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      result = Status::Internal("worker " + std::to_string(n) + " did not exit cleanly:\n" +
                                testutil::Tail(w.log()));
    }
  }
  return result;
}

Result<RespValue> CrawlEnv::Command(const std::vector<std::string>& args) {
  return client_->Command(args);
}

Result<std::unique_ptr<RespClient>> CrawlEnv::Connect() {
  return RespClient::Connect("127.0.0.1", static_cast<uint16_t>(frontier_.Port("resp")),
                             std::chrono::seconds(10));
}

Result<std::string> CrawlEnv::Info(const std::string& field) {
  auto reply = client_->Command({"INFO", "crawl"});
  if (!reply.ok()) return reply.status();
  if (reply->is_error()) return Status::Internal("INFO: " + reply->str);
  return InfoField(reply->str, field);
}

Status CrawlEnv::CheckAlive() {
  if (!simweb_.Running()) return Status::Unavailable("simweb died:\n" + Logs());
  if (!frontier_.Running()) return Status::Unavailable("frontier died:\n" + Logs());
  for (auto& [n, w] : workers_) {
    if (w.pid() > 0 && !w.Running()) {
      return Status::Unavailable("worker " + std::to_string(n) + " died:\n" + Logs());
    }
  }
  return Status::Ok();
}

Status CrawlEnv::WaitFinished(std::chrono::seconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    auto finished = Info("finished");
    if (!finished.ok()) return finished.status();
    if (*finished == "1") return CheckLiveCounts();
    CRAWLFRONT_RETURN_IF_ERROR(CheckAlive());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Status::Unavailable("crawl not finished in time:\n" + Logs());
}

// The frontier runs with crawl.check_live_counts: each INFO above compared
// its running counters with a walk over the hosts.
Status CrawlEnv::CheckLiveCounts() {
  auto errors = Info("live_count_errors");
  if (!errors.ok()) return errors.status();
  if (*errors == "0") return Status::Ok();
  return Status::Internal("the frontier's running counters differed from a walk " + *errors +
                          " times:\n" + Logs());
}

Status CrawlEnv::WaitDone(uint64_t n, std::chrono::seconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    auto done = Info("urls_done");
    if (!done.ok()) return done.status();
    if (std::stoull("0" + *done) >= n) return Status::Ok();
    CRAWLFRONT_RETURN_IF_ERROR(CheckAlive());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::Unavailable("urls_done did not reach " + std::to_string(n) + ":\n" + Logs());
}

Status CrawlEnv::RunOracle(const std::vector<std::string>& extra, const std::string& name,
                           std::string* out_path, std::string* err_path) {
  *out_path = dir_ / (name + ".out");
  *err_path = dir_ / (name + ".err");
  const WebOptions& o = options_;
  std::vector<std::string> args = {"--expect", "--hosts", std::to_string(o.hosts), "--pages",
                                   std::to_string(o.pages), "--seed", std::to_string(o.seed),
                                   "--max-depth", std::to_string(o.max_depth)};
  args.insert(args.end(), extra.begin(), extra.end());
  auto rc = RunTool("simweb", args, *out_path, *err_path, std::chrono::seconds(60));
  if (!rc.ok()) return rc.status();
  if (*rc != 0) return Status::Internal("simweb --expect failed:\n" + testutil::Tail(*err_path));
  return Status::Ok();
}

std::string CrawlEnv::Logs() {
  std::string out;
  out += "--- simweb.log\n" + testutil::Tail(dir_ / "simweb.log", 1500);
  out += "--- frontier.log\n" + testutil::Tail(dir_ / "frontier.log", 3000);
  for (auto& [n, w] : workers_) {
    out += "--- worker" + std::to_string(n) + ".log\n" + testutil::Tail(w.log(), 2000);
  }
  return out;
}

}  // namespace crawlfront::e2e
