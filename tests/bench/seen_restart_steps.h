#pragma once
// The steps of seen_restart_bench (see seen_restart_bench.cc). Each runs in
// a fresh forked process, so its RSS is its own and it can end like a
// crash; each appends what it measured to `out`.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront::bench {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kBatch = 1000;  // keys per InsertIfNew while filling

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Config {
  uint64_t urls = 10'000'000;
  std::string dir;
  int reps = 3;
  uint32_t sample = 16;
  bool keep_work = false;  // leave DIR/work for inspection
  uint64_t tail() const { return std::max<uint64_t>(urls / 100, 1); }
  std::string base() const { return dir + "/base"; }
  std::string work(const std::string& name) const { return dir + "/work/" + name; }
};

// One timed open. Trivially copyable: it crosses a pipe from the child.
struct OpenSample {
  double store_s = 0;
  double seen_s = 0;
  uint64_t items = 0;
  uint64_t filter_bytes = 0;
  uint64_t rss_kb = 0;
  uint64_t hwm_kb = 0;
};

struct RebuildSample {
  uint32_t partition = 0;
  uint64_t items = 0;
  double seconds = 0;
};

// Opens DIR/base, fills it up to N URLs (or reuses it), closes it cleanly
// (snapshot of every partition) and checkpoints it for every scenario.
Status PrepareStep(const Config& c, std::vector<OpenSample>* out);

// Opens `dir`, checks it holds `items` URLs (those from `check_from` on are
// sampled), then closes cleanly or leaves everything open, like a crash.
Status OpenStep(const Config& c, const std::string& dir, uint64_t items,
                uint64_t check_from, bool clean_close, std::vector<OpenSample>* out);

// Inserts the tail KeyAt(N .. N+K-1) after the snapshot, then dies before
// any later snapshot (the timer is off so none can happen in between).
Status TailStep(const Config& c, const std::string& dir, std::vector<OpenSample>* out);

// With the seen-set closed, deletes every snapshot (and compacts the range
// away, as if none was ever written); checks the column family is empty.
Status DropSnapshotsStep(const std::string& dir, std::vector<OpenSample>* out);

// RebuildNow on `sample` partitions spread over all, `reps` times each.
Status RebuildStep(const Config& c, std::vector<RebuildSample>* out);

}  // namespace crawlfront::bench
