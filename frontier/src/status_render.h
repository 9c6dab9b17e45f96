#pragma once
// Helpers shared by the status page renderers (private to the module).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/frontier/status_snapshot.h"

namespace crawlfront {

// Returns `text` with every invalid UTF-8 sequence replaced by U+FFFD, so
// that crawled bytes always make valid JSON strings and metric labels.
std::string SanitizeUtf8(std::string_view text);

struct PartitionSummary {
  size_t count = 0;
  size_t rebuilding = 0;
  uint64_t capacity = 0;  // sum over partitions
  double fill_min = 0;
  double fill_mean = 0;
  double fill_max = 0;
  double fp_max = 0;
};
PartitionSummary SummarizePartitions(const std::vector<SeenPartitionStatus>& partitions);

// Indexes into `partitions` of the `n` fullest (highest fill ratio first;
// ties by lower id).
std::vector<size_t> FullestPartitions(const std::vector<SeenPartitionStatus>& partitions,
                                      size_t n);

// "snapshot 512/1024" style text: "idle", "running 3/8 (detail)", ...
std::string DescribeTask(const TaskProgress& task);
// "everysec: 42 WAL fsyncs", or the failure an operator must act on.
std::string DescribePersistence(const PersistenceStatus& p);

// The newest `max` entries of `items` as a [first, last) index range.
template <typename T>
std::pair<size_t, size_t> NewestRange(const std::vector<T>& items, size_t max) {
  size_t first = items.size() > max ? items.size() - max : 0;
  return {first, items.size()};
}

}  // namespace crawlfront
