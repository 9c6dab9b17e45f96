// crawlctl seed: streams URL lines to the frontiers in batches (each URL to
// the frontier owning its host), with progress, a summary, and a resumable
// position when a frontier goes away.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include <boost/program_options.hpp>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

struct SeedOptions {
  std::string input = "-";
  std::string rejects;
  size_t batch = 1000;
  uint64_t start_line = 1;
  int depth = 0;
  int32_t priority = 0;
  std::string refetch;     // as given: now, +DURATION or Unix ms
  int64_t refetch_ms = 0;  // 0: URLs already seen are not queued again
  std::string host_key = "host";
};

struct Counts {
  uint64_t lines = 0, urls = 0, fresh = 0, seen = 0, rejected = 0, skipped = 0;
  uint64_t recrawls = 0;  // of `seen`: a recrawl queued or moved earlier (reply 2)
};

// Progress on a terminal: a bar with rate and ETA; elsewhere a line every 5 s.
class Progress {
 public:
  Progress(uint64_t total_bytes) : total_(total_bytes), tty_(isatty(STDERR_FILENO)) {}
  void Update(const Counts& c, uint64_t bytes, bool final) {
    auto now = Clock::now();
    auto every = tty_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(5000);
    if (!final && now - last_ < every) return;
    last_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double rate = secs > 0 ? c.lines / secs : 0;
    char eta[32] = "";
    if (total_ > 0 && bytes > 0 && bytes < total_) {
      double left = secs * (static_cast<double>(total_) / bytes - 1);
      std::snprintf(eta, sizeof eta, " ETA %d:%02d", static_cast<int>(left) / 60,
                    static_cast<int>(left) % 60);
    }
    if (tty_) {
      int pct = total_ ? static_cast<int>(100.0 * bytes / total_) : -1;
      std::string bar;
      if (pct >= 0) bar = "[" + std::string(pct / 5, '#') + std::string(20 - pct / 5, '.') + "] ";
      std::fprintf(stderr, "\r%s%llu lines  %.0f lines/s  new %llu  seen %llu  rejected %llu%s   ",
                   bar.c_str(), static_cast<unsigned long long>(c.lines), rate,
                   static_cast<unsigned long long>(c.fresh),
                   static_cast<unsigned long long>(c.seen),
                   static_cast<unsigned long long>(c.rejected), eta);
      if (final) std::fputc('\n', stderr);
    } else {
      std::fprintf(stderr, "seed: %llu lines, %.0f lines/s, new %llu, seen %llu, rejected %llu%s\n",
                   static_cast<unsigned long long>(c.lines), rate,
                   static_cast<unsigned long long>(c.fresh),
                   static_cast<unsigned long long>(c.seen),
                   static_cast<unsigned long long>(c.rejected), eta);
    }
  }
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  uint64_t total_;
  bool tty_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
};

// One frontier's pending batch: URLs with their line numbers.
struct Batch {
  std::vector<std::string> urls;
  std::vector<uint64_t> lines;
};

// Per-frontier batches of routed URLs. The resumable position is the line
// before the oldest unacknowledged one, wherever it waits.
class Seeder {
 public:
  Seeder(const GlobalOptions& g, const SeedOptions& o, const SeedRouter& router,
         std::FILE* rejects)
      : g_(g), o_(o), router_(router), rejects_(rejects), batches_(g.frontiers.size()),
        per_frontier_(g.frontiers.size()) {}

  // Queues `url` (line `line`) for its frontier and sends what is due.
  Status Add(std::string url, uint64_t line, Counts* c) {
    size_t f = router_.FrontierFor(url);
    ++per_frontier_[f].urls;
    batches_[f].urls.push_back(std::move(url));
    batches_[f].lines.push_back(line);
    if (batches_[f].urls.size() >= o_.batch) return Flush(f, c);
    // A frontier that gets few URLs must not hold the resume position back
    // for long: send its batch once it lags a few batches behind.
    uint64_t lag = 4 * o_.batch * batches_.size();
    for (size_t i = 0; i < batches_.size(); ++i) {
      if (!batches_[i].lines.empty() && batches_[i].lines.front() + lag < line) {
        if (Status st = Flush(i, c); !st.ok()) return st;
      }
    }
    return Status::Ok();
  }

