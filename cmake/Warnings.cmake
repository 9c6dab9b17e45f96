add_compile_options(-Wall -Wextra -Wpedantic -Wno-unused-parameter)
# Boost.Asio + spdlog headers are heavy; keep the build usable on 2 cores.
add_compile_definitions(BOOST_ASIO_NO_DEPRECATED SPDLOG_FMT_EXTERNAL)

if(CRAWLFRONT_SANITIZE)
  add_compile_options(-fsanitize=${CRAWLFRONT_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${CRAWLFRONT_SANITIZE})
  add_compile_definitions(CRAWLFRONT_SANITIZED=1)
  # clang 14's -fsanitize=function cannot compile C++20 coroutines ("Cannot
  # represent a difference across sections"); the rest of UBSan stays on.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND CRAWLFRONT_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize=function)
  endif()
endif()

# Fuzz builds instrument every library for coverage, not only the fuzzers'
# own files, so libFuzzer sees into the parsers it drives.
if(CRAWLFRONT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
