// Connection loop: parse everything buffered, run the handlers back to back,
// commit the round's shared work once (group commit, see RoundCommit), write
// all replies at once, then read again. A deferred reply pauses the loop
// until it completes, which keeps replies in request order.
#include "resp_server_session.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "crawlfront/frontier/pass_hold.h"

namespace crawlfront {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {
// One read buffer per io thread, not per connection: idle connections cost
// no buffer, and a read can be large. Large reads matter for big requests
// (BF.MADD with 100 items is 3 KB): with 16 KB per read, one request in five
// arrived split and took the parser's slow path (docs/benchmarks.md,
// session 19). Safe to share: a read's bytes are fed to the parser before
// the coroutine suspends again.
constexpr size_t kReadChunk = 64 * 1024;

std::span<char> ThreadReadBuffer() {
  thread_local std::vector<char> buf(kReadChunk);
  return buf;
}

// Exceptions must not escape into io_context::run(); a failed coroutine just
// ends its connection.
void IgnoreException(std::exception_ptr) {}
}  // namespace

RespSession::RespSession(RespServer& server, asio::ip::tcp::socket socket, uint64_t id)
    : server_(server),
      socket_(std::move(socket)),
      idle_timer_(socket_.get_executor()),
      wake_timer_(socket_.get_executor()),
      parser_(RespParser::Mode::kRequest, server.options().limits) {
  state_.id = id;
  boost::system::error_code ec;
  const auto remote = socket_.remote_endpoint(ec);
  if (!ec) {
    const std::string host = remote.address().to_string();
    state_.peer = (remote.address().is_v6() ? "[" + host + "]" : host) + ":" +
                  std::to_string(remote.port());
  }
  state_.authenticated = server.options().auth_token.empty();
}

void RespSession::Start() {
  boost::system::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  // ReadSome tries a read before waiting; on a blocking socket that read
  // would stall the io thread, so such a connection ends at once.
  socket_.non_blocking(true, ec);
  if (ec) closing_ = true;
  idle_deadline_ = Clock::now() + server_.options().idle_timeout;
  deliver_ = MakeDeliver();
  auto self = shared_from_this();
  asio::co_spawn(socket_.get_executor(), Run(self), IgnoreException);
  asio::co_spawn(socket_.get_executor(), Watchdog(self), IgnoreException);
}

void RespSession::Shutdown() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->closing_ = true;
    // A write in flight finishes; a read or a deferred wait is cut short.
    if (self->reading_) self->Close();
    if (self->waiting_deferred_) self->wake_timer_.cancel();
  });
}

void RespSession::Close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  idle_timer_.cancel();
  wake_timer_.cancel();
}

DeferredReply::Deliver RespSession::MakeDeliver() {
  std::weak_ptr<RespSession> weak = weak_from_this();
  auto executor = socket_.get_executor();
  return [weak, executor](std::string encoded) {
    asio::post(executor, [weak, encoded = std::move(encoded)]() mutable {
      if (auto self = weak.lock()) self->OnDeferredComplete(std::move(encoded));
    });
  };
}

void RespSession::OnDeferredComplete(std::string encoded) {
  if (!waiting_deferred_) return;
  out_ += encoded;
  waiting_deferred_ = false;
  wake_timer_.cancel();
}

template <typename Fn>
void RespSession::Execute(Fn run) {
  round_.BeginCommand(out_.size());
  CallContext ctx(server_, args_, state_, &out_, deliver_, &round_);
  run(ctx);
  round_.EndCommand(out_.size(), ctx.deferred());
  if (ctx.deferred()) waiting_deferred_ = true;
  if (ctx.close_after_reply()) closing_ = true;
  if (ctx.continues()) step_ = ctx.TakeStep();
}

void RespSession::ExecuteOne() {
  Execute([this](CallContext& ctx) { server_.Dispatch(ctx, command_); });
}

// args_ still holds the long command's request: the next one is taken only
// once its last step has run. A throwing step ends the command as a
// throwing handler does (Dispatch).
void RespSession::RunStep() {
  PassScope pass;
  CallContext::Step step = std::exchange(step_, nullptr);
  Execute([&step, this](CallContext& ctx) {
    const size_t reply_start = out_.size();
    try {
      if (!step(ctx)) ctx.ContinueWith(std::move(step));
    } catch (const std::exception& e) {
      out_.resize(reply_start);
      ctx.reply().Error(std::string("ERR internal error: ") + e.what());
    }
  });
}

