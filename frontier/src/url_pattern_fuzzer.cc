// URL patterns from untrusted bytes: "pattern\npattern\n...\0url". Every
// pattern either compiles or is refused with a reason, and a set answers as
// its patterns one by one would.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/frontier/url_pattern.h"

using crawlfront::UrlPattern;
using crawlfront::UrlPatternSet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  std::string_view patterns = in.substr(0, nul);
  std::string_view url = nul == std::string_view::npos ? "" : in.substr(nul + 1);
  std::vector<UrlPattern> each;
  while (!patterns.empty() && each.size() < 8) {
    const size_t nl = patterns.find('\n');
    auto p = UrlPattern::Compile(patterns.substr(0, nl));
    if (p.ok()) {
      each.push_back(std::move(p).value());
    } else if (p.status().message().empty()) {
      std::abort();  // a refusal always says why
    }
    patterns = nl == std::string_view::npos ? "" : patterns.substr(nl + 1);
  }
  bool any = false;
  for (const UrlPattern& p : each) any = any || p.Search(url);
  for (int64_t memory : {UrlPatternSet::kSetMemory, int64_t{16} << 10}) {
    if (UrlPatternSet::Of(each, memory).AnyMatches(url) != any) std::abort();
  }
  return 0;
}
