#pragma once
// Shared helpers for the simweb tests.

#include <gtest/gtest.h>

#include "crawlfront/simweb/sim_web.h"

namespace crawlfront::simweb::testing {

// A small web with every feature switched on.
inline SimWebOptions SmallWeb(uint64_t seed = 7) {
  SimWebOptions options;
  options.hosts = 6;
  options.pages = 30;
  options.seed = seed;
  options.large_min_bytes = 20'000;  // keeps the tests quick; size is a knob
  options.large_max_bytes = 40'000;
  return options;
}

inline SimWeb MakeWeb(const SimWebOptions& options) {
  Result<SimWeb> web = SimWeb::Create(options);
  EXPECT_TRUE(web.ok()) << web.status().ToString();
  return std::move(web).value();
}

}  // namespace crawlfront::simweb::testing
