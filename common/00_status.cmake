crawlfront_module(NAME status SOURCES src/status.cc)
