// Fuzzes SimWeb::Fetch with arbitrary Host headers and request targets (the
// server hands both to it straight from the wire). Input: host, '\n', target.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crawlfront/simweb/sim_web.h"

using crawlfront::simweb::Response;
using crawlfront::simweb::SimWeb;
using crawlfront::simweb::SimWebOptions;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const SimWeb* web = [] {
    SimWebOptions options;
    options.hosts = 8;
    options.pages = 40;
    options.large_min_bytes = 1000;  // keep iterations fast
    options.large_max_bytes = 2000;
    return new SimWeb(std::move(SimWeb::Create(options)).value());
  }();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  std::string_view host = input.substr(0, newline);
  std::string_view target =
      newline == std::string_view::npos ? "/" : input.substr(newline + 1);
  Response response = web->Fetch(host, target);
  bool known = response.status == 200 || response.status == 301 ||
               response.status == 302 || response.status == 400 ||
               response.status == 404 || response.status == 414 || response.status == 500;
  if (!known || response.content_type.empty()) std::abort();
  return 0;
}
