#include "browser.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace crawlfront::ui {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TailOf(const std::string& text, size_t n = 2000) {
  return text.size() > n ? text.substr(text.size() - n) : text;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The parent's environment without proxies and with HOME and the XDG
// directories inside `home`, so Chromium writes nothing outside the scratch
// directory. Built before fork: the child only calls async-signal-safe code.
std::vector<std::string> ChildEnvironment(const std::string& home) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    std::string lower;
    for (char c : name)
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("proxy") != std::string::npos || name == "HOME" ||
        StartsWith(name, "XDG_")) {
      continue;
    }
    env.push_back(kv);
  }
  env.push_back("HOME=" + home);
  env.push_back("XDG_CONFIG_HOME=" + home + "/.config");
  env.push_back("XDG_CACHE_HOME=" + home + "/.cache");
  return env;
}

// Runs argv in its own process group with stdout and stderr in files. On
// timeout the whole group (Chromium's helper processes too) gets SIGKILL.
// Returns the exit code.
Result<int> RunBounded(const std::vector<std::string>& args,
                       const std::vector<std::string>& env, const std::string& out,
                       const std::string& err, std::chrono::seconds timeout) {
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null_fd = open("/dev/null", O_RDONLY);
    if (out_fd >= 0) dup2(out_fd, STDOUT_FILENO);
    if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the kill below never misses
  auto deadline = Clock::now() + timeout;
  int status = 0;
  bool timed_out = false;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);  // helpers that outlived the browser process, if any
  if (timed_out) return Status::Unavailable("chromium did not finish in time");
  if (!WIFEXITED(status)) return Status::Unavailable("chromium was killed by a signal");
  return WEXITSTATUS(status);
}

// The flags shared by every run. The resolver maps every name but
// 127.0.0.1 to nothing, so no other host can load (checked by hand:
// http://localhost:PORT/ then dumps an empty DOM).
std::vector<std::string> BaseArgs(const BrowserRun& run, const std::string& profile) {
  return {run.chromium,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-extensions",
          "--no-proxy-server",
          "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
          "--hide-scrollbars",
          "--user-data-dir=" + profile,
          "--virtual-time-budget=" + std::to_string(run.virtual_time_ms)};
}

// Runs Chromium with `extra` flags and the URL; returns its stdout.
Result<std::string> RunChromium(const BrowserRun& run,
                                const std::vector<std::string>& extra) {
  if (!StartsWith(run.url, "http://127.0.0.1:")) {
    return Status::InvalidArgument("refusing to load a URL off 127.0.0.1: " + run.url);
  }
  if (run.chromium.empty()) return Status::Unavailable("chromium not found");
  static std::atomic<int> counter{0};
  fs::path dir = fs::path(run.scratch_dir) / ("chromium-" + std::to_string(counter++));
  std::error_code ec;
  fs::create_directories(dir / "home", ec);
  if (ec) return Status::IoError("cannot create " + dir.string() + ": " + ec.message());
  std::vector<std::string> args = BaseArgs(run, (dir / "profile").string());
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(run.url);
  std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  auto rc =
      RunBounded(args, ChildEnvironment((dir / "home").string()), out, err, run.timeout);
  if (!rc.ok())
    return Status::Unavailable(rc.status().message() + "\n" + TailOf(ReadAll(err)));
  if (*rc != 0) {
    return Status::Unavailable("chromium exited with " + std::to_string(*rc) + "\n" +
                               TailOf(ReadAll(err)));
  }
  return ReadAll(out);
}

size_t AppendBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

}  // namespace

std::string FindChromium() {
  if (const char* c = std::getenv("CRAWLFRONT_CHROMIUM"); c != nullptr && *c != '\0')
    return c;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      fs::path p = fs::path(d) / name;
      if (access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

Result<std::string> DumpDom(const BrowserRun& run) {
  auto dom = RunChromium(run, {"--dump-dom"});
  // Chromium exits 0 with no output when the page could not load at all.
  if (dom.ok() && dom->empty())
    return Status::Unavailable("chromium dumped an empty DOM");
  return dom;
}

Status Screenshot(const BrowserRun& run, const std::string& png, int width, int height) {
  std::error_code ec;
  fs::remove(png, ec);
  auto out =
      RunChromium(run, {"--screenshot=" + png, "--window-size=" + std::to_string(width) +
                                                   "," + std::to_string(height)});
  if (!out.ok()) return out.status();
  if (!fs::exists(png, ec) || fs::file_size(png, ec) == 0) {
    return Status::Internal("chromium wrote no screenshot to " + png);
  }
  return Status::Ok();
}

Result<std::string> HttpGet(int port, const std::string& path) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Status::Internal("curl_easy_init failed");
  std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  std::string body;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10'000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  CURLcode rc = curl_easy_perform(curl);
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return Status::Unavailable(url + ": " + curl_easy_strerror(rc));
  if (code != 200) return Status::Internal(url + ": HTTP " + std::to_string(code));
  return body;
}

}  // namespace crawlfront::ui
