// The steps of seen_restart_bench, each run in its own process by the
// driver in seen_restart_bench.cc.

#include "seen_restart_steps.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "bench_keys.h"
#include "crawlfront/common/proc_status.h"
#include "crawlfront/frontier/seen_set.h"

namespace crawlfront::bench {
namespace {

constexpr uint64_t kCheckKeys = 1000;  // membership checks after each open

SeenSetOptions OptionsFor(const Config& c) {
  SeenSetOptions o;
  o.expected_urls = c.urls;
  return o;
}

// Leaves store and seen-set to the child's _exit, as kill -9 would: no final
// snapshot, memtables only in the WAL.
void AbandonLikeCrash(std::unique_ptr<SeenSet> seen, std::unique_ptr<Store> store) {
  (void)seen.release();
  (void)store.release();
}

// Prints the fill's rate and ETA every 5 s (a 10^8 fill takes a while).
class Progress {
 public:
  Progress(uint64_t from, uint64_t to) : from_(from), to_(to), last_done_(from) {}
  void Tick(uint64_t done) {
    if (Clock::now() - last_ < std::chrono::seconds(5)) return;
    double now_rate =
        (done - last_done_) / std::chrono::duration<double>(Clock::now() - last_).count();
    double avg = (done - from_) / SecondsSince(start_);
    std::printf(
        "fill: %llu / %llu URLs (%.1f%%), %.0f URLs/s now, %.0f avg, ETA %.0f s\n",
        static_cast<unsigned long long>(done), static_cast<unsigned long long>(to_),
        100.0 * done / to_, now_rate, avg, (to_ - done) / std::max(avg, 1.0));
    std::fflush(stdout);
    last_ = Clock::now();
    last_done_ = done;
  }

