// RespServer lifecycle (Start/Stop, accept loop), dispatch and deferred
// replies. Connections live in resp_server_session.cc, built-in commands in
// resp_server_builtins.cc.
#include "crawlfront/frontier/resp_server.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <tuple>

#include "crawlfront/common/ascii.h"
#include "crawlfront/common/net.h"
#include "crawlfront/frontier/pass_hold.h"
#include "resp_server_session.h"

namespace crawlfront {

namespace asio = boost::asio;
using asio::ip::tcp;

// One io_context per io thread, each connection on one of them: a
// connection's handlers never hop threads (no strand locks, no hand-off
// between threads per completion); BF.ADD without pipelining took ~10% less
// CPU per request than with one shared io_context and strands.
struct RespServer::Io {
  using Work = asio::executor_work_guard<asio::io_context::executor_type>;
  // A nested type may use RespServer's private members.
  static asio::awaitable<void> AcceptLoop(RespServer& server);

  explicit Io(int threads) : loops(MakeLoops(threads)), acceptor(*loops.front()) {
    for (auto& loop : loops) work.emplace_back(loop->get_executor());
  }
  static std::vector<std::unique_ptr<asio::io_context>> MakeLoops(int n) {
    std::vector<std::unique_ptr<asio::io_context>> loops;
    for (int i = 0; i < n; ++i) loops.push_back(std::make_unique<asio::io_context>(1));
    return loops;
  }
  asio::io_context& NextLoop() { return *loops[next_loop++ % loops.size()]; }

  std::vector<std::unique_ptr<asio::io_context>> loops;
  std::vector<Work> work;
  size_t next_loop = 0;  // used by the accept loop only
  tcp::acceptor acceptor;
};

namespace {

// Redis's arity: n > 0 exactly n arguments (the name included), n < 0 at
// least -n.
bool FitsArity(const CommandSpec& spec, size_t args) {
  const int argc = static_cast<int>(args);
  return spec.arity > 0 ? argc == spec.arity : argc >= -spec.arity;
}

// Error reply text for a failed RoundCommit.
std::string CommitErrorReply(const Status& st) {
  std::string text = st.message();
  size_t space = text.find(' ');
  bool has_code = space != std::string::npos && space > 0 &&
                  std::all_of(text.begin(), text.begin() + space,
                              [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!has_code) text = "ERR " + text;
  std::string out;
  RespWriter(&out, 2).Error(text);  // errors encode alike in RESP2 and RESP3
  return out;
}


asio::awaitable<void> RejectConnection(tcp::socket socket) {
  static const std::string kReply = "-ERR max number of clients reached\r\n";
  boost::system::error_code ec;
  co_await asio::async_write(socket, asio::buffer(kReply),
                             asio::redirect_error(asio::use_awaitable, ec));
  socket.close(ec);
}

}  // namespace

DeferredReply::~DeferredReply() {
  if (!done_.load()) Complete("-ERR internal error: deferred reply was dropped\r\n");
}

void DeferredReply::Complete(std::string encoded) {
  if (done_.exchange(true)) return;
  deliver_(std::move(encoded));
}

void CallContext::SetProtocol(int version) {
  client_.resp_version = version;
  writer_.set_protocol(version);
}

RoundCommit* CommitRound::Find(const void* key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return e.commit.get();
  }
  return nullptr;
}

RoundCommit& CommitRound::Add(const void* key, std::unique_ptr<RoundCommit> commit) {
  entries_.push_back(Entry{key, std::move(commit), {}});
  return *entries_.back().commit;
}

void CommitRound::Join(RoundCommit* commit) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].commit.get() != commit) continue;
    if (std::find(joined_.begin(), joined_.end(), i) == joined_.end())
      joined_.push_back(i);
    return;
  }
}

void CommitRound::BeginCommand(size_t reply_start) {
  reply_start_ = reply_start;
  joined_.clear();
}

void CommitRound::EndCommand(size_t reply_end, bool deferred) {
  // A deferred reply is sent later by its own path, never rewritten here.
  if (!deferred && reply_end > reply_start_) {
    for (size_t i : joined_) entries_[i].replies.emplace_back(reply_start_, reply_end);
  }
  joined_.clear();
}

