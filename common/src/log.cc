#include "crawlfront/common/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace crawlfront {
namespace {

// The program name goes into the pattern literally, so '%' must be escaped.
std::string Pattern(std::string_view program) {
  std::string escaped;
  for (char c : program) escaped += c == '%' ? std::string("%%") : std::string(1, c);
  return "%Y-%m-%dT%H:%M:%S.%eZ %l " + escaped + "[tid %t] %v";
}

}  // namespace

Status InitLogging(std::string_view program, std::string_view level,
                   std::string_view file) {
  const std::string level_name(level);
  spdlog::level::level_enum lvl = spdlog::level::from_str(level_name);
  // from_str maps unknown names to off; accept "off" only when asked for.
  if (lvl == spdlog::level::off && level_name != "off") {
    return Status::InvalidArgument("unknown log level '" + level_name +
                                   "' (expected trace, debug, info, warn, error, "
                                   "critical or off)");
  }
  std::shared_ptr<spdlog::logger> logger;
  try {
    if (file.empty()) {
      auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
      logger = std::make_shared<spdlog::logger>(std::string(program), sink);
    } else {
      auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(std::string(file));
      logger = std::make_shared<spdlog::logger>(std::string(program), sink);
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Status::IoError("cannot open log file '" + std::string(file) +
                           "': " + e.what());
  }
  logger->set_pattern(Pattern(program), spdlog::pattern_time_type::utc);
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  return Status::Ok();
}

}  // namespace crawlfront
