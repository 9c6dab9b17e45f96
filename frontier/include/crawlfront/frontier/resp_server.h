#pragma once
// RespServer: a Redis-protocol TCP server framework over Boost.Asio. The
// frontier registers its commands; the server provides framing, limits,
// pipelining, deferred (asynchronous) replies, AUTH and the Redis basics
// (PING, HELLO, COMMAND, INFO, ...) that real Redis clients expect.
// See docs/protocol.md.

#include <any>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawlfront/common/resp.h"
#include "crawlfront/common/status.h"

namespace crawlfront {

struct RespServerOptions {
  // "host:port" or "[ipv6]:port" to listen on; IP literals or "localhost".
  // Port 0 picks a free port (see RespServer::port()). A non-loopback address
  // requires auth_token. Default: "127.0.0.1:6380".
  std::string listen = "127.0.0.1:6380";
  // io threads, each with its own event loop; connections are spread over
  // them round-robin at accept. Default: 0 = half the cores, at least one
  // (RocksDB's flushes and compactions and the kernel's network stack use
  // the rest; see DefaultIoThreads).
  int threads = 0;
  // Frame limits for requests; a violation closes that connection.
  // Default: RespLimits{} (64 MiB bulk, 2^20 elements, 64 KiB inline).
  RespLimits limits;
  // Per-connection cap on buffered reply bytes: once over it the server stops
  // executing pipelined commands (and so stops reading) until the replies are
  // written. Lower bounds RAM per slow client; higher means fewer writes.
  // Default: 1 MiB.
  size_t max_pending_replies = size_t{1} << 20;
  // A connection with no traffic (and no deferred reply pending) for this
  // long is closed. Frees sockets of vanished clients; too short drops idle
  // but legitimate workers. Default: 300 s.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(300);
  // Connections beyond this get "-ERR max number of clients reached" and are
  // closed. Bounds file descriptors and RAM. Default: 10000.
  size_t max_connections = 10000;
  // When not empty, clients must AUTH (or HELLO ... AUTH) with this token
  // before any command but AUTH, HELLO and QUIT. Default: empty (no auth;
  // allowed only on loopback addresses).
  std::string auth_token;
};

// Per-connection state, owned by the connection and only touched on its io
// thread (i.e. from handlers of that connection).
struct ClientState {
  uint64_t id = 0;             // unique per server, from 1
  bool authenticated = false;  // true when no auth_token is configured
  std::string name;            // CLIENT SETNAME
  std::string peer;            // "address:port" of the other end, for messages
  int resp_version = 2;        // 2 or 3, set by HELLO
  std::any user;               // free slot for command handlers
};

// A reply produced later, possibly on another thread (blocking lease with
// a timeout). The connection sends nothing after it, and runs no further
// pipelined command, until Complete() is called.
class DeferredReply {
 public:
  using Deliver = std::function<void(std::string)>;
  DeferredReply(int protocol, Deliver deliver)
      : protocol_(protocol), deliver_(std::move(deliver)) {}
  // An uncompleted reply completes with an error, so the client never hangs.
  ~DeferredReply();
  DeferredReply(const DeferredReply&) = delete;
  DeferredReply& operator=(const DeferredReply&) = delete;

  // Sends `encoded` (complete RESP bytes, e.g. from a RespWriter using
  // protocol()). Thread-safe; only the first call has an effect; a no-op if
  // the connection has closed. REQUIRES: the RespServer is still alive.
  void Complete(std::string encoded);
  // Protocol version of the connection when the reply was deferred.
  int protocol() const { return protocol_; }

 private:
  const int protocol_;
  Deliver deliver_;
  std::atomic<bool> done_{false};
};

class RespServer;

// Group commit. Work that commands of one dispatch round share and that must
// be done before any of their replies is sent, e.g. one RocksDB write for
// all the adds of a pipeline instead of one per command. A connection runs
// every complete request it has buffered (a round), then runs Commit() of
// each RoundCommit the round created, in creation order, then sends the
// round's replies. Implementations live with the storage they commit.
class RoundCommit {
 public:
  virtual ~RoundCommit() = default;
  // Called once, on the connection's io thread, after the round's last command
  // and before its replies are written. On failure, the reply of every
  // command that joined this commit is replaced by an error reply carrying
  // the message ("ERR " is prefixed unless it starts with an error code).
  virtual Status Commit() = 0;
  // True if the connection should call CommitAsync instead: the result is
  // passed to `done` later, possibly on another thread, and the io thread
  // serves other connections meanwhile.
  virtual bool async() const { return false; }
  virtual void CommitAsync(std::function<void(const Status&)> done) { done(Commit()); }
};

// The RoundCommits of one round of one connection, and which replies wait
// for each. Owned by the connection; handlers reach it through CallContext.
// Not thread-safe (used on the connection's io thread only).
class CommitRound {
 public:
  // The commit registered under `key` this round, or null.
  RoundCommit* Find(const void* key) const;
  // Registers `commit` under `key` (REQUIRES: none yet) and returns it.
  RoundCommit& Add(const void* key, std::unique_ptr<RoundCommit> commit);
  // The running command's reply waits for `commit` (one of this round's).
  void Join(RoundCommit* commit);

