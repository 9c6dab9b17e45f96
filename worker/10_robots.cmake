# robots.txt parsing and matching (RFC 9309). Kept free of heavy dependencies:
# the frontier links it to enforce robots rules centrally.
crawlfront_module(NAME robots
  SOURCES src/robots.cc
  DEPS crawlfront_status)
crawlfront_test(NAME robots_test
  SOURCES src/robots_test.cc
  DEPS crawlfront_robots)
crawlfront_fuzzer(NAME robots_fuzzer
  SOURCES src/robots_fuzzer.cc
  DEPS crawlfront_robots)
if(CRAWLFRONT_FUZZ)
  # Coverage feedback must reach the library, not only the fuzzer's own file.
  target_compile_options(crawlfront_robots PRIVATE -fsanitize=fuzzer-no-link)
endif()
crawlfront_bench(NAME robots_bench
  SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/robots_bench.cc
  DEPS crawlfront_robots)
if(TARGET robots_bench)
  target_include_directories(robots_bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
endif()
