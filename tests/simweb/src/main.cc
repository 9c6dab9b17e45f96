// simweb: serves the deterministic synthetic web on a loopback address, or
// (--expect) prints the URLs a correct crawler fetches from it. See
// docs/simweb.md.

#include <signal.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "crawlfront/simweb/encoding.h"
#include "crawlfront/simweb/oracle.h"
#include "crawlfront/simweb/server.h"

namespace po = boost::program_options;
using namespace crawlfront;
using namespace crawlfront::simweb;

namespace {

struct Flags {
  SimWebOptions web;
  std::string listen = "127.0.0.1:0";
  std::string port_file;
  ServerOptions server;
  bool expect = false;
  ExpectOptions oracle;
  std::string robots = "respect";
  std::string encodings;
};

po::options_description Describe(Flags& f) {
  po::options_description d("simweb options");
  auto add = d.add_options();
  add("help", "print this help");
  add("listen", po::value(&f.listen),
      "loopback HOST:PORT to serve on; port 0 = any free port (default 127.0.0.1:0)");
  add("port-file", po::value(&f.port_file), "write the bound port to this file");
  add("access-log", po::value(&f.server.access_log), "append a line per request here");
  add("threads", po::value(&f.server.threads), "I/O threads (default 4)");
  add("encodings", po::value(&f.encodings),
      "content codings offered for text responses, best first, e.g. gzip,br,zstd "
      "(default none: bodies as is)");
  add("hosts", po::value(&f.web.hosts), "hosts h0..h<N-1>.simweb.test (default 10)");
  add("pages", po::value(&f.web.pages), "pages per host (default 50)");
  add("seed", po::value(&f.web.seed), "seed of the link graph (default 1)");
  add("min-links", po::value(&f.web.min_links),
      "fewest random links a page (default 10)");
  add("max-links", po::value(&f.web.max_links), "most random links a page (default 30)");
  add("cross-host-percent", po::value(&f.web.cross_host_percent),
      "share of links to other hosts (default 25)");
  add("redirects", po::value(&f.web.redirects_per_host),
      "redirect chains a host (default 3)");
  add("files", po::value(&f.web.files_per_host), "PDF and PNG files a host (default 2)");
  add("slow-pages", po::value(&f.web.slow_pages_per_host),
      "slow pages a host, 0 = none (default 1)");
  add("large-page-every", po::value(&f.web.large_page_every),
      "host i has a 1-2 MB page when i % N == 1, 0 = none (default 4)");
  add("trap-every", po::value(&f.web.trap_every),
      "host i links the calendar trap when i % N == 0, 0 = none (default 3)");
  add("plain-robots", po::bool_switch(),
      "plain robots.txt everywhere (no 404/500/agent/Crawl-delay variants)");
  add("utf8-only", po::bool_switch(), "no ISO-8859-1 / Shift_JIS pages");
  add("sitemaps", po::bool_switch(&f.web.sitemaps),
      "robots.txt names /sitemap.xml: an index of every page (gzip) and of orphan pages");
  add("expect", po::bool_switch(&f.expect), "print the oracle's URL<TAB>STATUS list");
  add("max-depth", po::value(&f.oracle.max_depth), "oracle: deepest depth (default 3)");
  add("robots", po::value(&f.robots),
      "oracle: respect|ignore robots.txt (default respect)");
  add("user-agent", po::value(&f.oracle.user_agent),
      "oracle: robots.txt product token (default crawlfront)");
  add("seeds", po::value(&f.oracle.seeds)->multitoken(),
      "oracle: seed URLs (default: every home page)");
  return d;
}

// "127.0.0.1:8080" or "[::1]:8080" into address and port.
bool ParseListen(const std::string& text, ServerOptions& server) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size()) return false;
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  try {
    unsigned long port = std::stoul(text.substr(colon + 1));
    if (port > 65535) return false;
    server.port = static_cast<uint16_t>(port);
  } catch (const std::exception&) {
    return false;
  }
  server.address = host;
  return true;
}

bool WritePortFile(const std::string& path, uint16_t port) {
  // Written aside and renamed, so a reader never sees a half-written file.
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << port << "\n";
    if (!out.good()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

int RunOracle(const Flags& flags) {
  Result<SimWeb> web = SimWeb::Create(flags.web);
  if (!web.ok()) {
    std::cerr << "simweb: " << web.status().ToString() << "\n";
    return 2;
  }
  Result<Expectation> expectation = Expect(*web, flags.oracle);
  if (!expectation.ok()) {
    std::cerr << "simweb: " << expectation.status().ToString() << "\n";
    return 2;
  }
  for (const std::string& seed : expectation->skipped_seeds) {
    std::cerr << "skipped-seed\t" << seed << "\n";
  }
  for (const std::string& prefix : expectation->trap_prefixes) {
    std::cerr << "trap-prefix\t" << prefix << "\n";
  }
  std::string out;
  for (const ExpectedFetch& fetch : expectation->fetches) {
    out += fetch.url + "\t" + std::to_string(fetch.status) + "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RunServer(Flags& flags) {
  if (!ParseListen(flags.listen, flags.server)) {
    std::cerr << "simweb: --listen wants HOST:PORT, got '" << flags.listen << "'\n";
    return 2;
  }
  Result<std::vector<ContentCoding>> encodings = ParseCodingList(flags.encodings);
  if (!encodings.ok()) {
    std::cerr << "simweb: --encodings: " << encodings.status().message() << "\n";
    return 2;
  }
  flags.server.encodings = std::move(*encodings);
  // Block the stop signals before the server threads exist, so they inherit
  // the mask and only sigwait() below sees SIGINT/SIGTERM.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto server = SimWebServer::Start(flags.web, flags.server);
  if (!server.ok()) {
    std::cerr << "simweb: " << server.status().ToString() << "\n";
    return 1;
  }
  uint16_t port = (*server)->port();
  if (!flags.port_file.empty() && !WritePortFile(flags.port_file, port)) {
    std::cerr << "simweb: cannot write port file " << flags.port_file << "\n";
    return 1;
  }
  std::cout << port << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  (*server)->Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  po::options_description description = Describe(flags);
  po::variables_map vars;
  try {
    po::store(po::parse_command_line(argc, argv, description), vars);
    po::notify(vars);
  } catch (const std::exception& e) {
    std::cerr << "simweb: " << e.what() << "\n" << description << "\n";
    return 2;
  }
  if (vars.count("help")) {
    std::cout << "usage: simweb --listen 127.0.0.1:PORT [options]\n"
                 "       simweb --expect --max-depth D [--robots respect|ignore] "
                 "[--seeds URL...]\n\n"
              << description << "\n";
    return 0;
  }
  flags.web.robots_variants = !vars["plain-robots"].as<bool>();
  flags.web.non_utf8_pages = !vars["utf8-only"].as<bool>();
  if (flags.robots != "respect" && flags.robots != "ignore") {
    std::cerr << "simweb: --robots must be respect or ignore\n";
    return 2;
  }
  flags.oracle.respect_robots = flags.robots == "respect";
  return flags.expect ? RunOracle(flags) : RunServer(flags);
}
