#pragma once
// robots.txt of each simweb host, as data, plus the RFC 9309 evaluation the
// oracle needs to decide which URLs a polite crawler fetches.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/simweb/options.h"

namespace crawlfront::simweb {

struct RobotsRule {
  bool allow = false;
  std::string pattern;  // RFC 9309 path pattern; '*' and a final '$' allowed
};

struct RobotsGroup {
  std::vector<std::string> agents;  // product tokens as written, or "*"
  std::vector<RobotsRule> rules;
  std::string crawl_delay;  // seconds as written ("0.2"), or ""
};

struct RobotsFile {
  int status = 200;  // 200, 404 (allow all) or 500 (disallow all)
  std::vector<RobotsGroup> groups;
};

// robots.txt of host `host`. Deterministic. With robots_variants: host 1
// answers 404, host 2 answers 500, hosts i % 5 == 3 have a "*" group that
// disallows everything and a group for "CrawlFront" that does not, hosts
// i % 10 == 4 have Crawl-delay: 0.2; the rest disallow /private/.
RobotsFile RobotsOf(const SimWebOptions& options, uint32_t host);

// The text served for a 200 robots file.
std::string RenderRobots(const RobotsFile& file, std::string_view host_name);

// Whether `user_agent` (a product token, matched case-insensitively) may fetch
// `path` (path and query) under RFC 9309: the agent's groups, else the "*"
// groups, else allow; longest matching pattern wins, Allow wins ties; 4xx
// allows everything, 5xx disallows everything; /robots.txt is always allowed.
bool RobotsAllows(const RobotsFile& file, std::string_view user_agent,
                  std::string_view path);

// RFC 9309 pattern match of `path` against `pattern` ('*' any run, trailing
// '$' anchors the end). Exposed for tests.
bool RobotsPatternMatches(std::string_view pattern, std::string_view path);

}  // namespace crawlfront::simweb
