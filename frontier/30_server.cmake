# RESP server framework: connections, dispatch, Redis basics.
crawlfront_module(NAME resp_server
  SOURCES src/resp_server.cc src/resp_server_session.cc src/resp_server_builtins.cc
          src/resp_server_command.cc src/pass_hold.cc
  DEPS crawlfront_resp crawlfront_net Boost::headers Threads::Threads)
target_include_directories(crawlfront_resp_server PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
crawlfront_test(NAME resp_server_test SOURCES src/resp_server_test.cc src/resp_server_commit_test.cc
                src/pass_hold_test.cc
                DEPS crawlfront_resp_server crawlfront_resp_client)
add_executable(resp_echo_server src/resp_echo_server.cc)
target_link_libraries(resp_echo_server PRIVATE crawlfront_resp_server)
