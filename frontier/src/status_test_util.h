#pragma once
// Test helpers for the status page tests: a crafted snapshot and a checker
// for the Prometheus text format.

#include <map>
#include <string>
#include <vector>

#include "crawlfront/frontier/status_snapshot.h"

namespace crawlfront::testing {

// Crawled-looking text that breaks HTML, JS and JSON when not escaped.
inline const std::string kEvil = "<script>alert(1)</script>\"'&\\\n";

// A snapshot with distinct values in every field and kEvil in every string
// that comes from crawled data. `partitions` partitions with rising fill.
StatusSnapshot CraftedSnapshot(size_t partitions = 64);

struct ParsedSample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped values
  std::string value;
};

struct ParsedMetrics {
  std::vector<std::string> errors;           // empty when well-formed
  std::map<std::string, std::string> types;  // family name -> type
  std::vector<ParsedSample> samples;
};

// Parses Prometheus text format 0.0.4 strictly: HELP then TYPE before each
// family's samples, each family once, counters named *_total, gauges not,
// label syntax and escapes, numeric values, no duplicate series.
ParsedMetrics ParsePrometheusText(const std::string& text);

}  // namespace crawlfront::testing
