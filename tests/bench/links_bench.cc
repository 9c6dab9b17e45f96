// Link extraction throughput: crawlfront's streaming tokenizer vs gumbo (parse
// + tree walk) vs libxml2's SAX HTML parser, on one generated corpus of
// link-heavy pages with script and comment content. Prints how far the three
// agree on the a/area hrefs of each page, then the benchmarks (MB/s via
// bytes_per_second, links/s via the "links" counter), then speed ratios.
//
//   build/bench/links_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <gumbo.h>
#include <libxml/HTMLparser.h>
#include <libxml/xmlerror.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "crawlfront/worker/links.h"
#include "html_tokenizer.h"

namespace {

using HrefSet = std::set<std::string>;

// ---- Corpus ----

std::string Pick(std::mt19937* rng, const std::vector<std::string>& words) {
  return words[(*rng)() % words.size()];
}

// One block of body markup; `k` makes its links distinct.
std::string Block(std::mt19937* rng, int k) {
  static const std::vector<std::string> kWords = {
      "crawl", "frontier", "queue", "host", "lease", "bloom", "robots", "page",
      "link",  "worker",   "delay", "seen", "fetch", "parse", "token",  "the"};
  const std::string n = std::to_string(k);
  std::string words;
  for (int i = 0; i < 12; ++i) words += Pick(rng, kWords) + " ";
  switch ((*rng)() % 7) {
    case 0: {
      std::string nav = "<ul class=\"nav\">";
      for (int i = 0; i < 10; ++i) {
        nav += "<li><a href=\"/section/" + n + "/" + std::to_string(i) + "\">" +
               Pick(rng, kWords) + "</a></li>\n";
      }
      return nav + "</ul>\n";
    }
    case 1:
      return "<p>" + words + "<a href=\"rel/path-" + n + ".html?ref=nav&amp;id=" + n +
             "\">" + words + "</a> and <em>" + words + "</em> <A HREF=../up/" + n +
             ">up</A></p>\n";
    case 2:
      return "<!-- tracking block: <a href=\"/hidden/" + n + "\">hidden</a> " + words +
             " -->\n";
    case 3:
      return "<script>var data = {\"url\": \"/api/" + n +
             "\", \"html\": \"<a href='/fake/" + n +
             "'>x</a>\"}; for (var i = 0; i < data.length && i > -1; i++) { f(i); }" +
             "</script>\n";
    case 4:
      return "<table><tr><td><a href='//cdn.example.test/img/" + n +
             ".png'><img src=/i/" + n + ".png alt='" + words + "'></a></td><td>" + words +
             "</td></tr></table>\n";
    case 5:
      return "<div class=\"ext\"><a href=\"https://other-" + n +
             ".example.test/path?q=" + n + "#frag\" rel=\"nofollow\">" + words +
             "</a></div>\n";
    default:
      return "<style>.c" + n + " > a { color: red }</style><div><span>" + words +
             "</span><a title='say \"hi\"' href='/q/" + n + "'>q</a></div>\n";
  }
}

std::string Page(std::mt19937* rng, size_t target_bytes, int page_no) {
  const std::string n = std::to_string(page_no);
  std::string page =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page " + n +
      "</title><link rel=\"canonical\" href=\"/p/" + n +
      "\"><link rel=stylesheet href=/s.css>\n<script>function f(i){ if (i<3) "
      "document.write('<a href=\"/dw\">'); }</script></head><body>\n";
  for (int k = 0; page.size() < target_bytes; ++k)
    page += Block(rng, page_no * 100000 + k);
  return page + "</body></html>\n";
}

struct Corpus {
  std::vector<std::string> pages;
  size_t bytes = 0;
};

const Corpus& GetCorpus() {
  static const Corpus corpus = [] {
    Corpus c;
    std::mt19937 rng(42);
    for (int i = 0; i < 40; ++i) {
      c.pages.push_back(Page(&rng, 20 * 1024 + rng() % (80 * 1024), i));
      c.bytes += c.pages.back().size();
    }
    return c;
  }();
  return corpus;
}

// ---- The three ways to collect a/area hrefs ----

HrefSet TokenizerHrefs(const std::string& page) {
  crawlfront::html::HtmlTokenizer tokenizer(page);
  crawlfront::html::Token t;
  HrefSet hrefs;
  while (tokenizer.Next(&t)) {
    if (t.type != crawlfront::html::TokenType::kStartTag) continue;
    if (t.name != "a" && t.name != "area") continue;
    if (const auto* href = t.Find("href")) hrefs.emplace(href->value);
  }
  return hrefs;
}

void WalkGumbo(const GumboNode* node, HrefSet* out) {
  if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) return;
  const GumboElement& el = node->v.element;
  if (el.tag == GUMBO_TAG_A || el.tag == GUMBO_TAG_AREA) {
    if (const GumboAttribute* href = gumbo_get_attribute(&el.attributes, "href")) {
      out->insert(href->value);
    }
  }
  for (unsigned i = 0; i < el.children.length; ++i) {
    WalkGumbo(static_cast<const GumboNode*>(el.children.data[i]), out);
  }
}