std::vector<RoundCommit*> CommitRound::commits() const {
  std::vector<RoundCommit*> out;
  for (const Entry& e : entries_) out.push_back(e.commit.get());
  return out;
}

void CommitRound::Finish(std::span<const Status> results, std::string* out) {
  // (start, end, error reply) of every reply to replace.
  std::vector<std::tuple<size_t, size_t, std::string>> failed;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    const Status& st = results[i];
    if (st.ok() || e.replies.empty()) continue;
    std::string error = CommitErrorReply(st);
    for (auto [start, end] : e.replies) failed.emplace_back(start, end, error);
  }
  entries_.clear();
  joined_.clear();
  if (failed.empty()) return;
  // Stable: a reply that joined two failed commits keeps the first error.
  std::stable_sort(failed.begin(), failed.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) < std::get<0>(b);
  });
  std::string rebuilt;
  size_t pos = 0;
  for (const auto& [start, end, error] : failed) {
    if (start < pos) continue;  // same reply, already replaced
    rebuilt.append(*out, pos, start - pos);
    rebuilt += error;
    pos = end;
  }
  rebuilt.append(*out, pos, std::string::npos);
  out->swap(rebuilt);
}

std::shared_ptr<DeferredReply> CallContext::Defer() {
  deferred_ = true;
  return std::make_shared<DeferredReply>(client_.resp_version, deliver_);
}

RespServer::RespServer(RespServerOptions options) : options_(std::move(options)) {
  RegisterBuiltins();
}

RespServer::~RespServer() { Stop(); }

void RespServer::Register(std::string name, CommandSpec spec) {
  auto [it, added] = commands_.insert_or_assign(AsciiUpper(name), std::move(spec));
  command_index_[it->first] = &*it;  // map nodes never move
}

void RespServer::SetInfoProvider(std::function<std::string(std::string_view)> provider) {
  info_provider_ = std::move(provider);
}

RespServerStats RespServer::stats() const {
  RespServerStats s;
  s.connections_current = connections_current_.load();
  s.connections_total = connections_total_.load();
  s.connections_rejected = connections_rejected_.load();
  s.commands_processed = commands_processed_.load();
  s.protocol_errors = protocol_errors_.load();
  return s;
}

void RespServer::AddSession(uint64_t id, std::weak_ptr<RespSession> session) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  sessions_.emplace(id, std::move(session));
  connections_current_.fetch_add(1);
}

bool RespServer::IsOpen(uint64_t client_id) const {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  return sessions_.contains(client_id);
}

void RespServer::RemoveSession(uint64_t id) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  if (sessions_.erase(id) > 0) connections_current_.fetch_sub(1);
}

const RespServer::CommandEntry* RespServer::Lookup(std::string_view name) const {
  // Upper-cased on the stack: no allocation per command.
  char upper[64];
  if (name.size() > sizeof upper) return nullptr;
  for (size_t i = 0; i < name.size(); ++i) upper[i] = AsciiUpper(name[i]);
  auto found = command_index_.find(std::string_view(upper, name.size()));
  return found == command_index_.end() ? nullptr : found->second;
}

void RespServer::Prefetch(const CommandEntry* entry, std::span<const std::string> args) const {
  if (entry == nullptr || !entry->second.prefetch) return;
  if (FitsArity(entry->second, args.size())) entry->second.prefetch(args);
}

