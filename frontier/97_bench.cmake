# Load generator for tests/bench/run_frontier_vs_redis.sh: the same add and
# lease+done work against crawl-frontier or a scrapy-redis style redis-server.
crawlfront_bench(NAME frontier_load SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/frontier_load.cc
                 DEPS crawlfront_resp_client crawlfront_url Boost::program_options)
