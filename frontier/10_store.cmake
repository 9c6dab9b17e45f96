crawlfront_module(NAME store SOURCES src/store.cc src/wal_syncer.cc src/commit_pipeline.cc src/store_memtable.cc src/hashed_vector_rep.cc src/memtable_view.cc
                          src/memtable_arena.cc src/prefix_bucket_rep.cc src/wal_crc32c.cc
                  DEPS crawlfront_status crawlfront_bloom RocksDB::rocksdb-shared PkgConfig::XXHASH
                       spdlog::spdlog fmt::fmt)
crawlfront_module(NAME seen_set
                  SOURCES src/seen_set.cc src/seen_cache.cc src/seen_insert.cc src/seen_keys.cc src/seen_load.cc
                          src/seen_maintenance.cc src/seen_scan.cc
                  DEPS crawlfront_store crawlfront_bloom crawlfront_url crawlfront_ownership
                       spdlog::spdlog fmt::fmt)
crawlfront_test(NAME seen_set_test
                SOURCES src/seen_set_test.cc src/seen_cache_test.cc src/store_test.cc
                        src/hashed_vector_rep_test.cc src/prefix_bucket_rep_test.cc
                        src/memtable_arena_test.cc src/crash_test_util.cc src/wal_crc32c_test.cc
                DEPS crawlfront_seen_set)
crawlfront_bench(NAME seen_set_bench
                 SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/seen_set_bench.cc
                 DEPS crawlfront_seen_set)
crawlfront_bench(NAME seen_restart_bench
                 SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/seen_restart_bench.cc
                         ${PROJECT_SOURCE_DIR}/tests/bench/seen_restart_steps.cc
                 DEPS crawlfront_seen_set)
# RocksDB memtable layouts for the seen-set's keys (store_memtable.cc).
crawlfront_bench(NAME memtable_bench
                 SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/memtable_bench.cc
                 DEPS crawlfront_store)
