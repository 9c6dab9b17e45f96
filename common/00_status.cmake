crawlfront_module(NAME status SOURCES src/status.cc src/proc_status.cc)
