#pragma once
// A lock that a command handler keeps for the next commands of the same
// pass, i.e. one connection's buffered requests run back to back on one
// thread (RespSession::ProcessBuffered). With pipelining, a filter's mutex
// is then taken once per pass instead of once per command, and the two io
// threads stop trading it (and the filter's cache lines) every few hundred
// nanoseconds.
//
// The server releases the held lock before running any command not flagged
// kCmdKeepsHold and when the pass ends. A pass has no suspension point, so
// the lock is released on the thread that took it and is held for at most
// one read buffer's worth of commands; a thread holds at most one such lock,
// so two of them cannot deadlock.

#include "crawlfront/common/adaptive_mutex.h"

namespace crawlfront {

// Marks the current thread as running a pass; releases the held lock when
// the pass ends.
class PassScope {
 public:
  PassScope();
  ~PassScope();
  PassScope(const PassScope&) = delete;
  PassScope& operator=(const PassScope&) = delete;
  // Releases the lock this thread holds for its pass, if any.
  static void Release();
};

// Holds mu for the current command: inside a pass, until the pass releases
// it (reusing it when the previous command took the same mutex); outside a
// pass (direct calls, tests), until this object is destroyed.
class PassLock {
 public:
  explicit PassLock(AdaptiveMutex& mu);
  ~PassLock();
  PassLock(const PassLock&) = delete;
  PassLock& operator=(const PassLock&) = delete;

 private:
  AdaptiveMutex* scoped_ = nullptr;  // unlocked by the destructor
};

}  // namespace crawlfront
