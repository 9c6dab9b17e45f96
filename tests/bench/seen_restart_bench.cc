// Seen-set restart and rebuild times (issue #2). Builds (once) a seen-set of
// N URLs through the public SeenSet API, then times SeenSet::Open (and,
// separately, Store::Open) after:
//   a. a clean close: every partition snapshotted, nothing to replay;
//   b. a crash K = N/100 inserts after the last snapshot: snapshot + replay;
//   c. the loss of every snapshot: a scan of each partition's exact range;
// and RebuildNow(p) on a sample of partitions. Prints a summary with ratios.
//
//   seen_restart_bench [--urls=N] [--dir=DIR] [--reps=R] [--sample=S]
//                      [--keep-work]
//
// N defaults to 10^7 (accepts 1e8). DIR (default /tmp/crawlfront_seen_restart.N)
// keeps the filled database in DIR/base, so the fill is done once and resumed
// if interrupted; every scenario runs on a RocksDB checkpoint of it in
// DIR/work (hard links, removed at the end), so base stays at exactly N URLs.
// Each open runs in a fresh forked process: its RSS is its own, and it can
// end like a crash (_exit, no final snapshot). Run via
// tests/bench/run_seen_restart.sh. Exit status 0, 1 on a failed step, 2 on
// bad flags.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "crawlfront/frontier/seen_set.h"

namespace crawlfront {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr uint64_t kBatch = 1000;
constexpr uint64_t kCheckKeys = 1000;  // membership checks after each open

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

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The i-th URL's key (as seen_set_bench): about 50 URLs per host, so hosts,
// hence partitions, fill unevenly. Distinct i give distinct fingerprints
// (SplitMix is a bijection), so the fill never meets a duplicate.
SeenKey KeyAt(uint64_t i) {
  SeenKey k;
  k.host_hash = SplitMix(i / 50);
  k.fingerprint.hi = SplitMix(i ^ 0x5555);
  k.fingerprint.lo = SplitMix(k.fingerprint.hi);
  return k;
}

SeenSetOptions OptionsFor(const Config& c) {
  SeenSetOptions o;
  o.expected_urls = c.urls;
  return o;
}

uint64_t ProcStatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0)
      return std::strtoull(line.c_str() + std::strlen(field), nullptr, 10);
  }
  return 0;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  }
  return total;
}

// ---- Running a step in a fresh process ----------------------------------

bool WriteAll(int fd, const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(r));
  return out;
}

// Runs `body` in a forked child and returns what it appended to its vector.
// The child ends with _exit, so whatever `body` leaks is never destroyed:
// that is how a step ends "like a crash". The parent never opens RocksDB, so
// it has no threads and fork is safe.
template <typename T>
Status InChild(const std::string& what,
               const std::function<Status(std::vector<T>*)>& body,
               std::vector<T>* out = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>);
  int fds[2];
  if (pipe(fds) != 0) return Status::IoError("pipe: " + std::string(strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork: " + std::string(strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    std::vector<T> result;
    Status s = body(&result);
    if (!s.ok()) std::fprintf(stderr, "%s: %s\n", what.c_str(), s.ToString().c_str());
    bool sent = s.ok() && WriteAll(fds[1], result.data(), result.size() * sizeof(T));
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  std::string bytes = ReadAll(fds[0]);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.size() % sizeof(T) != 0) {
    const std::string how = WIFSIGNALED(status)
                                ? "signal " + std::to_string(WTERMSIG(status))
                                : "exit " + std::to_string(WEXITSTATUS(status));
    return Status::Internal(what + " failed (child " + how + ")");
  }
  if (out) {
    out->resize(bytes.size() / sizeof(T));
    std::memcpy(out->data(), bytes.data(), bytes.size());
  }
  return Status::Ok();
}

// Leaves store and seen-set to the child's _exit, as kill -9 would: no final
// snapshot, memtables only in the WAL.
void AbandonLikeCrash(std::unique_ptr<SeenSet> seen, std::unique_ptr<Store> store) {
  (void)seen.release();
  (void)store.release();
}

// ---- Filling -------------------------------------------------------------

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

// ---- Steps (each runs in its own process) --------------------------------

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

// Opens DIR/base, fills it up to N URLs (or reuses it), closes it cleanly
// (snapshot of every partition) and checkpoints it for every scenario.
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

