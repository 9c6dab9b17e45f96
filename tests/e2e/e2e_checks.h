#pragma once
// Comparisons of a finished crawl against the oracle and its own rules.
// Each returns a list of human-readable problems; empty means the check
// passed. Lists are capped so a broken crawl still prints a readable report.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "e2e_logs.h"

namespace crawlfront::e2e {

// True if `url` starts with one of `prefixes` (the oracle's trap prefixes).
bool UnderTrap(const std::string& url, const std::vector<std::string>& prefixes);

// URL -> number of fetches in the access log.
std::map<std::string, int> CountFetches(const std::vector<AccessEntry>& log);

// The fetched set (trap URLs dropped) against the oracle: "missing" and
// "extra" URLs. With `exactly_once`, an expected URL fetched more than once
// is a problem too, except robots.txt answered with 5xx (retried by design;
// see CheckErrorRobots).
std::vector<std::string> CompareWithOracle(const std::map<std::string, int>& fetched,
                                           const OracleResult& oracle, bool exactly_once);

// Fetched URLs that robots.txt forbids: those in `ignoring` (the oracle run
// with --robots ignore) but not in `respecting`.
std::vector<std::string> CheckNothingDisallowed(const std::map<std::string, int>& fetched,
                                                const OracleResult& respecting,
                                                const OracleResult& ignoring);

// The calendar trap is a chain of months entered from a home page (depth 1),
// so with max depth D at most 2*D-1 of its URLs are within reach: each trap
// prefix must have 1..2*D-1 distinct URLs fetched, with `once` none twice.
std::vector<std::string> CheckTrap(const std::map<std::string, int>& fetched,
                                   const std::vector<std::string>& prefixes, int max_depth,
                                   bool once);

// robots.txt answered 5xx: fetched at least `min_fetches` times, each retry
// at least `retry_ms` after the previous one (1 ms of log rounding allowed).
std::vector<std::string> CheckErrorRobots(const std::vector<AccessEntry>& log,
                                          const OracleResult& oracle, int min_fetches,
                                          int64_t retry_ms);

// Host -> politeness delay in ms: max(default_ms, Crawl-delay of the host's
// robots.txt for "crawlfront", read from the WARC response records).
std::map<std::string, int64_t> HostDelays(const std::vector<WarcRecord>& records,
                                          int64_t default_ms);

// Consecutive requests to a host are at least its delay apart (1 ms of log
// rounding allowed). simweb logs a /slow/ page when it answers, not when the
// request came, so a pair starting with a /slow/ line is skipped.
std::vector<std::string> CheckPoliteness(const std::vector<AccessEntry>& log,
                                         const std::map<std::string, int64_t>& delays,
                                         int64_t default_ms);

// One WARC response record per access-log line: the multisets of
// "URL STATUS" agree, each response has a request record, and block digests
// are right.
std::vector<std::string> CheckWarc(const std::vector<WarcRecord>& records,
                                   const std::vector<AccessEntry>& log);

// "name: a, b, c (+N more)" for failure messages.
std::string Describe(const std::vector<std::string>& problems);

}  // namespace crawlfront::e2e
