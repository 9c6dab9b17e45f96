// libFuzzer target: Canonicalize and ResolveAndCanonicalize on arbitrary
// bytes must return a value or a Status, never crash; every accepted result
// must be a fixed point (canonicalizing it again changes nothing); and the
// fast paths for simple shapes must agree with the full parser.
// Input: the first '\n' splits base and ref for the resolve call; the whole
// input is also canonicalized on its own.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crawlfront/common/url.h"
#include "url_internal.h"

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

std::string Describe(const crawlfront::Result<crawlfront::CanonicalUrl>& r) {
  if (!r.ok()) return "error: " + r.status().message();
  return r->spec + " | " + r->host + " | " + r->host_key;
}

void CheckSame(const crawlfront::Result<crawlfront::CanonicalUrl>& fast,
               const crawlfront::Result<crawlfront::CanonicalUrl>& full) {
  if (Describe(fast) == Describe(full)) return;
  std::fprintf(stderr, "fast path '%s' != full parser '%s'\n", Describe(fast).c_str(),
               Describe(full).c_str());
  std::abort();
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
    auto url = crawlfront::Canonicalize(in, *opts);
    if (url.ok()) CheckFixedPoint(*url, *opts);
    CheckSame(url, crawlfront::url_internal::CanonicalizeWithFullParser(in, *opts));
    const size_t nl = in.find('\n');
    if (nl == std::string_view::npos) continue;
    const crawlfront::UrlResolver resolver(in.substr(0, nl), *opts);
    auto resolved = resolver.Resolve(in.substr(nl + 1));
    if (resolved.ok()) CheckFixedPoint(*resolved, *opts);
    CheckSame(resolved, crawlfront::url_internal::ResolveWithFullParser(
                            resolver, in.substr(nl + 1)));
  }
  return 0;
}