  // Used by the connection around each command: its reply is
  // (*out)[reply_start, reply_end); a deferred reply is not in *out.
  void BeginCommand(size_t reply_start);
  void EndCommand(size_t reply_end, bool deferred);
  // The registered commits, in creation order: the connection runs them.
  std::vector<RoundCommit*> commits() const;
  // With each commit's result (in commits()'s order): replaces in *out the
  // replies of commands whose commit failed, and starts a new round.
  void Finish(std::span<const Status> results, std::string* out);
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    const void* key;
    std::unique_ptr<RoundCommit> commit;
    std::vector<std::pair<size_t, size_t>> replies;  // [start, end) in *out
  };
  std::vector<Entry> entries_;
  std::vector<size_t> joined_;  // entries the running command joined
  size_t reply_start_ = 0;
};

// What a command handler sees. Valid only during the handler call.
class CallContext {
 public:
  // `deliver` is copied only if the handler calls Defer(). `round` is null
  // when the caller has no group commit (handlers then commit themselves).
  CallContext(RespServer& server, std::span<const std::string> args, ClientState& client,
              std::string* out, const DeferredReply::Deliver& deliver,
              CommitRound* round = nullptr)
      : server_(server),
        args_(args),
        client_(client),
        writer_(out, client.resp_version),
        deliver_(deliver),
        round_(round) {}

  // args()[0] is the command name as the client sent it.
  std::span<const std::string> args() const { return args_; }
  int protocol() const { return client_.resp_version; }
  // Writer for the synchronous reply. Write exactly one value (it may be an
  // aggregate), unless Defer() was called, then write nothing.
  RespWriter& reply() { return writer_; }
  ClientState& client() { return client_; }
  RespServer& server() { return server_; }
  // Switches this connection's protocol, for this reply too (HELLO).
  void SetProtocol(int version);
  // Makes the reply asynchronous; call at most once.
  std::shared_ptr<DeferredReply> Defer();
  bool deferred() const { return deferred_; }
  // Closes the connection once the reply is written (QUIT).
  void CloseAfterReply() { close_after_reply_ = true; }
  bool close_after_reply() const { return close_after_reply_; }

  // A long command in pieces: after this handler returns, the io thread
  // serves its other ready connections, then calls `step` with a new
  // CallContext (same args()), and again after each call that returns
  // false. The connection runs nothing else meanwhile. Steps write nothing
  // until the one that returns true, which writes the reply (JoinCommit
  // works there as in a handler). Write no reply when calling this.
  using Step = std::function<bool(CallContext&)>;
  void ContinueWith(Step step) { step_ = std::move(step); }
  bool continues() const { return static_cast<bool>(step_); }
  Step TakeStep() { return std::exchange(step_, nullptr); }

  // Group commit: the round's commit of type T under `key` (created with
  // make() by the first command of the round that asks), joined by this
  // command: its reply is sent only after T::Commit() succeeded, and becomes
  // an error if it failed. Null when there is no round (the handler must
  // then make its work durable itself before replying). A deferred reply
  // does not wait: complete it only once its work is durable. REQUIRES:
  // `key` is only ever used with T (e.g. the address of the store T writes).
  template <typename T, typename Make>
  T* JoinCommit(const void* key, Make make) {
    if (round_ == nullptr) return nullptr;
    RoundCommit* c = round_->Find(key);
    if (c == nullptr) c = &round_->Add(key, make());
    round_->Join(c);
    return static_cast<T*>(c);
  }

 private:
  RespServer& server_;
  std::span<const std::string> args_;
  ClientState& client_;
  RespWriter writer_;
  const DeferredReply::Deliver& deliver_;
  CommitRound* round_;
  bool deferred_ = false;
  bool close_after_reply_ = false;
  Step step_;
};

// Command flags, shown by COMMAND and used for the auth check.
enum CommandFlag : uint32_t {
  kCmdNoAuth = 1u << 0,  // allowed before AUTH
  kCmdReadonly = 1u << 1,
  kCmdWrite = 1u << 2,
  kCmdFast = 1u << 3,
  kCmdBlocking = 1u << 4,  // may Defer()
  kCmdAdmin = 1u << 5,
  // Keeps a PassLock taken by the previous command (pass_hold.h); not
  // shown by COMMAND.
  kCmdKeepsHold = 1u << 6,
};

