# The crawl core: host queues, politeness scheduler, leases, robots, scope
# (docs/scheduling.md). A library without sockets; the RESP layer sits on top.
# Operators' URL patterns (RE2).
crawlfront_module(NAME url_pattern SOURCES src/url_pattern.cc
                  DEPS crawlfront_status PkgConfig::RE2 spdlog::spdlog fmt::fmt)
crawlfront_module(NAME crawl
  SOURCES src/crawl.cc src/crawl_add.cc src/crawl_deny.cc src/crawl_host_queue.cc
          src/crawl_recount.cc src/crawl_refetch.cc src/crawl_stats.cc src/crawl_url_report.cc src/fetch_record.cc src/head_buffer.cc src/host_codec.cc src/host_robots.cc
          src/host_sched.cc src/lease.cc
          src/lease_done.cc
          src/scope.cc
  DEPS crawlfront_seen_set crawlfront_url crawlfront_robots crawlfront_store
       crawlfront_url_pattern spdlog::spdlog fmt::fmt)
crawlfront_test(NAME crawl_test
  SOURCES src/crawl_test.cc src/crawl_refetch_test.cc src/lease_test.cc src/crawl_restart_test.cc src/scope_test.cc
          src/crawl_commit_test.cc src/crawl_host_queue_test.cc src/crawl_deny_test.cc
          src/crash_test_util.cc src/host_codec_test.cc src/url_pattern_test.cc
          src/crawl_heads_test.cc src/head_buffer_test.cc src/robots_origin_test.cc
          src/lease_release_test.cc src/crawl_url_report_test.cc src/crawl_live_test.cc
          src/crawl_fetch_record_test.cc
  DEPS crawlfront_crawl)
crawlfront_bench(NAME crawl_bench SOURCES src/crawl_bench.cc DEPS crawlfront_crawl)
crawlfront_fuzzer(NAME url_pattern_fuzzer SOURCES src/url_pattern_fuzzer.cc
                  DEPS crawlfront_url_pattern)
