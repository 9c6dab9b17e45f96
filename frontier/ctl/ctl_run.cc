// crawlctl run: the all-in-one crawl. Starts simweb (unless --seeds is
// given), a frontier with its status page and workers on 127.0.0.1, seeds,
// shows progress until the crawl finishes, prints a summary, and stops every
// process it started (by PID).

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "ctl.h"

namespace crawlfront::ctl {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

struct RunOptions {
  std::string workdir = "crawl-run";
  std::string seeds;  // file of seed URLs; empty: crawl simweb
  int hosts = 20, pages = 50, seed = 1, workers = 1, max_depth = 6;
  int delay_ms = 100;
  int timeout_s = 600;
  int linger_s = 0;
  bool fresh = false, resume = false;
  std::vector<std::string> worker_args, frontier_args;
};

volatile std::sig_atomic_t g_interrupted = 0;

struct Child {
  std::string name;
  pid_t pid = -1;
};

// In a forked child: runs argv[0] (a path) or exits 127.
[[noreturn]] void Exec(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  std::perror("execv");
  _exit(127);
}

// Starts `argv` with stdout+stderr appended to `log`. Returns the child.
Result<Child> Spawn(const std::string& name, const std::vector<std::string>& argv,
                    const std::string& log) {
  pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork failed");
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    setpgid(0, 0);  // Ctrl-C reaches crawlctl only; it stops the children
    Exec(argv);
  }
  return Child{name, pid};
}

// Runs `argv` to its end; its stdout, or an error with its exit code and
// stderr's first line when it fails.
Result<std::string> Capture(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (pipe(out) != 0) return Status::IoError("pipe failed");
  if (pipe(err) != 0) {
    close(out[0]);
    close(out[1]);
    return Status::IoError("pipe failed");
  }
  pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork failed");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    close(out[0]);
    close(err[0]);
    Exec(argv);
  }
  close(out[1]);
  close(err[1]);
  // The child writes a line or two: reading stdout to its end cannot block
  // on a full stderr pipe.
  auto drain = [](int fd) {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
    close(fd);
    return text;
  };
  std::string text = drain(out[0]);
  std::string errors = drain(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return text;
  return Status::InvalidArgument(errors.substr(0, errors.find('\n')));
}