struct CommandSpec {
  // Redis style, counting the name: N = exactly N, -N = at least N.
  int arity = -1;
  uint32_t flags = 0;   // CommandFlag bits
  std::string summary;  // one line for COMMAND DOCS
  std::string group = "crawlfront";
  std::string since = "0.1.0";
  std::function<void(CallContext&)> handler;
  // Optional. Called with the request that follows the running one on the
  // same connection (pipelining), before the running one executes, so it
  // can start that request's cache misses early (the Bloom block of the
  // next BF.ADD). Must not change state. Runs only for authenticated
  // clients and requests that fit the arity.
  std::function<void(std::span<const std::string> args)> prefetch;
};

struct RespServerStats {
  uint64_t connections_current = 0;
  uint64_t connections_total = 0;     // accepted, including rejected ones
  uint64_t connections_rejected = 0;  // over max_connections
  uint64_t commands_processed = 0;
  uint64_t protocol_errors = 0;
};

class RespSession;

// The io threads used when RespServerOptions::threads is 0.
int DefaultIoThreads();

// Lifecycle: construct, Register() commands, Start(), ..., Stop().
// Register/SetInfoProvider are not thread-safe and must precede Start();
// stats() and port() are thread-safe.
class RespServer {
 public:
  // Registers the built-in commands (PING, HELLO, COMMAND, INFO, ...).
  explicit RespServer(RespServerOptions options);
  ~RespServer();  // calls Stop()
  RespServer(const RespServer&) = delete;
  RespServer& operator=(const RespServer&) = delete;

  // Adds or replaces a command; `name` is matched case-insensitively.
  void Register(std::string name, CommandSpec spec);
  // Supplies INFO text: called on an io thread with the lower-case section
  // name ("" for all sections); returns "# Section\r\nkey:value\r\n" lines
  // (possibly empty). Must be thread-safe.
  void SetInfoProvider(std::function<std::string(std::string_view section)> provider);

  // Binds, listens and starts the io threads. Returns InvalidArgument for a
  // bad listen address or a non-loopback listen without auth_token, IoError
  // when the address cannot be bound. Call once.
  Status Start();
  // Stops accepting, lets in-flight writes finish (bounded wait of about
  // 5 s), closes connections and joins the threads. Idempotent.
  void Stop();

  // Bound port after a successful Start().
  uint16_t port() const { return port_.load(); }
  size_t io_threads() const { return threads_.size(); }
  RespServerStats stats() const;
  // Whether the connection with this ClientState::id is still open.
  bool IsOpen(uint64_t client_id) const;
  const RespServerOptions& options() const { return options_; }
  // Command table, keyed by upper-case name.
  const std::map<std::string, CommandSpec, std::less<>>& commands() const {
    return commands_;
  }
  // INFO text: built-in sections (server, clients, stats) plus the provider's.
  std::string RenderInfo(std::string_view section) const;

  using CommandEntry = std::pair<const std::string, CommandSpec>;
  // The command named `name` (any case); nullptr for an unknown one.
  const CommandEntry* Lookup(std::string_view name) const;
  // Runs one request (called by connections) whose command Lookup found
  // (nullptr: unknown): auth, arity, handler.
  void Dispatch(CallContext& ctx, const CommandEntry* entry);
  // Runs the command's prefetch hook, if it has one and args fit its arity.
  void Prefetch(const CommandEntry* entry, std::span<const std::string> args) const;

 private:
  friend class RespSession;
  struct Io;  // Asio objects, kept out of this header

  void RegisterBuiltins();
  void AddSession(uint64_t id, std::weak_ptr<RespSession> session);
  void RemoveSession(uint64_t id);

  RespServerOptions options_;
  std::map<std::string, CommandSpec, std::less<>> commands_;
  // Hashed view of commands_ for Dispatch (one hash instead of ~7 string
  // compares per request).
  std::unordered_map<std::string_view, const std::pair<const std::string, CommandSpec>*>
      command_index_;
  std::function<std::string(std::string_view)> info_provider_;
  std::chrono::steady_clock::time_point started_at_;
  std::atomic<uint16_t> port_{0};
  std::atomic<uint64_t> next_client_id_{1};
  std::atomic<uint64_t> connections_current_{0};
  std::atomic<uint64_t> connections_total_{0};
  std::atomic<uint64_t> connections_rejected_{0};
  std::atomic<uint64_t> commands_processed_{0};
  std::atomic<uint64_t> protocol_errors_{0};
  mutable std::mutex sessions_mu_;
  std::unordered_map<uint64_t, std::weak_ptr<RespSession>> sessions_;
  std::vector<std::thread> threads_;
  bool running_ = false;
  std::unique_ptr<Io> io_;  // last: destroyed first, with pending handlers
};

}  // namespace crawlfront
