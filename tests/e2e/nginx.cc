#include "nginx.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "daemon.h"
#include "e2e_env.h"
#include "ports.h"

namespace crawlfront::e2e {
namespace {

constexpr int kStartAttempts = 5;  // a free port may be taken before nginx binds it

bool Accepts(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

// nginx started as root runs its workers as an unprivileged user; name it
// (Debian has no "nobody" group, which nginx would assume).
std::string UserLine() {
  if (geteuid() != 0) return "";
  const passwd* pw = getpwnam("nobody");
  const group* gr = pw != nullptr ? getgrgid(pw->pw_gid) : nullptr;
  if (pw == nullptr || gr == nullptr) return "";
  return std::string("user nobody ") + gr->gr_name + ";\n";
}

}  // namespace

std::string FindExecutable(const std::string& name) {
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
  dirs += ":/usr/sbin:/sbin";
  std::istringstream in(dirs);
  for (std::string dir; std::getline(in, dir, ':');) {
    std::string path = dir + "/" + name;
    if (!dir.empty() && access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

Status MakeSelfSignedCert(const std::string& openssl, const std::string& dir,
                          const std::string& host) {
  auto rc = RunProgram(openssl,
                       {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem", "-subj",
                        "/CN=" + host, "-addext", "subjectAltName=DNS:" + host},
                       dir + "/openssl.out", dir + "/openssl.err", std::chrono::seconds(60));
  if (!rc.ok()) return rc.status();
  if (*rc != 0) {
    return Status::Internal("openssl req failed:\n" + testutil::Tail(dir + "/openssl.err"));
  }
  return Status::Ok();
}

Status Nginx::WriteConfig() const {
  const std::string& d = dir_;
  std::ofstream conf(d + "/nginx.conf");
  conf << "daemon off;\nmaster_process on;\nworker_processes 1;\n" << UserLine()
       << "pid " << d << "/nginx.pid;\nlock_file " << d << "/nginx.lock;\n"
       << "error_log " << d << "/error.log info;\n"
       << "events { worker_connections 64; }\n"
       << "http {\n"
       << "  types { text/html html; text/plain txt; }\n"
       << "  default_type application/octet-stream;\n"
       << "  log_format proto '$request_uri $server_protocol $status';\n"
       << "  access_log " << d << "/access.log proto;\n"
       << "  client_body_temp_path " << d << "/client_body;\n"
       << "  proxy_temp_path " << d << "/proxy;\n"
       << "  fastcgi_temp_path " << d << "/fastcgi;\n"
       << "  uwsgi_temp_path " << d << "/uwsgi;\n"
       << "  scgi_temp_path " << d << "/scgi;\n"
       << "  server {\n"
       // nginx 1.22 syntax; 1.25.1+ prefers "http2 on;" but still accepts this.
       << "    listen 127.0.0.1:" << port_ << " ssl http2;\n"
       << "    ssl_certificate " << d << "/cert.pem;\n"
       << "    ssl_certificate_key " << d << "/key.pem;\n"
       << "    root " << root_ << ";\n"
       << "    index index.html;\n"
       << "  }\n}\n";
  conf.close();
  if (!conf) return Status::IoError("cannot write " + d + "/nginx.conf");
  return Status::Ok();
}

Status Nginx::Start(const std::string& nginx, const std::string& dir, const std::string& root) {
  dir_ = dir;
  root_ = root;
  // Workers of a root nginx run as nobody and must reach the files.
  if (geteuid() == 0) chmod(dir_.c_str(), 0755);
  Status last;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    port_ = testutil::UnusedLoopbackPort();  // nginx cannot report a port 0 pick
    CRAWLFRONT_RETURN_IF_ERROR(WriteConfig());
    last = StartOnce(nginx);
    if (last.ok()) return last;
  }
  return last;
}

Status Nginx::StartOnce(const std::string& nginx) {
  const std::string out = dir_ + "/nginx.out";
  pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork failed");
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a last-resort SIGKILL reaches its workers too
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    const std::string conf = dir_ + "/nginx.conf", err = dir_ + "/error.log";
    execl(nginx.c_str(), nginx.c_str(), "-p", dir_.c_str(), "-c", conf.c_str(), "-e",
          err.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_ = pid;
  for (int i = 0; i < 300; ++i) {  // 30 s
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Status::Unavailable("nginx exited during start-up:\n" + testutil::Tail(out) +
                                 testutil::Tail(error_log()));
    }
    if (Accepts(port_)) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Stop();
  return Status::Unavailable("nginx did not accept connections:\n" + testutil::Tail(error_log()));
}

void Nginx::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 1000; ++i) {  // 20 s
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid_, SIGKILL);  // the group of the nginx we started: master and workers
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace crawlfront::e2e