void Stop(std::vector<Child>& children) {
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    if (it->pid <= 0) continue;
    kill(it->pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100 && waitpid(it->pid, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (waitpid(it->pid, &status, WNOHANG) == 0) {
      kill(it->pid, SIGKILL);
      waitpid(it->pid, &status, 0);
    }
    it->pid = -1;
  }
}

bool Exited(const Child& c) {
  int status = 0;
  return waitpid(c.pid, &status, WNOHANG) == c.pid;
}

// Waits (bounded) for a daemon to write its port file; returns its lines.
Result<std::vector<std::string>> WaitPortFile(const std::string& path, const Child& c) {
  for (int i = 0; i < 300; ++i) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (!lines.empty() && !lines.back().empty()) return lines;
    if (Exited(c)) return Status::Unavailable(c.name + " exited during start-up");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::Unavailable(c.name + " did not start within 30 s");
}

std::string ValueOf(const std::vector<std::string>& lines, const std::string& key) {
  for (auto& l : lines) {
    if (l.rfind(key + "=", 0) == 0) return l.substr(key.size() + 1);
  }
  return lines.empty() ? "" : lines[0];
}

std::string InfoValue(const std::vector<std::pair<std::string, std::string>>& info,
                      const std::string& key) {
  for (auto& [k, v] : info) {
    if (k == key) return v;
  }
  return "0";
}

// What an earlier run left in `work`: "" if nothing, else a description.
std::string EarlierRun(const fs::path& work) {
  std::error_code ec;
  size_t warc_files = 0;
  for (auto it = fs::directory_iterator(work / "warc", ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    ++warc_files;
  }
  const bool data = fs::exists(work / "data", ec);
  if (!data && warc_files == 0) return "";
  std::string what = data ? "its crawl data" : "";
  if (warc_files > 0) {
    what += (data ? " and " : "") + std::to_string(warc_files) + " WARC file" +
            (warc_files == 1 ? "" : "s");
  }
  return what;
}

int Run(const GlobalOptions& g, const RunOptions& o) {
  fs::path bin = fs::read_symlink("/proc/self/exe").parent_path();
  fs::path work = fs::absolute(o.workdir);
  // An earlier run's WARC files are the crawl's product: never deleted
  // unless asked.
  if (std::string earlier = EarlierRun(work); !earlier.empty() && !o.fresh && !o.resume) {
    std::fprintf(stderr,
                 "crawlctl run: %s holds an earlier run (%s). --resume continues that crawl "
                 "and keeps its WARC files, --fresh deletes both, or choose another --workdir.\n",
                 work.c_str(), earlier.c_str());
    return kExitUsage;
  }
  fs::create_directories(work / "logs");
  if (o.fresh) {
    fs::remove_all(work / "data");
    fs::remove_all(work / "warc");
  }
  fs::create_directories(work / "warc");
  for (auto f : {"simweb.port", "frontier.port"}) fs::remove(work / f);
  std::vector<Child> children;
  auto fail = [&](const std::string& what, const Status& s) {
    Stop(children);
    std::fprintf(stderr, "crawlctl run: %s: %s (logs in %s)\n", what.c_str(),
                 s.message().c_str(), (work / "logs").c_str());
    return kExitFailed;
  };

  std::string sim_port;
  if (o.seeds.empty()) {
    auto sim = Spawn("simweb",
                     {(bin / "simweb").string(), "--listen", "127.0.0.1:0", "--hosts",
                      std::to_string(o.hosts), "--pages", std::to_string(o.pages), "--seed",
                      std::to_string(o.seed), "--sitemaps", "--access-log",
                      (work / "logs/simweb-access.log").string(),
                      "--port-file", (work / "simweb.port").string()},
                     (work / "logs/simweb.log").string());
    if (!sim.ok()) return fail("simweb", sim.status());
    children.push_back(*sim);
    auto port = WaitPortFile((work / "simweb.port").string(), *sim);
    if (!port.ok()) return fail("simweb", port.status());
    sim_port = (*port)[0];
  }

  // The frontier picks each site's robots.txt group for the workers'
  // product token, so it takes theirs (crawl-worker --robots-token).
  std::vector<std::string> token_args = {(bin / "crawl-worker").string()};
  token_args.insert(token_args.end(), o.worker_args.begin(), o.worker_args.end());
  token_args.push_back("--robots-token");
  auto token = Capture(token_args);
  if (!token.ok()) return fail("crawl-worker", token.status());
  while (!token->empty() && std::isspace(static_cast<unsigned char>(token->back()))) {
    token->pop_back();
  }

  std::vector<std::string> fargs = {
      (bin / "crawl-frontier").string(), "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
      "--data-dir", (work / "data").string(), "--port-file", (work / "frontier.port").string(),
      "--set", "crawl.default_delay=" + std::to_string(o.delay_ms) + "ms",
      "--set", "crawl.max_depth=" + std::to_string(o.max_depth),
      "--set", "crawl.user_agent=" + *token};
  if (o.seeds.empty()) {
    // simweb's host 2 answers robots.txt with 500 for ever: settle it in
    // seconds (1 s, 2 s, then robots-blocked), not the minutes a real site gets.
    fargs.insert(fargs.end(), {"--set", "crawl.allow_host_suffixes=[\".simweb.test\"]",
                               "--set", "crawl.robots_error_backoff=1s"});
  }
  fargs.insert(fargs.end(), o.frontier_args.begin(), o.frontier_args.end());
  auto frontier = Spawn("crawl-frontier", fargs, (work / "logs/frontier.log").string());
  if (!frontier.ok()) return fail("frontier", frontier.status());
  children.push_back(*frontier);
  auto fports = WaitPortFile((work / "frontier.port").string(), *frontier);
  if (!fports.ok()) return fail("frontier", fports.status());
  std::string resp_addr = "127.0.0.1:" + ValueOf(*fports, "resp");
  std::string http_url = "http://127.0.0.1:" + ValueOf(*fports, "http") + "/";

  GlobalOptions local = g;
  local.frontiers = {resp_addr};
  auto client = Connect(local, resp_addr);
  if (!client.ok()) return fail("connect", client.status());
  std::vector<std::string> add = {"FRONTIER.ADDX", "URLS"};
  if (o.seeds.empty()) {
    for (int h = 0; h < o.hosts; ++h) add.push_back("http://h" + std::to_string(h) + ".simweb.test/");
  } else {
    std::ifstream in(o.seeds);
    if (!in) return fail("seeds", Status::IoError("cannot open " + o.seeds));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] != '#') add.push_back(line);
    }
  }
  auto added = (*client)->Command(add);
  if (!added.ok() || added->is_error()) {
    return fail("seeding", added.ok() ? Status::InvalidArgument(added->str) : added.status());
  }

  for (int w = 0; w < o.workers; ++w) {
    std::vector<std::string> wargs = {(bin / "crawl-worker").string(), "--frontier", resp_addr,
                                      "--warc-dir", (work / "warc").string()};
    if (o.seeds.empty()) {
      wargs.insert(wargs.end(), {"--connect-to", "::127.0.0.1:" + sim_port, "--set",
                                 "fetch.allow_private_networks=true"});
    }
    wargs.insert(wargs.end(), o.worker_args.begin(), o.worker_args.end());
    auto worker = Spawn("crawl-worker", wargs,
                        (work / "logs" / ("worker" + std::to_string(w) + ".log")).string());
    if (!worker.ok()) return fail("worker", worker.status());
    children.push_back(*worker);
  }

  std::printf("crawl started: %zu seed URLs, %d worker(s)\n", add.size() - 2, o.workers);
  std::printf("  status page:  %s\n", http_url.c_str());
  std::printf("  metrics:      %smetrics\n", http_url.c_str());
  std::printf("  frontier:     redis-cli -p %s INFO crawl\n", ValueOf(*fports, "resp").c_str());
  std::printf("  logs:         %s\n", (work / "logs").c_str());
  std::fflush(stdout);

  auto start = Clock::now();
  std::vector<std::pair<std::string, std::string>> info;
  bool finished = false;
  uint64_t last_done = 0;
  auto last_t = start, last_progress = start;
  bool told_waiting = false;  // once per stall
  while (!g_interrupted && Clock::now() - start < std::chrono::seconds(o.timeout_s)) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto r = (*client)->Command({"INFO", "crawl"});
    if (!r.ok()) return fail("frontier", r.status());
    info = ParseInfo(r->str);
    uint64_t done = std::stoull(InfoValue(info, "urls_done"));
    auto now = Clock::now();
    double rate = (done - last_done) / std::chrono::duration<double>(now - last_t).count();
    const bool progressed = done != last_done || InfoValue(info, "urls_inflight") != "0";
    last_done = done;
    last_t = now;
    uint64_t fetched = 0;
    for (auto key : {"fetched_2xx", "fetched_3xx", "fetched_4xx", "fetched_5xx"}) {
      fetched += std::stoull(InfoValue(info, key));
    }
    std::printf("  %5.0fs  done %s (fetched %llu)  queued %s  in flight %s  failed %s  "
                "robots-blocked %s  %.0f URLs/s\n",
                std::chrono::duration<double>(now - start).count(),
                InfoValue(info, "urls_done").c_str(), static_cast<unsigned long long>(fetched),
                InfoValue(info, "urls_queued").c_str(),
                InfoValue(info, "urls_inflight").c_str(), InfoValue(info, "urls_failed").c_str(),
                InfoValue(info, "urls_robots_blocked").c_str(), rate);
    if (progressed) {
      last_progress = now;
      told_waiting = false;
    } else if (!told_waiting && now - last_progress >= std::chrono::seconds(10)) {
      std::string waiting = WaitingHosts(client->get(), local);
      if (!waiting.empty()) {
        std::printf("%s  (crawlctl --frontier %s hosts)\n", waiting.c_str(), resp_addr.c_str());
      }
      told_waiting = true;
    }
    std::fflush(stdout);
    if (InfoValue(info, "finished") == "1") {
      finished = true;
      break;
    }
    for (auto& c : children) {
      if (Exited(c)) {
        c.pid = -1;
        return fail(c.name, Status::Unavailable("exited unexpectedly"));
      }
    }
  }
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("\n%s after %.1f s\n", finished ? "crawl finished" : "crawl stopped", secs);
  for (auto key : {"urls_seen", "urls_done", "fetched_2xx", "fetched_3xx", "fetched_4xx",
                   "fetched_5xx", "urls_failed", "urls_robots_blocked", "urls_rejected", "hosts"}) {
    std::printf("  %-22s %s\n", key, InfoValue(info, key).c_str());
  }
  if (!finished && InfoValue(info, "urls_queued") != "0") {
    std::printf("%s", WaitingHosts(client->get(), local).c_str());
  }
  uint64_t warc_bytes = 0;
  int warc_files = 0;
  for (auto& e : fs::directory_iterator(work / "warc")) {
    ++warc_files;
    warc_bytes += e.file_size();
  }
  std::printf("  WARC:  %d file(s), %.1f MiB in %s\n", warc_files, warc_bytes / 1048576.0,
              (work / "warc").c_str());
  std::printf("  logs:  %s\n", (work / "logs").c_str());
  if (o.linger_s > 0 && !g_interrupted) {
    std::printf("status page stays up for %d s at %s (Ctrl-C to stop)\n", o.linger_s,
                http_url.c_str());
    std::fflush(stdout);
    for (int i = 0; i < o.linger_s * 10 && !g_interrupted; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  Stop(children);
  return finished ? kExitOk : kExitFailed;
}

}  // namespace

