#pragma once
// Starting the real binaries (crawl-frontier, crawl-worker, simweb) from
// tests: ephemeral ports through --port-file, logs in a temp dir, and
// shutdown by PID only. Used by tests/integration and tests/e2e.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace crawlfront::testutil {

// Directory of the project's binaries: $CRAWLFRONT_BIN_DIR (set by ctest).
std::string BinDir();

// A fresh directory under /tmp, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A child process. The destructor sends SIGTERM and waits (then SIGKILL).
class Daemon {
 public:
  Daemon() = default;
  ~Daemon() { Stop(); }
  Daemon(Daemon&& o) noexcept;
  Daemon& operator=(Daemon&& o) noexcept;

  // Starts BinDir()/binary with args; stdout and stderr go to `log`. When
  // `port_file` is not empty, waits (up to 30 s) for the daemon to write it
  // and parses "name=PORT" lines (or a bare port as name "port").
  // Returns false (with the log's tail in *error) on failure.
  bool Start(const std::string& binary, const std::vector<std::string>& args,
             const std::string& log, const std::string& port_file, std::string* error);
  int Port(const std::string& name = "port") const;
  pid_t pid() const { return pid_; }
  bool Running();
  // SIGTERM, wait up to `grace`, then SIGKILL. Returns the exit status
  // (as from waitpid) or -1 if not running.
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(20));
  // SIGKILL and reap.
  void Kill9();
  const std::string& log() const { return log_; }

 private:
  pid_t pid_ = -1;
  std::string log_;
  std::map<std::string, int> ports_;
};

// Starts crawl-frontier on 127.0.0.1 with its data in `data_dir`; extra
// "--set key=value" style args appended. Ports 0 are ephemeral; a restart
// passes the ports it had, so that its clients find it again.
bool StartFrontier(Daemon* d, const TempDir& dir, const std::string& data_dir,
                   const std::vector<std::string>& extra, std::string* error,
                   int resp_port = 0, int http_port = 0);

// Last `max_bytes` of a file (for failure messages).
std::string Tail(const std::string& path, size_t max_bytes = 4000);

}  // namespace crawlfront::testutil
