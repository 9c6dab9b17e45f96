// A host queue's robots.txt rules per origin. The rules of the origin whose
// page comes up next live in HostState's robots_* fields, where the lease
// path, politeness and stats read them; the queue's other origins wait in
// other_robots. A queue nearly always has one origin, so a lease pays one
// string compare for this. Each origin's rules are stored under their own
// key, so a robots.txt result writes one origin's record, however many
// origins (with the registered-domain host key: hosts) the queue has.

#include "crawlfront/frontier/host_state.h"

namespace crawlfront {

std::string_view OriginOf(std::string_view url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  return url.substr(0, end);
}

void UseRobotsOf(HostState& h, std::string_view origin) {
  if (h.robots_origin == origin) return;
  if (h.robots_origin.empty()) {
    h.robots_origin.assign(origin);
    return;
  }
  OriginRobots next;
  auto it = h.other_robots.find(origin);
  if (it != h.other_robots.end()) {
    next = std::move(it->second);
    h.other_robots.erase(it);
  }
  h.other_robots.emplace(std::move(h.robots_origin),
                         OriginRobots{h.robots_state, h.robots_expires_ms, std::move(h.robots),
                                      h.robots_errors});
  h.robots_origin.assign(origin);
  h.robots_state = next.state;
  h.robots_expires_ms = next.expires_ms;
  h.robots = std::move(next.rules);
  h.robots_errors = next.errors;
}

std::string RobotsKey(std::string_view prefix, std::string_view origin) {
  std::string key(prefix);
  key.push_back('R');
  key.append(origin);
  return key;
}

Status RestoreRobots(std::string_view origin, const RobotsRecord& r, HostState& h) {
  // An older version's fetched rules do not say which origin they came from:
  // fetched again. Its operator-set ones cover every origin, as now.
  if (origin.empty() && r.state != RobotsState::kManual) return Status::Ok();
  auto rules = RobotsRules::Deserialize(r.rules);
  if (!rules.ok()) return rules.status();
  auto shared = std::make_shared<const RobotsRules>(std::move(rules).value());
  if (h.robots_origin.empty() && !h.robots) {  // the first record read
    h.robots_origin.assign(origin);
    h.robots_state = r.state;
    h.robots_expires_ms = r.expires_ms;
    h.robots = std::move(shared);
    h.robots_errors = r.errors;
  } else {
    h.other_robots[std::string(origin)] = {r.state, r.expires_ms, std::move(shared), r.errors};
  }
  return Status::Ok();
}

}  // namespace crawlfront
