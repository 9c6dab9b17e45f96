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
// bad flags. This file is the driver and the report; the steps run in the
// children are in seen_restart_steps.cc.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "seen_restart_steps.h"

namespace crawlfront::bench {
namespace {

namespace fs = std::filesystem;

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
}  // namespace crawlfront::bench

int main(int argc, char** argv) {
  crawlfront::bench::Config c;
  if (!crawlfront::bench::ParseArgs(argc, argv, &c)) {
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
      c.dir.c_str(), c.reps, c.sample, crawlfront::bench::LoadAverage().c_str());
  crawlfront::Status s = crawlfront::bench::Run(c);
  if (!s.ok()) {
    std::fprintf(stderr, "seen_restart_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
