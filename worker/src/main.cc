// crawl-worker: parses options, opens the worker, runs it until a signal,
// the page limit or idleness ends it. See docs/worker.md.

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "crawlfront/common/log.h"
#include "crawlfront/worker/robots.h"
#include "crawlfront/worker/worker.h"

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "needed in a signal handler");

// The first signal asks for a clean stop; a second one exits at once, as
// the frontier does.
extern "C" void OnSignal(int) {
  if (g_stop.exchange(true)) std::_Exit(130);
}

// Configuration errors (InvalidArgument) exit 2, failures to run 1.
int ExitCode(const crawlfront::Status& st) {
  return st.code() == crawlfront::Status::Code::kInvalidArgument ? 2 : 1;
}

constexpr const char* kUsage =
    "Usage: crawl-worker [--config FILE] [--set section.key=value ...]\n"
    "                    [--frontier HOST:PORT ...] [--connect-to H:P:CH:CP ...]\n"
    "                    [--warc-dir DIR] [--max-pages N] [--exit-when-idle SECONDS]\n"
    "                    [--worker-id ID] [--log-level LEVEL] [--robots-token]\n\n"
    "Leases URLs from the frontiers, fetches them, writes WARC and reports back.\n"
    "--frontier and --connect-to may be repeated; their values replace the\n"
    "config file's list. SIGTERM/SIGINT stop it cleanly; a second one exits at once.\nSIGHUP reopens log.file (after logrotate moved it).\n"
    "--robots-token prints the robots.txt product token of fetch.user_agent (what\n"
    "the frontiers' crawl.user_agent must be) and exits.\n\nKeys:\n";

// Flags whose values accumulate into one list key, and flags whose values
// need a unit; both are rewritten into --set before the config module parses.
struct Rewritten {
  std::vector<std::string> args;
  std::string error;
  bool robots_token = false;  // --robots-token: print it and exit
};

Rewritten RewriteArgs(int argc, char** argv) {
  Rewritten out;
  std::vector<std::string> frontiers, connect_to;
  std::string idle;
  out.args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    const size_t eq = arg.find('=');
    const bool inline_value = arg.starts_with("--") && eq != std::string::npos;
    if (inline_value) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (arg == "--robots-token") {
      out.robots_token = true;
      continue;
    }
    if (name != "--frontier" && name != "--connect-to" && name != "--exit-when-idle") {
      out.args.push_back(arg);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        out.error = name + " needs a value";
        return out;
      }
      value = argv[++i];
    }
    if (name == "--frontier") frontiers.push_back(value);
    if (name == "--connect-to") connect_to.push_back(value);
    if (name == "--exit-when-idle") {
      // Documented in seconds; a bare number would be milliseconds to the config.
      const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
      idle = "worker.exit_when_idle=" + value + (digits ? "s" : "");
    }
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ",\"" : "\"") + v[i] + "\"";
    return s + "]";
  };
  // Right after argv[0]: anywhere else a `--set` could become the value of
  // a flag given without one (`--worker-id` last took `--set` and the
  // default frontier was used).
  std::vector<std::string> sets;
  if (!frontiers.empty()) {
    sets.insert(sets.end(), {"--set", "frontier.addresses=" + join(frontiers)});
  }
  if (!connect_to.empty()) {
    sets.insert(sets.end(), {"--set", "fetch.connect_to=" + join(connect_to)});
  }
  if (!idle.empty()) sets.insert(sets.end(), {"--set", idle});
  out.args.insert(out.args.begin() + 1, sets.begin(), sets.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using crawlfront::FlagAlias;
  const auto& table = crawlfront::WorkerConfigTable();
  const std::vector<FlagAlias> aliases = {{"warc-dir", "warc.dir"},
                                          {"max-pages", "worker.max_pages"},
                                          {"worker-id", "worker.id"},
                                          {"log-level", "log.level"}};
  Rewritten rw = RewriteArgs(argc, argv);
  if (!rw.error.empty()) {
    std::fprintf(stderr, "crawl-worker: %s\n", rw.error.c_str());
    return 2;
  }
  std::vector<const char*> args;
  for (const std::string& a : rw.args) args.push_back(a.c_str());
  auto cmd = table.ParseArgs(static_cast<int>(args.size()), args.data(), aliases);
  if (!cmd.ok()) {
    std::fprintf(stderr, "crawl-worker: %s\n%s", cmd.status().message().c_str(), kUsage);
    return 2;
  }
  if (!cmd->positional.empty()) {
    std::fprintf(stderr, "crawl-worker: unexpected argument '%s' (options start with --)\n%s",
                 cmd->positional.front().c_str(), kUsage);
    return 2;
  }
  if (cmd->help) {
    std::cout << kUsage << table.HelpText(aliases);
    return 0;
  }
  auto opts = table.Load(*cmd);
  if (!opts.ok()) {
    std::fprintf(stderr, "crawl-worker: %s\n", opts.status().message().c_str());
    return 2;
  }
  if (crawlfront::Status st = crawlfront::ValidateWorkerOptions(*opts); !st.ok()) {
    std::fprintf(stderr, "crawl-worker: %s\n", st.message().c_str());
    return 2;
  }
  if (rw.robots_token) {  // for crawlctl run, which sets the frontier to match
    std::printf("%s\n", std::string(crawlfront::RobotsProductToken(opts->user_agent)).c_str());
    return 0;
  }
  crawlfront::Status log = crawlfront::InitLogging(
      "crawl-worker", opts->log_level, opts->log_file,
      {static_cast<uint64_t>(opts->log_max_file_bytes), static_cast<int>(opts->log_max_files)});
  if (!log.ok()) {
    std::fprintf(stderr, "crawl-worker: %s\n", log.ToString().c_str());
    return 2;
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  crawlfront::LogReopenOnSighup reopen_log;
  auto worker = crawlfront::Worker::Open(std::move(*opts));
  if (!worker.ok()) {
    std::fprintf(stderr, "crawl-worker: %s\n", worker.status().ToString().c_str());
    return ExitCode(worker.status());
  }
  crawlfront::Status st = (*worker)->Run(g_stop);
  if (!st.ok()) {
    std::fprintf(stderr, "crawl-worker: %s\n", st.ToString().c_str());
    return ExitCode(st);
  }
  return 0;
}
