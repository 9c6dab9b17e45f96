# Cache-line-blocked Bloom filter (docs/bloom.md).
crawlfront_module(NAME bloom SOURCES src/bloom.cc src/bloom_simd.cc src/huge_pages.cc
                  DEPS crawlfront_status PkgConfig::XXHASH)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  # popcnt counts set bits in Add and RecountBits; every x86-64-v2 CPU has it.
  target_compile_options(crawlfront_bloom PRIVATE -mpopcnt)
endif()
crawlfront_test(NAME bloom_test SOURCES src/bloom_test.cc DEPS crawlfront_bloom
                TIMEOUT 600)
crawlfront_bench(NAME bloom_bench
                 SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/bloom_bench.cc
                 DEPS crawlfront_bloom)
crawlfront_fuzzer(NAME bloom_header_fuzzer SOURCES src/bloom_fuzzer.cc
                  DEPS crawlfront_bloom)
