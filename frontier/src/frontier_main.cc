// crawl-frontier: parses options, opens the node, waits for a signal.

#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include <spdlog/spdlog.h>

#include "crawlfront/common/log.h"
#include "crawlfront/common/net.h"
#include "crawlfront/frontier/frontier_node.h"

namespace {

volatile std::sig_atomic_t g_signals = 0;

void OnSignal(int) {
  g_signals = g_signals + 1;
  if (g_signals >= 2) std::_Exit(130);  // second signal: exit at once
}

bool IsLoopback(const std::string& listen) {
  auto endpoint = crawlfront::ParseListenEndpoint(listen);
  return endpoint.ok() && endpoint->address().is_loopback();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace crawlfront;
  const auto& table = FrontierConfigTable();
  auto cmd = table.ParseArgs(argc, argv, FrontierFlagAliases());
  if (!cmd.ok()) {
    std::fprintf(stderr, "crawl-frontier: %s\n(see --help)\n", cmd.status().message().c_str());
    return 2;
  }
  if (!cmd->positional.empty()) {
    std::fprintf(stderr, "crawl-frontier: unexpected argument '%s' (a config file goes after "
                 "--config; see --help)\n", cmd->positional.front().c_str());
    return 2;
  }
  if (cmd->help) {
    std::cout << "usage: crawl-frontier [--config FILE] [--set key=value ...] [flags]\n\n"
                 "The crawl frontier: seen-set, host queues, leases; RESP server and status "
                 "page.\nSample config: configs/frontier.toml. docs/operations.md explains "
                 "running it.\nSIGTERM/SIGINT stop it cleanly (a second one exits at once); SIGHUP reopens "
                 "log.file (after logrotate moved it).\n\n"
              << table.HelpText(FrontierFlagAliases());
    return 0;
  }
  auto options = table.Load(*cmd);
  if (!options.ok()) {
    std::fprintf(stderr, "crawl-frontier: %s\n", options.status().message().c_str());
    return 2;
  }
  if (options->auth_token.empty() && !IsLoopback(options->listen)) {
    std::fprintf(stderr, "crawl-frontier: server.listen %s is not loopback; set "
                 "server.auth_token first\n", options->listen.c_str());
    return 2;
  }
  Status log = InitLogging("crawl-frontier", options->log_level, options->log_file,
                           {static_cast<uint64_t>(options->log_max_file_bytes),
                            static_cast<int>(options->log_max_files)});
  if (!log.ok()) {
    std::fprintf(stderr, "crawl-frontier: %s\n", log.message().c_str());
    return 2;
  }
  spdlog::info("crawl-frontier starting; effective config:\n{}", table.Dump(*options));
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  LogReopenOnSighup reopen_log;

  auto node = FrontierNode::Open(*options);
  if (!node.ok()) {
    spdlog::critical("cannot open frontier: {}", node.status().ToString());
    return 1;
  }
  Status started = (*node)->Start();
  if (!started.ok()) {
    spdlog::critical("cannot start: {}", started.ToString());
    return 1;
  }
  // Polled, not pause(): a signal landing between the check and pause() would be lost.
  while (g_signals == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  spdlog::info("signal received: shutting down (a second signal exits at once)");
  (*node)->Stop();
  node->reset();
  return 0;
}
