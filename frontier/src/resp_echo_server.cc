// Minimal RespServer with only the built-in commands, for load tests such as
// `redis-benchmark -t ping`. Usage: resp_echo_server PORT [THREADS]
// Serves on 127.0.0.1 until stdin reaches EOF.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "crawlfront/frontier/resp_server.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PORT [THREADS]\n", argv[0]);
    return 2;
  }
  crawlfront::RespServerOptions options;
  options.listen = std::string("127.0.0.1:") + argv[1];
  options.threads = argc > 2 ? std::atoi(argv[2]) : 0;
  crawlfront::RespServer server(options);
  crawlfront::Status st = server.Start();
  if (!st.ok()) {
    std::fprintf(stderr, "start: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("listening on 127.0.0.1:%u\n", server.port());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  server.Stop();
  return 0;
}
