# HTTP status page: dashboard, /api/stats JSON, /metrics (docs/status_page.md).
set(_status_assets
    ${CMAKE_CURRENT_SOURCE_DIR}/src/status_assets/dashboard.html
    ${CMAKE_CURRENT_SOURCE_DIR}/src/status_assets/dashboard.css
    ${CMAKE_CURRENT_SOURCE_DIR}/src/status_assets/dashboard.js)
set(_status_gen_dir ${CMAKE_CURRENT_BINARY_DIR}/status_assets_gen)
set(_status_gen ${_status_gen_dir}/status_assets_gen.h)

crawlfront_module(NAME status_http
  SOURCES src/status_http.cc src/status_session.cc src/status_router.cc
          src/status_page.cc src/status_json.cc src/status_metrics.cc
          src/status_escape.cc src/status_summary.cc src/status_history.cc
  DEPS crawlfront_status crawlfront_net Boost::headers Boost::json Threads::Threads)

get_target_property(_status_type crawlfront_status_http TYPE)
if(NOT _status_type STREQUAL "INTERFACE_LIBRARY")
  # The dashboard's files become raw string literals in a generated header.
  add_custom_command(OUTPUT ${_status_gen}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_status_gen_dir}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${_status_gen} "-DINPUTS=${_status_assets}"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/src/status_assets/embed_assets.cmake
    DEPENDS ${_status_assets} ${CMAKE_CURRENT_SOURCE_DIR}/src/status_assets/embed_assets.cmake
    COMMENT "Embedding status page assets" VERBATIM)
  target_sources(crawlfront_status_http PRIVATE ${_status_gen})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND CRAWLFRONT_SANITIZE MATCHES "undefined")
    # clang 14's -fsanitize=function fails on coroutine code ("Cannot
    # represent a difference across sections"); the rest of UBSan stays on.
    target_compile_options(crawlfront_status_http PRIVATE -fno-sanitize=function)
  endif()
  target_include_directories(crawlfront_status_http PRIVATE
      ${_status_gen_dir} ${CMAKE_CURRENT_SOURCE_DIR}/src)

  crawlfront_test(NAME status_http_test
    SOURCES src/status_http_test.cc src/status_render_test.cc src/status_test_util.cc
    DEPS crawlfront_status_http Boost::json)
  if(TARGET status_http_test)
    target_include_directories(status_http_test PRIVATE
        ${CMAKE_CURRENT_SOURCE_DIR}/src ${_status_gen_dir})
  endif()
  crawlfront_fuzzer(NAME status_http_fuzzer
                    SOURCES src/status_http_fuzzer.cc src/status_test_util.cc
                    DEPS crawlfront_status_http)
  if(TARGET status_http_fuzzer)
    target_include_directories(status_http_fuzzer PRIVATE
        ${CMAKE_CURRENT_SOURCE_DIR}/src ${_status_gen_dir})
  endif()
endif()
