#pragma once
// Reading one host's queue in key order, as FRONTIER.QUEUE, FRONTIER.DROP
// MATCH and FRONTIER.URL do: its ready entries (prefix 00, leased ones
// included) in the order leases take them, then its scheduled ones (prefix
// 01, by due time). Internal to the crawl core.

#include <memory>
#include <string>
#include <string_view>

#include <rocksdb/db.h>

#include "crawlfront/frontier/crawl.h"

namespace crawlfront {

// Calls visit(key, value) for up to `max` entries of the queue with host
// prefix `prefix`, from key *resume; then *resume is the next key to read
// and *more says whether there is one. Stops at visit's first error.
template <typename Visit>
Status ScanHostQueue(Store& store, std::string_view prefix, size_t max, std::string* resume,
                     bool* more, Visit&& visit) {
  *more = false;
  const std::string end = std::string(prefix) + '\2';
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(store.db()->NewIterator(ro, store.cf(Cf::kQueue)));
  size_t read = 0;
  for (it->Seek(*resume); it->Valid(); it->Next(), ++read) {
    if (read == max) {
      *resume = it->key().ToString();
      *more = true;
      break;
    }
    CRAWLFRONT_RETURN_IF_ERROR(visit(it->key().ToStringView(), it->value().ToStringView()));
  }
  return FromRocks(it->status());
}

// An entry as FRONTIER.QUEUE and FRONTIER.URL show it.
inline QueuedUrl QueuedUrlOf(const HostState& h, std::string_view key, QueueItem item) {
  QueuedUrl q{std::move(item.url), std::move(item.parent), QueuedUrl::State::kReady,
              item.depth, item.attempt, item.priority, 0};
  if (key[h.prefix.size()] == '\1') {
    q.state = QueuedUrl::State::kScheduled;
    q.due_ms = item.due_ms;
  } else if (h.leased_keys.count(key) != 0) {
    q.state = QueuedUrl::State::kLeased;
  }
  return q;
}

}  // namespace crawlfront
