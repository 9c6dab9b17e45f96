#pragma once
// Seen-set keys of the benchmarks: a deterministic stream, cheap to
// regenerate so key generation does not dominate what is timed.

#include <cstdint>
#include <cstdlib>

#include "crawlfront/frontier/seen_set.h"

namespace crawlfront::bench {

// The environment variable `name` as a number, or `def` when unset.
inline uint64_t EnvOr(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : def;
}

// SplitMix64's finalizer: a bijection, so distinct inputs stay distinct.
inline uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The i-th URL's key: host = i / 50, about 50 URLs per host, so hosts (hence
// partitions) fill unevenly. Distinct i give distinct fingerprints, so a
// fill in order never meets a duplicate.
inline SeenKey KeyAt(uint64_t i) {
  SeenKey k;
  k.host_hash = SplitMix(i / 50);
  k.fingerprint.hi = SplitMix(i ^ 0x5555);
  k.fingerprint.lo = SplitMix(k.fingerprint.hi);
  return k;
}

}  // namespace crawlfront::bench
