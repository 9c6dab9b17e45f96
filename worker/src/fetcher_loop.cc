#include "fetcher_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

namespace crawlfront::fetcher_internal {

namespace {

// Ready sockets handled per wait; level-triggered, so the rest come next time.
constexpr int kMaxEvents = 64;

Status Errno(const char* what) {
  return Status::Internal(std::string(what) + ": " + std::strerror(errno));
}

int CurlBits(uint32_t events) {
  int bits = 0;
  if (events & (EPOLLIN | EPOLLHUP)) bits |= CURL_CSELECT_IN;  // curl reads the EOF
  if (events & EPOLLOUT) bits |= CURL_CSELECT_OUT;
  if (events & EPOLLERR) bits |= CURL_CSELECT_ERR;
  return bits;
}

}  // namespace

EventLoop::~EventLoop() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status EventLoop::Init(CURLM* multi) {
  multi_ = multi;
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return Errno("epoll_create1");
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Errno("eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) return Errno("epoll_ctl");
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &EventLoop::OnSocket);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &EventLoop::OnTimer);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, this);
  return Status::Ok();
}

void EventLoop::Wake() {
  const uint64_t one = 1;
  // Fails only when 2^64 - 2 wake-ups are unread, which still wakes.
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
}

void EventLoop::RunOnce(bool may_sleep) {
  epoll_event events[kMaxEvents];
  const int n = epoll_wait(epoll_fd_, events, kMaxEvents, may_sleep ? WaitMs() : 0);
  int running = 0;
  for (int i = 0; i < n; ++i) {
    const int fd = events[i].data.fd;
    if (fd == wake_fd_) {
      uint64_t count = 0;
      [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof(count));  // resets it
      continue;
    }
    // A socket curl closed while acting on an earlier event is ignored by
    // curl; a reused number at worst gets a spurious, harmless event.
    curl_multi_socket_action(multi_, fd, CurlBits(events[i].events), &running);
  }
  if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
    deadline_.reset();  // curl sets the next one from within the call
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }
}

int EventLoop::WaitMs() const {
  if (!deadline_) return -1;  // a socket or Wake() ends the wait
  const auto left = *deadline_ - std::chrono::steady_clock::now();
  if (left <= left.zero()) return 0;
  // Rounded up: waking just before the deadline would spin until it passes.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<int>(std::min<decltype(ms)>(ms, INT_MAX));
}

int EventLoop::OnTimer(CURLM*, long timeout_ms, void* self) {
  auto* loop = static_cast<EventLoop*>(self);
  if (timeout_ms < 0) {
    loop->deadline_.reset();
  } else {
    // Capped so the time_point cannot overflow; an early wake-up is harmless.
    const long ms = std::min<long>(timeout_ms, INT_MAX);
    loop->deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  }
  return 0;
}

int EventLoop::OnSocket(CURL*, curl_socket_t s, int what, void* self, void* socketp) {
  auto* loop = static_cast<EventLoop*>(self);
  if (what == CURL_POLL_REMOVE) {
    // Fails (EBADF, ENOENT) when curl closed the socket first; closing
    // already dropped it from the set.
    epoll_ctl(loop->epoll_fd_, EPOLL_CTL_DEL, s, nullptr);
    return 0;
  }
  loop->Watch(s, what, socketp != nullptr);
  return 0;
}

// `known`: curl_multi_assign marked s as added, so the set has it unless curl
// closed the number and reused it without a REMOVE; the fallbacks cover that.
void EventLoop::Watch(curl_socket_t s, int what, bool known) {
  epoll_event ev{};
  if (what & CURL_POLL_IN) ev.events |= EPOLLIN;
  if (what & CURL_POLL_OUT) ev.events |= EPOLLOUT;
  ev.data.fd = s;
  if (!known) curl_multi_assign(multi_, s, this);
  if (epoll_ctl(epoll_fd_, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) == 0) return;
  if (errno == ENOENT) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, s, &ev);
  } else if (errno == EEXIST) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, s, &ev);
  }
}

}  // namespace crawlfront::fetcher_internal
