#include "daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace crawlfront::testutil {

namespace fs = std::filesystem;

std::string BinDir() {
  const char* d = std::getenv("CRAWLFRONT_BIN_DIR");
  return d ? d : CRAWLFRONT_DEFAULT_BIN_DIR;
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "crawlfront-test.XXXXXX").string();
  char* p = mkdtemp(tmpl.data());
  path_ = p ? p : tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Daemon::Daemon(Daemon&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)), log_(std::move(o.log_)), ports_(std::move(o.ports_)) {}

Daemon& Daemon::operator=(Daemon&& o) noexcept {
  if (this != &o) {
    Stop();
    pid_ = std::exchange(o.pid_, -1);
    log_ = std::move(o.log_);
    ports_ = std::move(o.ports_);
  }
  return *this;
}

std::string Tail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > max_bytes ? s.substr(s.size() - max_bytes) : s;
}

bool Daemon::Start(const std::string& binary, const std::vector<std::string>& args,
                   const std::string& log, const std::string& port_file, std::string* error) {
  log_ = log;
  std::string exe = BinDir() + "/" + binary;
  if (!port_file.empty()) fs::remove(port_file);
  pid_t pid = fork();
  if (pid < 0) {
    *error = "fork failed";
    return false;
  }
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  pid_ = pid;
  if (port_file.empty()) return true;
  for (int i = 0; i < 600; ++i) {  // 60 s: sanitizer builds start slowly
    std::ifstream in(port_file);
    std::string line;
    bool any = false;
    while (std::getline(in, line)) {
      auto eq = line.find('=');
      if (eq == std::string::npos) {
        if (!line.empty()) ports_["port"] = std::atoi(line.c_str());
      } else {
        ports_[line.substr(0, eq)] = std::atoi(line.c_str() + eq + 1);
      }
      any = any || !line.empty();
    }
    if (any) return true;
    if (!Running()) {
      *error = binary + " exited during start-up:\n" + Tail(log);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *error = binary + " did not write " + port_file + ":\n" + Tail(log);
  return false;
}

int Daemon::Port(const std::string& name) const {
  auto it = ports_.find(name);
  return it == ports_.end() ? 0 : it->second;
}

bool Daemon::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int Daemon::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

void Daemon::Kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool StartFrontier(Daemon* d, const TempDir& dir, const std::string& data_dir,
                   const std::vector<std::string>& extra, std::string* error, int resp_port,
                   int http_port) {
  std::vector<std::string> args = {"--listen", "127.0.0.1:" + std::to_string(resp_port),
                                   "--http", "127.0.0.1:" + std::to_string(http_port),
                                   "--data-dir", data_dir, "--port-file", dir / "frontier.port",
                                   "--set", "seen.partitions=64"};
  args.insert(args.end(), extra.begin(), extra.end());
  return d->Start("crawl-frontier", args, dir / "frontier.log", dir / "frontier.port", error);
}

}  // namespace crawlfront::testutil
