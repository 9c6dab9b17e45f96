#pragma once
// Process-wide logging set-up over spdlog. Call InitLogging once in main();
// then log with spdlog::info(...), spdlog::warn(...) etc. directly.

#include <string_view>

#include "crawlfront/common/status.h"

namespace crawlfront {

// Installs the default spdlog logger. Every line reads
//   2026-12-02T10:00:00.123Z info crawl-frontier[tid 4242] message
// (UTC ISO-8601 time with milliseconds, level, program, thread id, message).
//
// `level`: trace, debug, info, warn, error, critical or off.
// `file`: empty logs to stderr; otherwise lines are appended to that file
// (spdlog creates missing parent directories).
// Lines at warn and above are flushed at once so they survive a crash.
//
// Fails with InvalidArgument on an unknown level and IoError if the file cannot
// be opened; the previous logger then stays in place. Not thread-safe with
// itself: call it before starting threads. Logging afterwards is thread-safe.
Status InitLogging(std::string_view program, std::string_view level,
                   std::string_view file);

}  // namespace crawlfront
