# Logging set-up over spdlog; callers log with spdlog::info(...) directly.
crawlfront_module(NAME log SOURCES src/log.cc
                  DEPS crawlfront_status spdlog::spdlog fmt::fmt)
