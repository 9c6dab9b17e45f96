// libFuzzer target: Canonicalize and ResolveAndCanonicalize on arbitrary
// bytes must return a value or a Status, never crash; and every accepted
// result must be a fixed point (canonicalizing it again changes nothing).
// Input: the first '\n' splits base and ref for the resolve call; the whole
// input is also canonicalized on its own.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "crawlfront/common/url.h"

namespace {

void CheckFixedPoint(const crawlfront::CanonicalUrl& url,
                     const crawlfront::UrlOptions& opts) {
  auto again = crawlfront::Canonicalize(url.spec, opts);
  if (!again.ok() || again->spec != url.spec || again->host != url.host ||
      again->host_key != url.host_key) {
    std::fprintf(stderr, "not idempotent: '%s' -> '%s'\n", url.spec.c_str(),
                 again.ok() ? again->spec.c_str() : again.status().ToString().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const crawlfront::UrlOptions kDefault;
  static const crawlfront::UrlOptions kLenient = [] {
    crawlfront::UrlOptions o;
    o.allow_credentials = true;
    o.sort_query = true;
    o.host_key_mode = crawlfront::HostKeyMode::kRegisteredDomain;
    return o;
  }();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  for (const auto* opts : {&kDefault, &kLenient}) {
    if (auto url = crawlfront::Canonicalize(in, *opts); url.ok()) {
      CheckFixedPoint(*url, *opts);
    }
    const size_t nl = in.find('\n');
    if (nl == std::string_view::npos) continue;
    auto resolved =
        crawlfront::ResolveAndCanonicalize(in.substr(0, nl), in.substr(nl + 1), *opts);
    if (resolved.ok()) CheckFixedPoint(*resolved, *opts);
  }
  return 0;
}
