# The worker's parsers of frontier replies and response headers (pure; fuzzed).
crawlfront_module(NAME worker_parse
  SOURCES src/worker_parse.cc
  DEPS crawlfront_resp crawlfront_status)
crawlfront_fuzzer(NAME lease_reply_fuzzer
  SOURCES src/lease_reply_fuzzer.cc
  DEPS crawlfront_worker_parse)
crawlfront_fuzzer(NAME retry_after_fuzzer
  SOURCES src/retry_after_fuzzer.cc
  DEPS crawlfront_worker_parse)
if(CRAWLFRONT_FUZZ)
  # Coverage feedback must reach the library, not only the fuzzers' own files.
  target_compile_options(crawlfront_worker_parse PRIVATE -fsanitize=fuzzer-no-link)
endif()
