# crawl-frontier: the node (library, for tests) and its thin main.
crawlfront_module(NAME frontier_node
  SOURCES src/frontier_node.cc src/frontier_commands.cc src/frontier_info.cc
          src/frontier_options.cc
  DEPS crawlfront_crawl crawlfront_bf crawlfront_resp_server crawlfront_status_http
       crawlfront_config crawlfront_log crawlfront_net spdlog::spdlog fmt::fmt)
add_executable(crawl-frontier src/frontier_main.cc)
target_link_libraries(crawl-frontier PRIVATE crawlfront_frontier_node)
crawlfront_daemon_allocator(crawl-frontier)
crawlfront_test(NAME frontier_options_test SOURCES src/frontier_options_test.cc
                DEPS crawlfront_frontier_node)
if(TARGET frontier_options_test)
  target_compile_definitions(frontier_options_test PRIVATE
                             CRAWLFRONT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
crawlfront_test(NAME frontier_node_test SOURCES src/frontier_node_test.cc
                DEPS crawlfront_frontier_node crawlfront_resp_client)
