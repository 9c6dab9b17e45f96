// libFuzzer target: ParseRobots must accept any bytes, Allowed() must not
// crash on any path, rules match as the backtracking model says, and
// Serialize/Deserialize must round-trip exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crawlfront/worker/robots.h"
#include "robots_backtracking.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const crawlfront::RobotsRules rules = crawlfront::ParseRobots(input, "crawlfront");
  // Paths taken from the input itself exercise the matcher against patterns.
  static_cast<void>(rules.Allowed(input.substr(0, 256)));
  static_cast<void>(rules.Allowed(input.substr(input.size() / 2, 256)));
  const std::string_view paths[] = {input.substr(0, 256), input.substr(input.size() / 2, 256)};
  for (const crawlfront::RobotsRule& rule : rules.rules()) {
    static_cast<void>(rules.Allowed(rule.pattern));
    // The linear matcher answers as the backtracking model does.
    for (std::string_view path : paths) {
      if (crawlfront::RobotsPatternMatches(rule.pattern, path) !=
          crawlfront::BacktrackingMatch(rule.pattern, path)) {
        std::abort();
      }
    }
  }
  const crawlfront::Result<crawlfront::RobotsRules> back =
      crawlfront::RobotsRules::Deserialize(rules.Serialize());
  if (!back.ok() || !(*back == rules)) std::abort();
  // Deserialize must also survive arbitrary bytes.
  static_cast<void>(crawlfront::RobotsRules::Deserialize(input).ok());
  return 0;
}