HrefSet GumboHrefs(const std::string& page) {
  GumboOutput* output =
      gumbo_parse_with_options(&kGumboDefaultOptions, page.data(), page.size());
  HrefSet hrefs;
  WalkGumbo(output->root, &hrefs);
  gumbo_destroy_output(&kGumboDefaultOptions, output);
  return hrefs;
}

void OnLibXmlStart(void* ctx, const xmlChar* name, const xmlChar** atts) {
  const std::string_view tag(reinterpret_cast<const char*>(name));
  if ((tag != "a" && tag != "area") || atts == nullptr) return;
  for (int i = 0; atts[i] != nullptr; i += 2) {
    if (std::string_view(reinterpret_cast<const char*>(atts[i])) != "href") continue;
    const char* value = reinterpret_cast<const char*>(atts[i + 1]);
    static_cast<HrefSet*>(ctx)->emplace(value ? value : "");
    return;  // first wins
  }
}

void IgnoreLibXmlError(void*, const char*, ...) {}

HrefSet LibXmlHrefs(const std::string& page) {
  HrefSet hrefs;
  htmlSAXHandler sax{};
  sax.startElement = &OnLibXmlStart;
  htmlParserCtxtPtr ctxt =
      htmlCreatePushParserCtxt(&sax, &hrefs, nullptr, 0, nullptr, XML_CHAR_ENCODING_UTF8);
  htmlCtxtUseOptions(ctxt, HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
  htmlParseChunk(ctxt, page.data(), static_cast<int>(page.size()), /*terminate=*/1);
  if (ctxt->myDoc != nullptr) xmlFreeDoc(ctxt->myDoc);
  htmlFreeParserCtxt(ctxt);
  return hrefs;
}

// ---- Benchmarks ----

template <HrefSet (*Collect)(const std::string&)>
void BM_Collect(benchmark::State& state) {
  const Corpus& corpus = GetCorpus();
  size_t links = 0;
  for (auto _ : state) {
    for (const std::string& page : corpus.pages) {
      const HrefSet hrefs = Collect(page);
      links += hrefs.size();
      benchmark::DoNotOptimize(hrefs);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus.bytes));
  state.counters["links"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Collect<TokenizerHrefs>)->Name("Tokenizer")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Collect<GumboHrefs>)->Name("Gumbo")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Collect<LibXmlHrefs>)->Name("LibXml2Sax")->Unit(benchmark::kMillisecond);

// The full ExtractLinks(): tokenizing plus resolution, dedup and filtering.
void BM_ExtractLinks(benchmark::State& state) {
  const Corpus& corpus = GetCorpus();
  size_t links = 0;
  for (auto _ : state) {
    for (const std::string& page : corpus.pages) {
      const crawlfront::ExtractedLinks out =
          crawlfront::ExtractLinks(page, "http://www.example.test/dir/page.html");
      links += out.links.size();
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus.bytes));
  state.counters["links"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ExtractLinks)->Name("ExtractLinks")->Unit(benchmark::kMillisecond);

// Prints the console table, then CPU-time ratios against "Tokenizer" (CPU
// time, not wall time: the build machine is shared and often overloaded).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter()
      : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      // With --benchmark_repetitions, compare medians.
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      times_[run.run_name.str()] = run.GetAdjustedCPUTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const auto base = times_.find("Tokenizer");
    if (base == times_.end()) return;
    std::printf("\nCPU time relative to Tokenizer (higher = slower):\n");
    for (const auto& [name, time] : times_) {
      std::printf("  %-14s %6.2fx\n", name.c_str(), time / base->second);
    }
  }

 private:
  std::map<std::string, double> times_;
};

void PrintAgreement() {
  const Corpus& corpus = GetCorpus();
  size_t same_gumbo = 0, same_libxml = 0, ours = 0, gumbo = 0, libxml = 0;
  for (const std::string& page : corpus.pages) {
    const HrefSet a = TokenizerHrefs(page), b = GumboHrefs(page), c = LibXmlHrefs(page);
    same_gumbo += a == b;
    same_libxml += a == c;
    ours += a.size();
    gumbo += b.size();
    libxml += c.size();
  }
  std::printf("corpus: %zu pages, %.2f MB\n", corpus.pages.size(), corpus.bytes / 1e6);
  std::printf("distinct a/area hrefs: tokenizer %zu, gumbo %zu, libxml2 %zu\n", ours,
              gumbo, libxml);
  std::printf(
      "pages with identical href sets: tokenizer=gumbo %zu/%zu, "
      "tokenizer=libxml2 %zu/%zu\n\n",
      same_gumbo, corpus.pages.size(), same_libxml, corpus.pages.size());
}

}  // namespace

int main(int argc, char** argv) {
  xmlSetGenericErrorFunc(nullptr, &IgnoreLibXmlError);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  PrintAgreement();
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
