#pragma once
// Helpers shared by the integration tests: RESP calls that turn network
// failures into values, INFO fields, bounded polling, and child processes
// (crawlctl, redis-cli) with their output captured in files.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/resp_client.h"

namespace crawlfront::integ {

// Connects to 127.0.0.1:port with a 10 s timeout (generous: the machine is
// shared and slow). Returns nullptr when the connection fails.
std::unique_ptr<RespClient> ConnectTo(int port);

// Sends one command. A network failure or malformed reply comes back as an
// error value "NETWORK <status>" so tests can print it with the reply.
RespValue Call(RespClient& client, const std::vector<std::string>& args);

// The integer value of `name` in INFO crawl, or -1 when the field is missing
// or the call failed.
int64_t InfoField(RespClient& client, const std::string& name);

// Calls `done` every `step` until it returns true or `limit` passes.
// Returns the last result. Bounded by construction.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds limit,
             std::chrono::milliseconds step = std::chrono::milliseconds(20));

// Starts argv[0] (a path) with stdin from `in_path` ("" = /dev/null) and
// stdout/stderr appended to the given files. Returns the pid, or -1.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& in_path,
            const std::string& out_path, const std::string& err_path);

// Waits for `pid`; returns its exit code, or 128 + signal when it was killed.
int WaitExit(pid_t pid);

// True once every thread of `pid` is stopped (after SIGSTOP, which kill()
// only queues: a busy machine may let a thread run on a while), within 10 s.
bool WaitStopped(pid_t pid);

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv to completion with output captured in files under `scratch_dir`.
ProcessResult Run(const std::vector<std::string>& argv, const std::string& scratch_dir,
                  const std::string& in_path = "");

// Whole file as a string ("" when it cannot be read).
std::string ReadFile(const std::string& path);

// Splits text into lines, dropping '\r' and the empty tail.
std::vector<std::string> Lines(const std::string& text);

}  // namespace crawlfront::integ
