# HTTP fetcher over the libcurl multi interface (docs/worker.md).
crawlfront_module(NAME fetch
  SOURCES src/fetcher.cc src/fetcher_loop.cc src/fetcher_transfer.cc
  DEPS crawlfront_status CURL::libcurl Threads::Threads spdlog::spdlog fmt::fmt)
# Test helper: a tiny HTTP server on 127.0.0.1, shared with the worker tests.
if(CRAWLFRONT_BUILD_TESTS)
  add_library(crawlfront_fetch_test_server STATIC src/fetcher_test_server.cc)
  target_link_libraries(crawlfront_fetch_test_server PUBLIC Threads::Threads)
  crawlfront_test(NAME fetcher_test
    SOURCES src/fetcher_test.cc
    DEPS crawlfront_fetch crawlfront_fetch_test_server crawlfront_simweb_encoding)
endif()
