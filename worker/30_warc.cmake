# WARC/1.1 writer: gzip member per record (libdeflate), SHA-1 digests (OpenSSL).
crawlfront_module(NAME warc SOURCES src/warc.cc
                  DEPS crawlfront_status PkgConfig::DEFLATE OpenSSL::Crypto)
crawlfront_test(NAME warc_test SOURCES src/warc_test.cc DEPS crawlfront_warc ZLIB::ZLIB
                Threads::Threads)
crawlfront_bench(NAME warc_bench SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/warc_bench.cc
                 DEPS crawlfront_warc)
