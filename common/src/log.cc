#include "crawlfront/common/log.h"

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace crawlfront {
namespace {

// The program name goes into the pattern literally, so '%' must be escaped.
std::string Pattern(std::string_view program) {
  std::string escaped;
  for (char c : program) escaped += c == '%' ? std::string("%%") : std::string(1, c);
  return "%Y-%m-%dT%H:%M:%S.%eZ %l " + escaped + "[tid %t] %v";
}

// A file sink that rotates by size and can be reopened. spdlog's own file
// sinks do one or the other: rotating_file_sink cannot reopen its file, and
// basic_file_sink, reopened under a logger in use, would race with writers.
class LogFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  LogFileSink(std::string path, LogFileOptions o) : path_(std::move(path)), options_(o) {
    file_ = Open();  // throws spdlog_ex when it cannot
  }

  // A new file is opened before the old one is closed: on failure the old
  // one stays in use.
  Status Reopen() {
    std::lock_guard lock(mutex_);
    try {
      file_ = Open();
      return Status::Ok();
    } catch (const spdlog::spdlog_ex& e) {
      return Status::IoError(e.what());
    }
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    if (options_.max_bytes > 0 && size_ > 0 && size_ + line.size() > options_.max_bytes) {
      Rotate();
    }
    file_->write(line);
    size_ += line.size();
  }
  void flush_() override { file_->flush(); }

 private:
  std::unique_ptr<spdlog::details::file_helper> Open() {
    auto file = std::make_unique<spdlog::details::file_helper>();
    file->open(path_);
    size_ = file->size();
    return file;
  }

  // FILE.(n-1) -> FILE.n ... FILE -> FILE.1, then a new FILE. The open file
  // is renamed, not closed first, so if the new FILE cannot be opened the
  // lines go on into FILE.1. A rename that fails (a read-only directory)
  // leaves the file growing, not lost.
  void Rotate() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const int n = std::max(options_.max_files, 1);
    fs::remove(path_ + "." + std::to_string(n), ec);
    for (int i = n - 1; i >= 1; --i) {
      const std::string from = path_ + "." + std::to_string(i);
      if (fs::exists(from, ec)) fs::rename(from, path_ + "." + std::to_string(i + 1), ec);
    }
    fs::rename(path_, path_ + ".1", ec);
    if (ec) std::fprintf(stderr, "log: cannot rotate %s: %s\n", path_.c_str(), ec.message().c_str());
    try {
      file_ = Open();
    } catch (const spdlog::spdlog_ex& e) {
      // Lines go on into the renamed file; the next try is a file's size later.
      std::fprintf(stderr, "log: %s; writing on in %s.1\n", e.what(), path_.c_str());
      size_ = 0;
    }
  }

  const std::string path_;
  const LogFileOptions options_;
  std::unique_ptr<spdlog::details::file_helper> file_;
  uint64_t size_ = 0;
};

std::mutex g_sink_mu;
std::shared_ptr<LogFileSink> g_sink;  // the file sink in use, if any

// Set by the handler, read by the poller's thread: an atomic, lock-free so
// that a signal handler may store to it.
std::atomic<int> g_hup{0};
static_assert(std::atomic<int>::is_always_lock_free);
void OnHup(int) { g_hup.store(1, std::memory_order_relaxed); }

}  // namespace

Status InitLogging(std::string_view program, std::string_view level, std::string_view file,
                   LogFileOptions rotation) {
  const std::string level_name(level);
  spdlog::level::level_enum lvl = spdlog::level::from_str(level_name);
  // from_str maps unknown names to off; accept "off" only when asked for.
  if (lvl == spdlog::level::off && level_name != "off") {
    return Status::InvalidArgument("unknown log level '" + level_name +
                                   "' (expected trace, debug, info, warn, error, "
                                   "critical or off)");
  }
  std::shared_ptr<spdlog::logger> logger;
  std::shared_ptr<LogFileSink> file_sink;
  try {
    if (file.empty()) {
      auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
      logger = std::make_shared<spdlog::logger>(std::string(program), sink);
    } else {
      file_sink = std::make_shared<LogFileSink>(std::string(file), rotation);
      logger = std::make_shared<spdlog::logger>(std::string(program), file_sink);
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Status::IoError("cannot open log file '" + std::string(file) +
                           "': " + e.what());
  }
  logger->set_pattern(Pattern(program), spdlog::pattern_time_type::utc);
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  // A file is buffered: without this a quiet daemon's info lines could wait
  // in the buffer for hours before `tail -f` shows them.
  if (file_sink) spdlog::flush_every(std::chrono::seconds(1));
  std::lock_guard lock(g_sink_mu);
  g_sink = std::move(file_sink);
  return Status::Ok();
}

Status ReopenLogFile() {
  std::shared_ptr<LogFileSink> sink;
  {
    std::lock_guard lock(g_sink_mu);
    sink = g_sink;
  }
  return sink ? sink->Reopen() : Status::Ok();
}

LogReopenOnSighup::LogReopenOnSighup() {
  std::signal(SIGHUP, OnHup);
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (g_hup.exchange(0, std::memory_order_relaxed) == 0) continue;
      bool to_file;
      {
        std::lock_guard lock(g_sink_mu);
        to_file = g_sink != nullptr;
      }
      Status st = ReopenLogFile();
      if (!to_file) {
        spdlog::info("SIGHUP: logging to stderr, no log file to reopen");
      } else if (st.ok()) {
        spdlog::info("SIGHUP: log file reopened");
      } else {
        spdlog::error("SIGHUP: cannot reopen the log file, still writing the old one: {}",
                      st.message());
      }
    }
  });
}

LogReopenOnSighup::~LogReopenOnSighup() {
  stop_ = true;
  thread_.join();
  std::signal(SIGHUP, SIG_DFL);
}

}  // namespace crawlfront
