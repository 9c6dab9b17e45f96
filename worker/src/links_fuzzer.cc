// libFuzzer target: the tokenizer and ExtractLinks() must accept any bytes,
// terminate, and keep their output contract (http(s) only, no fragment, at
// most max_links links, no duplicates).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "crawlfront/worker/links.h"
#include "html_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  crawlfront::html::HtmlTokenizer tokenizer(input);
  crawlfront::html::Token token;
  size_t tokens = 0;
  while (tokenizer.Next(&token)) {
    // Every token consumes at least one byte.
    if (++tokens > size) std::abort();
  }
  const crawlfront::LinkOptions opts{.max_links = 16,
                                     .respect_nofollow = (size % 2) == 0};
  const crawlfront::ExtractedLinks out =
      crawlfront::ExtractLinks(input, "http://fuzz.test/a/b?c", opts);
  if (out.links.size() > opts.max_links) std::abort();
  std::set<std::string_view> unique;
  for (const std::string& link : out.links) {
    const bool http = link.rfind("http://", 0) == 0 || link.rfind("https://", 0) == 0;
    if (!http || link.find('#') != std::string::npos) std::abort();
    if (!unique.insert(link).second) std::abort();
  }
  return 0;
}
