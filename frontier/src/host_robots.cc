// A host queue's robots.txt rules per origin. The rules of the origin whose
// page comes up next live in HostState's robots_* fields, where the lease
// path, politeness and stats read them; the queue's other origins wait in
// other_robots. A queue nearly always has one origin, so a lease pays one
// string compare for this.

#include <algorithm>

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
  OriginRobots current{std::move(h.robots_origin), h.robots_state, h.robots_expires_ms,
                       std::move(h.robots), h.robots_errors};
  OriginRobots next{std::string(origin), RobotsState::kNone, 0, nullptr, 0};
  auto it = std::find_if(h.other_robots.begin(), h.other_robots.end(),
                         [&](const OriginRobots& o) { return o.origin == origin; });
  if (it != h.other_robots.end()) {
    next = std::move(*it);
    *it = std::move(current);
  } else {
    h.other_robots.push_back(std::move(current));
  }
  h.robots_origin = std::move(next.origin);
  h.robots_state = next.state;
  h.robots_expires_ms = next.expires_ms;
  h.robots = std::move(next.rules);
  h.robots_errors = next.errors;
}

namespace {

// A rules set in flight is not stored: the next run fetches it again.
RobotsState Stored(RobotsState s) {
  return s == RobotsState::kFetching ? RobotsState::kNone : s;
}

std::string Serialized(const std::shared_ptr<const RobotsRules>& rules) {
  return rules ? rules->Serialize() : RobotsRules().Serialize();
}

}  // namespace

RobotsRecord RobotsRecordOf(const HostState& h) {
  RobotsRecord r{h.robots_state, h.robots_expires_ms, Serialized(h.robots), h.robots_origin, {}};
  for (const OriginRobots& o : h.other_robots) {
    r.others.push_back({Stored(o.state), o.expires_ms, Serialized(o.rules), o.origin, {}});
  }
  return r;
}

Status RestoreRobots(const RobotsRecord& r, HostState& h) {
  auto parse = [](const RobotsRecord& rec) -> Result<std::shared_ptr<const RobotsRules>> {
    auto rules = RobotsRules::Deserialize(rec.rules);
    if (!rules.ok()) return rules.status();
    return std::make_shared<const RobotsRules>(std::move(rules).value());
  };
  auto rules = parse(r);
  if (!rules.ok()) return rules.status();
  h.robots_state = r.state;
  h.robots_expires_ms = r.expires_ms;
  h.robots = std::move(rules).value();
  h.robots_origin = r.origin;
  h.other_robots.clear();
  for (const RobotsRecord& o : r.others) {
    auto other = parse(o);
    if (!other.ok()) return other.status();
    h.other_robots.push_back({o.origin, o.state, o.expires_ms, std::move(other).value(), 0});
  }
  return Status::Ok();
}

}  // namespace crawlfront
