# Every third-party library comes from a Debian 12 package (scripts/setup.sh).
find_package(Threads REQUIRED)
find_package(Boost 1.81.0 EXACT CONFIG REQUIRED COMPONENTS json url program_options)
find_package(RocksDB REQUIRED CONFIG)
find_package(CURL REQUIRED)
find_package(ZLIB REQUIRED)
find_package(spdlog REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(PSL REQUIRED IMPORTED_TARGET libpsl)
pkg_check_modules(GUMBO REQUIRED IMPORTED_TARGET gumbo)
# Operators' URL patterns: linear-time matching, many patterns in one pass.
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
# Sitemaps: expat, a small streaming XML parser with entity-expansion limits
# (docs/worker.md, "Sitemaps").
pkg_check_modules(EXPAT REQUIRED IMPORTED_TARGET expat)
# simweb's content codings (br, zstd; gzip is zlib).
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlienc libbrotlidec)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
# WARC: one gzip member per record from a reused compressor (docs/warc.md),
# SHA-1 digests from OpenSSL's libcrypto (the one libcurl already links).
pkg_check_modules(DEFLATE REQUIRED IMPORTED_TARGET libdeflate)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
# jemalloc under the two daemons: glibc's malloc (consolidation, bin
# unlinking) was 12-14% of the worker's CPU and of the frontier's lease path;
# with jemalloc both spend 8-15% less per page or lease (docs/benchmarks.md).
# Not with sanitizers or fuzzers, which bring their own allocator.
option(CRAWLFRONT_JEMALLOC "Link crawl-frontier and crawl-worker with jemalloc" ON)
if(CRAWLFRONT_JEMALLOC AND NOT CRAWLFRONT_SANITIZE AND NOT CRAWLFRONT_FUZZ)
  pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
  if(NOT JEMALLOC_FOUND)
    message(WARNING "jemalloc not found (scripts/setup.sh installs libjemalloc-dev): "
                    "the daemons use glibc's malloc")
  endif()
endif()
if(CRAWLFRONT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(CRAWLFRONT_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
