#pragma once
// Process-wide logging set-up over spdlog. Call InitLogging once in main();
// then log with spdlog::info(...), spdlog::warn(...) etc. directly.

#include <atomic>
#include <cstdint>
#include <string_view>
#include <thread>

#include "crawlfront/common/status.h"

namespace crawlfront {

// Size-based rotation of a log file: past max_bytes the file becomes
// FILE.1 (FILE.1 becomes FILE.2, ...; FILE.<max_files> is deleted) and a new
// FILE starts. max_bytes 0: the file grows until logrotate moves it and
// ReopenLogFile (SIGHUP) starts a new one.
struct LogFileOptions {
  uint64_t max_bytes = 0;
  int max_files = 5;
};

// Installs the default spdlog logger. Every line reads
//   2026-12-02T10:00:00.123Z info crawl-frontier[tid 4242] message
// (UTC ISO-8601 time with milliseconds, level, program, thread id, message).
//
// `level`: trace, debug, info, warn, error, critical or off.
// `file`: empty logs to stderr; otherwise lines are appended to that file
// (spdlog creates missing parent directories).
// Lines at warn and above are flushed at once so they survive a crash, the
// others within a second.
//
// Fails with InvalidArgument on an unknown level and IoError if the file cannot
// be opened; the previous logger then stays in place. Not thread-safe with
// itself: call it before starting threads. Logging afterwards is thread-safe.
Status InitLogging(std::string_view program, std::string_view level, std::string_view file,
                   LogFileOptions rotation = {});

// Opens the log file again under its name, for logrotate's move-and-signal
// rotation; lines logged meanwhile go to the old file. On failure the old
// file stays in use. OK and nothing done when logging to stderr.
// Thread-safe with logging.
Status ReopenLogFile();

// While it lives, SIGHUP reopens the log file (ReopenLogFile, from a thread
// that polls a flag the handler sets) and logs that it did.
class LogReopenOnSighup {
 public:
  LogReopenOnSighup();
  ~LogReopenOnSighup();
  LogReopenOnSighup(const LogReopenOnSighup&) = delete;
  LogReopenOnSighup& operator=(const LogReopenOnSighup&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace crawlfront
