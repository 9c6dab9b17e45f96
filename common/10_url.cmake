# URL canonicalization, fingerprints and host keys (docs/urls.md).
# libidn2 (Debian: libidn2-dev) converts IDN hosts to punycode. GLOBAL so that
# other components linking crawlfront_url can resolve the target.
if(NOT TARGET PkgConfig::IDN2)
  pkg_check_modules(IDN2 REQUIRED IMPORTED_TARGET GLOBAL libidn2)
endif()

crawlfront_module(NAME url
  SOURCES src/url.cc src/url_split.cc src/url_input.cc src/url_host.cc src/url_path.cc
          src/url_fingerprint.cc
  DEPS crawlfront_status)
target_link_libraries(crawlfront_url PRIVATE Boost::url PkgConfig::XXHASH
                      PkgConfig::PSL PkgConfig::IDN2)

crawlfront_test(NAME url_test SOURCES src/url_test.cc src/url_split_test.cc DEPS crawlfront_url)
crawlfront_fuzzer(NAME url_fuzzer SOURCES src/url_fuzzer.cc DEPS crawlfront_url)
crawlfront_bench(NAME url_bench SOURCES src/url_bench.cc DEPS crawlfront_url)
if(CRAWLFRONT_FUZZ)
  # Coverage feedback for the library code, not just the fuzzer's main file.
  target_compile_options(crawlfront_url PRIVATE -fsanitize=fuzzer-no-link)
endif()
