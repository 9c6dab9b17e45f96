#include "fetcher_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace crawlfront::testing {
namespace {

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

// Waits up to 100 ms for fd to become readable.
bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 100) > 0;
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

std::string PathOf(const std::string& head) {
  size_t sp1 = head.find(' ');
  size_t sp2 = sp1 == std::string::npos ? sp1 : head.find(' ', sp1 + 1);
  if (sp2 == std::string::npos) return "/";
  return head.substr(sp1 + 1, sp2 - sp1 - 1);
}

}  // namespace

TestHttpServer::TestHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("TestHttpServer");
    std::abort();
  }
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

TestHttpServer::~TestHttpServer() {
  stop_ = true;
  gate_cv_.notify_all();
  accept_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
  ::close(listen_fd_);
}

void TestHttpServer::OpenGate() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    gate_open_ = true;
  }
  gate_cv_.notify_all();
}

std::vector<std::string> TestHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

bool TestHttpServer::WaitForGate() {
  std::unique_lock<std::mutex> lock(mu_);
  gate_cv_.wait(lock, [this] { return gate_open_ || stop_.load(); });
  return !stop_.load();
}

void TestHttpServer::AcceptLoop() {
  while (!stop_) {  // polls every 100 ms so the destructor can stop it
    if (!Readable(listen_fd_)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    threads_.emplace_back([this, fd] {
      Serve(fd);
      ::close(fd);
    });
  }
}

void TestHttpServer::Serve(int fd) {
  std::string buffer;
  while (!stop_) {  // one request per pass; ends on close, error or stop
    size_t end = buffer.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (!Readable(fd)) continue;
      char chunk[4096];
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) return;
      buffer.append(chunk, static_cast<size_t>(n));
      continue;
    }
    std::string head = buffer.substr(0, end + 4);
    buffer.erase(0, end + 4);
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(head);
    }
    TestResponse r = handler_(PathOf(head), head);
    if (r.wait_for_gate && !WaitForGate()) return;
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + Reason(r.status) + "\r\n";
    for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
    out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n\r\n" + r.body;
    if (!SendAll(fd, out)) return;
  }
}

}  // namespace crawlfront::testing