  // Sends every pending batch, oldest first line first.
  Status FlushAll(Counts* c) {
    while (true) {
      size_t oldest = OldestBatch();
      if (oldest == batches_.size()) return Status::Ok();
      if (Status st = Flush(oldest, c); !st.ok()) return st;
    }
  }

  // Every line up to this one was acknowledged (or skipped), given that
  // `lines_read` lines were read and lines before --start-line were
  // acknowledged by an earlier run.
  uint64_t acked_line(uint64_t lines_read) const {
    size_t oldest = OldestBatch();
    if (oldest < batches_.size()) return batches_[oldest].lines.front() - 1;
    uint64_t before_start = o_.start_line > 0 ? o_.start_line - 1 : 0;
    return std::max(lines_read, before_start);
  }
  const std::vector<Counts>& per_frontier() const { return per_frontier_; }

 private:
  size_t OldestBatch() const {
    size_t best = batches_.size();
    for (size_t i = 0; i < batches_.size(); ++i) {
      if (batches_[i].lines.empty()) continue;
      if (best == batches_.size() ||
          batches_[i].lines.front() < batches_[best].lines.front()) {
        best = i;
      }
    }
    return best;
  }

  // Sends frontier f's batch; on failure it stays pending.
  Status Flush(size_t f, Counts* c) {
    Batch& b = batches_[f];
    if (b.urls.empty()) return Status::Ok();
    const std::string& address = g_.frontiers[f];
    if (!clients_.count(address)) {
      auto client = Connect(g_, address);
      if (!client.ok()) return client.status();
      clients_[address] = std::move(client.value());
    }
    std::vector<std::string> args = {"FRONTIER.ADDX"};
    AddCrawl(g_, &args);
    if (o_.depth > 0) {
      args.push_back("DEPTH");
      args.push_back(std::to_string(o_.depth));
    }
    if (o_.priority != 0) {
      args.push_back("PRIORITY");
      args.push_back(std::to_string(o_.priority));
    }
    if (o_.refetch_ms > 0) {
      args.push_back("REFETCH");
      args.push_back(std::to_string(o_.refetch_ms));
    }
    args.push_back("URLS");
    args.insert(args.end(), b.urls.begin(), b.urls.end());
    auto reply = clients_[address]->Command(args);
    if (!reply.ok()) return Status::Unavailable(address + ": " + reply.status().message());
    if (reply->is_error()) return Status::InvalidArgument(address + ": " + reply->str);
    if (reply->elements.size() != b.urls.size()) {
      return Status::Corruption(address + ": reply has " +
                                std::to_string(reply->elements.size()) + " entries for " +
                                std::to_string(b.urls.size()) + " URLs");
    }
    for (size_t i = 0; i < b.urls.size(); ++i) {
      const RespValue& v = reply->elements[i];
      Tally(v, c);
      Tally(v, &per_frontier_[f]);
      if (v.type != RespType::kInteger) Report(v, b.lines[i], b.urls[i]);
    }
    b.urls.clear();
    b.lines.clear();
    return Status::Ok();
  }

  static void Tally(const RespValue& v, Counts* c) {
    if (v.type != RespType::kInteger) ++c->rejected;
    else if (v.integer == 1) ++c->fresh;
    else {
      ++c->seen;
      if (v.integer == 2) ++c->recrawls;
    }
  }

  void Report(const RespValue& v, uint64_t line, const std::string& url) {
    std::string reason = v.str;
    if (reason.rfind("rejected: ", 0) == 0) reason = reason.substr(10);
    std::fprintf(rejects_, "line %llu: %s: %s\n", static_cast<unsigned long long>(line),
                 reason.c_str(), url.substr(0, 200).c_str());
  }

