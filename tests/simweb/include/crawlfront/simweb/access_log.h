#pragma once
// Access log of the simweb server: one line per request,
// "<unix seconds.millis> <host> <path+query> <status> <bytes>".

#include <cstdint>
#include <cstdio>
#include <memory>
#include <chrono>
#include <mutex>
#include <string>
#include <string_view>

#include "crawlfront/common/status.h"

namespace crawlfront::simweb {

class AccessLog {
 public:
  // Opens (appends to) `path`. IoError if it cannot be opened.
  static Result<std::unique_ptr<AccessLog>> Open(const std::string& path);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  // Appends one line and flushes it, so tests can read the log while the
  // server runs. `arrived` is when the request was read: politeness checks
  // compare request arrivals, not response times (big or slow pages would
  // shift those). Spaces and control bytes in host/target become '_' so
  // every line has five fields. Thread-safe.
  void Write(std::chrono::system_clock::time_point arrived, std::string_view host,
             std::string_view target, int status, uint64_t bytes);

 private:
  explicit AccessLog(std::FILE* file) : file_(file) {}
  std::mutex mutex_;
  std::FILE* file_;
};

}  // namespace crawlfront::simweb
