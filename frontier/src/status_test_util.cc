#include "status_test_util.h"

#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

namespace crawlfront::testing {

StatusSnapshot CraftedSnapshot(size_t partitions) {
  StatusSnapshot s;
  s.unix_ms = 1700000000123;
  s.version = "0.1.0-test";
  s.uptime_seconds = 42.5;
  s.ready = true;
  s.totals = {1001,
              1002,
              1003,
              1004,
              1005,
              1006,
              1007,
              1011,  // urls_dropped
              1008,
              1009,
              1010,
              {11, 12, 13, 14, 15, 16}};
  s.seen.mode = "exact";
  s.seen.items = 5555;
  s.seen.filter_bytes = 6666;
  s.persistence = {"everysec", 7777, 2, true, 4242, 3, 5, 1, 2, true, false};
  s.memory = {uint64_t{700} << 20, 123456, 789, uint64_t{256} << 20};
  for (size_t i = 0; i < partitions; ++i) {
    SeenPartitionStatus p;
    p.id = static_cast<uint32_t>(i);
    p.items = 100 + i;
    p.capacity = 1000;
    p.fill_ratio = static_cast<double>(i) / static_cast<double>(partitions * 2);
    p.estimated_fp_rate = p.fill_ratio * p.fill_ratio;
    p.rebuilds = i % 3;
    p.rebuilding = i == 5;
    p.last_snapshot_unix_ms = 1700000000000 + static_cast<int64_t>(i);
    s.seen.partitions.push_back(p);
  }
  s.snapshot = {true, 512, 1024, "partition 17", 1700000000000, 0, 3, ""};
  s.rebuild = {false, 0, 0, "", 0, 1699999999000, 7, "disk full " + kEvil};
  s.top_hosts.push_back({"host" + kEvil, 77, 1, 9, 1500, 250, 0, "ok"});
  s.top_hosts.push_back({"example.org", 5, 0, 3, 1000, -5, 1700000005000, "fetching"});
  s.workers.push_back({"w" + kEvil, "127.0.0.1:4000", 8, 99, 12.5});
  s.recent_errors.push_back({1700000000001, "fetch http://x/" + kEvil + " failed"});
  s.crawls.push_back({"crawl" + kEvil, true, 10, 20, 30, 40, 5, 6, 2, false});
  return s;
}

namespace {

bool IsName(const std::string& s, bool allow_colon) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
              (allow_colon && c == ':');
    if (!ok) return false;
  }
  return true;
}

bool IsValue(const std::string& v) {
  if (v == "NaN" || v == "+Inf" || v == "-Inf") return true;
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  return !v.empty() && end == v.c_str() + v.size();
}

// Parses `{a="x",b="y"}` starting at `pos` (at '{'); returns false on error.
bool ParseLabels(const std::string& line, size_t& pos,
                 std::map<std::string, std::string>& out) {
  ++pos;  // '{'
  while (pos < line.size() && line[pos] != '}') {
    size_t eq = line.find('=', pos);
    if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"')
      return false;
    std::string name = line.substr(pos, eq - pos);
    if (!IsName(name, false) || out.count(name)) return false;
    std::string value;
    size_t i = eq + 2;
    for (; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] != '\\') {
        value += line[i];
        continue;
      }
      if (++i >= line.size()) return false;
      if (line[i] == 'n')
        value += '\n';
      else if (line[i] == '\\' || line[i] == '"')
        value += line[i];
      else
        return false;
    }
    if (i >= line.size()) return false;
    out[name] = value;
    pos = i + 1;
    if (pos < line.size() && line[pos] == ',') ++pos;
  }
  if (pos >= line.size()) return false;
  ++pos;  // '}'
  return true;
}

}  // namespace

ParsedMetrics ParsePrometheusText(const std::string& text) {
  ParsedMetrics m;
  std::map<std::string, std::string> help;
  std::set<std::string> series;
  std::string current;  // family whose samples may follow
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::string where = "line " + std::to_string(++n) + ": ";
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      std::string rest = line.substr(7);
      std::string name = rest.substr(0, rest.find(' '));
      std::string arg =
          rest.find(' ') == std::string::npos ? "" : rest.substr(rest.find(' ') + 1);
      if (!IsName(name, true)) m.errors.push_back(where + "bad name");
      if (line[2] == 'H') {
        if (help.count(name)) m.errors.push_back(where + "second HELP for " + name);
        help[name] = arg;
        continue;
      }
      if (!help.count(name)) m.errors.push_back(where + "TYPE before HELP for " + name);
      if (m.types.count(name)) m.errors.push_back(where + "second TYPE for " + name);
      if (arg != "counter" && arg != "gauge") m.errors.push_back(where + "type " + arg);
      bool total = name.size() > 6 && name.ends_with("_total");
      if ((arg == "counter") != total)
        m.errors.push_back(where + "_total iff counter: " + name);
      m.types[name] = arg;
      current = name;
      continue;
    }
    if (line.empty() || line[0] == '#') {
      m.errors.push_back(where + "unexpected line");
      continue;
    }
    ParsedSample s;
    size_t pos = line.find_first_of("{ ");
    s.name = line.substr(0, pos);
    if (s.name != current)
      m.errors.push_back(where + "sample outside its family: " + s.name);
    if (pos != std::string::npos && line[pos] == '{' &&
        !ParseLabels(line, pos, s.labels)) {
      m.errors.push_back(where + "bad labels");
      continue;
    }
    if (pos == std::string::npos || line[pos] != ' ') {
      m.errors.push_back(where + "no value");
      continue;
    }
    s.value = line.substr(pos + 1);
    if (!IsValue(s.value)) m.errors.push_back(where + "bad value " + s.value);
    std::string key = s.name;
    for (auto& [k, v] : s.labels) key += "|" + k + "=" + v;
    if (!series.insert(key).second) m.errors.push_back(where + "duplicate series");
    m.samples.push_back(std::move(s));
  }
  return m;
}

}  // namespace crawlfront::testing
