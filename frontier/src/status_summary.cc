#include <algorithm>
#include <cmath>
#include <numeric>

#include "status_render.h"

namespace crawlfront {

PartitionSummary SummarizePartitions(const std::vector<SeenPartitionStatus>& partitions) {
  PartitionSummary s;
  s.count = partitions.size();
  if (partitions.empty()) return s;
  s.fill_min = partitions.front().fill_ratio;
  double fill_sum = 0;
  for (const SeenPartitionStatus& p : partitions) {
    s.rebuilding += p.rebuilding ? 1 : 0;
    s.capacity += p.capacity;
    s.fill_min = std::min(s.fill_min, p.fill_ratio);
    s.fill_max = std::max(s.fill_max, p.fill_ratio);
    s.fp_max = std::max(s.fp_max, p.estimated_fp_rate);
    fill_sum += p.fill_ratio;
  }
  s.fill_mean = fill_sum / static_cast<double>(partitions.size());
  return s;
}

std::vector<size_t> FullestPartitions(const std::vector<SeenPartitionStatus>& partitions,
                                      size_t n) {
  std::vector<size_t> order(partitions.size());
  std::iota(order.begin(), order.end(), size_t{0});
  n = std::min(n, order.size());
  // NaN would break the strict weak ordering sort relies on: rank it last.
  auto fill = [&](size_t i) {
    double f = partitions[i].fill_ratio;
    return std::isnan(f) ? -1.0 : f;
  };
  auto fuller = [&](size_t a, size_t b) {
    if (fill(a) != fill(b)) return fill(a) > fill(b);
    return partitions[a].id < partitions[b].id;
  };
  // partial_sort: O(P log n), the page asks every second.
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(n), order.end(),
                    fuller);
  order.resize(n);
  return order;
}

std::string DescribeTask(const TaskProgress& task) {
  std::string out = task.running ? "running " : "idle";
  if (task.running) {
    out += std::to_string(task.done) + "/" +
           (task.total > 0 ? std::to_string(task.total) : std::string("?"));
  }
  if (!task.detail.empty()) out += " (" + task.detail + ")";
  if (!task.last_error.empty()) out += "; last error: " + task.last_error;
  return out;
}

std::string DescribePersistence(const PersistenceStatus& p) {
  std::string out = p.durability + ": ";
  if (p.wal_sync_failed) return out + "WAL fsync FAILED, writes are refused until a restart";
  if (p.durability == "everysec") return out + std::to_string(p.wal_syncs) + " WAL fsyncs";
  if (p.durability == "fsync") return out + "every write fsynced";
  return out + "WAL not fsynced (the kernel writes it back)";
}

}  // namespace crawlfront
