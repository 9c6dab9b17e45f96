// robots.txt rule matching: RobotsRules::Allowed's linear segment search
// against the backtracking matcher it replaced (the baseline, run on the
// same rules and paths), on a typical file and on a hostile one (500 KiB of
// rules like "/*aaa...a7", which cost the backtracking matcher about
// |path| * |pattern| per rule).
//
//   build/bench/robots_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "crawlfront/worker/robots.h"
#include "robots_backtracking.h"

namespace {

using crawlfront::RobotsRule;

std::string TypicalFile() {
  std::string body = "User-agent: *\n";
  for (int i = 0; i < 60; ++i) {
    body += "Disallow: /section" + std::to_string(i) + "/*?sort=\n";
    body += "Allow: /section" + std::to_string(i) + "/public/\n";
  }
  return body + "Disallow: /*.pdf$\nDisallow: /search\n";
}

std::string HostileFile() {
  std::string body = "User-agent: *\n";
  for (int i = 0; body.size() < crawlfront::kRobotsMaxBytes - 600; ++i) {
    body += "Disallow: /*" + std::string(500 + i % 7, 'a') + std::to_string(i) + "\n";
  }
  return body;
}

struct Case {
  std::vector<RobotsRule> rules;
  std::string path;
};

Case Typical() { return {crawlfront::ParseRobots(TypicalFile(), "crawlfront").rules(),
                         "/section42/articles/2026/12/some-long-article-title?page=2"}; }
Case Hostile() {
  return {crawlfront::ParseRobots(HostileFile(), "crawlfront").rules(),
          "/" + std::string(1000, 'a')};
}

// The first matching rule decides, as in Allowed() (most specific first).
bool Decide(const Case& c, bool (*match)(std::string_view, std::string_view)) {
  for (const RobotsRule& r : c.rules) {
    if (match(r.pattern, c.path)) return r.allow;
  }
  return true;
}

void Run(benchmark::State& state, Case (*make)(),
         bool (*match)(std::string_view, std::string_view)) {
  const Case c = make();
  for (auto _ : state) benchmark::DoNotOptimize(Decide(c, match));
  state.counters["rules"] = static_cast<double>(c.rules.size());
}

void BM_Segments(benchmark::State& state, Case (*make)()) {
  Run(state, make, crawlfront::RobotsPatternMatches);
}
void BM_Backtracking(benchmark::State& state, Case (*make)()) {
  Run(state, make, crawlfront::BacktrackingMatch);
}

BENCHMARK_CAPTURE(BM_Segments, typical, Typical);
BENCHMARK_CAPTURE(BM_Backtracking, typical, Typical);
BENCHMARK_CAPTURE(BM_Segments, hostile, Hostile)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Backtracking, hostile, Hostile)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

// After the table: how many times slower the baseline was, per file (CPU
// time; the build machine is shared).
class SpeedupReporter : public benchmark::ConsoleReporter {
 public:
  SpeedupReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.run_name.str();  // "BM_Segments/typical..."
      const size_t slash = name.find('/');
      const std::string file = name.substr(slash + 1, name.find('/', slash + 1) - slash - 1);
      const double ns =
          run.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      (name.starts_with("BM_Segments") ? segments_ : baseline_)[file] = ns;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nbacktracking (before) / segments (now), CPU time per check:\n");
    for (const auto& [file, ns] : segments_) {
      auto base = baseline_.find(file);
      if (base != baseline_.end()) std::printf("  %-8s x%.1f\n", file.c_str(), base->second / ns);
    }
  }

 private:
  std::map<std::string, double> segments_, baseline_;  // ns per check
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  SpeedupReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