bool RespSession::ProcessBuffered() {
  PassScope pass;  // a command's PassLock ends with the pass at the latest
  // Each pass consumes one request from the parser or returns.
  while (!closing_ && !waiting_deferred_ && !step_) {
    if (out_.size() >= server_.options().max_pending_replies) return true;
    Result<bool> got = TakeNext();
    if (!got.ok()) {
      RespWriter(&out_, state_.resp_version).Error("ERR " + got.status().message());
      server_.protocol_errors_.fetch_add(1, std::memory_order_relaxed);
      closing_ = true;
      return false;
    }
    if (!*got) return false;
    PeekNext();
    ExecuteOne();
  }
  return false;
}

// A long request (a 50,000-URL ADD) leaves a vector sized for its
// arguments in args_ (or next_args_), and its reply's buffer in writing_;
// a connection that then idles should not keep megabytes (17 MB each after
// a 300,000-item BF.MEXISTS, before). They are freed once the connection
// has waited kTrimDelay for its next request: a client that sends long
// requests back to back (a BF.SCANDUMP loop: 4 MiB replies) reuses them,
// which measured 4x faster than freeing them after each reply.
constexpr auto kTrimDelay = std::chrono::seconds(1);
constexpr size_t kKeepArgs = 1024;
constexpr size_t kKeepBytes = 1 << 20;

bool RespSession::HoldsLongBuffers() const {
  return args_.capacity() > kKeepArgs || next_args_.capacity() > kKeepArgs ||
         writing_.capacity() > kKeepBytes;
}

// Called before a read, when every command read so far is done and its
// reply written.
void RespSession::ScheduleTrim() {
  if (trim_at_ != Clock::time_point::max() || !HoldsLongBuffers()) return;
  trim_at_ = Clock::now() + kTrimDelay;
  idle_timer_.cancel();  // the watchdog re-arms for trim_at_
}

// From the watchdog, only while Run waits for the client's next bytes.
void RespSession::TrimBuffers() {
  // (`v = {}` would keep the capacity: it assigns an empty list.)
  if (args_.capacity() > kKeepArgs) std::vector<std::string>().swap(args_);
  if (!peeked_ && next_args_.capacity() > kKeepArgs) {
    std::vector<std::string>().swap(next_args_);
  }
  if (writing_.capacity() > kKeepBytes) std::string().swap(writing_);
}

Result<bool> RespSession::TakeNext() {
  if (!peeked_) {
    Result<bool> got = parser_.NextCommand(&args_);
    if (got.ok() && *got) command_ = LookupCommand(args_[0]);
    return got;
  }
  peeked_ = false;
  if (!peek_error_.ok()) return std::exchange(peek_error_, Status::Ok());
  args_.swap(next_args_);
  command_ = next_command_;
  return true;
}

// With pipelining, the next request's cache misses (its hook prefetches)
// overlap the running request's work instead of stalling it later. Looking
// further ahead measured slower (docs/benchmarks.md, session 15). A parse
// error found here is reported when that request's turn comes.
void RespSession::PeekNext() {
  Result<bool> got = parser_.NextCommand(&next_args_);
  if (!got.ok()) {
    peeked_ = true;
    peek_error_ = got.status();
    return;
  }
  if (!*got) return;
  peeked_ = true;
  next_command_ = LookupCommand(next_args_[0]);
  if (state_.authenticated) server_.Prefetch(next_command_, next_args_);
}

// A pipeline repeats one command: the last name, as the client spelled it,
// answers without upper-casing and hashing it again. Only names that could
// be commands are kept (a bulk string may be 64 MiB).
const RespServer::CommandEntry* RespSession::LookupCommand(const std::string& name) {
  constexpr size_t kMaxMemoName = 64;
  if (name.size() > kMaxMemoName) return server_.Lookup(name);
  if (name != last_name_) {
    last_name_ = name;
    last_command_ = server_.Lookup(name);
  }
  return last_command_;
}

namespace {

// Waits for one commit without blocking the io thread: its result comes
// back through the connection's executor, whatever thread finished it.
asio::awaitable<Status> AwaitCommit(RoundCommit* commit) {
  auto ex = co_await asio::this_coro::executor;
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(Status)>(
      [commit, ex](auto handler) {
        auto h = std::make_shared<decltype(handler)>(std::move(handler));
        commit->CommitAsync([h, ex](const Status& st) {
          asio::post(ex, [h, st]() mutable { std::move(*h)(st); });
        });
      },
      asio::use_awaitable);
}

}  // namespace

