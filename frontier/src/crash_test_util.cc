#include "crash_test_util.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace crawlfront::testing {
namespace {

bool WriteAll(int fd, const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads exactly one ack; false at end of file (the child is gone).
bool ReadAck(int fd, uint64_t* v) {
  ssize_t r;
  do {
    r = read(fd, v, sizeof *v);
  } while (r < 0 && errno == EINTR);
  return r == sizeof *v;  // acks are 8 bytes, written whole: no short reads
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) != 0) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

// Forks with a pipe from child to parent. Returns the pid (0 in the child,
// -1 on failure) and leaves the end this side uses in *fd.
pid_t ForkWithPipe(int* fd) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  std::fflush(nullptr);  // or buffered output would be printed twice
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  close(pid == 0 ? fds[0] : fds[1]);
  *fd = pid == 0 ? fds[1] : fds[0];
  return pid;
}

[[noreturn]] void RunSteps(const std::function<CrashStep()>& make_step,
                           uint64_t max_steps, int fd) {
  CrashStep step = make_step();
  if (!step) _exit(3);
  for (uint64_t i = 0; i < max_steps; ++i) {
    if (!step(i)) _exit(5);
    uint64_t acked = i + 1;
    if (!WriteAll(fd, &acked, sizeof acked)) _exit(6);
  }
  _exit(0);
}

std::string Describe(int status) {
  if (WIFEXITED(status))
    return "child exited with " + std::to_string(WEXITSTATUS(status));
  return "child ended with wait status " + std::to_string(status);
}

}  // namespace

KilledChild RunUntilKilled(const std::function<CrashStep()>& make_step,
                           uint64_t kill_after, uint64_t max_steps) {
  KilledChild result;
  int fd = -1;
  pid_t pid = ForkWithPipe(&fd);
  if (pid < 0) {
    result.error = std::string("pipe or fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) RunSteps(make_step, max_steps, fd);
  uint64_t v = 0;
  while (result.acked < kill_after && ReadAck(fd, &v)) result.acked = v;
  kill(pid, SIGKILL);
  while (ReadAck(fd, &v)) result.acked = v;  // acks written before the kill
  close(fd);
  int status = 0;
  waitpid(pid, &status, 0);
  result.killed = WIFSIGNALED(status);
  if (!result.killed) result.error = Describe(status);
  return result;
}

void ChildExit::Exit(int code, std::string_view bytes) const {
  if (!WriteAll(fd_, bytes.data(), bytes.size()) && code == 0) code = 1;
  std::fflush(nullptr);  // printed output is not state a crash should lose
  _exit(code);
}

int RunLikeCrash(const std::function<void(const ChildExit& child)>& body,
                 std::string* out) {
  int fd = -1;
  pid_t pid = ForkWithPipe(&fd);
  if (pid < 0) return -1;
  if (pid == 0) {
    body(ChildExit(fd));
    _exit(2);  // the body returned: its locals were closed, not crashed
  }
  std::string bytes = ReadAll(fd);  // before waitpid: a full pipe would block the child
  close(fd);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  if (out) *out = std::move(bytes);
  return WEXITSTATUS(status);
}

}  // namespace crawlfront::testing
