# RESP codec (pure, no sockets) and the blocking RESP client.
crawlfront_module(NAME resp
  SOURCES src/resp_value.cc src/resp_parser.cc src/resp_inline.cc src/resp_writer.cc
    src/resp_whole.cc
  DEPS crawlfront_status)
crawlfront_module(NAME resp_client
  SOURCES src/resp_client.cc
  DEPS crawlfront_resp Boost::headers Threads::Threads)
crawlfront_test(NAME resp_test SOURCES src/resp_test.cc DEPS crawlfront_resp)
crawlfront_fuzzer(NAME resp_fuzzer SOURCES src/resp_fuzzer.cc DEPS crawlfront_resp)
