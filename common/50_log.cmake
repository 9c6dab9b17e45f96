# Logging set-up over spdlog; callers log with spdlog::info(...) directly.
crawlfront_module(NAME log SOURCES src/log.cc
                  DEPS crawlfront_status spdlog::spdlog fmt::fmt)
crawlfront_test(NAME log_test SOURCES src/log_test.cc DEPS crawlfront_log)
