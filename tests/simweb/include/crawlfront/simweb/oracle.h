#pragma once
// The oracle: the exact set of URLs a correct crawler fetches from the
// synthetic web, computed from the model's own link lists (never from HTML).

#include <string>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/simweb/sim_web.h"

namespace crawlfront::simweb {

struct ExpectOptions {
  // Links and redirects found at depth d are fetched at depth d + 1 when
  // d + 1 <= max_depth; seeds have depth 0. Default: 3.
  int max_depth = 3;
  // Fetch robots.txt per host and obey it. false fetches no robots.txt at all.
  // Default: true.
  bool respect_robots = true;
  // Product token the crawler matches robots.txt groups with. Default: crawlfront.
  std::string user_agent = "crawlfront";
  // Seed URLs; empty means every host's home page. Seeds outside
  // *.simweb.test (or not http) are skipped and reported.
  std::vector<std::string> seeds;
};

struct ExpectedFetch {
  std::string url;  // canonical absolute URL
  int status = 0;   // HTTP status the server answers
};

struct Expectation {
  std::vector<ExpectedFetch> fetches;      // sorted by url, no duplicates
  std::vector<std::string> trap_prefixes;  // "http://hN.simweb.test/cal/", sorted
  std::vector<std::string> skipped_seeds;  // seeds out of scope or unparsable
};

// Breadth-first walk of the model from the seeds. Scope: http URLs whose host
// ends in ".simweb.test" (hosts outside the web answer 404). Follows links a
// crawler extracts (not in comments or scripts, not rel=nofollow, not on
// meta-nofollow pages) and redirect Locations; excludes the trap calendar
// entirely. Lists robots.txt fetches (with their status) for every host with
// an in-scope URL within max_depth when respect_robots.
// Fails with InvalidArgument when max_depth is outside [0, 1000].
Result<Expectation> Expect(const SimWeb& web, const ExpectOptions& options);

// Canonical form of an absolute URL the way the oracle compares them:
// lowercase scheme and host, dot segments removed, default port dropped,
// empty path "/", fragment removed. InvalidArgument if it does not parse as
// an absolute URL.
Result<std::string> CanonicalUrl(std::string_view url);

// Whether a canonical URL is in the crawl scope (http, host *.simweb.test).
bool InScope(std::string_view canonical_url);

}  // namespace crawlfront::simweb
