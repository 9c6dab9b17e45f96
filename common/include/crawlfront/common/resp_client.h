#pragma once
// Blocking RESP client with timeouts, for crawlctl, workers and tests.
// Speaks to any Redis-compatible server, including crawl-frontier.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/resp.h"
#include "crawlfront/common/status.h"

namespace crawlfront {

struct RespClientOptions {
  // Bound on connecting, and on each Command()/Pipeline() call as a whole.
  // Short values fail fast on a stuck server but can cut off a legitimately
  // slow command (a blocking lease). Default: 5 s.
  std::chrono::milliseconds timeout = std::chrono::seconds(5);
  // Sent with AUTH (or HELLO ... AUTH) right after connecting when not empty.
  // Default: empty (no AUTH).
  std::string auth_token;
  // 2 or 3. With 3 the client sends HELLO 3 and receives maps, doubles, ...
  // Default: 2 (what every server understands).
  int protocol = 2;
  // Limits on replies; a reply over them fails the call with Corruption.
  // Default: RespLimits{}.
  RespLimits limits;
};

// One TCP connection to a RESP server. Not thread-safe: one thread at a time
// may use an instance (it may be handed between threads). After a network
// error, a timeout or a malformed reply the connection is closed and every
// later call returns Unavailable, because the framing is lost.
class RespClient {
 public:
  // Resolves host (name or IP literal), connects, optionally authenticates
  // and switches protocol. Returns Unavailable when the server cannot be
  // reached in time, InvalidArgument for bad options or rejected credentials.
  static Result<std::unique_ptr<RespClient>> Connect(const std::string& host,
                                                     uint16_t port,
                                                     std::chrono::milliseconds timeout);
  static Result<std::unique_ptr<RespClient>> Connect(const std::string& host,
                                                     uint16_t port,
                                                     const RespClientOptions& options);
  ~RespClient();
  RespClient(const RespClient&) = delete;
  RespClient& operator=(const RespClient&) = delete;

  // Sends one command and waits for its reply. A server error reply ("-ERR
  // ...") is a successful Result holding an error RespValue; a failed Result
  // means the network failed (IoError, Unavailable on timeout) or the reply
  // was malformed (Corruption). REQUIRES: !args.empty().
  Result<RespValue> Command(const std::vector<std::string>& args);

  // Sends all commands in one write, then reads one reply per command, in
  // order. Same error contract as Command(); the timeout covers the batch.
  Result<std::vector<RespValue>> Pipeline(
      const std::vector<std::vector<std::string>>& cmds);
  // Pipeline() for `count` commands already encoded into `commands` (e.g.
  // with RespWriter::BulkArray): no vector of strings per command, which is
  // most of a busy client's allocations. The caller vouches for the count;
  // a wrong one desynchronizes the connection, as with SendRaw().
  Result<std::vector<RespValue>> PipelineEncoded(std::string_view commands, size_t count);

  // Low-level access for tests and tools: writes raw bytes as they are
  // (which need not be valid RESP), and reads the next reply.
  Status SendRaw(std::string_view bytes);
  Result<RespValue> ReadReply();

  // Negotiated protocol version (2 or 3).
  int protocol() const;
  // The bound on each later Command()/Pipeline() call, e.g. longer for a
  // command known to be slow than for connecting.
  void set_timeout(std::chrono::milliseconds timeout);
  // Closes the socket; later calls return Unavailable. Idempotent.
  void Close();

 private:
  class Impl;
  explicit RespClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlfront
