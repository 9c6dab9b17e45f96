# While several modules are being written at once, a developer may configure
# with -DCRAWLFRONT_DEV_SKIP_MISSING=ON to skip targets whose sources do not
# exist yet. Off by default, so a missing file fails every real build.
option(CRAWLFRONT_DEV_SKIP_MISSING "Skip targets with missing sources (dev only)" OFF)
function(_crawlfront_sources_missing out)
  set(${out} FALSE PARENT_SCOPE)
  if(NOT CRAWLFRONT_DEV_SKIP_MISSING)
    return()
  endif()
  foreach(_s IN LISTS ARGN)
    if(NOT IS_ABSOLUTE ${_s})
      set(_s ${CMAKE_CURRENT_SOURCE_DIR}/${_s})
    endif()
    if(NOT EXISTS ${_s})
      message(STATUS "dev: skipping a target, missing ${_s}")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# crawlfront_module(NAME n SOURCES ... [DEPS ...])
#   A static library crawlfront_<n>. Each module lives in a <component>/<n>.cmake
#   fragment so modules can be added without touching shared files.
function(crawlfront_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;DEPS" ${ARGN})
  _crawlfront_sources_missing(_missing ${M_SOURCES})
  if(_missing)
    add_library(crawlfront_${M_NAME} INTERFACE)
    return()
  endif()
  add_library(crawlfront_${M_NAME} STATIC ${M_SOURCES})
  target_include_directories(crawlfront_${M_NAME} PUBLIC
      ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(crawlfront_${M_NAME} PUBLIC ${M_DEPS})
endfunction()

# crawlfront_test(NAME n SOURCES ... DEPS ...)
#   A GoogleTest binary registered with ctest, one ctest entry per test case.
function(crawlfront_test)
  if(NOT CRAWLFRONT_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  _crawlfront_sources_missing(_missing ${T_SOURCES})
  if(_missing)
    return()
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS} GTest::gtest GTest::gmock
                        GTest::gtest_main)
  set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_BINARY_DIR}/tests)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set(_props TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "CRAWLFRONT_BIN_DIR=${CMAKE_BINARY_DIR}/bin")
  if(T_LABELS)
    list(APPEND _props LABELS "${T_LABELS}")
  endif()
  gtest_discover_tests(${T_NAME} DISCOVERY_TIMEOUT 60 PROPERTIES ${_props})
endfunction()

# crawlfront_fuzzer(NAME n SOURCES ... DEPS ...): libFuzzer target, clang only.
function(crawlfront_fuzzer)
  if(NOT CRAWLFRONT_FUZZ)
    return()
  endif()
  cmake_parse_arguments(F "" "NAME" "SOURCES;DEPS" ${ARGN})
  _crawlfront_sources_missing(_missing ${F_SOURCES})
  if(_missing)
    return()
  endif()
  add_executable(${F_NAME} ${F_SOURCES})
  target_compile_options(${F_NAME} PRIVATE -fsanitize=fuzzer)
  target_link_options(${F_NAME} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${F_NAME} PRIVATE ${F_DEPS})
  set_target_properties(${F_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_BINARY_DIR}/fuzz)
endfunction()

# crawlfront_bench(NAME n SOURCES ... DEPS ...): Google Benchmark binary.
function(crawlfront_bench)
  if(NOT CRAWLFRONT_BUILD_BENCH)
    return()
  endif()
  cmake_parse_arguments(B "" "NAME" "SOURCES;DEPS" ${ARGN})
  _crawlfront_sources_missing(_missing ${B_SOURCES})
  if(_missing)
    return()
  endif()
  add_executable(${B_NAME} ${B_SOURCES})
  target_link_libraries(${B_NAME} PRIVATE ${B_DEPS} benchmark::benchmark)
  set_target_properties(${B_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_BINARY_DIR}/bench)
endfunction()

# Include every <dir>/*.cmake module fragment in name order.
macro(crawlfront_include_modules)
  file(GLOB _frags CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cmake)
  list(SORT _frags)
  foreach(_f IN LISTS _frags)
    include(${_f})
  endforeach()
endmacro()

# crawlfront_daemon_allocator(target): links a daemon with jemalloc when the
# build found it (cmake/Dependencies.cmake).
function(crawlfront_daemon_allocator target)
  if(TARGET PkgConfig::JEMALLOC)
    target_link_libraries(${target} PRIVATE PkgConfig::JEMALLOC)
  endif()
endfunction()
