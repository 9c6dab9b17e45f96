// WARC writer CPU per page: WriteExchange of a simweb-like page (request,
// response with an HTML body, metadata with outlinks) at gzip levels 0, 1
// and 6, and SHA-1 throughput. Files go to a temp dir (tmpfs-speed writes
// are not the point; compression and digests are).
//   build/bench/warc_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "crawlfront/worker/warc.h"

using namespace crawlfront;

namespace {

// An HTML page of about `bytes` from a small vocabulary (compresses about
// as well as simweb's and real pages do), with `links` anchors.
std::string Page(size_t bytes, int links, std::mt19937_64& rng) {
  static const char* kWords[] = {"crawl",  "frontier", "page",  "host",   "the",
                                 "of",     "and",      "bloom", "filter", "queue",
                                 "robots", "link",     "seed"};
  std::string s = "<!doctype html><html><head><title>page</title></head><body>\n";
  for (int i = 0; s.size() < bytes; ++i) {
    if (i % 8 == 0 && links-- > 0) {
      s += "<a href=\"/p/" + std::to_string(rng() % 1000) + "\">link</a>\n";
    }
    s += kWords[rng() % std::size(kWords)];
    s += i % 12 == 11 ? ".\n" : " ";
  }
  return s + "</body></html>\n";
}

WarcExchange Exchange(std::mt19937_64& rng) {
  WarcExchange ex;
  ex.target_uri = "http://h17.simweb.test/p/42";
  ex.ip_address = "127.0.0.1";
  ex.fetch_time = std::chrono::system_clock::now();
  ex.request_head =
      "GET /p/42 HTTP/1.1\r\nHost: h17.simweb.test\r\nUser-Agent: crawlfront/0.1\r\n"
      "Accept: */*\r\nAccept-Encoding: deflate, gzip, br, zstd\r\n\r\n";
  ex.response_body = Page(8 << 10, 20, rng);
  ex.response_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                     std::to_string(ex.response_body.size()) + "\r\n\r\n";
  for (int i = 0; i < 20; ++i) {
    ex.outlinks.push_back("http://h" + std::to_string(i) + ".simweb.test/p/" +
                          std::to_string(rng() % 1000));
  }
  return ex;
}

void BM_WriteExchange(benchmark::State& state) {
  std::mt19937_64 rng(1);
  WarcExchange ex = Exchange(rng);
  std::string dir = "/tmp/warc_bench." + std::to_string(getpid());
  WarcOptions o;
  o.dir = dir;
  o.gzip_level = static_cast<int>(state.range(0));
  o.max_file_bytes = 64 << 20;
  auto w = WarcWriter::Open(o);
  if (!w.ok()) {
    state.SkipWithError(w.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    if (!(*w)->WriteExchange(ex).ok()) state.SkipWithError("write failed");
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes_per_page"] =
      static_cast<double>((*w)->bytes()) / static_cast<double>(state.iterations());
  (*w)->Close().IgnoreError();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_WriteExchange)->Arg(0)->Arg(1)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_Sha1(benchmark::State& state) {
  std::string data(static_cast<size_t>(state.range(0)), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(WarcSha1Digest(data));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sha1)->Arg(200)->Arg(8 << 10);

}  // namespace

BENCHMARK_MAIN();