asio::awaitable<void> RespSession::FinishRound() {
  std::vector<RoundCommit*> commits = round_.commits();
  std::vector<Status> results;
  results.reserve(commits.size());
  for (RoundCommit* commit : commits) {
    // A synchronous commit (BF.*) costs no hop through the executor. (Not
    // a ?: around co_await: g++ 12 destroys its temporaries twice.)
    if (!commit->async()) {
      results.push_back(commit->Commit());
      continue;
    }
    Status st = co_await AwaitCommit(commit);
    results.push_back(std::move(st));
  }
  round_.Finish(results, &out_);
}

asio::awaitable<bool> RespSession::Flush() {
  writing_.clear();
  writing_.swap(out_);
  idle_deadline_ = Clock::now() + server_.options().idle_timeout;
  boost::system::error_code ec;
  co_await asio::async_write(socket_, asio::buffer(writing_),
                             asio::redirect_error(asio::use_awaitable, ec));
  co_return !ec;
}

asio::awaitable<void> RespSession::Run(std::shared_ptr<RespSession> self) {
  // Unregisters however the coroutine ends: return, exception, or being
  // destroyed with the io_context.
  struct Unregister {
    RespSession* session;
    ~Unregister() {
      session->Close();
      session->server_.RemoveSession(session->state_.id);
    }
  } unregister{this};
  boost::system::error_code ec;
  // Ends when the peer closes, an error occurs, or the server shuts down.
  while (!closed_) {
    bool over_cap = ProcessBuffered();
    // A long command's pieces, one per turn of the io thread: the other
    // connections on it are served in between, not after the whole call.
    while (step_ && !closed_) {
      idle_deadline_ = Clock::time_point::max();  // busy for the client
      co_await asio::post(socket_.get_executor(), asio::use_awaitable);
      RunStep();
      if (!step_) over_cap = ProcessBuffered();
    }
    if (closed_) break;
    bool held = waiting_deferred_;
    // Every reply of the round waits for the round's commits. Yielding first
    // lets the other connections of this io thread that are ready in the
    // same pass run their rounds, so one commit covers them all (Redis's
    // beforeSleep); without it each request at P=1 paid its own write.
    if (!round_.empty()) {
      co_await asio::post(socket_.get_executor(), asio::use_awaitable);
      co_await FinishRound();
    }
    if (!out_.empty() && !co_await Flush()) break;
    if (closing_) break;
    if (waiting_deferred_) {
      idle_deadline_ = Clock::time_point::max();  // waiting on us, not idle
      wake_timer_.expires_at(Clock::time_point::max());
      co_await wake_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    // A deferred reply that landed during the write: requests after it may
    // be buffered already, so run them before reading again.
    if (over_cap || held) continue;
    ScheduleTrim();
    idle_deadline_ = Clock::now() + server_.options().idle_timeout;
    if (!co_await ReadSome()) break;
  }
}

// Reads what the socket has into the thread's buffer and feeds it to the
// parser, waiting for readiness only when nothing is there (what Asio's own
// async read does, but into a buffer the connection does not own).
asio::awaitable<bool> RespSession::ReadSome() {
  boost::system::error_code ec;
  std::span<char> buf = ThreadReadBuffer();
  for (;;) {
    size_t n = socket_.read_some(asio::buffer(buf.data(), buf.size()), ec);
    if (!ec) {
      parser_.Feed(std::string_view(buf.data(), n));
      // A request of megabytes (a 50,000-URL ADD) arrives a read at a time:
      // the thread's other connections are served between its reads.
      if (parser_.in_progress() && n == buf.size()) {
        co_await asio::post(socket_.get_executor(), asio::use_awaitable);
      }
      co_return true;
    }
    if (ec != asio::error::would_block) co_return false;
    reading_ = true;
    co_await socket_.async_wait(asio::ip::tcp::socket::wait_read,
                                asio::redirect_error(asio::use_awaitable, ec));
    reading_ = false;
    if (ec || closed_) co_return false;
  }
}

asio::awaitable<void> RespSession::Watchdog(std::shared_ptr<RespSession> self) {
  boost::system::error_code ec;
  // Each wake-up either closes the connection or re-arms at a later deadline.
  while (!closed_) {
    // Never sleep past one timeout: the deadline may move back from "never"
    // after a deferred reply.
    idle_timer_.expires_at(std::min(
        {idle_deadline_, trim_at_, Clock::now() + server_.options().idle_timeout}));
    co_await idle_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (trim_at_ <= Clock::now()) {
      if (reading_) TrimBuffers();  // else busy: Run schedules it again
      trim_at_ = Clock::time_point::max();
    }
    if (!closed_ && idle_deadline_ <= Clock::now()) Close();
  }
}

}  // namespace crawlfront
