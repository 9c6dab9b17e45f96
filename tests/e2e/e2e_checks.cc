#include "e2e_checks.h"

#include <algorithm>

#include "crawlfront/worker/robots.h"
#include "crawlfront/worker/warc.h"

namespace crawlfront::e2e {
namespace {

constexpr size_t kMaxProblems = 40;
constexpr int64_t kLogRoundingMs = 1;

void Add(std::vector<std::string>* problems, std::string p) {
  if (problems->size() < kMaxProblems) problems->push_back(std::move(p));
}

bool IsRobots(const std::string& url) { return url.ends_with("/robots.txt"); }

// "http://h1.simweb.test/robots.txt" -> "h1.simweb.test".
std::string HostOf(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  return url.substr(start, url.find_first_of("/?", start) - start);
}

// "HTTP/1.1 200 OK\r\n..." -> 200; 0 if malformed.
int StatusOfBlock(const std::string& block) {
  size_t sp = block.find(' ');
  return sp == std::string::npos ? 0 : std::atoi(block.c_str() + sp + 1);
}

std::string BodyOfBlock(const std::string& block) {
  size_t end = block.find("\r\n\r\n");
  return end == std::string::npos ? "" : block.substr(end + 4);
}

}  // namespace

bool UnderTrap(const std::string& url, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return url.rfind(p, 0) == 0; });
}

std::map<std::string, int> CountFetches(const std::vector<AccessEntry>& log) {
  std::map<std::string, int> counts;
  for (const auto& e : log) ++counts[e.Url()];
  return counts;
}

std::vector<std::string> CompareWithOracle(const std::map<std::string, int>& fetched,
                                           const OracleResult& oracle, bool exactly_once) {
  std::vector<std::string> problems;
  for (const auto& [url, status] : oracle.expected) {
    auto it = fetched.find(url);
    if (it == fetched.end()) {
      Add(&problems, "missing " + url + " (" + std::to_string(status) + ")");
    } else if (exactly_once && it->second > 1 && !(IsRobots(url) && status >= 500)) {
      Add(&problems, "fetched " + std::to_string(it->second) + " times: " + url);
    }
  }
  for (const auto& [url, n] : fetched) {
    if (!oracle.expected.count(url) && !UnderTrap(url, oracle.trap_prefixes)) {
      Add(&problems, "extra " + url);
    }
  }
  return problems;
}

std::vector<std::string> CheckNothingDisallowed(const std::map<std::string, int>& fetched,
                                                const OracleResult& respecting,
                                                const OracleResult& ignoring) {
  std::vector<std::string> problems;
  for (const auto& [url, status] : ignoring.expected) {
    if (!respecting.expected.count(url) && fetched.count(url)) {
      Add(&problems, "disallowed by robots.txt but fetched: " + url);
    }
  }
  return problems;
}

std::vector<std::string> CheckTrap(const std::map<std::string, int>& fetched,
                                   const std::vector<std::string>& prefixes, int max_depth,
                                   bool once) {
  std::vector<std::string> problems;
  const int limit = 2 * max_depth - 1;
  for (const auto& prefix : prefixes) {
    int urls = 0;
    for (auto it = fetched.lower_bound(prefix);
         it != fetched.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      ++urls;
      if (once && it->second > 1) Add(&problems, "trap URL fetched twice: " + it->first);
    }
    if (urls == 0 || urls > limit) {
      Add(&problems, prefix + ": " + std::to_string(urls) + " trap URLs fetched, want 1.." +
                         std::to_string(limit));
    }
  }
  return problems;
}

