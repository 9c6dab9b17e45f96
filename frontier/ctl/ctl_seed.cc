// crawlctl seed: streams URL lines to the frontier in batches, with progress,
// a summary, and a resumable position when the frontier goes away.

#include <sys/stat.h>
#include <unistd.h>

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
};

struct Counts {
  uint64_t lines = 0, urls = 0, fresh = 0, seen = 0, rejected = 0, skipped = 0;
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

class Seeder {
 public:
  // Lines before --start-line were acknowledged by an earlier run, so a
  // failure before the first batch still resumes from --start-line.
  Seeder(const GlobalOptions& g, const SeedOptions& o, std::FILE* rejects)
      : g_(g), o_(o), rejects_(rejects), acked_line_(o.start_line > 0 ? o.start_line - 1 : 0) {}

  // Sends the pending batch; on failure reports the resumable position.
  Status Flush(Counts* c) {
    if (urls_.empty()) return Status::Ok();
    const std::string& address = g_.frontiers[next_frontier_++ % g_.frontiers.size()];
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
    args.push_back("URLS");
    args.insert(args.end(), urls_.begin(), urls_.end());
    auto reply = clients_[address]->Command(args);
    if (!reply.ok()) return Status::Unavailable(address + ": " + reply.status().message());
    if (reply->is_error()) return Status::InvalidArgument(address + ": " + reply->str);
    if (reply->elements.size() != urls_.size()) {
      return Status::Corruption(address + ": reply has " +
                                std::to_string(reply->elements.size()) + " entries for " +
                                std::to_string(urls_.size()) + " URLs");
    }
    for (size_t i = 0; i < urls_.size(); ++i) Count(reply->elements[i], i, c);
    acked_line_ = line_numbers_.back();
    urls_.clear();
    line_numbers_.clear();
    return Status::Ok();
  }

  void Add(std::string url, uint64_t line) {
    urls_.push_back(std::move(url));
    line_numbers_.push_back(line);
  }
  bool Full() const { return urls_.size() >= o_.batch; }
  uint64_t acked_line() const { return acked_line_; }

 private:
  void Count(const RespValue& v, size_t i, Counts* c) {
    if (v.type == RespType::kInteger) {
      (v.integer == 1 ? c->fresh : c->seen)++;
      return;
    }
    ++c->rejected;
    std::string reason = v.str;
    if (reason.rfind("rejected: ", 0) == 0) reason = reason.substr(10);
    std::fprintf(rejects_, "line %llu: %s: %s\n",
                 static_cast<unsigned long long>(line_numbers_[i]), reason.c_str(),
                 urls_[i].substr(0, 200).c_str());
  }

  const GlobalOptions& g_;
  const SeedOptions& o_;
  std::FILE* rejects_;
  std::map<std::string, std::unique_ptr<RespClient>> clients_;
  size_t next_frontier_ = 0;
  std::vector<std::string> urls_;
  std::vector<uint64_t> line_numbers_;
  uint64_t acked_line_;
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
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
  std::FILE* rejects = stderr;
  if (!o.rejects.empty()) {
    rejects = std::fopen(o.rejects.c_str(), "w");
    if (!rejects) return Fail("seed", Status::IoError("cannot write " + o.rejects));
  }
  Counts c;
  Progress progress(total_bytes);
  Seeder seeder(g, o, rejects);
  std::string line;
  uint64_t bytes = 0;
  Status st;
  while (st.ok() && std::getline(*in, line)) {
    ++c.lines;
    bytes += line.size() + 1;
    if (c.lines < o.start_line) continue;
    std::string url = Trim(line);
    if (url.empty() || url[0] == '#') {
      ++c.skipped;
      continue;
    }
    ++c.urls;
    seeder.Add(std::move(url), c.lines);
    if (seeder.Full()) st = seeder.Flush(&c);
    progress.Update(c, bytes, false);
  }
  if (st.ok()) st = seeder.Flush(&c);
  progress.Update(c, bytes, true);
  if (rejects != stderr) std::fclose(rejects);
  if (!st.ok()) {
    std::fprintf(stderr,
                 "crawlctl: seed stopped: %s\n"
                 "crawlctl: lines up to %llu were acknowledged; resume with --start-line %llu\n",
                 st.message().c_str(), static_cast<unsigned long long>(seeder.acked_line()),
                 static_cast<unsigned long long>(seeder.acked_line() + 1));
    return kExitFailed;
  }
  double secs = progress.Seconds();
  if (g.json) {
    std::printf("{\"lines\":%llu,\"urls\":%llu,\"new\":%llu,\"seen\":%llu,\"rejected\":%llu,"
                "\"seconds\":%.3f}\n",
                static_cast<unsigned long long>(c.lines), static_cast<unsigned long long>(c.urls),
                static_cast<unsigned long long>(c.fresh), static_cast<unsigned long long>(c.seen),
                static_cast<unsigned long long>(c.rejected), secs);
  } else {
    std::printf("seeded %llu URLs from %llu lines in %.1f s: %llu new, %llu already seen, "
                "%llu rejected\n",
                static_cast<unsigned long long>(c.urls), static_cast<unsigned long long>(c.lines),
                secs, static_cast<unsigned long long>(c.fresh),
                static_cast<unsigned long long>(c.seen),
                static_cast<unsigned long long>(c.rejected));
  }
  return kExitOk;
}

}  // namespace

int RunSeed(const GlobalOptions& g, const std::vector<std::string>& args) {
  SeedOptions o;
  po::options_description desc(
      "crawlctl seed [FILE|-] [options]\n"
      "Adds the URLs of FILE (or stdin), one per line; '#' comments and blank lines\n"
      "are skipped. Rejected lines go to stderr (or --rejects) with their line number.\n"
      "Options");
  desc.add_options()("help,h", "this help")(
      "rejects", po::value(&o.rejects), "write rejected lines here instead of stderr")(
      "batch", po::value(&o.batch)->default_value(1000), "URLs per FRONTIER.ADDX call")(
      "start-line", po::value(&o.start_line)->default_value(1),
      "skip lines before this one (resume after an interrupted seed)")(
      "depth", po::value(&o.depth)->default_value(0), "depth recorded for these URLs");
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
  return Seed(g, o);
}

}  // namespace crawlfront::ctl