 private:
  uint64_t from_, to_, last_done_;
  Clock::time_point start_ = Clock::now(), last_ = Clock::now();
};

// Inserts KeyAt(from .. to-1) in batches; every one must come back new.
Status InsertRange(SeenSet& seen, uint64_t from, uint64_t to, bool progress) {
  std::vector<SeenKey> keys;
  std::vector<SeenResult> out;
  Progress prog(from, to);
  for (uint64_t i = from; i < to; i += kBatch) {
    const uint64_t end = std::min(to, i + kBatch);
    keys.clear();
    for (uint64_t j = i; j < end; ++j) keys.push_back(KeyAt(j));
    CRAWLFRONT_RETURN_IF_ERROR(seen.InsertIfNew(keys, &out));
    for (size_t j = 0; j < out.size(); ++j) {
      if (out[j] != SeenResult::kNew) {
        return Status::Internal("fresh key " + std::to_string(i + j) +
                                " reported seen: is DIR from another key scheme?");
      }
    }
    if (progress) prog.Tick(end);
  }
  return Status::Ok();
}

// Membership after an open: `count` keys spread over [0, present) must be
// seen, the same number from beyond it must not (Contains is exact).
Status CheckMembership(SeenSet& seen, uint64_t present, uint64_t from) {
  const uint64_t step = std::max<uint64_t>((present - from) / kCheckKeys, 1);
  for (uint64_t i = from; i < present; i += step) {
    auto in = seen.Contains(KeyAt(i));
    if (!in.ok()) return in.status();
    if (!*in) return Status::Internal("key " + std::to_string(i) + " lost after open");
  }
  for (uint64_t i = present + (1ull << 40); i < present + (1ull << 40) + kCheckKeys;
       ++i) {
    auto in = seen.Contains(KeyAt(i));
    if (!in.ok()) return in.status();
    if (*in) return Status::Internal("never inserted key " + std::to_string(i) + " seen");
  }
  return Status::Ok();
}

Status TimedOpen(const std::string& dir, const SeenSetOptions& o, OpenSample* s,
                 std::unique_ptr<Store>* store, std::unique_ptr<SeenSet>* seen) {
  auto start = Clock::now();
  auto st = Store::Open(dir, StoreOptions{});
  if (!st.ok()) return st.status();
  s->store_s = SecondsSince(start);
  *store = std::move(st.value());
  start = Clock::now();
  auto ss = SeenSet::Open(store->get(), o);
  if (!ss.ok()) return ss.status();
  s->seen_s = SecondsSince(start);
  *seen = std::move(ss.value());
  SeenSetStats stats = (*seen)->GetStats();
  s->items = stats.items;
  s->filter_bytes = stats.filter_bytes;
  s->rss_kb = ProcStatusKb("VmRSS:");
  s->hwm_kb = ProcStatusKb("VmHWM:");
  return Status::Ok();
}

}  // namespace

// ---- Steps (each runs in its own process) --------------------------------

Status PrepareStep(const Config& c, std::vector<OpenSample>* out) {
  spdlog::set_level(spdlog::level::warn);  // rebuild logs would drown the progress
  OpenSample s;
  std::unique_ptr<Store> store;
  std::unique_ptr<SeenSet> seen;
  CRAWLFRONT_RETURN_IF_ERROR(TimedOpen(c.base(), OptionsFor(c), &s, &store, &seen));
  if (s.items > c.urls) {
    return Status::InvalidArgument(c.base() + " holds " + std::to_string(s.items) +
                                   " URLs, more than --urls; use another --dir");
  }
  if (s.items == c.urls) {
    std::printf("reusing %s: it already holds %llu URLs (fill skipped)\n",
                c.base().c_str(), static_cast<unsigned long long>(s.items));
  } else {
    std::printf("fill: %llu URLs present, inserting up to %llu in batches of %llu\n",
                static_cast<unsigned long long>(s.items),
                static_cast<unsigned long long>(c.urls),
                static_cast<unsigned long long>(kBatch));
    auto start = Clock::now();
    CRAWLFRONT_RETURN_IF_ERROR(InsertRange(*seen, s.items, c.urls, true));
    double secs = SecondsSince(start);
    std::printf("fill: done, %llu URLs in %.1f s (%.0f URLs/s)\n",
                static_cast<unsigned long long>(c.urls - s.items), secs,
                (c.urls - s.items) / secs);
  }
  auto start = Clock::now();
  seen.reset();  // clean close: snapshots every dirty partition
  std::printf("clean close (final snapshot) in %.2f s\n", SecondsSince(start));
  out->push_back(s);
  std::vector<std::string> names = {"a", "c"};
  for (int r = 0; r < c.reps; ++r) names.push_back("b" + std::to_string(r));
  for (auto& n : names) CRAWLFRONT_RETURN_IF_ERROR(store->Checkpoint(c.work(n)));
  return Status::Ok();
}

Status OpenStep(const Config& c, const std::string& dir, uint64_t items,
                uint64_t check_from, bool clean_close, std::vector<OpenSample>* out) {
  OpenSample s;
  std::unique_ptr<Store> store;
  std::unique_ptr<SeenSet> seen;
  CRAWLFRONT_RETURN_IF_ERROR(TimedOpen(dir, OptionsFor(c), &s, &store, &seen));
  if (s.items != items) {
    return Status::Internal("opened " + std::to_string(s.items) + " URLs, expected " +
                            std::to_string(items));
  }
  CRAWLFRONT_RETURN_IF_ERROR(CheckMembership(*seen, items, check_from));
  out->push_back(s);
  if (!clean_close) AbandonLikeCrash(std::move(seen), std::move(store));
  return Status::Ok();
}

Status TailStep(const Config& c, const std::string& dir, std::vector<OpenSample>*) {
  spdlog::set_level(spdlog::level::warn);
  SeenSetOptions o = OptionsFor(c);
  o.snapshot_interval = std::chrono::milliseconds(0);
  OpenSample s;
  std::unique_ptr<Store> store;
  std::unique_ptr<SeenSet> seen;
  CRAWLFRONT_RETURN_IF_ERROR(TimedOpen(dir, o, &s, &store, &seen));
  CRAWLFRONT_RETURN_IF_ERROR(InsertRange(*seen, c.urls, c.urls + c.tail(), false));
  AbandonLikeCrash(std::move(seen), std::move(store));
  return Status::Ok();
}

Status DropSnapshotsStep(const std::string& dir, std::vector<OpenSample>*) {
  auto store = Store::Open(dir, StoreOptions{});
  if (!store.ok()) return store.status();
  rocksdb::DB* db = (*store)->db();
  auto* cf = (*store)->cf(Cf::kSeenSnap);
  rocksdb::WriteBatch batch;
  batch.DeleteRange(cf, "", std::string(8, '\xff'));  // keys are [partition:2]...
  CRAWLFRONT_RETURN_IF_ERROR((*store)->Write(&batch));
  CRAWLFRONT_RETURN_IF_ERROR(
      FromRocks(db->CompactRange(rocksdb::CompactRangeOptions(), cf, nullptr, nullptr)));
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
  it->SeekToFirst();
  if (it->Valid()) return Status::Internal("seen_snap not empty after DeleteRange");
  return FromRocks(it->status());
}

Status RebuildStep(const Config& c, std::vector<RebuildSample>* out) {
  spdlog::set_level(spdlog::level::warn);
  OpenSample s;
  std::unique_ptr<Store> store;
  std::unique_ptr<SeenSet> seen;
  CRAWLFRONT_RETURN_IF_ERROR(TimedOpen(c.work("a"), OptionsFor(c), &s, &store, &seen));
  const uint32_t parts = seen->partitions();
  const uint32_t sample = std::min(c.sample, parts);
  for (uint32_t i = 0; i < sample; ++i) {
    const uint32_t p = static_cast<uint32_t>(uint64_t{i} * parts / sample);
    for (int r = 0; r < c.reps; ++r) {
      const PartitionStats before = seen->GetPartitionStats(p);
      auto start = Clock::now();
      CRAWLFRONT_RETURN_IF_ERROR(seen->RebuildNow(p));
      const double secs = SecondsSince(start);
      if (seen->GetPartitionStats(p).rebuilds != before.rebuilds + 1) {
        return Status::Internal("RebuildNow(" + std::to_string(p) + ") did not rebuild");
      }
      out->push_back({p, before.items, secs});
    }
  }
  return Status::Ok();
}

}  // namespace crawlfront::bench
