#pragma once
// Time behind a small interface (LevelDB's Env, RocksDB's mock clock), so
// politeness delays and lease expiry are tested without real sleeps.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace crawlfront {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch. Thread-safe.
  virtual int64_t NowMs() const = 0;
  // The process-wide real clock.
  static Clock* Real();
};

class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

inline Clock* Clock::Real() {
  static SystemClock clock;
  return &clock;
}

// A clock tests move by hand. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
  int64_t NowMs() const override { return now_.load(std::memory_order_relaxed); }
  void Advance(int64_t ms) { now_.fetch_add(ms, std::memory_order_relaxed); }
  void Set(int64_t ms) { now_.store(ms, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace crawlfront