  const GlobalOptions& g_;
  const SeedOptions& o_;
  const SeedRouter& router_;
  std::FILE* rejects_;
  std::map<std::string, std::unique_ptr<RespClient>> clients_;
  std::vector<Batch> batches_;        // by frontier index
  std::vector<Counts> per_frontier_;  // urls, fresh, seen, rejected
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

int Stopped(const Status& st, uint64_t acked) {
  std::fprintf(stderr,
               "crawlctl: seed stopped: %s\n"
               "crawlctl: lines up to %llu were acknowledged; resume with --start-line %llu\n",
               st.message().c_str(), static_cast<unsigned long long>(acked),
               static_cast<unsigned long long>(acked + 1));
  return kExitFailed;
}

// The summary; with several frontiers also each one's share.
void PrintSummary(const GlobalOptions& g, const SeedOptions& o, const Counts& c,
                  const std::vector<Counts>& per, double secs) {
  using ull = unsigned long long;
  bool several = per.size() > 1;
  if (g.json) {
    std::string shares;
    for (size_t i = 0; several && i < per.size(); ++i) {
      shares += std::string(i ? "," : "") + "{\"frontier\":" + JsonString(g.frontiers[i]) +
                ",\"urls\":" + std::to_string(per[i].urls) +
                ",\"new\":" + std::to_string(per[i].fresh) +
                ",\"seen\":" + std::to_string(per[i].seen) +
                ",\"rejected\":" + std::to_string(per[i].rejected) + "}";
    }
    const std::string recrawl =
        o.refetch_ms > 0 ? ",\"refetch_ms\":" + std::to_string(o.refetch_ms) +
                               ",\"recrawls\":" + std::to_string(c.recrawls)
                         : "";
    std::printf("{\"lines\":%llu,\"urls\":%llu,\"new\":%llu,\"seen\":%llu,\"rejected\":%llu,"
                "\"seconds\":%.3f%s%s%s%s}\n",
                ull(c.lines), ull(c.urls), ull(c.fresh), ull(c.seen), ull(c.rejected), secs,
                recrawl.c_str(), several ? ",\"frontiers\":[" : "", shares.c_str(),
                several ? "]" : "");
    return;
  }
  std::printf("seeded %s from %s in %.1f s: %llu new, %llu already seen, %llu rejected\n",
              Plural(c.urls, "URL").c_str(), Plural(c.lines, "line").c_str(), secs,
              ull(c.fresh), ull(c.seen), ull(c.rejected));
  if (o.refetch_ms > 0 && c.seen > 0) {
    const std::string when = UtcTimeOfMs(std::to_string(o.refetch_ms));
    std::printf("recrawls: %llu queued for %s (new, or moved up to it), %llu kept (queued "
                "for then or earlier, or being fetched)\n",
                ull(c.recrawls), when.c_str(), ull(c.seen - c.recrawls));
  }
  for (size_t i = 0; several && i < per.size(); ++i) {
    std::printf("  %s: %llu URLs: %llu new, %llu already seen, %llu rejected\n",
                g.frontiers[i].c_str(), ull(per[i].urls), ull(per[i].fresh), ull(per[i].seen),
                ull(per[i].rejected));
  }
}

// Reads the input to its end (or the first failure), sending as it goes.
Status SeedLines(std::istream& in, const SeedOptions& o, Seeder& seeder, Progress& progress,
                 Counts* c) {
  std::string line;
  uint64_t bytes = 0;
  Status st;
  while (st.ok() && std::getline(in, line)) {
    ++c->lines;
    bytes += line.size() + 1;
    if (c->lines < o.start_line) continue;
    std::string url = Trim(line);
    if (url.empty() || url[0] == '#') {
      ++c->skipped;
      continue;
    }
    ++c->urls;
    st = seeder.Add(std::move(url), c->lines, c);
    progress.Update(*c, bytes, false);
  }
  if (st.ok()) st = seeder.FlushAll(c);
  progress.Update(*c, bytes, true);
  return st;
}

int Seed(const GlobalOptions& g, const SeedOptions& o) {
  std::ifstream file;
  std::istream* in = &std::cin;
  uint64_t total_bytes = 0;
  if (o.input != "-") {
    file.open(o.input, std::ios::binary);
    if (!file) return Fail("seed", Status::IoError("cannot open " + o.input));
    struct stat st{};
    if (stat(o.input.c_str(), &st) == 0 && S_ISREG(st.st_mode)) total_bytes = st.st_size;
    in = &file;
  }
  HostKeyMode mode =
      o.host_key == "registered-domain" ? HostKeyMode::kRegisteredDomain : HostKeyMode::kHost;
  auto router = SeedRouter::Open(g, mode);
  // Nothing was sent: lines before --start-line are still the acknowledged ones.
  if (!router.ok()) return Stopped(router.status(), o.start_line > 0 ? o.start_line - 1 : 0);
  std::FILE* rejects = stderr;
  if (!o.rejects.empty()) {
    rejects = std::fopen(o.rejects.c_str(), "w");
    if (!rejects) return Fail("seed", Status::IoError("cannot write " + o.rejects));
  }
  Counts c;
  Progress progress(total_bytes);
  Seeder seeder(g, o, *router, rejects);
  Status st = SeedLines(*in, o, seeder, progress, &c);
  if (rejects != stderr) std::fclose(rejects);
  if (!st.ok()) return Stopped(st, seeder.acked_line(c.lines));
  PrintSummary(g, o, c, seeder.per_frontier(), progress.Seconds());
  return kExitOk;
}

}  // namespace

