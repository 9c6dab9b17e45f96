#pragma once
// nginx as a child process for the TLS/HTTP/2 test: a self-signed
// certificate made with the openssl CLI, a generated nginx.conf whose every
// path (pid, logs, temp dirs) is in the test's directory, a free 127.0.0.1
// port, and shutdown by PID. Never touches /etc/nginx or /var.

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "crawlfront/common/status.h"

namespace crawlfront::e2e {

// Path of an executable: `name` in PATH, /usr/sbin or /sbin; "" if absent.
std::string FindExecutable(const std::string& name);

// Writes a self-signed certificate for DNS name `host` (valid 2 days) and
// its key to <dir>/cert.pem and <dir>/key.pem with `openssl`. The
// certificate is its own CA, so a client trusts it as tls_ca_file.
Status MakeSelfSignedCert(const std::string& openssl, const std::string& dir,
                          const std::string& host);

// One nginx serving the static files under `root` over https with HTTP/2.
// The access log has one line per request:
// "<request uri> <server protocol> <status>" (e.g. "/a.html HTTP/2.0 200").
class Nginx {
 public:
  Nginx() = default;
  ~Nginx() { Stop(); }
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  // Writes <dir>/nginx.conf (certificate and key from MakeSelfSignedCert in
  // `dir`) and starts `nginx` on a free 127.0.0.1 port, waiting (30 s at
  // most) until it accepts connections. Unavailable with the error log's
  // tail when it does not come up.
  Status Start(const std::string& nginx, const std::string& dir, const std::string& root);
  // SIGTERM (nginx's fast shutdown), wait up to 20 s, then SIGKILL. Idempotent.
  void Stop();

  uint16_t port() const { return port_; }
  std::string access_log() const { return dir_ + "/access.log"; }
  std::string error_log() const { return dir_ + "/error.log"; }

 private:
  Status StartOnce(const std::string& nginx);
  Status WriteConfig() const;

  std::string dir_, root_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace crawlfront::e2e
