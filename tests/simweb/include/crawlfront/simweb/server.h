#pragma once
// The simweb HTTP/1.1 server: serves a SimWeb on a loopback address with
// keep-alive, virtual hosts by Host header, and non-blocking slow pages.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/simweb/encoding.h"
#include "crawlfront/simweb/options.h"

namespace crawlfront::simweb {

struct ServerOptions {
  // Loopback address to listen on (127.0.0.0/8 or ::1 only: the synthetic web
  // is for this machine). Default: 127.0.0.1.
  std::string address = "127.0.0.1";
  // TCP port; 0 picks a free one (see SimWebServer::port()). Default: 0.
  uint16_t port = 0;
  // I/O threads. More threads serve large pages in parallel. Default: 4.
  int threads = 4;
  // Access log file, or "" for none. Default: "".
  std::string access_log;
  // Content codings offered for text/* responses, best first, used when the
  // request's Accept-Encoding allows one (then Content-Encoding and Vary are
  // set). Costs CPU per response; empty serves every body as is, so tests
  // that compare bytes are unaffected. Default: empty.
  std::vector<ContentCoding> encodings;
};

class SimWebServer {
 public:
  // Validates the options, binds, and starts serving on background threads.
  // InvalidArgument for bad options or a non-loopback address, IoError when
  // the port cannot be bound or the log not opened.
  static Result<std::unique_ptr<SimWebServer>> Start(const SimWebOptions& web,
                                                     const ServerOptions& server);
  // Stops and joins (see Stop()).
  ~SimWebServer();
  SimWebServer(const SimWebServer&) = delete;
  SimWebServer& operator=(const SimWebServer&) = delete;

  // The bound port (the real one when ServerOptions::port was 0).
  uint16_t port() const;

  // Stops accepting, drops open connections and joins the threads.
  // Idempotent. Not to be called from a server thread.
  void Stop();

 private:
  struct Impl;
  explicit SimWebServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlfront::simweb
