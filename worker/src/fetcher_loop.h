#pragma once
// Waits for a libcurl multi handle's sockets and timer with epoll (internal
// to the fetcher). Only the sockets curl names are watched, so a pass costs
// the ready sockets, not all of them as with curl_multi_poll.

#include <curl/curl.h>

#include <chrono>
#include <optional>

#include "crawlfront/common/status.h"

namespace crawlfront::fetcher_internal {

class EventLoop {
 public:
  EventLoop() = default;
  // Closes the fds; destroy after curl_multi_cleanup, which may still call
  // the socket callback.
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Opens the epoll fd and the wake eventfd and installs the socket and timer
  // callbacks on `multi`. Internal if the fds cannot be opened.
  Status Init(CURLM* multi);

  // Thread-safe: makes the current or next RunOnce() return soon.
  void Wake();

  // Waits until a socket is ready, curl's timer is due or Wake() was called
  // (not at all unless `may_sleep`), then lets curl act on what happened.
  void RunOnce(bool may_sleep);

 private:
  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* self, void* socketp);
  static int OnTimer(CURLM* multi, long timeout_ms, void* self);
  void Watch(curl_socket_t s, int what, bool known);
  int WaitMs() const;

  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  // When curl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT); none
  // while it has no timeout pending.
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

}  // namespace crawlfront::fetcher_internal
