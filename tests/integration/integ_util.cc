#include "integ_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace crawlfront::integ {

std::unique_ptr<RespClient> ConnectTo(int port) {
  auto c = RespClient::Connect("127.0.0.1", static_cast<uint16_t>(port),
                               std::chrono::milliseconds(10'000));
  if (!c.ok()) return nullptr;
  return std::move(c.value());
}

RespValue Call(RespClient& client, const std::vector<std::string>& args) {
  auto r = client.Command(args);
  if (!r.ok()) return RespValue::Error("NETWORK " + r.status().ToString());
  return std::move(r.value());
}

int64_t InfoField(RespClient& client, const std::string& name) {
  RespValue v = Call(client, {"INFO", "crawl"});
  if (v.is_error()) return -1;
  for (const std::string& line : Lines(v.str)) {
    if (line.rfind(name + ":", 0) == 0) return std::stoll(line.substr(name.size() + 1));
  }
  return -1;
}

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds limit,
             std::chrono::milliseconds step) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(step);
  }
  return done();
}

pid_t Spawn(const std::vector<std::string>& argv, const std::string& in_path,
            const std::string& out_path, const std::string& err_path) {
  pid_t pid = fork();
  if (pid != 0) return pid;  // parent (or -1)
  int in = open(in_path.empty() ? "/dev/null" : in_path.c_str(), O_RDONLY);
  int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (in < 0 || out < 0 || err < 0) _exit(126);
  dup2(in, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

int WaitExit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

namespace {
// The state letter of /proc/<pid>/task/<tid>/stat (after the ')' of the name).
char ThreadState(const std::filesystem::path& stat) {
  std::ifstream in(stat);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() ? text[close + 2] : '?';
}
}  // namespace

bool WaitStopped(pid_t pid) {
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  return WaitFor(
      [&] {
        std::error_code ec;
        bool all = true;
        for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
          all = all && ThreadState(t.path() / "stat") == 'T';
        }
        return !ec && all;
      },
      std::chrono::seconds(10));
}

ProcessResult Run(const std::vector<std::string>& argv, const std::string& scratch_dir,
                  const std::string& in_path) {
  // Unique names so several runs in one directory keep their own output.
  static std::atomic<int> counter{0};
  std::string base = scratch_dir + "/run" + std::to_string(counter++);
  ProcessResult r;
  pid_t pid = Spawn(argv, in_path, base + ".out", base + ".err");
  if (pid < 0) return r;
  r.exit_code = WaitExit(pid);
  r.out = ReadFile(base + ".out");
  r.err = ReadFile(base + ".err");
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

}  // namespace crawlfront::integ