int RunRun(const GlobalOptions& g, const std::vector<std::string>& args) {
  RunOptions o;
  po::options_description desc(
      "crawlctl run [options]\n"
      "All-in-one crawl on this machine: simweb (unless --seeds), a frontier with its\n"
      "status page, and workers; prints progress, a summary and the WARC location.\n"
      "Options");
  desc.add_options()("help,h", "this help")(
      "workdir", po::value(&o.workdir)->default_value(o.workdir), "data, WARC and logs go here")(
      "seeds", po::value(&o.seeds), "crawl the URLs in this file instead of simweb")(
      "hosts", po::value(&o.hosts)->default_value(o.hosts), "simweb hosts")(
      "pages", po::value(&o.pages)->default_value(o.pages), "simweb pages per host")(
      "seed", po::value(&o.seed)->default_value(o.seed), "simweb random seed")(
      "workers", po::value(&o.workers)->default_value(o.workers), "worker processes")(
      "max-depth", po::value(&o.max_depth)->default_value(o.max_depth), "link depth limit")(
      "delay-ms", po::value(&o.delay_ms)->default_value(o.delay_ms), "politeness delay per host")(
      "timeout", po::value(&o.timeout_s)->default_value(o.timeout_s), "stop after this many seconds")(
      "fresh", po::bool_switch(&o.fresh), "delete an earlier run's data and WARC files in --workdir")(
      "resume", po::bool_switch(&o.resume),
      "continue the crawl an earlier run left in --workdir, keeping its WARC files")(
      "linger", po::value(&o.linger_s)->default_value(o.linger_s),
      "keep the frontier and status page up this many seconds after the crawl")(
      "worker-arg", po::value(&o.worker_args), "extra argument for crawl-worker (repeatable)")(
      "frontier-arg", po::value(&o.frontier_args), "extra argument for crawl-frontier (repeatable)");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crawlctl run: %s\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return kExitOk;
  }
  if (o.fresh && o.resume) {
    std::fprintf(stderr, "crawlctl run: --fresh and --resume exclude each other\n");
    return kExitUsage;
  }
  if (o.hosts < 1 || o.pages < 1 || o.workers < 1 || o.workers > 64 || o.timeout_s < 1) {
    std::fprintf(stderr, "crawlctl run: --hosts, --pages, --workers (<= 64), --timeout must be positive\n");
    return kExitUsage;
  }
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  std::signal(SIGTERM, [](int) { g_interrupted = 1; });
  return Run(g, o);
}

}  // namespace crawlfront::ctl
