#include "crawlfront/simweb/robots_model.h"

#include <algorithm>

namespace crawlfront::simweb {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; };
           return lower(x) == lower(y);
         });
}

RobotsGroup DefaultGroup() { return RobotsGroup{{"*"}, {{false, "/private/"}}, ""}; }

// A "*" group that shuts everyone out and a group for our crawler that does
// not: a crawler that falls back to "*" when its own group exists fetches
// nothing here. "/s" vs "/slow/" checks longest-match precedence, "$" and
// '*' check pattern support.
RobotsFile AgentSpecific() {
  RobotsFile file;
  file.groups.push_back(RobotsGroup{{"*"}, {{false, "/"}}, ""});
  file.groups.push_back(RobotsGroup{
      {"CrawlFront", "otherbot"},
      {{false, "/private/"}, {false, "/*.pdf$"}, {false, "/s"}, {true, "/slow/"}},
      "0.2"});
  return file;
}

}  // namespace

RobotsFile RobotsOf(const SimWebOptions& options, uint32_t host) {
  RobotsFile file;
  if (options.robots_variants) {
    if (host == 1) return RobotsFile{404, {}};
    if (host == 2) return RobotsFile{500, {}};
    if (host % 5 == 3) return AgentSpecific();
  }
  file.groups.push_back(DefaultGroup());
  if (options.robots_variants && host % 10 == 4) file.groups[0].crawl_delay = "0.2";
  return file;
}

std::string RenderRobots(const RobotsFile& file, std::string_view host_name) {
  std::string out = "# robots.txt for " + std::string(host_name) + "\n";
  for (const RobotsGroup& group : file.groups) {
    out += "\n";
    for (const std::string& agent : group.agents) out += "User-agent: " + agent + "\n";
    for (const RobotsRule& rule : group.rules) {
      out += (rule.allow ? "Allow: " : "Disallow: ") + rule.pattern + "\n";
    }
    if (!group.crawl_delay.empty()) out += "Crawl-delay: " + group.crawl_delay + "\n";
  }
  return out;
}

bool RobotsPatternMatches(std::string_view pattern, std::string_view path) {
  bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  // Greedy wildcard matching with one backtrack point (the last '*'):
  // linear-ish and enough for '*' runs.
  size_t p = 0, s = 0, star = std::string_view::npos, star_s = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_s = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (p == pattern.size() && !anchored) {
      return true;  // pattern is a prefix of the path
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++star_s;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool RobotsAllows(const RobotsFile& file, std::string_view user_agent,
                  std::string_view path) {
  if (path == "/robots.txt" || (file.status >= 400 && file.status < 500)) return true;
  if (file.status >= 500) return false;
  std::vector<const RobotsGroup*> mine, star;
  for (const RobotsGroup& group : file.groups) {
    for (const std::string& agent : group.agents) {
      if (agent == "*") star.push_back(&group);
      if (EqualsIgnoreCase(agent, user_agent)) mine.push_back(&group);
    }
  }
  const std::vector<const RobotsGroup*>& groups = mine.empty() ? star : mine;
  size_t best_length = 0;
  bool allowed = true;
  bool matched = false;
  for (const RobotsGroup* group : groups) {
    for (const RobotsRule& rule : group->rules) {
      if (!RobotsPatternMatches(rule.pattern, path)) continue;
      size_t length = rule.pattern.size();
      if (!matched || length > best_length || (length == best_length && rule.allow)) {
        best_length = length;
        allowed = rule.allow;
        matched = true;
      }
    }
  }
  return allowed;
}

}  // namespace crawlfront::simweb
