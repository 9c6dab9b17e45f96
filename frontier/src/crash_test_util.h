#pragma once
// Crash tests in a forked child: a writer SIGKILLed mid-run, or a body that
// ends with _exit (no destructors, no final snapshot), like a crash.
// Fork only from a test thread while the parent has no open database: its
// background threads would not exist in the child.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace crawlfront::testing {

// One unit of a child's work, step(0), step(1), ...; false when it failed.
using CrashStep = std::function<bool(uint64_t index)>;

struct KilledChild {
  uint64_t acked = 0;   // steps the child finished and acknowledged
  bool killed = false;  // the child died of a signal (as planned)
  std::string error;    // why not killed: "exited with 5", a failed fork, ...
};

// Forks a child that calls make_step() once (it opens its database and
// returns a step that owns it; an empty step means setup failed: _exit(3)),
// then step(0) .. step(max_steps - 1), writing the acknowledged count on a
// pipe after each; _exit(5) when a step fails, _exit(0) after the last. The
// parent reads acks until `kill_after`, SIGKILLs the child, drains the pipe
// (acks written before the kill count), reaps it and returns the last ack.
KilledChild RunUntilKilled(const std::function<CrashStep()>& make_step,
                           uint64_t kill_after, uint64_t max_steps = 100'000);

// How a RunLikeCrash child ends: Exit sends `bytes` to the parent, flushes
// stdio, then calls _exit(code), so none of the body's locals is destroyed
// (no close, no final snapshot), as in a crash.
class ChildExit {
 public:
  explicit ChildExit(int fd) : fd_(fd) {}
  [[noreturn]] void Exit(int code, std::string_view bytes = {}) const;

 private:
  int fd_;
};

// Runs body in a forked child that must end with child.Exit(code, bytes) (a
// body that returns has destroyed its locals: the child then ends with
// _exit(2)). Returns the child's exit code (1 instead of 0 when the bytes
// could not be sent) and stores the bytes in *out when out is not null;
// -1 when pipe or fork failed or the child died of a signal.
int RunLikeCrash(const std::function<void(const ChildExit& child)>& body,
                 std::string* out = nullptr);

}  // namespace crawlfront::testing
