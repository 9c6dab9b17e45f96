#pragma once
// RateHistory: the status page's ring buffer of per-second rates, computed
// from successive counter readings. Private to the status server.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "crawlfront/frontier/status_http.h"

namespace crawlfront {

// Not thread-safe: the server guards it with a mutex.
class RateHistory {
 public:
  // Keeps at most `capacity` samples (>= 1; 0 is treated as 1).
  explicit RateHistory(size_t capacity);

  // Records counter readings taken at `unix_ms`. The first reading only sets
  // the baseline; each later one appends the rates since the previous
  // reading. A reading not after the previous one is ignored (clock step);
  // a counter that went down (restart) contributes a rate of 0.
  void Add(int64_t unix_ms, uint64_t fetched, uint64_t seen, uint64_t failed);

  // Oldest first.
  std::vector<RateSample> Samples() const;
  size_t capacity() const { return capacity_; }

 private:
  struct Reading {
    int64_t unix_ms;
    uint64_t fetched;
    uint64_t seen;
    uint64_t failed;
  };
  size_t capacity_;
  std::optional<Reading> last_;
  std::deque<RateSample> samples_;
};

}  // namespace crawlfront