// Opens DIR, checks it holds `items` URLs, then closes cleanly or crashes.
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

// Inserts the tail KeyAt(N .. N+K-1) after the snapshot, then dies before
// any later snapshot (the timer is off so none can happen in between).
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

// With the seen-set closed, deletes every snapshot (and compacts the range
// away, as if none was ever written); checks the column family is empty.
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

// RebuildNow on `sample` partitions spread over all, `reps` times each.
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

// ---- Reporting -----------------------------------------------------------

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct Scenario {
  std::string name;
  std::vector<OpenSample> samples;
  double seen_median() const {
    std::vector<double> v;
    for (auto& s : samples) v.push_back(s.seen_s);
    return Median(v);
  }
  double store_median() const {
    std::vector<double> v;
    for (auto& s : samples) v.push_back(s.store_s);
    return Median(v);
  }
};

void PrintSample(const std::string& name, int rep, const OpenSample& s) {
  std::printf(
      "%s rep %d: store open %.3f s, seen-set open %.3f s (%.2fM URLs/s), %llu URLs, "
      "filters %.1f MiB, RSS %.0f MiB (peak %.0f MiB)\n",
      name.c_str(), rep + 1, s.store_s, s.seen_s, s.items / s.seen_s / 1e6,
      static_cast<unsigned long long>(s.items), s.filter_bytes / 1048576.0,
      s.rss_kb / 1024.0, s.hwm_kb / 1024.0);
  std::fflush(stdout);
}

void PrintScenario(const Scenario& sc) {
  const OpenSample& last = sc.samples.back();
  const double seen = sc.seen_median();
  std::printf("  %-36s store %8.3f s  seen-set %8.3f s  %7.2fM URLs/s  RSS %6.0f MiB\n",
              sc.name.c_str(), sc.store_median(), seen, last.items / seen / 1e6,
              last.rss_kb / 1024.0);
}

void PrintRebuilds(const std::vector<RebuildSample>& r) {
  std::vector<double> ms, items, rate;
  for (auto& s : r) {
    ms.push_back(s.seconds * 1e3);
    items.push_back(static_cast<double>(s.items));
    rate.push_back(s.items / s.seconds);
  }
  std::printf(
      "  rebuild per partition (%zu runs): median %.1f ms (min %.1f, max %.1f), "
      "median %.0f URLs in the partition, %.2fM URLs scanned/s\n",
      r.size(), Median(ms), *std::min_element(ms.begin(), ms.end()),
      *std::max_element(ms.begin(), ms.end()), Median(items), Median(rate) / 1e6);
}

void PrintSummary(const Config& c, const std::vector<Scenario>& sc,
                  const std::vector<RebuildSample>& rebuilds, double total_s) {
  std::printf(
      "\n== seen-set restart and rebuild: N = %llu URLs, tail K = %llu, "
      "%d reps (medians) ==\n",
      static_cast<unsigned long long>(c.urls), static_cast<unsigned long long>(c.tail()),
      c.reps);
  for (auto& s : sc) PrintScenario(s);
  PrintRebuilds(rebuilds);
  const double a = sc[0].seen_median(), b = sc[1].seen_median(),
               nosnap = sc[2].seen_median();
  const double ra = (sc[2].store_median() + nosnap) / (sc[0].store_median() + a);
  std::printf(
      "  ratios (seen-set open): c/a = %.1fx, c/b = %.1fx; store + seen-set: c/a = "
      "%.1fx\n",
      nosnap / a, nosnap / b, ra);
  for (auto [ratio, what] : {std::pair{nosnap / a, "after a clean close"},
                             std::pair{nosnap / b, "with a 1% tail to replay"}}) {
    std::printf("  snapshot makes restart %.1fx %s %s\n", ratio >= 1 ? ratio : 1 / ratio,
                ratio >= 1 ? "faster" : "SLOWER", what);
  }
  std::printf("  base data dir %.2f GiB; load average now %s; total runtime %.1f s\n",
              DirBytes(c.base()) / 1073741824.0, LoadAverage().c_str(), total_s);
}

// ---- Driver --------------------------------------------------------------

