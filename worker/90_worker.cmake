# The crawl worker: lease, fetch, extract, archive, report (docs/worker.md).
crawlfront_module(NAME worker
  SOURCES src/worker.cc src/worker_options.cc src/worker_report.cc src/worker_frontier.cc
  DEPS crawlfront_worker_parse crawlfront_fetch crawlfront_links crawlfront_sitemap
       crawlfront_warc crawlfront_robots
       crawlfront_url crawlfront_config crawlfront_resp_client crawlfront_log spdlog::spdlog fmt::fmt)

add_executable(crawl-worker src/main.cc)
target_link_libraries(crawl-worker PRIVATE crawlfront_worker)
crawlfront_daemon_allocator(crawl-worker)
set_target_properties(crawl-worker PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

if(CRAWLFRONT_BUILD_TESTS)
  crawlfront_test(NAME worker_test
    SOURCES src/worker_test.cc src/worker_binary_test.cc src/worker_report_test.cc
            src/worker_test_util.cc
    DEPS crawlfront_worker crawlfront_fetch_test_server crawlfront_resp_server crawlfront_testutil
         ZLIB::ZLIB)
  target_compile_definitions(worker_test PRIVATE
      CRAWLFRONT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      CRAWLFRONT_WORKER_BIN="$<TARGET_FILE:crawl-worker>")
  add_dependencies(worker_test crawl-worker)
endif()
