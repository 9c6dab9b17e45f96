#include "status_history.h"

#include <algorithm>

namespace crawlfront {

namespace {
double PerSecond(uint64_t now, uint64_t before, double seconds) {
  if (now < before) return 0;  // counter reset: no meaningful rate
  return static_cast<double>(now - before) / seconds;
}
}  // namespace

RateHistory::RateHistory(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

void RateHistory::Add(int64_t unix_ms, uint64_t fetched, uint64_t seen, uint64_t failed) {
  Reading now{unix_ms, fetched, seen, failed};
  if (!last_) {
    last_ = now;
    return;
  }
  if (unix_ms <= last_->unix_ms) return;
  double seconds = static_cast<double>(unix_ms - last_->unix_ms) / 1000.0;
  RateSample sample;
  sample.unix_ms = unix_ms;
  sample.fetched_per_second = PerSecond(fetched, last_->fetched, seconds);
  sample.added_per_second = PerSecond(seen, last_->seen, seconds);
  sample.failed_per_second = PerSecond(failed, last_->failed, seconds);
  samples_.push_back(sample);
  if (samples_.size() > capacity_) samples_.pop_front();
  last_ = now;
}

std::vector<RateSample> RateHistory::Samples() const {
  return {samples_.begin(), samples_.end()};
}

}  // namespace crawlfront
