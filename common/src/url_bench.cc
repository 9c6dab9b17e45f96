// Throughput of URL canonicalization, resolution and fingerprinting.
// Run: build/bench/url_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "crawlfront/common/url.h"
#include "url_internal.h"

namespace crawlfront {
namespace {

// A mix shaped like crawled links: mostly canonical already, some with
// trackers, ports, dot segments, percent-escapes and IDN hosts.
const std::vector<std::string>& Urls() {
  static const std::vector<std::string> urls = {
      "http://example.com/",
      "https://www.example.com/articles/2023/05/some-long-article-title.html",
      "https://shop.example.co.uk/product?id=12345&color=red",
      "http://news.example.org/story/9876?utm_source=feed&utm_medium=rss",
      "HTTP://Example.COM:80/a/./b/../c/%7euser/index.html#section",
      "https://example.com/search?q=caf%c3%a9&page=2",
      "http://b\xC3\xBC"
      "cher.de/katalog",
      "https://cdn.example.net/static/js/app.min.js?v=3",
  };
  return urls;
}

// Arg "fast": 1 = as shipped, 0 = always the full Boost.URL parser (the
// fast paths for simple shapes off), for a ratio in the same run.
Result<CanonicalUrl> CanonicalizeWith(bool fast, std::string_view url,
                                      const UrlOptions& opts) {
  return fast ? Canonicalize(url, opts)
              : url_internal::CanonicalizeWithFullParser(url, opts);
}

void BM_Canonicalize(benchmark::State& state) {
  const UrlOptions opts;
  const auto& urls = Urls();
  size_t i = 0;
  for (auto _ : state) {
    auto r = CanonicalizeWith(state.range(0) != 0, urls[i++ % urls.size()], opts);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Canonicalize)->ArgName("fast")->Arg(0)->Arg(1);

void BM_CanonicalizeAlreadyCanonical(benchmark::State& state) {
  const UrlOptions opts;
  const std::string url = "https://www.example.com/articles/2023/05/some-article.html";
  for (auto _ : state) {
    auto r = CanonicalizeWith(state.range(0) != 0, url, opts);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CanonicalizeAlreadyCanonical)->ArgName("fast")->Arg(0)->Arg(1);

void BM_ResolveRelative(benchmark::State& state) {
  const UrlOptions opts;
  const std::vector<std::string> refs = {"../img/logo.png", "/about", "page2.html?x=1",
                                         "//cdn.example.net/a.js", "#top"};
  size_t i = 0;
  for (auto _ : state) {
    auto r = ResolveAndCanonicalize("https://www.example.com/blog/2023/post.html",
                                    refs[i++ % refs.size()], opts);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ResolveRelative);

// Resolves `refs` in turn against one base, as shipped (arg fast=1) or
// through the full parser only (fast=0).
void ResolveLoop(benchmark::State& state, const std::vector<std::string>& refs) {
  const UrlOptions opts;
  const UrlResolver resolver("https://www.example.com/blog/2023/post.html", opts);
  const bool fast = state.range(0) != 0;
  size_t i = 0;
  for (auto _ : state) {
    const std::string& ref = refs[i++ % refs.size()];
    auto r =
        fast ? resolver.Resolve(ref) : url_internal::ResolveWithFullParser(resolver, ref);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}

// The same references as BM_ResolveRelative through one UrlResolver, as
// the worker resolves a page's links: the base is parsed once.
void BM_UrlResolverRelative(benchmark::State& state) {
  ResolveLoop(state, {"../img/logo.png", "/about", "page2.html?x=1", "//cdn.example.net/a.js",
                      "#top"});
}
BENCHMARK(BM_UrlResolverRelative)->ArgName("fast")->Arg(0)->Arg(1);

// Absolute hrefs (the other common shape) through one UrlResolver.
void BM_UrlResolverAbsolute(benchmark::State& state) { ResolveLoop(state, Urls()); }
BENCHMARK(BM_UrlResolverAbsolute)->ArgName("fast")->Arg(0)->Arg(1);

void BM_RegisteredDomainKey(benchmark::State& state) {
  for (auto _ : state) {
    auto k = HostKeyFor("www.shop.example.co.uk", HostKeyMode::kRegisteredDomain);
    benchmark::DoNotOptimize(k);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RegisteredDomainKey);

void BM_Fingerprint(benchmark::State& state) {
  const std::string spec = "https://www.example.com/articles/2023/05/some-article.html";
  for (auto _ : state) benchmark::DoNotOptimize(FingerprintOf(spec));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Fingerprint);

}  // namespace
}  // namespace crawlfront

BENCHMARK_MAIN();
