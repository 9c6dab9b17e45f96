#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1 for the fetcher and worker tests:
// answers each request with whatever the test's handler returns, optionally
// holding the response until the test opens a gate (slow servers, timeouts,
// results that arrive after a frontier restart). Plain POSIX sockets, one
// thread per connection, keep-alive supported.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace crawlfront::testing {

struct TestResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // Content-Length is added
  std::string body;
  bool wait_for_gate = false;  // hold the response until OpenGate() or shutdown
};

class TestHttpServer {
 public:
  // Called on a connection thread with the request path and the full head.
  using Handler = std::function<TestResponse(const std::string& path,
                                             const std::string& head)>;

  // Listens on 127.0.0.1 with an ephemeral port; aborts the test process if
  // it cannot (tests cannot continue without it).
  explicit TestHttpServer(Handler handler);
  // Stops accepting, releases held responses, closes connections, joins.
  ~TestHttpServer();

  uint16_t port() const { return port_; }
  // Releases held responses, now and for later requests.
  void OpenGate();
  // Heads of requests received so far, in arrival order.
  std::vector<std::string> requests() const;
  // Number of TCP connections accepted.
  int connections() const { return connections_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);
  bool WaitForGate();  // false when stopping

  Handler handler_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex mu_;
  std::condition_variable gate_cv_;
  bool gate_open_ = false;
  std::vector<std::string> requests_;
  std::vector<std::thread> threads_;  // guarded by mu_
  std::thread accept_thread_;
};

}  // namespace crawlfront::testing