int RunSeed(const GlobalOptions& g, const std::vector<std::string>& args) {
  SeedOptions o;
  po::options_description desc(
      "crawlctl seed [FILE|-] [options]\n"
      "Adds the URLs of FILE (or stdin), one per line; '#' comments and blank lines\n"
      "are skipped. Rejected lines go to stderr (or --rejects) with their line number.\n"
      "With several --frontier, each URL goes to the frontier owning its host's\n"
      "seen-set partition (rendezvous hashing over the --frontier addresses exactly\n"
      "as written, which must match the cluster's member list); lines crawlctl cannot\n"
      "parse go to the first frontier, which rejects them with its reason.\n"
      "Options");
  desc.add_options()("help,h", "this help")(
      "rejects", po::value(&o.rejects), "write rejected lines here instead of stderr")(
      "batch", po::value(&o.batch)->default_value(1000), "URLs per FRONTIER.ADDX call")(
      "start-line", po::value(&o.start_line)->default_value(1),
      "skip lines before this one (resume after an interrupted seed)")(
      "depth", po::value(&o.depth)->default_value(0), "depth recorded for these URLs")(
      "priority", po::value(&o.priority)->default_value(0),
      "priority of these URLs (higher is leased first within a host)")(
      "refetch", po::value(&o.refetch),
      "recrawl: queue URLs already seen again, due at WHEN (now, +N with ms|s|m|h, or Unix ms); "
      "new URLs are due then too; a URL whose recrawl is still queued keeps that one (moved "
      "earlier if WHEN is); the summary counts recrawls queued and kept")(
      "host-key", po::value(&o.host_key)->default_value("host"),
      "host|registered-domain: the frontiers' url.host_key (routes URLs when there "
      "are several --frontier)");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&o.input));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crawlctl seed: %s\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return kExitOk;
  }
  if (o.batch == 0 || o.batch > 100000) {
    std::fprintf(stderr, "crawlctl seed: --batch must be in [1, 100000]\n");
    return kExitUsage;
  }
  if (!o.refetch.empty()) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    auto when =
        ParseWhen(o.refetch, std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
    if (!when.ok()) {
      std::fprintf(stderr, "crawlctl seed: --refetch %s\n", when.status().message().c_str());
      return kExitUsage;
    }
    o.refetch_ms = *when;
  }
  if (o.host_key != "host" && o.host_key != "registered-domain") {
    std::fprintf(stderr, "crawlctl seed: --host-key must be host or registered-domain\n");
    return kExitUsage;
  }
  return Seed(g, o);
}

}  // namespace crawlfront::ctl
