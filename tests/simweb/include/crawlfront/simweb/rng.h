#pragma once
// Portable, seeded randomness for the synthetic web. SplitMix64 gives the same
// numbers on every platform and standard library, unlike <random>'s
// distributions, so a seed names the same web everywhere.

#include <cstdint>

namespace crawlfront::simweb {

// SplitMix64 generator (Steele, Lea, Flood 2014). Not thread-safe; cheap to
// create, so every page builds its own from a key.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform-enough in [0, n). REQUIRES: n > 0. The modulo bias is far below
  // anything a test web can notice.
  uint64_t Below(uint64_t n) { return Next() % n; }
  // True with probability percent/100.
  bool Percent(uint32_t percent) { return Below(100) < percent; }

 private:
  uint64_t state_;
};

// Mixes two words into one well-spread word (order matters).
inline uint64_t Mix(uint64_t a, uint64_t b) {
  Rng rng(a ^ (b * 0xff51afd7ed558ccdULL + 0x632be59bd9b4e5f5ULL));
  return rng.Next();
}

// The seed of one item of the web: (web seed, host, item, purpose salt).
inline uint64_t KeyOf(uint64_t seed, uint64_t host, uint64_t item, uint64_t salt) {
  return Mix(Mix(Mix(seed, host), item), salt);
}

}  // namespace crawlfront::simweb
