# HTML link extraction: a streaming HTML5-style tokenizer plus common/'s URL
# resolution and canonicalization (Boost.URL underneath). gumbo and libxml2 are used only by the tests and the benchmark,
# as references to agree with and to measure against.
crawlfront_module(NAME links
  SOURCES src/links.cc src/html_tokenizer.cc
  DEPS crawlfront_url)
target_include_directories(crawlfront_links PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
if(CRAWLFRONT_BUILD_TESTS)
  crawlfront_test(NAME links_test
    SOURCES src/links_test.cc
    DEPS crawlfront_links PkgConfig::GUMBO)
  target_include_directories(links_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
endif()
crawlfront_fuzzer(NAME links_fuzzer
  SOURCES src/links_fuzzer.cc
  DEPS crawlfront_links)
if(CRAWLFRONT_FUZZ)
  target_include_directories(links_fuzzer PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  # Coverage feedback must reach the library, not only the fuzzer's own file.
  target_compile_options(crawlfront_links PRIVATE -fsanitize=fuzzer-no-link)
endif()
if(CRAWLFRONT_BUILD_BENCH)
  find_package(LibXml2 REQUIRED)
  crawlfront_bench(NAME links_bench
    SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/links_bench.cc
    DEPS crawlfront_links PkgConfig::GUMBO LibXml2::LibXml2)
  target_include_directories(links_bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
endif()
