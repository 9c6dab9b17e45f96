// libFuzzer target: the bytes are a Retry-After header value. The result must
// be -1 or within [0, 1 day], and a value of only digits must mean that many
// seconds (clamped), whatever else the date parser accepts.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "worker_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using crawlfront::worker_internal::kMaxRetryAfterMs;
  using crawlfront::worker_internal::ParseRetryAfterMs;
  const std::string_view value(reinterpret_cast<const char*>(data), size);
  // 2020-01-01T00:00:00Z: a fixed clock keeps runs reproducible.
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1577836800));
  const int64_t ms = ParseRetryAfterMs(value, now);
  if (ms != -1 && (ms < 0 || ms > kMaxRetryAfterMs)) std::abort();
  if (ParseRetryAfterMs(value, now) != ms) std::abort();  // no hidden state
  std::string_view trimmed = value;
  while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
  while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
  if (!trimmed.empty() && trimmed.size() <= 12 &&
      trimmed.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t seconds = 0;
    for (char c : trimmed) seconds = seconds * 10 + (c - '0');
    if (ms != std::min(seconds * 1000, kMaxRetryAfterMs)) std::abort();
  }
  return 0;
}