// Runs `reps` opens of the directory `dir_of(rep)` (after `before(rep)`).
Status RunScenario(const Config& c, Scenario* sc, uint64_t items, uint64_t check_from,
                   bool clean, const std::function<std::string(int)>& dir_of,
                   const std::function<Status(int)>& before = nullptr) {
  for (int r = 0; r < c.reps; ++r) {
    if (before) CRAWLFRONT_RETURN_IF_ERROR(before(r));
    std::vector<OpenSample> got;
    CRAWLFRONT_RETURN_IF_ERROR(InChild<OpenSample>(
        sc->name,
        [&](auto* out) { return OpenStep(c, dir_of(r), items, check_from, clean, out); },
        &got));
    PrintSample(sc->name, r, got.at(0));
    sc->samples.push_back(got.at(0));
  }
  return Status::Ok();
}

Status Run(const Config& c) {
  const auto start = Clock::now();
  std::error_code ec;
  fs::remove_all(c.dir + "/work", ec);  // leftovers of an interrupted run
  fs::create_directories(c.dir + "/work", ec);
  if (ec) return Status::IoError("cannot create " + c.dir + "/work: " + ec.message());
  std::vector<OpenSample> base;
  CRAWLFRONT_RETURN_IF_ERROR(InChild<OpenSample>(
      "prepare", [&](auto* out) { return PrepareStep(c, out); }, &base));
  std::vector<Scenario> sc = {{"a. clean close (snapshots)", {}},
                              {"b. snapshot + 1% tail, killed", {}},
                              {"c. no snapshot (scan every range)", {}}};
  const uint64_t n = c.urls, k = c.tail();
  CRAWLFRONT_RETURN_IF_ERROR(
      RunScenario(c, &sc[0], n, 0, true, [&](int) { return c.work("a"); }));
  std::vector<RebuildSample> rebuilds;
  CRAWLFRONT_RETURN_IF_ERROR(InChild<RebuildSample>(
      "rebuild", [&](auto* out) { return RebuildStep(c, out); }, &rebuilds));
  auto b_dir = [&](int r) { return c.work("b" + std::to_string(r)); };
  CRAWLFRONT_RETURN_IF_ERROR(RunScenario(c, &sc[1], n + k, n, false, b_dir, [&](int r) {
    return InChild<OpenSample>("tail",
                               [&](auto* out) { return TailStep(c, b_dir(r), out); });
  }));
  CRAWLFRONT_RETURN_IF_ERROR(InChild<OpenSample>(
      "drop snapshots", [&](auto* out) { return DropSnapshotsStep(c.work("c"), out); }));
  CRAWLFRONT_RETURN_IF_ERROR(
      RunScenario(c, &sc[2], n, 0, false, [&](int) { return c.work("c"); }));
  if (!c.keep_work) fs::remove_all(c.dir + "/work", ec);
  PrintSummary(c, sc, rebuilds, SecondsSince(start));
  return Status::Ok();
}

bool ParseArgs(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--urls=")) {
      c->urls = static_cast<uint64_t>(std::strtod(v, nullptr));  // accepts 1e8
    } else if (const char* v = value("--dir=")) {
      c->dir = v;
    } else if (const char* v = value("--reps=")) {
      c->reps = std::atoi(v);
    } else if (const char* v = value("--sample=")) {
      c->sample = static_cast<uint32_t>(std::atoi(v));
    } else if (a == "--keep-work") {
      c->keep_work = true;
    } else {
      return false;
    }
  }
  if (c->dir.empty()) c->dir = "/tmp/crawlfront_seen_restart." + std::to_string(c->urls);
  return c->urls >= kBatch && c->reps >= 1 && c->sample >= 1;
}

}  // namespace
}  // namespace crawlfront

int main(int argc, char** argv) {
  crawlfront::Config c;
  if (!crawlfront::ParseArgs(argc, argv, &c)) {
    std::fprintf(stderr,
                 "usage: %s [--urls=N (>= 1000, default 1e7)] [--dir=DIR] [--reps=R] "
                 "[--sample=PARTITIONS] [--keep-work]\n",
                 argv[0]);
    return 2;
  }
  std::printf(
      "seen_restart_bench: N = %llu, K = %llu, dir %s, %d reps, %u partitions "
      "sampled for rebuilds, load average %s\n",
      static_cast<unsigned long long>(c.urls), static_cast<unsigned long long>(c.tail()),
      c.dir.c_str(), c.reps, c.sample, crawlfront::LoadAverage().c_str());
  crawlfront::Status s = crawlfront::Run(c);
  if (!s.ok()) {
    std::fprintf(stderr, "seen_restart_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