void RespServer::Dispatch(CallContext& ctx, const CommandEntry* entry) {
  RespWriter& out = ctx.reply();
  const std::string& name = ctx.args()[0];
  if (entry == nullptr) {
    // Same text as Redis 7, so client libraries recognise it.
    std::string args;
    for (size_t i = 1; i < ctx.args().size() && args.size() < 128; ++i) {
      args += "'" + ctx.args()[i].substr(0, 128 - args.size()) + "' ";
    }
    out.Error("ERR unknown command '" + name.substr(0, 128) +
              "', with args beginning with: " + args);
    return;
  }
  const CommandSpec& spec = entry->second;
  if (!(spec.flags & kCmdKeepsHold)) PassScope::Release();
  if (!ctx.client().authenticated && !(spec.flags & kCmdNoAuth)) {
    out.Error("NOAUTH Authentication required.");
    return;
  }
  if (!FitsArity(spec, ctx.args().size())) {
    out.Error("ERR wrong number of arguments for '" + AsciiLower(entry->first) + "' command");
    return;
  }
  commands_processed_.fetch_add(1, std::memory_order_relaxed);
  std::string* buffer = out.buffer();
  size_t reply_start = buffer->size();
  try {
    spec.handler(ctx);
  } catch (const std::exception& e) {
    // A throwing handler must not take the connection (or the io thread)
    // down; drop its partial reply so framing stays intact.
    buffer->resize(reply_start);
    out.Error(std::string("ERR internal error: ") + e.what());
  }
}

// Half the cores: on 2 cores one io thread served pipelined BF.ADD with
// 0.55-0.61 us of CPU per request against 0.75-0.80 with two, and lease +
// done with 6.4 us per URL against 7.9-8.9 (docs/benchmarks.md, session 16):
// two threads on one filter or on the crawl core trade its lock and cache
// lines, and the cores are also needed by RocksDB's background jobs.
int DefaultIoThreads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency() / 2));
}

Status RespServer::Start() {
  if (running_ || io_) return Status::InvalidArgument("RespServer::Start called twice");
  int threads = options_.threads > 0 ? options_.threads : DefaultIoThreads();
  io_ = std::make_unique<Io>(threads);
  tcp::acceptor& acceptor = io_->acceptor;
  Status listening = OpenListener(acceptor, options_.listen, !options_.auth_token.empty());
  if (!listening.ok()) {
    io_.reset();
    return listening;
  }
  port_ = acceptor.local_endpoint().port();
  started_at_ = std::chrono::steady_clock::now();
  asio::co_spawn(acceptor.get_executor(), Io::AcceptLoop(*this),
                 [](std::exception_ptr) {});
  for (auto& loop : io_->loops) threads_.emplace_back([&loop] { loop->run(); });
  running_ = true;
  return Status::Ok();
}

asio::awaitable<void> RespServer::Io::AcceptLoop(RespServer& server) {
  Io& io = *server.io_;
  tcp::acceptor& acceptor = io.acceptor;
  asio::steady_timer backoff(acceptor.get_executor());
  // Runs until Stop() closes the acceptor.
  while (acceptor.is_open()) {
    boost::system::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(
        io.NextLoop(), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (!acceptor.is_open()) break;
      // Out of descriptors (EMFILE) and the like: back off instead of spinning.
      backoff.expires_after(std::chrono::milliseconds(50));
      co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    server.connections_total_.fetch_add(1);
    if (server.connections_current_.load() >= server.options_.max_connections) {
      server.connections_rejected_.fetch_add(1);
      auto executor = socket.get_executor();
      asio::co_spawn(executor, RejectConnection(std::move(socket)),
                     [](std::exception_ptr) {});
      continue;
    }
    uint64_t id = server.next_client_id_.fetch_add(1);
    auto session = std::make_shared<RespSession>(server, std::move(socket), id);
    server.AddSession(id, session);
    session->Start();
  }
}

void RespServer::Stop() {
  if (!running_) return;
  running_ = false;
  asio::post(io_->acceptor.get_executor(), [this] {
    boost::system::error_code ec;
    io_->acceptor.close(ec);
  });
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (auto& [id, weak] : sessions_) {
      if (auto session = weak.lock()) session->Shutdown();
    }
  }
  // Bounded wait for connections to flush and close; stragglers (a client
  // that stopped reading) are dropped when the io_context stops.
  for (int i = 0; i < 100 && connections_current_.load() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  io_->work.clear();
  for (auto& loop : io_->loops) loop->stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  // The posted close may not have run before ioc.stop(): the listening
  // socket would stay open (and accept into its backlog) until destruction.
  boost::system::error_code ec;
  io_->acceptor.close(ec);
}

}  // namespace crawlfront