std::vector<std::string> CheckErrorRobots(const std::vector<AccessEntry>& log,
                                          const OracleResult& oracle, int min_fetches,
                                          int64_t retry_ms) {
  std::vector<std::string> problems;
  for (const auto& [url, status] : oracle.expected) {
    if (!IsRobots(url) || status < 500) continue;
    std::vector<int64_t> times;
    for (const auto& e : log) {
      if (e.Url() == url) times.push_back(e.time_ms);
    }
    std::sort(times.begin(), times.end());
    if (static_cast<int>(times.size()) < min_fetches) {
      Add(&problems, url + " fetched " + std::to_string(times.size()) + " times, want >= " +
                         std::to_string(min_fetches));
    }
    for (size_t i = 1; i < times.size(); ++i) {
      if (times[i] - times[i - 1] < retry_ms - kLogRoundingMs) {
        Add(&problems, url + " retried after " + std::to_string(times[i] - times[i - 1]) +
                           " ms, want >= " + std::to_string(retry_ms));
      }
    }
  }
  return problems;
}

std::map<std::string, int64_t> HostDelays(const std::vector<WarcRecord>& records,
                                          int64_t default_ms) {
  std::map<std::string, int64_t> delays;
  for (const auto& r : records) {
    std::string url = r.Get("WARC-Target-URI");
    if (r.Get("WARC-Type") != "response" || !IsRobots(url) || StatusOfBlock(r.block) != 200) {
      continue;
    }
    RobotsRules rules = ParseRobots(BodyOfBlock(r.block), "crawlfront");
    int64_t ms = default_ms;
    if (rules.crawl_delay()) ms = std::max(ms, static_cast<int64_t>(*rules.crawl_delay() * 1000));
    delays[HostOf(url)] = ms;
  }
  return delays;
}

std::vector<std::string> CheckPoliteness(const std::vector<AccessEntry>& log,
                                         const std::map<std::string, int64_t>& delays,
                                         int64_t default_ms) {
  std::map<std::string, std::vector<const AccessEntry*>> by_host;
  for (const auto& e : log) by_host[e.host].push_back(&e);
  std::vector<std::string> problems;
  for (auto& [host, entries] : by_host) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](auto* a, auto* b) { return a->time_ms < b->time_ms; });
    auto d = delays.find(host);
    int64_t delay = d == delays.end() ? default_ms : d->second;
    for (size_t i = 1; i < entries.size(); ++i) {
      const AccessEntry& a = *entries[i - 1];
      const AccessEntry& b = *entries[i];
      if (b.time_ms - a.time_ms < delay - kLogRoundingMs) {
        Add(&problems, host + ": " + a.target + " then " + b.target + " after " +
                           std::to_string(b.time_ms - a.time_ms) + " ms, want >= " +
                           std::to_string(delay));
      }
    }
  }
  return problems;
}

std::vector<std::string> CheckWarc(const std::vector<WarcRecord>& records,
                                   const std::vector<AccessEntry>& log) {
  std::vector<std::string> problems;
  std::map<std::string, int> balance;  // +1 per log line, -1 per response record
  for (const auto& e : log) ++balance[e.Url() + " " + std::to_string(e.status)];
  std::map<std::string, int> requests;  // WARC-Concurrent-To of request records
  for (const auto& r : records) {
    if (r.Get("WARC-Type") == "request") ++requests[r.Get("WARC-Concurrent-To")];
    bool digested = r.Get("WARC-Type") != "warcinfo";  // warcinfo carries none
    if (digested && r.Get("WARC-Block-Digest") != WarcSha1Digest(r.block)) {
      Add(&problems, "bad block digest: " + r.Get("WARC-Record-ID"));
    }
  }
  for (const auto& r : records) {
    if (r.Get("WARC-Type") != "response") continue;
    --balance[r.Get("WARC-Target-URI") + " " + std::to_string(StatusOfBlock(r.block))];
    if (requests[r.Get("WARC-Record-ID")] != 1) {
      Add(&problems, "no single request record for " + r.Get("WARC-Target-URI"));
    }
  }
  for (const auto& [key, n] : balance) {
    if (n > 0) Add(&problems, "fetched but not in WARC (x" + std::to_string(n) + "): " + key);
    if (n < 0) Add(&problems, "in WARC but not fetched (x" + std::to_string(-n) + "): " + key);
  }
  return problems;
}

std::string Describe(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += "  " + p + "\n";
  if (problems.size() >= kMaxProblems) out += "  (more not shown)\n";
  return out;
}

}  // namespace crawlfront::e2e
