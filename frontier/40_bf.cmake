# RedisBloom-compatible BF.* commands on user-named, persisted scalable Bloom
# filters (docs/bloom_commands.md).
crawlfront_module(NAME bf
  SOURCES src/bf_chain.cc src/bf_store.cc src/bf_registry.cc src/bf_registry_dump.cc
          src/bf_commands.cc src/bf_commands_read.cc
  DEPS crawlfront_store crawlfront_bloom crawlfront_url crawlfront_seen_set
       crawlfront_resp_server spdlog::spdlog fmt::fmt)
crawlfront_test(NAME bf_test
  SOURCES src/bf_chain_test.cc src/bf_registry_test.cc src/bf_commands_test.cc
          src/crash_test_util.cc
  DEPS crawlfront_bf crawlfront_resp_client)
# Private headers (bf_chain.h, ...) sit beside the sources and are included
# with quotes, so no extra include path is needed.
# Only the chain (no server) so the fuzzer builds without Asio.
crawlfront_fuzzer(NAME bf_header_fuzzer SOURCES src/bf_header_fuzzer.cc src/bf_chain.cc
                  DEPS crawlfront_store crawlfront_bloom)
